"""The functional-predicate rule, in one place.

A functional predicate allows one current object per subject (``functional: true`` in the
catalog). Usable relations giving one subject two different objects over it are a contradiction:
the hop engine will not cross it, and ``chainret validate`` warns about it per view and principal.
The graph oracle in ``chainret.catalog.graph`` restates the rule on purpose: an oracle that
shared this code could not catch a bug in it.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby
from operator import attrgetter
from typing import Protocol, TypeVar


class Triple(Protocol):
    """A relation's ends and predicate (a catalog ``Relation``, or a header's prose relation before it has an ID)."""

    @property
    def subject(self) -> str: ...

    @property
    def predicate(self) -> str: ...

    @property
    def object(self) -> str: ...


class Assignment(Triple, Protocol):
    """A relation as far as the rule cares: its ID, and which object it gives which subject over what."""

    @property
    def id(self) -> str: ...


A = TypeVar("A", bound=Assignment)


def opposing(assignments: Iterable[Assignment], proposed: str) -> list[str]:
    """IDs (sorted, distinct) of the assignments of another object than ``proposed``: empty when settled."""
    return sorted({a.id for a in assignments if a.object != proposed})


def contradicted(assignments: Iterable[Assignment]) -> bool:
    """Do these assignments of one subject over one functional predicate name more than one object?"""
    return len({a.object for a in assignments}) > 1


def contradictions(assignments: Iterable[A], functional: frozenset[str]) -> dict[tuple[str, str], list[A]]:
    """The (subject, predicate) groups over a functional predicate that are contradicted, sorted by key
    (each group in the order given). Grouped by a stable sort, not in a dict of every group: a
    50,000-component import has about 100,000 groups, nearly all of one relation, and the dict held
    a key and a list for each while ``chainret validate``'s checks ran (``benchmarks/records_scale.py``)."""
    out: dict[tuple[str, str], list[A]] = {}
    for key, group in groupby(sorted((a for a in assignments if a.predicate in functional), key=_subject_predicate),
                              key=_subject_predicate):
        rels = list(group)
        if len(rels) > 1 and contradicted(rels):
            out[key] = rels
    return out


_subject_predicate = attrgetter("subject", "predicate")
