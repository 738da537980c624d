"""A yes/no ask: "is Bo on growth?", "does sre own pager?", "was Ana on growth in January?".

Whether something holds is whether it is among the values of the question that asks for it: "is Bo on growth" is
"who is on growth" and whether Bo is among its answers; "does sre own pager" is "who owns pager" and whether sre is
among them. So the ask is read as that question, with the thing asked about named apart (``read_check``), and
answered by the question's path: *yes* with the member's own path and anchors, *no* only where the question's
answer is complete (every value the reader's readable catalog holds, or a single-valued relation's one value)
and the thing is not among them, and *not known* where the budget cut the set before it (``settle``). Nothing here
decides what holds: a yes is an answer's path, a no is the completeness check's count.

An existential ask ("is Jun on any team?", "does sre own an API?", "does checkout depend on any database?") is the
question for what is asked about ("which team is Jun on", "which API does sre own") from the entity named: *yes* with
its answers where there are some; never *no* from an empty answer here (a reader may not see every relation), so it
is then not answered.

Read by trying each split of the words after the auxiliary ("is" / "are" / "was" / "were" / "does" / "do" / "did")
into the thing asked about, which must name exactly one entity the reader may know, and the rest, which with "who"
or "what" before it must read as a question of the catalog's; a request that two splits read differently, or that
names no entity, is not read (a yes/no answer to a question chainret is unsure it read would be the worst answer).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from chainret.core.words import third_person

_AUX_BE = ("is", "are", "was", "were")
_AUX_DO = ("does", "do", "did")
_ARTICLES = ("the ", "a ", "an ")


class CheckAsk(NamedTuple):
    """A yes/no ask read: the question whose answers decide it, and the entity asked about."""

    question: str  # "who is on growth"
    asked: str  # the words that name the entity, as written: "Bo"
    entity: str  # its ID
    reading: Any  # the question's ``chainret.query.interpret.Reading``
    exists: bool = False  # "is Jun on any team": whether the question from the entity has an answer

    def record(self) -> dict[str, object]:
        """What a trace records of it (``meta.check``), before it is settled."""
        return {"question": self.question, "asked": self.asked, "entity": self.entity, **({"exists": True} if self.exists else {})}


def may_check(request: str) -> bool:
    """Whether ``request`` begins with an auxiliary a yes/no ask begins with."""
    first = request.lstrip().split(" ", 1)[0].lower()
    return first in _AUX_BE or first in _AUX_DO


def _questions(words: list[str]) -> list[tuple[str, str]]:
    """Every (thing asked about, question) a split of ``words`` (the auxiliary first) gives."""
    aux = words[0].lower()
    out: list[tuple[str, str]] = []
    for i in range(2, len(words)):
        asked = " ".join(words[1:i])
        rest = words[i:]
        if aux in _AUX_BE:
            tail = " ".join(rest)
            be = "was" if aux in ("was", "were") else "is"
            out += [(asked, f"{wh} {be} {tail}") for wh in ("who", "what")]
        elif len(rest) >= 2:  # (after "did", the present: the time words, if any, choose the view: "who owns X in May")
            out += [(asked, f"{wh} {third_person(rest[0])} {' '.join(rest[1:])}") for wh in ("who", "what")]
    return out


# "on any team", "a member of a team", "own an API", "depend on any database": a relation to some entity of a noun
_SOME = r"(?:any|an?|some|at\s+least\s+one)"
_PREPS = r"(?:on|in|under|part\s+of|a\s+part\s+of|a\s+member\s+of|members\s+of)"


def _existentials(words: list[str]) -> list[tuple[str, str]]:
    """Every (thing asked about, question for what it relates to) a split of an existential ask gives ("is Jun on any
    team": ("Jun", "which team is Jun on"))."""
    aux = words[0].lower()
    out: list[tuple[str, str]] = []
    for i in range(2, len(words)):
        asked, rest = " ".join(words[1:i]), " ".join(words[i:]).lower()
        if aux in _AUX_BE:
            m = re.fullmatch(rf"(?P<prep>{_PREPS})\s+{_SOME}\s+(?P<noun>[a-z][a-z-]*)", rest)
            if m is not None:
                be = "was" if aux in ("was", "were") else "is"
                out.append((asked, f"which {m.group('noun')} {be} {asked} {m.group('prep')}"))
        else:
            m = re.fullmatch(rf"(?P<verb>[a-z]+)(?P<prep>\s+(?:on|to|from|with))?\s+{_SOME}\s+(?P<noun>[a-z][a-z-]*)", rest)
            if m is not None:
                out.append((asked, f"which {m.group('noun')} does {asked} {m.group('verb')}{m.group('prep') or ''}"))
    return out


def _entities(words: str, cv: Any) -> list[Any]:
    """The entities ``words`` name exactly (or after a leading article) that the reader may know."""
    for said in (words, *(words[len(a):] for a in _ARTICLES if words.lower().startswith(a))):
        found = [e for e in cv.resolve(said) if cv.knows(e.id)]
        if found:
            return found
    return []


def _answer_types(reading: Any, cv: Any) -> set[str] | None:
    """The types the question's answers can be: its last relation's range (None where the catalog does not say)."""
    pred = cv.predicate(reading.interpretation.predicates[-1])
    return set(pred.range_types) if pred is not None and pred.range_types else None


def read_check(words: str, cv: Any, interpret_words: Any) -> CheckAsk | None:
    """The yes/no ask ``words`` is over ``cv`` (``interpret_words``: words -> Reading, the reader of the request's
    view and time), or None: exactly one split must name one entity and read as a question of the catalog's."""
    toks = re.sub(r"[?!.]+\s*$", "", words.strip()).split()
    if len(toks) < 3 or not may_check(words):
        return None
    found: dict[tuple[str, str], CheckAsk] = {}
    for asked, question in _questions(toks):
        named = _entities(asked, cv)
        if not named:
            continue
        reading = interpret_words(question)
        if reading.interpretation is None:
            continue
        types = _answer_types(reading, cv)  # "Ana" names a user and a code owner: "who is on growth" answers users
        fits = {e.id for e in named if types is None or e.type in types}
        if len(fits) != 1:
            continue  # no such thing among the answers' kinds, or two by that name: never a pick
        it = reading.interpretation
        entity = fits.pop()
        found.setdefault((entity, f"{it.pattern} {it.start_id}"), CheckAsk(question, asked, entity, reading))
    if not found:
        for asked, question in _existentials(toks):
            ids = {e.id for e in _entities(asked, cv)}
            reading = interpret_words(question) if ids else None
            it = reading.interpretation if reading is not None else None
            if it is not None and it.start_id in ids:  # (the question is from the entity named, no other)
                found.setdefault((it.start_id, f"{it.pattern} {it.start_id}"),
                                 CheckAsk(question, asked, it.start_id, reading, True))
    return next(iter(found.values())) if len(found) == 1 else None


def settle(trace: Any, check: CheckAsk) -> dict[str, object]:
    """``meta.check`` of an answered yes/no ask: ``holds`` True (the entity is an answer: its path is the proof),
    False (the answer is complete and it is not among them), or None (the budget cut the set before it could tell)."""
    if trace.outcome != "accepted_path":
        return {**check.record(), "holds": None}
    if check.exists:  # an answer is the proof; an accepted trace has one
        return {**check.record(), "holds": True}
    members = {a.id for a in trace.answers} if trace.answers else {(trace.path_ids or [""])[-1]}
    if check.entity in members:
        return {**check.record(), "holds": True}
    complete = trace.completeness is None or trace.completeness.complete  # (a single-valued chain: its one value)
    return {**check.record(), "holds": False if complete else None}
