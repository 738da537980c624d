"""A SQLite store of schema 11 keeps a posting's term as the ordinal of the entity whose ID it is, else as its text
(``chainret.store.schema.TERM_KEY``; issue 47: a store's size). Every statement names a term by its text, which
``TERM_KEY`` makes the kept key; an update that adds an entity whose ID stored units hold keys their postings again
(``StreamCompile._key_new_ids``), so the updated store holds what a compile of the new catalog holds. Schema 13 keeps
any other word by its code (``WORD_CODES``, named by ``WORD_KEY``)."""

from __future__ import annotations

from pathlib import Path

from chainret.catalog.load import load_catalog
from chainret.catalog.models import Entity, SourceDocument, sha256_digest
from chainret.store import compile_store, open_store, update_store
from chainret.store.schema import WORD_KEY, term_text
from chainret.store.stream import StreamCompile
from benchmarks.harness.catalogs import changed

ROOT = Path(__file__).resolve().parents[1]
SUPPLY = load_catalog(ROOT / "fixtures" / "supply" / "catalog.yaml")
GASKET = "part:supply:gasket"


def _versions():
    """v1 names ``GASKET`` in a document's text and holds no such entity; v2 adds the entity."""
    text = f"Spare gasket {GASKET} for the relief valve."
    doc = SourceDocument(source="parts", document="spares.md", version="v1", text=text, digest=sha256_digest(text))
    v1 = changed(SUPPLY, documents=[*SUPPLY.documents, doc])
    return v1, changed(v1, entities=[*v1.entities, Entity(id=GASKET, type="part", name="Gasket")])


def _postings(path: Path) -> list[tuple[object, ...]]:
    store = open_store(str(path))
    try:
        # (schema 12: ``LEAN_POSTINGS``; 13: a word's code is the order the compile met it, so a word is read as text)
        return sorted(store.db.rows(f"SELECT term >= 0, {term_text('term', True, True)}, unit_ord, tf FROM postings"), key=repr)
    finally:
        store.close()


def _units_of(path: Path, term: str) -> list[int]:
    store = open_store(str(path))
    try:
        return [int(r[0]) for r in store.db.rows(f"SELECT unit_ord FROM postings WHERE term = {WORD_KEY}", (term,))]
    finally:
        store.close()


def test_an_id_is_kept_as_its_entity_ordinal(tmp_path):
    """An entity's ID is kept as the entity's ordinal, a word as its code (a negative integer), and a statement finds both
    by their text. Negative controls: neither text is what the table holds."""
    _, v2 = _versions()
    compile_store(v2, tmp_path / "w.db")
    store = open_store(str(tmp_path / "w.db"))
    try:
        (ordinal,) = store.db.rows("SELECT ord FROM entities WHERE id = ?", (GASKET,))[0]
        held = store.db.rows(f"SELECT typeof(term), term FROM postings WHERE term = {WORD_KEY}", (GASKET,))
        assert held and all(r == ("integer", ordinal) for r in held)
        words = store.db.rows(f"SELECT typeof(term), term < 0 FROM postings WHERE term = {WORD_KEY}", ("gasket",))
        assert words == [("integer", 1)] * len(held)
        assert not store.db.rows("SELECT 1 FROM postings WHERE term = ?", (GASKET,))
        assert not store.db.rows("SELECT 1 FROM postings WHERE term = ?", ("gasket",))
    finally:
        store.close()


def test_an_update_keys_the_stored_postings_of_a_new_entity_id(tmp_path, monkeypatch):
    """v1 compiled and updated to v2 holds v2's postings, the gasket's keyed by its new ordinal, and finds the unit
    by its ID. Negative control: an update that does not key them again keeps the word's code, which no lookup of the ID finds."""
    v1, v2 = _versions()
    compile_store(v2, tmp_path / "new.db")
    compile_store(v1, tmp_path / "old.db")
    update_store(v2, tmp_path / "old.db")
    assert _postings(tmp_path / "old.db") == _postings(tmp_path / "new.db")
    assert _units_of(tmp_path / "old.db", GASKET) == _units_of(tmp_path / "new.db", GASKET) != []

    compile_store(v1, tmp_path / "stale.db")
    monkeypatch.setattr(StreamCompile, "_key_new_ids", lambda self: None)
    update_store(v2, tmp_path / "stale.db")
    assert _postings(tmp_path / "stale.db") != _postings(tmp_path / "new.db")
    assert _units_of(tmp_path / "stale.db", GASKET) == []
