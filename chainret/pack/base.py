"""The packing interface: candidates in, selected indices out, never over budget.

Every packer sees the same ``Candidate`` list, so comparisons isolate the selection rule.
``cost`` is in whatever unit the caller counts (reader tokens for benchmarks, characters for the
chain retriever's final packet); costs are additive, so a caller that counts separators adds
them to each candidate's cost. No packer ever returns a selection whose total cost exceeds the
budget, including its first pick: a candidate dearer than the whole budget is never taken. (One
research baseline, ``focused-seed-literal``, reproduces seed 002's overflow on purpose; it says so
with ``may_exceed_budget = True``.)

Ties are broken by candidate index (earlier wins), so packing is deterministic.
This module imports nothing heavy; packers that need similarities get them through
``PackContext`` (precomputed once per question, reused across packers and budgets).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from chainret.core.budget import first_fit
from chainret.core.errors import BudgetError


@dataclass(frozen=True)
class Candidate:
    """One source-grounded snippet a packer may select.

    Args:
        ref: stable id of the snippet (e.g. ``"hotpotqa:5a8b…#p3:s1-2"``).
        text: the snippet text exactly as it would reach the reader.
        cost: its price in the caller's unit (tokens or characters), >= 0.
        doc_id: the document (paragraph/unit) it was cut from.
        span: character span ``(start, end)`` inside that document's text, if known.
        relevance: per-snippet relevance; higher is better. Shared by every packer.
    """

    ref: str
    text: str
    cost: int
    doc_id: str | None = None
    span: tuple[int, int] | None = None
    relevance: float = 0.0


@dataclass
class PackContext:
    """Per-question features shared by packers; build it once with ``build_context``.

    ``sim`` is an n×n similarity matrix in [0, 1] (symmetric, 1 on the diagonal);
    ``terms`` the content-term set of each candidate; ``query_terms`` those of the query.
    Any field may be ``None``; packers then fall back to lexical features of the texts.
    """

    query: str = ""
    query_terms: frozenset[str] | None = None
    terms: list[frozenset[str]] | None = None
    sim: Any = None  # numpy.ndarray (n, n); typed loosely so this module stays numpy-free at import
    gold_answers: list[str] = field(default_factory=list)  # only the oracle may read these two
    gold_docs: frozenset[str] = frozenset()
    cache: dict[Any, Any] = field(default_factory=dict)  # per-question memo shared across budgets


class Packer(Protocol):
    """Select candidate indices in packet order, with total cost <= budget."""

    name: str

    def pack(
        self,
        candidates: Sequence[Candidate],
        budget: int,
        *,
        max_items: int | None = None,
        context: PackContext | None = None,
    ) -> list[int]: ...


_REGISTRY: dict[str, Callable[[], Packer]] = {}


def register(name: str) -> Callable[[Callable[[], Packer]], Callable[[], Packer]]:
    """Register a packer factory under ``name`` (used by ``get_packer``)."""

    def deco(factory: Callable[[], Packer]) -> Callable[[], Packer]:
        _REGISTRY[name] = factory
        return factory

    return deco


def check_request(candidates: Sequence[Candidate], budget: int, max_items: int | None) -> None:
    """Reject impossible requests with a message that names the value and the fix."""
    if budget < 0:
        raise BudgetError(f"packing budget is {budget}; it must be >= 0")
    if max_items is not None and max_items < 0:
        raise BudgetError(f"max_items is {max_items}; it must be >= 0 or None for no cap")
    for i, c in enumerate(candidates):
        if c.cost < 0:
            raise BudgetError(f"candidate {i} ({c.ref!r}) has cost {c.cost}; costs must be >= 0")


def item_cap(n: int, max_items: int | None) -> int:
    return n if max_items is None else min(n, max_items)


def relevance_order(candidates: Sequence[Candidate]) -> list[int]:
    """Indices by relevance, highest first; ties by index."""
    return sorted(range(len(candidates)), key=lambda i: (-candidates[i].relevance, i))


class BasePacker:
    """Validates the request once, then hands ``select`` the item cap; subclasses choose."""

    name = "base"
    may_exceed_budget = False  # True only for a baseline that reproduces a paper's overflow

    def pack(
        self,
        candidates: Sequence[Candidate],
        budget: int,
        *,
        max_items: int | None = None,
        context: PackContext | None = None,
    ) -> list[int]:
        check_request(candidates, budget, max_items)
        return self.select(candidates, budget, item_cap(len(candidates), max_items), context)

    def select(
        self, candidates: Sequence[Candidate], budget: int, cap: int, context: PackContext | None
    ) -> list[int]:
        raise NotImplementedError


class NaivePacker(BasePacker):
    """Concatenate by relevance, skipping any snippet that no longer fits (first-fit)."""

    name = "naive"

    def select(self, candidates: Sequence[Candidate], budget: int, cap: int, context: PackContext | None) -> list[int]:
        return first_fit(((i, candidates[i].cost) for i in relevance_order(candidates)), budget, cap)


register("naive")(NaivePacker)
