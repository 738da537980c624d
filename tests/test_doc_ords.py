"""``SQLStore.doc_ords`` (a unit is found by its version's ordinal and index: ``schema.units_by_ref``) gives the same
ordinals whether it looks refs up (a one-ask process: a cold ``chainret ask``) or reads every version once (a store
object that has read a pair's view facts: the second ask of a process that asks again).

Checked over every version's ref, an unknown one and repeats, before and after the whole read; the whole read is seen
in the statements run: once, and after it only a ref no version has is looked up again. Negative control: without
the whole read, every call is a lookup of every ref.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from chainret.catalog.load import load_catalog
from chainret.store import compile_store, open_store

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("whole_read", [True, False])
def test_lookups_and_the_whole_read_give_the_same_ordinals(tmp_path, whole_read):
    compile_store(load_catalog(ROOT / "fixtures" / "supply" / "catalog.yaml"), tmp_path / "s.db")
    with sqlite3.connect(tmp_path / "s.db") as conn:
        truth = dict(conn.execute("SELECT ref, ord FROM document_meta"))
    conn.close()
    refs = [*sorted(truth), "nope.md@v1", next(iter(truth))]
    store = open_store(str(tmp_path / "s.db"))
    log: list[str] = []
    real = store.db.rows

    def rows(statement: str, *args: object) -> object:
        if "document_meta" in statement:
            log.append(statement)
        return real(statement, *args)

    store.db.rows = rows
    try:
        for call in range(6):
            if call == 3 and whole_read:
                store.view_facts(store.view_name_for(None, None), "public")  # (what a pair's second ask reads)
            assert store.doc_ords(refs) == truth
    finally:
        store.close()
    whole = [k for k, s in enumerate(log) if "WHERE" not in s]
    if whole_read:  # three lookups, the whole table once; after it only the unknown ref is asked again
        assert whole == [3] and all(s.endswith("IN (?)") for s in log[4:]) and len(log) == 7
    else:  # negative control: a lookup of every ref each call
        assert whole == [] and len(log) == 6
