"""A SQLite store's ``name_words`` (``chainret.store.namewords``) answers "is this a word of a name" as the label scan does.

``NameLookup.has_word`` decides whether a synonym may replace a request's word and whether a mention is a typo. A
compiled store used to find a word's owners by scanning every label of the type; it now reads the word's row and
checks the entities it lists, with the reader's own conditions. The reference is the scan (the same store with the
table dropped) and the memory catalog's index: every word of every label and some in none, every type, every
principal, with and without ``knows``, must get the same answer from all three. The world has a word whose first
owner (the one a row keeps when it keeps one) only a restricted document names, so the public's answer needs the
scan behind the row; its negative control is a row that claims to list every owner.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from store_worlds import pg_url  # noqa: F401

from benchmarks.harness.catalogs import changed
from chainret.catalog.load import load_catalog
from chainret.catalog.models import Entity, Relation, Support, View
from chainret.catalog.names import label_words
from chainret.catalog.views import open_view
from chainret.store import compile_store, open_store, update_store
from chainret.store import namewords

ROOT = Path(__file__).resolve().parents[1]
SUPPLY = load_catalog(ROOT / "fixtures" / "supply" / "catalog.yaml")
PRINCIPALS = ("public", "auditor")
ABSENT = ("zzyzx", "gearbox", "p5", "12", "v", "relief2")


def _world() -> Any:
    """SUPPLY and three parts: "Zebra gear" (only the restricted ``pending.md`` names it), "Zebra hub" (public) and
    "Quagga bolt" (restricted only)."""
    pending = next(d for d in SUPPLY.documents if d.document == "pending.md")
    public = next(d for d in SUPPLY.documents if d.visibility == "public")

    def rel(rid: str, subject: str, doc: Any) -> Relation:
        return Relation(id=rid, subject=subject, predicate="supplied_by", object="org:supply:harbor",
                        support=Support(source=doc.source, document=doc.document, version=doc.version,
                                        digest=doc.digest, span=(0, 5), quote=doc.text[:5]))

    extra = [Entity(id="part:supply:zeb1", type="part", name="Zebra gear"),
             Entity(id="part:supply:zeb2", type="part", name="Zebra hub", aliases=["ZH 4"]),
             Entity(id="part:supply:quag", type="part", name="Quagga bolt")]
    rels = [rel("sup-zeb1", "part:supply:zeb1", pending), rel("sup-zeb2", "part:supply:zeb2", public),
            rel("sup-quag", "part:supply:quag", pending)]
    return changed(SUPPLY, entities=[*SUPPLY.entities, *extra], relations=[*SUPPLY.relations, *rels])


def _words(cat: Any) -> list[str]:
    return sorted({w for e in cat.entities for label in (e.id, e.name, *e.aliases) for w in label_words(label)} | set(ABSENT))


def _answers(cat: Any, reader: Any) -> dict[tuple[str, str, str, bool], bool]:
    out = {}
    types = sorted({e.type for e in cat.entities})
    for principal in PRINCIPALS:
        cv = open_view(cat, None, principal) if reader is cat else reader.view(None, principal)
        lookup = cv.name_lookup()
        for word in _words(cat):
            for type_ in types:
                out[(principal, word, type_, True)] = lookup.has_word(type_, word, cv.knows)
                out[(principal, word, type_, False)] = lookup.has_word(type_, word)
    return out


@pytest.fixture()
def stores(tmp_path, monkeypatch):
    """The world compiled with rows that keep one owner each, and a copy without the table (the scan)."""
    monkeypatch.setattr(namewords, "KEPT", 1)
    cat = _world()
    compile_store(cat, tmp_path / "rows.db")
    (tmp_path / "scan.db").write_bytes((tmp_path / "rows.db").read_bytes())
    with sqlite3.connect(tmp_path / "scan.db") as conn:
        conn.execute("DROP TABLE name_words")
    conn.close()
    rows, scan = open_store(str(tmp_path / "rows.db")), open_store(str(tmp_path / "scan.db"))
    yield cat, rows, scan
    rows.close()
    scan.close()


def test_the_rows_answer_as_the_scan_and_the_memory_index(stores):
    cat, rows, scan = stores
    assert rows.name_words("part", "zebra") == (2, [rows.db.rows("SELECT ord FROM entities WHERE id = 'part:supply:zeb1'")[0][0]])
    assert rows.name_words("part", "zzyzx") == (0, [])
    assert scan.name_words("part", "zebra") is None
    reference = _answers(cat, cat)
    assert _answers(cat, scan) == reference
    assert _answers(cat, rows) == reference
    # what the world is there for: the public knows "zebra" by its second owner, "quagga" not at all
    assert reference[("public", "zebra", "part", True)] and reference[("auditor", "quagga", "part", True)]
    assert not reference[("public", "quagga", "part", True)]
    assert not reference[("public", "relief", "org", True)] and reference[("public", "relief", "part", True)]


def _owners(cat: Any, reader: Any) -> dict[tuple[str, str, str], list[str]]:
    """Each word's owners (``owners_of``) and each first word's completions, per principal."""
    from chainret.query.understand import name_completions

    out = {}
    types = sorted({e.type for e in cat.entities})
    for principal in PRINCIPALS:
        cv = open_view(cat, None, principal) if reader is cat else reader.view(None, principal)
        lookup = cv.name_lookup()
        for type_ in types:
            for word in _words(cat):
                out[(principal, type_, word)] = sorted(e.id for e in lookup.owners_of(type_, word))  # (no order promised)
                if word.isalpha():
                    out[(principal, type_, "completes " + word)] = [e.id for e in name_completions(word, type_, cv)]
    return out


def test_owners_and_completions_read_as_the_memory_index(stores, monkeypatch):
    """A word's owners and a first name's completions (none where more than ``COMPLETIONS_MOST``
    names the reader knows start so) are the memory index's, whichever the store."""
    from chainret.query import understand

    cat, rows, scan = stores
    monkeypatch.setattr(understand, "COMPLETIONS_MOST", 1)
    reference = _owners(cat, cat)
    assert reference[("public", "part", "zebra")] == ["part:supply:zeb1", "part:supply:zeb2"]  # (candidates: every label's)
    assert reference[("auditor", "part", "completes zebra")] == []  # two names start so: more than the most
    assert reference[("public", "part", "completes zebra")] == ["part:supply:zeb2"]  # one the public knows
    assert _owners(cat, rows) == reference
    assert _owners(cat, scan) == reference
    monkeypatch.setattr(understand, "COMPLETIONS_MOST", 200)
    assert _owners(cat, rows)[("auditor", "part", "completes zebra")] == ["part:supply:zeb1", "part:supply:zeb2"]


def test_a_row_that_claims_every_owner_is_caught(stores, monkeypatch):
    """Negative control: the reader trusts a row's owners as the whole set only where its count says so; a row that
    claims to list them all (its count cut to the owners it keeps) turns the public's "zebra" into no name word."""
    cat, rows, _ = stores
    real = type(rows).name_words

    def claims_all(self: Any, type_: str, word: str) -> Any:
        row = real(self, type_, word)
        return None if row is None else (len(row[1]), row[1])

    monkeypatch.setattr(type(rows), "name_words", claims_all)
    assert _answers(cat, rows) != _answers(cat, cat)
    cv = rows.view(None, "public")
    assert not cv.name_lookup().has_word("part", "zebra", cv.knows)


def test_an_update_adds_the_words_of_its_names(tmp_path):
    """A store compiled from a version without the zebras, then updated to the world, answers as the world's compile."""
    cat = _world()
    first = changed(cat, entities=cat.entities[:-3], relations=cat.relations[:-3],
                    views=[View(name="first", current=True, documents=[d.ref for d in cat.documents])])
    second = changed(cat, views=[View(name="first", current=False, documents=[d.ref for d in cat.documents]),
                                 View(name="second", current=True, documents=[d.ref for d in cat.documents])])
    compile_store(first, tmp_path / "u.db")
    before = open_store(str(tmp_path / "u.db"))
    assert before.name_words("part", "zebra") == (0, [])
    before.close()
    update_store(second, tmp_path / "u.db")
    after = open_store(str(tmp_path / "u.db"))
    try:
        assert after.name_words("part", "zebra")[0] == 2
        assert _answers(second, after) == _answers(second, second)
    finally:
        after.close()


def test_postgresql_keeps_no_rows_and_answers_by_the_scan(pg_url):  # noqa: F811
    """A PostgreSQL store has no ``name_words`` (a login could read it whole) and answers as the memory index does."""
    from store_worlds import new_schema_url

    cat = _world()
    url = new_schema_url(pg_url)
    compile_store(cat, url)
    store = open_store(url)
    try:
        assert store.name_words("part", "zebra") is None
        assert _answers(cat, store) == _answers(cat, cat)
        assert _owners(cat, store) == _owners(cat, cat)
    finally:
        store.close()


def test_a_common_word_is_read_past_many_scans(tmp_path, monkeypatch):
    """A word 2,600 label rows hold, its row listing one owner: the scans (512 rows each) take every owner once, as
    the memory index has them. Negative control: scans cut to their first chunk miss owners."""
    monkeypatch.setattr(namewords, "KEPT", 1)
    gizmos = [Entity(id=f"part:supply:gizmo-{k}", type="part", name=f"Gizmo {k}") for k in range(1300)]
    cat = changed(SUPPLY, entities=[*SUPPLY.entities, *gizmos])
    compile_store(cat, tmp_path / "g.db")
    store = open_store(str(tmp_path / "g.db"))
    try:
        lookup = store.view(None, "public").name_lookup()
        owners = [e.id for e in lookup.owners_of("part", "gizmo")]
        assert len(owners) == len(set(owners)) == 1300
        assert set(owners) == {e.id for e in cat.name_lookup.owners_of("part", "gizmo")}
        real = store.db.rows

        def first_chunk_only(sql: str, params: Any = (), *rest: Any) -> Any:
            return real(sql, params, *rest) if "OFFSET" not in sql or params[-1] == 0 else []

        monkeypatch.setattr(store.db, "rows", first_chunk_only)
        assert len(list(lookup.owners_of("part", "gizmo"))) < 1300
    finally:
        store.close()
