"""Write a store: the ``Writer`` and ``CompileSource`` seams, and the append of an update (``update_into``).

A new store has one compiler, ``chainret.store.stream`` (record by record; ``compile_store`` feeds a
loaded ``Catalog`` to it as ``catalog_records``); ``compile_into`` hands it the writer. An update of
an existing store is written here, from ``schema.Compiled`` (the rows of the catalog's new records).
Both write through a ``Writer`` (SQLite: ``executemany`` inside one transaction; PostgreSQL: ``COPY``
inside one transaction), so a failed compile or update leaves nothing half-written.

An update is append-only: the new catalog must hold every stored record unchanged and in the same
place (new entities, predicates, patterns, documents, relations and views come after them; only
the views' ``current`` flag and the entities' labels and name sources may change: ``_relabel``). Then only the new rows are written, plus the small tables
that summarise all of them (``corpus``, ``meta``, the views' current flags). Anything else is
refused with a message saying to recompile.

Still written twice, once here (``schema.Compiled``, for an update) and once in ``stream.StreamCompile``
(a new store), for a later step to merge: the rows of documents, readers, document_meta, views,
view_docs, patterns, relations and relation_quotes; units and postings (``Compiled.units_and_postings``
beside ``StreamCompile._units``); meta and identities, with the catalog and reader digests
(``Catalog.digest`` / ``reader_catalog`` beside ``StreamCompile._digests``). Entities, names,
name_sources and predicates already share ``schema.entity_rows`` / ``predicate_row``; corpus and
label_readers share ``_corpus`` / ``label_readers``. ``tests/test_store_stream.py`` holds the two
to the same rows (a store grown by an update from empty against one compiled at once).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Protocol

from chainret.catalog.models import Catalog
from chainret.store.base import StoreError, recompile_advice
from chainret.store.schema import LABEL_READERS_SQL, TABLES, Compiled, SQLValue, as_int, as_str, corpus_rows, entity_rows, text_pairs

BATCH = 20_000


class Writer(Protocol):
    """One write transaction on a store (SQLite ``executemany``, PostgreSQL ``COPY``); SQL uses ``?`` placeholders."""

    def execute(self, sql: str, params: Sequence[SQLValue] = ()) -> None: ...

    def insert(self, table: str, rows: Iterable[Sequence[SQLValue]]) -> None: ...

    def rows(self, sql: str, params: Sequence[SQLValue] = ()) -> Sequence[tuple[object, ...]]: ...  # values narrowed by schema.as_int/as_str


class CompileSource(Protocol):
    """What a compile of a new store takes: records that write themselves through the writer
    (``chainret.store.stream.RecordSource``: a loaded catalog's records, or a catalog file streamed
    record by record, never held whole)."""

    def compile_into(self, w: Writer) -> dict[str, int]: ...


def _batched(w: Writer, table: str, rows: Iterable[Sequence[SQLValue]]) -> None:
    batch: list[Sequence[SQLValue]] = []
    for r in rows:
        batch.append(r)
        if len(batch) >= BATCH:
            w.insert(table, batch)
            batch = []
    if batch:
        w.insert(table, batch)


class _Buffers:
    """Rows of related tables, written together in batches (parents before children)."""

    def __init__(self, w: Writer, *tables: str) -> None:
        self.w = w
        self.rows: dict[str, list[Sequence[SQLValue]]] = {t: [] for t in tables}

    def flush(self, *, full_only: bool = False) -> None:
        if full_only and all(len(r) < BATCH for r in self.rows.values()):
            return
        for table, rows in self.rows.items():
            if rows:
                self.w.insert(table, rows)
                rows.clear()


def _fill(w: Writer, comp: Compiled, doc_ords: dict[str, int]) -> dict[int, tuple[int, int]]:
    """Insert every record ``comp`` yields (all of a new catalog, or the new ones of an update)."""
    for table in ("entities", "names", "name_sources", "predicates", "patterns", "documents", "readers", "document_meta", "views"):
        _batched(w, table, getattr(comp, table)())
    _batched(w, "view_docs", comp.view_docs(doc_ords))
    buf = _Buffers(w, "units", "postings")
    stats: dict[int, tuple[int, int]] = {}
    for _ in comp.units_and_postings(buf.rows["units"], buf.rows["postings"], stats):
        buf.flush(full_only=True)
    buf.flush()
    buf = _Buffers(w, "relations", "relation_quotes")
    for rel, quote in comp.relations(doc_ords):
        buf.rows["relations"].append(rel)
        buf.rows["relation_quotes"].append(quote)
        buf.flush(full_only=True)
    buf.flush()
    return stats


def label_readers(w: Writer) -> None:
    """Recompute ``label_readers`` (who may read a document that declares labels) from the written tables."""
    w.execute("DELETE FROM label_readers")
    w.execute(LABEL_READERS_SQL)


def _corpus(w: Writer) -> None:
    """Recompute the per view / principal class unit counts from the stored units (a small table)."""
    view_docs: dict[str, list[int]] = {}
    for v, d in w.rows("SELECT view_name, doc_ord FROM view_docs ORDER BY view_name, doc_ord"):
        view_docs.setdefault(as_str(v), []).append(as_int(d))
    readers: dict[int, set[str]] = {}
    for d, p in w.rows("SELECT doc_ord, principal FROM readers"):
        readers.setdefault(as_int(d), set()).add(as_str(p))
    stats = {as_int(d): (as_int(n), as_int(t)) for d, n, t in w.rows("SELECT doc_ord, count(*), sum(ntok) FROM units GROUP BY doc_ord")}
    for docs in view_docs.values():
        for d in docs:
            stats.setdefault(d, (0, 0))
    w.execute("DELETE FROM corpus")
    _batched(w, "corpus", corpus_rows(view_docs, readers, stats))


def compile_into(w: Writer, source: CompileSource) -> dict[str, int]:
    """Write ``source`` into empty tables (SQLite and PostgreSQL alike); returns row counts of the main tables.

    ``source`` is a record stream (``chainret.store.stream.RecordSource``, a loaded catalog's records
    or a file's) that writes itself; ``chainret.store.compile_store`` made it.
    """
    return source.compile_into(w)


def counts(w: Writer) -> dict[str, int]:
    return {t: as_int(w.rows(f"SELECT count(*) FROM {t}")[0][0]) for t in ("entities", "documents", "units", "relations", "views", "postings")}


def _stored(w: Writer, table: str, key: str) -> list[str]:
    return [as_str(r[0]) for r in w.rows(f"SELECT {key} FROM {table} ORDER BY ord")]


def _prefix(kind: str, stored: list[str], new: list[str]) -> None:
    if new[: len(stored)] != stored:
        gone = sorted(set(stored) - set(new))
        what = f"{kind} {gone[0]!r} is missing from the new catalog" if gone else f"the order of {kind}s changed"
        raise StoreError(f"not an append-only update: {what}; " + recompile_advice())


def _relabel(w: Writer, catalog: Catalog, stored: int) -> None:
    """Rewrite the label rows (``schema.entity_rows``) of the stored entities whose labels or name sources changed.

    The one rewrite an update makes: a re-import keeps an entity and appends the sources its records add
    (``NameSource.since``), so a stored entity's labels grow while its ID and place stay; its rows are
    derived from the catalog, never edited by hand, and are written again whole."""
    rows = {as_int(r[0]): tuple(r) for r in w.rows("SELECT ord, id, type, name, aliases, description FROM entities WHERE ord < ?", (stored,))}
    sources: dict[int, list[tuple[object, ...]]] = {}
    for r in w.rows("SELECT entity_ord, seq, doc_id, name, aliases, description, since FROM name_sources ORDER BY entity_ord, seq"):
        sources.setdefault(as_int(r[0]), []).append(tuple(r))
    for i, e in enumerate(catalog.entities[:stored]):
        entity, names, declared = entity_rows(e, i)
        if rows.get(i) == tuple(entity) and sources.get(i, []) == [tuple(d) for d in declared]:
            continue
        w.execute("DELETE FROM names WHERE entity_ord = ?", (i,))
        w.execute("DELETE FROM name_sources WHERE entity_ord = ?", (i,))
        w.execute("UPDATE entities SET name = ?, aliases = ?, description = ? WHERE ord = ?", (*entity[3:6], i))
        w.insert("names", names)
        if declared:
            w.insert("name_sources", declared)


def update_into(w: Writer, catalog: Catalog) -> dict[str, int]:
    """Append ``catalog``'s new records to a store compiled from an earlier version of it.

    Returns how many rows of each kind were added. Raises ``StoreError`` (nothing written) when the
    new catalog changes or reorders a stored record.
    """
    meta = text_pairs(w.rows("SELECT key, value FROM meta"))
    if meta.get("world") != catalog.world:
        raise StoreError(f"the store holds world {meta.get('world')!r}, the catalog is world {catalog.world!r}")
    keys = {
        "entities": ("id", [e.id for e in catalog.entities]),
        "predicates": ("name", [p.name for p in catalog.predicates]),
        "patterns": ("name", [p.name for p in catalog.patterns]),
        "documents": ("ref", [d.ref for d in catalog.documents]),
        "views": ("name", [v.name for v in catalog.views]),
        "relations": ("id", [r.id for r in catalog.relations]),
    }
    stored: dict[str, list[str]] = {}
    for table, (col, new) in keys.items():
        stored[table] = _stored(w, table, col)
        _prefix(table.rstrip("s"), stored[table], new)
    # Stored documents and views must be unchanged (text digest, visibility, readers; view contents).
    for i, (dig, vis, prin) in enumerate(w.rows("SELECT digest, visibility, principals FROM documents ORDER BY ord")):
        d = catalog.documents[i]
        if (d.digest, d.visibility, sorted(d.principals)) != (dig, vis, sorted(json.loads(as_str(prin)))):
            raise StoreError(f"not an append-only update: document {d.ref!r} changed; " + recompile_advice())
    for i, (docs,) in enumerate(w.rows("SELECT documents FROM views ORDER BY ord")):
        v = catalog.views[i]
        if v.documents != json.loads(as_str(docs)):
            raise StoreError(f"not an append-only update: view {v.name!r} changed; " + recompile_advice())
    new_ids = set(keys["entities"][1][len(stored["entities"]) :])
    if new_ids:
        hit = [r for r in w.rows("SELECT id, subject, object FROM relations") if r[1] in new_ids or r[2] in new_ids]
        if hit:
            raise StoreError(f"not an append-only update: stored relation {hit[0][0]!r} names a new entity; " + recompile_advice())
    _relabel(w, catalog, len(stored["entities"]))
    start = {t: len(stored[t]) for t in keys}
    start["units"] = as_int(w.rows("SELECT count(*) FROM units")[0][0])
    skip = {t: set(stored[t]) for t in keys}
    comp = Compiled(catalog, start=start, skip=skip)
    _fill(w, comp, comp.doc_ords())
    for v in catalog.views[: len(stored["views"])]:
        w.execute("UPDATE views SET current = ? WHERE name = ?", (int(v.current), v.name))
    w.execute("DELETE FROM meta")
    w.insert("meta", list(comp.meta().items()))
    seq = as_int(w.rows("SELECT coalesce(max(seq), 0) FROM identities")[0][0]) + 1
    _batched(w, "identities", comp.identities(seq))
    _corpus(w)
    label_readers(w)
    return {t: len(keys[t][1]) - len(stored[t]) for t in keys}


__all__ = ["TABLES", "CompileSource", "compile_into", "update_into"]
