"""The caches a request goes through: a catalog's views and hop worlds, kept in the caller's ``Session``.

``cached_view`` and ``hop_world`` are the in-memory catalog's: a ``Catalog`` gets its view, BM25
index and relation flags, cached by digest, view and principal in a ``chainret.core.session.Session``.
``chainret.store.memory.MemoryStore`` answers the catalog reader's ``view`` and ``hop_world`` with
them; a compiled store has its own (a caller holding a ``CatalogReader`` asks the reader, never
these). They live here, beside the session that owns them, and not under ``chainret.store``, so a
request does not climb to the store package and back for them.
"""

from __future__ import annotations

from chainret.catalog.models import Catalog, Entity, Relation, functional_names
from chainret.catalog.views import CatalogView, open_view
from chainret.engine.hops import HopWorld
from chainret.engine.reader import IndexedReader, Rel
from chainret.engine.search import LexicalIndex
from chainret.core.session import Session, default_session
from chainret.store.base import ViewReader, view_codes
from chainret.trace.model import Anchor


# -- catalog, view and index caching ----------------------------------------------------------
# The caches belong to a Session (chainret.core.session): the CLI, the server and tests create their
# own; calls that pass none use default_session().
def clear_caches(session: Session | None = None) -> None:
    """Forget every cached view, hop world and reader fact of a session."""
    (session if session is not None else default_session()).clear()


def catalog_digest(cat: Catalog) -> str:
    """The catalog's identity: ``cat.digest()`` (computed once per catalog object)."""
    return cat.digest()


def cached_view(cat: Catalog, view: str | None, principal: str, session: Session | None = None) -> CatalogView:
    """``open_view`` with its lookups kept across requests on the same catalog."""
    sess = session if session is not None else default_session()
    return sess.memo(sess.views, (catalog_digest(cat), view, principal), cat, lambda: open_view(cat, view, principal, sess))


def hop_world(cv: CatalogView, session: Session | None = None) -> HopWorld:
    """The engine's input for one (catalog, view, principal): readable units indexed, relation flags.

    Cached by catalog digest, view and principal: building the BM25 index is the expensive part.
    """
    sess = session if session is not None else default_session()
    return sess.memo(sess.worlds, (catalog_digest(cv.catalog), cv.view_name, cv.principal), cv.catalog, lambda: _build_world(cv))


def _build_world(cv: CatalogView) -> HopWorld:
    return HopWorld(CatalogHopReader(cv))


class CatalogHopReader(IndexedReader):
    """The ``HopReader`` of an in-memory catalog's view: the readable units indexed (BM25Plus; prose-supported
    units also carry the IDs they name), and each relation's flags computed the first time a request touches it."""

    def __init__(self, cv: CatalogView) -> None:
        super().__init__(LexicalIndex(cv.catalog.search_texts(cv.unit_texts())), functional_names(cv.catalog.predicates))
        self.cv = cv
        self._flags: dict[str, Rel] = {}

    def _flag(self, rel: Relation) -> Rel:
        hit = self._flags.get(rel.id)
        if hit is None:
            hit = self._flags[rel.id] = relation_flags(self.cv, rel)
        return hit

    def in_unit(self, ref: str) -> list[Rel]:
        if ref not in self._refs:
            return []
        return [self._flag(r) for r in sorted(self.cv.relations_in_unit(ref), key=lambda r: r.id)]

    def of_subject(self, subject: str, predicate: str) -> list[Rel]:
        return [self._flag(r) for r in sorted(self.cv.catalog.relations_of(subject, predicate), key=lambda r: r.id)]

    def entity(self, entity_id: str) -> Entity | None:
        return self.cv.catalog.entities_by_id.get(entity_id)


def relation_flags(cv: ViewReader, rel: Relation) -> Rel:
    """A catalog relation as the engine sees it in this view for this principal."""
    st = cv.relation_status(rel)
    current, readable = view_codes(st.reasons)
    unit = cv.supporting_unit(rel)
    sup = rel.support
    return Rel(
        id=rel.id,
        subject=rel.subject,
        predicate=rel.predicate,
        object=rel.object,
        support=Anchor.model_construct(  # (a TrustedModel: the catalog's validated support, as it is)
            unit_ref=unit.ref if unit is not None else "",
            relation_id=rel.id,
            source=sup.source,
            document=sup.document,
            version=sup.version,
            representation=sup.representation,
            digest=sup.digest or "",
            span=(sup.span[0], sup.span[1]),
            quote=sup.quote,
            support_kind=sup.kind,
        ),
        current=current,
        readable=readable,
        valid=st.valid,
        why_not=",".join(st.reasons) or None,
    )
