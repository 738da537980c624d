"""Reader-free evidence selectors over the top-k retrieved paragraphs (seed 000, Table VI).

    B1    all k retrieved, no filter
    B2    top-2 by the retriever
    B4    top-2 after reranking the k by a second scorer (named in the summary; offline
          here, so not the paper's bge cross-encoder reranker: ``nli-slot`` entailment by
          default, ``B4:bm25`` / ``B4:embedding`` … for another registered signal)
    PC    per-chunk gate: keep chunks with P(entail | chunk, H(q)) >= tau (``PC@0.3`` …; sweep 0.10–0.75)
    SET   blind set search: argmax over all C(k,2) pairs of P(entail | ci ⊕ cj, H(q))
    COND  Algorithm 1: the retriever's top chunk is the anchor, then argmax over the other
          k-1 of P(entail | anchor ⊕ cj, H(q)): k-1 NLI calls instead of C(k,2)
    B5    oracle: the gold paragraphs (a pair on 2-gold questions)

The retriever is the embedding signal when given (as in the paper), else BM25. Reported per
selector: gold recall (share of the question's gold paragraphs kept, retrieved or not, averaged over
questions; the PC sweep uses the same definition), argmax accuracy (everything kept is gold and as
many as the selector's capacity allows: ``capacity`` and ``metrics.argmax_correct``), NLI calls and
kept chunks per question.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np

from chainret.research.qa.datasets import passage
from chainret.research.qa.example import Example
from chainret.research.qa.metrics import argmax_correct, roc_auc, selected_recall
from chainret.research.qa.metrics import top_k as _top_k
from chainret.core.errors import UsageError
from chainret.research.verification.hypothesis import hypothesis
from chainret.research.verification.scorer import EntailmentScorer, get_scorer

SELECTORS = ("B1", "B2", "B4", "PC", "SET", "COND", "B5")
PC_DEFAULT_TAU = 0.5
PC_SWEEP = (0.10, 0.20, 0.30, 0.40, 0.50, 0.60, 0.75)
PAIR_SEPARATOR = " "


def _retriever(scores: dict[str, list[np.ndarray]]) -> str:
    for name in ("embedding", "bm25"):
        if name in scores:
            return name
    raise UsageError("selectors need a retriever signal: include 'embedding' (or 'bm25') in --signals")


def _parse(name: str) -> tuple[str, str | None]:
    base, _, arg = name.partition("@") if "@" in name else name.partition(":")
    if base not in SELECTORS:
        raise UsageError(f"unknown selector {name!r}; valid: {', '.join(SELECTORS)} (PC@TAU, B4:SIGNAL)")
    return base, arg or None


def capacity(base: str, top_k: int) -> int | None:
    """The most paragraphs a selector can keep (``metrics.argmax_correct``): two for the pair
    selectors, k for B1 and for PC (a gate over the top k keeps anything from none to all k), no
    bound for the gold oracle B5."""
    if base in {"B2", "B4", "SET", "COND"}:
        return 2
    return None if base == "B5" else top_k


def pair_premise(first: str, second: str) -> str:
    """The concatenated premise ci ⊕ cj, in the order given (SET, COND and the sufficiency control)."""
    return first + PAIR_SEPARATOR + second


def run_selectors(
    examples: list[Example],
    scores: dict[str, list[np.ndarray]],
    names: list[str],
    top_k: int = 5,
    *,
    scorer: EntailmentScorer | None = None,
    nli_model: str | None = None,
    b4_reranker: str = "nli-slot",
    pc_tau: float = PC_DEFAULT_TAU,
    progress: Any = None,
) -> dict[str, Any]:
    """Run the named selectors; see the module docstring. ``scores`` maps signal names to per-example arrays.

    Returns ``{"per_question": {qid: {selector: {"kept": [idx], "nli_calls": n}}}, "summary": {selector: {...}},
    "details": {...}}``; details hold the retriever, the PC threshold sweep and the set-level pair AUC.
    """
    k = top_k
    ret = _retriever(scores)
    parsed = [(n, *_parse(n)) for n in names]
    need_pairs = any(base in {"SET", "COND"} for _, base, _ in parsed)
    need_slot = any(base == "PC" or (base == "B4" and (arg or b4_reranker) == "nli-slot") for _, base, arg in parsed)
    scorer = scorer or (get_scorer(nli_model) if (need_pairs or need_slot) else None)

    slot = scores.get("nli-slot")
    if need_slot and slot is None:
        from chainret.research.verification.signals import NLISlotSignal

        slot = NLISlotSignal(scorer=scorer).score(examples)

    tops = [_top_k(scores[ret][q], k) for q in range(len(examples))]
    pair_scores: list[dict[tuple[int, int], float]] = [{} for _ in examples]
    if need_pairs:
        assert scorer is not None  # loaded above whenever pairs are needed
        pair_scores = _score_pairs(examples, tops, scorer, want_all=any(b == "SET" for _, b, _ in parsed), progress=progress)

    per_q: dict[str, dict[str, Any]] = {ex.id: {} for ex in examples}
    for q, ex in enumerate(examples):
        top = tops[q]
        for label, base, arg in parsed:
            kept, calls = _select(base, arg, q, ex, top, scores, slot, pair_scores[q], b4_reranker, pc_tau)
            per_q[ex.id][label] = {"kept": kept, "nli_calls": calls}

    summary: dict[str, Any] = {}
    for label, base, arg in parsed:
        rows = [per_q[ex.id][label] for ex in examples]
        golds = [ex.gold_indices for ex in examples]
        summary[label] = {
            "gold_recall": _mean(selected_recall(r["kept"], g) for r, g in zip(rows, golds)),
            "argmax_pair_accuracy": _mean(
                float(argmax_correct(r["kept"], g, capacity(base, k))) for r, g in zip(rows, golds)
            ),
            "anchor_gold": _mean(float(tops[i][0] in golds[i]) for i in range(len(examples))) if base == "COND" else None,
            "nli_calls": _mean(r["nli_calls"] for r in rows),
            "kept_chunks": _mean(len(r["kept"]) for r in rows),
            "n": len(rows),
        }
        if base == "B4":
            summary[label]["reranker"] = arg or b4_reranker
    details: dict[str, Any] = {"retriever": ret, "top_k": k, "nli_model": scorer.model_id if scorer else None}
    if slot is not None:
        details["pc_sweep"] = pc_sweep(examples, tops, slot)
    if any(b == "SET" for _, b, _ in parsed):
        details["pair_auc"] = pair_auc(examples, pair_scores)
    return {"per_question": per_q, "summary": summary, "details": details}


def _score_pairs(
    examples: list[Example], tops: list[list[int]], scorer: EntailmentScorer, *, want_all: bool, progress: Any
) -> list[dict[tuple[int, int], float]]:
    """P(entail | ci ⊕ cj, H(q)) for every pair SET / COND needs; anchor-first pairs are shared."""
    jobs: list[tuple[int, tuple[int, int]]] = []
    pairs: list[tuple[str, str]] = []
    for q, ex in enumerate(examples):
        texts = {i: passage(ex.paragraphs[i]) for i in tops[q]}
        h = hypothesis(ex.question)
        top = tops[q]
        wanted = list(combinations(top, 2)) if want_all else [(top[0], j) for j in top[1:]]
        for i, j in wanted:  # (i, j) in retrieval order; i == anchor for COND's pairs
            jobs.append((q, (i, j)))
            pairs.append((pair_premise(texts[i], texts[j]), h))
    vals = scorer.p_entail(pairs, progress=progress) if pairs else np.zeros(0)
    out: list[dict[tuple[int, int], float]] = [{} for _ in examples]
    for (q, key), v in zip(jobs, vals):
        out[q][key] = float(v)
    return out


def _select(
    base: str,
    arg: str | None,
    q: int,
    ex: Example,
    top: list[int],
    scores: dict[str, list[np.ndarray]],
    slot: list[np.ndarray] | None,
    pairs: dict[tuple[int, int], float],
    b4_reranker: str,
    pc_tau: float,
) -> tuple[list[int], int]:
    if base == "B1":
        return list(top), 0
    if base == "B2":
        return list(top[:2]), 0
    if base == "B5":
        return list(ex.gold_indices), 0
    if base == "B4":
        name = arg or b4_reranker
        src = slot if name == "nli-slot" else scores.get(name)
        if src is None:
            raise UsageError(f"B4 reranks by {name!r}, which is not among the run's signals")
        order = sorted(top, key=lambda i: (-float(src[q][i]), top.index(i)))
        return order[:2], (len(top) if name.startswith("nli") else 0)
    if base == "PC":
        tau = float(arg) if arg else pc_tau
        assert slot is not None
        return [i for i in top if float(slot[q][i]) >= tau], len(top)
    if base == "SET":
        cand = list(combinations(top, 2))
        best = max(cand, key=lambda ij: (pairs[ij], -cand.index(ij)))
        return list(best), len(cand)
    if base == "COND":
        anchor = top[0]
        rest = top[1:]
        cond = max(rest, key=lambda j: (pairs[(anchor, j)], -rest.index(j)))
        return [anchor, cond], len(rest)
    raise UsageError(f"unknown selector {base!r}")


def pc_sweep(examples: list[Example], tops: list[list[int]], slot: list[np.ndarray]) -> list[dict[str, float]]:
    """Per-chunk gate at each tau over the top k.

    ``gold_recall`` is the selector table's *rec*: per question, the share of all its gold paragraphs
    (retrieved or not) that the gate keeps, averaged over questions; at tau = ``PC_DEFAULT_TAU`` it
    equals PC's rec. ``answer_bearing_pass`` is the share of answer-bearing gold paragraphs *in the
    top k* that pass the gate (pooled; seed 000's rule), ``distractor_rejection`` the share of
    distractors in the top k rejected (pooled), ``kept_chunks`` the mean kept per question.
    """
    from chainret.research.qa.metrics import paragraph_kinds

    kinds = [paragraph_kinds(ex) for ex in examples]
    rows = []
    for tau in PC_SWEEP:
        kept_ans = n_ans = rej = n_dis = kept_n = 0
        recalls = []
        for q, ex in enumerate(examples):
            kept = [i for i in tops[q] if float(slot[q][i]) >= tau]
            recalls.append(selected_recall(kept, ex.gold_indices))
            kept_n += len(kept)
            for i in tops[q]:
                keep = i in kept
                if kinds[q][i] == "answer":
                    n_ans += 1
                    kept_ans += keep
                elif kinds[q][i] == "distractor":
                    n_dis += 1
                    rej += not keep
        rows.append(
            {
                "tau": tau,
                "gold_recall": _mean(recalls),
                "answer_bearing_pass": kept_ans / n_ans if n_ans else float("nan"),
                "distractor_rejection": rej / n_dis if n_dis else float("nan"),
                "kept_chunks": kept_n / max(1, len(examples)),
            }
        )
    return rows


def pair_auc(examples: list[Example], pair_scores: list[dict[tuple[int, int], float]]) -> dict[str, float]:
    """Set-level separation: all-gold pairs vs other pairs among the top-k (pooled AUC)."""
    s, y = [], []
    for ex, ps in zip(examples, pair_scores):
        gold = set(ex.gold_indices)
        for (i, j), v in ps.items():
            s.append(v)
            y.append(i in gold and j in gold)
    return {"auc": roc_auc(s, y), "n_pairs": len(s), "n_gold_pairs": int(sum(y))}


def _mean(values: Any) -> float:
    vals = [v for v in values if v is not None and not (isinstance(v, float) and np.isnan(v))]
    return float(np.mean(vals)) if vals else float("nan")
