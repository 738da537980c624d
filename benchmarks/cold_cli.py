"""Cold `chainret ask` on the default catalog: CPU (user+sys of the child) beside wall, N fresh processes.

    python benchmarks/cold_cli.py --runs 20            # this checkout
    python benchmarks/cold_cli.py --src /tmp/before    # also another checkout of chainret (PYTHONPATH), interleaved

With --src the two are run alternately, run by run, so a change in the machine's load hits both alike.
Each run is a fresh interpreter (`python -m chainret ask ...`), once in the default output mode and
once with --json; trace files go to a temporary folder. The load average is printed with the figures:
the machine is shared, so CPU time is the figure to compare, wall time is what a user waited.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

REQUEST = "Which contact serves PR-84?"
# Runs `python -m chainret` from another checkout: the editable install's finder is taken off first
# (it would answer `import chainret` with this checkout whatever PYTHONPATH says).
FROM_SRC = (
    "import runpy, sys; src = sys.argv.pop(1); "
    "sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]; "
    "sys.path.insert(0, src); sys.argv[0] = 'chainret'; runpy.run_module('chainret', run_name='__main__')"
)


def one(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--src", help="another chainret checkout (the folder holding its chainret/) to run beside this one")
    args = ap.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "CHAINRET_CATALOG": os.path.abspath("catalogs/default.yaml")}
    sides = {"this checkout": env}
    if args.src:
        sides[args.src] = env
    with tempfile.TemporaryDirectory() as tmp:
        for e in sides.values():
            e["CHAINRET_TRACE_DIR"] = tmp
        cmds = {k: [sys.executable, "-m", "chainret"] for k in sides}
        if args.src:
            cmds[args.src] = [sys.executable, "-c", FROM_SRC, args.src]
        ask = ["ask", REQUEST]
        for k, e in sides.items():
            one(cmds[k] + ask, e)  # bytecode compiled, files in the page cache
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {args.runs} runs each")
        print("| code | mode | CPU p50 (s) | CPU min (s) | CPU max (s) | wall p50 (s) | wall max (s) |")
        print("|---|---|---|---|---|---|---|")
        for label, extra in (("default", []), ("--json", ["--json"])):
            runs: dict[str, list[tuple[float, float]]] = {k: [] for k in sides}
            for _ in range(args.runs):
                for k, e in sides.items():
                    runs[k].append(one(cmds[k] + ask + extra, e))
            for k, rs in runs.items():
                cpu, wall = [r[0] for r in rs], [r[1] for r in rs]
                print(f"| {k} | {label} | {statistics.median(cpu):.3f} | {min(cpu):.3f} | {max(cpu):.3f} | "
                      f"{statistics.median(wall):.3f} | {max(wall):.3f} |")
        py = [one([sys.executable, "-c", "pass"], env) for _ in range(args.runs)]
        print(f"| `python -c pass` | | {statistics.median(r[0] for r in py):.3f} | | | {statistics.median(r[1] for r in py):.3f} | |")
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

if __name__ == "__main__":
    main()
