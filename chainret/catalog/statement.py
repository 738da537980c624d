"""Does a quote state the step it supports? Checked from the cited text alone: the one home of the support check.

Three callers compose nothing of their own: ``chainret.catalog.defects.relation_defects`` (a record's
``clause_mismatch`` / ``prose_mismatch`` when a catalog is loaded or compiled), the hop engine at every
hop (``chainret.engine.hops``) and ``trace verify``
(``chainret.verify.replay``). A store's compile-time defect flags say whether each relation record's
quote states it; a store whose rows were edited after compiling (an object ID changed in a ``.db``
file) still carries the old flags. So the engine and ``trace verify`` re-derive the statement from the
quote itself:

* a ``clause`` quote must parse as exactly ``REL subject | predicate | object`` of the step;
* a ``prose`` quote must name both ends, by canonical ID, display name or alias as the catalog
  declares them; the check says which term it found (``Statement.named``).

The bridge a hop records is the step's object, so a quote that does not name it never licenses a
transition, whatever a store's flags say. The check costs a string split (clause) or two regular
expression searches (prose) per relation a hop reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from chainret.catalog.clause import parse_clause
from chainret.catalog.models import mention_terms, mentions_term
from chainret.core.codes import DefectCode

EntityLookup = Callable[[str], Any | None]


_NONE_NAMED: Mapping[str, str] = MappingProxyType({})  # a default shared by every Statement: read-only


class Statement(NamedTuple):
    """The verdict: ``code`` is None when the quote states the step; ``named`` says how (prose)."""

    code: DefectCode | None
    message: str
    named: Mapping[str, str] = _NONE_NAMED  # role -> "ID 'x'" / "name 'x'" / "alias 'x'"

    @property
    def ok(self) -> bool:
        return self.code is None


def named_term(quote: str, entity: Any | None) -> str | None:
    """The first of ``entity``'s terms (ID, name, aliases) that ``quote`` names as whole words; None: none (or
    no entity)."""
    return next((t for t in mention_terms(entity) if mentions_term(quote, t)), None) if entity is not None else None


def _how(entity: Any, term: str) -> str:
    if term == entity.id:
        return f"ID {term!r}"
    if term == entity.name:
        return f"name {term!r}"
    return f"alias {term!r}"


def states(kind: str, quote: str, subject: str, predicate: str, obj: str | None, entity: EntityLookup) -> Statement:
    """Whether ``quote`` (of support ``kind``) states ``subject --predicate--> obj``.

    ``obj`` None checks the subject and predicate only (a hop that stopped before choosing a bridge).
    ``entity`` looks up an entity by ID (prose quotes name entities by their declared names).
    """
    if kind == "prose":
        named: dict[str, str] = {}
        for role, eid in (("subject", subject), ("object", obj)):
            if eid is None:
                continue
            ent = entity(eid)
            term = named_term(quote, ent)
            if term is None:
                return Statement(DefectCode.PROSE_MISMATCH, f"the prose quote does not name the {role} {eid!r}", named)
            named[role] = _how(ent, term)
        return Statement(None, "the prose quote names " + " and ".join(f"the {r} by {h}" for r, h in named.items()), named)
    parsed = parse_clause(quote)
    if parsed is None:
        return Statement(DefectCode.CLAUSE_MISMATCH, "the quote is not one 'REL subject | predicate | object' clause")
    want = (subject, predicate, obj if obj is not None else parsed[2])
    if parsed != want:
        return Statement(
            DefectCode.CLAUSE_MISMATCH,
            f"the clause states {' | '.join(parsed)}, the step is {subject} | {predicate} | {obj if obj is not None else '?'}",
        )
    return Statement(None, "the clause states the step")
