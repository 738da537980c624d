"""Catalog stores: in memory (YAML worlds), an embedded SQLite file, PostgreSQL.

``resolve_catalog(catalog)`` is the one place a catalog argument is dispatched: it takes what
``--catalog`` takes (a YAML file or world directory, loaded into memory; a ``.db`` file compiled by
``chainret catalog compile``; a ``postgresql://`` URL; None for the default catalog), or a ``Catalog``
or reader object, and returns a ``CatalogReader``. The CLI, the servers and the library's entry
points (``chainret.pipeline.ask``, ``chainret.verify.replay.verify``, ...) call it once; below them everything reads
the reader. ``open_store(spec)`` opens a path or URL the same way.
``compile_store(catalog, out)`` writes a catalog to a ``.db`` file or a PostgreSQL URL;
``update_store(catalog, out)`` appends a newer version's records to one. See ``chainret.store.base``
for the interface and docs/scaling.md for the layout.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from chainret.catalog.models import Catalog
from chainret.core.errors import UsageError
from chainret.core.session import Session
from chainret.store.base import SCHEMA_VERSION, CatalogReader, Store, StoreError, StoreView, ViewReader, is_store

if TYPE_CHECKING:  # the compile path is loaded only by the commands that write a store
    from chainret.store.compile import CompileSource

__all__ = [
    "SCHEMA_VERSION", "CatalogReader", "Store", "ViewReader", "StoreError", "StoreView", "catalog_location", "catalog_path", "compile_store", "is_store",
    "is_store_spec", "open_reader", "open_store", "resolve_catalog", "store_location", "update_store",
]

SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")


def is_url(spec: object) -> bool:
    return isinstance(spec, str) and spec.startswith(("postgresql://", "postgres://"))


def is_store_spec(spec: object) -> bool:
    """True when ``spec`` names a compiled store (a ``.db`` file or a PostgreSQL URL), not a YAML world."""
    if is_url(spec):
        return True
    return isinstance(spec, (str, os.PathLike)) and Path(spec).suffix.lower() in SQLITE_SUFFIXES


def open_reader(spec: str | os.PathLike[str]) -> CatalogReader:
    """A compiled store for a ``.db`` path or ``postgresql://`` URL (``SQLiteStore`` / ``PostgresStore``)."""
    if is_url(spec):
        from chainret.store.postgres import PostgresStore

        return PostgresStore(str(spec))
    if is_store_spec(spec):
        from chainret.store.sqlite import SQLiteStore

        return SQLiteStore(spec)
    from chainret.catalog.load import load_world
    from chainret.store.memory import MemoryStore

    return MemoryStore(load_world(Path(spec)).catalog, str(Path(spec).resolve()))


open_store = open_reader  # the earlier name


def store_location(spec: str | os.PathLike[str]) -> str:
    """How a trace records where its catalog lives: an absolute path, or the URL without its password."""
    if is_url(spec):
        from chainret.store.postgres import redact

        return redact(str(spec))
    return str(Path(spec).resolve())


def compile_store(catalog: Catalog | CompileSource, out: str | os.PathLike[str], *, update: bool = False, replace: bool = False) -> dict[str, int]:
    """Write ``catalog`` to ``out`` (``.db`` path or PostgreSQL URL); ``update`` appends to an existing store.

    ``catalog``: a ``Catalog``, or a record stream (``chainret.store.stream.RecordSource``). A new store
    has one compiler, the record-by-record one (``chainret.store.stream``): a loaded ``Catalog`` is fed
    to it as its records (``catalog_records``), so a store's rows never depend on how its catalog
    came in. An update (``update_store``) feeds the same compiler, which writes only the new records' rows.
    """
    if isinstance(catalog, Catalog):
        if update:
            return update_store(catalog, out)
        from chainret.store.stream import RecordSource, catalog_records

        loaded = catalog
        source: CompileSource = RecordSource(lambda: catalog_records(loaded), refuse_invalid=False)  # (as given: RecordSource)
    elif update:
        raise StoreError("an update appends a loaded catalog to a store; a record stream compiles a new one")
    else:
        source = catalog
    if is_url(out):
        from chainret.store.postgres import compile_postgres

        return compile_postgres(source, str(out), replace=replace)
    _check_out(out)
    from chainret.store.sqlite import compile_sqlite

    return compile_sqlite(source, out, replace=replace)


def update_store(catalog: Catalog, out: str | os.PathLike[str]) -> dict[str, int]:
    """Append ``catalog``'s new records to the store at ``out`` (compiled from an earlier version of it).

    ``chainret.store.compile.update_into`` checks the stored records against the catalog, then feeds the
    catalog to the compiler of a new store (``chainret.store.stream``), which writes the new records' rows."""
    if is_url(out):
        from chainret.store.postgres import update_postgres

        return update_postgres(catalog, str(out))
    _check_out(out)
    from chainret.store.sqlite import update_sqlite

    return update_sqlite(catalog, out)


def _check_out(out: str | os.PathLike[str]) -> None:
    if not is_store_spec(out):
        raise StoreError(f"--out must be a .db file or a postgresql:// URL, found {str(out)!r}")


# -- what a --catalog argument names ------------------------------------------------------------------
def catalog_path(catalog: str | os.PathLike[str] | None) -> Path:
    """The catalog file or directory a path argument (None = default) names."""
    from chainret.catalog.load import default_catalog_path  # the YAML reader: not loaded for a compiled store

    path = Path(catalog) if catalog is not None else default_catalog_path()
    if not path.exists():
        raise UsageError(f"catalog {path} does not exist; pass --catalog PATH or set CHAINRET_CATALOG")
    return path


def catalog_location(catalog: object) -> str | None:
    """Where a trace says its catalog lives: None for an object, else a path or a password-free URL."""
    if catalog is None:
        return str(catalog_path(None).resolve())
    if not isinstance(catalog, (str, os.PathLike)):
        return None  # a Catalog or a reader
    return store_location(catalog) if is_store_spec(catalog) else str(catalog_path(catalog).resolve())


def resolve_catalog(catalog: Catalog | CatalogReader | str | os.PathLike[str] | None, session: Session | None = None) -> CatalogReader:
    """The one place a catalog argument is dispatched: a ``CatalogReader`` for a ``Catalog`` object, a
    path (file, world directory, cases file), a compiled store (a ``.db`` file or a ``postgresql://``
    URL), a reader already opened, or None for the default catalog.

    The CLI and the servers call it once, at the edge; ``chainret.pipeline.ask`` calls it at its entry, so a
    ``Catalog`` or a path still works there. An in-memory catalog's caches live in ``session``.
    """
    if isinstance(catalog, (str, os.PathLike)) or catalog is None:
        if catalog is not None and is_store_spec(catalog):
            return open_reader(catalog)
        from chainret.catalog.load import load_world
        from chainret.store.memory import MemoryStore

        path = catalog_path(catalog)
        return MemoryStore(load_world(path).catalog, str(path.resolve()), session)
    if isinstance(catalog, Catalog) or session is not None:  # (an opened reader, the usual case, needs no import)
        from chainret.store.memory import MemoryStore

        if isinstance(catalog, Catalog):
            return MemoryStore(catalog, session=session)
        if isinstance(catalog, MemoryStore) and catalog.session is not session:
            return MemoryStore(catalog.catalog, catalog.location, session)  # the caller's session holds the caches
    return catalog
