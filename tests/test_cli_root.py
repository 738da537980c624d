"""The installed `chainret` command: exit codes and no tracebacks, through a real subprocess."""

import subprocess
import sys

import pytest


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "chainret", *args], capture_output=True, text=True)


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (("--help",), 0, "ask"),
        (("ask", "--bogus", "x"), 2, "No such option"),
        (("validate", "/nonexistent/catalog.yaml"), 2, "no such file"),
        (("ask", "--rows-per-hop", "0", "Which contact serves PR-84?"), 2, "rows_per_hop"),
        (("ask", "Which contact serves Rowan?"), 1, "not a known project"),
    ],
)
def test_exit_codes_and_messages(args, code, needle):
    proc = run(*args)
    out = proc.stdout + proc.stderr
    assert proc.returncode == code, out
    assert needle in out
    assert "Traceback" not in out


def test_ask_path_does_not_import_torch(tmp_path):
    probe = (
        "import sys\n"
        "from chainret.pipeline.ask import ask\n"
        "t = ask('Which contact serves PR-84?')\n"
        "assert t.outcome == 'accepted_path', t.outcome\n"
        "print(','.join(m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.strip() == ""
