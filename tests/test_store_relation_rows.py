"""A SQLite store of schema 10 keeps its relations by ordinals and reads them through a view (issue 47: a store's size).

``relation_rows`` holds a relation's subject, predicate and object as their ``entities`` and ``predicates`` ordinals,
its unit as its index in its document version and a ``clause`` kind as NULL; the view ``relations`` reads them back
with the text columns every statement names (``chainret.store.schema.RELATION_ROWS``). What a view cannot answer, a
search by a unit's ref, names the unit's keys (``schema.relation_in_units``). A store of schema 9, whose relations are a
table of text keys, is still read, by the statements of its own layout (``SQLStore.packed_relations``).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from records_world import cli
from store_worlds import as_schema_9, trace_json

from chainret.catalog.load import load_world
from chainret.pipeline.ask import ask
from chainret.store import compile_store, open_store


ROOT = Path(__file__).resolve().parents[1]


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as conn:
        found = conn.execute(sql).fetchall()
    conn.close()
    return found


@pytest.mark.parametrize("world", ["seed", "records"])
def test_relation_rows_hold_ordinals_and_the_view_reads_back_the_catalogs_relations(tmp_path, world):
    """Every row keeps integers where the catalog has text keys, and the view gives each relation's subject, predicate,
    object, unit ref and kind as the catalog does (the records world has prose relations: a kind kept as such).
    Negative control: a row's object ordinal edited, the view reads the other entity's ID for it."""
    cat = load_world(ROOT / "fixtures" / world).catalog
    db = tmp_path / "w.db"
    compile_store(cat, db)
    kinds = _rows(db, "SELECT typeof(s), typeof(p), typeof(o), typeof(unit_idx), kind FROM relation_rows")
    assert {k[:3] for k in kinds} == {("integer", "integer", "integer")}
    assert {k[4] for k in kinds} <= {None, "prose"} and (world != "records" or "prose" in {k[4] for k in kinds})
    read = {r[0]: r[1:] for r in _rows(db, "SELECT id, subject, predicate, object, unit_ref, kind FROM relations")}
    want = {r.id: (r.subject, r.predicate, r.object, getattr(cat.supporting_unit(r), "ref", None), r.support.kind) for r in cat.relations}
    assert read == want
    first = cat.relations[0]
    other = next(e.id for e in cat.entities if e.id != first.object)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE relation_rows SET o = (SELECT ord FROM entities WHERE id = ?) WHERE id = ?", (other, first.id))
    conn.close()
    assert _rows(db, f"SELECT object FROM relations WHERE id = '{first.id}'") == [(other,)]


def test_a_schema_9_store_of_text_keyed_relations_answers_as_schema_10(tmp_path):
    """A store whose relations are one table of text keys (schema 9, still read: ``store_worlds.as_schema_9``) answers
    every fixture request as the store of this schema, per lookup (a pair's first ask) and by the hop statement (its
    second); an update of it is refused. Negative control: the old store really is of the old layout (no
    ``relation_rows``, read as such), so its answers were not the new layout's."""
    w = load_world(ROOT / "fixtures" / "seed")
    new, old = tmp_path / "ten.db", tmp_path / "nine.db"
    compile_store(w.catalog, new)
    old.write_bytes(new.read_bytes())
    as_schema_9(old)
    assert _rows(old, "SELECT name FROM sqlite_schema WHERE name = 'relation_rows'") == []
    stores = [open_store(new), open_store(old)]
    try:
        assert [s.packed_relations for s in stores] == [True, False]
        for case in w.cases:
            for principal in ("public", "auditor"):
                for _ in range(2):
                    ten, nine = (trace_json(ask(case.request, s, view=case.view, principal=principal)) for s in stores)
                    assert ten == nine.replace(str(old), str(new)), (case.id, principal)  # (the path aside)
    finally:
        for s in stores:
            s.close()
    done = cli("catalog", "compile", str(ROOT / "fixtures" / "seed"), "--out", str(old), "--update", cwd=tmp_path)
    assert done.returncode == 2 and "compiled with store schema 9" in " ".join(done.stderr.split()) and "Traceback" not in done.stderr
