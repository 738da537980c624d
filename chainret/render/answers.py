"""A set answer in words: every member with its name and path, and the line that says whether that is all.

One home for what every surface shows of a set answer (``Trace.answers`` and ``Trace.completeness``, a trace
of schema 1.1): ``chainret ask`` (plain text, rich, ``-q``, ``--json``), HTTP ``/ask`` and the MCP ``ask``
tool, ``/ui`` and ``trace show --html``. A subset is never shown without ``completeness_words`` beside it:
one value of several read as the answer is the mistake this module exists to prevent.

Plain strings only (nothing is escaped or styled here: each surface escapes as it always does), and no
import beyond the standard library, so the light ``chainret ask`` path can use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # (types only: no import at run time, the light ask path stays light)
    from chainret.trace.model import Completeness, Trace


# A complete empty set in words: what was read, and that nothing in it matched.
EMPTY_WORDS = "none: everything in this view that you may read was checked, and nothing matches"


class NamedAnswer(NamedTuple):
    """One member of a set answer as its viewer may know it: the ID stands for a name the viewer cannot see."""

    id: str
    name: str
    path: list[tuple[str, str]]  # (ID, display name) of every entity of its path, start first
    relations: list[str]  # relation ids of its path, in order


def named_answers(trace: Trace, names: dict[str, str]) -> list[NamedAnswer]:
    """Every answer of a set trace, named, in the trace's order; empty for a 1.0 trace (no ``answers``)."""
    return [NamedAnswer(a.id, names.get(a.id, a.id), [(i, names.get(i, i)) for i in a.path_ids], list(a.relations))
            for a in trace.answers or ()]


def is_set(trace: Trace) -> bool:
    """Whether the trace answers with a set (a many-valued hop) and so must show its completeness."""
    return trace.outcome == "accepted_path" and bool(trace.answers) and trace.completeness is not None


def is_empty_set(trace: Trace) -> bool:
    """Whether the trace answers with the empty set, shown complete: a coverage ask ("which teams have no members")
    whose whole view was read and in which nothing matched. It is an answer, "none", and never "no answer": that
    would read as a refusal, and a reader could not tell "nothing lacks an owner" from "could not tell"."""
    return (trace.outcome == "accepted_path" and trace.completeness is not None and trace.completeness.complete
            and trace.answers is not None and not trace.answers and not trace.path_ids)


def check_words(trace: Trace, names: dict[str, str] | None = None) -> tuple[str, str] | None:
    """A yes/no ask's answer (``chainret.query.check``: "is Bo on growth"), or None for another ask: ("yes", why),
    ("no", why) or ("not known", why), why naming the entity asked about and the question its answers come from."""
    check = trace.meta.get("check")
    if not isinstance(check, dict) or "holds" not in check or trace.outcome != "accepted_path":
        return None
    ident = str(check["entity"])
    who = named_id(ident, (names or {}).get(ident, ident))
    asked = f"the answers to \"{check['question']}\""
    if check.get("exists") and check["holds"] is True:  # "is Jun on any team": the question from it has answers
        return "yes", f"{asked} from {who} are not none"
    if check["holds"] is True:
        return "yes", f"{who} is one of {asked}"
    if check["holds"] is False:
        return "no", f"{who} is not one of {asked}, which are complete"
    return "not known", f"{who} is not one of {asked} shown, and they are a part of the set"


def count_words(trace: Trace) -> str | None:
    """A count ask's number (``chainret.query.count``: "how many people are on growth"), or None for another ask or
    no answer: the set's eligible count (the readable catalog's, so the number holds where the budget cut the members
    shown: "99 (25 shown)"), "at least K" where the set could not be counted, 0 for the complete empty set, 1 for a
    single-valued answer."""
    if trace.outcome != "accepted_path" or not isinstance(trace.meta.get("count"), dict):
        return None
    c = trace.completeness
    if c is None:
        return "1" if trace.path_ids else None
    if c.complete:
        return str(c.answered)
    if c.eligible is None:
        return f"at least {c.answered}"
    return f"{c.eligible} ({c.answered} shown)"


def completeness_words(c: Completeness) -> str:
    """``all N``; ``none: ...`` for a complete empty set; ``K of N shown: <reasons>; <flag> would reach the rest``;
    or, when the set could not be counted (``eligible`` is None), ``K found; the budget stopped ...``."""
    if c.complete and not c.answered:
        return EMPTY_WORDS
    if c.complete:
        return f"all {c.eligible if c.eligible is not None else c.answered}"
    flags = " or ".join(c.flags)
    if c.eligible is not None:
        head = f"{c.answered} of {c.eligible} shown"
    elif c.flags:
        head = f"{c.answered} found; the budget stopped before the whole set could be counted"
    else:
        head = f"{c.answered} found; the whole set could not be counted"
    reasons = "; ".join(c.reasons) or "not every supported value was reached"
    return f"{head}: {reasons}" + (f"; {flags} would reach the rest" if flags else "")


def named_id(ident: str, name: str) -> str:
    """An entity as a sentence names it: ``name (ID)``, or the ID alone where it stands for the name."""
    return ident if name == ident else f"{name} ({ident})"


def listed(answers: list[NamedAnswer]) -> str:
    """The members on one line: ``name (ID), name (ID)`` (the ID alone where it is the name)."""
    return ", ".join(named_id(a.id, a.name) for a in answers)
