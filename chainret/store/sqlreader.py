"""A SQL store as one reader may read it (``ReaderStore``) and as trace verification reads cited text (``EvidenceReader``)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from functools import cached_property
from typing import TYPE_CHECKING, Protocol, cast

from chainret.catalog.models import Entity, View
from chainret.core.errors import UsageError
from chainret.store.rowdecode import RelRow, SQLRow, _unit
from chainret.store.schema import UNIT_COLS, units_by_ref
from chainret.store.sqlrows import RowSource, _Relations
from chainret.engine.hops import HopWorld
from chainret.store.base import CatalogReader, DocumentMeta, ViewReader
from chainret.store.sqlview import SQLView

if TYPE_CHECKING:
    from chainret.catalog.models import Relation, SourceDocument, Unit, View, Visibility


class ReaderSource(RowSource, CatalogReader, Protocol):
    """What a reader store and an evidence reader read of their store (``SQLStore`` answers it)."""

    description: str
    format: str

    @property
    def view_names(self) -> list[str]: ...

    def reader_store(self, reader: str) -> ReaderStore: ...

    def view(self, name: str | None, principal: str = "public") -> SQLView: ...

    def view_name_for(self, name: str | None, reader: str | None) -> str: ...

    def reader_views(self, reader: str) -> list[View]: ...

    def reader_view_names(self, reader: str) -> dict[str, str]: ...


class _Documents(Mapping[str, "SourceDocument"]):
    """``catalog.documents_by_ref`` as a lazy lookup (what trace verification reads)."""

    def __init__(self, store: ReaderSource, reader: EvidenceReader | None = None) -> None:
        self.store = store
        self.reader = reader

    def __getitem__(self, ref: str) -> SourceDocument:
        from chainret.catalog.models import SourceDocument

        sql = "SELECT source, document, version, representation, title, text, digest, visibility, principals FROM documents WHERE ref = ?"
        rows = self.store.db.rows(sql, (ref,)) if self.reader is None else self.reader.rows(sql, (ref,), ref)
        if not rows:
            raise KeyError(ref)
        s, d, v, r, t, x, g, vis, p = cast("tuple[str, str, str, str, str, str, str, Visibility, str]", rows[0])
        return SourceDocument(source=s, document=d, version=v, representation=r, title=t, text=x, digest=g,
                              visibility=vis, principals=json.loads(p))

    def get(self, ref: str, default: SourceDocument | None = None) -> SourceDocument | None:  # type: ignore[override]
        try:
            return self[ref]
        except KeyError:
            return default

    def __contains__(self, ref: object) -> bool:
        return isinstance(ref, str) and bool(self.store.db.rows("SELECT 1 FROM document_meta WHERE ref = ?", (ref,)))

    def __iter__(self) -> Iterator[str]:
        return (str(r[0]) for r in self.store.db.rows("SELECT ref FROM document_meta ORDER BY ord"))

    def __len__(self) -> int:
        return int(cast(int, self.store.db.rows("SELECT count(*) FROM document_meta")[0][0]))


class EvidenceReader:
    """A store as trace verification reads cited text: as one principal, in a view holding each document.

    PostgreSQL shows text only inside a request's view and to a role that may read it; verifying a
    trace reads every cited document version that way (as the trace's principal, in some view that
    holds that version), so an untampered trace verifies through the same policies that answered it.
    SQLite ignores the principal (it has no roles) and reads as before.
    """

    def __init__(self, store: ReaderSource, principal: str) -> None:
        self._store = store
        self.principal = principal
        self.documents_by_ref = _Documents(store, self)

    def view_of(self, doc_ref: str) -> str | None:
        rows = self._store.db.rows(
            "SELECT vd.view_name FROM view_docs vd JOIN document_meta m ON m.ord = vd.doc_ord WHERE m.ref = ? ORDER BY vd.view_name LIMIT 1",
            (doc_ref,),
        )
        return str(rows[0][0]) if rows else None

    def rows(self, sql: str, params: Sequence[object], doc_ref: str) -> list[SQLRow]:
        view = self.view_of(doc_ref)
        if view is None:
            return []
        return self._store.db.rows(sql, params, view, self.principal)

    def unit(self, ref: str) -> Unit | None:
        from chainret.catalog.models import unit_doc

        named, np = units_by_ref([ref], self._store.doc_ords, based=self._store.based_units)
        rows = self.rows(f"SELECT {UNIT_COLS} FROM units u WHERE {named}", np, unit_doc(ref))
        return _unit(rows[0]) if rows else None

    def __getattr__(self, name: str) -> object:
        return getattr(self._store, name)



class _ReaderRelations(_Relations):
    """``relations_by_id`` of a reader catalog: only relations supported by documents the reader may read."""

    def __init__(self, store: ReaderSource, reader: str) -> None:
        super().__init__(store)
        self.reader = reader

    def _ok(self, row: RelRow | None) -> bool:
        return row is not None and row.doc_ord is not None and self.store.doc_ref_of(row.doc_ord) in self.store.readable_docs(self.reader)

    def get(self, rid: str, default: Relation | None = None) -> Relation | None:  # type: ignore[override]
        row = self.store._relation_row(rid)
        return self.store._relation_model(row) if row is not None and self._ok(row) else default

    def __contains__(self, rid: object) -> bool:
        return isinstance(rid, str) and self._ok(self.store._relation_row(rid))

    def __iter__(self) -> Iterator[str]:
        return (rid for rid in super().__iter__() if rid in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class ReaderStore:
    """A compiled catalog as one reader may read it: ``reader_catalog(catalog, reader)`` without building it.

    Every view it opens adds "and ``reader`` may read the document" to each condition (documents,
    units, search corpus and statistics, relations, known entities), so a request run under a wider
    principal for a narrower viewer sees exactly the viewer's catalog, as the in-memory engine does.
    """

    is_chainret_store = True
    kind = "reader"

    def __init__(self, store: ReaderSource, reader: str) -> None:
        self.store, self.reader = store, reader
        self.world, self.description, self.format = store.world, store.description, store.format
        self.patterns, self.predicates, self.predicates_by_name = store.patterns, store.predicates, store.predicates_by_name
        self.view_names = store.view_names
        self.relations_by_id = _ReaderRelations(store, reader)
        self._views: dict[tuple[str, str], SQLView] = {}

    @property
    def location(self) -> str:
        return self.store.location

    def close(self) -> None:
        pass

    def read_scope(self, principal: str | None = None) -> AbstractContextManager[object]:
        return self.store.read_scope(principal)

    def digest(self) -> str:
        return self.store.reader_digest(self.reader)

    @cached_property
    def views(self) -> list[View]:
        return self.store.reader_views(self.reader)  # the reduced catalog's views, as reader_catalog has them

    @property
    def views_by_name(self) -> dict[str, View]:
        return {v.name: v for v in self.views}

    @property
    def current_view(self) -> View | None:
        """The reader's current view (the one ``view(None)`` opens), by the name they are shown."""
        if not self.views:
            return None
        real = self.store.view_name_for(None, self.reader)
        return self.views_by_name.get(next((s for s, r in self.store.reader_view_names(self.reader).items() if r == real), real))

    def readable_docs(self, reader: str) -> frozenset[str]:
        return self.store.readable_docs(reader) & self.store.readable_docs(self.reader)

    def principals(self) -> frozenset[str]:
        """The principals the reader's documents name: those that read a restricted version the reader reads."""
        mine = self.store.readable_docs(self.reader) - self.store.readable_docs("public")
        return frozenset(p for p in self.store.principals() if self.store.readable_docs(p) & mine)

    def reader_digest(self, reader: str) -> str:
        if self.store.readable_docs(self.reader) <= self.store.readable_docs(reader):
            return self.digest()  # the reader's catalog of this catalog is this catalog
        raise UsageError(f"the identity {reader!r} is shown of the catalog as {self.reader!r} reads it is not recorded in the store")

    def reader_store(self, reader: str) -> ReaderStore:
        if self.store.readable_docs(self.reader) <= self.store.readable_docs(reader):
            return self
        return self.store.reader_store(reader) if self.store.readable_docs(reader) <= self.store.readable_docs(self.reader) else self._narrower(reader)

    def _narrower(self, reader: str) -> ReaderStore:
        raise UsageError(f"a catalog read by {self.reader!r} and by {reader!r} at once is not supported by a compiled store")

    def entity(self, entity_id: str) -> Entity | None:
        view = self.view(None, self.reader)
        return self.store.entity(entity_id) if view.knows(entity_id) else None

    def view(self, name: str | None, principal: str = "public") -> SQLView:
        chosen = self.store.view_name_for(name, self.reader)  # among this reader's views, as the store resolves them
        hit = self._views.get((chosen, principal))
        if hit is None:
            shown = next((s for s, real in self.store.reader_view_names(self.reader).items() if real == chosen), chosen)
            hit = self._views[(chosen, principal)] = SQLView(self.store, chosen, principal, within=self.reader, catalog=self,
                                                             shown=shown)
        return hit

    def hop_world(self, view: ViewReader) -> HopWorld:
        return self.store.hop_world(view)

    @property
    def entities(self) -> Sequence[Entity]:
        """Every entity of the store, in catalog order (a caller shows only those ``view(...).knows``)."""
        return self.store.entities

    @property
    def documents(self) -> list[DocumentMeta]:
        """The document versions this reader may read (ref and visibility, as the store lists them)."""
        docs = self.store.readable_docs(self.reader)
        return [d for d in self.store.documents if d.ref in docs]

    def document_visibility(self, refs: Sequence[str]) -> dict[str, str]:
        """``documents``' visibility of each of ``refs`` this reader may read (the store's lookup, narrowed)."""
        docs = self.store.readable_docs(self.reader)
        return {r: v for r, v in self.store.document_visibility(refs).items() if r in docs}

    def revision(self, viewer: str | None) -> str:
        return self.store.revision(viewer)


def _conforms(reader: ReaderStore) -> CatalogReader:
    """(For mypy: a reader store is a CatalogReader.)"""
    return reader
