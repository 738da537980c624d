"""``chainret bench run``: score every candidate paragraph with each signal, record one Trace per
question, and summarise reader-free metrics.

Output directory:
  traces.jsonl   one ``Trace`` (kind "bench") per line: the question, one retrieval hop whose hits
                 are all candidates ranked by the primary signal, every signal's score per hit,
                 selector choices; ``meta`` holds gold refs, answer-bearing refs, type and hops, so
                 every metric can be recomputed from the traces alone.
  summary.json   dataset, n, seed, question ids, data files, skipped records, model ids, timings,
                 metrics per signal (AUC overall / answer-bearing / bridge-only / deficit with
                 question-bootstrap CIs, by type, by hop count, recall@k, anchor accuracy), selectors.
  report.md      the same as tables (``chainret bench report`` re-renders it).
"""

from __future__ import annotations

import json
import platform
import re
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from chainret.core.errors import UsageError
from chainret.core.files import atomic_write_text
from chainret.research.qa import metrics as M
from chainret.research.qa.datasets import DEFAULT_SEED, LoadResult, load_examples
from chainret.research.qa.example import Example
from chainret.research.qa.signals import SIGNALS, get_signal, parse_names
from chainret.trace.model import Hit, Hop, Trace
from chainret.research.verification.selectors import SELECTORS, run_selectors

RECALL_KS = (1, 2, 5)


class Reporter(Protocol):
    """Progress sink; the CLI passes a rich-backed one, the library default is silent."""

    def task(self, description: str, total: int) -> AbstractContextManager[Callable[[int], None]]: ...


class SilentReporter:
    @contextmanager
    def task(self, description: str, total: int) -> Iterator[Callable[[int], None]]:
        yield lambda n: None


@dataclass
class RunConfig:
    dataset: str
    out: Path
    signals: list[str] = field(default_factory=lambda: ["bm25", "embedding"])
    selectors: list[str] = field(default_factory=list)
    n: int | None = None
    seed: int = DEFAULT_SEED
    data_dir: Path | None = None
    embedder: str | None = None
    nli_model: str | None = None
    lenient: bool = False
    top_k: int = 5
    n_resamples: int = M.N_RESAMPLES
    batch_size: int = 64

    @classmethod
    def from_strings(cls, dataset: str, out: Path, signals: str, selectors: str = "", **kw: Any) -> RunConfig:
        sig = parse_names(signals, SIGNALS, "signal")
        sel = parse_selectors(selectors) if selectors.strip() else []
        return cls(dataset=dataset, out=Path(out), signals=sig, selectors=sel, **kw)


def parse_selectors(text: str) -> list[str]:
    """"B1,PC@0.3,B4:bm25" -> names; the base (before ``@``/``:``) must be a known selector."""
    valid = list(SELECTORS)
    names = [x.strip() for x in text.split(",") if x.strip()]
    bad = [x for x in names if re.split(r"[@:]", x, maxsplit=1)[0] not in valid]
    if bad or not names:
        raise UsageError(f"unknown selector {', '.join(map(repr, bad))}; valid: {', '.join(valid)} (PC@TAU, B4:SIGNAL)")
    return list(dict.fromkeys(names))


def primary_signal(signals: list[str]) -> str:
    """The signal that ranks hits: embedding (the retriever's own score) when present."""
    return "embedding" if "embedding" in signals else signals[0]


def question_labels(ex: Example) -> dict[str, Any]:
    """Gold structure recorded in each trace so metrics never need the data files again."""
    kinds = {rule: M.paragraph_kinds(ex, rule) for rule in M.ANSWER_RULES}
    return {
        "gold_refs": [p.ref for p in ex.paragraphs if p.is_gold],
        # answer-bearing gold under seed 000's rule (the default) and under ours (see metrics.answer_bearing)
        "answer_bearing_refs": [p.ref for p, k in zip(ex.paragraphs, kinds["paper"]) if k == "answer"],
        "answer_bearing_refs_ours": [p.ref for p, k in zip(ex.paragraphs, kinds["ours"]) if k == "answer"],
        "qtype": ex.qtype,
        "hops": ex.hops,
        "answers": ex.answers,
        "source": ex.source,
    }


def build_trace(
    ex: Example, scores: dict[str, np.ndarray], primary: str, signal_route: str, selections: dict[str, Any] | None
) -> Trace:
    prim = scores[primary]
    order = np.argsort(-prim, kind="mergesort")
    hits = [
        Hit(
            ref=ex.paragraphs[i].ref,
            rank=r + 1,
            score=float(prim[i]),
            title=ex.paragraphs[i].title,
            scores={name: float(s[i]) for name, s in scores.items()},
        )
        for r, i in enumerate(order)
    ]
    meta: dict[str, Any] = question_labels(ex)
    selected: list[str] = []
    if selections:
        meta["selectors"] = {
            name: {"kept": [ex.paragraphs[i].ref for i in rec.get("kept", [])], "nli_calls": rec.get("nli_calls", 0)}
            for name, rec in selections.items()
        }
        first = next(iter(selections.values()))
        selected = [ex.paragraphs[i].ref for i in first.get("kept", [])]
    hop = Hop(index=1, kind="retrieval", subquery=ex.question, hits=hits, selected=selected)
    return Trace(
        request=ex.question,
        kind="bench",
        route=signal_route,
        dataset=ex.dataset,
        question_id=ex.id,
        hops=[hop],
        outcome="retrieved",
        searches_used=1,
        rows_used=len(hits),
        meta=meta,
    )


def _with_verifications(traces: list[Trace], signal_objs: dict[str, Any]) -> list[Trace]:
    """Attach the NLI signals' per-question Verification records (hypothesis, premise refs, P(entail), model)."""
    keepers = [s for s in signal_objs.values() if hasattr(s, "verification_records")]
    if not keepers:
        return traces
    from chainret.research.verification.signals import attach_verifications

    out = []
    for t in traces:
        records = [r for s in keepers for r in s.verification_records(t.question_id or "")]
        out.append(attach_verifications(t, records) if records else t)
    return out


# ----------------------------------------------------------------------------- metrics from traces


def _trace_arrays(traces: list[Trace], signal: str, rule: str = M.DEFAULT_ANSWER_RULE) -> tuple[list[np.ndarray], list[list[str]]]:
    key = "answer_bearing_refs" if rule == M.DEFAULT_ANSWER_RULE else f"answer_bearing_refs_{rule}"
    scores, kinds = [], []
    for t in traces:
        gold, ans = set(t.meta["gold_refs"]), set(t.meta[key])
        hits = t.hops[0].hits
        scores.append(np.array([h.scores[signal] for h in hits], dtype=float))
        kinds.append(["distractor" if h.ref not in gold else ("answer" if h.ref in ans else "bridge") for h in hits])
    return scores, kinds


def signal_metrics(traces: list[Trace], signal: str, *, n_resamples: int = M.N_RESAMPLES, seed: int = M.SEED) -> dict[str, Any]:
    """AUC (overall / answer-bearing / bridge-only / deficit) with CIs, by type, by hops, recall@k."""
    scores, kinds = _trace_arrays(traces, signal)

    def dump(d: dict[str, M.Estimate]) -> dict[str, Any]:
        return {k: v.as_dict() for k, v in d.items()}

    out: dict[str, Any] = {"auc": dump(M.split_auc(scores, kinds, n_resamples=n_resamples, seed=seed))}
    for key, group in (("by_type", "qtype"), ("by_hops", "hops")):
        groups = [t.meta.get(group) for t in traces]
        if any(g is not None for g in groups):
            by = M.auc_by_group(scores, kinds, groups, n_resamples=n_resamples, seed=seed)
            out[key] = {g: {**dump(v), "n": sum(1 for x in groups if x is not None and str(x) == g)} for g, v in by.items()}
    golds = [[i for i, k in enumerate(kq) if k != "distractor"] for kq in kinds]
    out["recall_at"] = {str(k): float(np.nanmean([M.recall_at_k(s, g, k) for s, g in zip(scores, golds)])) for k in RECALL_KS}
    anchors = [int(np.argmax(s)) in g for s, g in zip(scores, golds)]
    out["anchor_gold"] = float(np.mean(anchors))
    hops = [t.meta.get("hops") for t in traces]
    if any(h is not None for h in hops):  # the anchor rate per hop count, to compare like with like
        out["anchor_gold_by_hops"] = {
            str(h): float(np.mean([a for a, x in zip(anchors, hops) if x == h])) for h in sorted({x for x in hops if x is not None})
        }
    gold_scores = [x for s, kq in zip(scores, kinds) for x, k in zip(s, kq) if k != "distractor"]
    distractor_scores = [x for s, kq in zip(scores, kinds) for x, k in zip(s, kq) if k == "distractor"]
    out["mean_gold"] = float(np.mean(gold_scores)) if gold_scores else float("nan")
    out["mean_distractor"] = float(np.mean(distractor_scores)) if distractor_scores else float("nan")
    out["n_questions"] = len(traces)
    out["n_pairs"] = int(sum(len(s) for s in scores))
    out["n_gold"] = {k: int(sum(kq.count(k) for kq in kinds)) for k in ("answer", "bridge", "distractor")}
    # the same split under our own answer-bearing rule, and how many gold paragraphs the two rules label differently
    if all("answer_bearing_refs_ours" in t.meta for t in traces):
        _, kinds_ours = _trace_arrays(traces, signal, "ours")
        out["auc_ours"] = dump(M.split_auc(scores, kinds_ours, n_resamples=n_resamples, seed=seed))
        out["rules_differ"] = {
            "paper_answer_ours_bridge": sum(a == "answer" and b == "bridge" for ka, kb in zip(kinds, kinds_ours) for a, b in zip(ka, kb)),
            "paper_bridge_ours_answer": sum(a == "bridge" and b == "answer" for ka, kb in zip(kinds, kinds_ours) for a, b in zip(ka, kb)),
            "gold": sum(k != "distractor" for kq in kinds for k in kq),
        }
    return out


def all_metrics(traces: list[Trace], signals: list[str], **kw: Any) -> dict[str, Any]:
    return {s: signal_metrics(traces, s, **kw) for s in signals}


# ----------------------------------------------------------------------------- run


def score_examples(
    examples: list[Example],
    signals: list[str],
    *,
    reporter: Reporter | None = None,
    label: str = "",
    timings: dict[str, float] | None = None,
    **options: Any,
) -> tuple[dict[str, list[np.ndarray]], dict[str, Any]]:
    """Every registered signal's scores for every candidate paragraph, and the signal objects.

    ``options`` go to each signal's constructor (``embedder``, ``nli_model``, ``batch_size``, or a
    shared ``scorer``); ``timings`` gains ``<signal>_s``. The one scoring path for ``chainret bench
    run`` and the published verification tables.
    """
    reporter = reporter or SilentReporter()
    per_signal: dict[str, list[np.ndarray]] = {}
    objs: dict[str, Any] = {}
    for name in signals:
        ts = time.perf_counter()
        total = len(examples) if name != "embedding" else sum(len(e.paragraphs) + 1 for e in examples)
        with reporter.task(f"{label}: {name}" if label else name, total) as advance:
            sig = get_signal(name, progress=advance, **options)
            per_signal[name] = sig.score(examples)
        objs[name] = sig
        if len(per_signal[name]) != len(examples) or any(len(s) != len(e.paragraphs) for s, e in zip(per_signal[name], examples)):
            raise UsageError(f"signal {name!r} returned scores not aligned with the paragraphs")
        if timings is not None:
            timings[f"{name}_s"] = time.perf_counter() - ts
    return per_signal, objs


def traces_for(
    examples: list[Example],
    per_signal: dict[str, list[np.ndarray]],
    signals: list[str],
    selections: dict[str, dict[str, Any]] | None = None,
    signal_objs: dict[str, Any] | None = None,
) -> list[Trace]:
    """One bench trace per question (hits ranked by the primary signal), with the NLI verifications.

    Every reader-free metric (``signal_metrics``) is computed from these traces alone.
    """
    primary = primary_signal(signals)
    route = "bench:" + "+".join(signals)
    traces = [
        build_trace(ex, {n: per_signal[n][i] for n in signals}, primary, route, (selections or {}).get(ex.id))
        for i, ex in enumerate(examples)
    ]
    return _with_verifications(traces, signal_objs or {})



def run_bench(cfg: RunConfig, reporter: Reporter | None = None) -> dict[str, Any]:
    """Load, score, select, write traces + summary + report. Returns the summary dict."""
    reporter = reporter or SilentReporter()
    t0 = time.perf_counter()
    loaded: LoadResult = load_examples(cfg.dataset, data_dir=cfg.data_dir, n=cfg.n, seed=cfg.seed, lenient=cfg.lenient)
    if not loaded.examples:
        raise UsageError(f"dataset {cfg.dataset!r} gave no examples (skipped {len(loaded.skipped)})")
    examples = loaded.examples
    timings: dict[str, float] = {"load_s": time.perf_counter() - t0}
    per_signal, signal_objs = score_examples(
        examples, cfg.signals, reporter=reporter, label=cfg.dataset, timings=timings,
        embedder=cfg.embedder, nli_model=cfg.nli_model, batch_size=cfg.batch_size,
    )
    models = {name: str(sig.model_id) for name, sig in signal_objs.items() if getattr(sig, "model_id", None)}
    selector_summary: dict[str, Any] = {}
    selector_details: dict[str, Any] = {}
    per_q_sel: dict[str, dict[str, Any]] = {}
    if cfg.selectors:
        ts = time.perf_counter()
        with reporter.task(f"{cfg.dataset}: selectors", len(examples)) as advance:
            res = run_selectors(examples, per_signal, cfg.selectors, top_k=cfg.top_k, nli_model=cfg.nli_model)
            advance(len(examples))
        selector_summary, per_q_sel = res.get("summary", {}), res.get("per_question", {})
        selector_details = res.get("details", {})
        timings["selectors_s"] = time.perf_counter() - ts
    traces = traces_for(examples, per_signal, cfg.signals, per_q_sel, signal_objs)
    ts = time.perf_counter()
    metrics = all_metrics(traces, cfg.signals, n_resamples=cfg.n_resamples, seed=cfg.seed)
    timings["metrics_s"] = time.perf_counter() - ts
    timings["total_s"] = time.perf_counter() - t0
    summary = {
        "kind": "bench-run",
        "dataset": cfg.dataset,
        "n": len(examples),
        "n_requested": cfg.n,
        "seed": cfg.seed,
        "signals": cfg.signals,
        "primary_signal": primary_signal(cfg.signals),
        "selectors": cfg.selectors,
        "top_k": cfg.top_k,
        "models": models,
        "data_files": loaded.files,
        "skipped": [{"source": s.source, "reason": s.reason, "kind": s.kind} for s in loaded.skipped],
        "duplicates_dropped": loaded.duplicates,
        "question_ids": loaded.ids,
        "n_resamples": cfg.n_resamples,
        "timings": timings,
        "throughput": {
            "embedding_paragraphs_per_s": (
                sum(len(e.paragraphs) for e in examples) / timings["embedding_s"] if timings.get("embedding_s") else None
            )
        },
        "metrics": metrics,
        "selector_summary": selector_summary,
        "selector_details": selector_details,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "host": {"python": platform.python_version(), "machine": platform.machine()},
    }
    write_run(cfg.out, traces, summary)
    return summary


def write_run(out: Path, traces: list[Trace], summary: dict[str, Any]) -> None:
    from chainret.research.bench.report import render_report

    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "traces.jsonl", "".join(t.to_json(indent=None) + "\n" for t in traces))
    atomic_write_text(out / "summary.json", json.dumps(M.jsonable(summary), indent=2, sort_keys=True) + "\n")
    atomic_write_text(out / "report.md", render_report(summary))


def read_run(run_dir: Path) -> tuple[dict[str, Any], list[Trace]]:
    """summary.json and traces.jsonl of a run directory (clear errors when absent or damaged)."""
    from chainret.core.errors import DataError

    summ = run_dir / "summary.json"
    if not summ.is_file():
        raise UsageError(f"{run_dir}: no summary.json here; is this a `chainret bench run --out` directory?")
    try:
        summary = json.loads(summ.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(f"{summ}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    traces: list[Trace] = []
    tpath = run_dir / "traces.jsonl"
    if tpath.is_file():
        for i, line in enumerate(tpath.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    traces.append(Trace.from_json(line))
                except ValueError as exc:
                    raise DataError(f"{tpath}:{i}: not a valid trace: {str(exc).splitlines()[0]}") from None
    return summary, traces
