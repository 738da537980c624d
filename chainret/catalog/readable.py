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

from collections.abc import Callable
from typing import TypeVar

from chainret.catalog.models import Catalog, View
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


def reads_within(cat: Catalog, reader: str, other: str, *, session: Session | None = None) -> bool:
    """True when every document version ``reader`` may read is readable by ``other`` as well."""
    return reader == other or readable_docs(cat, reader, session=session) <= readable_docs(cat, other, session=session)


def reader_catalog(cat: Catalog, reader: str, *, session: Session | None = None) -> Catalog:
    """The catalog with every document ``reader`` may not read removed (and what only it held).

    Built with ``model_construct``: the records are the original (already validated) objects.
    """

    def build() -> Catalog:
        docs = readable_docs(cat, reader, session=session)
        known = known_entities(cat, reader, session=session)
        if len(docs) == len(cat.documents) and len(known) == len(cat.entities):
            return cat
        views = [
            v if all(d in docs for d in v.documents) else View.model_construct(
                **{**dict(v), "documents": [d for d in v.documents if d in docs]}
            )
            for v in cat.views
        ]
        fields = dict(cat)
        fields.update(
            entities=[e for e in cat.entities if e.id in known],
            documents=[d for d in cat.documents if d.ref in docs],
            relations=[r for r in cat.relations if r.support.doc_ref in docs],
            views=views,
        )
        return Catalog.model_construct(_fields_set=cat.model_fields_set, **fields)

    return _memo(cat, "catalog", reader, build, session)


def reader_digest(cat: Catalog, reader: str, *, session: Session | None = None) -> str:
    """The catalog identity shown to ``reader``: the digest of ``reader_catalog(cat, reader)``."""
    return reader_catalog(cat, reader, session=session).digest()  # the reduced catalog computes its digest once
