"""Ownership coverage of an imported catalog, with proof: ``chainret catalog coverage``, and a coverage ask.

What has no owner, in one view, as one principal may read it: Backstage Components, APIs,
Resources, Systems and Domains whose descriptor names no owner; CODEOWNERS rules with no owner
(none written, or none valid); owners that relations name but no readable descriptor declares; Groups
with no members. Each row cites where the view says so: the descriptor paragraph (unit) that
declares the entity, the CODEOWNERS rule's unit, or the units of the relations that name an owner.

The report is computed over the principal's reduced catalog (``CatalogReader.reader_store``: every
document they may not read removed first) and the view as they read it (``ViewReader``), so a gap
in a document they may not read is never listed, nor an entity only such a document declares.
A catalog held in memory and a compiled store (schema 6: its ``name_sources``) give the same report; a
store of an older schema keeps no declarations and is refused (recompile it).

``chainret ask "which components have no owner"`` answers from the same report (``gap_trace``): in the
pipeline tier so that ``ask`` can reach it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from chainret.catalog.models import Catalog, Entity
from chainret.core.errors import UsageError
from chainret.query.declared import Declarations, declared_of
from chainret.sources.backstage import OWNER_REQUIRED
from chainret.sources.codeowners import NO_OWNERS_NOTE, PATH_TYPE, UNMATCHED_HEAD, rule_of_unit
from chainret.store import resolve_catalog
from chainret.query.gaps import PEOPLE_TYPE_WORDS, AbsenceRequest, ContrastRequest, GapRequest, ScopedRequest
from chainret.store.base import CatalogReader, ViewReader, recompile_advice
from chainret.trace.model import Budget, Completeness, Packet, PacketItem, SetAnswer, Trace


class Gap(BaseModel):
    """One row of the report: what lacks an owner (or members), and the units that show it."""

    id: str  # an entity ID (a CODEOWNERS rule's: ``rule_of_unit``; its unit ref only where the paragraph's head is odd)
    name: str
    type: str
    cites: list[dict[str, str]] = Field(default_factory=list)  # {"unit"/"document", "text"}: the proof
    referenced_by: list[str] = Field(default_factory=list)  # an undeclared owner: the entities that name it


class Coverage(BaseModel):
    view: str
    principal: str
    no_owner: list[Gap] = Field(default_factory=list)
    rules_without_owners: list[Gap] = Field(default_factory=list)
    undeclared_owners: list[Gap] = Field(default_factory=list)
    groups_without_members: list[Gap] = Field(default_factory=list)
    # files of the tree with no code owner: every last matching rule names none, or no rule matches them
    files_without_owners: list[Gap] = Field(default_factory=list)

    @property
    def gaps(self) -> int:
        return (len(self.no_owner) + len(self.rules_without_owners) + len(self.undeclared_owners) + len(self.groups_without_members)
                + len(self.files_without_owners))


def coverage(catalog: Catalog | CatalogReader | str | os.PathLike[str] | None, view: str | None = None,
             principal: str = "public") -> Coverage:
    """The coverage report of ``view`` (None: the current one) as ``principal`` may read the catalog."""
    reader = resolve_catalog(catalog).reader_store(principal)
    cat = getattr(reader, "catalog", None)
    if not isinstance(cat, Catalog) and getattr(getattr(reader, "store", reader), "name_sources", False) is not True:
        raise UsageError("this store was compiled by an older chainret and keeps no record of which descriptor "
                         "declares an entity: " + recompile_advice())
    cv = reader.view(view, principal)
    index = Declarations(cv)
    eligible = cv.eligible_relations()
    owned = {r.subject for r in eligible if r.predicate == "owned_by"}
    with_members = {r.subject for r in eligible if r.predicate == "has_member"} | {
        r.object for r in eligible if r.predicate == "member_of"}
    report = Coverage(view=cv.shown_name, principal=principal)
    declared: dict[str, Entity] = {}
    unmatched: list[Gap] = []
    governed = {r.subject for r in eligible if r.predicate == "governed_by"}
    for e in declared_of(cv):
        where = index.of(e) if e.declared_in else []
        if not where:
            continue
        declared[e.id] = e
        cites = [w.cite() for w in where]
        if e.type in OWNER_REQUIRED and e.id not in owned:
            report.no_owner.append(Gap(id=e.id, name=e.name, type=e.type, cites=cites))
        if e.type == "group" and e.id not in with_members:
            report.groups_without_members.append(Gap(id=e.id, name=e.name, type=e.type, cites=cites))
        if e.type == PATH_TYPE and e.id not in governed:
            unmatched.append(Gap(id=e.id, name=e.name, type=e.type, cites=cites))  # a file no rule matches
    undeclared: dict[str, Gap] = {}
    for r in eligible:
        if r.predicate != "owned_by" or r.object in declared:
            continue
        ent = cv.entity(r.object)
        gap = undeclared.setdefault(r.object, Gap(id=r.object, name=ent.name if ent else r.object,
                                                  type=ent.type if ent else r.object.partition(":")[0]))
        gap.cites.append(_relation_cite(cv.supporting_unit(r), r.support.doc_ref, r.support.quote))
        gap.referenced_by.append(r.subject)
    report.undeclared_owners = [undeclared[k] for k in sorted(undeclared)]
    unmatched_lines: dict[str, dict[str, str]] = {}  # a file no rule matches -> its line in the CODEOWNERS document
    for u in cv.units():
        lines = u.text.split("\n")
        if lines[0].startswith(UNMATCHED_HEAD):
            unmatched_lines |= {x.partition(" (")[2].partition(")")[0]: {"unit": u.ref, "document": u.doc_ref, "text": x}
                                for x in lines[1:]}
        if NO_OWNERS_NOTE in lines:
            quoted = next((x for x in lines if x.startswith("line ")), lines[0])
            # the row names the rule's entity, as every other row names its entity (the unit where its head is odd)
            rid, name = rule_of_unit(reader.world, u.text) or (u.ref, lines[0])
            report.rules_without_owners.append(Gap(id=rid, name=name, type="rule",
                                                   cites=[{"unit": u.ref, "document": u.doc_ref, "text": quoted}]))
    for g in unmatched:  # the file's own line of the paragraph that lists them, where found
        g.cites = [unmatched_lines[g.id]] if g.id in unmatched_lines else g.cites
    report.files_without_owners = sorted(_files_without_owners(cv, eligible, {g.id for g in report.rules_without_owners})
                                         + unmatched, key=lambda g: g.id)
    return report


def _files_without_owners(cv: ViewReader, eligible: list[Any], ownerless: set[str]) -> list[Gap]:
    """The files every last matching rule of which names no owner (the importer relates a file to such rules only
    when none of its last matching rules has an owner), each citing its ``governed_by`` clause."""
    rows: dict[str, Gap] = {}
    for r in eligible:
        if r.predicate == "governed_by" and r.object in ownerless:
            ent = cv.entity(r.subject)
            gap = rows.setdefault(r.subject, Gap(id=r.subject, name=ent.name if ent else r.subject, type=PATH_TYPE))
            gap.cites.append(_relation_cite(cv.supporting_unit(r), r.support.doc_ref, r.support.quote))
    return [rows[k] for k in sorted(rows)]


def _relation_cite(unit: Any, doc_ref: str, clause: str) -> dict[str, str]:
    """A relation's unit, with the source line quoted just before its clause (``line N: `owner: x```), else the clause."""
    if unit is None:
        return {"document": doc_ref, "text": clause}
    lines = unit.text.split("\n")
    at = lines.index(clause) if clause in lines else len(lines)
    quoted = next((x for x in reversed(lines[:at]) if x.startswith("line ")), clause)
    return {"unit": unit.ref, "document": unit.doc_ref, "text": quoted}


# -- a coverage ask as a trace ----------------------------------------------------------------------------
_SECTIONS = ("no_owner", "rules_without_owners", "undeclared_owners", "groups_without_members")


def gap_trace(gap: GapRequest, cat: CatalogReader, cv: ViewReader, principal: str, base: Mapping[str, Any],
              budget: Budget, meta: dict[str, object]) -> Trace | None:
    """A coverage ask (``chainret.query.gaps``) answered from ``coverage`` over ``cat`` as ``principal`` reads it:
    every row an answer (``answers``: the entity, a CODEOWNERS rule's too), every row's proof a packet
    item (the unit, its document version, the span and the quoted line), ``meta.coverage`` the rows with their
    cites. None over a compiled store (it keeps no declarations): the request then stays ``no_pattern``."""
    found = gap_rows(gap, cat, cv, principal)
    return None if found is None else _rows_trace(*found, cv, base, budget, meta)


def gap_rows(gap: GapRequest, cat: CatalogReader, cv: ViewReader, principal: str) -> tuple[list[Gap], dict[str, Any]] | None:
    """The rows of a coverage ask's report section (``gap_trace``) and the section as ``meta.coverage`` records it;
    None where it is not read."""
    try:
        report = coverage(cat, cv.view_name, principal)
    except UsageError:
        return None
    scoped: dict[str, str] = {}  # (the folder a files ask was said under, as the view's files spell it)
    if gap.every and any(not gap.types or g.type in gap.types for g in report.no_owner):
        return None  # ("is each API owned by a group that exists": one of no owner is not, nor is it one of these)
    if gap.kind == "owned_by_undeclared":  # the entities that name an undeclared owner, each with its owner's clause
        named = [(s, c) for g in report.undeclared_owners for s, c in zip(g.referenced_by, g.cites, strict=True)]
        ents = cv.entities_of(sorted({s for s, _ in named}))
        by_id: dict[str, Gap] = {}
        for s, c in named:
            if s in ents:
                by_id.setdefault(s, Gap(id=s, name=ents[s].name, type=ents[s].type)).cites.append(c)
        rows = list(by_id.values())
    elif gap.files:  # "which files have no code owner": the files themselves, not the rules that leave them so
        rows = report.files_without_owners
        if gap.folder:  # "... under payments/": the files below that folder, which must hold a file of the view
            folder = _folder_of(gap.folder, cv, report)
            if folder is None:
                return None
            rows = [g for g in rows if g.name.startswith(f"{folder}/")]
            scoped = {"folder": f"{folder}/"}
    else:
        rows = getattr(report, gap.kind)
    rows = [g for g in rows if not gap.types or g.type in gap.types]
    if gap.holders:  # what holds such a row: over the one predicate from the rows' types to the holders'
        held = _held_by(rows, gap, cv)
        if held is None:
            return None
        rows = held
    if gap.under:  # "sub-teams": the groups with a parent in the view
        if not {"child_of", "parent_of"} & {p.name for p in cv.catalog.predicates}:
            return None  # a catalog that says no group's parent: no sub-team can be told from a top group
        parented = {r.subject for r in cv.eligible_relations() if r.predicate == "child_of"} | {
            r.object for r in cv.eligible_relations() if r.predicate == "parent_of"}
        rows = [g for g in rows if g.id in parented]
    section = {"kind": "files_without_owners" if gap.files else gap.kind, "types": list(gap.types), "view": report.view,
               **({"under": True} if gap.under else {}), **scoped,
               **({"holders": list(gap.holders)} if gap.holders else {})}
    return rows, section


def _folder_of(said: str, cv: ViewReader, report: Coverage) -> str | None:
    """The folder of the view's files that ``said`` (lower case, no end slashes) names, as the files spell it
    ("mobile" of ``mobile/app/App.kt``); None where no file of the view, as its reader may know it, is below it, or
    two folders differ only by case (the words then name no one folder). The view's files: those a rule governs
    (``governed_by``, the importer's link from a file to its last matching rule) and those no rule matches."""
    governed = {r.subject for r in cv.eligible_relations() if r.predicate == "governed_by"}
    names = {e.name for e in cv.entities_of(sorted(governed)).values() if e.type == PATH_TYPE}
    names |= {g.name for g in report.files_without_owners}
    depth = said.count("/") + 1
    spelt = {"/".join(n.split("/")[:depth]) for n in names
             if n.count("/") >= depth and "/".join(n.split("/")[:depth]).lower() == said}
    return spelt.pop() if len(spelt) == 1 else None


def _held_by(rows: list[Gap], gap: GapRequest, cv: ViewReader) -> list[Gap] | None:
    """The entities of ``gap.holders``' types that a row is related to by the one predicate of the catalog from every
    type asked about to those types (``part_of``: a component to its system), each citing the row's proof and the
    relation's clause; None where no predicate, or more than one, goes so (the words then stay unread)."""
    preds = [p for p in cv.catalog.predicates
             if set(gap.types) <= set(p.domain_types) and p.range_types and set(p.range_types) <= set(gap.holders)]
    if len(preds) != 1:
        return None
    out: dict[str, Gap] = {}
    for g in rows:
        for r in cv.current_relations(g.id, preds[0].name):
            ent = cv.entity(r.object)
            if ent is None or ent.type not in gap.holders:
                continue
            holder = out.setdefault(ent.id, Gap(id=ent.id, name=ent.name, type=ent.type))
            holder.cites += [*g.cites, _relation_cite(cv.supporting_unit(r), r.support.doc_ref, r.support.quote)]
    return [out[k] for k in sorted(out)]


def _rows_trace(rows: list[Gap], section: dict[str, Any], cv: ViewReader, base: Mapping[str, Any], budget: Budget,
                meta: dict[str, object]) -> Trace:
    """A coverage ask's trace: every row an answer, every row's cited unit a packet item, the rows in ``meta.coverage``."""
    items: list[PacketItem] = []
    for g in rows:
        for c in g.cites:
            unit = cv.unit(c["unit"]) if "unit" in c else None
            at = unit.text.find(c.get("text", "")) if unit is not None else -1
            if unit is None or at < 0 or not c.get("text"):
                continue
            start = unit.start + at
            items.append(PacketItem.model_construct(ref=unit.ref, text=c["text"], cost=len(c["text"]),
                                                    doc_id=unit.doc_ref, span=(start, start + len(c["text"]))))
    items = list({(i.ref, i.span): i for i in items}.values())
    packet = Packet(packer="coverage", cost_unit="chars", budget=sum(i.cost for i in items) + len(items), items=items,
                    cost=sum(i.cost for i in items) + max(len(items) - 1, 0), text="\n".join(i.text for i in items))
    answers = [SetAnswer(id=g.id, path_ids=[g.id], relations=[]) for g in rows]
    section = {**section, "rows": [{"id": g.id, "name": g.name, "type": g.type, "cites": g.cites,
                                    **({"referenced_by": g.referenced_by} if g.referenced_by else {})} for g in rows]}
    return Trace.model_construct(
        **base, route="coverage", budget=budget, outcome="accepted_path", answers=answers,
        completeness=Completeness(complete=True, answered=len(rows), eligible=len(rows)), packet=packet,
        meta={**meta, "coverage": section})


# -- "which T has no <relation>" -----------------------------------------------------------------------------
def _object_types(noun: str, predicate: str, cv: ViewReader) -> set[str] | None:
    """The types of what an absence ask says is lacking ("components" of "which teams own no components") among the
    predicate's range: empty where the noun names no type or every type of the range (any relation counts), None where
    it names types the predicate never reaches ("which teams own no users": the ask is not read)."""
    from chainret.query.lexicon import type_words
    from chainret.query.nested import _singular

    pred = cv.predicate(predicate)
    if not noun or pred is None:
        return set()
    said = {noun, _singular(noun)}
    named = {t for p in cv.catalog.predicates for t in (*p.domain_types, *p.range_types) if said & type_words(t)}
    if not named:
        return set()
    reached = named & set(pred.range_types)
    if not reached:
        return None
    return set() if reached >= set(pred.range_types) else reached


def absence_trace(absence: AbsenceRequest, cat: CatalogReader, cv: ViewReader, principal: str, base: Mapping[str, Any],
                  budget: Budget, meta: dict[str, object]) -> Trace | None:
    """A coverage ask about any relation (``absence_rows``), as a trace of its rows; None where it is not read."""
    found = absence_rows(absence, cat, cv, principal)
    return None if found is None else _rows_trace(*found, cv, base, budget, meta)


def neither_trace(asks: tuple[GapRequest | AbsenceRequest, GapRequest | AbsenceRequest], cat: CatalogReader, cv: ViewReader,
                  principal: str, base: Mapping[str, Any], budget: Budget, meta: dict[str, object]) -> Trace | None:
    """Two lacks that must both hold ("Ts that neither V1 nor V2 any N", "teams with no members and that own nothing",
    ``chainret.query.gaps.read_neither_request``): the rows of the first that are rows of the second, each section in
    ``meta.coverage`` (``kind: without_relations``); None where either is not read, both read as one section, or
    they are said of two types."""
    first, second = (gap_rows(a, cat, cv, principal) if isinstance(a, GapRequest) else absence_rows(a, cat, cv, principal)
                     for a in asks)
    if first is None or second is None or first[1] == second[1] or (
            first[1].get("predicate") is not None and first[1].get("predicate") == second[1].get("predicate")):
        return None
    types = _subject_types(first[1], first[0]) | _subject_types(second[1], second[0])
    if len(types) != 1:
        return None
    both = {g.id for g in second[0]}
    rows = [g for g in first[0] if g.id in both]
    section = {"kind": "without_relations", "types": sorted(types), "all_of": [first[1], second[1]], "view": cv.shown_name}
    return _rows_trace(rows, section, cv, base, budget, meta)


def contrast_trace(asks: ContrastRequest, cat: CatalogReader, cv: ViewReader, principal: str, base: Mapping[str, Any],
                   budget: Budget, meta: dict[str, object]) -> Trace | None:
    """An absence and a presence ("groups with no one on them but owning a resource", ``chainret.query.gaps.
    read_contrast_request``): the rows of the absence that are no rows of the absence the presence denies ("teams
    that do not own anything"), each citing its own proof and the relations that show the presence; ``meta.coverage``
    has both sections (``kind: without_but_with``, ``lacks`` and ``denied``). None where either half is not read,
    the halves are of other types, or both read as one relation."""
    found = [gap_rows(a, cat, cv, principal) if isinstance(a, GapRequest) else absence_rows(a, cat, cv, principal)
             for a in asks]
    lacking, denied = found
    if lacking is None or denied is None:
        return None
    if lacking[1].get("predicate") is not None and lacking[1].get("predicate") == denied[1].get("predicate"):
        return None
    if len(_subject_types(lacking[1], lacking[0]) | _subject_types(denied[1], denied[0])) != 1 or lacking[1] == denied[1]:
        return None  # the halves must be said of one type, and be two relations
    left_out = {g.id for g in denied[0]}
    rows = [g for g in lacking[0] if g.id not in left_out]
    if denied[1].get("predicate"):  # the presence's proof: the relations of the denied predicate each row takes part in
        rows = [g.model_copy(update={"cites": [*g.cites, *_taking_part(g.id, denied[1], cv)]}) for g in rows]
    section = {"kind": "without_but_with", "types": sorted(_subject_types(lacking[1], lacking[0])), "lacks": lacking[1],
               "denied": denied[1], "view": cv.shown_name}
    return _rows_trace(rows, section, cv, base, budget, meta)


# Type nouns that name no type: the ask's own types stand ("anything in S with no owner": every owned type in S).
_ANY_TYPE = frozenset({"anything", "something", "everything", "stuff", "thing", "things", "entity", "entities", "what"})


def scoped_trace(splits: list[ScopedRequest], cat: CatalogReader, cv: ViewReader, principal: str, base: Mapping[str, Any],
                 budget: Budget, meta: dict[str, object]) -> Trace | None:
    """A coverage ask over part of the catalog ("unowned components in system S", "which of G's APIs have no consumers",
    ``chainret.query.gaps.read_scoped_request``): the ask's rows that are members of its scope, each citing its own
    proof and the relations that put it in the scope. Only where exactly one split reads (the ask by its grammar, the
    scope by the interpreter as a set of the ask's type noun, ``scope_members``); else None (the request stays
    unread). ``meta.coverage``: the ask's section and the scope's chain (``kind: within``)."""
    read: dict[tuple[str, tuple[str, ...], str], tuple[list[Gap], dict[str, Any]]] = {}
    for split in splits:
        found = gap_rows(split.ask, cat, cv, principal) if isinstance(split.ask, GapRequest) else absence_rows(split.ask, cat, cv, principal)
        if found is None:
            continue
        rows, section = found
        if not _names_rows(split.noun, _subject_types(section, rows), cv):
            continue  # "which teams own nothing in S": the scope's noun ("nothing") is not what the rows are
        within = scope_members(split.scope, _subject_types(section, rows) or {g.type for g in rows}, cv)
        if within is None:
            continue
        scope, members = within
        kept = [g.model_copy(update={"cites": [*g.cites, *members[g.id]]}) for g in rows if g.id in members]
        key = (repr(sorted(section.items())), tuple(scope["predicates"]), scope["start_id"])
        read.setdefault(key, (kept, {"kind": "within", "types": section.get("types", []), "ask": section,
                                     "scope": scope, "view": cv.shown_name}))
    if len(read) != 1:
        return None
    (rows, section), = read.values()
    return _rows_trace(rows, section, cv, base, budget, meta)


def _names_rows(noun: str, types: set[str], cv: ViewReader) -> bool:
    """Whether a scope's head noun names the types an ask's rows are of ("components", "sub-teams": groups), or names no
    type at all ("anything": the ask's own types stand)."""
    from chainret.query.lexicon import type_words
    from chainret.query.nested import _singular

    if noun in _ANY_TYPE:
        return True
    said = {noun, _singular(noun), noun.removeprefix("sub-"), _singular(noun.removeprefix("sub-")), *PEOPLE_TYPE_WORDS.get(noun, ())}
    return bool(types) and all(said & type_words(t) for t in types)


def scope_members(scope: str, types: set[str], cv: ViewReader) -> tuple[dict[str, Any], dict[str, list[dict[str, str]]]] | None:
    """The members of a scope said as a noun phrase ("components in S", "G's APIs", "the sub-teams of G"), each with the
    cites of the relations that reach it (walked over the relations the principal may read, a typed hop keeping its
    types: ``Interpretation.typed_hops``). The phrase is read by the interpreter, itself and as each question it may
    stand for (``chainret.query.nested.inner_questions``: "what is in S"); the readings whose chain may end at one of
    ``types`` (the rows') must be one chain from one entity, else None (the words read as no set, or as two)."""
    from chainret.query.interpret import interpret
    from chainret.query.nested import inner_questions

    chains: dict[tuple[tuple[str, ...], str, str], Any] = {}
    for question in dict.fromkeys([scope, *inner_questions(scope)]):
        interp = interpret(question, cv).interpretation
        last = cv.predicate(interp.predicates[-1]) if interp is not None else None
        if interp is not None and last is not None and types & set(last.range_types):
            # (the last hop's types aside: only the rows' types are kept at the end, typed or not)
            chains.setdefault((tuple(interp.predicates), interp.start_id, repr(interp.typed_hops()[:-1])), interp)
    if len(chains) != 1:
        return None
    (interp,) = chains.values()
    frontier: dict[str, list[dict[str, str]]] = {interp.start_id: []}
    for name, typed in zip(interp.predicates, interp.typed_hops(), strict=True):
        reached: dict[str, list[dict[str, str]]] = {}
        for subject, cites in frontier.items():
            for r in cv.current_relations(subject, name):
                reached.setdefault(r.object, [*cites, _relation_cite(cv.supporting_unit(r), r.support.doc_ref, r.support.quote)])
        if typed:
            ents = cv.entities_of(sorted(reached))
            reached = {i: c for i, c in reached.items() if i in ents and ents[i].type in typed}
        frontier = reached
    said = {"pattern": interp.pattern, "start_id": interp.start_id, "predicates": list(interp.predicates),
            **({"hop_types": interp.typed_hops()} if any(interp.typed_hops()) else {})}
    return said, frontier


def _subject_types(section: dict[str, Any], rows: list[Gap]) -> set[str]:
    """The entity types a section's rows are of: its own types, the group type of a members section, else its rows'."""
    if section.get("types"):
        return set(section["types"])
    if section["kind"] == "groups_without_members":
        return {"group"}
    return {g.type for g in rows}


def _taking_part(entity: str, section: dict[str, Any], cv: ViewReader) -> list[dict[str, str]]:
    """The cites of the relations of ``section``'s predicate (or its inverse) that ``entity`` takes part in, to an
    entity of the section's object types where it names some."""
    objects = set(section.get("objects") or ())
    out = []
    for r in cv.eligible_relations():
        if r.predicate == section["predicate"] and r.subject == entity:
            other = r.object
        elif r.predicate in section.get("inverse", ()) and r.object == entity:
            other = r.subject
        else:
            continue
        ent = cv.entity(other) if objects else None
        if objects and (ent is None or ent.type not in objects):
            continue
        out.append(_relation_cite(cv.supporting_unit(r), r.support.doc_ref, r.support.quote))
    return out


def relation_pairs(section: Mapping[str, Any], cv: ViewReader) -> list[tuple[str, str]]:
    """The (subject, object) pairs of the view's eligible relations of a section's predicate, with those of its declared
    inverses turned round: what "takes part in the relation" means for an absence."""
    eligible = cv.eligible_relations()
    pairs = [(r.subject, r.object) for r in eligible if r.predicate == section["predicate"]]
    return pairs + [(r.object, r.subject) for r in eligible if r.predicate in set(section.get("inverse", ()))]


def absence_rows(absence: AbsenceRequest, cat: CatalogReader, cv: ViewReader, principal: str
                 ) -> tuple[list[Gap], dict[str, Any]] | None:
    """A coverage ask about any relation (``chainret.query.gaps.read_absence_request``): the entities of the type
    the words name, declared in a document the principal may read, that are the subject of no relation the
    view holds of the one predicate the positive question reads as ("which team is {x} on": ``member_of``),
    nor the object of its declared inverse (a predicate described "inverse of member_of"). The positive
    questions are asked about one such entity through the interpreter, so the relation is read by the
    catalog's own phrasings and words; they must all read as the same one-hop chain from that entity, else
    None (the request stays ``no_pattern``), as over a store that keeps no declarations."""
    from chainret.query.interpret import interpret
    from chainret.query.lexicon import type_words
    from chainret.query.nested import _singular

    try:
        coverage(cat, cv.view_name, principal)  # (refuses a store that keeps no declarations)
    except UsageError:
        return None
    declared = declared_of(cv)
    said = {absence.noun, _singular(absence.noun), *PEOPLE_TYPE_WORDS.get(absence.noun, ())}
    types = sorted({e.type for e in declared if said & type_words(e.type)})
    if len(types) != 1:
        return None
    of_type = [e for e in declared if e.type == types[0]]
    eligible = cv.eligible_relations()
    # the entity the positive questions are asked about: one that takes part in a relation (one that takes part in
    # none is refused as such, whatever the question), the first by ID
    taking_part = {r.subject for r in eligible} | {r.object for r in eligible}
    sample = min((e for e in of_type if e.id in taking_part), key=lambda e: e.id, default=None)
    if sample is None:
        return None
    chains = set()
    for question in absence.positives:
        interp = interpret(question.replace("{x}", sample.id), cv).interpretation
        if interp is not None:
            chains.add((tuple(interp.predicates), interp.start_id))
    if len(chains) != 1:
        return None
    (chain, start), = chains
    if len(chain) != 1 or start != sample.id:
        return None
    predicate = chain[0]
    said_of = getattr(cv.predicate(predicate), "description", "") or ""
    inverse = {p.name for p in cv.catalog.predicates
               if (p.description or "").startswith(f"inverse of {predicate}") or said_of.startswith(f"inverse of {p.name}")}
    pairs = relation_pairs({"predicate": predicate, "inverse": inverse}, cv)
    objects = _object_types(absence.objects, predicate, cv)
    if objects is None:
        return None
    if objects:  # "which teams own no components": only a relation to a component counts
        typed = cv.entities_of(sorted({o for _, o in pairs}))
        narrowed = [(s, o) for s, o in pairs if o in typed and typed[o].type in objects]
        asked = {e.id for e in of_type}
        if absence.named_relation and {s for s, _ in narrowed} & asked != {s for s, _ in pairs} & asked:
            # "which components have no team": no owner at all, or no owner that is a team? Where a component is owned by
            # a person the two readings differ, and an unsure reading is refused (the request stays unread)
            return None
        pairs = narrowed
    related = {s for s, _ in pairs}
    index = Declarations(cv)
    rows = [Gap(id=e.id, name=e.name, type=e.type, cites=[w.cite() for w in index.of(e)])
            for e in of_type if e.id not in related and index.of(e)]
    section = {"kind": "without_relation", "types": types, "predicate": predicate, "inverse": sorted(inverse),
               "view": cv.shown_name, **({"objects": sorted(objects)} if objects else {})}
    return rows, section
