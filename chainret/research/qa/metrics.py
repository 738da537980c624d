"""Reader-free metrics and significance tests. Pure functions over numbers and strings.

AUC is the probability that a gold paragraph outscores a distractor (Mann-Whitney U,
ties count one half), pooled over all question-paragraph pairs as in seed 000; its
confidence interval resamples *questions* (not pairs), since paragraphs of one
question are correlated. Answer normalisation follows the official
``hotpot_evaluate_v1.py`` (lower case, drop punctuation and articles, squash spaces,
and the yes/no/noanswer rule for F1).
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

N_RESAMPLES = 1000
SEED = 1337

# ----------------------------------------------------------------------------- answers


def normalize_answer(s: str) -> str:
    """Official HotpotQA/SQuAD normalisation."""
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def exact_match(prediction: str, gold: str) -> float:
    return float(normalize_answer(prediction) == normalize_answer(gold))


def f1_score(prediction: str, gold: str) -> tuple[float, float, float]:
    """(F1, precision, recall) with the HotpotQA yes/no/noanswer rule."""
    p, g = normalize_answer(prediction), normalize_answer(gold)
    special = ("yes", "no", "noanswer")
    if (p in special or g in special) and p != g:
        return 0.0, 0.0, 0.0
    pt, gt = p.split(), g.split()
    common = Counter(pt) & Counter(gt)
    same = sum(common.values())
    if same == 0:
        return 0.0, 0.0, 0.0
    prec, rec = same / len(pt), same / len(gt)
    return 2 * prec * rec / (prec + rec), prec, rec


def em_f1(prediction: str, answers: Sequence[str]) -> tuple[float, float]:
    """Best EM and F1 over the gold answer and its aliases."""
    if not answers:
        return 0.0, 0.0
    return max(exact_match(prediction, a) for a in answers), max(f1_score(prediction, a)[0] for a in answers)


def answer_in_text(answers: Sequence[str], text: str) -> bool:
    """A normalised gold answer (or alias) is a contiguous token span of the normalised text."""
    hay = f" {normalize_answer(text)} "
    for a in answers:
        na = normalize_answer(a)
        if na and f" {na} " in hay:
            return True
    return False


answer_in_context = answer_in_text  # the packing diagnostic: same test, over the packed context

YES_NO = frozenset({"yes", "no"})


def is_yes_no(answers: Sequence[str]) -> bool:
    """Every (normalised, non-empty) gold answer is "yes" or "no": not a span of any evidence."""
    norm = {normalize_answer(a) for a in answers if a.strip()}
    return bool(norm) and norm <= YES_NO


# Which gold paragraphs are *answer-bearing*. Two named rules:
#   "paper": seed 000's rule, used beside every seed-000 number. The normalised canonical answer
#            (``answers[0]``) is a plain substring of the normalised paragraph, title included;
#            aliases are not used; a yes/no answer never makes a paragraph answer-bearing.
#            (Reconstructed from the paper's released per-paragraph labels with no disagreement.)
#   "ours":  whole-token match (``answer_in_text``) of the canonical answer or any alias; a yes/no
#            answer counts when the word occurs. Stricter on substrings ("tomato" is not in
#            "tomatoes"), looser on aliases and yes/no.
ANSWER_RULES = ("paper", "ours")
DEFAULT_ANSWER_RULE = "paper"


def answer_bearing(answers: Sequence[str], text: str, rule: str = DEFAULT_ANSWER_RULE) -> bool:
    """Does ``text`` (a gold paragraph, title included) bear the answer under ``rule``?"""
    if rule == "paper":
        canonical = normalize_answer(answers[0]) if answers else ""
        return bool(canonical) and canonical not in YES_NO and canonical in normalize_answer(text)
    if rule == "ours":
        return answer_in_text(answers, text)
    raise ValueError(f"unknown answer-bearing rule {rule!r}; choose one of: {', '.join(ANSWER_RULES)}")


def gold_kind(answers: Sequence[str], text: str, is_gold: bool, rule: str = DEFAULT_ANSWER_RULE) -> str:
    """"answer" (answer-bearing gold), "bridge" (gold without the answer) or "distractor"."""
    if not is_gold:
        return "distractor"
    return "answer" if answer_bearing(answers, text, rule) else "bridge"


def paragraph_kinds(example: Any, rule: str = DEFAULT_ANSWER_RULE) -> list[str]:
    """``gold_kind`` of every candidate paragraph of a ``chainret.research.qa.example.Example``, over the
    text a signal scores (``"<title>. <text>"``): the one place benchmarks label paragraphs."""
    from chainret.research.qa.datasets import passage

    return [gold_kind(example.answers, passage(p), p.is_gold, rule) for p in example.paragraphs]


# ----------------------------------------------------------------------------- AUC


def roc_auc(scores: Sequence[float] | np.ndarray, labels: Sequence[bool] | np.ndarray) -> float:
    """ROC AUC by Mann-Whitney U with average ranks (ties = 1/2). NaN if a class is empty.

    A NaN score raises ``DataError``: it has no rank (a sort would put it above every number,
    silently counting it as the best-scored paragraph).
    """
    s = finite_scores(scores)
    y = np.asarray(labels, dtype=bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    order = np.argsort(s, kind="mergesort")
    sorted_s = s[order]
    ranks = np.empty(len(s), dtype=float)
    # average rank per tie block (1-based)
    _, first, counts = np.unique(sorted_s, return_index=True, return_counts=True)
    avg = first + (counts + 1) / 2.0
    ranks[order] = np.repeat(avg, counts)
    u = ranks[y].sum() - n_pos * (n_pos + 1) / 2.0
    return float(u / (n_pos * n_neg))


def finite_scores(scores: Sequence[float] | np.ndarray, what: str = "score") -> np.ndarray:
    """``scores`` as a float array; raises ``DataError`` naming the first NaN."""
    s = np.asarray(scores, dtype=float)
    bad = np.flatnonzero(np.isnan(s))
    if len(bad):
        from chainret.core.errors import DataError

        raise DataError(
            f"{what} {int(bad[0])} is NaN ({len(bad)} NaN of {s.size}); an AUC needs a number for every "
            "paragraph, so fix the signal that produced it"
        )
    return s


@dataclass(frozen=True)
class Estimate:
    """A point estimate with a percentile bootstrap interval."""

    value: float
    low: float
    high: float
    n: int  # units resampled (questions)
    n_gold: int | None = None  # gold paragraphs behind an AUC (the smaller side for a deficit)

    @property
    def too_few(self) -> bool:
        """Rests on fewer than ``MIN_SPLIT_PARAGRAPHS`` gold paragraphs: not printed as a number."""
        return self.n_gold is not None and self.n_gold < MIN_SPLIT_PARAGRAPHS

    def fmt(self, digits: int = 3) -> str:
        if self.too_few:
            return withheld(self.n_gold)
        if math.isnan(self.value):
            return "n/a"
        return f"{self.value:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"

    def as_dict(self) -> dict[str, float]:
        out = {"value": self.value, "low": self.low, "high": self.high, "n": self.n}
        if self.n_gold is not None:
            out["n_gold"] = self.n_gold
        return out


# A split AUC (answer-bearing or bridge-only gold vs distractors, and their deficit) resting on fewer
# gold paragraphs than this is printed as its count, not as a number (SQuAD has 3 bridge-only gold).
MIN_SPLIT_PARAGRAPHS = 30


def withheld(n_gold: int | None) -> str:
    """The text printed instead of a split AUC that rests on too few gold paragraphs."""
    return f"n/a ({n_gold} paragraph{'' if n_gold == 1 else 's'})"


def too_few(d: dict[str, Any] | None) -> int | None:
    """The paragraph count of an ``Estimate.as_dict`` that rests on too few gold paragraphs, else None."""
    n = (d or {}).get("n_gold")
    return int(n) if n is not None and n < MIN_SPLIT_PARAGRAPHS else None


def bootstrap(
    n_units: int,
    statistic: Callable[[np.ndarray], float],
    *,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
    alpha: float = 0.05,
) -> Estimate:
    """Percentile bootstrap over units (questions): ``statistic(indices)`` on each resample.

    Resamples where the statistic is undefined (NaN) are dropped.
    """
    point = statistic(np.arange(n_units))
    if n_units == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    rng = np.random.default_rng(seed)
    vals = np.array([statistic(rng.integers(0, n_units, n_units)) for _ in range(n_resamples)])
    vals = vals[~np.isnan(vals)]
    if len(vals) == 0:
        return Estimate(point, float("nan"), float("nan"), n_units)
    lo, hi = np.quantile(vals, [alpha / 2, 1 - alpha / 2])
    return Estimate(float(point), float(lo), float(hi), n_units)


class PairCounts:
    """Pooled-AUC sufficient statistics per question pair, for fast question bootstraps.

    ``wins[q, r]`` = number of (gold of q, distractor of r) pairs where gold scores higher,
    ties counting 1/2. With question multiplicities ``w`` from a resample, the pooled AUC is
    ``w @ wins @ w / ((w @ pos) * (w @ neg))``: one Q×Q product per resample instead of re-sorting
    every pair.
    """

    def __init__(self, scores: Sequence[np.ndarray], labels: Sequence[np.ndarray]) -> None:
        q = len(scores)
        scores = [finite_scores(x) for x in scores]
        self.pos = np.array([int(np.sum(y)) for y in labels], dtype=float)
        self.neg = np.array([int(np.sum(~y)) for y in labels], dtype=float)
        pos_vals = [np.asarray(s)[y] for s, y in zip(scores, labels)]
        all_pos = np.concatenate(pos_vals) if pos_vals else np.array([])
        owner = np.repeat(np.arange(q), [len(v) for v in pos_vals])
        self.wins = np.zeros((q, q))
        for r in range(q):
            negs = np.sort(np.asarray(scores[r])[~labels[r]])
            if len(negs) == 0 or len(all_pos) == 0:
                continue
            lo = np.searchsorted(negs, all_pos, "left")
            hi = np.searchsorted(negs, all_pos, "right")
            self.wins[:, r] = np.bincount(owner, weights=lo + 0.5 * (hi - lo), minlength=q)

    def auc(self, w: np.ndarray) -> float:
        den = float(w @ self.pos) * float(w @ self.neg)
        return float(w @ self.wins @ w / den) if den > 0 else float("nan")

    def aucs(self, weights: np.ndarray) -> np.ndarray:
        """AUC for each row of a (resamples × questions) weight matrix, in one matrix product."""
        num = ((weights @ self.wins) * weights).sum(axis=1)
        den = (weights @ self.pos) * (weights @ self.neg)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def resample_weights(n_units: int, *, n_resamples: int = N_RESAMPLES, seed: int = SEED) -> np.ndarray:
    """Question multiplicities of each bootstrap resample, (n_resamples, n_units); the same draws
    as ``bootstrap`` with the same seed, so the two agree."""
    rng = np.random.default_rng(seed)
    return np.stack([np.bincount(rng.integers(0, n_units, n_units), minlength=n_units) for _ in range(n_resamples)]).astype(float)


def _estimate(point: float, values: np.ndarray, n: int, alpha: float = 0.05) -> Estimate:
    vals = values[~np.isnan(values)]
    if len(vals) == 0:
        return Estimate(point, float("nan"), float("nan"), n)
    lo, hi = np.quantile(vals, [alpha / 2, 1 - alpha / 2])
    return Estimate(float(point), float(lo), float(hi), n)


def pooled_auc(scores: Sequence[np.ndarray], labels: Sequence[np.ndarray]) -> float:
    """AUC over every (question, paragraph) pair of all questions together."""
    if not len(scores):
        return float("nan")
    return roc_auc(np.concatenate([np.asarray(s, dtype=float) for s in scores]), np.concatenate([np.asarray(y, dtype=bool) for y in labels]))


def auc_ci(
    scores: Sequence[Sequence[float] | np.ndarray],
    labels: Sequence[Sequence[bool]],
    *,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> Estimate:
    """Pooled AUC with a question-stratified bootstrap CI. ``labels[q][i]`` True = gold.

    To leave paragraphs out (e.g. bridge-only gold when measuring answer-bearing), drop
    them from both lists; ``split_auc`` does that.
    """
    s = [np.asarray(x, dtype=float) for x in scores]
    y = [np.asarray(x, dtype=bool) for x in labels]
    pc = PairCounts(s, y)
    if not s:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    w = resample_weights(len(s), n_resamples=n_resamples, seed=seed)
    return _estimate(pc.auc(np.ones(len(s))), pc.aucs(w), len(s))


def split_auc(
    scores: Sequence[Sequence[float] | np.ndarray],
    kinds: Sequence[Sequence[str]],
    *,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> dict[str, Estimate]:
    """AUC overall, answer-bearing gold vs distractors, bridge-only gold vs distractors, and the deficit
    (bridge-only minus answer-bearing; positive = the signal prefers the paragraph without the answer).

    ``kinds[q][i]`` is "answer", "bridge" or "distractor" (see ``gold_kind``).
    """
    s = [np.asarray(x, dtype=float) for x in scores]
    k = [np.asarray(x) for x in kinds]
    q = len(s)

    def counts(keep: str | None) -> PairCounts:
        ss, yy = [], []
        for sq, kq in zip(s, k):
            m = (kq == "distractor") | (kq == keep) if keep else np.ones(len(kq), dtype=bool)
            ss.append(sq[m])
            yy.append(kq[m] != "distractor")
        return PairCounts(ss, yy)

    pcs = {name: counts(keep) for name, keep in (("overall", None), ("answer_bearing", "answer"), ("bridge_only", "bridge"))}
    n_gold: dict[str, int | None] = {name: int(pc.pos.sum()) for name, pc in pcs.items()}
    n_gold["deficit"] = min(n_gold["answer_bearing"], n_gold["bridge_only"])  # type: ignore[type-var]
    n_gold["overall"] = None  # only the split cells are withheld when thin
    if q == 0:
        return {name: Estimate(float("nan"), float("nan"), float("nan"), 0, 0) for name in (*pcs, "deficit")}
    w = resample_weights(q, n_resamples=n_resamples, seed=seed)
    ones = np.ones(q)
    boot = {name: pc.aucs(w) for name, pc in pcs.items()}
    point = {name: pc.auc(ones) for name, pc in pcs.items()}
    out = {name: _estimate(point[name], boot[name], q) for name in pcs}
    # paired: the same resamples for both kinds of gold
    out["deficit"] = _estimate(
        point["bridge_only"] - point["answer_bearing"], boot["bridge_only"] - boot["answer_bearing"], q
    )
    return {name: replace(e, n_gold=n_gold[name]) for name, e in out.items()}


def auc_by_group(
    scores: Sequence[Sequence[float] | np.ndarray],
    kinds: Sequence[Sequence[str]],
    groups: Sequence[str | int | None],
    *,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> dict[str, dict[str, Estimate]]:
    """``split_auc`` within each group (question type, hop count); groups of None are left out."""
    out: dict[str, dict[str, Estimate]] = {}
    for g in sorted({str(x) for x in groups if x is not None}):
        idx = [i for i, x in enumerate(groups) if x is not None and str(x) == g]
        out[g] = split_auc([scores[i] for i in idx], [kinds[i] for i in idx], n_resamples=n_resamples, seed=seed)
    return out


def paired_auc_diff(
    scores_a: Sequence[Sequence[float] | np.ndarray],
    scores_b: Sequence[Sequence[float] | np.ndarray],
    labels: Sequence[Sequence[bool]],
    *,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> Estimate:
    """AUC(b) − AUC(a) on the same pairs; the CI resamples questions jointly for both signals."""
    y = [np.asarray(x, dtype=bool) for x in labels]
    pa = PairCounts([np.asarray(x, dtype=float) for x in scores_a], y)
    pb = PairCounts([np.asarray(x, dtype=float) for x in scores_b], y)
    q = len(y)
    if q == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    w = resample_weights(q, n_resamples=n_resamples, seed=seed)
    ones = np.ones(q)
    return _estimate(pb.auc(ones) - pa.auc(ones), pb.aucs(w) - pa.aucs(w), q)


# ----------------------------------------------------------------------------- selection / packing


def recall_at_k(scores: Sequence[float] | np.ndarray, gold: Sequence[int], k: int) -> float:
    """Fraction of gold paragraphs among the top-k by score (ties broken by position)."""
    if not gold:
        return float("nan")
    top = set(top_k(scores, k))
    return sum(1 for g in gold if g in top) / len(gold)


def top_k(scores: Sequence[float] | np.ndarray, k: int) -> list[int]:
    """Indices of the k highest scores; stable (earlier position wins a tie)."""
    s = np.asarray(scores, dtype=float)
    return [int(i) for i in np.argsort(-s, kind="mergesort")[:k]]


def selected_recall(selected: Sequence[int], gold: Sequence[int]) -> float:
    """Fraction of the available gold paragraphs that the selector kept."""
    if not gold:
        return float("nan")
    return len(set(selected) & set(gold)) / len(set(gold))


def argmax_correct(selected: Sequence[int], gold: Sequence[int], capacity: int | None = None) -> bool:
    """The selector's output is the best it could have handed over: everything it kept is gold, and it
    kept ``min(capacity, len(gold))`` distinct gold paragraphs.

    ``capacity`` is the most paragraphs the selector can ever keep: 2 for a pair selector (B2, B4,
    SET, COND), k for one that keeps the top k (B1) or gates each of the top k (PC); ``None`` (no
    bound, e.g. the gold oracle) means it must keep exactly the gold set. The capacity is a property
    of the selector, not of one output, so a variable-size selector that keeps one gold paragraph
    of two is wrong (``argmax_correct([3], [3, 7])`` is False), as a pair selector keeping one would be.
    """
    sel, g = set(selected), set(gold)
    want = len(g) if capacity is None else min(capacity, len(g))
    return bool(sel) and sel <= g and len(sel) == want


def gold_doc_coverage(reader_docs: Sequence[str], gold_docs: Sequence[str]) -> float:
    """Fraction of gold documents with at least one snippet in the reader's context."""
    g = set(gold_docs)
    if not g:
        return float("nan")
    return len(g & set(reader_docs)) / len(g)


def all_gold_in_reader(reader_docs: Sequence[str], gold_docs: Sequence[str]) -> bool:
    return bool(gold_docs) and set(gold_docs) <= set(reader_docs)


def gold_token_density(costs: Sequence[int], from_gold: Sequence[bool]) -> float:
    """Share of the packed tokens that come from gold documents."""
    total = sum(costs)
    if total == 0:
        return 0.0
    return sum(c for c, g in zip(costs, from_gold) if g) / total


# ----------------------------------------------------------------------------- significance


def paired_bootstrap(
    a: Sequence[float], b: Sequence[float], *, n_resamples: int = N_RESAMPLES, seed: int = SEED
) -> tuple[Estimate, float]:
    """Mean of (b − a) over paired units with a bootstrap CI, and a two-sided bootstrap p-value
    (twice the share of resampled means on the far side of zero, capped at 1)."""
    x = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    if len(x) == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0), float("nan")
    est = bootstrap(len(x), lambda idx: float(x[idx].mean()), n_resamples=n_resamples, seed=seed)
    rng = np.random.default_rng(seed)
    means = np.array([x[rng.integers(0, len(x), len(x))].mean() for _ in range(n_resamples)])
    p = min(1.0, 2 * min(float((means <= 0).mean()), float((means >= 0).mean())))
    return est, p


def mcnemar_exact(a_correct: Sequence[bool], b_correct: Sequence[bool]) -> tuple[int, int, float]:
    """Exact (binomial) McNemar test. Returns (b, c, p): b = a right & b wrong, c = a wrong & b right."""
    if len(a_correct) != len(b_correct):
        raise ValueError("mcnemar_exact needs paired outcomes of equal length")
    b = sum(1 for x, y in zip(a_correct, b_correct) if x and not y)
    c = sum(1 for x, y in zip(a_correct, b_correct) if y and not x)
    n = b + c
    if n == 0:
        return b, c, 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return b, c, min(1.0, 2 * tail)


def wilson(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """95% Wilson score interval for a proportion."""
    if n == 0:
        return float("nan"), float("nan")
    p = successes / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return centre - half, centre + half


def jsonable(value: object) -> object:
    """numpy scalars/arrays -> Python; NaN/inf -> None (JSON has no NaN)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
