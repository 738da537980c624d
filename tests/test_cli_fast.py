"""``chainret ask`` without typer (issue 24) reads exactly like ``chainret ask`` through typer.

``chainret.cli.main`` runs the common ``ask`` invocations through ``chainret.cli.ask_run`` (no
typer, no click, no rich where plain text is rich's very output) and leaves everything else to
the typer app. Each invocation below runs in a fresh process twice: as ``main`` runs it, and with
the fast path switched off (``parse_ask_args`` answering None, so typer parses); stdout, stderr,
the exit code and the trace file written must be byte-identical (the trace's own timing, meta.ask_ms,
aside). The invocations cover every ask flag, both output modes, refusals, usage errors the
library raises, and the forms left to typer (--help, unknown, repeated or mistyped flags).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from chainret.cli.ask_run import FLAGS, INT_OPTIONS, VALUE_OPTIONS, parse_ask_args

ROOT = Path(__file__).resolve().parents[1]
REQ = "Which contact serves PR-84?"
RUN = ("import sys\n"
       "if sys.argv.pop(1) == 'typer':\n"
       "    import chainret.cli.ask_run as fast\n"
       "    fast.parse_ask_args = lambda args: None\n"
       "sys.argv[0] = 'chainret'\n"
       "from chainret.cli import main\n"
       "main()\n")
# (arguments after `ask`, extra environment); {tmp} is a fresh folder per run.
FAST = [
    ([REQ, "--no-trace"], {}),
    ([REQ, "--no-trace", "--json"], {}),
    (["--json", REQ, "--no-trace", "-q"], {}),
    ([REQ, "-q", "--no-trace"], {}),
    ([REQ, "--quiet", "--trace-out", "{tmp}/t.json"], {}),
    ([REQ, "--trace-out={tmp}/t.json"], {}),
    ([REQ], {"CHAINRET_TRACE_DIR": "{tmp}/traces"}),
    ([REQ, "--json"], {"CHAINRET_TRACE_DIR": "{tmp}/traces"}),
    ([REQ, "--catalog", "catalogs/default.yaml", "--view", "final", "--no-trace"], {}),
    ([REQ, "--view=revised", "--principal", "auditor", "--no-trace"], {}),
    ([REQ, "--as", "auditor", "--no-trace", "--json"], {}),
    ([REQ, "--as", "auditor", "--no-trace"], {}),
    (["Which contact serves Rowan?", "--no-trace"], {}),
    (["Who supplies the northern desk with lunch?", "--no-trace", "--text-route"], {}),
    (["Who supplies the northern desk with lunch?", "--no-trace", "--json"], {}),
    (["which contact serves pr84", "--no-trace"], {}),
    ([REQ, "--no-backtrack", "--no-trace"], {}),
    ([REQ, "--rows-per-hop", "1", "--max-searches", "1", "--no-trace"], {}),
    ([REQ, "--max-rows=2", "--max-hops", "1", "--packet-units", "1", "--packet-chars", "50", "--no-trace"], {}),
    ([REQ, "--packet-chars", "20", "--no-trace"], {}),
    ([REQ, "--rows-per-hop", "0", "--no-trace"], {}),
    ([REQ, "--principal", "nobody", "--no-trace"], {}),
    ([REQ, "--as", "auditr", "--no-trace"], {}),
    ([REQ, "--view", "nope", "--no-trace"], {}),
    ([REQ, "--catalog", "/nonexistent/catalog.yaml", "--no-trace"], {}),
    ([REQ, "--catalog", "catalogs/defualt.yaml", "--no-trace"], {}),
    ([REQ, "--trace-out", "{tmp}"], {}),
    ([REQ, "--no-trace"], {"COLUMNS": "200"}),
    ([REQ, "--no-trace"], {"COLUMNS": "40"}),
    (["Which contact serves PR-84\u202e\x1b[31m?", "--no-trace"], {}),
    (["Which contact serves プロジェクト?", "--no-trace"], {}),
    ([REQ, "--no-trace"], {"FORCE_COLOR": "1"}),
    ([REQ, "--today", "2026-12-06", "--no-trace", "--json"], {}),
    ([REQ, "--today=2026-02-30", "--no-trace"], {}),
]
TYPER = [
    (["--help"], {}),
    ([], {}),
    ([REQ, "--help"], {}),
    (["--bogus", REQ], {}),
    ([REQ, "--rows-per-hop", "x"], {}),
    ([REQ, "--rows-per-hop", "007", "--no-trace"], {}),
    ([REQ, "--rows-per-hop", "-1", "--no-trace"], {}),
    ([REQ, REQ], {}),
    ([REQ, "--json", "--json", "--no-trace"], {}),
    ([REQ, "--json=1"], {}),
    (["--", "-x"], {}),
    ([REQ, "--catalog"], {}),
    ([REQ, "--view", "", "--no-trace"], {}),
    ([REQ, "-qq", "--no-trace"], {}),
    (["", "--no-trace"], {}),
    ([REQ, "--version"], {}),
    ([REQ, "--no-trace"], {"_CHAINRET_COMPLETE": "complete_bash"}),
]
_TIMING = re.compile(r'"ask_ms": [0-9.e-]+')
_NAME = re.compile(r"\d{8}T\d{12}Z-[0-9a-f]{8}-\d+-[0-9a-f]{8}\.json")


def _run(side: str, args: list[str], env: dict[str, str], tmp: Path) -> tuple[int, str, str, dict[str, str]]:
    """One fresh process in ``tmp`` (emptied first: both sides see the same paths, so lines wrap alike)."""
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    fill = {k: v.replace("{tmp}", str(tmp)) for k, v in env.items()}
    full_env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "COLUMNS", "TTY_COMPATIBLE")}
    full_env.update({"HF_HUB_OFFLINE": "1", "CHAINRET_TRACE_DIR": str(tmp / "default-traces"), **fill})
    argv = ["ask", *(a.replace("{tmp}", str(tmp)) for a in args)]
    done = subprocess.run([sys.executable, "-c", RUN, side, *argv], capture_output=True, cwd=ROOT, env=full_env)
    written = sorted(tmp.rglob("*.json"))
    files = {_NAME.sub("NAME.json", str(p.relative_to(tmp))): _TIMING.sub('"ask_ms": 0', p.read_text(encoding="utf-8"))
             for p in written}

    def norm(b: bytes) -> str:
        text = _TIMING.sub('"ask_ms": 0', b.decode("utf-8", "replace"))
        head, said, tail = text.partition("trace written to ")
        if said and tail.replace("\n", "") in {str(p) for p in written}:  # a generated name: its line as a whole
            text = f"{head}trace written to {_NAME.sub('NAME.json', tail.replace(chr(10), ''))}"
        return text

    return done.returncode, norm(done.stdout), norm(done.stderr), files


def _ids(cases):
    return [" ".join(a)[:60] + (f" {e}" if e else "") for a, e in cases]


# The fast run keeps one case of each kind (output modes, a trace file, a refusal, a library usage error,
# a typer usage error, --help); the full run (CI) runs them all: two fresh processes per case.
_CORE = {0, 1, 5, 6, 12, 13, 20, 27, len(FAST), len(FAST) + 3}
MATRIX = [pytest.param(a, e, id=i, marks=() if n in _CORE else pytest.mark.slow)
          for n, ((a, e), i) in enumerate(zip(FAST + TYPER, _ids(FAST + TYPER), strict=True))]


@pytest.mark.parametrize(("args", "env"), MATRIX)
def test_fast_path_reads_like_typer(tmp_path: Path, args: list[str], env: dict[str, str]) -> None:
    fast = _run("fast", args, env, tmp_path / "run")
    slow = _run("typer", args, env, tmp_path / "run")
    assert fast == slow
    assert "Traceback" not in fast[2]


@pytest.mark.parametrize(("args", "env"), FAST, ids=_ids(FAST))
def test_these_take_the_fast_path(args: list[str], env: dict[str, str]) -> None:
    assert parse_ask_args([a.replace("{tmp}", "/tmp") for a in args]) is not None


@pytest.mark.parametrize(("args", "env"), TYPER, ids=_ids(TYPER))
def test_these_are_left_to_typer(monkeypatch, args: list[str], env: dict[str, str]) -> None:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert parse_ask_args(args) is None


def test_the_fast_table_is_the_typer_commands_options() -> None:
    from typer.main import get_command

    import chainret.cli as cli

    ask = get_command(cli._app_for("ask")).commands["ask"]  # type: ignore[attr-defined]
    typer_opts = {opt: p.name for p in ask.params for opt in p.opts if opt.startswith("-")}
    fast = {**VALUE_OPTIONS, **FLAGS}
    assert {k: v for k, v in typer_opts.items() if k != "--help"} == fast
    assert {p.name for p in ask.params if p.type_descriptor.annotation is int} == INT_OPTIONS  # type: ignore[attr-defined]
    assert not any(p.envvar for p in ask.params)  # nothing is read from the environment
    assert {p.name for p in ask.params if getattr(p, "is_flag", False)} == set(FLAGS.values())


def test_a_trace_file_holds_the_same_json_as_stdout(tmp_path: Path) -> None:
    code, out, _, files = _run("fast", [REQ, "--json", "--trace-out", "{tmp}/t.json"], {}, tmp_path / "run")
    printed = json.loads(out)
    assert code == 0 and printed.pop("answer") == {"id": "contact:final:field", "name": "Rowan field office"}
    assert [(a.pop("name"), len(a.pop("path"))) for a in printed["answers"]] == [("Rowan field office", 3)]
    assert printed == json.loads(files["t.json"])  # stdout adds the answers' names and named paths; the file is the trace
