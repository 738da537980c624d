"""Seed 000's premise-sufficiency control (Section VII): same questions, same oracle hypothesis,
only the premise changes. The per-chunk tables (I, II, III) come from ``chainret.research.bench.run``'s
trace metrics, the path ``chainret bench run`` takes; ``benchmarks/verify_results.py`` renders both.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

import numpy as np

from chainret.research.qa import metrics as M
from chainret.research.qa.datasets import passage
from chainret.research.qa.example import Example
from chainret.research.verification.hypothesis import hypothesis
from chainret.research.verification.scorer import EntailmentScorer
from chainret.research.verification.selectors import pair_premise


def sufficiency_control(
    examples: list[Example],
    scorer: EntailmentScorer,
    *,
    distractor_pairs: int = 6,
    seed: int = M.SEED,
    n_resamples: int = M.N_RESAMPLES,
    progress: Any = None,
) -> dict[str, Any]:
    """Same model, same questions, same oracle hypothesis; only the premise changes (seed 000, VII).

    Premises: every single chunk; the gold pair concatenated; every gold ⊕ distractor pair; a
    seeded sample of distractor ⊕ distractor pairs. Reports chunk-level AUC, pair-level AUC
    (gold pair vs the other pairs), and mean P(entail) and mean words per premise kind.
    Questions with exactly two gold paragraphs only (HotpotQA).
    """
    rng = random.Random(seed)
    jobs: list[tuple[int, str, str]] = []  # (question, kind, premise)
    pairs: list[tuple[str, str]] = []
    used = [ex for ex in examples if len(ex.gold_indices) == 2]
    for q, ex in enumerate(used):
        h = hypothesis(ex.question, ex.answer)
        texts = [passage(p) for p in ex.paragraphs]
        g = ex.gold_indices
        d = [i for i in range(len(texts)) if i not in g]
        for i, t in enumerate(texts):
            jobs.append((q, "chunk-gold" if i in g else "chunk-distractor", t))
        jobs.append((q, "pair-gold", pair_premise(texts[g[0]], texts[g[1]])))
        for gi in g:
            for di in d:
                jobs.append((q, "pair-gold+distractor", pair_premise(texts[gi], texts[di])))
        dd = list(combinations(d, 2))
        for i, j in rng.sample(dd, min(distractor_pairs, len(dd))):
            jobs.append((q, "pair-distractors", pair_premise(texts[i], texts[j])))
        pairs.extend((prem, h) for _, _, prem in jobs[len(pairs) :])
    probs = scorer.p_entail(pairs, progress=progress)
    by_kind: dict[str, list[tuple[float, int]]] = {}
    chunk_s: list[list[float]] = [[] for _ in used]
    chunk_y: list[list[bool]] = [[] for _ in used]
    pair_s: list[list[float]] = [[] for _ in used]
    pair_y: list[list[bool]] = [[] for _ in used]
    for (q, kind, prem), p in zip(jobs, probs):
        by_kind.setdefault(kind, []).append((float(p), len(prem.split())))
        if kind.startswith("chunk"):
            chunk_s[q].append(p)
            chunk_y[q].append(kind == "chunk-gold")
        else:
            pair_s[q].append(p)
            pair_y[q].append(kind == "pair-gold")
    chunk_auc = M.auc_ci(chunk_s, chunk_y, n_resamples=n_resamples, seed=seed)
    pair_auc = M.auc_ci(pair_s, pair_y, n_resamples=n_resamples, seed=seed)
    return {
        "questions": len(used),
        "chunk_auc": chunk_auc.as_dict(),
        "pair_auc": pair_auc.as_dict(),
        "premises": {
            k: {"n": len(v), "mean_p_entail": float(np.mean([x[0] for x in v])), "mean_words": float(np.mean([x[1] for x in v]))}
            for k, v in sorted(by_kind.items())
        },
    }
