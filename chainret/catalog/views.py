"""Permission-aware, read-only views of a catalog: what one principal may use in one view.

``open_view(catalog, view=None, principal="public") -> CatalogView``. ``view=None`` is the
catalog's current view; an unknown view raises ``UsageError``. A ``CatalogView`` offers:

- ``view_name``, ``principal``, ``view`` (the ``View`` record), ``catalog``;
- ``documents()``: the document versions of the view that the principal may read;
- ``units()``: the units of those documents (``Unit``: ref, doc_ref, start, end, text), in
  catalog document order. Restricted or removed text never appears here, so a search built on
  ``units()`` cannot see or be ranked by it. ``unit(ref)`` returns one (None if not readable);
  ``unit_texts()``
  the same units as ``(ref, text)`` pairs, cheap enough to index 100k units;
- ``relations()``: every relation record, with ``relation_status(rel_or_id) -> Eligibility``:
  ``eligible`` and stable ``reasons``: ``invalid_digest``, ``span_mismatch``, ``clause_mismatch``,
  ``prose_mismatch``, ``representation_mismatch``, ``domain_mismatch``, ``range_mismatch`` (the record itself is
  invalid, in any view), ``not_current`` (its document is not in this view), ``superseded`` (another
  version of its document is in this view), ``removed``, ``restricted`` (not readable by this
  principal). ``eligible_relations()`` keeps the eligible ones;
- ``relations_in_unit(ref)``: relation records whose support span lies inside that unit (any status,
  ordered by span start): how a returned search row is turned into candidate hops;
  ``supporting_unit(rel_or_id)``: the unit that holds a relation's clause (readable or not);
- ``current_relations(subject, predicate)``: eligible relations of that subject and predicate in
  this view for this principal (the catalog-level contradiction check; it may see relations no
  search returned, which is why the engine records it as an assumption);
- ``resolve(text, type=None) -> list[Entity]``: canonical ID, alias or display name
  (case-insensitive, whitespace-collapsed) -> entities the principal may know (they occur in a
  document the principal may read), sorted by ID; several = ambiguous; ``knows(id)``;
- ``entity(id)`` (None if unknown), ``predicate(name)``.

Entities, predicates and patterns are catalog-wide; views select document versions.
"""

from __future__ import annotations

import re
import weakref
from datetime import date
from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from chainret.core.bulk import paused_gc
from chainret.catalog.defects import relation_defects
from chainret.catalog.models import (
    Catalog,
    Entity,
    Predicate,
    Relation,
    SourceDocument,
    Unit,
    View,
    normalize_name,
    unit_doc,
    unit_ref,
    unit_spans,
)
from chainret.catalog.readable import known_entities
from chainret.core.codes import DefectCode, ViewCode
from chainret.core.errors import UsageError
from chainret.core.session import Session

if TYPE_CHECKING:
    from chainret.catalog.names import NameLookup

INVALID_CODES = tuple(DefectCode)  # defined in chainret/core/codes.py
VIEW_CODES = tuple(ViewCode)


class Eligibility(NamedTuple):
    """Whether a relation may advance a hop in this view for this principal, and why not."""

    eligible: bool
    reasons: list[str]

    @property
    def valid(self) -> bool:
        """False when the record itself is invalid (a control), whatever the view."""
        return not any(r in INVALID_CODES for r in self.reasons)


_norm = normalize_name  # whitespace-collapsed, case-folded


class CatalogView:
    """One catalog seen through one view by one principal. Cheap to build; cached lookups."""

    def __init__(self, catalog: Catalog, view: View, principal: str = "public", session: Session | None = None) -> None:
        self.catalog = catalog
        self.view = view
        self.principal = principal
        # Whose cache holds what the principal may know (None: the default session). A weak reference:
        # the session caches this view, and a cycle would keep both alive until a garbage collection.
        self._session = weakref.ref(session) if session is not None else None

    @property
    def session(self) -> Session | None:
        return self._session() if self._session is not None else None

    @property
    def view_name(self) -> str:
        return self.view.name

    @property
    def shown_name(self) -> str:
        """The view's name as the reader of this catalog is shown it (its catalog's own name here)."""
        return self.view.name

    # -- documents and units --------------------------------------------------------------------
    @cached_property
    def _in_view(self) -> set[str]:
        return set(self.view.documents)

    @cached_property
    def _docs_in_view(self) -> set[str]:
        """Document ids (``source/document``) with some version in this view."""
        return {d.doc_id for d in self.catalog.documents if d.ref in self._in_view}

    def documents(self) -> list[SourceDocument]:
        return [d for d in self.catalog.documents if d.ref in self._in_view and d.readable_by(self.principal)]

    @cached_property
    def _readable_refs(self) -> set[str]:
        return {d.ref for d in self.documents()}

    @cached_property
    def _units(self) -> list[Unit]:
        with paused_gc():
            return [u for d in self.documents() for u in self.catalog.units_of(d.ref)]

    def units(self) -> list[Unit]:
        return list(self._units)

    def unit_texts(self) -> list[tuple[str, str]]:
        """``(ref, text)`` of ``units()`` without building ``Unit`` records (what the search index needs)."""
        docs = self.catalog.documents_by_ref
        out: list[tuple[str, str]] = []
        with paused_gc():
            for d in self.documents():
                ref = d.ref
                text = docs[ref].text
                spans = unit_spans(text)
                refs = [unit_ref(ref, i) for i in range(1, len(spans) + 1)]
                out.extend(zip(refs, [text[start:end] for start, end in spans]))
        return out

    def unit(self, ref: str) -> Unit | None:
        if unit_doc(ref) not in self._readable_refs:
            return None
        return self.catalog.unit(ref)

    # -- relations --------------------------------------------------------------------------------
    def relations(self) -> list[Relation]:
        return list(self.catalog.relations)

    def relation_status(self, relation: Relation | str) -> Eligibility:
        rel = self.catalog.relations_by_id[relation] if isinstance(relation, str) else relation
        cached = self._status_cache.get(rel.id)
        if cached is not None and self.catalog.relations_by_id.get(rel.id) is rel:
            return cached
        reasons: list[str] = [*relation_defects(self.catalog, rel), *self.view_reasons(rel)]
        status = Eligibility(eligible=not reasons, reasons=reasons)
        self._status_cache[rel.id] = status
        return status

    def view_reasons(self, rel: Relation) -> tuple[str, ...]:
        """What this view and principal add to a record's own defects (``relation_status``): ``superseded``
        or ``not_current``, else ``removed`` or ``restricted``; empty when the view shows it to the principal.
        (``chainret.catalog.checks`` asks it of every record, with each record's defects found once.)"""
        ref = rel.support.doc_ref
        if ref not in self._in_view:
            doc_id = f"{rel.support.source}/{rel.support.document}"
            return (ViewCode.SUPERSEDED if doc_id in self._docs_in_view else ViewCode.NOT_CURRENT,)
        doc = self.catalog.documents_by_ref.get(ref)
        if doc is not None and doc.visibility == "removed":
            return (ViewCode.REMOVED,)
        if doc is not None and not doc.readable_by(self.principal):
            return (ViewCode.RESTRICTED,)
        return ()

    @cached_property
    def _status_cache(self) -> dict[str, Eligibility]:
        return {}

    def eligible_relations(self) -> list[Relation]:
        return [r for r in self.catalog.relations if self.relation_status(r).eligible]

    def relations_in_unit(self, unit_ref: str) -> list[Relation]:
        return self.catalog.relations_in_unit(unit_ref)

    def supporting_unit(self, relation: Relation | str) -> Unit | None:
        rel = self.catalog.relations_by_id[relation] if isinstance(relation, str) else relation
        return self.catalog.supporting_unit(rel)

    def current_relations(self, subject: str, predicate: str) -> list[Relation]:
        return [r for r in self.catalog.relations_of(subject, predicate) if self.relation_status(r).eligible]

    # -- entities -----------------------------------------------------------------------------------
    def resolve(self, text: str, type: str | None = None) -> list[Entity]:  # noqa: A002 - API name
        # Entities are catalog-wide, so the name index lives on the catalog (one per type, lazily).
        # Only entities the principal may know (chainret.catalog.readable): an entity that occurs
        # only in documents the principal may not read is never resolved, listed or named.
        hits = self.catalog.names_index(type).get(_norm(text), [])
        known = known_entities(self.catalog, self.principal, session=self.session)
        return sorted((e for e in hits if (type is None or e.type == type) and e.id in known), key=lambda e: e.id)

    def knows(self, entity_id: str) -> bool:
        """True when the principal may know this entity (it occurs in a document they may read)."""
        return entity_id in known_entities(self.catalog, self.principal, session=self.session)

    def entity(self, entity_id: str) -> Entity | None:
        return self.catalog.entities_by_id.get(entity_id)

    def entities_of(self, ids: Sequence[str]) -> dict[str, Entity]:
        """The records of ``ids`` that exist (``entity`` of each)."""
        return {i: e for i in ids if (e := self.entity(i)) is not None}

    def name_lookup(self) -> NameLookup:
        """The catalog's name index (candidates only: check ``knows`` before use)."""
        return self.catalog.name_lookup

    def predicate(self, name: str) -> Predicate | None:
        return self.catalog.predicates_by_name.get(name)


# Patterns, compiled by ``re`` when a view is first named by a date or a commit (not on an ask's path).
_DATE = r"^\d{4}-\d{2}-\d{2}$"
_COMMIT_VIEW = r"^(\d{4}-\d{2}-\d{2})-([0-9a-f]{7,40})$"  # chainret catalog history: <date>-<short hash>
_HASH = r"^[0-9a-f]{7,40}$"
# A view whose name is its date: a history's <date>-<hash>, a day, a month or a year (its first day).
_DATED_VIEW = r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?:-[0-9a-f]{7,40})?$"


def view_day(view: View) -> date | None:
    """The day a view's name says it begins: ``2025-12-15-66c6522`` (``chainret catalog history``) and
    ``2025-12-15`` that day, ``2026-03`` the first of the month, ``2026`` the first of the year; None for a
    name that carries no date (``v2``, ``final``)."""
    m = re.match(_DATED_VIEW, view.name)
    if m is None:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1))
    except ValueError:
        return None


def view_at(views: Iterable[View], day: date) -> View | None:
    """The last view (by order) that began on or before ``day``: what a request about that day is answered in.

    The one rule for "as of a date", whether the date came from ``--view YYYY-MM-DD`` or from a request's
    words (``chainret.query.when``). None when every dated view begins after ``day`` or no view names a date.
    """
    before = [v for v in views if (d := view_day(v)) is not None and d <= day]
    return max(before, key=lambda v: (v.order, view_day(v)), default=None)


def as_of_view(views: Iterable[View], requested: str) -> View | None:
    """A view named by a date or a commit.

    A date ``YYYY-MM-DD`` selects the latest view (by order) that began on or before it (``view_at``: views
    named by their date, such as the ``<commit date>-<short hash>`` views of ``chainret catalog history``);
    a commit hash (7 to 40 hex digits) selects the view of that commit. None when nothing matches (or a hash
    prefix is ambiguous).
    """
    if re.match(_DATE, requested):
        try:
            return view_at(views, date.fromisoformat(requested))
        except ValueError:
            return None
    dated = [(m, v) for v in views if (m := re.match(_COMMIT_VIEW, v.name))]
    if re.match(_HASH, requested):
        hits = [v for m, v in dated if m.group(2).startswith(requested) or requested.startswith(m.group(2))]
        return hits[0] if len(hits) == 1 else None
    return None


def open_view(
    catalog: Catalog, view: str | None = None, principal: str = "public", session: Session | None = None
) -> CatalogView:
    """The catalog as ``principal`` sees it in ``view`` (None = the current view); ``session`` caches."""
    if view is None:
        chosen = catalog.current_view
        if chosen is None:
            raise UsageError(f"catalog world {catalog.world!r} declares no views")
    else:
        chosen = find_view(catalog, view)
    return CatalogView(catalog, chosen, principal, session)


def find_view(catalog: Any, requested: str) -> View:
    """The view ``requested`` names: a view's name, else a date or a commit (``as_of_view``).

    The one resolver of a view argument (``--view``, ``catalog diff A B``); a UsageError (exit 2)
    says why nothing matched.
    """
    return pick_view(list(catalog.views), requested)  # a Catalog's, or a compiled store's (chainret.store)


def pick_view(views: list[View], requested: str) -> View:
    """``find_view`` among ``views`` (a reader's reduced views, ``SQLStore.view_name_for``)."""
    chosen = next((v for v in views if v.name == requested), None) or as_of_view(views, requested)
    if chosen is None:
        raise UsageError(_no_view(views, requested))
    return chosen


def _no_view(views: list[View], requested: str) -> str:
    """Why ``requested`` names no view: a date before the first commit, else an unknown name (the closest ones)."""
    from chainret.catalog.suggest import did_you_mean

    names = [v.name for v in views]
    first = first_dated_view(views)
    if first is None and re.match(_DATE, requested):
        return f"no view of this catalog is named by its date, so none is known to hold on {requested}; it has: {', '.join(names) or 'none'}"
    if first is not None and re.match(_DATE, requested):
        what = "commit" if re.match(_COMMIT_VIEW, first.name) else "view"
        return f"no {what} on or before {requested}: the first view of this catalog is {first.name}"
    return f"unknown view {requested!r}{did_you_mean(requested, names)}; this catalog has: {', '.join(names) or 'none'}"


def first_dated_view(views: Iterable[View]) -> View | None:
    """The earliest view whose name carries a date (``view_day``), or None when none does."""
    return min((v for v in views if view_day(v) is not None), key=lambda v: (view_day(v), v.order), default=None)


def check_view(catalog: Any, view: str | None) -> None:
    """UsageError (exit 2) for a view the catalog does not have, with the closest names."""
    if view is not None:
        find_view(catalog, view)
