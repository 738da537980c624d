"""Progress on long work: a rich bar on a terminal, not one byte of it in a pipe; the library calls a plain callback.

The terminal is a pseudo-terminal (``pty``) holding the command's stdout and stderr; the pipe is
``capture_output``. Assertions are on the bytes written, never on timing.
"""

from __future__ import annotations

import os
import pty
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from chainret.sources.history import history
from chainret.sources.records import import_snapshot, read_snapshot, write_import
from chainret.store.stream import compile_file

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "backstage"
RECORDS = EXAMPLE / "records"
FORMATS = ["backstage", "codeowners"]
BAR_MARKS = (b"reading descriptor files", b"rendering record files", b"building the catalog", b"reading the catalog",
             "━".encode())


def _make_repo(where: Path) -> Path:
    """The example's git history (examples/backstage/make_history.py)."""
    made: Path = runpy.run_path(str(EXAMPLE / "make_history.py"))["make"](where)
    return made


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
            "HF_HUB_OFFLINE": "1", "COLUMNS": "160", "TERM": "xterm-256color", **extra}


def _in_pty(args: list[str], cwd: Path) -> tuple[int, bytes]:
    """Run ``chainret ARGS`` with stdout and stderr on a pseudo-terminal; everything it wrote there."""
    primary, secondary = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "chainret", *args], cwd=cwd, env=_env(), stdin=subprocess.DEVNULL,
                            stdout=secondary, stderr=secondary, close_fds=True)
    os.close(secondary)
    chunks = []
    while True:
        try:
            got = os.read(primary, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not got:
            break
        chunks.append(got)
    os.close(primary)
    return proc.wait(timeout=60), b"".join(chunks)


def _piped(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "chainret", *args], cwd=cwd, env=_env(), capture_output=True, check=False,
                          timeout=60)


IMPORT = ["catalog", "import", str(RECORDS), "--format", "backstage", "--format", "codeowners", "--world", "acme"]


def test_import_and_compile_show_a_bar_on_a_terminal(tmp_path: Path) -> None:
    rc, out = _in_pty([*IMPORT, "--out", str(tmp_path / "cat.json")], tmp_path)
    assert rc == 0, out
    assert b"reading descriptor files" in out and b"building the catalog" in out and "━".encode() in out
    assert b"wrote " in out  # the summary still follows
    rc, out = _in_pty(["catalog", "compile", str(tmp_path / "cat.json"), "--out", str(tmp_path / "c.db")], tmp_path)
    assert rc == 0, out
    assert b"reading the catalog" in out and b"indexing units" in out and b"compiled acme" in out


def test_a_pipe_gets_no_progress_at_all(tmp_path: Path) -> None:
    """The negative control: the same commands piped write their summary lines and nothing of the bar."""
    got = _piped([*IMPORT, "--out", str(tmp_path / "cat.json")], tmp_path)
    assert got.returncode == 0, got.stderr
    comp = _piped(["catalog", "compile", str(tmp_path / "cat.json"), "--out", str(tmp_path / "c.db")], tmp_path)
    assert comp.returncode == 0, comp.stderr
    for stream in (got.stdout, got.stderr, comp.stdout, comp.stderr):
        assert not any(m in stream for m in BAR_MARKS), stream
        assert b"\x1b[" not in stream and b"\r" not in stream
    assert got.stdout.startswith(b"wrote ") and comp.stderr.startswith(b"compiled acme")


def test_history_shows_its_commits_on_a_terminal_and_nothing_in_a_pipe(tmp_path: Path) -> None:
    repo = _make_repo(tmp_path / "repo")
    args = ["catalog", "history", str(repo), "--format", "backstage", "--format", "codeowners", "--world", "acme"]
    rc, out = _in_pty([*args, "--out", str(tmp_path / "tty.json")], tmp_path)
    assert rc == 0, out
    assert b"importing commits" in out and b"commits" in out and b"wrote " in out
    got = _piped([*args, "--out", str(tmp_path / "pipe.json")], tmp_path)
    assert got.returncode == 0 and got.stdout.startswith(b"wrote "), got.stderr
    assert b"importing commits" not in got.stdout + got.stderr and b"\x1b[" not in got.stdout + got.stderr


def test_the_library_reports_through_a_plain_callback(tmp_path: Path) -> None:
    """Import, write, compile and history call ``progress(stage, done, total, unit)``; the default reports nothing."""
    calls: list[tuple[str, int, int | None, str]] = []

    def seen(stage: str, done: int, total: int | None = None, unit: str = "") -> None:
        calls.append((stage, done, total, unit))

    snap = read_snapshot(RECORDS, FORMATS, "acme", progress=seen)
    result = import_snapshot(snap, tmp_path / "cat.json", world="acme", progress=seen)
    write_import(result, "test", seen)
    stages = list(dict.fromkeys(c[0] for c in calls))
    assert stages == ["reading descriptor files", "rendering record files", "building the catalog", "writing the catalog"]
    files = [c for c in calls if c[0] == "reading descriptor files"]
    assert all(c[3] == "files" and c[2] is not None and 0 <= c[1] <= c[2] for c in files)
    calls.clear()
    compile_file(tmp_path / "cat.json", tmp_path / "c.db", progress=seen)
    read = [c for c in calls if c[0] == "reading the catalog"]
    size = (tmp_path / "cat.json").stat().st_size
    assert read[-1] == ("reading the catalog", size, size, "bytes")
    assert [s for s in dict.fromkeys(c[0] for c in calls)] == ["reading the catalog", "indexing units", "digests and summaries"]
    calls.clear()
    repo = _make_repo(tmp_path / "repo")
    res = history(repo, tmp_path / "hist.json", FORMATS, world="acme", progress=seen)
    commits = [c for c in calls if c[0] == "importing commits"]
    new = len(res.added) + len(res.unchanged) + len(res.skipped)
    assert [c[1] for c in commits] == list(range(new)) and {c[2] for c in commits} == {new} and new > 1


@pytest.mark.parametrize("module", ["chainret.sources.records", "chainret.sources.history", "chainret.store.stream"])
def test_the_library_stays_free_of_rich(module: str) -> None:
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if m.split('.')[0] == 'rich'))"
    out = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
