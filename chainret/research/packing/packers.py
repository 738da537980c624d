"""The packers beyond ``naive``: focused heuristic, MMR, submodular, and a per-question oracle.

All but one share the budget rule of ``base``: a candidate is only ever added if it still fits, so no
selection exceeds the budget. The exception is ``focused-seed-literal``, seed 002's baseline as written
(it keeps the snippet that crosses the budget), reported beside the others with its tokens. Selection order is packet order. Ties go to the lower index.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from chainret.pack.base import BasePacker, Candidate, PackContext, register
from chainret.research.packing.objective import Objective
from chainret.research.qa.metrics import answer_in_text, is_yes_no
from chainret.research.packing.text import content_terms

MMR_LAMBDA = 0.7
_NEW_DOC_BONUS = 0.5


def _features(candidates: Sequence[Candidate], context: PackContext | None) -> PackContext:
    """Fill the features a packer needs, lexically where the caller gave none (cached per question)."""
    ctx = context if context is not None else PackContext()
    if ctx.terms is None or len(ctx.terms) != len(candidates):
        ctx.terms = [content_terms(c.text) for c in candidates]
    if ctx.query_terms is None:
        ctx.query_terms = content_terms(ctx.query)
    if ctx.sim is None or np.shape(ctx.sim) != (len(candidates), len(candidates)):
        ctx.sim = lexical_similarity(ctx.terms)
    return ctx


def lexical_similarity(term_sets: Sequence[frozenset[str]]) -> np.ndarray:
    """Jaccard similarity of term sets (1 on the diagonal); the fallback when no embeddings."""
    n = len(term_sets)
    sim = np.eye(n)
    for i in range(n):
        for j in range(i + 1, n):
            union = len(term_sets[i] | term_sets[j])
            sim[i, j] = sim[j, i] = len(term_sets[i] & term_sets[j]) / union if union else 0.0
    return sim


def _fits(candidates: Sequence[Candidate], chosen: set[int], used: int, budget: float) -> np.ndarray:
    return np.array([i not in chosen and used + c.cost <= budget for i, c in enumerate(candidates)], dtype=bool)


def _argmax(scores: np.ndarray, mask: np.ndarray) -> int | None:
    """Index of the highest score among ``mask``; the lowest index wins ties."""
    if not mask.any():
        return None
    masked = np.where(mask, scores, -np.inf)
    return int(np.flatnonzero(masked == masked.max())[0])


class _Greedy(BasePacker):
    """Shared loop: score the fitting candidates, take the best, repeat until nothing fits.

    With ``stop_at_overflow`` the best candidate is chosen among all not yet taken, fitting or not,
    and the loop stops at the first that does not fit (seed 002's focused heuristic).
    """

    name = "greedy"
    stop_at_overflow = False

    def select(self, candidates: Sequence[Candidate], budget: int, cap: int, context: PackContext | None) -> list[int]:
        ctx = _features(candidates, context)
        chosen: list[int] = []
        used = 0
        while len(chosen) < cap:
            mask = _fits(candidates, set(chosen), used, budget if not self.stop_at_overflow else math.inf)
            j = _argmax(self.scores(candidates, ctx, chosen), mask)
            if j is None or used + candidates[j].cost > budget:
                break
            chosen.append(j)
            used += candidates[j].cost
        return chosen

    def scores(self, candidates: Sequence[Candidate], ctx: PackContext, chosen: list[int]) -> np.ndarray:
        raise NotImplementedError


@register("focused")
class FocusedPacker(_Greedy):
    """The seed's heuristic, with the budget checked before adding: new query terms, then new documents.

    score_i = (#query terms i newly covers)/|Q| + 0.5·[i's document not yet in the packet] + r_i/max r
    Not normalised by length, as in the seed; unlike the seed, a snippet that does not fit is skipped
    and filling goes on (``focused-seed`` is the seed's stop-at-the-first-overflow variant).
    """

    name = "focused"

    def scores(self, candidates: Sequence[Candidate], ctx: PackContext, chosen: list[int]) -> np.ndarray:
        q = ctx.query_terms or frozenset()
        terms = ctx.terms or []  # filled by _features
        covered: set[str] = set().union(*(terms[j] for j in chosen)) if chosen else set()
        docs = {candidates[j].doc_id for j in chosen}
        rel = _scaled_relevance(candidates)
        new_terms = np.array([len((t & q) - covered) for t in terms], dtype=float) / float(max(len(q), 1))
        new_doc = np.array([c.doc_id not in docs for c in candidates], dtype=float)
        return new_terms + _NEW_DOC_BONUS * new_doc + rel


@register("focused-seed")
class FocusedSeedPacker(FocusedPacker):
    """Seed 002's focused heuristic as the seed describes it: the same scores as ``focused``, but
    the best-scoring snippet is taken whether or not it fits, the budget is checked only after
    adding it, and packing stops there. The seed then kept the snippet that broke the budget (its
    token use could overshoot); ours never hands over more than the budget, so that snippet is
    dropped. ``focused`` instead skips a snippet that does not fit and keeps filling.
    """

    name = "focused-seed"
    stop_at_overflow = True


@register("focused-seed-literal")
class FocusedSeedLiteralPacker(FocusedPacker):
    """Seed 002's focused heuristic taken literally, overflow kept: the same scores as ``focused``; the
    best-scoring snippet is added, and the budget is checked only after the fact, so packing stops at the
    first snippet that crosses the budget and that snippet stays in the packet.

    The one packer here whose packet may cost more than the budget (by less than one snippet): it is the
    seed's baseline as written, reported with its tokens beside ``focused-seed`` (same rule, overflowing
    snippet dropped) and ``focused``. Not for a reader with a hard limit.
    """

    name = "focused-seed-literal"
    may_exceed_budget = True

    def select(self, candidates: Sequence[Candidate], budget: int, cap: int, context: PackContext | None) -> list[int]:
        ctx = _features(candidates, context)
        chosen: list[int] = []
        used = 0
        while len(chosen) < cap:
            mask = _fits(candidates, set(chosen), used, math.inf)
            j = _argmax(self.scores(candidates, ctx, chosen), mask)
            if j is None:
                break
            chosen.append(j)
            used += candidates[j].cost
            if used > budget:  # checked after the fact: the snippet that crossed the budget stays
                break
        return chosen


@register("mmr")
class MMRPacker(_Greedy):
    """Maximal marginal relevance: argmax λ·rel_i − (1−λ)·max_{j∈S} sim(i, j), λ = 0.7."""

    name = "mmr"

    def __init__(self, lam: float = MMR_LAMBDA) -> None:
        self.lam = lam

    def scores(self, candidates: Sequence[Candidate], ctx: PackContext, chosen: list[int]) -> np.ndarray:
        rel = _scaled_relevance(candidates)
        red = np.asarray(ctx.sim)[:, chosen].max(axis=1) if chosen else np.zeros(len(candidates))
        return self.lam * rel - (1 - self.lam) * red


def _scaled_relevance(candidates: Sequence[Candidate]) -> np.ndarray:
    r = np.clip(np.array([c.relevance for c in candidates], dtype=float), 0.0, None)
    top = r.max() if len(r) else 0.0
    return r / top if top > 0 else r


def objective_for(candidates: Sequence[Candidate], ctx: PackContext) -> Objective:
    """The question's objective, built once and memoised in ``ctx.cache`` (reused across budgets)."""
    key = ("objective", tuple(c.ref for c in candidates))
    obj = ctx.cache.get(key)
    if obj is None:
        assert ctx.terms is not None, "objective_for needs the candidates' terms"
        obj = Objective(
            [c.relevance for c in candidates],
            [c.doc_id for c in candidates],
            ctx.terms,
            ctx.query_terms or frozenset(),
            np.asarray(ctx.sim),
        )
        ctx.cache[key] = obj
    return obj


@register("submodular")
class SubmodularPacker(BasePacker):
    """Cost-scaled greedy on F (gain per unit cost) plus the Lin–Bilmes best-singleton fallback."""

    name = "submodular"

    def __init__(self) -> None:
        self.last_used_fallback = False

    def select(self, candidates: Sequence[Candidate], budget: int, cap: int, context: PackContext | None) -> list[int]:
        ctx = _features(candidates, context)
        obj = objective_for(candidates, ctx)
        return self.pack_objective(obj, [c.cost for c in candidates], budget, max_items=cap)

    def pack_objective(self, obj: Objective, costs: Sequence[int], budget: int, *, max_items: int | None = None) -> list[int]:
        """Greedy + fallback on a built objective (the part tests drive directly)."""
        self.last_used_fallback = False
        n = obj.n
        cost = np.asarray(costs, dtype=float)
        cap = n if max_items is None else min(n, max_items)
        if cap == 0:
            return []
        state = obj.empty()
        singles = obj.gains(state)  # F({i}) = gain at the empty set, since F(∅) = 0
        used = 0.0
        value = 0.0
        taken = np.zeros(n, dtype=bool)
        gains = singles
        while len(state.selected) < cap:
            mask = ~taken & (used + cost <= budget) & (gains > 1e-12)
            if not mask.any():
                break
            # Zero-cost snippets with positive gain get a huge ratio, so they come first.
            j = _argmax(gains / np.maximum(cost, 1e-9), mask)
            assert j is not None  # mask.any() above
            value += float(gains[j])
            obj.add(state, j)
            taken[j] = True
            used += float(cost[j])
            gains = obj.gains(state)
        best = _argmax(singles, cost <= budget)
        if best is not None and singles[best] > value + 1e-12:
            self.last_used_fallback = True
            return [best]
        return list(state.selected)


@register("oracle")
class OraclePacker(BasePacker):
    """Headroom, not a method: it reads the gold answers and gold documents from the context.

    It maximises, in lexicographic order, (1) answer-in-context via a single candidate that
    contains a normalised gold answer, (2) the number of gold documents with a snippet in the
    packet, (3) gold tokens, and never adds a non-gold-document snippet unless it carries the
    answer. (1) and (2) are exact over single answer-bearing picks (each is tried; the gold
    documents are then covered cheapest-first, which maximises their count); (3) is greedy.
    """

    name = "oracle"

    def select(self, candidates: Sequence[Candidate], budget: int, cap: int, context: PackContext | None) -> list[int]:
        ctx = context if context is not None else PackContext()
        memo = ("answer-bearing", tuple(c.ref for c in candidates), tuple(ctx.gold_answers))
        if memo not in ctx.cache:  # memoised: the same for every budget
            answers = [] if is_yes_no(ctx.gold_answers) else list(ctx.gold_answers)
            ctx.cache[memo] = [i for i, c in enumerate(candidates) if answers and answer_in_text(answers, c.text)]
        bearing = ctx.cache[memo]
        starts: list[list[int]] = [[i] for i in bearing if candidates[i].cost <= budget] or [[]]
        best: list[int] = []
        best_key: tuple[int, ...] = (-1,)
        for start in starts:
            sel = self._fill(candidates, ctx.gold_docs, start, budget, cap)
            key = (
                len(start),
                len({candidates[i].doc_id for i in sel} & ctx.gold_docs),
                sum(candidates[i].cost for i in sel if candidates[i].doc_id in ctx.gold_docs),
            )
            if key > best_key:
                best, best_key = sel, key
        return best

    @staticmethod
    def _fill(candidates: Sequence[Candidate], gold_docs: frozenset[str], start: list[int], budget: int, cap: int) -> list[int]:
        sel = list(start)[:cap]
        used = sum(candidates[i].cost for i in sel)
        have = {candidates[i].doc_id for i in sel}
        # (2) the cheapest snippet of each uncovered gold document, cheapest documents first
        cheapest: dict[str, int] = {}
        for i, c in enumerate(candidates):
            if c.doc_id in gold_docs and c.doc_id not in have and i not in sel:
                if c.doc_id not in cheapest or (c.cost, -c.relevance, i) < (
                    candidates[cheapest[c.doc_id]].cost,
                    -candidates[cheapest[c.doc_id]].relevance,
                    cheapest[c.doc_id],
                ):
                    cheapest[c.doc_id] = i
        for i in sorted(cheapest.values(), key=lambda i: (candidates[i].cost, i)):
            if len(sel) < cap and used + candidates[i].cost <= budget:
                sel.append(i)
                used += candidates[i].cost
        # (3) more gold-document text, most relevant first
        for i in sorted(range(len(candidates)), key=lambda i: (-candidates[i].relevance, i)):
            c = candidates[i]
            if len(sel) < cap and i not in sel and c.doc_id in gold_docs and used + c.cost <= budget:
                sel.append(i)
                used += c.cost
        return sel
