"""Write a store: the ``CompileSource`` seam, and the append of an update (``update_into``).

A store has one compiler, ``chainret.store.stream`` (record by record; ``compile_store`` feeds a
loaded ``Catalog`` to it as ``catalog_records``); ``compile_into`` hands it the writer of a new store,
``update_into`` the writer of a stored one. It writes through a ``Writer`` (SQLite: ``executemany``
inside one transaction; PostgreSQL: ``COPY`` inside one transaction), so a failed compile or update
leaves nothing half-written.

An update is append-only: the new catalog must hold every stored record unchanged and in the same
place (new entities, predicates, patterns, documents, relations and views come after them; only
the views' ``current`` flag and the entities' labels and name sources may change). Then the whole
catalog is fed to the compiler as a new store's is, told how many records of each section the store
holds (``compile_records(stored=...)``): it writes the new records' rows, writes again the rows a
stored record's change reaches (``StreamCompile._relabel``: an entity's label rows, and the defects of
a prose relation naming it; ``_index_again``: a unit whose prose quotes now name more IDs; a view's
``current`` flag), and rewrites the tables that summarise all records (``corpus``, ``label_readers``,
``meta``; ``identities`` gains this write's). So every row has one writer, and the digests one
computation, whichever way the store was made: a store compiled from a catalog equals one compiled
from an older version and updated to it (tests/test_store_stream.py compares every table). A changed
document, view or entity type, or a stored record missing or moved, is refused with a message saying
to recompile.
"""

from __future__ import annotations

import json
from typing import Protocol

from chainret.catalog.models import Catalog
from chainret.store.base import StoreError, recompile_advice
from chainret.store.schema import TABLES, Writer, as_str, text_pairs


class CompileSource(Protocol):
    """What a compile of a new store takes: records that write themselves through the writer
    (``chainret.store.stream.RecordSource``: a loaded catalog's records, or a catalog file streamed
    record by record, never held whole)."""

    def compile_into(self, w: Writer) -> dict[str, int]: ...


def compile_into(w: Writer, source: CompileSource) -> dict[str, int]:
    """Write ``source`` into empty tables (SQLite and PostgreSQL alike); returns row counts of the main tables.

    ``source`` is a record stream (``chainret.store.stream.RecordSource``, a loaded catalog's records
    or a file's) that writes itself; ``chainret.store.compile_store`` made it.
    """
    return source.compile_into(w)


def _stored(w: Writer, table: str, key: str) -> list[str]:
    return [as_str(r[0]) for r in w.rows(f"SELECT {key} FROM {table} ORDER BY ord")]


def _prefix(kind: str, stored: list[str], new: list[str]) -> None:
    if new[: len(stored)] != stored:
        gone = sorted(set(stored) - set(new))
        what = f"{kind} {gone[0]!r} is missing from the new catalog" if gone else f"the order of {kind}s changed"
        raise StoreError(f"not an append-only update: {what}; " + recompile_advice())


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
    # Stored documents, entities' types and views must be unchanged (text digest, visibility, readers; view contents).
    for i, (dig, vis, prin) in enumerate(w.rows("SELECT digest, visibility, principals FROM documents ORDER BY ord")):
        d = catalog.documents[i]
        if (d.digest, d.visibility, sorted(d.principals)) != (dig, vis, sorted(json.loads(as_str(prin)))):
            raise StoreError(f"not an append-only update: document {d.ref!r} changed; " + recompile_advice())
    for i, (kind,) in enumerate(w.rows("SELECT type FROM entities ORDER BY ord")):
        if catalog.entities[i].type != kind:
            raise StoreError(f"not an append-only update: entity {catalog.entities[i].id!r} changed type; " + recompile_advice())
    for i, (docs,) in enumerate(w.rows("SELECT documents FROM views ORDER BY ord")):
        v = catalog.views[i]
        if v.documents != json.loads(as_str(docs)):
            raise StoreError(f"not an append-only update: view {v.name!r} changed; " + recompile_advice())
    new_ids = set(keys["entities"][1][len(stored["entities"]) :])
    if new_ids:
        hit = [r for r in w.rows("SELECT id, subject, object FROM relations") if r[1] in new_ids or r[2] in new_ids]
        if hit:
            raise StoreError(f"not an append-only update: stored relation {hit[0][0]!r} names a new entity; " + recompile_advice())
    from chainret.store.stream import catalog_records, compile_records  # (which imports this module)

    compile_records(w, catalog_records(catalog), refuse_invalid=False, stored={t: len(stored[t]) for t in keys})
    return {t: len(keys[t][1]) - len(stored[t]) for t in keys}


__all__ = ["TABLES", "CompileSource", "compile_into", "update_into"]
