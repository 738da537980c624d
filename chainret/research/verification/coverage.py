"""Rule coverage of the iterative decomposer on questions without paragraphs (issue 27).

With no candidate paragraphs there is nothing to retrieve or bridge from, but the descriptor rules
still run: each descriptor found is replaced by a placeholder name (``iterative.rule_chain``) and the
rules run again on the filled question. A question is *decomposed* when the rules find at least one
descriptor; it has *hops found = gold* when the descriptors found plus the outer question number
the gold hop count. Shares come with 95% Wilson intervals, per hop count and overall; ``at_mix``
re-weights the per-hop shares to another part's hop mix (an interval from the per-hop variances),
so parts with different hop mixes can be compared; ``by_composition`` splits the 2-hop questions by
whether a gold sub-question is a knowledge-base triple ("X >> performer") or all are natural questions.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from chainret.research.qa.metrics import wilson
from chainret.research.verification.iterative import MAX_HOPS, rule_chain


def question_coverage(question: str, gold_hops: int) -> dict[str, Any]:
    """One question: descriptors found by the rules alone, and how the hop count compares with gold."""
    found = len(rule_chain(question)) + 1
    return {"decomposed": found > 1, "hops_found": found, "gold_hops": gold_hops,
            "hops_equal_gold": found == min(gold_hops, MAX_HOPS + 1), "fewer": found < gold_hops, "more": found > gold_hops}


def _share(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(k, n)
    return {"k": k, "n": n, "value": k / n if n else float("nan"), "low": lo, "high": hi}


def composition(record: Mapping[str, Any]) -> str:
    """``relation`` when a gold sub-question is a knowledge-base triple ("X >> performer"), else ``natural``
    (every sub-question a natural-language question, MuSiQue's reading-comprehension compositions)."""
    steps = record.get("question_decomposition") or []
    return "relation" if any(">>" in str(s.get("question", "")) for s in steps) else "natural"


def coverage(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Coverage of records with ``question`` and ``question_decomposition`` (MuSiQue's fields)."""
    recs = list(records)
    rows = [question_coverage(str(r["question"]), len(r.get("question_decomposition") or [])) for r in recs]
    for row, r in zip(rows, recs):
        row["composition"] = composition(r)
    out: dict[str, Any] = {"n": len(rows), "by_hops": {}, "by_composition": {}}
    for key in ("decomposed", "hops_equal_gold", "fewer", "more"):
        out[key] = _share(sum(r[key] for r in rows), len(rows))
    out["undecomposed"] = _share(len(rows) - out["decomposed"]["k"], len(rows))
    for h in sorted({r["gold_hops"] for r in rows}):
        sub = [r for r in rows if r["gold_hops"] == h]
        out["by_hops"][str(h)] = {"n": len(sub), "undecomposed": _share(sum(not r["decomposed"] for r in sub), len(sub)),
                                  "hops_equal_gold": _share(sum(r["hops_equal_gold"] for r in sub), len(sub))}
    for kind in ("natural", "relation"):
        sub = [r for r in rows if r["composition"] == kind and r["gold_hops"] == 2]
        out["by_composition"][kind] = {"n": len(sub), "undecomposed": _share(sum(not r["decomposed"] for r in sub), len(sub))}
    return out


def at_mix(cov: Mapping[str, Any], mix: Mapping[str, int], metric: str = "undecomposed") -> dict[str, Any]:
    """``metric``'s share re-weighted to the hop mix ``mix`` ({hops: questions}); normal-approximation interval."""
    z = 1.959963984540054
    total = sum(n for h, n in mix.items() if h in cov["by_hops"])
    value = var = 0.0
    for h, n in mix.items():
        row = cov["by_hops"].get(h)
        if not row or not total:
            continue
        w = n / total
        k, m = row[metric]["k"], row[metric]["n"]
        value += w * k / m
        p_ac = (k + z * z / 2) / (m + z * z)  # Agresti-Coull: a 0% stratum does not claim certainty
        var += w * w * p_ac * (1 - p_ac) / (m + z * z)
    half = z * math.sqrt(var)
    return {"value": value, "low": max(0.0, value - half), "high": min(1.0, value + half)}


def hop_mix(cov: Mapping[str, Any]) -> dict[str, int]:
    return {h: int(row["n"]) for h, row in cov["by_hops"].items()}


def within(value: float, interval: Mapping[str, Any]) -> bool:
    return bool(interval["low"] <= value <= interval["high"])
