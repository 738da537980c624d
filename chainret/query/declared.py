"""Entities a readable document declares, and the unit that declares each: the proof of "has no owner".

An importer's entity carries the documents that declare it (``Entity.declared_in``): a Backstage
Component's descriptor file, even when the descriptor states no relation (no ``spec.owner``). Such an
entity is in the reader's reduced catalog (``chainret.catalog.readable.declared_entities``) but is
no start entity (it takes part in no relation the reader may read), so a request that names it is
refused as having no relation, citing the declaration, rather than as naming nothing.

Only a catalog held in memory keeps ``declared_in`` (a compiled store keeps no name sources): over
a compiled store ``declared_unrelated`` finds nothing and such a request stays ``unknown_entity``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from chainret.catalog.models import Catalog, Entity, Unit, normalize_name
from chainret.catalog.readable import declared_entities, known_entities
from chainret.sources.backstage import declared_ref


class Declaration(NamedTuple):
    """Where a view declares an entity: the document version, and its paragraph unit when found."""

    doc_ref: str
    unit: Unit | None

    def cite(self) -> dict[str, str]:
        out = {"document": self.doc_ref}
        if self.unit is not None:
            out |= {"unit": self.unit.ref, "text": self.unit.text.split("\n", 1)[0]}
        return out


def declarations(cv: Any, entity: Entity) -> list[Declaration]:
    """The versions in ``cv``'s view, readable by its principal, of the documents that declare ``entity``,
    each with its unit that is the entity's paragraph (a Backstage descriptor's ``Entity ...`` line)."""
    docs = {s.document for s in entity.declared_in if s.document}
    refs = {a.casefold() for a in (entity.name, *entity.aliases)}
    out = []
    for d in cv.documents():
        if d.doc_id not in docs:
            continue
        unit = next((u for u in cv.catalog.units_of(d.ref) if (declared_ref(u.text) or "").casefold() in refs), None)
        out.append(Declaration(d.ref, unit))
    return out


def declared_unrelated(cv: Any, text: str, type_: str | None) -> list[tuple[Entity, list[Declaration]]]:
    """Entities named ``text`` (of ``type_``) that a document the principal may read in this view
    declares but that take part in no relation the principal may read, with their declarations."""
    cat = cv.catalog
    if not isinstance(cat, Catalog):
        return []
    session = getattr(cv, "session", None)
    declared = declared_entities(cat, cv.principal, session=session)
    if not declared:
        return []
    known = known_entities(cat, cv.principal, session=session)
    hits = [e for e in cat.names_index(type_).get(normalize_name(text), [])
            if e.id in declared and e.id not in known and (type_ is None or e.type == type_)]
    out = []
    for e in sorted(hits, key=lambda e: e.id):
        where = declarations(cv, e)
        if where:
            out.append((e, where))
    return out
