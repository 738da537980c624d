"""Honest, readable and terminal-safe CLI output; safe output paths (issue 11)."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import threading
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from chainret.pipeline.ask import ask
from chainret.cli import app, main, print_error
from chainret.cli.ask_cmds import write_new_trace
from chainret.cli.render import render_trace, trace_mermaid
from chainret.core.errors import INSTALL_MODELS, MissingExtra, OutputError
from chainret.core.files import atomic_write_text
from chainret.core.textsafe import unsafe_pattern
from chainret.trace.model import read_trace

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "fixtures" / "seed"
runner = CliRunner()
ASK = "Which contact serves PR-84?"


def run(*args: str, width: int = 200, env: dict | None = None):
    return runner.invoke(app, list(args), env={"COLUMNS": str(width), **(env or {})})


def cli(capsys, *argv: str) -> tuple[int, str]:
    """The real entry point (``main``): exit code and all output."""
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out = capsys.readouterr()
    return exc.value.code, out.out + out.err


def flat(text: str) -> str:
    return " ".join(text.split())


# -- honest output ---------------------------------------------------------------------------------
def test_answer_names_the_final_entity_by_name_and_id():
    r = run("ask", ASK, "--no-trace")
    assert r.exit_code == 0
    assert re.search(r"answer\s+Rowan field office \(contact:final:field\)", r.output)


def test_as_shows_principal_and_viewer():
    pub = run("ask", ASK, "--no-trace").output
    aud = run("ask", ASK, "--no-trace", "--as", "auditor").output
    assert "principal public · shown to public" in flat(pub)
    assert "principal public · shown to auditor" in flat(aud)


def test_reason_code_and_plain_words_are_printed():
    r = run("ask", ASK, "--no-trace", "--packet-chars", "50")
    assert r.exit_code == 1
    assert "packet_too_small" in r.output and "do not fit the packet cap" in flat(r.output)


def test_invalid_quote_is_explained(tmp_path):
    world = tmp_path / "w"
    shutil.copytree(SEED, world)
    text = (world / "catalog.yaml").read_text(encoding="utf-8")
    # rel-2's quote no longer matches the document text at its span (an invalid quote)
    quote = "    quote: REL org:final:north | contact | contact:final:desk\n"
    at = text.index(quote, text.index("- id: rel-2"))
    text = text[:at] + quote.replace("desk\n", "dask\n") + text[at + len(quote):]
    (world / "catalog.yaml").write_text(text, encoding="utf-8")
    r = run("ask", ASK, "--catalog", str(world), "--view", "final", "--no-trace")
    assert r.exit_code == 1
    assert "no_supported_relation" in r.output and "rel-2" in r.output and "span_mismatch" in r.output
    assert "invalid quote" in flat(r.output)


def test_no_pattern_suggests_phrasings_and_exits_1():
    r = run("ask", "Which contact serves PR-7's supplier?", "--no-trace")
    assert r.exit_code == 1
    assert "no_pattern" in r.output and "closest phrasings" in r.output and "which contact serves {project}" in r.output


def test_patterns_command_lists_phrasings():
    r = run("patterns", "--catalog", str(ROOT / "fixtures" / "supply"))
    assert r.exit_code == 0 and "who certifies the supplier of {part}" in r.output
    j = json.loads(run("patterns", "--json").output)
    assert j["world"] == "final" and {"which contact serves {project}", "who is the contact for {project}"} <= {p["phrasing"] for p in j["phrasings"]}


def test_version_and_exit_code_table():
    from chainret import __version__

    r = run("--version")
    assert r.exit_code == 0 and r.output.strip() == f"chainret {__version__}"
    helptext = flat(run("--help").output)
    assert "Exit codes: 0" in helptext and "2 usage or input problem" in helptext and "3 environment" in helptext
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "## Exit codes" in readme and "torch==2.13.0" in readme and "chainret[models]" in readme


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["ask", ASK, "--no-trace"], 0),
        (["ask", "Which contact serves PR-99?", "--no-trace"], 1),
        (["ask", "How often is the registry audited?", "--no-trace"], 1),
        (["ask", ASK, "--no-trace", "--packet-chars", "50"], 1),
        (["ask", ASK, "--catalog", "/nonexistent.yaml"], 2),
        (["ask", ASK, "--rows-per-hop", "0"], 2),
        (["trace", "show", "/nonexistent.json"], 2),
        (["trace", "verify", "/nonexistent.json"], 2),
        (["validate", "/nonexistent.yaml"], 2),
        (["validate", str(SEED)], 0),
    ],
)
def test_exit_codes_are_one_table(capsys, argv, code):
    got, out = cli(capsys, *argv)
    assert got == code, out
    assert "Traceback" not in out


def test_install_hint_names_the_extra_and_torch_pin(capsys):
    print_error(MissingExtra("embeddings need sentence-transformers: pip install 'chainret[models]'"))
    err = flat(capsys.readouterr().err)
    assert "'chainret[models]'" in err and INSTALL_MODELS in err and "torch==2.13.0" in err


def test_bm25_fallback_is_not_labelled_dense(monkeypatch):
    monkeypatch.setattr("chainret.pipeline.baselines.dense_available", lambda: False)
    r = run("eval", str(SEED), "--baselines")
    assert r.exit_code == 0, r.output
    assert "bm25-rewritten (in place of dense: not installed):complete_bundles" in r.output
    assert not re.search(r"^\S+:\s+dense:", r.output, re.M)


@pytest.mark.parametrize("width", [80, 120])
def test_tables_never_break_words(width):
    trace = ask("Which lab certifies the supplier of V-12?", ROOT / "fixtures" / "supply")
    out = io.StringIO()
    render_trace(trace, None, out=Console(file=out, width=width, markup=False, emoji=False, highlight=False))
    text = out.getvalue()
    tokens = {h.subquery for h in trace.hops} | {x.ref for h in trace.hops for x in h.hits} | {h.bridge for h in trace.hops if h.bridge}
    for tok in tokens:
        assert tok in text, (tok, width)
    assert max(len(line) for line in text.splitlines()) <= width
    r = run("eval", str(ROOT / "fixtures"), width=width)
    for case_id in ("restricted-second-hop", "auditor-first-branch", "single-supplier-dead-end"):
        assert case_id in r.output, (case_id, width)


# -- nothing from data is interpreted -------------------------------------------------------------------
HOSTILE = "[bold red]x[/] [/] [link=http://evil.example]y[/link] :warning: \x1b]8;;http://evil.example\x1b\\z\x1b]8;;\x1b\\ \u202egnp \x9b31m \x07"


def hostile_world(tmp_path: Path) -> Path:
    world = tmp_path / "w"
    shutil.copytree(SEED, world)
    text = (world / "catalog.yaml").read_text(encoding="utf-8")
    quoted = json.dumps(f"Desk {HOSTILE}")  # a YAML double-quoted scalar
    text = text.replace("  name: Rowan service desk\n", f"  name: {quoted}\n", 1)
    text = text.replace("  - PR-84\n", f"  - PR-84\n  - {json.dumps('PR ' + HOSTILE)}\n", 1)
    (world / "catalog.yaml").write_text(text, encoding="utf-8")
    return world


def test_catalog_values_and_requests_are_shown_not_interpreted(tmp_path, capsys):
    world = hostile_world(tmp_path)
    trace_file = tmp_path / "t.json"
    code, out = cli(capsys, "ask", ASK, "--catalog", str(world), "--view", "final", "--trace-out", str(trace_file))
    assert code == 0, out
    assert "answer Desk [bold red]x[/] [/] [link=http://evil.example]y[/link] :warning:" in flat(out)  # shown verbatim
    assert unsafe_pattern().search(out.replace("\n", "")) is None  # no raw ESC/C1/bidi/BEL reaches the terminal
    assert "\\x1b]8;;http://evil.example" in flat(out) and "\\u202egnp" in flat(out)
    code, out = cli(capsys, "ask", f"Which contact serves PR {HOSTILE}?", "--catalog", str(world), "--trace-out", str(trace_file))
    # The words normalise to the hostile alias itself (issue 23), so this may answer; either way nothing raw is shown.
    assert code in (0, 1) and unsafe_pattern().search(out.replace("\n", "")) is None
    assert "[bold red]x[/] [/] [link=http://evil.example]y[/link] :warning:" in flat(out)
    code, out = cli(capsys, "ask", f"Which contact serves PR {HOSTILE}?", "--catalog", str(world), "--json", "--no-trace")
    assert unsafe_pattern().search(out.replace("\n", "")) is None and "\\u202e" in out and "\\u009b" in out
    assert json.loads(out)["request"].endswith(HOSTILE + "?")  # escaped, not altered
    code, out = cli(capsys, "trace", "show", str(trace_file))
    assert code == 0 and unsafe_pattern().search(out.replace("\n", "")) is None and "[/]" in out


def test_mermaid_labels_are_escaped(tmp_path):
    t = ask(f'Which contact serves PR-84"]; click Q "javascript:x" <b>{HOSTILE}', project=True)
    m = trace_mermaid(t)
    q = next(line for line in m.splitlines() if line.strip().startswith("Q["))
    assert q.count('"') == 2 and "<b>" not in q and unsafe_pattern().search(q) is None


def test_errors_with_data_are_escaped(capsys):
    code, out = cli(capsys, "trace", "show", f"/nonexistent/[/]{chr(0x1b)}[31m.json")
    assert code == 2 and "[/]" in out and "\\x1b[31m" in out and "\x1b" not in out


# -- output paths -------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["directory", "missing_parent", "under_file", "fifo", "symlink"])
def test_trace_out_refuses_paths_it_must_not_write(tmp_path, capsys, kind):
    target = {"directory": tmp_path, "missing_parent": tmp_path / "no" / "t.json", "under_file": tmp_path / "f" / "t.json",
              "fifo": tmp_path / "t.fifo", "symlink": tmp_path / "t.link"}[kind]
    if kind == "under_file":
        (tmp_path / "f").write_text("x")
    if kind == "fifo":
        os.mkfifo(target)
    if kind == "symlink":
        os.symlink(tmp_path / "elsewhere.json", target)
    code, out = cli(capsys, "ask", ASK, "--trace-out", str(target))
    assert code == 2 and "error:" in out and "Traceback" not in out
    if kind == "fifo":
        assert target.is_fifo()
    if kind == "symlink":
        assert target.is_symlink() and not (tmp_path / "elsewhere.json").exists()


def test_answer_is_printed_before_a_failing_trace_write(monkeypatch, capsys):
    def fail(*a, **k):
        raise OutputError("disk full (simulated)")

    monkeypatch.setattr("chainret.cli.ask_run.write_new_trace", fail)  # ask_cmds.ask_cmd and main both run ask_run.run_ask
    code, out = cli(capsys, "ask", ASK)
    assert code == 2 and "Rowan field office" in out and "disk full" in out
    assert out.index("Rowan field office") < out.index("disk full")


def test_generated_trace_names_never_collide(tmp_path):
    trace = ask(ASK)
    paths: list[Path] = []
    lock = threading.Lock()

    def write() -> None:
        for _ in range(25):
            p = write_new_trace(trace, tmp_path)
            with lock:
                paths.append(p)

    workers = [threading.Thread(target=write) for _ in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(paths) == len(set(paths)) == 200 == len(list(tmp_path.glob("*.json")))
    assert read_trace(paths[0]).outcome == "accepted_path"
    with pytest.raises(FileExistsError):
        atomic_write_text(paths[0], "x", exclusive=True)


def test_graph_mermaid_escapes_catalog_names(tmp_path):
    world = hostile_world(tmp_path)
    r = run("graph", "--catalog", str(world), "--view", "final")
    assert r.exit_code == 0
    desk = next(line for line in r.output.splitlines() if "contact:final:desk" in line and "[" in line)
    assert desk.count('"') == 2 and unsafe_pattern().search(desk) is None and "[bold" not in desk and "#91;" in desk


def test_atomic_write_leaves_one_private_file_and_retries_a_taken_temp_name(tmp_path, monkeypatch):
    """``chainret.core.files`` makes its own temporary file (not ``tempfile``'s): exclusive, mode 0600 when private, beside
    the target, a taken name retried, nothing left behind."""
    import chainret.core.files as files

    target = tmp_path / "t.json"
    names = iter([b"\x00" * 8, b"\x00" * 8, b"\x01" * 8])  # the first name twice: the second try finds it taken
    (tmp_path / f".t.json.{'00' * 8}.tmp").write_text("someone else's")
    monkeypatch.setattr(files.os, "urandom", lambda n: next(names))
    atomic_write_text(target, "hello\n", mode="private")
    assert target.read_text() == "hello\n" and oct(target.stat().st_mode & 0o777) == "0o600"
    assert sorted(p.name for p in tmp_path.iterdir()) == [f".t.json.{'00' * 8}.tmp", "t.json"]
    assert (tmp_path / f".t.json.{'00' * 8}.tmp").read_text() == "someone else's"
