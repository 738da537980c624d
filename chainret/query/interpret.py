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

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from chainret.store.base import CatalogRecords, ViewReader
from chainret.core.codes import RefusalCode
from chainret.core.words import ascii_marks
from chainret.query.declared import declared_unrelated
from chainret.query.lexicon import KIND_WORDS, TYPE_WORDS, relation_noun, type_words
from chainret.catalog.patterns import PatternSpec, best_matches, match_request, words
from chainret.trace.model import Interpretation, Refusal, WordMatch
from chainret.query.understand import Mention, name_completions, resolve_mention, suggest_entities, tolerant_readings
from chainret.query.understand import Reading as TolerantReading

if TYPE_CHECKING:
    from chainret.query.nested import Inner
    from chainret.query.when import TimeWords

# A slot said as a request (chainret.query.nested) is read as an inner question (depth 1); an inner question is read one
# level deeper (depth 2), by its relative clauses, modifiers and possessives only, where it asks with a verb of its own
# about a noun phrase with a clause of its own (nested.holds_inner_clause); deeper wording is refused.
NESTED_MAX_DEPTH = 2


class Reading(NamedTuple):
    """The outcome of interpretation: an Interpretation, or a refusal / no-pattern Refusal."""

    interpretation: Interpretation | None = None
    outcome: Literal["no_pattern", "refused"] | None = None  # set when interpretation is None
    reason: Refusal | None = None
    meta: Mapping[str, Any] = MappingProxyType({})  # read-only: one empty mapping shared by every Reading


def pattern_specs(catalog: CatalogRecords) -> list[PatternSpec]:
    return [PatternSpec(p.name, p.start_type, tuple(p.hops), tuple(p.phrasings)) for p in catalog.patterns]


def interpret(request: str, cv: ViewReader, *, depth: int = 0, reworded: bool = False,
              answers_of: frozenset[str] = frozenset()) -> Reading:
    """Match the request to a pattern and resolve its slot to one canonical ID in the view.

    Literal readings first (``chainret.catalog.patterns``: a declared phrasing word for word, the slot an
    entity's ID, name or alias exactly), as before; only when none resolves, the tolerant readings
    of ``chainret.query.understand``, accepted when they agree on one pattern and one entity; only when
    those find no pattern or no entity, a slot said as a request of its own (``chainret.query.nested``:
    "who owns the APIs that web-shop consumes"), read at ``depth`` + 1; only when that finds nothing either,
    the request said in an everyday frame (``chainret.query.frames``: "who do I page about X", "which team
    runs X"), each question it stands for read at the same depth (``reworded``: not reworded again).
    ``answers_of``: the types a head noun keeps the answers to ("what APIs does the team that owns X own": api), where
    the caller keeps them so; a composed chain that returns over its start is then taken where the start is of none.
    """
    reading = _interpret_flat(request, cv)
    if reading.interpretation is not None or depth >= NESTED_MAX_DEPTH:
        return reading
    unread = reading.outcome == "no_pattern" or (reading.reason is not None and reading.reason.code == RefusalCode.UNKNOWN_ENTITY)
    if depth == NESTED_MAX_DEPTH - 1:  # (the gated level) "which teams own the APIs in S", asked for "who is on the teams that own the APIs in S"
        from chainret.query.nested import holds_inner_clause

        return (_nested(request, cv, depth, answers_of) if unread and holds_inner_clause(request) else None) or reading
    if unread:
        nested = _nested(request, cv, depth, answers_of) or _steps(request, cv, depth)
        if nested is not None:
            return nested
        if not reworded:
            again = _reworded(request, cv, depth)
            if again is not None:
                return again
    return reading


def _reworded(request: str, cv: ViewReader, depth: int) -> Reading | None:
    """The one reading the everyday rewordings of a request agree on (``chainret.query.frames``), recorded as
    ``reading`` ``<route>+reworded`` with the question asked; an ``ambiguous_reading`` refusal when two
    rewordings read differently; None when none reads (the request's own refusal then stands)."""
    from chainret.query.frames import (fallback_reworded, noun_phrase_questions, reworded, second_verb,
                                       without_leading_frame, without_list_instruction)
    from chainret.query.lexicon import lexicon
    from chainret.query.nested import headless, slot_head

    lex = lexicon(cv.catalog)
    specs = pattern_specs(cv.catalog)
    vocab = lex.vocabulary(specs)
    read: dict[tuple[tuple[str, ...], str], tuple[str, Reading]] = {}
    # a bare noun phrase ("the components that X owns", after an instruction to list it too: "list all the APIs X
    # owns") is read only as far as its head noun allows
    phrase = without_list_instruction(request) or request
    phrase_head = slot_head(phrase) if noun_phrase_questions(phrase, _answer_heads(specs, cv)) else None
    tried: list[str] = [request]
    for fallback in (False, True):  # the frames asked only when none of the first reads, after them
        texts = (fallback_reworded(request, vocab, lex.verb_owners(), _answer_heads(specs, cv)) if fallback
                 else reworded(request, vocab, lex.verb_owners(), _answer_heads(specs, cv)))
        tried += texts
        for text in texts:
            again = interpret(text, cv, depth=depth, reworded=True)
            interp = again.interpretation
            if interp is not None and _head_holds(phrase_head, interp, cv) and _head_said(phrase_head, text, cv):
                read.setdefault((tuple(interp.predicates), interp.start_id), (text, again))
        if read:
            break
    if not read:  # last, the questions without their head noun, where every answer is of the noun's type
        for text in dict.fromkeys(tried):  # (the fallback frames' too: "which queues do X use" as what X depends on)
            cut = headless(text)
            if cut is None or not _head_types(cut[0], cv):
                continue
            for question in cut[1]:
                again = interpret(question, cv, depth=depth, reworded=True, answers_of=frozenset(_head_types(cut[0], cv)))
                interp = again.interpretation
                if interp is None:
                    continue
                if _head_holds(cut[0], interp, cv):
                    read.setdefault((tuple(interp.predicates), interp.start_id), (question, again))
                elif (kept := _head_among(cut[0], interp, cv)) and not interp.answer_types:
                    # "which components does X own": what X owns, of the components (the answers filtered at the end)
                    typed = again._replace(interpretation=interp.model_copy(update={"answer_types": kept}))
                    read.setdefault((tuple(interp.predicates), interp.start_id), (question, typed))
    if not read and (bare := without_leading_frame(request)) is not None:
        # "could you identify the members of X": the words after a request frame, read as a request of their own (every
        # route, their own rewordings too: shorter words, so this ends)
        again = interpret(bare, cv, depth=depth)
        if again.interpretation is not None:
            read[(tuple(again.interpretation.predicates), again.interpretation.start_id)] = (bare, again)
    if not read and (other := second_verb(request, vocab)) is not None:
        # "what uses the statements bucket": an everyday verb put as its second catalog verb ("depends on"), read as a
        # request of its own (every route); its words hold no verb of the table, so this ends
        again = interpret(other, cv, depth=depth)
        if again.interpretation is not None:
            read[(tuple(again.interpretation.predicates), again.interpretation.start_id)] = (other, again)
    if not read:
        return None
    if len(read) > 1:
        return _ambiguous_reading([(" → ".join(chain), start) for chain, start in read])
    text, again = next(iter(read.values()))
    interp = again.interpretation
    assert interp is not None
    record = [WordMatch(words=request, part="pattern", how="reworded", target=text), *interp.match]
    route = f"{interp.reading}+reworded" if interp.reading else "reworded"
    return again._replace(interpretation=interp.model_copy(update={"reading": route, "match": record}))


def _steps(request: str, cv: ViewReader, depth: int) -> Reading | None:
    """A chain said as steps, read as the one possessive question it stands for (``steps_question``); the
    interpretation records that question (``reading`` ``steps``). None when the words are no steps or the
    question reads as nothing (the request's own refusal then stands)."""
    from chainret.query.nested import steps_question

    asked = steps_question(request)
    if asked is None:
        return None
    reading = interpret(asked, cv, depth=depth + 1)
    interp = reading.interpretation
    if interp is None:
        return reading if reading.outcome == "refused" and reading.reason is not None and reading.reason.code != RefusalCode.UNKNOWN_ENTITY else None
    record = [WordMatch(words=request, part="pattern", how="steps", target=asked), *interp.match]
    return reading._replace(interpretation=interp.model_copy(update={"reading": "steps", "match": record}))


def _answer_heads(specs: list[PatternSpec], cv: ViewReader) -> dict[str, set[frozenset[str]]]:
    """The nouns the phrasings ask with ("which team owns {component}": ``team``) -> the answer types of each pattern
    they ask with (the range of its last predicate)."""
    from chainret.catalog.patterns import parsed_phrasings
    from chainret.query.nested import _singular, asked_noun

    out: dict[str, set[frozenset[str]]] = {}
    for pat, _, lits, at, _ in parsed_phrasings(specs):
        if (noun := asked_noun(lits, at)) is not None:
            pred = cv.predicate(pat.predicates[-1])
            if pred is not None:
                out.setdefault(noun, set()).add(frozenset(pred.range_types))
    # a type's own words ask for it too ("which department is X under": a group), in the number the phrasing has
    for noun, answers in list(out.items()):
        plural = _singular(noun) != noun
        for types in list(answers):
            if noun in types or _singular(noun) in types:
                for t in types:
                    for w in (*TYPE_WORDS.get(t, ()), *KIND_WORDS.get(t, ())):
                        out.setdefault(w + "s" if plural else w, set()).add(types)
    # every type's own plural names its entities as a bare noun phrase's head ("resources owned by X"), where no
    # phrasing asks with it: the reading that drops it is then held to it (``_head_holds``)
    for t in sorted({t for p in cv.catalog.predicates for t in (*p.domain_types, *p.range_types)}):
        for w in sorted(type_words(t)):
            out.setdefault(w + "s", {frozenset({t})})
    return out


def _nested(request: str, cv: ViewReader, depth: int, answers_of: frozenset[str] = frozenset()) -> Reading | None:
    """The one composed reading of a request whose slot is an inner request (``chainret.query.nested``), an
    ``ambiguous_reading`` refusal when its readings differ, or None when it has none. A chain that returns over its
    start (``_returns``) is taken only where the answers are kept to ``answers_of`` and the start is of none of them:
    the start the engine never enters twice could not have been an answer."""
    from chainret.query.lexicon import lexicon
    from chainret.query.nested import head_nouns, lone_head, nested_readings, slot_head  # (only for a request the flat readings did not read)

    specs = pattern_specs(cv.catalog)
    lex = lexicon(cv.catalog)
    vocab = lex.vocabulary(specs)

    def range_of(name: str) -> tuple[str, ...]:
        pred = cv.predicate(name)
        return pred.range_types if pred is not None else ()

    types = [t for p in cv.catalog.predicates for t in (*p.domain_types, *p.range_types)]
    heads = head_nouns(specs, list(dict.fromkeys(types)), lex.relation_nouns())
    found = nested_readings(request, specs, vocab, lambda text: _inner(text, cv, depth + 1), range_of, heads)
    options: dict[tuple[tuple[str, ...], str, tuple[tuple[str, ...], ...]], tuple[Inner, list[list[str]]]] = {}
    for n in found:
        # "the resources that X depends on" read as "what does X depend on": where the outer chain goes on from
        # what is not a resource, every answer of the inner chain must be one; or, where they are of several types
        # ("Client Tech's components": what it owns), the chain goes on from those of the noun's types only
        head = slot_head(n.slot_words)
        then = n.outer_pattern.predicates[0]
        if not _head_said(head, n.question, cv):
            continue
        typed = n.interpretation.typed_hops()
        if not _head_holds(head, n.interpretation, cv, then):
            kept = _head_among(head, n.interpretation, cv, then) if head is not None and lone_head(n.slot_words) else []
            if not kept:
                continue
            typed[-1] = [t for t in typed[-1] if t in kept] if typed[-1] else kept
        chain = (*n.interpretation.predicates, *n.outer_pattern.predicates)
        if _returns(chain, cv) and (not answers_of or n.interpretation.start_id.partition(":")[0] in answers_of):
            continue
        hops = _needed(chain, [*typed, *([] for _ in n.outer_pattern.predicates)], cv)
        options.setdefault((chain, n.interpretation.start_id, tuple(tuple(t) for t in hops)), (n, hops))
    if not options:
        return None
    if len(options) > 1:
        return _ambiguous_reading([(" → ".join(chain), start) for chain, start, _ in options])
    (chain, start, _), (n, hops) = next(iter(options.items()))
    inner = n.interpretation
    record = [
        WordMatch(words=n.slot_words, part="pattern", how="nested", target=n.outer_phrasing),
        WordMatch(words=n.question, part="inner", how="nested", target=inner.pattern),
        *(m for m in inner.match if m.part != "ignored"),
    ]
    if not any(m.part == "entity" for m in record):
        record.append(WordMatch(words=inner.slot_text, part="entity", how="exact", target=start))
    # a composed chain that is a declared pattern's (from the same start type) is that pattern, read another way
    declared = next((p.name for p in specs if list(p.predicates) == list(chain) and p.start_type == inner.slot), None)
    interp = Interpretation.model_construct(
        pattern=declared or f"{inner.pattern}+{n.outer_pattern.name}",
        slot=inner.slot,
        slot_text=inner.slot_text,
        start_id=start,
        predicates=list(chain),
        view=cv.view_name,
        principal=cv.principal,
        reading="nested",
        match=record,
        answer_types=[],
        hop_types=hops if any(hops) else [],
    )
    return Reading(interpretation=interp)


def _inner(question: str, cv: ViewReader, depth: int) -> Reading:
    """An inner question's reading (``chainret.query.nested``): its own words, or where they read as nothing, the question
    its sentence frame stands for ("which teams does X belong to": "which teams is X in"; ``chainret.query.frames``), so a
    relative clause said in a frame ("the teams that X belongs to") reads as the frame does at the top."""
    reading = interpret(question, cv, depth=depth)
    if reading.interpretation is not None:
        return reading
    from chainret.query.frames import frame_question

    framed = frame_question(question)
    return reading if framed is None else interpret(framed, cv, depth=depth)


def _needed(chain: Sequence[str], hops: list[list[str]], cv: ViewReader) -> list[list[str]]:
    """Each hop's types where they say something: a hop's types that hold every value the hop may go on with (its
    range, and the next predicate's domain) are dropped, so that one chain typed and not typed reads as one."""
    out: list[list[str]] = []
    for k, types in enumerate(hops):
        pred = cv.predicate(chain[k])
        may = set(pred.range_types if pred is not None else ())
        if k + 1 < len(chain) and (nxt := cv.predicate(chain[k + 1])) is not None:
            may &= set(nxt.domain_types)
        out.append(sorted(t for t in types if t in may) if types and not may <= set(types) else [])
    return out


def _returns(chain: tuple[str, ...], cv: ViewReader) -> bool:
    """Whether a composed chain goes over a relation and then back over its inverse ("the teams Kenji is on", then
    "who is on them": ``member_of`` then ``has_member``), so that the start entity is among the answers. The engine
    never enters an entity twice on one path, so the set it gives would lack the start: such a reading is not taken
    (refused), never answered with one member short and called complete."""
    said = {p.name: (p.description or "") for p in cv.catalog.predicates}
    return any(said.get(q, "").startswith(f"inverse of {p}") or said.get(p, "").startswith(f"inverse of {q}")
               for p, q in zip(chain, chain[1:]))


HEAD_CHECK_MAX = 256  # entities a head noun's check walks to at one hop; more, and the reading is not taken


def _head_holds(noun: str | None, interp: Interpretation, cv: ViewReader, then: str | None = None) -> bool:
    """Whether a reading that dropped its head noun ("which components depend on X" read as "what depends on X";
    "the resources X depends on" as "what does X depend on") still answers only things the noun names: True when
    the noun names no type, or when every type the chain may end at (and, with ``then``, that the predicate
    ``then`` goes on from) is the noun's; else only when every answer the view holds from the start entity is of
    the noun's type (walked over the relations the principal may read, as the engine advances), and never where the
    chain cannot end at the noun's type at all. A walk that reaches more than ``HEAD_CHECK_MAX`` entities at a hop is
    not taken: the reading is refused, not guessed."""
    if noun is None:
        return True
    pred = cv.predicate(interp.predicates[-1])
    ends = set(pred.range_types if pred is not None else ())
    if then is not None:
        nxt = cv.predicate(then)
        ends &= set(nxt.domain_types if nxt is not None else ())
    named = _head_types(noun, cv)
    if not named or ends <= named:
        return True
    if not ends & named:  # the chain never ends at the noun's type: an empty walk must not hold it ("Alice's teams" as
        return False  # "what does Alice own", where Alice owns nothing)
    frontier = _reached(interp, cv)
    if frontier is None:
        return False
    found = cv.entities_of(sorted(frontier))
    return len(found) == len(frontier) and all(e.type in named for e in found.values())


def _reached(interp: Interpretation, cv: ViewReader) -> set[str] | None:
    """The values the chain reaches from its start entity in the view (over the relations the principal may read, as the
    engine advances), a typed hop keeping the values of its types only (``Interpretation.typed_hops``); None where a hop
    reaches more than ``HEAD_CHECK_MAX`` (the check is not made: the reading is not taken)."""
    frontier = {interp.start_id}
    for name, types in zip(interp.predicates, interp.typed_hops(), strict=True):
        frontier = {r.object for s in frontier for r in cv.current_relations(s, name)}
        if len(frontier) > HEAD_CHECK_MAX:
            return None
        if types:
            found = cv.entities_of(sorted(frontier))
            frontier = {i for i in frontier if i in found and found[i].type in types}
    return frontier


def _head_among(noun: str, interp: Interpretation, cv: ViewReader, then: str | None = None) -> list[str]:
    """The types of the noun's that a chain's answers are among, where they are of several (``_head_holds`` said no):
    the noun's types the chain may end at (and, with ``then``, that the predicate ``then`` goes on from), where the walk
    from the start entity (``_reached``) reaches at least one entity of them and at most ``HEAD_CHECK_MAX`` at a hop;
    else none (the reading is not taken). The answers are then those of the types (``Interpretation.typed_hops``,
    ``chainret.pipeline.ask``), never the others shown as the noun's."""
    pred = cv.predicate(interp.predicates[-1])
    named = _head_types(noun, cv) & set(pred.range_types if pred is not None else ())
    if then is not None:
        nxt = cv.predicate(then)
        named &= set(nxt.domain_types if nxt is not None else ())
    if not named:
        return []
    frontier = _reached(interp, cv)
    if frontier is None:
        return []
    found = cv.entities_of(sorted(frontier))
    return sorted(named) if any(e.type in named for e in found.values()) else []


def _head_said(noun: str | None, question: str, cv: ViewReader) -> bool:
    """Whether a question read for a noun phrase keeps what its head noun says: the noun is in the question ("which
    teams is Alice in"), or it is a generic head ("the stuff that calls X": "what calls X"), or it names a type, which
    ``_head_holds`` checks. A relation noun dropped is not ("hpc-ops's subgroups" is never "what does hpc-ops own")."""
    from chainret.query.nested import GENERIC_HEADS, _singular

    if noun is None or noun in GENERIC_HEADS:
        return True
    said = {w.lower() for w in words(question)}
    return noun in said or _singular(noun) in {_singular(w) for w in said} or bool(_head_types(noun, cv))


def _head_types(noun: str, cv: ViewReader) -> set[str]:
    """The entity types a head noun names ("components": component; "teams": group), of the catalog's types."""
    from chainret.query.nested import _singular

    types = {t for p in cv.catalog.predicates for t in (*p.domain_types, *p.range_types)}
    return {t for t in types if noun in type_words(t) or _singular(noun) in type_words(t)}


def _interpret_flat(request: str, cv: ViewReader) -> Reading:
    """``interpret`` without reading a slot as an inner request."""
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
    again, near = _read_again(request, specs, cv)
    if again is not None:
        return again
    if not matches:
        # A tolerant reading matched a phrasing but its words name nothing ("who's the contact for
        # pr-48"): that is an unknown entity, not an unknown pattern, when the readings of the request as
        # written (else all readings, fronted-topic rewrites included) agree on the words.
        texts = (list(dict.fromkeys(m.words for r, m in unresolved if m.words and not r.via))
                 or list(dict.fromkeys(m.words for _, m in unresolved if m.words)))
        if len(texts) != 1 or not _reads_as_a_name(texts[0]):
            return Reading(
                outcome="no_pattern",
                reason=Refusal(code=RefusalCode.NO_PATTERN, message="no relation pattern applies to this request"
                               + "".join(f"; {n.say()}: ask with one of them" for n in near),
                               details={"near": [n.say() for n in near]} if near else {}),
            )
        said = [(r, m) for r, m in unresolved if m.words == texts[0]]
        tolerant_unknown = [{"slot_text": m.words, "slot_type": r.pattern.start_type} for r, m in said]
        return _unknown_entity(tolerant_unknown, [r.pattern for r, _ in said], cv)
    return _unknown_entity(unknown, [m.pattern for m in matches], cv)


def _read_again(request: str, specs: list[PatternSpec], cv: Any) -> tuple[Reading | None, list[Any]]:
    """The request read again with the words the catalog never declared replaced by the relation words they
    stand for (``chainret.query.synonyms``: the vector table is opened only here), the first rewrite that
    resolves recorded word by word; and the words that stood for two relations at once."""
    from chainret.query.synonyms import read_again

    rewrites, near = read_again(request, specs, cv)
    for rw in rewrites:
        again, _ = _tolerant(rw.text, specs, [], cv)
        if again is None or again.interpretation is None:
            continue
        interp = again.interpretation
        record = [WordMatch(words=s.words, part="relation", how=s.how, target=s.owner, label=s.target,
                            distance=s.distance, similarity=s.similarity, table=s.table) for s in rw.substitutions]
        return again._replace(interpretation=interp.model_copy(update={"match": [*record, *interp.match]})), []
    # a word near two relations is named in the refusal only where either reading of it would be understood
    return None, [n for n in near if any((r := _tolerant(t, specs, [], cv)[0]) is not None and r.interpretation
                                         is not None for t in n.texts)]


# Words that make slot words a phrase about something ("PR-7's supplier", "the vendor of PR-7", "PR-7 and
# PR-8") rather than one name: such a request says more than the pattern, so it stays no_pattern.
_PHRASE_WORDS = frozenset({"of", "for", "at", "by", "in", "on", "from", "to", "with", "and", "or", "not", "no", "than"})


def _reads_as_a_name(text: str) -> bool:
    """True when tolerant slot words could be one entity's name (no possessive, no joining word)."""
    low = ascii_marks(text).casefold()
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
        declared = cv.predicate(pattern.predicates[0])  # its declared noun first: governed_by is no "governer"
        noun = declared.nouns[0] if declared is not None and declared.nouns else relation_noun(pattern.predicates[0])
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
    if not u["other_types"]:  # "Bob" where the catalog names "Bob Smith" and "Bob Jones": they come first
        starts = name_completions(u["slot_text"], u["slot_type"], cv)
        near = [*starts, *(e for e in near if e.id not in {s.id for s in starts})]
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
        return _ambiguous_reading(options), []
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


# -- a request that carries its time ------------------------------------------------------------------
def interpret_at(when: TimeWords, cv: ViewReader) -> Reading:
    """Interpret the words of a request that said when it asks about (``chainret.query.when``), in the view
    those words resolved to (``cv``): the words without the time phrase, else the same words with the past
    tense the time called for put in the present ("who owned X" reads as "who owns X"). Variants that
    read two ways refuse as ``ambiguous_reading``. The interpretation records the time words (``part``
    ``time``, the view they resolved to) and every verb it put in the present (``how`` ``tense``)."""
    reading = interpret(when.rest, cv)
    rewrites: list[tuple[str, str]] = []
    if reading.interpretation is None:
        from chainret.query.frames import FRAME_VERBS, PHRASE_VERBS, everyday_words
        from chainret.query.lexicon import lexicon
        from chainret.query.when import present_variants

        lex = lexicon(cv.catalog)
        vocab = lex.vocabulary(pattern_specs(cv.catalog))
        # (a frame's own verbs too: "who reviewed P in August" is "who reviews P", a frame's question, then; and an
        # everyday phrase's: "which team looked after X in February" is "which team looks after X")
        tense_vocab = vocab | FRAME_VERBS | PHRASE_VERBS
        # the words as said, and with their everyday verbs in the catalog's ("used" -> "consumed" -> "consume")
        said = dict.fromkeys((when.rest, everyday_words(when.rest, vocab, lex.verb_owners())))
        tries = [(r, interpret(text, cv)) for rest in said for text, r in present_variants(rest, tense_vocab)]
        read = [(r, t) for r, t in tries if t.interpretation is not None]
        # two variants mean the same when they follow the same chain from the same entity (a declared pattern
        # and the same hops composed), whatever the patterns' names
        chains = {(tuple(t.interpretation.predicates), t.interpretation.start_id): t.interpretation.pattern
                  for _, t in reversed(read) if t.interpretation}
        if len(chains) > 1:
            return _ambiguous_reading([(p, start) for (_, start), p in chains.items()])
        if read:
            rewrites, reading = read[0]
        else:
            refused = [t for _, t in tries if t.outcome == "refused"]
            if reading.outcome == "no_pattern" and refused:
                reading = refused[0]
    if reading.interpretation is None:
        return reading
    interp = reading.interpretation
    record = [*interp.match]
    record += [WordMatch(words=past, part="pattern", how="tense", target=present) for past, present in rewrites]
    record.append(WordMatch(words=when.words, part="time", how="relative" if when.relative else "date",
                            target=cv.view_name, label=when.day.isoformat()))
    if when.aside:  # a named event said beside the date: the date chose the view, the event words are shown as read so
        record.append(WordMatch(words=when.aside, part="time", how="apposition", target=cv.view_name,
                                label=when.day.isoformat()))
    route = f"{interp.reading}+time" if interp.reading else "time"
    return reading._replace(interpretation=interp.model_copy(update={"reading": route, "match": record}))


def _ambiguous_reading(options: list[tuple[str, str]]) -> Reading:
    """The refusal for words that read as more than one (pattern, start entity)."""
    return Reading(
        outcome="refused",
        reason=Refusal(
            code=RefusalCode.AMBIGUOUS_READING,
            message=f"the request reads {len(options)} ways: "
            + ", ".join(f"pattern {p} from {e}" for p, e in options)
            + "; ask again with a phrasing of one pattern (`chainret patterns`) and one canonical ID",
            details={"readings": [{"pattern": p, "start_id": e} for p, e in options]},
        ),
    )
