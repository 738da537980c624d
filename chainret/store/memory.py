"""The in-memory store: a loaded ``Catalog`` (YAML world) behind the catalog reader interface.

Its views and hop worlds are the session-cached ones of ``chainret.store.caches``; what a reader may
read of it is ``chainret.catalog.readable``'s, memoised in the same session.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager

from chainret.store.caches import cached_view, hop_world
from chainret.catalog import readable
from chainret.catalog.models import Catalog, Entity, Pattern, Predicate, Relation, SourceDocument, Unit, View
from chainret.catalog.views import CatalogView
from chainret.engine.hops import HopWorld
from chainret.core.session import Session
from chainret.store.base import CatalogReader, ViewReader, revision_token


class MemoryStore:
    """A loaded catalog as a ``CatalogReader``: ``view`` and ``hop_world`` are ``chainret.store.caches``' (in ``session``)."""

    is_chainret_store = True
    kind = "memory"

    def __init__(self, catalog: Catalog, location: str = "", session: Session | None = None) -> None:
        self.catalog = catalog
        self.location = location
        self.session = session

    # -- catalog-wide records (the Catalog's own) ---------------------------------------------------
    @property
    def world(self) -> str:
        return self.catalog.world

    @property
    def description(self) -> str:
        return self.catalog.description

    @property
    def patterns(self) -> Sequence[Pattern]:
        return self.catalog.patterns

    @property
    def predicates(self) -> Sequence[Predicate]:
        return self.catalog.predicates

    @property
    def predicates_by_name(self) -> Mapping[str, Predicate]:
        return self.catalog.predicates_by_name

    @property
    def views(self) -> Sequence[View]:
        return self.catalog.views

    @property
    def views_by_name(self) -> Mapping[str, View]:
        return self.catalog.views_by_name

    @property
    def current_view(self) -> View | None:
        return self.catalog.current_view

    @property
    def relations_by_id(self) -> Mapping[str, Relation]:
        return self.catalog.relations_by_id

    @property
    def documents(self) -> Sequence[SourceDocument]:
        return self.catalog.documents

    @property
    def documents_by_ref(self) -> Mapping[str, SourceDocument]:
        return self.catalog.documents_by_ref

    def document_visibility(self, refs: Sequence[str]) -> dict[str, str]:
        by_ref = self.catalog.documents_by_ref
        return {r: by_ref[r].visibility for r in refs if r in by_ref}

    @property
    def entities(self) -> Sequence[Entity]:
        return self.catalog.entities

    def entity(self, entity_id: str) -> Entity | None:
        return self.catalog.entities_by_id.get(entity_id)

    def unit(self, ref: str) -> Unit | None:
        return self.catalog.unit(ref)

    def digest(self) -> str:
        return self.catalog.digest()

    # -- views, hops and readers --------------------------------------------------------------------
    def view(self, name: str | None, principal: str = "public") -> CatalogView:
        return cached_view(self.catalog, name, principal, self.session)

    def hop_world(self, view: ViewReader) -> HopWorld:
        if not isinstance(view, CatalogView):
            raise TypeError(f"a memory store runs the hops of its own views, not of {type(view).__name__}")
        return hop_world(view, self.session)

    def readable_docs(self, reader: str) -> frozenset[str]:
        return readable.readable_docs(self.catalog, reader, session=self.session)

    def principals(self) -> frozenset[str]:
        """Every principal a document version of the catalog names (``*`` is everyone, not a name)."""
        return frozenset(p for d in self.catalog.documents for p in d.principals if p != "*")

    def reader_store(self, reader: str) -> MemoryStore:
        cat = readable.reader_catalog(self.catalog, reader, session=self.session)
        return self if cat is self.catalog else MemoryStore(cat, self.location, self.session)

    def reader_digest(self, reader: str) -> str:
        return readable.reader_digest(self.catalog, reader, session=self.session)

    def revision(self, viewer: str | None) -> str:
        """A catalog file keeps no history: its revision is always the first (``1.``) of the viewer's identity."""
        return revision_token(1, self.digest() if viewer is None else self.reader_digest(viewer))

    def read_scope(self, principal: str | None = None) -> AbstractContextManager[object]:
        return contextlib.nullcontext()

    def close(self) -> None:
        pass


def _conforms(memory: MemoryStore) -> CatalogReader:
    """(For mypy: a MemoryStore is a CatalogReader.)"""
    return memory
