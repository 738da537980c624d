"""A kind word as the start of a request: "which teams own the workers", "who is on the teams that own our databases".

The start of a chain is one entity; a request may instead start from every entity of a kind ("the workers": each
component whose descriptor declares ``spec.type: worker``; "an s3 bucket": any of them, so each is followed), or name
the one entity of a kind ("the mobile app", where exactly one readable component is a mobile app). The kind word is
read as ``chainret.query.kinds`` reads it (the kind the view's descriptors declare, the declaring unit its anchor),
its noun phrase by ``chainret.query.kinds.start_phrase``; its entities are those a readable unit declares of the kind
(``kind_members``), within a container where the phrase names one ("the storefront websites": the websites in the
system storefront, read by the coverage asks' scope reader, ``chainret.pipeline.ownership.scope_members``).

The request is then read with the phrase said as one of those entities (its canonical ID, so that no name can read
otherwise), by the whole interpreter; the reading must start from that entity, and two of the entities must read as
the same chain. The chain is followed from each entity (the engine's set run, ``run_set``, one per entity), and the
answer is the union of their answers, each with its own supported path from its own start. It is complete only when
every entity's set is (``set_answer``) and the start set is every entity of the kind the reader may read: an entity
of the type that declares no kind (or whose declaring unit the reader may not read) might be of it, and the answer
then says so.

Why substitute an ID and reuse the interpreter rather than a grammar of its own: every construction the interpreter
reads for one entity ("who is on the teams that own X", "which systems is X in", a time word, a reduced relative
clause) then reads for a kind, and a reading it would refuse for one entity is refused for the kind too. Only a request
that holds a kind word and that no other reading answers comes here (``chainret.pipeline.ask``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from chainret.core.budget import FANOUT_MAX_SEARCHES, fanout_budget
from chainret.core.codes import RefusalCode
from chainret.query.kinds import KindFilter, KindMembers, KindPhrase, kind_members, start_phrase
from chainret.trace.model import Budget, Completeness, Hop, Interpretation, Refusal, SetAnswer, Trace, WordMatch

if TYPE_CHECKING:
    from chainret.engine.reader import Rel
    from chainret.query.interpret import Reading
    from chainret.store.base import CatalogReader, ViewReader

# The most entities a start set is followed from: each is a chain of its own, so a kind of hundreds of entities would
# cost hundreds of runs; past it the request is refused, saying how many there are.
START_SET_MOST = FANOUT_MAX_SEARCHES


class StartSet(NamedTuple):
    """A kind word read as a request's start: its phrase, its filter, the entities of the kind and the scope it is in."""

    phrase: KindPhrase
    filter: KindFilter
    found: KindMembers
    scope: dict[str, Any] | None
    refusal: Refusal | None

    def record(self) -> dict[str, Any]:
        """How the trace states the start set (``meta.start_set``): the words, the kind, every entity with the unit
        that declares its kind, those of the type that declare none, and the container where one was said."""
        f = self.filter
        return {"words": self.phrase.said, "word": f.word.word, "type": f.word.type, "kind": f.kind,
                "every": self.phrase.every, "members": [{"id": i, "kind": d.kind, "cite": d.cite()}
                                                        for i, d in self.found.members.items()],
                "undeclared": self.found.undeclared, **({"scope": self.scope} if self.scope else {})}


def read_start_set(words: str, filters: Sequence[KindFilter], cv: ViewReader) -> StartSet | None:
    """The start set a request's kind word says (module docstring), with the refusal it gets where its words read (a
    loose word whose two readings differ, "the <kind>" of several); None where no kind word is said as a noun phrase of
    its own, or two are, or its kind has no readable entity."""
    said = [(f, p) for f in filters if (p := start_phrase(words, f, cv)) is not None]
    if len(said) != 1:
        return None
    (f, phrase), = said
    scope = among = None
    if phrase.modifier:  # "the storefront websites": the websites in storefront, one reading only
        from chainret.pipeline.ownership import scope_members

        within = scope_members(f"{phrase.modifier}'s {f.word.type}s", {f.word.type}, cv)
        if within is None:
            return None
        scope, reached = within
        among = set(reached)
    found = kind_members(f, cv, among)
    if not found.members:
        return None
    # said so, the words are refused, once they read as a chain from one of the kind's entities (``start_set_trace``):
    # "the services" where a component of another kind makes "every component" another answer; "the worker" of two
    refusal = f.ambiguity([*found.members, *found.undeclared, *found.others])
    if refusal is None and not phrase.every and len(found.members) > 1:
        refusal = Refusal(code=RefusalCode.AMBIGUOUS_READING, message=(
            f"the request says {phrase.said!r}, one {f.word.type} of the kind {f.kind}, but {len(found.members)} are "
            f"readable here ({', '.join(found.members)}): name the one asked about"),
            details={"words": phrase.said, "candidates": list(found.members)})
    return StartSet(phrase, f, found, scope, refusal)


def read_from(start: StartSet, words: str, member: str, read: Callable[[str], Reading], vocab: set[str]
              ) -> Interpretation | Refusal | None:
    """The one reading of ``words`` with the start phrase said as ``member`` (its canonical ID), or in the phrasings'
    number ("which teams own X" as "which team owns X": one entity of a set is singular); only a reading that starts
    from ``member``. A refusal where two read as different chains; None where none reads."""
    from chainret.query.nested import agreement_variants

    said = words[: start.phrase.start] + member + words[start.phrase.end:]
    chains: dict[tuple[Any, ...], Interpretation] = {}
    for text in dict.fromkeys([said, *agreement_variants(said, vocab)]):
        interp = read(text).interpretation
        if interp is not None and interp.start_id == member:
            chains.setdefault((tuple(interp.predicates), repr(interp.typed_hops())), interp)
        if len(chains) == 1 and text == said:
            break  # the words as said read: their number is the phrasings'
    if len(chains) > 1:
        return Refusal(code=RefusalCode.AMBIGUOUS_READING, message=(
            f"the request reads {len(chains)} ways from each {start.filter.word.type} of the kind {start.filter.kind}: "
            + ", ".join(" → ".join(k[0]) for k in chains)), details={"readings": [list(k[0]) for k in chains]})
    return next(iter(chains.values()), None)


def start_set_trace(start: StartSet, words: str, read: Callable[[str], Reading], cat: CatalogReader, cv: ViewReader,
                    budget: Budget, backtrack: bool, base: Mapping[str, Any], meta: dict[str, object],
                    ceiling: Budget | None = None) -> Trace | None:
    """The trace of a request read from a start set: the chain followed from each entity of it, the answers their
    union (module docstring); a refused trace where the entities read two ways or are too many; None where the words
    with an entity in the phrase's place read as nothing that starts from it (the request's own refusal then stands)."""
    from chainret.engine.hops import run_set, set_answer
    from chainret.pipeline.kinds import typed_paths
    from chainret.pipeline.packet import coverage, path_packet
    from chainret.query.interpret import pattern_specs
    from chainret.query.lexicon import lexicon

    meta = {**meta, "start_set": start.record()}
    members = [m for m in start.found.members if cv.knows(m)]  # (one in no readable relation starts no chain)
    if not members:
        return None
    vocab = lexicon(cv.catalog).vocabulary(pattern_specs(cv.catalog))
    readings = [read_from(start, words, m, read, vocab) for m in dict.fromkeys((members[0], members[-1]))]
    if any(isinstance(r, Refusal) for r in readings):
        refused = next(r for r in readings if isinstance(r, Refusal))
        return Trace.model_construct(**base, budget=budget, outcome="refused", reason=refused, meta=meta)
    if any(r is None for r in readings):
        return None
    read_as = [r for r in readings if isinstance(r, Interpretation)]
    if len({(tuple(r.predicates), repr(r.typed_hops())) for r in read_as}) != 1:
        return None  # two entities of the kind read as two chains: the words are not read alike for each
    interp = read_as[0]
    if start.refusal is not None:
        return Trace.model_construct(**base, budget=budget, outcome="refused", reason=start.refusal, meta=meta)
    if len(members) > START_SET_MOST:
        return Trace.model_construct(**base, budget=budget, outcome="refused", meta=meta, reason=Refusal(
            code=RefusalCode.BUDGET_EXHAUSTED, message=(
                f"the request starts from {start.phrase.said!r}: {len(members)} {start.filter.word.type}s of the kind "
                f"{start.filter.kind}, more than the {START_SET_MOST} a request follows; ask about fewer of them")))
    if len(interp.predicates) > budget.max_hops:
        return None  # (the single entity's own refusal says so)
    world = cat.hop_world(cv)
    many = [p not in world.functional for p in interp.predicates]
    each = fanout_budget(budget, many, ceiling)
    answers: dict[str, SetAnswer] = {}
    paths: dict[str, Sequence[Rel]] = {}
    hops: list[Hop] = []
    seen: list[str] = []
    assumptions: list[str] = []
    reasons: list[str] = []
    flags: dict[str, None] = {}
    used = [0, 0]
    eff = each
    for n, m in enumerate(members):
        run, found = run_set(world, m, interp.predicates, each, backtrack=backtrack, sets=True, stating_first=True)
        eff = run.budget
        one = interp.model_copy(update={"start_id": m})
        if found and (interp.answer_types or any(interp.hop_types)):
            found = typed_paths(found, one, cv)
        got, done = set_answer(run, m, found, len(interp.predicates), world)
        for a, p in zip(got, _first_paths(found), strict=True):
            if a.id not in answers:
                answers[a.id], paths[a.id] = a, p
        reasons += [f"from {m}: {why}" for why in done.reasons]
        flags |= dict.fromkeys(done.flags)
        hops += [h.model_copy(update={"branch": str(n) + h.branch[1:]}) for h in run.hops]
        seen += run.seen_refs
        assumptions += [a for a in run.assumptions if a not in assumptions]
        used[0] += eff.max_searches - run.searches_left
        used[1] += eff.max_rows - run.rows_left
    if start.found.undeclared:
        shown = ", ".join(start.found.undeclared[:3]) + (", ..." if len(start.found.undeclared) > 3 else "")
        reasons.append(f"{len(start.found.undeclared)} {start.filter.word.type}(s) of this view declare no kind the reader "
                       f"may read ({shown}): any of them may be of the kind {start.filter.kind}")
    said_as = interp.model_copy(update={
        "start_id": next(iter(answers.values())).path_ids[0] if answers else members[0],
        "slot_text": start.phrase.said,
        "reading": f"{interp.reading}+kinds" if interp.reading else "kinds",
        "match": [WordMatch(words=start.phrase.said, part="entity", how="kind", target=start.filter.kind,
                            label=f"{len(start.found.members)} {start.filter.word.type}(s)"),
                  *(w for w in interp.match if w.part != "entity")]})
    path = next(iter(paths.values()), None)
    packet = None if path is None else path_packet(path, eff)
    if packet is None:
        path = None
    complete = not reasons
    if path is None:
        return Trace.model_construct(**base, interpretation=said_as, budget=eff, hops=hops, outcome="partial_evidence",
                                     reason=Refusal(code=RefusalCode.NO_SUPPORTED_RELATION, message=(
                                         f"no path from any of the {len(members)} {start.filter.word.type}s of the kind "
                                         f"{start.filter.kind} ({', '.join(members[:3])}{', ...' if len(members) > 3 else ''})"
                                         + (": " + "; ".join(reasons) if reasons else ""))),
                                     assumptions=assumptions, meta=meta)
    return Trace.model_construct(
        **base, interpretation=said_as, budget=eff, hops=hops, outcome="accepted_path",
        accepted_path=[r.id for r in path], path_ids=[path[0].subject, *(r.object for r in path)],
        answers=list(answers.values()),
        completeness=Completeness.model_construct(complete=complete, answered=len(answers),
                                                  eligible=len(answers) if complete else None, reasons=reasons,
                                                  flags=list(flags)),
        coverage=coverage(cv, [r.id for r in path], seen, packet, {r.id: r.unit_ref for r in path}),
        packet=packet, assumptions=assumptions, searches_used=used[0], rows_used=used[1], meta=meta)


def _first_paths(paths: Sequence[Sequence[Rel]]) -> list[Sequence[Rel]]:
    """The first path to each end entity, in the order found: ``set_answer``'s answers, one for one."""
    out: dict[str, Sequence[Rel]] = {}
    for p in paths:
        out.setdefault(p[-1].object, p)
    return list(out.values())
