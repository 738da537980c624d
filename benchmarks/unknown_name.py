"""What a request naming an unknown entity costs on a compiled store (issues 23, 24): prints figures.

    flock bench/heavy.lock python -m benchmarks.unknown_name --store bench/1m.db

1. cold: ``python -m chainret ask REQUEST --catalog STORE`` as a fresh process (wall and CPU of the
   child, user + system), its exit code and the refusal's first line;
2. warm: the same ask in this process on one opened store, once to warm it (the name index is built
   on first use), then ``--repeat`` times, median wall and CPU per ask.

The request names ``PR-84`` where the 1M world has ``GP-84``: interpretation's tolerant pass looks
for the name (normalised, typo, did-you-mean). Run it with ``PYTHONPATH`` set to another tree to
measure that tree's code (e.g. before and after a change). The load average is printed beside.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

from benchmarks.harness.timing import Timer
from benchmarks.harness.machine import load_average

REQUEST = "Which contact serves PR-84?"


def cold(store: str, request: str) -> None:
    with Timer() as t:
        proc = subprocess.run([sys.executable, "-m", "chainret", "ask", request, "--catalog", store],
                              capture_output=True, text=True, check=False)
    wall, cpu = t.wall_s, t.children_cpu_s
    first = (proc.stdout.strip() or proc.stderr.strip()).splitlines()[:1]
    print(f"cold CLI ask: wall {wall:.2f} s, CPU {cpu:.2f} s, exit {proc.returncode}: {first[0] if first else ''}")


def warm(store: str, request: str, repeat: int) -> None:
    from chainret.pipeline.ask import ask
    from chainret.store import open_store

    st = open_store(store)
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        first = ask(request, st)
        print(f"warm-up ask (opens views, builds the name index): wall {time.perf_counter() - t0:.2f} s, "
              f"CPU {time.process_time() - c0:.2f} s, outcome {first.outcome}")
        walls, cpus = [], []
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            ask(request, st)
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
        print(f"warm in-process ask x{repeat}: median wall {statistics.median(walls) * 1000:.1f} ms, "
              f"median CPU {statistics.median(cpus) * 1000:.1f} ms")
    finally:
        st.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", required=True, help="a compiled store (.db path or PostgreSQL URL)")
    ap.add_argument("--request", default=REQUEST)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--skip-cold", action="store_true")
    args = ap.parse_args()
    import chainret

    print(f"chainret from {os.path.dirname(chainret.__file__)}; load average {load_average()[0]:.1f} at start")
    if not args.skip_cold:
        cold(args.store, args.request)
    warm(args.store, args.request, args.repeat)
    print(f"load average {load_average()[0]:.1f} at end")


if __name__ == "__main__":
    main()
