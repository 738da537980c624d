"""Two checkouts' warm asks on one store, in alternating runs: is a change to the ask path faster, in situ?

    python -m benchmarks.warm_ab --store 1m.db --a ../before --b . --pairs 10

A change to the warm ask is judged here, not in a loop over the changed function: within an ask each
piece of code meets the processor's caches as SQLite, the rest of the engine and the serialiser left
them, so a cut worth 1 µs in a loop may be worth nothing or several (issue 24; ``chainret.core.trusted``).
Each run is a fresh process that imports chainret from one checkout (``--a``, ``--b``: a folder holding
``chainret/``, e.g. ``git worktree add ../before HEAD~1``), opens the store,
warms it with ``--warm`` distinct requests, then takes the store page's warm figure
(``store_bench.warm``: every (view, principal) pair asked twice, then ``--asks`` distinct requests, the
CPU time of each ``ask`` (its wall time beside it), its ``to_json`` after it outside the timer, as a caller's would).
Runs alternate A, B, A, B, ... so a machine that speeds up or slows down meets both alike; the verdict is
the median over pairs of (B - A), beside each side's median p50, and each side's median ``to_json`` CPU p50
(timed apart, as the store page does; the peers page times it within its ask). The noise between pairs on this 2-core
machine is about 3 µs: read a median difference smaller than that as none.

A change to the store's layout (a new schema, which the other checkout may not read) gives B its own store of the same
world: ``--store-b`` (compiled by B's checkout; ``--store`` then is A's).

Requests are ``store_bench.requests`` for a world of ``--relations`` (the store must be
``store_bench.bench_catalog`` of that size: ``bench_world.py`` writes one).
Prints one JSON line per run and a summary; nothing asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
from pathlib import Path

from benchmarks.harness.checkout import child_env, python


def measure(store_path: str, relations: int, warm: int, asks: int) -> dict[str, object]:
    """One run, in this process (started by :func:`run` with the checkout first on ``PYTHONPATH``):
    ``store_bench.warm`` (the store page's warm asks) after ``warm`` other distinct requests."""
    import chainret
    from chainret.pipeline.ask import ask
    from chainret.store import open_store

    from benchmarks import store_bench

    store = open_store(store_path)
    for req, view, principal in store_bench.requests(relations, warm, seed=7):
        ask(req, store, view=view, principal=principal).to_json()
    res = store_bench.warm(store, relations, asks, with_floor=False)
    store.close()
    return {"chainret": str(Path(chainret.__file__).parent), "asks": res["warm_samples"],
            "cpu_p50_ms": res["warm_cpu_p50_ms"], "cpu_mean_ms": res["warm_cpu_mean_ms"], "wall_p50_ms": res["warm_p50_ms"],
            "json_cpu_p50_ms": res["serialise_cpu_p50_ms"]}


def run(checkout: str, store: str, args: argparse.Namespace) -> dict[str, object]:
    out = subprocess.run(
        [*python("-m", "benchmarks.warm_ab"), "--measure", "--store", store, "--relations", str(args.relations),
         "--warm", str(args.warm), "--asks", str(args.asks)],
        env=child_env(checkout, benchmarks=True), capture_output=True, text=True, check=True,
    )
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", required=True, help="a compiled SQLite store of store_bench.bench_catalog(--relations)")
    ap.add_argument("--relations", type=int, default=1_000_000)
    ap.add_argument("--store-b", help="B's own store of the same world (a store schema A does not read); default: --store")
    ap.add_argument("--a", help="checkout A (a folder holding chainret/)")
    ap.add_argument("--b", help="checkout B")
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--warm", type=int, default=1_000)
    ap.add_argument("--asks", type=int, default=5_000)
    ap.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # internal: one run, in a fresh process
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(args.store, args.relations, args.warm, args.asks)))
        return
    if not (args.a and args.b):
        ap.error("--a and --b name the two checkouts to compare")
    a_runs, b_runs = [], []
    for i in range(args.pairs):
        a, b = run(os.path.abspath(args.a), args.store, args), run(os.path.abspath(args.b), args.store_b or args.store, args)
        a_runs.append(a)
        b_runs.append(b)
        print(json.dumps({"pair": i + 1, "a": a, "b": b}), flush=True)
    a50 = [float(str(r["cpu_p50_ms"])) for r in a_runs]
    b50 = [float(str(r["cpu_p50_ms"])) for r in b_runs]
    diff_us = [(b - a) * 1000 for a, b in zip(a50, b50, strict=True)]
    med_a, med_diff = statistics.median(a50), statistics.median(diff_us)
    a_wall = statistics.median(float(str(r["wall_p50_ms"])) for r in a_runs)
    b_wall = statistics.median(float(str(r["wall_p50_ms"])) for r in b_runs)
    a_json = statistics.median(float(str(r["json_cpu_p50_ms"])) for r in a_runs)
    b_json = statistics.median(float(str(r["json_cpu_p50_ms"])) for r in b_runs)
    print(f"A {args.a}: median CPU p50 {med_a:.4f} ms (wall {a_wall:.4f} ms); B {args.b}: median CPU p50 "
          f"{statistics.median(b50):.4f} ms (wall {b_wall:.4f} ms); "
          f"median of CPU (B - A) over {args.pairs} pairs {med_diff:+.1f} us ({100 * med_diff / 1000 / med_a:+.1f}%); "
          f"pairs: {' '.join(f'{d:+.0f}' for d in diff_us)}; to_json CPU p50 (outside the ask's figure): A {a_json:.4f} ms, "
          f"B {b_json:.4f} ms")


if __name__ == "__main__":
    main()
