"""``Budget``: the request-level limits (a case file may override them, a trace records them), and
``first_fit``, the one rule that packs within a limit.

At the bottom of the package with ``chainret.core.codes``: the catalog's case files and the engine's
traces both use it, and it imports nothing from chainret. ``chainret.trace.model`` re-exports it.
"""

from collections.abc import Iterable
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field


class Budget(BaseModel):
    """Request-level limits. Values come from request parameters, never from source text."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rows_per_hop: int = Field(3, ge=1)
    max_searches: int = Field(2, ge=1)
    max_rows: int = Field(6, ge=1)
    max_hops: int = Field(3, ge=1)
    packet_units: int = Field(4, ge=1)
    packet_chars: int = Field(900, ge=1)


def effective_budget(budget: Budget, n_hops: int) -> Budget:
    """Fill the per-request limits the caller did not set: N searches and N*rows_per_hop rows.

    The seed's two-hop defaults (2 searches, 6 rows) are the N=2 case. Explicitly set values win.
    """
    explicit = budget.model_fields_set
    if not explicit and n_hops <= 16:  # every limit at its default (``Budget()``): one frozen value per hop count
        hit = _DEFAULT_EFFECTIVE.get(n_hops)
        if hit is None:
            hit = _DEFAULT_EFFECTIVE[n_hops] = _fill(budget, n_hops, explicit)
        return hit
    return _fill(budget, n_hops, explicit)


_DEFAULT_EFFECTIVE: dict[int, Budget] = {}


def _fill(budget: Budget, n_hops: int, explicit: set[str]) -> Budget:
    searches = budget.max_searches if "max_searches" in explicit else n_hops
    rows = budget.max_rows if "max_rows" in explicit else budget.rows_per_hop * searches
    return budget.model_copy(update={"max_searches": searches, "max_rows": rows})


FANOUT_MAX_SEARCHES = 40  # a composed chain over a set gets at most this many searches by default


def fanout_budget(budget: Budget, many: list[bool]) -> Budget:
    """Unset search and row limits for a chain that runs over a set: a many-valued hop may hand the next hop
    up to ``rows_per_hop`` nodes, each searched once, so hop k gets the product of the fan-outs before it
    (at most ``FANOUT_MAX_SEARCHES`` in all; a larger set is reported incomplete, never cut silently).
    A budget with any limit set by the caller is the caller's (``effective_budget`` fills it as always)."""
    if budget.model_fields_set:
        return budget
    nodes, searches = 1, 0
    for is_many in many:
        searches += nodes
        nodes *= budget.rows_per_hop if is_many else 1
    searches = min(searches, FANOUT_MAX_SEARCHES)
    return budget.model_copy(update={"max_searches": searches, "max_rows": budget.rows_per_hop * searches})


Item = TypeVar("Item")


def first_fit(priced: Iterable[tuple[Item, int]], budget: int, cap: int) -> list[Item]:
    """The ``naive`` packer's rule, its one home: take each item in the order given that still fits within
    ``budget`` (skipping one that no longer does), at most ``cap`` items. ``chainret.pack.base.NaivePacker``
    applies it in relevance order to candidates; the chain packet (``chainret.pipeline.packet.pack_items``)
    applies it to its supporting clauses directly. It lives here, beside the limits, so that the ask path
    packs without a ``Candidate`` per item and without importing the packer registry."""
    chosen: list[Item] = []
    used = 0
    for item, cost in priced:
        if len(chosen) >= cap:
            break
        if used + cost <= budget:
            chosen.append(item)
            used += cost
    return chosen
