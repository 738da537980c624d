"""The README's walk, run as written (as sqlite-utils tests its docs).

The ``chainret ...`` commands of the README's bash blocks under "Run it" and "Bring your own
records" (and the inline ``catalog diff`` / ``catalog build`` commands of that section's prose) are
parsed out of README.md and run in order, in a temporary copy of the files they name, through the
real entry point. A command the README changes breaks this test, not a user.

Skipped, and why: the set-up parts of a line (``python3 -m venv``, ``pip install``, ``pytest``: the
test runs inside that environment already), and the PostgreSQL line (it needs a server;
``tests/test_store_postgres.py`` compiles to and asks PostgreSQL, and skips with its reason when no
server can be started).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from chainret.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
_BLOCK = re.compile(r"```bash\n(.*?)```", re.DOTALL)


def section(title: str) -> str:
    start = README.index(f"## {title}")
    end = README.find("\n## ", start + 1)
    return README[start : end if end > 0 else None]


def commands(text: str) -> list[str]:
    """The ``chainret`` commands of a section's bash blocks, in order (comments and set-up dropped)."""
    out = []
    for block in _BLOCK.findall(text):
        for line in block.splitlines():
            line = line.split("  #", 1)[0].strip()
            if "$URL" in line or line.startswith("URL="):
                continue  # PostgreSQL: tests/test_store_postgres.py
            for part in line.split("&&"):
                part = part.strip()
                if part.startswith("chainret "):
                    out.append(part)
    return out


def inline_commands(text: str, *starts: str) -> list[str]:
    return [c for c in re.findall(r"`(chainret [^`]+)`", text) if c.startswith(starts)]


def run(capsys, command: str) -> tuple[int, str]:
    argv = shlex.split(command)[1:]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out + out.err


@pytest.fixture
def walk_dir(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "catalogs", tmp_path / "catalogs")
    shutil.copytree(ROOT / "examples" / "service-registry", tmp_path / "examples" / "service-registry")
    shutil.copytree(ROOT / "examples" / "backstage", tmp_path / "examples" / "backstage")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CHAINRET_TRACE_DIR", str(tmp_path / "traces"))
    monkeypatch.setenv("CHAINRET_CATALOG", str(tmp_path / "catalogs" / "default.yaml"))
    return tmp_path


def test_the_run_it_commands_run_as_written(walk_dir, capsys):
    cmds = commands(section("Run it")) + commands(section("Development"))
    assert cmds[0] == 'chainret ask "Which contact serves PR-84?"'  # the README's first command
    assert any("--out default.db" in c for c in cmds)  # the stores walk, under Development
    for c in cmds:
        code, out = run(capsys, c)
        assert code == 0, (c, out)
        if c.startswith("chainret ask"):
            assert out.splitlines()[0].startswith("answer") and "Rowan field office" in out, (c, out)


def test_the_bring_your_own_records_walk_runs_as_written(walk_dir, capsys):
    text = section("Bring your own records")
    assert "cp -r examples/service-registry/records my-records" in " ".join(text.split())  # the step before the commands
    shutil.copytree(walk_dir / "examples" / "service-registry" / "records", walk_dir / "my-records")
    for block in _BLOCK.findall(text):  # the set-up steps the blocks run with python (examples/backstage/make_history.py)
        for line in block.splitlines():
            if line.startswith("python examples/"):
                subprocess.run([sys.executable, *shlex.split(line)[1:]], cwd=walk_dir, check=True, capture_output=True)
    cmds = commands(text) + inline_commands(text, "chainret catalog diff", "chainret catalog build my-records")
    assert len(cmds) >= 5
    outputs = {}
    for c in cmds:
        code, out = run(capsys, c)
        assert code == 0, (c, out)
        outputs[c] = out
    asks = [o for c, o in outputs.items() if c.startswith("chainret ask")]
    assert asks and all(o.splitlines()[0].startswith("answer") for o in asks)
    diff = next(o for c, o in outputs.items() if c.startswith("chainret catalog diff"))
    assert "2026-01 -> 2026-02" in diff and diff.count("\n") > 5
    # the history example prints its next step; run it as printed
    history = next(o for c, o in outputs.items() if c.startswith("chainret catalog history"))
    step = next((line.strip() for line in history.splitlines() if line.strip().startswith("chainret ask ")), None)
    assert step is not None and "--catalog" in step and "--view" in step, history
    code, out = run(capsys, step)
    assert code == 0 and out.splitlines()[0].startswith(("answer", "answers")), (step, out)
