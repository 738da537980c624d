"""Every stable code a trace, a case file or a view status carries, in one place.

The codes are ``StrEnum`` members: each compares equal to, and serialises as, its plain string
value, so a trace written with them is byte-identical to one written with strings. This module is
the bottom of the package: it imports nothing from chainret.

- ``RefusalCode``: ``Trace.reason.code`` and ``Hop.refusal.code``. Interpretation refuses before
  any search (``INTERPRETATION_REFUSALS``); a hop stops with one of ``HOP_FAILURES``; a found path
  may not fit the packet (``packet_too_small``).
- ``ViewCode``: why a relation's document is not usable in a view for a principal.
- ``DefectCode``: why a relation record itself is invalid (a control), whatever the view.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final, Literal


class RefusalCode(StrEnum):
    # interpretation, before any search
    NO_PATTERN = "no_pattern"
    UNKNOWN_ENTITY = "unknown_entity"
    UNRELATED_ENTITY = "unrelated_entity"  # a readable document declares it, no relation names it (no owner)
    AMBIGUOUS_ALIAS = "ambiguous_alias"
    AMBIGUOUS_READING = "ambiguous_reading"  # the words read as two patterns (or two entities by two routes)
    EXCEEDS_MAX_HOPS = "exceeds_max_hops"
    NO_VIEW_AT_TIME = "no_view_at_time"  # the request's time words name no view (or another than --view)
    # a hop
    NO_SUPPORTED_RELATION = "no_supported_relation"
    CONTRADICTION = "contradiction"
    DEAD_END = "dead_end"
    BUDGET_EXHAUSTED = "budget_exhausted"
    CYCLE = "cycle"
    # packing a found path
    PACKET_TOO_SMALL = "packet_too_small"


# Why a hop stops (a case's ``expect.reason`` for ``outcome: no_path``).
HOP_FAILURES: Final[dict[RefusalCode, str]] = {
    RefusalCode.NO_SUPPORTED_RELATION: "no returned row supports an eligible, valid relation of this hop's predicate from the current node",
    RefusalCode.CONTRADICTION: "an opposing eligible current assignment of a functional predicate (catalog-level check)",
    RefusalCode.DEAD_END: "every candidate bridge of this hop was tried and none completed",
    RefusalCode.BUDGET_EXHAUSTED: "the request's search or row budget ran out before this hop",
    RefusalCode.CYCLE: "every supported bridge of this hop returns to a node already on the path",
}
# Why interpretation refuses before any search (a case's ``expect.reason`` for ``outcome: refused``).
INTERPRETATION_REFUSALS: Final[dict[RefusalCode, str]] = {
    RefusalCode.AMBIGUOUS_ALIAS: "the slot text resolves to several entities",
    RefusalCode.AMBIGUOUS_READING: "the request reads as more than one pattern or start entity",
    RefusalCode.UNKNOWN_ENTITY: "the slot text resolves to no entity of the slot type",
    RefusalCode.UNRELATED_ENTITY: "the slot text names an entity a readable document declares, but it takes part in no relation",
    RefusalCode.EXCEEDS_MAX_HOPS: "the pattern needs more hops than the request's max_hops allows",
    RefusalCode.NO_VIEW_AT_TIME: "the request's time words name a day no view covers, or another view than the one requested",
}
# The same sets as types, so a case file's JSON Schema lists the allowed values.
HopFailureCode = Literal[
    RefusalCode.NO_SUPPORTED_RELATION,
    RefusalCode.CONTRADICTION,
    RefusalCode.DEAD_END,
    RefusalCode.BUDGET_EXHAUSTED,
    RefusalCode.CYCLE,
]
InterpretationCode = Literal[
    RefusalCode.AMBIGUOUS_ALIAS,
    RefusalCode.AMBIGUOUS_READING,
    RefusalCode.UNKNOWN_ENTITY,
    RefusalCode.UNRELATED_ENTITY,
    RefusalCode.EXCEEDS_MAX_HOPS,
    RefusalCode.NO_VIEW_AT_TIME,
]


class ViewCode(StrEnum):
    NOT_CURRENT = "not_current"  # the document version is not the one in this view
    SUPERSEDED = "superseded"  # a later version of the document is in this view
    REMOVED = "removed"
    RESTRICTED = "restricted"


# A relation whose document carries one of these is not current in the view ...
NOT_CURRENT: Final = frozenset({ViewCode.NOT_CURRENT, ViewCode.SUPERSEDED})
# ... and one of these makes it unreadable (not eligible).
NOT_READABLE: Final = frozenset({ViewCode.REMOVED, ViewCode.RESTRICTED})


class DefectCode(StrEnum):
    INVALID_DIGEST = "invalid_digest"
    SPAN_MISMATCH = "span_mismatch"
    CLAUSE_MISMATCH = "clause_mismatch"
    PROSE_MISMATCH = "prose_mismatch"
    REPRESENTATION_MISMATCH = "representation_mismatch"
    DOMAIN_MISMATCH = "domain_mismatch"
    RANGE_MISMATCH = "range_mismatch"
