"""``Budget``: the request-level limits (a case file may override them, a trace records them), and
``first_fit``, the one rule that packs within a limit.

At the bottom of the package with ``chainret.core.codes``: the catalog's case files and the engine's
traces both use it, and it imports nothing from chainret but the record base it is declared on
(``chainret.core.record``, itself at the bottom). ``chainret.trace.model`` re-exports it.
"""

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from chainret.core.record import ConfigDict, Field, Record, model_serializer


class Budget(Record):  # (a record: pydantic is built on first validation, chainret.core.record)
    """Request-level limits. Values come from request parameters, never from source text.

    ``set_rows_per_hop`` is the rows a many-valued hop may read on to where its first ``rows_per_hop`` rows leave
    part of its set unread (``chainret.engine.hops._read_on``); a set's default limits set it (``fanout_budget``), and None (every budget
    a caller writes) means a hop reads ``rows_per_hop`` rows. Unset, it is not written, so a budget's JSON is
    what it was before the field existed."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    rows_per_hop: int = Field(default=3, ge=1)
    max_searches: int = Field(default=2, ge=1)
    max_rows: int = Field(default=6, ge=1)
    max_hops: int = Field(default=3, ge=1)
    packet_units: int = Field(default=4, ge=1)
    packet_chars: int = Field(default=900, ge=1)
    set_rows_per_hop: int | None = Field(default=None, ge=1)

    @model_serializer(mode="wrap")
    def _omit_unset_set_rows(self, handler: Callable[[Any], Any]) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("set_rows_per_hop") is None:
            data.pop("set_rows_per_hop", None)
        return data


# Every limit at its default: ``Budget()`` without a validation (nothing given, nothing to check), so an ask that
# sets no limit builds no validator for the budget (``defer_build``: about 1 ms of a cold ``chainret ask``).
DEFAULT_BUDGET = Budget.model_construct()


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
    kept = _KEPT_FILLS.get(id(budget))
    if kept is not None:  # a set's default limits (``fanout_budget``): kept, so their fill is too (a copy, 13 us an ask)
        hit = kept.get(n_hops)
        if hit is None:
            hit = kept[n_hops] = _fill(budget, n_hops, explicit)
        return hit
    return _fill(budget, n_hops, explicit)


_DEFAULT_EFFECTIVE: dict[int, Budget] = {}
# id of each budget ``_DEFAULT_FANOUT`` keeps -> its fills by hop count (those budgets live as long as the module, so
# their ids name no other object)
_KEPT_FILLS: dict[int, dict[int, Budget]] = {}


def _fill(budget: Budget, n_hops: int, explicit: set[str]) -> Budget:
    searches = budget.max_searches if "max_searches" in explicit else n_hops
    rows = budget.max_rows if "max_rows" in explicit else budget.rows_per_hop * searches
    return budget.model_copy(update={"max_searches": searches, "max_rows": rows})


FANOUT_MAX_SEARCHES = 40  # a chain over a set gets at most this many searches by default
SET_ROWS_PER_HOP = 25  # ... and a many-valued hop reads on to this many rows where the catalog holds more of its set


def fanout_budget(budget: Budget, many: list[bool], ceiling: Budget | None = None) -> Budget:
    """The default limits of a chain with a many-valued hop (``many``: which hops are), when the caller set none.

    A set is the answer, so the seed's three rows a search would cut every set of more than three values to a
    subset that can only be reported incomplete. So a many-valued hop may read on to ``SET_ROWS_PER_HOP`` rows
    where its first rows leave part of its set unread (``set_rows_per_hop``; its cost follows the set, not the
    units that mention its subject), and may hand the next hop as many nodes, each searched once: hop k gets the product of
    the fan-outs before it (at most ``FANOUT_MAX_SEARCHES`` searches in all). A larger set is reported incomplete,
    never cut silently. ``ceiling`` (a server's) bounds each limit, so a request still runs within it. A budget
    with any limit set by the caller is the caller's (``effective_budget`` fills it as always); the trace records
    the limits the chain ran under, so a replay runs under the same."""
    if budget.model_fields_set or not any(many):
        return budget
    if ceiling is None:  # every limit at its default: one frozen value per shape of chain (as ``effective_budget``)
        key = tuple(many)
        hit = _DEFAULT_FANOUT.get(key)
        if hit is None:
            hit = _DEFAULT_FANOUT[key] = _fanout(budget, many, None)
            _KEPT_FILLS[id(hit)] = {}
        return hit
    return _fanout(budget, many, ceiling)


_DEFAULT_FANOUT: dict[tuple[bool, ...], Budget] = {}


def _fanout(budget: Budget, many: list[bool], ceiling: Budget | None) -> Budget:
    set_rows = max(budget.rows_per_hop, SET_ROWS_PER_HOP)
    most_searches = FANOUT_MAX_SEARCHES
    if ceiling is not None:
        set_rows = min(set_rows, ceiling.set_rows_per_hop or ceiling.rows_per_hop)
        most_searches = min(most_searches, ceiling.max_searches)
    nodes, searches = 1, 0
    for is_many in many:
        searches += nodes
        nodes *= set_rows if is_many else 1
    searches = min(searches, most_searches)
    most_rows = set_rows * searches if ceiling is None else min(set_rows * searches, ceiling.max_rows)
    return budget.model_copy(update={"set_rows_per_hop": set_rows, "max_searches": searches, "max_rows": most_rows})


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
