"""Embedding throughput and the wall time of a full HotpotQA-500 embedding+BM25 run.

    python -m benchmarks.bench_speed                 # full vws-splits HotpotQA-500, cold then warm cache
    python -m benchmarks.bench_speed --n 100         # a quicker sample

Cold: an empty embedding cache (a temporary CHAINRET_CACHE_DIR), so every paragraph and question
is embedded; warm: the same run again, served from the cache. Prints figures and ratios; also
writes runs/speed/bench_speed.json. The load average is printed because the machine's two cores are
often shared: compare figures only at similar load.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from benchmarks.harness.machine import load_average
from benchmarks.harness.paths import use_data_dir

ROOT = Path(__file__).resolve().parents[1]

use_data_dir()  # chainret has no default data folder: ../shared/data beside the repo, or $CHAINRET_DATA_DIR


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="hotpotqa-vws")
    ap.add_argument("--n", type=int, default=None, help="questions (default: all 500)")
    ap.add_argument("--embedder", default=None)
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CHAINRET_CACHE_DIR"] = str(Path(tmp) / "cache")
        from chainret.pipeline.embed import get_model
        from chainret.research.bench.run import RunConfig, run_bench

        load0 = load_average()[0]
        t = time.perf_counter()
        get_model(args.embedder)
        model_load_s = time.perf_counter() - t
        cfg = RunConfig(dataset=args.dataset, out=Path(tmp) / "cold", n=args.n, embedder=args.embedder)
        t = time.perf_counter()
        cold = run_bench(cfg)
        cold_s = time.perf_counter() - t
        cfg.out = Path(tmp) / "warm"
        t = time.perf_counter()
        run_bench(cfg)
        warm_s = time.perf_counter() - t
        load1 = load_average()[0]
    n_par = cold["metrics"]["embedding"]["n_pairs"]
    n_texts = n_par + cold["n"]
    emb_s = cold["timings"]["embedding_s"]
    res = {
        "dataset": args.dataset,
        "questions": cold["n"],
        "paragraphs": n_par,
        "texts_embedded": n_texts,
        "model": cold["models"].get("embedding"),
        "model_load_s": round(model_load_s, 2),
        "embedding_s_cold": round(emb_s, 1),
        "paragraphs_per_s": round(n_par / emb_s, 1),
        "texts_per_s": round(n_texts / emb_s, 1),
        "bm25_s": round(cold["timings"]["bm25_s"], 2),
        "metrics_s": round(cold["timings"]["metrics_s"], 1),
        "run_wall_s_cold": round(cold_s, 1),
        "run_wall_s_warm": round(warm_s, 1),
        "cold_over_warm": round(cold_s / warm_s, 1),
        "load_avg_1min_start_end": [round(load0, 2), round(load1, 2)],
        "cpus": os.cpu_count(),
    }
    for k, v in res.items():
        print(f"{k:>26}: {v}")
    out = ROOT / "runs" / "speed" / "bench_speed.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
