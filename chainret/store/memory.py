"""The in-memory store: today's ``Catalog`` objects (YAML worlds), and the caches every store goes through.

``catalog_digest``, ``cached_view`` and ``hop_world`` (moved here from ``chainret.ask``, which
re-exports them) take a ``Catalog`` or a compiled store: a Catalog gets the in-memory view, BM25
index and relation flags it always had (cached by digest, view and principal); a store answers
with its own view and hop world. ``MemoryStore`` is the in-memory path behind the store interface.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from chainret.catalog.models import Catalog, functional_names
from chainret.catalog.readable import clear_cache
from chainret.catalog.views import CatalogView, open_view
from chainret.hops import HopWorld, Rel
from chainret.search import LexicalIndex
from chainret.store.base import is_store, view_codes


# -- catalog, view and index caching ----------------------------------------------------------
# Catalogs are frozen, so a digest, a view and the index built for it never go stale. Keys hold
# the catalog object itself so an id() is never reused for another catalog while cached. A hit
# must be for the same catalog object. One lock guards the three (the server runs requests in
# threads); building happens outside it, so two threads may build the same entry once each.
_CACHE_SIZE = 16
_DIGESTS: OrderedDict[int, tuple[Catalog, str]] = OrderedDict()
_VIEWS: OrderedDict[tuple[str, str | None, str], CatalogView] = OrderedDict()
_WORLDS: OrderedDict[tuple[str, str, str], tuple[Catalog, HopWorld]] = OrderedDict()
_LOCK = threading.Lock()


def _remember(cache: OrderedDict[Any, Any], key: Any, value: Any) -> Any:
    with _LOCK:
        cache[key] = value
        cache.move_to_end(key)
        while len(cache) > _CACHE_SIZE:
            cache.popitem(last=False)
    return value


def _recall(cache: OrderedDict[Any, Any], key: Any) -> Any:
    with _LOCK:
        hit = cache.get(key)
        if hit is not None:
            cache.move_to_end(key)
        return hit


def clear_caches() -> None:
    """Forget every cached digest, view and hop world (and the readable-catalog memo)."""
    with _LOCK:
        _DIGESTS.clear()
        _VIEWS.clear()
        _WORLDS.clear()
    clear_cache()


def catalog_digest(cat: Catalog | Any) -> str:
    """``cat.digest()``, memoised per catalog object (it serialises the whole catalog); a store's recorded digest."""
    if not isinstance(cat, Catalog):
        return str(cat.digest())
    hit = _recall(_DIGESTS, id(cat))
    if hit is not None and hit[0] is cat:
        return hit[1]
    return _remember(_DIGESTS, id(cat), (cat, cat.digest()))[1]


def cached_view(cat: Catalog | Any, view: str | None, principal: str) -> CatalogView | Any:
    """``open_view`` with its lookups kept across requests on the same catalog (a store's own view)."""
    if not isinstance(cat, Catalog):
        if isinstance(cat, MemoryStore):
            cat = cat.catalog
        elif is_store(cat):
            return cat.view(view, principal)
    key = (catalog_digest(cat), view, principal)
    hit = _recall(_VIEWS, key)
    if hit is not None and hit.catalog is cat:
        return hit
    return _remember(_VIEWS, key, open_view(cat, view, principal))


def hop_world(cv: CatalogView | Any) -> HopWorld:
    """The engine's input for one (catalog, view, principal): readable units indexed, relation flags.

    Cached by catalog digest, view and principal: building the BM25 index is the expensive part.
    """
    if not isinstance(cv, CatalogView):
        return cv.catalog.hop_world(cv)
    key = (catalog_digest(cv.catalog), cv.view_name, cv.principal)
    hit = _recall(_WORLDS, key)
    if hit is not None and hit[0] is cv.catalog:
        return hit[1]
    index = LexicalIndex(cv.catalog.search_texts(cv.unit_texts()))  # prose-supported units also carry the IDs they name
    functional = functional_names(cv.catalog.predicates)
    relations_of = cv.catalog.relations_of
    flags: dict[str, Rel] = {}

    def flag(rel: Any) -> Rel:  # relation status is computed only for relations a request touches
        if rel.id not in flags:
            flags[rel.id] = relation_flags(cv, rel)
        return flags[rel.id]

    world = HopWorld(
        index,
        functional=functional,
        in_unit=lambda ref: [flag(r) for r in sorted(cv.relations_in_unit(ref), key=lambda r: r.id)],
        of_subject=lambda s, p: [flag(r) for r in sorted(relations_of(s, p), key=lambda r: r.id)],
    )
    return _remember(_WORLDS, key, (cv.catalog, world))[1]


def relation_flags(cv: CatalogView, rel: Any) -> Rel:
    """A catalog relation as the engine sees it in this view for this principal."""
    st = cv.relation_status(rel)
    current, eligible = view_codes(st.reasons)
    unit = cv.supporting_unit(rel)
    sup = rel.support
    return Rel(
        id=rel.id,
        subject=rel.subject,
        predicate=rel.predicate,
        object=rel.object,
        unit_ref=unit.ref if unit is not None else None,
        source=sup.source,
        document=sup.document,
        version=sup.version,
        representation=sup.representation,
        digest=sup.digest or "",
        span=(sup.span[0], sup.span[1]),
        quote=sup.quote,
        current=current,
        eligible=eligible,
        valid=st.valid,
        why_not=",".join(st.reasons) or None,
        support_kind=sup.kind,
    )


class MemoryStore:
    """A loaded catalog behind the store interface: ``view`` and ``hop_world`` are the cached ones above."""

    is_chainret_store = True
    kind = "memory"

    def __init__(self, catalog: Catalog, location: str = "") -> None:
        self.catalog = catalog
        self.world = catalog.world
        self.location = location

    def digest(self) -> str:
        return catalog_digest(self.catalog)

    def view(self, name: str | None, principal: str = "public") -> CatalogView:
        return cached_view(self.catalog, name, principal)

    def hop_world(self, view: CatalogView) -> HopWorld:
        return hop_world(view)

    def close(self) -> None:
        pass
