"""An ask on a SQLite store reads in one transaction (``SQLiteBackend.read_scope``): one snapshot, one lock.

A writer cannot commit between two statements of one ask (it would mix two states of the store in one
trace), nested scopes join the outer one, and nothing is left open after the ask, even when it fails.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from chainret.ask import answer, ask
from chainret.catalog.load import default_catalog_path, load_world
from chainret.store import compile_store, open_store


@pytest.fixture()
def store_path(tmp_path: Path) -> Path:
    db = tmp_path / "default.db"
    compile_store(load_world(default_catalog_path()).catalog, db)
    return db


@pytest.fixture()
def store(store_path: Path):
    opened = open_store(store_path)
    yield opened
    opened.close()


def _writer_commits(db: Path) -> bool:
    """Whether a writer on another connection could commit now (it gives up at once instead of waiting)."""
    conn = sqlite3.connect(db, timeout=0, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("UPDATE meta SET value = value WHERE key = 'generation'")
        conn.execute("COMMIT")
        return True
    except sqlite3.OperationalError as exc:
        assert "locked" in str(exc)
        return False
    finally:
        conn.close()


def test_every_statement_of_an_ask_runs_in_one_transaction(store, store_path: Path) -> None:
    seen: list[bool] = []
    rows = store.db.rows

    def recording(sql, params=(), view=None, principal=None):
        seen.append(store.db.conn.in_transaction)
        return rows(sql, params, view, principal)

    store.db.rows = recording
    trace = answer("Which contact serves PR-84?", store).trace
    assert trace.outcome == "accepted_path"
    assert len(seen) >= 3 and all(seen), seen
    assert not store.db.conn.in_transaction  # ended with the ask
    assert _writer_commits(store_path)


def test_a_writer_waits_for_the_scope_and_nested_scopes_join_the_outer_one(store, store_path: Path) -> None:
    with store.read_scope("public"):
        first = store.db.rows("SELECT count(*) FROM relations")
        with store.read_scope("public"):
            store.db.rows("SELECT count(*) FROM entities")
        assert store.db.conn.in_transaction  # the inner scope's end is not the transaction's
        assert not _writer_commits(store_path)  # the shared lock is held for the whole request
        assert store.db.rows("SELECT count(*) FROM relations") == first
    assert not store.db.conn.in_transaction
    assert _writer_commits(store_path)


def test_a_failing_ask_leaves_no_transaction_open(store, store_path: Path) -> None:
    def broken(*_a, **_k):
        raise RuntimeError("boom")

    store.db.rows = broken
    with pytest.raises(RuntimeError):
        ask("Which contact serves PR-84?", store)
    del store.db.rows
    assert not store.db.conn.in_transaction
    assert _writer_commits(store_path)
    assert ask("Which contact serves PR-84?", store).outcome == "accepted_path"
