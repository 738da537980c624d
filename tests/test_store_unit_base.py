"""Store schema 12 (issue 47: a store's size): a SQLite store finds a unit by its version's ``unit_base`` (no ``units_doc``)
and keeps a posting without its unit's columns (``chainret.store.schema.UNIT_BASE``, ``LEAN_POSTINGS``).

A unit's ordinal is its version's ``unit_base`` plus its index, so a ref naming an index past the version's last unit
would land on the next version's first unit: the lookup keeps only a unit whose version and index are the ref's. Each
check has its control beside it: the statement without that check finds the wrong unit, a store without ``units_doc``
read by the old statement scans ``units``, and an updated store whose ``unit_base`` differs does not compare equal."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from store_worlds import as_schema_11, seed_versions
from test_store_stream import _compiled_and_updated, rows, same_rows

from chainret.catalog.load import load_world
from chainret.store import compile_store, open_store
from chainret.store.schema import UNIT_COLS, units_by_ref

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def seed_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("unit_base") / "seed.db"
    compile_store(load_world(ROOT / "fixtures" / "seed").catalog, db)
    return db


def _versions(db: Path) -> list[tuple[str, int]]:
    """(version ref, number of units) of each version with units, in order, followed by another version with units."""
    with sqlite3.connect(db) as c:
        got = c.execute("SELECT m.ref, count(u.ord) FROM document_meta m JOIN units u ON u.doc_ord = m.ord GROUP BY m.ord ORDER BY m.ord").fetchall()
    return [(str(r), int(n)) for r, n in got[:-1]]


def test_every_unit_is_its_versions_unit_base_plus_its_index(seed_db):
    with sqlite3.connect(seed_db) as c:
        assert "unit_base" in {r[1] for r in c.execute("PRAGMA table_info(document_meta)")}
        assert c.execute("SELECT count(*) FROM units").fetchone()[0] > 10
        off = c.execute("SELECT count(*) FROM units u JOIN document_meta m ON m.ord = u.doc_ord WHERE u.ord <> m.unit_base + u.idx").fetchone()[0]
        assert off == 0
        assert not c.execute("SELECT 1 FROM sqlite_schema WHERE name = 'units_doc'").fetchall()
        assert [r[1] for r in c.execute("PRAGMA table_info(postings)")] == ["term", "unit_ord", "tf"]


def test_a_ref_past_its_versions_last_unit_names_no_unit(seed_db, tmp_path):
    """The last unit of each version is found by its ref, the index after it is none (it would be the next version's
    first unit by ordinal), as in a store of schema 11 (``units_doc``)."""
    old = tmp_path / "s11.db"
    old.write_bytes(seed_db.read_bytes())
    as_schema_11(old)
    stores = [open_store(seed_db), open_store(old)]
    try:
        assert [s.based_units for s in stores] == [True, False]
        versions = _versions(seed_db)
        assert versions
        for ref, n in versions:
            for store in stores:
                last = store.unit(f"{ref}#u{n}")
                assert last is not None and last.ref == f"{ref}#u{n}"
                assert store.unit(f"{ref}#u{n + 1}") is None
                assert store.unit(f"{ref}#u0") is None
    finally:
        for store in stores:
            store.close()


def test_without_the_version_check_a_ref_past_the_last_unit_names_the_next_versions_unit(seed_db):
    """Negative control: the unit found by ``unit_base`` plus an index past the version's units is another version's."""
    ref, n = _versions(seed_db)[0]
    store = open_store(seed_db)
    try:
        named, np = units_by_ref([f"{ref}#u{n + 1}"], store.doc_ords, based=True)
        unchecked = named.split(" AND u.doc_ord")[0] + "))"
        got = store.db.rows(f"SELECT {UNIT_COLS} FROM units u WHERE {unchecked}", np[:2])
        assert got and got[0][1] != ref
    finally:
        store.close()


def _plan(db: Path, sql: str, params: list[object]) -> str:
    with sqlite3.connect(db) as c:
        return " | ".join(str(r[3]) for r in c.execute("EXPLAIN QUERY PLAN " + sql, params))


def test_a_unit_lookup_reads_units_by_ordinal_without_units_doc(seed_db):
    """Each ref's unit is one rowid lookup (and its version's ``document_meta`` row), never a scan of ``units``; the control:
    the statement of schema 11 on this store, which has no ``units_doc``, scans."""
    refs = [f"{ref}#u1" for ref, _ in _versions(seed_db)[:3]]
    store = open_store(seed_db)
    try:
        based, bp = units_by_ref(refs, store.doc_ords, based=True)
        old, op = units_by_ref(refs, store.doc_ords, based=False)
    finally:
        store.close()
    plan = _plan(seed_db, f"SELECT u.ord FROM units u WHERE {based}", bp)
    assert plan.count("SEARCH u USING INTEGER PRIMARY KEY (rowid=?)") == 3 and "SCAN u" not in plan, plan
    assert "SCAN u" in _plan(seed_db, f"SELECT u.ord FROM units u WHERE {old}", op)


def test_the_update_comparison_sees_a_changed_unit_base(tmp_path):
    """Negative control of the update test (``test_store_stream``): an updated store's ``unit_base`` is compared."""
    compiled, updated = _compiled_and_updated(*seed_versions(), tmp_path)
    same_rows(rows(compiled), rows(updated))
    with sqlite3.connect(updated) as c:
        c.execute("UPDATE document_meta SET unit_base = unit_base + 1 WHERE ord = (SELECT max(ord) FROM document_meta)")
    with pytest.raises(AssertionError, match="document_meta"):
        same_rows(rows(compiled), rows(updated))
