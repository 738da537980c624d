"""Interpretation: request text -> a pattern and one canonical start entity in the view, or a refusal.

``interpret(request, cv) -> Reading`` matches the request against the catalog's relation patterns
(``chainret.catalog.patterns``) and resolves the slot words to exactly one entity of the slot type in the
view: several is ``ambiguous_alias``, none is ``unknown_entity``, no pattern is ``no_pattern``; words
that name an entity a readable document declares but no relation names (a Backstage Component with
no ``spec.owner``) are ``unrelated_entity``, citing the declaration (``chainret.query.declared``).
When no literal reading resolves, the tolerant readings of ``chainret.query.understand`` are tried; two
readings that disagree are ``ambiguous_reading``. An unknown entity's refusal names the closest
entities the principal may know (did you mean), never others.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from chainret.store.base import CatalogRecords, ViewReader
from chainret.core.codes import RefusalCode
from chainret.query.declared import declared_unrelated
from chainret.query.lexicon import relation_noun, type_words
from chainret.catalog.patterns import PatternSpec, best_matches, match_request, words
from chainret.trace.model import Interpretation, Refusal, WordMatch
from chainret.query.understand import Mention, resolve_mention, suggest_entities, tolerant_readings
from chainret.query.understand import Reading as TolerantReading


class Reading(NamedTuple):
    """The outcome of interpretation: an Interpretation, or a refusal / no-pattern Refusal."""

    interpretation: Interpretation | None = None
    outcome: Literal["no_pattern", "refused"] | None = None  # set when interpretation is None
    reason: Refusal | None = None
    meta: Mapping[str, Any] = MappingProxyType({})  # read-only: one empty mapping shared by every Reading


def pattern_specs(catalog: CatalogRecords) -> list[PatternSpec]:
    return [PatternSpec(p.name, p.start_type, tuple(p.hops), tuple(p.phrasings)) for p in catalog.patterns]


def interpret(request: str, cv: ViewReader) -> Reading:
    """Match the request to a pattern and resolve its slot to one canonical ID in the view.

    Literal readings first (``chainret.catalog.patterns``: a declared phrasing word for word, the slot an
    entity's ID, name or alias exactly), as before; only when none resolves, the tolerant readings
    of ``chainret.query.understand``, accepted when they agree on one pattern and one entity.
    """
    specs = pattern_specs(cv.catalog)
    matches = best_matches(match_request(request, specs))
    unknown: list[dict[str, Any]] = []
    found: list[tuple[Any, str, list[Any]]] = []
    for m in matches:
        text = m.slot_text
        ents = cv.resolve(text, type=m.slot_type)
        first, _, rest = text.partition(" ")
        if not ents and rest and first.lower() == m.slot_type.lower():  # "project PR-84" -> "PR-84"
            text, ents = rest, cv.resolve(rest, type=m.slot_type)
        if ents:
            found.append((m, text, ents))
            continue
        unknown.append({"slot_text": text, "slot_type": m.slot_type})
    if found:
        # One phrasing may belong to patterns of several start types (Backstage: "who owns {component}"
        # and "who owns {api}"): entities of two types that the words name are as ambiguous as two of one.
        m, text, ents = found[0]
        named = {e.id: e for _, _, es in found for e in es}
        if len(named) > 1:
            kinds = " or ".join(dict.fromkeys(f.slot_type for f, _, _ in found))
            return _ambiguous_alias(text, kinds, list(named.values()) if len(found) > 1 else ents,
                                    {"pattern": m.pattern.name, "slot": m.slot})
        if len(ents) == 1:
            record: list[WordMatch] = []
            if m.reading != "plain":
                if m.ignored:
                    record.append(WordMatch(words=" ".join(m.ignored), part="ignored", how="filler"))
                record.append(_entity_match(text, ents[0], "exact"))
            interp = Interpretation.model_construct(
                pattern=m.pattern.name,
                slot=m.slot,
                slot_text=text,
                start_id=ents[0].id,
                predicates=list(m.pattern.predicates),
                view=cv.shown_name,
                principal=cv.principal,
                reading=None if m.reading == "plain" else m.reading,
                match=record,
            )
            return Reading(interpretation=interp, meta={"phrasing": m.phrasing})
    tolerant, unresolved = _tolerant(request, specs, matches, cv)
    if tolerant is not None:
        return tolerant
    if not matches:
        # A tolerant reading matched a phrasing but its words name nothing ("who's the contact for
        # pr-48"): that is an unknown entity, not an unknown pattern, when the readings of the request as
        # written (else all readings, fronted-topic rewrites included) agree on the words.
        texts = (list(dict.fromkeys(m.words for r, m in unresolved if m.words and not r.via))
                 or list(dict.fromkeys(m.words for _, m in unresolved if m.words)))
        if len(texts) != 1 or not _reads_as_a_name(texts[0]):
            return Reading(
                outcome="no_pattern",
                reason=Refusal(code=RefusalCode.NO_PATTERN, message="no relation pattern applies to this request"),
            )
        said = [(r, m) for r, m in unresolved if m.words == texts[0]]
        tolerant_unknown = [{"slot_text": m.words, "slot_type": r.pattern.start_type} for r, m in said]
        return _unknown_entity(tolerant_unknown, [r.pattern for r, _ in said], cv)
    return _unknown_entity(unknown, [m.pattern for m in matches], cv)


# Words that make slot words a phrase about something ("PR-7's supplier", "the vendor of PR-7", "PR-7 and
# PR-8") rather than one name: such a request says more than the pattern, so it stays no_pattern.
_PHRASE_WORDS = frozenset({"of", "for", "at", "by", "in", "on", "from", "to", "with", "and", "or", "not", "no", "than"})


def _reads_as_a_name(text: str) -> bool:
    """True when tolerant slot words could be one entity's name (no possessive, no joining word)."""
    low = text.casefold().replace("\u2019", "'")
    return "'s" not in low and not _PHRASE_WORDS.intersection(words(low))


def _unrelated_entity(unknown: list[dict[str, Any]], patterns: list[PatternSpec], cv: ViewReader) -> Reading | None:
    """The refusal for slot words that name an entity a document the viewer may read declares, but that
    takes part in no relation they may read: "X has no owner in view V", citing the declaring unit."""
    for u in unknown:
        hits = declared_unrelated(cv, u["slot_text"], u["slot_type"])
        if len(hits) != 1:
            continue
        (ent, where), = hits
        pattern = next((p for p in patterns if p.start_type == u["slot_type"]), patterns[0])
        noun = relation_noun(pattern.predicates[0])
        cites = [w.cite() for w in where]
        said = "; ".join(f"{c['unit']} ({c['text']!r})" if "unit" in c else c["document"] for c in cites)
        message = (f"{u['slot_text']!r} ({ent.id}, {ent.name}) has no {noun} in view {cv.shown_name}: it is declared by {said}, "
                   "and no relation of it is stated in a document you may read")
        details = {"slot_text": u["slot_text"], "slot_type": u["slot_type"], "entity": ent.id, "declared_by": cites}
        return Reading(outcome="refused", reason=Refusal(code=RefusalCode.UNRELATED_ENTITY, message=message, details=details),
                       meta={"pattern": pattern.name})
    return None


def _unknown_entity(unknown: list[dict[str, Any]], patterns: list[PatternSpec], cv: ViewReader) -> Reading:
    """The refusal for slot words that name no entity of the slot's type the viewer may know (did you mean)."""
    unrelated = _unrelated_entity(unknown, patterns, cv)
    if unrelated is not None:
        return unrelated
    u = {**unknown[0], "other_types": [e.id for e in cv.resolve(unknown[0]["slot_text"])]}
    # the slot types of every pattern whose phrasing the request matched with these words (Backstage:
    # "who owns {component}", "who owns {api}", ...): a Group is none of them, and the refusal says so
    wanted = list(dict.fromkeys(x["slot_type"] for x in unknown if x["slot_text"] == u["slot_text"]))
    if len(wanted) == 1:
        extra = f" (it names {', '.join(u['other_types'])}, not a {wanted[0]})" if u["other_types"] else ""
        message = f"{u['slot_text']!r} is not a known {wanted[0]} in this catalog{extra}"
    else:
        kinds = ", ".join(dict.fromkeys(i.partition(":")[0] for i in u["other_types"]))
        extra = (f" (it names {', '.join(u['other_types'])}: a {kinds}, which no pattern of this phrasing starts at)"
                 if u["other_types"] else "")
        message = f"{u['slot_text']!r} is not a known {', '.join(wanted[:-1])} or {wanted[-1]} in this catalog{extra}"
    near = [] if u["other_types"] else suggest_entities(u["slot_text"], u["slot_type"], cv)
    if near:
        message += "; did you mean " + ", ".join(f"{e.id} ({e.name})" for e in near) + "?"
        u = {**u, "suggestions": [{"id": e.id, "name": e.name} for e in near]}
    return Reading(
        outcome="refused",
        reason=Refusal(code=RefusalCode.UNKNOWN_ENTITY, message=message, details=u),
        meta={"pattern": patterns[0].name},
    )


def _ambiguous_alias(text: str, slot_type: str, ents: list[Any], meta: dict[str, Any]) -> Reading:
    cands = [{"id": e.id, "name": e.name} for e in ents]
    return Reading(
        outcome="refused",
        reason=Refusal(
            code=RefusalCode.AMBIGUOUS_ALIAS,
            message=f"{text!r} names {len(ents)} {slot_type} entities: "
            + ", ".join(f"{e.id} ({e.name})" for e in ents)
            + "; ask again with one of these canonical IDs",
            details={"slot_text": text, "candidates": cands},
        ),
        meta=meta,
    )


def _entity_match(words: str, entity: Any, how: str, label: str | None = None, distance: int | None = None) -> WordMatch:
    """How entity words matched: the ID, the name or an alias (exact), else normalised / typo."""
    label = label or words
    if how == "exact":
        how = "exact" if label == entity.id else "name" if label.casefold() == entity.name.casefold() else "alias"
    return WordMatch(words=words, part="entity", how=how, target=entity.id, label=label, distance=distance)


def _tolerant(request: str, specs: list[PatternSpec], matches: list[Any], cv: Any
              ) -> tuple[Reading | None, list[tuple[TolerantReading, Mention]]]:
    """The tolerant readings: one (pattern, entity) they all agree on, an ambiguity, or None; and the readings whose words named nothing."""
    readings = tolerant_readings(request, specs, cv.catalog)
    readings += [TolerantReading(m.pattern, tuple(words(m.slot_text)), "tolerant", m.phrasing, (), m.ignored)
                 for m in matches]
    resolved: dict[tuple[str, str], tuple[TolerantReading, Mention]] = {}
    ambiguous: list[tuple[TolerantReading, Mention]] = []
    unresolved: list[tuple[TolerantReading, Mention]] = []
    for r in readings:
        mention = resolve_mention(" ".join(r.mention), r.pattern.start_type, cv, type_words(r.pattern.start_type))
        if len(mention.entities) == 1:
            resolved.setdefault((r.pattern.name, mention.entities[0].id), (r, mention))
        elif mention.entities:
            ambiguous.append((r, mention))
        else:
            unresolved.append((r, mention))
    if ambiguous and not resolved:
        r, mention = ambiguous[0]
        return _ambiguous_alias(mention.words, r.pattern.start_type, mention.entities, {"pattern": r.pattern.name}), []
    if len(resolved) > 1 or (resolved and ambiguous):
        options = sorted(resolved) + sorted((r.pattern.name, e.id) for r, m in ambiguous for e in m.entities)
        options = list(dict.fromkeys(options))
        return Reading(
            outcome="refused",
            reason=Refusal(
                code=RefusalCode.AMBIGUOUS_READING,
                message=f"the request reads {len(options)} ways: "
                + ", ".join(f"pattern {p} from {e}" for p, e in options)
                + "; ask again with a phrasing of one pattern (`chainret patterns`) and one canonical ID",
                details={"readings": [{"pattern": p, "start_id": e} for p, e in options]},
            ),
        ), []
    if not resolved:
        return None, unresolved
    (r, mention), = resolved.values()
    ent = mention.entities[0]
    record: list[WordMatch] = []
    if r.ignored:
        record.append(WordMatch(words=" ".join(r.ignored), part="ignored", how="filler"))
    if r.phrasing is not None:
        record.append(WordMatch(words=" ".join(w for w in words(request) if w not in r.mention), part="pattern",
                                how="canonical" if r.route == "tolerant" else "composed", target=r.phrasing))
    for text, pred in r.relations:
        record.append(WordMatch(words=text, part="relation", how="composed", target=pred))
    record.append(_entity_match(mention.words, ent, mention.how, mention.label, mention.distance))
    interp = Interpretation.model_construct(
        pattern=r.pattern.name,
        slot=r.pattern.start_type,
        slot_text=mention.words,
        start_id=ent.id,
        predicates=list(r.pattern.predicates),
        view=cv.shown_name,
        principal=cv.principal,
        reading=r.route + (f"+{r.via}" if r.via else ""),
        match=record,
    )
    meta = {"phrasing": r.phrasing} if r.phrasing else {}
    return Reading(interpretation=interp, meta=meta), []
