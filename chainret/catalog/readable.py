"""What a reader may know of a catalog: readable documents, known entities, the reader's own catalog.

The permission promise is stated against one reference: *the catalog with every document the
reader may not read removed*. Whatever a reader is shown (an answer, a refusal, a candidate list,
an ambiguity, the catalog's identity) must be derivable from that catalog alone, so nothing shown
can tell a reader that restricted records exist. This module builds that catalog and the two facts
the engine needs from it without building it:

* ``readable_docs(cat, reader)``: the document versions (every view) the reader may read.
* ``known_entities(cat, reader)``: an entity is known to a reader when some relation it takes part
  in (subject or object) is supported by a document version the reader may read. An entity that
  occurs only in restricted or removed documents is unknown: it cannot be resolved, listed as a
  candidate or named in a refusal. An entity in no relation at all is unknown to everyone (after
  the restricted documents are removed it would be mentioned nowhere, so this is the only rule
  under which the reader's view of the full catalog equals the reduced catalog).
* ``declared_entities(cat, reader)``: an entity an importer's document *declares*
  (``Entity.declared_in``: a Backstage descriptor with no ``spec.owner``) is in the reduced catalog
  when the reader may read that document, even in no relation: its document is still there. It is
  not a start entity (``known_entities`` decides that), but a refusal may say it has no relation
  (``chainret.query.declared``). One declared only by documents the reader may not read stays unknown.
* ``reader_catalog(cat, reader)``: the reduced catalog itself (documents the reader may read, their
  relations, views limited to them, known entities). Its digest is the catalog identity shown to
  that reader: it does not change when only text the reader may not read changes.

These take a ``Catalog``: ``chainret.store.memory.MemoryStore`` answers the catalog reader's
``readable_docs``, ``reader_store`` and ``reader_digest`` with them, and a compiled store answers
the same questions from its tables. A caller holding a ``CatalogReader`` asks the reader.

Results are memoised per catalog object (catalogs are frozen) in a ``chainret.core.session.Session``
(the caller's, else the default one); the cache holds the catalog itself so an ``id()`` is never
confused with a later catalog's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from chainret.catalog.models import Catalog, Entity, View, next_view_name
from chainret.core.session import Session, default_session

_T = TypeVar("_T")


def _memo(cat: Catalog, kind: str, reader: str, build: Callable[[], _T], session: Session | None) -> _T:
    sess = session if session is not None else default_session()
    return sess.memo(sess.readers, (id(cat), kind, reader), cat, build)


def readable_docs(cat: Catalog, reader: str, *, session: Session | None = None) -> frozenset[str]:
    """Refs (``source/document@version``) of every document version ``reader`` may read, any view."""
    return _memo(cat, "docs", reader, lambda: frozenset(d.ref for d in cat.documents if d.readable_by(reader)), session)


def known_entities(cat: Catalog, reader: str, *, session: Session | None = None) -> frozenset[str]:
    """Entity IDs that take part in a relation supported by a document version ``reader`` may read."""

    def build() -> frozenset[str]:
        docs = readable_docs(cat, reader, session=session)
        known: set[str] = set()
        for r in cat.relations:
            if r.support.doc_ref in docs:
                known.add(r.subject)
                known.add(r.object)
        return frozenset(known)

    return _memo(cat, "entities", reader, build, session)


def declared_entities(cat: Catalog, reader: str, *, session: Session | None = None) -> frozenset[str]:
    """Entity IDs that a document ``reader`` may read (some version) declares (``Entity.declared_in``;
    a header's label, with no document, declares nothing: it is not a record the entity came from)."""

    def build() -> frozenset[str]:
        ids = readable_doc_ids(cat, reader, session=session)
        return frozenset(e.id for e in cat.entities if any(s.document and s.document in ids for s in e.declared_in))

    return _memo(cat, "declared", reader, build, session)


def reads_within(cat: Catalog, reader: str, other: str, *, session: Session | None = None) -> bool:
    """True when every document version ``reader`` may read is readable by ``other`` as well."""
    return reader == other or readable_docs(cat, reader, session=session) <= readable_docs(cat, other, session=session)


def readable_doc_ids(cat: Catalog, reader: str, *, session: Session | None = None) -> frozenset[str]:
    """Document IDs (``source/document``, no version) of which ``reader`` may read some version."""
    docs = readable_docs(cat, reader, session=session)
    return _memo(cat, "doc_ids", reader, lambda: frozenset(d.doc_id for d in cat.documents if d.ref in docs), session)


def hides_names(cat: Catalog, reader: str, *, session: Session | None = None) -> bool:
    """True when some entity label comes only from documents ``reader`` may not read (``Entity.as_read_by``)."""
    ids = readable_doc_ids(cat, reader, session=session)
    return _memo(cat, "hides_names", reader,
                 lambda: any(e.declared_in and e.as_read_by(ids) is not e for e in cat.entities), session)


def narrowed(cat: Catalog, reader: str, *, session: Session | None = None) -> bool:
    """Does ``reader`` know the catalog's entities or views otherwise than it has them? (Some label
    comes only from documents they may not read, or a view is left out: ``reader_views``.)
    A request for such a viewer runs over their reduced catalog, not the whole one filtered."""

    def build() -> bool:
        if hides_names(cat, reader, session=session):
            return True
        return len(reader_views(cat.views, readable_docs(cat, reader, session=session))) != len(cat.views)

    return _memo(cat, "narrowed", reader, build, session)


def reader_narrowed(reader: object, viewer: str) -> bool:
    """``narrowed`` of a catalog reader: held in memory (``MemoryStore``), its names and views; a compiled store
    answers the same two questions from its tables (``SQLStore.hides_names``, ``SQLStore.reader_views``)."""
    cat = getattr(reader, "catalog", None)
    if isinstance(cat, Catalog):
        return narrowed(cat, viewer, session=getattr(reader, "session", None))
    hides = getattr(reader, "hides_names", None)
    if hides is not None and hides(viewer):
        return True
    narrows = getattr(reader, "narrows_views", None)  # (a compiled store: from the rows its compile kept)
    if narrows is not None:
        return bool(narrows(viewer))
    views = getattr(reader, "reader_views", None)
    return views is not None and len(views(viewer)) != len(getattr(reader, "views", ()))


BUILT_FROM = re.compile(r"built from \d+ documents \(\d+ new versions\)")


def reader_views(views: list[View], docs: frozenset[str]) -> list[View]:
    """The views as a reader who may read ``docs`` (refs) sees them: what the reduced catalog's views are.

    Each keeps only the documents the reader may read. A view whose readable documents are exactly
    those of the view before it (by ``order``) is left out: it was added by a change the reader may
    not read, and the catalog with those documents deleted never had it (its ``current`` mark passes
    to the view kept in its place). A build's description (``built from N documents (M new
    versions)``) is counted again over the readable documents: M is those in no earlier view. Where a
    view is left out and the catalog's views are named as a build names them (``next_view_name``:
    ``v1``, ``v2``, ...), the views kept are named so again: a reader is shown ``v1, v2``, never the
    ``v1, v3`` that would tell them a view they may not see lies between."""
    return [v for v, _ in reader_view_pairs(views, docs)]


def reader_view_names(views: list[View], docs: frozenset[str]) -> dict[str, str]:
    """The name each of ``reader_views`` is shown by -> its name in the catalog (a compiled store reads by the latter)."""
    return {v.name: name for v, name in reader_view_pairs(views, docs)}


def _built_names(names: list[str]) -> list[str]:
    """``names`` with each ``v<n>`` name given again by ``next_view_name`` in this order (others as they are)."""
    out: list[str] = []
    for name in names:
        out.append(next_view_name(out) if re.fullmatch(r"v\d+", name) else name)
    return out


def reader_view_pairs(views: list[View], docs: frozenset[str]) -> list[tuple[View, str]]:
    """``reader_views`` with the catalog's name of each (the one home of the rule, for both)."""
    if all(d in docs for v in views for d in v.documents):
        return [(v, v.name) for v in views]
    kept: dict[str, View] = {}
    previous: tuple[str, ...] | None = None
    previous_all: set[str] = set()
    before: set[str] = set()
    last = ""
    for v in sorted(views, key=lambda v: (v.order, v.name)):
        mine = [d for d in v.documents if d in docs]
        changed_unreadably = set(v.documents) != previous_all  # (two views of the same documents are two views to all)
        previous_all = set(v.documents)
        if previous is not None and set(mine) == set(previous) and changed_unreadably:
            if v.current:
                kept[last] = kept[last].model_copy(update={"current": True})
            continue
        update: dict[str, object] = {}
        if len(mine) != len(v.documents):
            update["documents"] = mine
            if BUILT_FROM.fullmatch(v.description):
                update["description"] = f"built from {len(mine)} documents ({len(set(mine) - before)} new versions)"
        kept[v.name] = View.model_construct(**{**dict(v), **update}) if update else v
        previous, last = tuple(mine), v.name
        before.update(mine)
    out = [(kept[v.name], v.name) for v in views if v.name in kept]
    if len(out) == len(views):
        return out
    names = [v.name for v in views]
    shown = _built_names([name for _, name in out]) if _built_names(names) == names else [name for _, name in out]
    orders = _kept_orders(views, [name for _, name in out])
    return [(v if (v.name, v.order) == (new, orders.get(v.order, v.order)) else
             v.model_copy(update={"name": new, "order": orders.get(v.order, v.order)}), name)
            for (v, name), new in zip(out, shown, strict=True)]


def _kept_orders(views: list[View], kept: list[str]) -> dict[int, int]:
    """Each view's ``order`` -> the order a reader is shown, where the catalog's views are ordered as a build
    orders them (1, 2, ... in the file's order): the kept views 1, 2, ... again, and a view left out the
    order of the next view kept (what the catalog without it would have given its import). Else unchanged."""
    if [v.order for v in views] != list(range(1, len(views) + 1)):
        return {}
    out: dict[int, int] = {}
    n = 0
    pending: list[int] = []
    for v in views:
        pending.append(v.order)
        if v.name in kept:
            n += 1
            out.update(dict.fromkeys(pending, n))
            pending = []
    out.update(dict.fromkeys(pending, n + 1))
    return out


def reader_since(views: list[View], docs: frozenset[str]) -> dict[int, int]:
    """``NameSource.since`` (a view's order) -> its value in the reader's catalog (``_kept_orders``; {} when unchanged)."""
    pairs = reader_view_pairs(views, docs)
    return {} if len(pairs) == len(views) else _kept_orders(views, [name for _, name in pairs])


def reader_entity(entity: Entity, ids: frozenset[str], since: dict[int, int]) -> Entity:
    """An entity as a reader of documents ``ids`` (IDs) knows it: ``Entity.as_read_by``, each source's ``since``
    numbered as in their views (``reader_since``). The one home for ``reader_catalog`` and the stream compiler."""
    shown = entity.as_read_by(ids)
    if not since or not any(s.since is not None and since.get(s.since, s.since) != s.since for s in shown.declared_in):
        return shown
    sources = [s if s.since is None else s.model_copy(update={"since": since.get(s.since, s.since)}) for s in shown.declared_in]
    return Entity.model_construct(**{**dict(shown), "declared_in": sources})


def reader_catalog(cat: Catalog, reader: str, *, session: Session | None = None) -> Catalog:
    """The catalog with every document ``reader`` may not read removed (and what only it held).

    Besides documents, relations and entities: the entity labels only those documents declare
    (``Entity.as_read_by``) and the views only those documents made (``reader_views``).
    Built with ``model_construct``: the records are the original (already validated) objects.
    """

    def build() -> Catalog:
        docs = readable_docs(cat, reader, session=session)
        known = known_entities(cat, reader, session=session) | declared_entities(cat, reader, session=session)
        named = hides_names(cat, reader, session=session)
        if len(docs) == len(cat.documents) and len(known) == len(cat.entities) and not named:
            return cat
        ids = readable_doc_ids(cat, reader, session=session)
        since = reader_since(cat.views, docs)
        fields = dict(cat)
        fields.update(
            entities=[reader_entity(e, ids, since) for e in cat.entities if e.id in known],
            documents=[d for d in cat.documents if d.ref in docs],
            relations=[r for r in cat.relations if r.support.doc_ref in docs],
            views=reader_views(cat.views, docs),
        )
        return Catalog.model_construct(_fields_set=cat.model_fields_set, **fields)

    return _memo(cat, "catalog", reader, build, session)


def reader_digest(cat: Catalog, reader: str, *, session: Session | None = None) -> str:
    """The catalog identity shown to ``reader``: the digest of ``reader_catalog(cat, reader)``."""
    return reader_catalog(cat, reader, session=session).digest()  # the reduced catalog computes its digest once
