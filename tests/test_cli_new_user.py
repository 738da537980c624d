"""A new user's frictions with the CLI, each through the real entry point (a subprocess where the
terminal, a pipe or a signal matters): piped output never wraps, ``ask --json`` names the answer,
``-q`` prints the answer alone, a closed pipe is no refusal, the help says what views and the
catalog group take, a did-you-mean offers only catalogs, an empty request is a usage error, Ctrl-C
says so, shell completion is offered, user outputs follow the umask, a mistyped Backstage kind is
named with its line.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from chainret.cli import main

ROOT = Path(__file__).resolve().parents[1]
ASK = "Which contact serves PR-84?"
NAMED = {"id": "contact:final:field", "name": "Rowan field office"}


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")}
    env.update(PYTHONPATH=str(ROOT), CHAINRET_TRACE_DIR=str(tmp_path / "traces"), HF_HUB_OFFLINE="1", **extra)
    return env


def _run(tmp_path: Path, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "chainret", *argv], capture_output=True, text=True, cwd=tmp_path,
                          env=_env(tmp_path, **env), timeout=120)


# -- 1. piped output is never wrapped -------------------------------------------------------------------
@pytest.mark.parametrize("columns", ["20", "80"])
@pytest.mark.parametrize("how", [[ASK], ["--", ASK]], ids=["fast", "typer"])  # `--`: typer's path, rich prints
def test_piped_output_keeps_ids_and_paths_on_one_line(tmp_path: Path, columns: str, how: list[str]) -> None:
    out = tmp_path / ("a-long-folder-name-" * 4) / "trace.json"
    out.parent.mkdir()
    r = _run(tmp_path, "ask", "--trace-out", str(out), *how, COLUMNS=columns)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert f"trace written to {out}" in lines
    assert any("project:final:main → org:final:south → contact:final:field  (rel-3, rel-4)" in line for line in lines)
    assert any("Rowan field office (contact:final:field)" in line for line in lines)
    # stderr too: an error naming a long path keeps it whole
    missing = tmp_path / ("another-long-folder-" * 4) / "nope.yaml"
    r = _run(tmp_path, "ask", ASK, "--catalog", str(missing), COLUMNS=columns)
    assert r.returncode == 2 and f"error: catalog {missing} does not exist" in r.stderr.splitlines()


def test_a_terminal_console_still_wraps() -> None:
    """Negative control: only a console that is no terminal prints its lines whole."""
    import io

    from chainret.cli.render import make_console, t

    line = t("trace written to ", "/x/" + "d" * 60 + "/t.json")
    piped, tty = io.StringIO(), io.StringIO()
    make_console(file=piped, width=20).print(line)
    make_console(file=tty, width=20, force_terminal=True, color_system=None).print(line)
    assert len(piped.getvalue().splitlines()) == 1 and len(tty.getvalue().splitlines()) > 1


# -- 2. ask --json names the answer, -q prints it alone, a closed pipe is not a refusal --------------------
def test_ask_json_carries_the_answer_name_as_http_does(capsys) -> None:
    code, out, _ = cli(capsys, "ask", ASK, "--json", "--no-trace")
    assert code == 0 and json.loads(out)["answer"] == NAMED
    code, out, _ = cli(capsys, "ask", "Which contact serves PR-99?", "--json", "--no-trace")
    data = json.loads(out)
    assert code == 1 and data["answer"] is None and data["outcome"] == "refused"


def test_the_http_answer_and_the_cli_answer_have_one_home() -> None:
    from chainret.pipeline.ask import answer, named_path
    from chainret.cli.ask_run import json_with_answer

    result = answer(ASK)
    assert named_path(result.trace, result.names)[-1] == (NAMED["id"], NAMED["name"])
    assert json.loads(json_with_answer(result.trace, result.names))["answer"] == NAMED
    assert named_path(result.trace, {})[-1] == (NAMED["id"], NAMED["id"])  # no visible name: the ID stands for it


def test_quiet_prints_the_answer_alone(capsys) -> None:
    code, out, _ = cli(capsys, "ask", ASK, "--no-trace", "-q")
    assert code == 0 and out == "Rowan field office (contact:final:field)\n"
    code, out, _ = cli(capsys, "ask", "Which contact serves PR-99?", "--no-trace", "-q")
    assert code == 1 and out.startswith("no answer: refused") and len(out.splitlines()) == 1


@pytest.mark.parametrize("how", [[ASK], ["--", ASK]], ids=["fast", "typer"])
def test_a_closed_pipe_exits_quietly_and_is_no_refusal(tmp_path: Path, how: list[str]) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader has gone before the first line: every write meets a closed pipe
    try:
        r = subprocess.run([sys.executable, "-m", "chainret", "ask", *how], stdout=write, stderr=subprocess.PIPE,
                           text=True, cwd=tmp_path, env=_env(tmp_path), timeout=120)
    finally:
        os.close(write)
    assert r.returncode == 141 and r.stderr == ""
    # negative control: an open pipe gets the answer's own code
    assert _run(tmp_path, "ask", *how).returncode == 0


# -- 3. messages ------------------------------------------------------------------------------------------
def test_view_help_says_dates_and_hashes(capsys) -> None:
    code, out, _ = cli(capsys, "ask", "--help")
    flat = " ".join(out.split())
    assert code == 0 and "YYYY-MM-DD" in flat and "commit hash" in flat


def test_catalog_group_help_lists_every_catalog_command(capsys) -> None:
    from chainret.cli import _command_names, app

    group = next(g.typer_instance for g in app.registered_groups if g.name == "catalog")
    names = _command_names(group)
    assert {"init", "build", "import", "diff", "lock", "compile", "grant", "revoke", "history"} <= set(names)
    code, out, _ = cli(capsys, "catalog", "--help")
    flat = " ".join(out.split())
    assert code == 0 and f"Build catalogs from your own records: {', '.join(names)}." in flat


def test_a_missing_catalog_suggests_only_catalogs(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tokens.yaml").write_text("tokens:\n  - name: ci\n", encoding="utf-8")
    code, _, err = cli(capsys, "ask", ASK, "--catalog", "nope.yaml")
    assert code == 2 and "does not exist" in err and "did you mean" not in err and "tokens" not in err
    # negative control: a catalog file (its format marker), a world folder and a store are offered
    (tmp_path / "nope1.yaml").write_text((ROOT / "catalogs" / "default.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    code, _, err = cli(capsys, "ask", ASK, "--catalog", "nope.yaml")
    assert code == 2 and "did you mean 'nope1.yaml'?" in err
    from chainret.cli.ask_run import looks_like_catalog

    (tmp_path / "nopes").mkdir()
    (tmp_path / "nopes" / "catalog.yaml").write_text("x", encoding="utf-8")
    (tmp_path / "nope.db").write_bytes(b"")
    assert looks_like_catalog(tmp_path / "nopes") and looks_like_catalog(tmp_path / "nope.db")
    assert not looks_like_catalog(tmp_path / "tokens.yaml") and not looks_like_catalog(tmp_path)


@pytest.mark.parametrize("request_text", ["", "   ", "\t\n"])
def test_an_empty_request_is_a_usage_error_and_writes_no_trace(tmp_path: Path, capsys, monkeypatch, request_text: str) -> None:
    monkeypatch.setenv("CHAINRET_TRACE_DIR", str(tmp_path))
    code, out, err = cli(capsys, "ask", request_text)
    assert code == 2 and out == "" and "the request is empty" in err
    assert list(tmp_path.iterdir()) == []
    code, _, _ = cli(capsys, "ask", ASK)  # negative control: a request runs and writes its trace
    assert code == 0 and len(list(tmp_path.iterdir())) == 1


_BLOCKING_ASK = """
import sys, time
import chainret.pipeline.ask  # (the package's ``ask`` is the function: the module is sys.modules')

def blocked(*args, **kwargs):
    sys.stderr.write("ready\\n")
    sys.stderr.flush()
    time.sleep(120)

sys.modules["chainret.pipeline.ask"].answer = blocked
from chainret.cli import main
main(sys.argv[1:])
"""


@pytest.mark.parametrize("how", [[ASK], ["--", ASK]], ids=["fast", "typer"])
def test_ctrl_c_says_interrupted_and_exits_130(tmp_path: Path, how: list[str]) -> None:
    # The child gets SIGINT's default action, as a command typed at a terminal does: a suite started in the
    # background (``cmd &``, nohup) has SIGINT ignored, children inherit that, and Python then installs no
    # KeyboardInterrupt handler, so Ctrl-C would never reach the code under test.
    proc = subprocess.Popen([sys.executable, "-c", _BLOCKING_ASK, "ask", *how], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=_env(tmp_path),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert proc.stderr is not None and proc.stderr.readline() == "ready\n"  # inside the request
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130 and "interrupted; nothing was written" in err and "Traceback" not in err
    assert out == "" and not (tmp_path / "traces").exists()


# -- 4. shell completion ----------------------------------------------------------------------------------
def test_shell_completion_is_offered(tmp_path: Path, capsys) -> None:
    code, out, _ = cli(capsys, "--help")
    assert code == 0 and "--install-completion" in out and "--show-completion" in out
    complete = "import sys; sys.argv[0] = 'chainret'; from chainret.cli import main; main()"
    r = subprocess.run([sys.executable, "-c", complete], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                       env=_env(tmp_path, _CHAINRET_COMPLETE="complete_bash", COMP_WORDS="chainret ask --vi", COMP_CWORD="2"))
    assert r.returncode == 0 and r.stdout.split() == ["--view"]


# -- 5. outputs the user asked for follow the umask; chainret's own stay private --------------------------
@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_trace_and_html_follow_the_umask(tmp_path: Path, capsys, monkeypatch, umask_022) -> None:
    monkeypatch.setenv("CHAINRET_TRACE_DIR", str(tmp_path / "traces"))
    trace = tmp_path / "t.json"
    assert cli(capsys, "ask", ASK, "--trace-out", str(trace))[0] == 0
    assert _mode(trace) == 0o644
    assert cli(capsys, "ask", ASK)[0] == 0  # the default trace folder too
    (generated,) = (tmp_path / "traces").iterdir()
    assert _mode(generated) == 0o644
    page = tmp_path / "t.html"
    assert cli(capsys, "trace", "show", str(trace), "--html", str(page))[0] == 0
    assert _mode(page) == 0o644
    os.umask(0o077)  # negative control: a stricter umask is the user's choice, kept
    assert cli(capsys, "ask", ASK, "--trace-out", str(tmp_path / "u.json"))[0] == 0
    assert _mode(tmp_path / "u.json") == 0o600


def test_the_atomic_writer_has_one_mode_choice(tmp_path: Path, umask_022) -> None:
    from chainret.core.files import atomic_write_text, write_files

    atomic_write_text(tmp_path / "shared.txt", "x")
    atomic_write_text(tmp_path / "private.txt", "x", mode="private")
    atomic_write_text(tmp_path / "new.txt", "x", exclusive=True, mode="private")
    write_files({tmp_path / "a.txt": "a"})
    write_files({tmp_path / "b.txt": "b"}, mode="private")
    modes = {p.name: _mode(p) for p in tmp_path.iterdir()}
    assert modes == {"shared.txt": 0o644, "a.txt": 0o644, "private.txt": 0o600, "new.txt": 0o600, "b.txt": 0o600}


def test_an_interrupted_exclusive_write_leaves_nothing(tmp_path: Path, monkeypatch) -> None:
    import chainret.core.files as files

    def interrupted(src: str, dst: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        files.atomic_write_text(tmp_path / "t.json", "x", exclusive=True)
    assert list(tmp_path.iterdir()) == []


# -- 6. a mistyped Backstage kind -------------------------------------------------------------------------
def test_a_mistyped_backstage_kind_is_named_at_its_line(tmp_path: Path) -> None:
    from chainret.sources.records import read_snapshot

    root = tmp_path / "records"
    root.mkdir()
    (root / "catalog-info.yaml").write_text(
        "apiVersion: backstage.io/v1alpha1\nkind: Componnet\nmetadata:\n  name: svc\nspec:\n  owner: team-a\n",
        encoding="utf-8")
    snap = read_snapshot(root, ["backstage"], "acme")
    (warning,) = [w for w in snap.warnings if w.code == "unknown_kind"]
    assert warning.location == "line 2" and "did you mean 'Component'?" in str(warning)
