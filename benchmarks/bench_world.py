"""Write the store benchmarks' generated world to disk: a JSON catalog and, optionally, its compiled store.

    python -m benchmarks.bench_world --relations 1000000 --out .cache/bench/1m.json [--db .cache/bench/1m.db]

The world is ``store_bench.bench_catalog(N)`` (projects -> orgs -> contacts, two views, every tenth
document restricted to ``auditor``), the same catalog ``store_bench.py`` builds in process. The pages that
take a ``--catalog`` or ``--store`` file (``compile_bench.py``, ``cold_cli.py``, ``unknown_name.py``)
name this command, so their figures can be reproduced from a clean checkout. The JSON is written to a
temporary file and renamed (never half-written); the store is compiled by ``chainret catalog compile``
(streamed) in a child process. At 1M relations this takes several GB of memory to build the catalog.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--relations", type=int, default=1_000_000)
    ap.add_argument("--out", type=Path, required=True, help="the JSON catalog to write")
    ap.add_argument("--db", type=Path, help="also compile it into this SQLite store")
    args = ap.parse_args()
    from benchmarks.store_bench import bench_catalog

    t0, c0 = time.perf_counter(), time.process_time()
    cat = bench_catalog(args.relations)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_name(args.out.name + ".part")
    tmp.write_text(cat.model_dump_json(), encoding="utf-8")
    tmp.replace(args.out)
    print(f"{args.out}: {args.relations:,} relations, {args.out.stat().st_size / 1e6:,.0f} MB "
          f"({time.perf_counter() - t0:.1f} s wall, {time.process_time() - c0:.1f} s CPU)")
    if args.db is not None:
        subprocess.run([sys.executable, "-m", "chainret", "catalog", "compile", str(args.out.resolve()), "--out",
                        str(args.db.resolve()), "--replace"], check=True, cwd=ROOT)  # cwd: this checkout's chainret


if __name__ == "__main__":
    main()
