"""Packing speed: time per packer for N questions at one budget, and what reusing similarities saves.

Usage: python -m benchmarks.pack_speed [--dataset hotpotqa-vws] [--budget 160] [--signal bm25]

Prints: preparation time (snippets, token costs, similarity matrices: done once per question), the time each
packer takes over all questions at one budget, and a budget sweep with the prepared context reused versus
rebuilding the similarity matrix for every budget (the ratio is the saving).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from benchmarks.harness.paths import use_data_dir

ROOT = Path(__file__).resolve().parents[1]

use_data_dir()  # chainret has no default data folder: ../shared/data beside the repo, or $CHAINRET_DATA_DIR

from chainret.research.packing import PackContext, get_packer  # noqa: E402
from chainret.research.packing.packers import lexical_similarity  # noqa: E402
from chainret.research.packing.run import PackConfig, load_union, prepare_all, retrieval_scores, resolve_signal  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="hotpotqa-vws")
    ap.add_argument("--budget", type=int, default=160)
    ap.add_argument("--budgets", default="96,128,160,224")
    ap.add_argument("--signal", default="bm25")
    ap.add_argument("--similarity", default="lexical")
    args = ap.parse_args()
    cfg = PackConfig(args.dataset, seeds=[42], signal=args.signal, similarity=args.similarity)
    examples, _ = load_union(cfg)
    t0 = time.perf_counter()
    scores = retrieval_scores(examples, resolve_signal(examples, cfg), cfg)
    t_ret = time.perf_counter() - t0
    t0 = time.perf_counter()
    prepared = prepare_all(examples, scores, cfg)
    t_prep = time.perf_counter() - t0
    n = len(prepared)
    n_snip = sum(len(p.candidates) for p in prepared)
    print(f"{args.dataset}: {n} questions, {n_snip} snippets ({n_snip / n:.1f} per question)")
    print(f"retrieval ({cfg.signal}): {t_ret:.2f}s; prepare once (snippets, token costs, similarity): {t_prep:.2f}s")
    print(f"\none budget ({args.budget}), {n} questions (cpu = this process's CPU time; wall includes waiting for a shared CPU):")
    total = total_cpu = 0.0
    for name in ("naive", "focused", "mmr", "submodular", "oracle"):
        packer = get_packer(name)
        t0, c0 = time.perf_counter(), time.process_time()
        for pq in prepared:
            packer.pack(pq.candidates, args.budget, context=pq.context)
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        total += dt
        total_cpu += dc
        print(f"  {name:<11} wall {dt:7.3f}s  cpu {dc:7.3f}s  ({1000 * dc / n:.3f} cpu-ms/question)")
    print(f"  all five    wall {total:7.3f}s  cpu {total_cpu:7.3f}s")

    budgets = [int(b) for b in args.budgets.split(",")]
    sub = get_packer("submodular")
    # reused: one context per question (similarity + objective memo) for every budget
    fresh = [PackContext(query=pq.context.query, query_terms=pq.context.query_terms, terms=pq.context.terms,
                         sim=pq.context.sim) for pq in prepared]
    t0 = time.process_time()
    for pq, ctx in zip(prepared, fresh):
        for b in budgets:
            sub.pack(pq.candidates, b, context=ctx)
    t_reuse = time.process_time() - t0
    # rebuilt: similarity matrix and objective recomputed for every budget
    t0 = time.process_time()
    for pq in prepared:
        for b in budgets:
            ctx = PackContext(query=pq.context.query, query_terms=pq.context.query_terms, terms=pq.context.terms,
                              sim=lexical_similarity(pq.context.terms))
            sub.pack(pq.candidates, b, context=ctx)
    t_rebuild = time.process_time() - t0
    print(f"\nsubmodular over budgets {budgets}, {n} questions (cpu seconds):")
    print(f"  similarity + objective reused across budgets : {t_reuse:.3f}s")
    print(f"  rebuilt for every budget                      : {t_rebuild:.3f}s")
    print(f"  ratio rebuilt / reused                        : {t_rebuild / t_reuse:.2f}x")
    if cfg.similarity == "embedding":
        print("  (with --similarity embedding a rebuild would also re-embed every snippet; the cache avoids that)")


if __name__ == "__main__":
    main()
