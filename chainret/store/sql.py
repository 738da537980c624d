"""The query layer shared by the SQLite and PostgreSQL stores, and the view the engine reads.

``SQLStore`` holds a backend (``rows(sql, params, view, principal)``) and answers the store
interface with one bounded query per question. Every query that can touch restricted text filters
on the view and principal itself (SQLite has no roles); PostgreSQL additionally enforces the same
rule with row-level security for the application role (``chainret.store.postgres``).

BM25Plus is computed here from integers the store keeps (corpus size and total token count per
view and principal class, per-unit token counts, term frequencies), with the operations of
``LexicalIndex._scores`` in the same order, so scores are bit-identical and ties fall in catalog
unit order, exactly as the in-memory index ranks them.

Threads: a store (and its views) may be read by several threads at once (``chainret serve
--threads``; the SQLite backend gives each thread its own connection). The caches are plain dicts,
unlocked: each read or write of one is atomic under the GIL, two threads may fill the same entry
once each (same value), and since ``_bounded`` may clear a cache at any moment, code that fills a
cache uses what it read, never a second look-up of the entry it just stored.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from functools import cached_property
from typing import Any

from chainret.catalog.models import functional_names
from chainret.errors import UsageError
from chainret.codes import DefectCode, ViewCode
from chainret.search import bm25plus, bm25plus_idf
from chainret.store.base import view_codes

_DEFECTS = frozenset(DefectCode)

# A document ordinal readable by the principal in the view (``?`` = view name, principal).
READABLE = (
    "EXISTS (SELECT 1 FROM view_docs vd JOIN readers rd ON rd.doc_ord = vd.doc_ord "
    "WHERE vd.view_name = ? AND vd.doc_ord = {col} AND rd.principal IN ('*', ?))"
)
# An entity the principal may know: subject or object of a relation supported by a document version
# they may read, in any view (``?`` = principal, principal): ``chainret.catalog.readable.known_entities``.
KNOWN = (
    "(EXISTS (SELECT 1 FROM relations kr JOIN readers kd ON kd.doc_ord = kr.doc_ord WHERE kr.subject = e.id AND kd.principal IN ('*', ?)) "
    "OR EXISTS (SELECT 1 FROM relations kr JOIN readers kd ON kd.doc_ord = kr.doc_ord WHERE kr.object = e.id AND kd.principal IN ('*', ?)))"
)
# ``within`` (a reader): the document is also readable by that reader (``?`` = reader). A view opened
# for a principal *within* a narrower viewer's catalog (``chainret.catalog.readable.reader_catalog``)
# adds it to every condition, so the store answers as the catalog with the viewer's unreadable
# documents removed.
WITHIN = " AND EXISTS (SELECT 1 FROM readers rw WHERE rw.doc_ord = {col} AND rw.principal IN ('*', ?))"
IN_VIEW = "EXISTS (SELECT 1 FROM view_docs vd WHERE vd.view_name = ? AND vd.doc_ord = {col})"
# A relation's status in a view (``?`` = view, view, principal, view, principal): the visibility of its
# document if that version is in the view, whether another version of the document is, whether the
# principal may read it, and the clause text where the principal may read it.
STATUS_COLS = (
    "(SELECT vd.visibility FROM view_docs vd WHERE vd.view_name = ? AND vd.doc_ord = r.doc_ord), "
    "(SELECT count(*) FROM view_docs vd WHERE vd.view_name = ? AND vd.doc_id = r.source || '/' || r.document), "
    "(SELECT count(*) FROM readers rd WHERE rd.doc_ord = r.doc_ord AND rd.principal IN ('*', ?)), "
    "(SELECT q.quote FROM relation_quotes q WHERE q.rel_ord = r.ord AND " + READABLE.format(col="q.doc_ord") + ")"
)
REL_COLS = (
    "r.ord, r.id, r.subject, r.predicate, r.object, r.source, r.document, r.version, r.representation, "
    "r.digest, r.span_start, r.span_end, r.note, r.doc_ord, r.unit_ref, r.defects, r.kind"
)


class Backend:
    """A database connection: ``rows`` runs one read for (view, principal); SQL uses ``?`` placeholders."""

    location = ""

    def rows(self, sql: str, params: Sequence[Any] = (), view: str | None = None, principal: str | None = None) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def read_scope(self, principal: str | None = None) -> AbstractContextManager[Any]:
        """The reads of one request (for ``principal``) as one unit (PostgreSQL: one transaction); nothing by default."""
        return contextlib.nullcontext()


class _Relations(Mapping[str, Any]):
    """``catalog.relations_by_id`` as a lazy lookup (what coverage and projection use)."""

    def __init__(self, store: SQLStore) -> None:
        self.store = store

    def __getitem__(self, rid: str) -> Any:
        rel = self.get(rid)
        if rel is None:
            raise KeyError(rid)
        return rel

    def get(self, rid: str, default: Any = None) -> Any:  # type: ignore[override]
        row = self.store._relation_row(rid)
        return default if row is None else self.store._relation_model(row)

    def __contains__(self, rid: object) -> bool:
        if not isinstance(rid, str):
            return False
        return rid in self.store._known_ids or self.store._relation_row(rid) is not None

    def __iter__(self) -> Iterator[str]:
        return (r[0] for r in self.store.db.rows("SELECT id FROM relations ORDER BY ord"))

    def __len__(self) -> int:
        return int(self.store.db.rows("SELECT count(*) FROM relations")[0][0])


class _Documents(Mapping[str, Any]):
    """``catalog.documents_by_ref`` as a lazy lookup (what trace verification reads)."""

    def __init__(self, store: SQLStore, reader: EvidenceReader | None = None) -> None:
        self.store = store
        self.reader = reader

    def __getitem__(self, ref: str) -> Any:
        from chainret.catalog.models import SourceDocument

        sql = "SELECT source, document, version, representation, title, text, digest, visibility, principals FROM documents WHERE ref = ?"
        rows = self.store.db.rows(sql, (ref,)) if self.reader is None else self.reader.rows(sql, (ref,), ref)
        if not rows:
            raise KeyError(ref)
        s, d, v, r, t, x, g, vis, p = rows[0]
        return SourceDocument(source=s, document=d, version=v, representation=r, title=t, text=x, digest=g,
                              visibility=vis, principals=json.loads(p))

    def get(self, ref: str, default: Any = None) -> Any:  # type: ignore[override]
        try:
            return self[ref]
        except KeyError:
            return default

    def __contains__(self, ref: object) -> bool:
        return isinstance(ref, str) and bool(self.store.db.rows("SELECT 1 FROM document_meta WHERE ref = ?", (ref,)))

    def __iter__(self) -> Iterator[str]:
        return (r[0] for r in self.store.db.rows("SELECT ref FROM document_meta ORDER BY ord"))

    def __len__(self) -> int:
        return int(self.store.db.rows("SELECT count(*) FROM document_meta")[0][0])


class EvidenceReader:
    """A store as trace verification reads cited text: as one principal, in a view holding each document.

    PostgreSQL shows text only inside a request's view and to a role that may read it; verifying a
    trace reads every cited document version that way (as the trace's principal, in some view that
    holds that version), so an untampered trace verifies through the same policies that answered it.
    SQLite ignores the principal (it has no roles) and reads as before.
    """

    def __init__(self, store: SQLStore, principal: str) -> None:
        self._store = store
        self.principal = principal
        self.documents_by_ref = _Documents(store, self)

    def view_of(self, doc_ref: str) -> str | None:
        rows = self._store.db.rows(
            "SELECT vd.view_name FROM view_docs vd JOIN document_meta m ON m.ord = vd.doc_ord WHERE m.ref = ? ORDER BY vd.view_name LIMIT 1",
            (doc_ref,),
        )
        return str(rows[0][0]) if rows else None

    def rows(self, sql: str, params: Sequence[Any], doc_ref: str) -> list[tuple[Any, ...]]:
        view = self.view_of(doc_ref)
        if view is None:
            return []
        return self._store.db.rows(sql, params, view, self.principal)

    def unit(self, ref: str) -> Any | None:
        from chainret.catalog.models import unit_doc

        rows = self.rows("SELECT u.ref, u.doc_ref, u.idx, u.start_, u.end_, u.text FROM units u WHERE u.ref = ?", (ref,), unit_doc(ref))
        return _unit(rows[0]) if rows else None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


class SQLStore:
    """A compiled catalog in a SQL database. Duck-types the parts of ``Catalog`` the ask path reads."""

    is_chainret_store = True
    kind = "sql"

    def __init__(self, db: Backend) -> None:
        self.db = db
        self._meta = {k: v for k, v in db.rows("SELECT key, value FROM meta")}
        self.world: str = self._meta["world"]
        self.description: str = self._meta.get("description", "")
        self.format: str = self._meta.get("catalog_format", "chainret-catalog/1")
        self._views: dict[tuple[str | None, str], SQLView] = {}
        self._worlds: dict[tuple[str, str, str | None], Any] = {}
        self._corpus: dict[tuple[str, ...], tuple[int, int]] = {}
        self._rows_cache: dict[str, tuple[Any, ...] | None] = {}
        self._readable: dict[str, frozenset[str]] = {}
        self._readers: dict[str, ReaderStore] = {}
        self._known_ids: set[str] = set()  # relation ids some query returned (``relations_by_id`` membership)
        self.relations_by_id = _Relations(self)

    @property
    def location(self) -> str:
        return self.db.location

    def close(self) -> None:
        self.db.close()

    def read_scope(self, principal: str | None = None) -> AbstractContextManager[Any]:
        """One request's reads on one connection in one transaction (``chainret.store.base.read_scope``)."""
        return self.db.read_scope(principal)

    def digest(self) -> str:
        return self._meta["digest"]

    def evidence_as(self, principal: str) -> EvidenceReader:
        """This store as ``trace verify`` reads cited text for a trace asked as ``principal``."""
        return EvidenceReader(self, principal)

    # -- identity history and freshness ------------------------------------------------------------------
    @cached_property
    def _identities(self) -> dict[int, dict[str, str]]:
        by_seq: dict[int, dict[str, str]] = {}
        for seq, principal, digest in self.db.rows("SELECT seq, principal, digest FROM identities ORDER BY seq"):
            by_seq.setdefault(int(seq), {})[principal] = digest
        return by_seq

    def identity_history(self, viewer: str | None) -> list[str]:
        """The identities ``viewer`` was shown after each write, oldest first, repeats collapsed.

        None is the unprojected audit identity (the full catalog digest). A viewer no document named
        at some write was in the ``*`` class then.
        """
        out: list[str] = []
        for seq in sorted(self._identities):
            row = self._identities[seq]
            digest = row.get("") if viewer is None else row.get(viewer, row.get("*"))
            if digest is not None and (not out or out[-1] != digest):
                out.append(digest)
        return out

    def identities_ever(self) -> dict[str, set[str]]:
        """Every identity the store ever recorded -> the principal classes it was shown to."""
        out: dict[str, set[str]] = {}
        for row in self._identities.values():
            for principal, digest in row.items():
                out.setdefault(digest, set()).add(principal)
        return out

    def revision(self, viewer: str | None) -> str:
        """The opaque revision ``viewer`` is answered from (changes only when that viewer's identity does)."""
        from chainret.store.base import revision_token

        hist = self.identity_history(viewer)
        return revision_token(len(hist), hist[-1] if hist else self.digest())

    def generation(self) -> str:
        """A fresh (uncached) read that changes on every compile or update written to this store."""
        try:
            rows = self.db.rows("SELECT value FROM meta WHERE key = 'generation'")
        except Exception as exc:  # noqa: BLE001 - a store being replaced under us: report it as changed
            return f"unreadable:{type(exc).__name__}"
        return str(rows[0][0]) if rows else ""

    # -- catalog-wide records -----------------------------------------------------------------------
    @cached_property
    def patterns(self) -> list[Any]:
        from chainret.catalog.models import Pattern

        return [Pattern.model_validate_json(b) for (b,) in self.db.rows("SELECT body FROM patterns ORDER BY ord")]

    @cached_property
    def predicates(self) -> list[Any]:
        from chainret.catalog.models import Predicate

        rows = self.db.rows("SELECT name, domain, range_, cardinality, description FROM predicates ORDER BY ord")
        return [Predicate(name=n, domain=d, range=r, cardinality=c, description=s) for n, d, r, c, s in rows]

    @cached_property
    def predicates_by_name(self) -> dict[str, Any]:
        return {p.name: p for p in self.predicates}

    @cached_property
    def views(self) -> list[Any]:
        from chainret.catalog.models import View

        rows = self.db.rows("SELECT name, order_, current, documents, description FROM views ORDER BY ord")
        return [View(name=n, order=o, current=bool(c), documents=json.loads(d), description=s) for n, o, c, d, s in rows]

    @cached_property
    def view_names(self) -> list[str]:
        return [r[0] for r in self.db.rows("SELECT name FROM views ORDER BY ord")]

    @property
    def views_by_name(self) -> dict[str, Any]:
        return {v.name: v for v in self.views}

    @property
    def current_view(self) -> Any:
        name = self._meta.get("current_view")
        return self.views_by_name.get(name) if name else None

    @property
    def entities(self) -> list[Any]:
        """Every entity, in catalog order (reads the whole table: graph export, not the ask path)."""
        return [_entity(r) for r in self.db.rows("SELECT id, type, name, aliases, description FROM entities ORDER BY ord")]

    def entity(self, entity_id: str) -> Any | None:
        rows = self.db.rows("SELECT id, type, name, aliases, description FROM entities WHERE id = ?", (entity_id,))
        return _entity(rows[0]) if rows else None

    # -- what a reader may read (chainret.catalog.readable asks a store these) ----------------------------
    def readable_docs(self, reader: str) -> frozenset[str]:
        """Refs of every document version ``reader`` may read, any view (cached)."""
        hit = self._readable.get(reader)
        if hit is None:
            rows = self.db.rows(
                "SELECT m.ref FROM document_meta m JOIN readers rd ON rd.doc_ord = m.ord WHERE rd.principal IN ('*', ?)", (reader,)
            )
            hit = self._readable[reader] = frozenset(r[0] for r in rows)
        return hit

    def reader_store(self, reader: str) -> ReaderStore:
        """This catalog as ``reader`` may read it (``reader_catalog``): documents ``reader`` may not read removed."""
        hit = self._readers.get(reader)
        if hit is None:
            hit = self._readers[reader] = ReaderStore(self, reader)
        return hit

    def reader_digest(self, reader: str) -> str:
        """The catalog identity shown to ``reader`` (the digest of its reader catalog, computed at compile)."""
        return self._meta.get(f"reader_digest:{reader}") or self._meta["reader_digest:*"]

    def doc_ref_of(self, doc_ord: int) -> str | None:
        """A document version's ref by its ordinal (cached)."""
        if not hasattr(self, "_doc_refs"):
            self._doc_refs: dict[int, str] = {}
        hit = self._doc_refs.get(doc_ord)
        if hit is None:
            rows = self.db.rows("SELECT ref FROM document_meta WHERE ord = ?", (doc_ord,))
            hit = rows[0][0] if rows else None
            if hit is not None:
                _bounded(self._doc_refs, doc_ord, hit)
        return hit

    @property
    def documents(self) -> list[Any]:
        """Every document version's ref and visibility (no text; what ``holds_restricted`` reads)."""
        from types import SimpleNamespace

        rows = self.db.rows("SELECT ref, visibility FROM document_meta ORDER BY ord")
        return [SimpleNamespace(ref=r, visibility=v) for r, v in rows]

    @cached_property
    def documents_by_ref(self) -> _Documents:
        return _Documents(self)

    def unit(self, ref: str) -> Any | None:
        """A unit by ref, readable or not (where the database lets this connection read it)."""
        rows = self.db.rows("SELECT u.ref, u.doc_ref, u.idx, u.start_, u.end_, u.text FROM units u WHERE u.ref = ?", (ref,))
        return _unit(rows[0]) if rows else None

    # -- views ------------------------------------------------------------------------------------------
    def view(self, name: str | None, principal: str = "public") -> SQLView:
        """The view (None = the current one) for the principal; one object per (view, principal), cached."""
        chosen = self._meta.get("current_view") if name is None else name
        hit = self._views.get((chosen, principal))
        if hit is None:
            if name is None and not chosen:
                raise UsageError(f"catalog world {self.world!r} declares no views")
            if chosen not in self.view_names:
                from chainret.catalog.views import as_of_view

                dated = as_of_view(self.views, name) if name is not None else None  # a date or a commit
                if dated is None:
                    known = ", ".join(self.view_names) or "none"
                    raise UsageError(f"unknown view {name!r}; this catalog has: {known}")
                return self.view(dated.name, principal)
            hit = self._views[(chosen, principal)] = SQLView(self, chosen, principal)
        return hit

    def corpus(self, view: str, principal: str, within: str | None = None) -> tuple[int, int]:
        """(readable units, their total token count) for the view and principal (within a narrower viewer)."""
        key = (view, principal) if within is None else (view, principal, within)
        hit = self._corpus.get(key)
        if hit is None and within is not None:  # not precomputed: one pass over the view's units, then cached
            rows = self.db.rows(
                "SELECT count(*), sum(u.ntok) FROM units u WHERE " + READABLE.format(col="u.doc_ord") + WITHIN.format(col="u.doc_ord"),
                (view, principal, within), view, principal,
            )
            hit = self._corpus[key] = (int(rows[0][0] or 0), int(rows[0][1] or 0))
        if hit is None:
            rows = self.db.rows(
                "SELECT principal, size, total_len FROM corpus WHERE view_name = ? AND principal IN ('*', ?)",
                (view, principal),
            )
            by = {p: (int(s), int(t)) for p, s, t in rows}
            hit = self._corpus[key] = by.get(principal) or by.get("*") or (0, 0)
        return hit

    def hop_world(self, view: SQLView) -> Any:
        """The engine's input for (view, principal), backed by this store's queries (cached)."""
        from chainret.hops import HopWorld

        key = (view.view_name, view.principal, view.within)
        hit = self._worlds.get(key)
        if hit is None:
            functional = functional_names(self.predicates)
            hit = self._worlds[key] = HopWorld(
                StoreIndex(self, view.view_name, view.principal, prefetch=view.prefetch, within=view.within),
                functional=functional,
                in_unit=view.rels_in_unit,
                of_subject=view.rels_of,
                readable=lambda ref: True,  # ``rels_in_unit`` returns nothing for an unreadable unit
                entity=self.entity,
            )
        return hit

    # -- relation rows -----------------------------------------------------------------------------------
    def _relation_row(self, rid: str) -> tuple[Any, ...] | None:
        """The record's columns (``REL_COLS``) and its quote where readable without a view (cached)."""
        hit = self._rows_cache.get(rid, _MISSING)  # one lookup: another thread may clear the cache meanwhile
        if hit is not _MISSING:
            return hit  # type: ignore[return-value]
        rows = self.db.rows(
            f"SELECT {REL_COLS}, q.quote FROM relations r LEFT JOIN relation_quotes q ON q.rel_ord = r.ord WHERE r.id = ?", (rid,)
        )
        return _bounded(self._rows_cache, rid, rows[0] if rows else None)

    def _relation_model(self, row: tuple[Any, ...]) -> Any:
        from chainret.catalog.models import Relation, Support

        (o, rid, s, p, obj, src, doc, ver, rep, dig, a, b, note, _, _, _, kind, quote) = row[:18]
        sup = Support(source=src, document=doc, version=ver, representation=rep, digest=dig, span=(a, b), quote=quote or "", kind=kind)
        return Relation(id=rid, subject=s, predicate=p, object=obj, support=sup, note=note)


class _ReaderRelations(_Relations):
    """``relations_by_id`` of a reader catalog: only relations supported by documents the reader may read."""

    def __init__(self, store: SQLStore, reader: str) -> None:
        super().__init__(store)
        self.reader = reader

    def _ok(self, row: tuple[Any, ...] | None) -> bool:
        return row is not None and row[13] is not None and self.store.doc_ref_of(row[13]) in self.store.readable_docs(self.reader)

    def get(self, rid: str, default: Any = None) -> Any:  # type: ignore[override]
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

    def __init__(self, store: SQLStore, reader: str) -> None:
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

    def read_scope(self, principal: str | None = None) -> AbstractContextManager[Any]:
        return self.store.read_scope(principal)

    def digest(self) -> str:
        return self.store.reader_digest(self.reader)

    @cached_property
    def views(self) -> list[Any]:
        docs = self.store.readable_docs(self.reader)
        return [v if all(d in docs for d in v.documents) else v.model_copy(update={"documents": [d for d in v.documents if d in docs]})
                for v in self.store.views]

    @property
    def views_by_name(self) -> dict[str, Any]:
        return {v.name: v for v in self.views}

    @property
    def current_view(self) -> Any:
        return self.store.current_view

    def readable_docs(self, reader: str) -> frozenset[str]:
        return self.store.readable_docs(reader) & self.store.readable_docs(self.reader)

    def reader_digest(self, reader: str) -> str:
        if self.store.readable_docs(self.reader) <= self.store.readable_docs(reader):
            return self.digest()  # the reader's catalog of this catalog is this catalog
        raise UsageError(f"the identity {reader!r} is shown of the catalog as {self.reader!r} reads it is not recorded in the store")

    def reader_store(self, reader: str) -> Any:
        if self.store.readable_docs(self.reader) <= self.store.readable_docs(reader):
            return self
        return self.store.reader_store(reader) if self.store.readable_docs(reader) <= self.store.readable_docs(self.reader) else self._narrower(reader)

    def _narrower(self, reader: str) -> Any:
        raise UsageError(f"a catalog read by {self.reader!r} and by {reader!r} at once is not supported by a compiled store")

    def entity(self, entity_id: str) -> Any | None:
        view = self.view(None, self.reader)
        return self.store.entity(entity_id) if view.knows(entity_id) else None

    def view(self, name: str | None, principal: str = "public") -> SQLView:
        chosen = self.store.view(name, principal).view_name  # the same checks and messages
        hit = self._views.get((chosen, principal))
        if hit is None:
            hit = self._views[(chosen, principal)] = SQLView(self.store, chosen, principal, within=self.reader, catalog=self)
        return hit

    def hop_world(self, view: SQLView) -> Any:
        return self.store.hop_world(view)


CACHE_MAX = 200_000
_MISSING = object()


def _bounded(cache: dict[Any, Any], key: Any, value: Any) -> Any:
    """Remember ``value`` (the caches of a store are dropped whole when they grow past ``CACHE_MAX``)."""
    if len(cache) >= CACHE_MAX:
        cache.clear()
    cache[key] = value
    return value


def _entity(row: tuple[Any, ...]) -> Any:
    from chainret.catalog.models import Entity

    i, t, n, a, d = row
    return Entity(id=i, type=t, name=n, aliases=json.loads(a), description=d)


def _unit(row: tuple[Any, ...]) -> Any:
    from chainret.catalog.models import Unit

    ref, doc_ref, idx, s, e, text = row
    return Unit(ref=ref, doc_ref=doc_ref, index=idx, start=s, end=e, text=text)


class SQLView:
    """One store seen through one view by one principal: the ``CatalogView`` methods the ask path uses.

    A store object reads a snapshot: what a view has looked up (units, relation statuses and flags)
    is kept for the next request. Reopen the store to see an update written since.
    """

    def __init__(self, store: SQLStore, view: str, principal: str, within: str | None = None, catalog: Any = None) -> None:
        self.store = store
        self._name = view
        self.principal = principal
        self.within = within  # a narrower viewer whose catalog this view reads (None: the whole catalog)
        self._catalog = catalog if catalog is not None else store
        self._flags: dict[str, Any] = {}
        self._units: dict[str, Any] = {}
        self._status: dict[str, Any] = {}
        self._in_unit: dict[str, list[Any]] = {}

    @property
    def view_name(self) -> str:
        return self._name

    @property
    def catalog(self) -> Any:
        return self._catalog

    @property
    def view(self) -> Any:
        return self._catalog.views_by_name[self._name]

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.store.db.rows(sql, params, self._name, self.principal)

    def _vp(self) -> tuple[str, str]:
        return (self._name, self.principal)

    def _w(self, col: str) -> tuple[str, tuple[str, ...]]:
        """The ``WITHIN`` condition on ``col`` and its parameter (nothing for a whole-catalog view)."""
        return (WITHIN.format(col=col), (self.within,)) if self.within is not None else ("", ())

    def _readable(self, col: str) -> tuple[str, tuple[str, ...]]:
        """``READABLE`` (and ``WITHIN``) on ``col`` with their parameters."""
        w, wp = self._w(col)
        return READABLE.format(col=col) + w, (*self._vp(), *wp)

    # -- documents and units ----------------------------------------------------------------------------
    def documents(self) -> list[Any]:
        from chainret.catalog.models import SourceDocument

        rows = self._rows(
            "SELECT source, document, version, representation, title, text, digest, visibility, principals "
            "FROM documents d WHERE " + self._readable("d.ord")[0] + " ORDER BY d.ord",
            self._readable("d.ord")[1],
        )
        return [
            SourceDocument(source=s, document=d, version=v, representation=r, title=t, text=x, digest=g,
                           visibility=vis, principals=json.loads(p))
            for s, d, v, r, t, x, g, vis, p in rows
        ]

    def _fetch_units(self, refs: Sequence[str]) -> None:
        want = [r for r in dict.fromkeys(refs) if r not in self._units]
        if want:
            self._read_units(want)

    def _read_units(self, want: Sequence[str]) -> dict[str, Any]:
        """The readable units among ``want``, read now (and cached)."""
        rows = self._rows(
            f"SELECT u.ref, u.doc_ref, u.idx, u.start_, u.end_, u.text FROM units u WHERE u.ref IN ({_marks(want)}) AND "
            + self._readable("u.doc_ord")[0],
            (*want, *self._readable("u.doc_ord")[1]),
        )
        found = {r[0]: _unit(r) for r in rows}
        for ref in want:
            _bounded(self._units, ref, found.get(ref))
        return found

    def unit(self, ref: str) -> Any | None:
        """The unit if the principal may read it in this view, else None."""
        hit = self._units.get(ref, _MISSING)
        if hit is not _MISSING:
            return hit
        return self._read_units([ref]).get(ref)  # not re-read from the cache: another thread may clear it

    def units(self) -> list[Any]:
        rows = self._rows(
            "SELECT u.ref, u.doc_ref, u.idx, u.start_, u.end_, u.text FROM units u WHERE "
            + self._readable("u.doc_ord")[0] + " ORDER BY u.ord",
            self._readable("u.doc_ord")[1],
        )
        return [_unit(r) for r in rows]

    def unit_texts(self) -> list[tuple[str, str]]:
        return [(u.ref, u.text) for u in self.units()]

    # -- relations ---------------------------------------------------------------------------------------
    def _status_rows(self, where: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        """Relation rows with what their status in this view needs (``STATUS_COLS``), quote where readable."""
        w_vd, wp = self._w("vd.doc_ord")
        w_r, _ = self._w("r.doc_ord")
        status = (
            "(SELECT vd.visibility FROM view_docs vd WHERE vd.view_name = ? AND vd.doc_ord = r.doc_ord), "
            f"(SELECT count(*) FROM view_docs vd WHERE vd.view_name = ? AND vd.doc_id = r.source || '/' || r.document{w_vd}), "
            "(SELECT count(*) FROM readers rd WHERE rd.doc_ord = r.doc_ord AND rd.principal IN ('*', ?)), "
            "(SELECT q.quote FROM relation_quotes q WHERE q.rel_ord = r.ord AND " + READABLE.format(col="q.doc_ord") + ")"
        )
        rows = self._rows(
            f"SELECT {REL_COLS}, {status} FROM relations r WHERE ({where}){w_r}",
            (self._name, self._name, *wp, self.principal, *self._vp(), *params, *wp),
        )
        known = self.store._known_ids
        if len(known) >= CACHE_MAX:
            known.clear()
        for r in rows:
            _bounded(self._status, r[1], _reasons(r))
            known.add(r[1])
        return rows

    def relation_status(self, relation: Any) -> Any:
        from chainret.catalog.views import Eligibility

        rid = relation if isinstance(relation, str) else relation.id
        reasons = self._status.get(rid)
        if reasons is None:
            rows = self._status_rows("r.id = ?", (rid,))
            if not rows:
                raise KeyError(rid)
            reasons = _reasons(rows[0])
        return Eligibility(eligible=not reasons, reasons=list(reasons))

    def eligible_relations(self) -> list[Any]:
        return [r for r in self.relations() if self.relation_status(r).eligible]

    def relations(self) -> list[Any]:
        rows = self.store.db.rows(f"SELECT {REL_COLS}, q.quote FROM relations r LEFT JOIN relation_quotes q ON q.rel_ord = r.ord ORDER BY r.ord")
        return [self.store._relation_model(r) for r in rows]

    def supporting_unit(self, relation: Any) -> Any | None:
        """The unit holding the relation's clause (None where this store may not show it to the principal)."""
        rid = relation if isinstance(relation, str) else relation.id
        row = self.store._relation_row(rid)
        if row is None or row[14] is None or (self.within is not None and rid not in self._catalog.relations_by_id):
            return None
        if self._units.get(row[14]) is not None:
            return self._units[row[14]]
        rows = self._rows("SELECT u.ref, u.doc_ref, u.idx, u.start_, u.end_, u.text FROM units u WHERE u.ref = ?", (row[14],))
        return _unit(rows[0]) if rows else None

    def relations_in_unit(self, unit_ref: str) -> list[Any]:
        rows = self.store.db.rows(
            f"SELECT {REL_COLS}, q.quote FROM relations r LEFT JOIN relation_quotes q ON q.rel_ord = r.ord WHERE r.unit_ref = ?", (unit_ref,)
        )
        return [self.store._relation_model(r) for r in sorted(rows, key=lambda r: (r[10], r[1]))]

    def current_relations(self, subject: str, predicate: str) -> list[Any]:
        rows = self._status_rows("r.subject = ? AND r.predicate = ?", (subject, predicate))
        return [self.store._relation_model((*r[:17], r[20])) for r in sorted(rows, key=lambda r: r[0]) if not _reasons(r)]

    # -- the hop engine's two lookups ---------------------------------------------------------------------------
    def _flag(self, row: tuple[Any, ...]) -> Any:
        from chainret.hops import Rel
        from chainret.trace import Anchor

        rid = row[1]
        hit = self._flags.get(rid)
        if hit is not None:
            return hit
        reasons = _reasons(row)
        current, readable = view_codes(reasons)
        support = Anchor(
            unit_ref=row[14] or "", relation_id=rid, source=row[5], document=row[6], version=row[7],
            representation=row[8], digest=row[9] or "", span=(row[10], row[11]), quote=row[20] or "", support_kind=row[16],
        )
        rel = Rel(
            id=rid, subject=row[2], predicate=row[3], object=row[4], support=support, current=current, readable=readable,
            valid=not any(r in _DEFECTS for r in reasons), why_not=",".join(reasons) or None,
        )
        return _bounded(self._flags, rid, rel)

    def prefetch(self, refs: Sequence[str]) -> None:
        """Units and supported relations of a search's returned rows, two queries for all of them."""
        self._fetch_units(refs)
        want = [r for r in dict.fromkeys(refs) if r not in self._in_unit]
        if want:
            self._read_rels(want)

    def _read_rels(self, want: Sequence[str]) -> dict[str, list[Any]]:
        """The relations supported in each unit of ``want``, read now (and cached): callers use the
        result, not the cache, which another thread may clear in between (``_bounded``)."""
        rows = self._status_rows(f"r.unit_ref IN ({_marks(want)}) AND " + READABLE.format(col="r.doc_ord"), (*want, *self._vp()))
        # (``_status_rows`` adds the ``within`` condition)
        grouped: dict[str, list[Any]] = {ref: [] for ref in want}
        for r in sorted(rows, key=lambda r: r[1]):
            grouped[r[14]].append(self._flag(r))
        for ref, rels in grouped.items():
            _bounded(self._in_unit, ref, rels)
        return grouped

    def rels_in_unit(self, ref: str) -> list[Any]:
        """Relations supported in a readable unit, ordered by id, with their flags (none if unreadable)."""
        hit = self._in_unit.get(ref)
        return hit if hit is not None else self._read_rels([ref])[ref]

    def rels_of(self, subject: str, predicate: str) -> list[Any]:
        """Relations of (subject, predicate) whose document is in the view, ordered by id, with flags.

        Relations outside the view are left out: the engine uses this lookup only for current
        relations (usable ones elsewhere, withheld ones, opposing assignments), so the result is
        the same as over the whole catalog.
        """
        rows = self._status_rows(
            "r.subject = ? AND r.predicate = ? AND " + IN_VIEW.format(col="r.doc_ord"), (subject, predicate, self._name)
        )
        return [self._flag(r) for r in sorted(rows, key=lambda r: r[1])]

    # -- entities -------------------------------------------------------------------------------------------
    def resolve(self, text: str, type: str | None = None) -> list[Any]:  # noqa: A002 - API name
        """Entities named ``text`` that the principal may know (in a relation of a document they may read)."""
        from chainret.catalog.models import normalize_name

        known, kp = self._known()
        sql = (
            "SELECT DISTINCT e.id, e.type, e.name, e.aliases, e.description FROM names n JOIN entities e ON e.ord = n.entity_ord "
            f"WHERE n.key = ? AND {known}"
        )
        params: list[Any] = [normalize_name(text), *kp]
        if type is not None:
            sql += " AND n.type = ?"
            params.append(type)
        return sorted((_entity(r) for r in self._rows(sql, params)), key=lambda e: e.id)

    def knows(self, entity_id: str) -> bool:
        """True when the principal may know this entity (it occurs in a document they may read)."""
        known, kp = self._known()
        return bool(self._rows(f"SELECT 1 FROM entities e WHERE e.id = ? AND {known}", (entity_id, *kp)))

    def _known(self, principal: str | None = None) -> tuple[str, tuple[str, ...]]:
        """``KNOWN`` for the principal (or another reader), within the view's narrower viewer if any."""
        who = self.principal if principal is None else principal
        if self.within is None:
            return KNOWN, (who, who)
        w = WITHIN.format(col="kr.doc_ord")
        sql = KNOWN.replace("AND kd.principal IN ('*', ?))", f"AND kd.principal IN ('*', ?){w})")
        return sql, (who, self.within, who, self.within)

    def entity(self, entity_id: str) -> Any | None:
        return self._catalog.entity(entity_id)

    def predicate(self, name: str) -> Any | None:
        return self.store.predicates_by_name.get(name)


def _marks(items: Sequence[Any]) -> str:
    return ", ".join("?" for _ in items)


def _reasons(row: tuple[Any, ...]) -> list[str]:
    """``Eligibility.reasons`` of a relation row carrying ``STATUS_COLS`` (the codes of ``CatalogView.relation_status``)."""
    reasons = [c for c in row[15].split(",") if c]
    in_view, same_document, readable = row[17], row[18], row[19]
    if in_view is None:
        reasons.append(ViewCode.SUPERSEDED if same_document else ViewCode.NOT_CURRENT)
    elif in_view == "removed":
        reasons.append(ViewCode.REMOVED)
    elif not readable:
        reasons.append(ViewCode.RESTRICTED)
    return reasons


class StoreIndex:
    """BM25Plus over the units one principal may read in one view, answered by the store.

    Same scores, ranks and tie order as ``LexicalIndex`` over ``CatalogView.unit_texts()``.
    """

    def __init__(
        self, store: SQLStore, view: str, principal: str, *, prefetch: Callable[[list[str]], None] | None = None,
        within: str | None = None, k1: float = 1.5, b: float = 0.75, delta: float = 1.0,
    ) -> None:
        self.store, self.view, self.principal, self.prefetch, self.within = store, view, principal, prefetch, within
        self.k1, self.b, self.delta = k1, b, delta

    def __len__(self) -> int:
        return self.store.corpus(self.view, self.principal, self.within)[0]

    def search(self, query: str | Sequence[str], k: int) -> list[Any]:
        from chainret.search import SearchHit, query_tokens

        n_units, total = self.store.corpus(self.view, self.principal, self.within)
        if k <= 0 or not n_units:
            return []
        q = query_tokens(query)
        terms = sorted(set(q))
        if not terms:
            return []
        marks = ", ".join("?" for _ in terms)
        rows = self.store.db.rows(
            f"SELECT p.term, p.unit_ord, p.tf, u.ntok, u.ref FROM postings p JOIN units u ON u.ord = p.unit_ord "
            f"WHERE p.term IN ({marks}) AND " + READABLE.format(col="p.doc_ord")
            + (WITHIN.format(col="p.doc_ord") if self.within is not None else ""),
            (*terms, self.view, self.principal, *((self.within,) if self.within is not None else ())),
            self.view,
            self.principal,
        )
        if not rows:
            return []
        df: dict[str, int] = {}
        units: dict[int, tuple[str, int, dict[str, int]]] = {}
        for term, uo, tf, ntok, ref in rows:
            df[term] = df.get(term, 0) + 1
            units.setdefault(uo, (ref, ntok, {}))[2][term] = tf
        size = n_units or 1
        hits = rank_bm25plus(q, sorted(units.items()), df, size, total / size, k, self.k1, self.b, self.delta, SearchHit)
        if self.prefetch is not None:
            self.prefetch([h.ref for h in hits])
        return hits


def rank_bm25plus(
    query: Sequence[str],
    cands: Sequence[tuple[int, tuple[str, int, dict[str, int]]]],
    df: Mapping[str, int],
    size: int,
    avgdl: float,
    k: int,
    k1: float,
    b: float,
    delta: float,
    hit: Callable[..., Any],
) -> list[Any]:
    """``LexicalIndex.search``'s scoring and ordering over candidates given as integers, in corpus order."""
    idf = [bm25plus_idf(size, df.get(t, 0)) for t in query]
    scores = [bm25plus(idf, [tfs.get(t, 0) for t in query], ntok, avgdl, k1, b, delta) for _, (_, ntok, tfs) in cands]
    order = sorted(range(len(cands)), key=lambda j: (-scores[j], cands[j][0]))[:k]
    return [hit(cands[j][1][0], rank + 1, float(scores[j])) for rank, j in enumerate(order)]
