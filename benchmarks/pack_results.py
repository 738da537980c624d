"""Generate docs/results/packing.md: run `bench pack` on HotpotQA (300 + vws 500), 2Wiki (vws 500), MuSiQue (292),
each with both retrievers (embedding and BM25).

Usage: python -m benchmarks.pack_results [--signals embedding,bm25] [--resamples N] [--render-only] [--rerun]

A complete run already on disk with the same settings is reused (as bench_results.py does); --rerun forces it.

Each run writes runs/pack/<dataset>/ (embedding) or runs/pack/<dataset>-<signal>/ (summary.json, traces.jsonl,
aic_vs_budget.png); the HotpotQA embedding plot is copied to docs/results/packing_aic_vs_budget.png. Embeddings
not yet in the on-disk cache are computed (minutes per dataset on 2 CPU cores).
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

from benchmarks.harness.paths import use_data_dir
from benchmarks.harness.pack_report import render

ROOT = Path(__file__).resolve().parents[1]

use_data_dir()  # chainret has no default data folder: ../shared/data beside the repo, or $CHAINRET_DATA_DIR

from chainret.research.packing.run import SWEEP_BUDGETS, PackConfig, run_pack  # noqa: E402
from chainret.core.files import atomic_write_text  # noqa: E402

RUNS = [
    ("HotpotQA (300 distractor records)", "hotpotqa"),
    ("HotpotQA (vws-splits 500)", "hotpotqa-vws"),
    ("2Wiki (vws-splits 500)", "2wiki-vws"),
    ("MuSiQue (292)", "musique"),
]


def _complete(out: Path, cfg: PackConfig) -> dict | None:
    """The summary of a finished run in ``out`` with the same packers, budgets, signal and resamples, else None."""
    path = out / "summary.json"
    if not path.is_file():
        return None
    s = json.loads(path.read_text(encoding="utf-8"))
    c = s.get("config", {})
    want = [*cfg.packers, "oracle"]
    same = (c.get("packers") == want and c.get("budgets") == cfg.budgets and c.get("bootstrap_resamples") == cfg.resamples
            and (cfg.signal == "auto" or c.get("signal") == cfg.signal))
    return s if same else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--signals", default="embedding,bm25", help="retrieval signals, comma-separated (auto: embedding if cached)")
    ap.add_argument("--similarity", default="lexical")
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--runs-dir", default=str(ROOT / "runs" / "pack"))
    ap.add_argument("--out", default=str(ROOT / "docs" / "results" / "packing.md"))
    ap.add_argument("--render-only", action="store_true", help="re-render the page from the run summaries already on disk")
    ap.add_argument("--rerun", action="store_true", help="run again even where a complete run with the same settings exists")
    ap.add_argument("--only", default="", help="comma-separated datasets to run now (the page still shows every run on disk)")
    args = ap.parse_args()
    results = []
    for signal in [x.strip() for x in args.signals.split(",") if x.strip()]:
        for label, dataset in RUNS:
            out = Path(args.runs_dir) / (dataset if signal in ("embedding", "auto") else f"{dataset}-{signal}")
            cfg = PackConfig(dataset, budgets=list(SWEEP_BUDGETS), signal=signal, similarity=args.similarity, resamples=args.resamples)
            done = _complete(out, cfg)
            if args.render_only or done or (args.only and dataset not in args.only.split(",")):
                if done:
                    results.append((f"{label}, {done['config']['signal']}", done))
                continue
            t0 = time.perf_counter()
            summary = run_pack(cfg, out, progress=lambda m, d=dataset: print(f"[{d}] {m}", flush=True))
            print(f"[{dataset}/{signal}] done in {time.perf_counter() - t0:.1f}s", flush=True)
            results.append((f"{label}, {summary['config']['signal']}", summary))
    doc = Path(args.out)
    png = doc.parent / "packing_aic_vs_budget.png"
    src = next((Path(args.runs_dir) / d / "aic_vs_budget.png" for d in ("hotpotqa-vws", "hotpotqa")
                if (Path(args.runs_dir) / d / "aic_vs_budget.png").is_file()), None)
    if src is not None:
        shutil.copyfile(src, png)
    rows = []
    for label, s in results:
        t = s["timing_s"]
        n_pack = len(s["config"]["packers"]) * len(s["config"]["budgets"])
        rows.append(
            f"| {label} | {s['questions']} | {t['prepare']:.1f} | {t['pack_total']:.2f} | {n_pack} | "
            f"{1000 * t['pack_total'] / max(s['questions'] * n_pack, 1):.2f} |"
        )
    speed = {
        "text": "\n".join(
            [
                "Wall-clock seconds on this shared 2-core machine (other jobs were training and embedding at the same time),",
                "so these overstate the cost; CPU-time figures per packer come from `benchmarks/pack_speed.py`.",
                "",
                "| dataset | questions | prepare s (snippets, tokens, similarity; once) | pack s (all packers × budgets) | packings per question | ms per packing |",
                "|---|---|---|---|---|---|",
                *rows,
                "",
                "Per-packer times and the similarity-reuse figure: `python -m benchmarks.pack_speed`.",
            ]
        )
    }
    atomic_write_text(doc, render(results, 160, sweep_png=png.name if src else None, speed=speed))
    atomic_write_text(Path(args.runs_dir) / "index.json", json.dumps([[lbl, s["dataset"]] for lbl, s in results], indent=2) + "\n")
    print(f"wrote {doc} and {png}")


if __name__ == "__main__":
    main()
