"""Entities a readable document declares, and the unit that declares each: the proof of "has no owner".

An importer's entity carries the documents that declare it (``Entity.declared_in``): a Backstage
Component's descriptor file, even when the descriptor states no relation (no ``spec.owner``). Such an
entity is in the reader's reduced catalog (``chainret.catalog.readable.declared_entities``) but is
no start entity (it takes part in no relation the reader may read), so a request that names it is
refused as having no relation, citing the declaration, rather than as naming nothing.

A compiled store (schema 6) keeps the same sources (``chainret.store.schema.entity_rows``) and answers
the same two questions from its tables (``SQLView.declared_entities``), so a refusal and the coverage
report are the same over every store; a store of an older schema keeps none (recompile it).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from chainret.catalog.models import Catalog, Entity, Unit, normalize_name
from chainret.catalog.readable import declared_entities, known_entities


class Declaration(NamedTuple):
    """Where a view declares an entity: the document version, and its paragraph unit when found."""

    doc_ref: str
    unit: Unit | None

    def cite(self) -> dict[str, str]:
        """``{"document"}``, with ``"unit"`` and its first line (``"text"``: the file and lines) when found."""
        out = {"document": self.doc_ref}
        if self.unit is not None:
            out |= {"unit": self.unit.ref, "text": self.unit.text.split("\n", 1)[0]}
        return out


class Declarations:
    """Where ``cv``'s view declares entities: per document ID, its version in the view that the principal
    may read, and that version's entity paragraphs by reference (built once, for many entities)."""

    def __init__(self, cv: Any) -> None:
        # (the importer's paragraph heads: imported here, so an ask that refuses nothing never loads the importers)
        from chainret.sources.backstage import declared_ref

        self.docs: dict[str, tuple[str, dict[str, Unit]]] = {d.doc_id: (d.ref, {}) for d in cv.documents()}
        by_ref = {ref: heads for ref, heads in self.docs.values()}
        for u in cv.units():  # (the units of the documents above: a catalog's ``units_of`` each, or a store's rows)
            if (ref := declared_ref(u.text)) and u.doc_ref in by_ref:
                by_ref[u.doc_ref][ref.casefold()] = u

    def of(self, entity: Entity) -> list[Declaration]:
        """The versions in the view of the documents that declare ``entity``, each with its paragraph.

        A rendered descriptor document (one with entity paragraphs) declares the entity in this
        version only when it has the entity's paragraph (``declared_in`` names document IDs, and a
        later version may add or drop the entity); another importer's document is cited whole."""
        refs = {a.casefold() for a in (entity.name, *entity.aliases)}
        out = []
        for s in entity.declared_in:
            hit = self.docs.get(s.document) if s.document else None
            if hit is None:
                continue
            ref, heads = hit
            unit = next((u for r, u in heads.items() if r in refs), None)
            if unit is not None or not heads:
                out.append(Declaration(ref, unit))
        return list(dict.fromkeys(out))


def declarations(cv: Any, entity: Entity) -> list[Declaration]:
    """``Declarations(cv).of(entity)``: where one entity is declared in ``cv``'s view."""
    return Declarations(cv).of(entity)


def declared_of(cv: Any, text: str | None = None, type_: str | None = None) -> list[Entity]:
    """Entities that a document the principal may read declares, as ``cv``'s reader knows them (catalog
    order); with ``text``: those named ``text`` (of ``type_``) that take part in no relation the principal
    may read. The one place that asks a catalog in memory or a compiled store (``SQLView.declared_entities``)."""
    cat = cv.catalog
    if not isinstance(cat, Catalog):
        find = getattr(cv, "declared_entities", None)
        return list(find(text, type_)) if find is not None else []
    session = getattr(cv, "session", None)
    declared = declared_entities(cat, cv.principal, session=session)
    if not declared:
        return []
    if text is None:
        return [e for e in cat.entities if e.id in declared]
    known = known_entities(cat, cv.principal, session=session)
    return [e for e in cat.names_index(type_).get(normalize_name(text), [])
            if e.id in declared and e.id not in known and (type_ is None or e.type == type_)]


def declared_unrelated(cv: Any, text: str, type_: str | None) -> list[tuple[Entity, list[Declaration]]]:
    """Entities named ``text`` (of ``type_``) that a document the principal may read in this view
    declares but that take part in no relation the principal may read, with their declarations."""
    hits = declared_of(cv, text, type_)
    out: list[tuple[Entity, list[Declaration]]] = []
    index = Declarations(cv) if hits else None
    for e in sorted(hits, key=lambda e: e.id):
        where = index.of(e) if index is not None else []
        if where:
            out.append((e, where))
    return out
