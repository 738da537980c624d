"""A compiled SQLite store lists the document versions a reader may read as the catalog in memory does
(``SQLStore.readable_docs``: one row of refs joined by a newline, where it read a row per ref: issue 47)."""

from __future__ import annotations

from pathlib import Path

from store_worlds import seed_versions

from chainret.catalog.load import default_catalog_path, load_world
from chainret.catalog.models import Catalog
from chainret.catalog.readable import readable_docs
from chainret.store import compile_store, open_store

READERS = ("public", "auditor", "finance", "no-such-reader")


def _same_as_memory(cat: Catalog, db: Path) -> None:
    compile_store(cat, db)
    store = open_store(db)
    for reader in READERS:
        assert store.readable_docs(reader) == readable_docs(cat, reader), reader


def test_every_reader_reads_in_a_store_what_it_reads_in_memory(tmp_path: Path) -> None:
    default = load_world(default_catalog_path()).catalog
    _same_as_memory(default, tmp_path / "default.db")
    for i, cat in enumerate(seed_versions()):
        _same_as_memory(cat, tmp_path / f"seed{i}.db")
    # (not a vacuous equality: readers differ, and the public reads some of the catalog, not all of it)
    assert set() < readable_docs(default, "public") < readable_docs(default, "auditor")


def test_a_reader_of_nothing_reads_nothing(tmp_path: Path) -> None:
    """Every document restricted to the auditor: the public's list is empty (no row to join: SQL's NULL)."""
    default = load_world(default_catalog_path()).catalog
    closed = default.model_copy(update={"documents": [
        d.model_copy(update={"visibility": "restricted", "principals": ["auditor"]}) for d in default.documents]})
    assert readable_docs(closed, "public") == frozenset() and readable_docs(closed, "auditor")
    _same_as_memory(closed, tmp_path / "closed.db")
