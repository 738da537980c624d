"""Every relation and unit reads back from a store exactly as the catalog has it, every field (store schema 8).

A SQLite store of schema 8 leaves out of a row what the row's document version holds already (a relation's source,
document, version, representation and digest where they are the version's; a quote that is its span's text; a unit's
text and document ref: ``chainret.store.schema``), and its readers put it back. The catalog here adds to the default
one relations whose support differs from its version's in each field the store may leave out, and one whose span runs
across units: each must read back with its own values, from SQLite (rows left out) and PostgreSQL (rows whole) alike
(PostgreSQL's row-level security shows quotes and units to a reader only: there the rest is compared; the store
parity tests hold its answers to the others').
The negative control compiles with the store's test of "the same as the version's" switched off (every row left
out): the edited relations then read back wrong, and this test's comparison sees it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from store_worlds import pg_url, three_stores  # noqa: F401

from chainret.catalog.load import catalog_from_data, load_catalog
from chainret.catalog.models import Catalog, Relation, unit_spans
from chainret.store import compile_store, open_store

ROOT = Path(__file__).resolve().parents[1]
EDITS = {  # relation id suffix -> support fields changed from the document version's
    "stale": {"digest": "sha256:" + "0" * 64},
    "lost": {"digest": None},
    "plain": {"representation": "text/plain"},
    "requoted": {"quote": "a quote that is not the text of its span"},
}


def _edited() -> Catalog:
    """The default catalog with a copy of its first relation per ``EDITS``, and one over a span across two units."""
    cat = load_catalog(ROOT / "catalogs" / "default.yaml")
    data = cat.model_dump(mode="json")
    first = data["relations"][0]
    for name, change in EDITS.items():
        data["relations"].append({**first, "id": f"{first['id']}.{name}", "support": {**first["support"], **change}})
    doc = next(d for d in cat.documents if len(unit_spans(d.text)) >= 2)
    (start, _), (_, end) = unit_spans(doc.text)[:2]
    data["relations"].append({**first, "id": f"{first['id']}.across", "support": {
        **first["support"], "source": doc.source, "document": doc.document, "version": doc.version,
        "representation": doc.representation, "digest": doc.digest, "span": [start, end], "quote": doc.text[start:end]}})
    return catalog_from_data(data)


def _versions_hold(cat: Catalog) -> tuple[set[str], set[str]]:
    """The relations whose support fields are their document version's, and those whose quote is their span's text
    (what a SQLite store may leave out of their rows: written out here from the catalog, not from the compiler)."""
    support, quote = set(), set()
    for r in cat.relations:
        s, d = r.support, cat.documents_by_ref[r.support.doc_ref]
        if (s.source, s.document, s.version, s.representation, s.digest) == (d.source, d.document, d.version, d.representation, d.digest):
            support.add(r.id)
        if d.text[s.span[0]:s.span[1]] == s.quote:
            quote.add(r.id)
    return support, quote


def _fields(rel: Relation | None, quote: bool) -> dict[str, object] | None:
    """A relation's fields but ``expect_invalid`` (a catalog file's note for its checks, which no store keeps), and
    but its quote unless ``quote``."""
    if rel is None:
        return None
    out = rel.model_dump(exclude={"expect_invalid"})
    if not quote:
        out["support"].pop("quote")
    return out


def _differences(cat: Catalog, store: object, *, shown: bool = True) -> list[str]:
    """The relations and units of ``cat`` that ``store`` reads back otherwise (by id / ref). ``shown=False``: a store
    that shows no quote or unit to a read without a reader (PostgreSQL's row-level security) is held to the rest."""
    out = [r.id for r in cat.relations  # type: ignore[attr-defined]
           if _fields(store.relations_by_id.get(r.id), shown) != _fields(r, shown)]  # type: ignore[attr-defined]
    if shown:
        out += [u.ref for units in cat.units_by_doc.values() for u in units if store.unit(u.ref) != u]  # type: ignore[attr-defined]
    return out


def test_every_relation_and_unit_reads_back_as_the_catalog_has_it(pg_url, tmp_path):  # noqa: F811
    cat = _edited()
    stores = three_stores(cat, tmp_path, pg_url)
    try:
        for name, store in stores.items():
            assert _differences(cat, store, shown=name != "postgres") == [], name
        # the SQLite store did leave out what the versions hold (else this test would test nothing of it) ...
        db = sqlite3.connect(stores["sqlite"].db.path)  # type: ignore[attr-defined]
        try:
            (lean,), (quotes,), (units,) = (db.execute(q).fetchone() for q in (
                "SELECT count(*) FROM relations WHERE source IS NULL", "SELECT count(*) FROM relation_quotes",
                "SELECT count(*) FROM units WHERE text IS NULL AND doc_ref IS NULL AND ref IS NULL"))  # (ref: schema 9)
            own = dict(db.execute("SELECT r.id, r.source IS NULL FROM relations r"))
            quoted = {rid for (rid,) in db.execute("SELECT r.id FROM relations r JOIN relation_quotes q ON q.rel_ord = r.ord")}
        finally:
            db.close()
        first = cat.relations[0].id
        support, quote = _versions_hold(cat)
        assert {f"{first}.across", f"{first}.requoted"} <= support and not {f"{first}.{n}" for n in ("stale", "lost", "plain")} & support
        assert f"{first}.across" in quote and f"{first}.requoted" not in quote
        assert units == sum(map(len, cat.units_by_doc.values()))
        # ... where the versions hold it, and kept the rest: an edited support whole, a changed quote's row
        assert {rid for rid, left_out in own.items() if left_out} == support and lean == len(support)
        assert quoted == {r.id for r in cat.relations} - quote and quotes == len(quoted)
    finally:
        for store in stores.values():
            if hasattr(store, "close"):
                store.close()


def test_a_unit_is_found_by_its_ref_alone(tmp_path, monkeypatch):
    """A SQLite unit of schema 9 keeps no ref: it is found by its version's ref and its index (``units_by_ref``), and
    only by the ref the catalog gives it. Controls: the same unit's index written otherwise (``#u01``), another
    version's ref, a ref without an index and a unit past the version's last find nothing, where a lenient reading of
    the index (``int``) would find the unit."""
    from chainret.store import schema
    from chainret.store.schema import unit_keys

    cat = _edited()
    compile_store(cat, tmp_path / "s.db")
    store = open_store(tmp_path / "s.db")
    try:
        doc, units = next((d, us) for d, us in cat.units_by_doc.items() if len(us) > 1)
        assert [store.unit(u.ref) for u in units] == units and units[0].ref == f"{doc}#u1"
        for wrong in (f"{doc}#u01", f"{doc}#u+1", f"{doc}#u", doc, f"{doc}x#u1", f"{doc}#u{len(units) + 1}"):
            assert store.unit(wrong) is None, wrong
        ords = store.doc_ords([doc])
        assert unit_keys([f"{doc}#u01", f"{doc}#u2", "nowhere/x.md@v1#u1"], store.doc_ords) == [None, None, ords[doc], 2, None, None]
        # the control: the index read leniently, ``#u01`` names the first unit
        monkeypatch.setattr(schema, "unit_keys", lambda refs, doc_ords: [
            v for r in refs for v in (doc_ords([r.rpartition("#u")[0]])[r.rpartition("#u")[0]], int(r.rpartition("#u")[2]))])
        assert store.unit(f"{doc}#u01") == units[0]
    finally:
        store.close()


def test_negative_control_rows_left_out_where_they_differ_read_back_wrong(tmp_path, monkeypatch):
    """With the test of "the same as the version's" switched off, every row leaves its support and quote out: the
    edited relations read back with their version's values, which ``_differences`` reports (and nothing else)."""
    import chainret.store.stream as stream

    monkeypatch.setattr(stream, "_own_support", lambda sup, document: False)
    monkeypatch.setattr(stream, "_own_quote", lambda quote, text, span: False)
    cat = _edited()
    compile_store(cat, tmp_path / "s.db")
    store = open_store(tmp_path / "s.db")
    try:
        support, quote = _versions_hold(cat)
        wrong = {r.id for r in cat.relations} - (support & quote)  # (the default catalog's rel-8 has lost its digest)
        assert {f"{cat.relations[0].id}.{name}" for name in EDITS} <= wrong
        assert sorted(_differences(cat, store)) == sorted(wrong)
    finally:
        store.close()


@pytest.mark.parametrize("name", sorted(EDITS))
def test_an_edited_relation_is_what_the_catalog_says(name):
    """The edits are what this module says they are (the catalog loads them as written)."""
    cat = _edited()
    first = cat.relations[0]
    got = cat.relations_by_id[f"{first.id}.{name}"].support
    assert got.model_dump() == {**first.support.model_dump(), **{k: tuple(v) if k == "span" else v for k, v in EDITS[name].items()}}
