"""A SQLite store file is written once (``chainret.store.sqlite``): an update or a replace renames a new
file into place, and readers open the file they found immutable, without locks or read transactions.

So an open store reads one state even while an update lands (its file never changes), an update never
waits for a reader, a store opened before the update keeps answering from what it opened while one
opened after answers from the update, and a failed update leaves the store byte for byte as it was.
A file something wrote in place (a journal beside it) is refused when it is opened.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from store_worlds import seed_versions, trace_json

from chainret.pipeline.ask import answer, ask
from chainret.store import compile_store, open_store, update_store
from chainret.store.base import StoreError
from chainret.store.sqlite import WRITE_CHECK_S
from benchmarks.harness.catalogs import changed as catalog_changed

REQUEST = "Which contact serves PR-84?"


@pytest.fixture()
def v1_store(tmp_path: Path) -> Path:
    db = tmp_path / "live.db"
    compile_store(seed_versions()[0], db)
    return db


def _views(store) -> set[str]:
    return {v.name for v in store.views}


def test_an_ask_runs_no_transaction_and_holds_no_lock(v1_store: Path) -> None:
    store = open_store(v1_store)
    try:
        statements: list[str] = []
        store.db.conn.set_trace_callback(statements.append)
        with store.read_scope("public"):  # (nested scopes, as ``answer`` opens around ``ask``, are nothing either)
            trace = answer(REQUEST, store).trace
            assert trace.outcome == "accepted_path"
            assert not store.db.conn.in_transaction
        assert statements and not any(s.split()[0].upper() in ("BEGIN", "COMMIT", "ROLLBACK") for s in statements), statements
    finally:
        store.close()


def test_an_update_never_waits_for_a_reader_and_an_open_store_keeps_its_snapshot(v1_store: Path) -> None:
    _, v2 = seed_versions()
    before = open_store(v1_store)
    try:
        old = trace_json(ask(REQUEST, before, principal="auditor"))
        assert _views(before) == {"final"}
        done = threading.Event()
        with before.read_scope("auditor"):  # a request in flight while the update runs
            first = trace_json(ask(REQUEST, before, principal="auditor"))
            worker = threading.Thread(target=lambda: (update_store(v2, v1_store), done.set()))
            worker.start()
            worker.join(timeout=60)
            assert done.is_set(), "the update waited for the reader"
            assert trace_json(ask(REQUEST, before, principal="auditor")) == first  # the same state, mid-request
        # The store object opened before the update answers from its own file, whole.
        assert _views(before) == {"final"} and trace_json(ask(REQUEST, before, principal="auditor")) == old
        after = open_store(v1_store)
        try:
            assert "revised" in _views(after)
            assert before.generation() != after.generation()
            assert trace_json(ask(REQUEST, after, principal="auditor")) == trace_json(ask(REQUEST, v2, principal="auditor"))
        finally:
            after.close()
    finally:
        before.close()


def test_an_update_renames_a_copy_into_place_and_keeps_the_file_mode(v1_store: Path) -> None:
    _, v2 = seed_versions()
    os.chmod(v1_store, 0o640)
    inode = v1_store.stat().st_ino
    update_store(v2, v1_store)
    st = v1_store.stat()
    assert st.st_ino != inode and st.st_mode & 0o777 == 0o640
    assert not [p.name for p in v1_store.parent.iterdir() if p.name.endswith(".tmp")]  # no copy left behind


def test_a_failed_update_leaves_the_store_as_it_was_and_no_copy(v1_store: Path) -> None:
    _, v2 = seed_versions()
    before, inode = v1_store.read_bytes(), v1_store.stat().st_ino
    with pytest.raises(StoreError, match="not an append-only update"):
        update_store(catalog_changed(v2, documents=list(reversed(v2.documents))), v1_store)
    assert v1_store.read_bytes() == before and v1_store.stat().st_ino == inode
    assert sorted(p.name for p in v1_store.parent.iterdir()) == ["live.db"]  # no copy, no journal, no lock file


@pytest.mark.parametrize("suffix", ["-journal", "-wal"])
def test_a_store_written_in_place_is_refused_with_the_file_named(v1_store: Path, suffix: str) -> None:
    conn = sqlite3.connect(v1_store)  # someone edits the store in place and leaves a journal beside it
    conn.execute("UPDATE meta SET value = value WHERE key = 'generation'")
    conn.commit()
    conn.close()
    Path(f"{v1_store}{suffix}").write_bytes(b"")
    with pytest.raises(StoreError, match=rf"live\.db{suffix} lies beside the store.*chainret catalog compile"):
        open_store(v1_store)
    Path(f"{v1_store}{suffix}").unlink()
    store = open_store(v1_store)
    try:
        assert ask(REQUEST, store).outcome == "accepted_path"
    finally:
        store.close()


def test_a_store_overwritten_in_place_under_an_open_reader_is_refused_not_read(v1_store: Path, tmp_path: Path) -> None:
    """``cp other.db store.db`` writes the open file's inode in place: the reader's next ask says so (a store error
    naming the file) instead of reading pages that moved, or faulting on one a shorter file no longer has."""
    other = tmp_path / "other.db"
    compile_store(seed_versions()[1], other)
    store = open_store(v1_store)
    try:
        assert ask(REQUEST, store).outcome == "accepted_path"
        with open(v1_store, "r+b") as fh:  # what cp does: the same inode, truncated and rewritten
            fh.truncate(0)
            fh.write(other.read_bytes())
        time.sleep(WRITE_CHECK_S)  # a reader looks at its file at most every WRITE_CHECK_S
        with pytest.raises(StoreError, match=r"live\.db was written in place after it was opened.*chainret catalog compile"):
            ask(REQUEST, store)
    finally:
        store.close()
    again = open_store(v1_store)  # opened afresh: the file as it now is
    try:
        assert "revised" in _views(again) and ask(REQUEST, again).outcome == "accepted_path"
    finally:
        again.close()
