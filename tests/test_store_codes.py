"""Store schema 13 (issue 47: a store's size): a SQLite store keeps an entity's type as a code of ``entity_types`` and a
posting's word that is no ID as a code of ``term_words``, and its units without the columns schema 9 left NULL; it reads
entities and units through views (``chainret.store.schema.ENTITY_ROWS``, ``WORD_CODES``, ``UNIT_ROWS``).

Each check has its control beside it: a dictionary whose names are swapped reads other types, an update that forgets
the stored codes is refused, a unit row with a ref or text is refused, and a store of schema 12 (its tables, its words
as text) is read by its own statements and not updated."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from store_worlds import as_schema_12, trace_json

from benchmarks.harness.catalogs import changed
from chainret.catalog.load import load_world
from chainret.catalog.models import Entity, SourceDocument, sha256_digest
from chainret.pipeline.ask import ask
from chainret.store import compile_store, open_store, update_store
from chainret.store.base import StoreError
from chainret.store.schema import UNIT_TEXT, WORD_KEY, term_text, unit_row_lean
from chainret.store.stream import StreamCompile

ROOT = Path(__file__).resolve().parents[1]
SEED = load_world(ROOT / "fixtures" / "seed")
REQUESTS = ("Which contact serves PR-84?", "Who serves pr 84?", "Which contact serves PR-48?")


@pytest.fixture(scope="module")
def seed_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("codes") / "seed.db"
    compile_store(SEED.catalog, db)
    return db


def _types(db: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as c:
        return [(str(i), str(t)) for i, t in c.execute("SELECT id, type FROM entities ORDER BY ord")]


def _words(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as c:
        return {str(w): int(k) for k, w in c.execute("SELECT code, word FROM term_words")}


def _postings(db: Path) -> list[tuple[object, ...]]:
    """Every posting with its term as text and whether it is kept as an entity's ordinal."""
    with sqlite3.connect(db) as c:
        return sorted(c.execute(f"SELECT term >= 0, {term_text('term', True, True)}, unit_ord, tf FROM postings").fetchall(), key=repr)


def test_types_and_words_are_kept_by_code(seed_db, tmp_path):
    """Every entity reads back its catalog type from a code of a few; no posting keeps text, each word's code is in
    ``term_words`` and ``WORD_KEY`` finds it by its text. Control: a copy whose two type names are swapped reads other types."""
    assert _types(seed_db) == [(e.id, e.type) for e in SEED.catalog.entities]
    with sqlite3.connect(seed_db) as c:
        assert {t for (t,) in c.execute("SELECT typeof(type_code) FROM entity_rows")} == {"integer"}
        assert {str(n) for (n,) in c.execute("SELECT name FROM entity_types")} == {e.type for e in SEED.catalog.entities}
        assert c.execute("SELECT count(*) FROM postings WHERE typeof(term) <> 'integer'").fetchone() == (0,)
        assert c.execute("SELECT count(*) FROM postings WHERE term < 0 AND term NOT IN (SELECT code FROM term_words)").fetchone() == (0,)
        word, code = c.execute("SELECT word, code FROM term_words ORDER BY code DESC LIMIT 1").fetchone()
        assert c.execute(f"SELECT DISTINCT term FROM postings WHERE term = {WORD_KEY}", (word,)).fetchall() == [(code,)]
        assert not c.execute("SELECT 1 FROM postings WHERE term = ?", (word,)).fetchall()

    swapped = tmp_path / "swapped.db"
    swapped.write_bytes(seed_db.read_bytes())
    with sqlite3.connect(swapped) as c:
        c.execute("DROP INDEX entity_types_name")  # (a name is unique: swapped in one statement without it)
        c.execute("UPDATE entity_types SET name = CASE code WHEN 0 THEN (SELECT name FROM entity_types WHERE code = 1) "
                  "ELSE (SELECT name FROM entity_types WHERE code = 0) END WHERE code IN (0, 1)")
    assert _types(swapped) != _types(seed_db)


def _grown() -> tuple[object, object]:
    """The seed, and the seed with an entity of a type and a document of a word it does not have."""
    text = "A zyzzyva gadget sits beside the relief valve."
    doc = SourceDocument(source="parts", document="gadget.md", version="v1", text=text, digest=sha256_digest(text))
    grown = changed(SEED.catalog, entities=[*SEED.catalog.entities, Entity(id="gadget:seed:g1", type="gadget", name="Gadget 1")],
                    documents=[*SEED.catalog.documents, doc])
    return SEED.catalog, grown


def test_an_update_keeps_the_stored_codes_and_gives_new_ones_the_next(tmp_path, monkeypatch):
    """An update's new type and word get the next codes, every stored code stays, and the store holds what a compile
    of the new catalog holds (types and postings read as text). Control: an update that forgets the stored words gives a
    new word a code the store holds already, and is refused."""
    v1, v2 = _grown()
    compile_store(v2, tmp_path / "new.db")
    compile_store(v1, tmp_path / "old.db")
    before = _words(tmp_path / "old.db")
    update_store(v2, tmp_path / "old.db")
    after = _words(tmp_path / "old.db")
    assert {w: after[w] for w in before} == before and "zyzzyva" in after and after["zyzzyva"] < min(before.values())
    assert _types(tmp_path / "old.db") == _types(tmp_path / "new.db") and ("gadget:seed:g1", "gadget") in _types(tmp_path / "new.db")
    assert _postings(tmp_path / "old.db") == _postings(tmp_path / "new.db")

    compile_store(v1, tmp_path / "forgot.db")

    def forgetting(self: StreamCompile) -> dict[str, int]:  # (this write's codes only, none of the store's)
        if self.word_codes is None:
            self.word_codes = {}
        return self.word_codes

    monkeypatch.setattr(StreamCompile, "_codes", forgetting)
    with pytest.raises(StoreError) as err:
        update_store(v2, tmp_path / "forgot.db")
    assert "term_words" in str(err.value)


def test_a_unit_row_keeps_no_ref_or_text(seed_db):
    """``unit_rows`` holds no ref or text; the view gives them NULL and a unit's text is read from its version's.
    Control: a row that holds a ref is refused, not written without it."""
    with sqlite3.connect(seed_db) as c:
        assert [r[1] for r in c.execute("PRAGMA table_info(unit_rows)")] == ["ord", "doc_ord", "idx", "start_", "end_", "ntok"]
        ref, text, body = c.execute(f"SELECT u.ref, u.text, {UNIT_TEXT} FROM units u WHERE u.ord = 0").fetchone()
    assert ref is None and text is None and body
    assert unit_row_lean((0, None, 0, None, 1, 0, 5, 1, None)) == (0, 0, 1, 0, 5, 1)
    with pytest.raises(ValueError, match="keeps no unit ref or text"):
        unit_row_lean((0, "doc#u1", 0, None, 1, 0, 5, 1, None))


def test_a_schema_12_store_is_read_and_its_update_refused(seed_db, tmp_path):
    """A store of schema 12 (entities and units as tables, words as text: ``store_worlds.as_schema_12``) answers as this
    schema's store does, by its own statements; an update of it is refused with the recompile advice."""
    old = tmp_path / "twelve.db"
    old.write_bytes(seed_db.read_bytes())
    as_schema_12(old)
    with sqlite3.connect(old) as c:
        assert c.execute("SELECT count(*) FROM postings WHERE typeof(term) = 'text'").fetchone()[0] > 0
    store = open_store(old)
    try:
        assert store.postings_unit == "lean"
    finally:
        store.close()
    for request in REQUESTS:
        assert trace_json(ask(request, old)).replace(str(old), str(seed_db)) == trace_json(ask(request, seed_db))
    with pytest.raises(StoreError, match="recompile"):
        update_store(SEED.catalog, old)
