"""What a SQLite writer (compile, ``--replace``, ``--update``) leaves beside the store: nothing.

No lock file after it ends, no temporary copy or journal after it fails or after a killed writer's next
one, and a full disk said as such. The writers still exclude each other.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from store_worlds import seed_versions as versions

from chainret.store import compile_store, open_store, update_store
from chainret.store import compile as writes
from chainret.store import sqlite as sq
from chainret.store.base import StoreError

TESTS = Path(__file__).resolve().parent


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def digest(out: Path) -> str:
    store = open_store(out)
    try:
        return store.digest()
    finally:
        store.close()


# -- the lock file -------------------------------------------------------------------------------------------
def test_no_lock_file_remains_after_a_compile_a_replace_and_an_update(tmp_path):
    v1, v2 = versions()
    out = tmp_path / "s.db"
    compile_store(v1, out)
    assert names(tmp_path) == ["s.db"]
    compile_store(v1, out, replace=True)
    assert names(tmp_path) == ["s.db"]
    update_store(v2, out)
    assert names(tmp_path) == ["s.db"]
    with sq.write_lock(out):  # while a writer holds it, the lock file is there
        assert names(tmp_path) == [".s.db.lock", "s.db"]


def test_a_second_writer_is_refused_while_the_first_holds_the_lock(tmp_path, monkeypatch):
    v1, _ = versions()
    out = tmp_path / "s.db"
    compile_store(v1, out)
    monkeypatch.setattr(sq, "LOCK_WAIT_S", 0.2)
    with sq.write_lock(out), pytest.raises(StoreError, match="another chainret command is writing"):
        compile_store(v1, out, replace=True)
    compile_store(v1, out, replace=True)  # negative control: released, the next writer goes through
    assert names(tmp_path) == ["s.db"]


def test_a_waiter_that_opened_the_removed_lock_file_does_not_take_the_lock(tmp_path, monkeypatch):
    """The window the removal opens: a waiter opens the lock file, the holder removes it and ends, a third
    writer creates a new one and holds it, and only then does the waiter's ``flock`` on the removed file succeed
    (nobody holds that one). The waiter must see that the path names another file and wait for that one."""
    out = tmp_path / "s.db"
    opened, go, retried = threading.Event(), threading.Event(), threading.Event()
    calls: list[int] = []
    inside: list[str] = []
    real_flock = fcntl.flock

    def flock(fd: int, op: int) -> None:
        if threading.current_thread().name != "waiter":
            return real_flock(fd, op)
        n = len(calls)
        calls.append(fd)
        if n == 0:  # the waiter has opened the holder's file: hold its flock back until the holder is gone
            opened.set()
            go.wait(10)
        try:
            return real_flock(fd, op)
        finally:
            if n == 1:
                retried.set()

    monkeypatch.setattr(fcntl, "flock", flock)

    def waiter() -> None:
        with sq.write_lock(out, wait_s=10):
            inside.append("waiter")

    t = threading.Thread(target=waiter, name="waiter")
    with sq.write_lock(out):
        t.start()
        assert opened.wait(10)
    with sq.write_lock(out):  # a new lock file, held here
        go.set()
        assert retried.wait(10), "the waiter took the lock on the removed file"
        assert inside == []
    t.join(10)
    assert inside == ["waiter"] and names(tmp_path) == []


# -- temporary files -----------------------------------------------------------------------------------------
CRASH = """
import os, signal, sys
sys.path.insert(0, sys.argv[2])
from store_worlds import seed_versions
import chainret.store.compile as writes
import chainret.store.sqlite as sq
real = writes.update_into
def crash(db, catalog):
    added = real(db, catalog)  # the copy is written and its journal open: killed before the commit
    os.kill(os.getpid(), signal.SIGKILL)
    return added
writes.update_into = crash  # (the writer's module, which sqlite.py loads with its first write)
sq.update_sqlite(seed_versions()[1], sys.argv[1])
"""


def test_what_a_killed_update_left_is_removed_by_the_next_writer(tmp_path):
    v1, v2 = versions()
    out = tmp_path / "s.db"
    other = tmp_path / "s.db.x"  # another store whose temporary names start like this one's: kept
    compile_store(v1, out)
    lookalikes = [tmp_path / ".s.db.x.abcdefgh.tmp", tmp_path / ".s.db.notes", tmp_path / "s.db.abcdefgh.tmp"]
    for p in (other, *lookalikes):
        p.write_text("not ours")
    done = subprocess.run([sys.executable, "-c", CRASH, str(out), str(TESTS)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS.parent), os.environ.get("PYTHONPATH", "")])})
    assert done.returncode == -signal.SIGKILL, done.stderr
    kept = sorted(["s.db", "s.db.x", *(p.name for p in lookalikes)])
    left = [n for n in names(tmp_path) if n not in kept]
    assert any(n.endswith(".tmp-journal") for n in left) and any(n.endswith(".tmp") for n in left), left
    assert digest(out) == v1.digest()  # the killed update changed nothing
    update_store(v2, out)
    assert names(tmp_path) == kept
    assert digest(out) == v2.digest()


def test_an_update_that_fails_midway_leaves_no_file_beside_the_store(tmp_path, monkeypatch):
    v1, v2 = versions()
    out = tmp_path / "s.db"
    compile_store(v1, out)
    real = writes.update_into

    def fail(db, catalog):
        real(db, catalog)  # rows written into the copy (and its journal), then a failure
        raise RuntimeError("midway")

    monkeypatch.setattr(writes, "update_into", fail)
    with pytest.raises(RuntimeError, match="midway"):
        update_store(v2, out)
    assert names(tmp_path) == ["s.db"] and digest(out) == v1.digest()


# -- a full disk ---------------------------------------------------------------------------------------------
def _disk_fills(monkeypatch, name: str) -> None:
    """The writing connection may not grow its file (SQLite's own ``SQLITE_FULL``, as on a full disk), and the
    write needs it to grow: the seed world's rows fit in the pages the file has, a larger catalog's would not,
    so a 1 MB row stands for them."""
    real = getattr(writes, name)

    def full(db, catalog):
        pages = db.conn.execute("PRAGMA page_count").fetchone()[0]
        db.conn.execute(f"PRAGMA max_page_count = {max(pages, 1)}")
        db.conn.execute("INSERT INTO meta (key, value) VALUES ('pad', zeroblob(1000000))")
        return real(db, catalog)

    monkeypatch.setattr(writes, name, full)


def test_a_full_disk_during_an_update_says_so_and_leaves_the_store_unchanged(tmp_path, monkeypatch):
    v1, v2 = versions()
    out = tmp_path / "s.db"
    compile_store(v1, out)
    _disk_fills(monkeypatch, "update_into")
    with pytest.raises(StoreError) as err:
        update_store(v2, out)
    msg = str(err.value)
    assert "the disk is full" in msg and f"{out} is unchanged" in msg and "not a chainret store" not in msg, msg
    assert names(tmp_path) == ["s.db"] and digest(out) == v1.digest()


def test_a_full_disk_while_copying_the_store_says_so(tmp_path, monkeypatch):
    import errno

    v1, v2 = versions()
    out = tmp_path / "s.db"
    compile_store(v1, out)

    def no_space(src, dst):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(shutil, "copyfile", no_space)
    with pytest.raises(StoreError, match=r"the disk is full .*s\.db is unchanged"):
        update_store(v2, out)
    assert names(tmp_path) == ["s.db"]


def test_a_full_disk_during_a_compile_says_so_and_writes_nothing(tmp_path, monkeypatch):
    v1, _ = versions()
    out = tmp_path / "s.db"
    _disk_fills(monkeypatch, "compile_into")
    with pytest.raises(StoreError, match=r"cannot compile .*the disk is full .*s\.db was not written"):
        compile_store(v1, out)
    assert names(tmp_path) == []


def test_a_file_that_is_no_store_is_still_called_one(tmp_path):
    """Negative control: only a full disk (or an I/O error) is reported as such."""
    _, v2 = versions()
    out = tmp_path / "s.db"
    out.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="is not a chainret store"):
        update_store(v2, out)
    assert names(tmp_path) == ["s.db"]
