"""Load test of `chainret serve` on localhost with a light load generator; writes docs/results/serve.md.

    python -m benchmarks.serve_load                                    # the seed world only
    flock bench/heavy.lock python -m benchmarks.serve_load --store-1m bench/1m.db
    python -m benchmarks.serve_load --requests 300 --threads 1 4 --workers --out serve.md

For each world (the seed world with the overlay of its `restricted-second-hop` case, compiled to a
SQLite store, so the contact registry is auditor-only; with ``--store-1m``, also a compiled
1M-relation SQLite store, ``benchmarks/store_bench.py``'s world) it serves a SQLite store with a
two-token file (auditor, public) and the per-token rate limit off (``--rate 0``), and runs:

1. the reference: one worker, one engine thread, one client, every request once, one at a time;
   its responses (the body minus the trace's timing) are the expected ones;
2. one run per server setting: 1 worker process with 1, 2 and 4 engine threads (``--threads``),
   then 2 and 4 worker processes of one thread each (``--workers``); a fresh server each, warmed
   by ``--warmup`` other requests, then the same ``--requests`` requests from ``--clients``
   concurrent keep-alive clients, each its own process (``benchmarks/serve_client.py``: h11 over a
   socket, light enough not to dominate; its CPU is reported beside the server's);
3. revocation lag (``--revocation-trials``, the seed world, a fresh store and server each; see
   ``revocation_lag``).

Requests alternate an auditor and a public token: the seed world's cases that need no overlay,
repeated; at 1M ``store_bench.requests`` (distinct projects, every fifth on the older view). Every
response must be 200 and equal the reference (0 differences expected), and no public response may
carry a restricted document's ref, a unit of one, or (seed world) any string of
``hidden_strings`` (0 expected; the page says how many auditor responses carry them, so the search
is live). Reported per run: p50 / p99 latency (>= 1,000 requests), requests/s, server CPU per request
(user + system of the server and its worker processes, from /proc), requests per server CPU-second
(req/s per core), and the clients' CPU per request; the load average at the start and the end.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.harness.machine import load_average
from benchmarks.harness.machine import pace_line
from benchmarks.harness.local_server import LocalServer, hidden_strings
from benchmarks.harness.revocation import REQUEST, revoking_versions, watch_revocation

ROOT = Path(__file__).resolve().parents[1]

from benchmarks import serve_client  # noqa: E402

from chainret.catalog.load import apply_overlay, load_world  # noqa: E402
from chainret.core.files import atomic_write_text  # noqa: E402
from chainret.server.auth import hash_token, new_token  # noqa: E402

WORLD = ROOT / "fixtures" / "seed"
OVERLAY_CASE = "restricted-second-hop"  # its overlay makes the contact registry auditor-only
OUT = ROOT / "docs" / "results" / "serve.md"
_TIMING = re.compile(rb'"ask_ms":\s*[-0-9.eE+]+')
_THREADS = re.compile(r"x (\d+) engine thread")


def seed_mix(world: Any) -> list[dict[str, Any]]:
    """The seed world's cases that need no overlay (the served catalog is the world as it is)."""
    mix = []
    for case in world.cases:
        if case.overlay is not None:
            continue
        body: dict[str, Any] = {"request": case.request}
        if case.view is not None:
            body["view"] = case.view
        if case.budget is not None:
            body["budget"] = case.budget.model_dump(exclude_unset=True)
        mix.append(body)
    return mix


def comparable(body: bytes) -> bytes:
    """A response body without the trace's timing (everything else must be identical)."""
    return _TIMING.sub(b'"ask_ms":0', body)


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a live process and its descendants, from /proc (Linux)."""
    tick = os.sysconf("SC_CLK_TCK")
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
            for task in Path(f"/proc/{p}").joinpath("task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, IndexError, ValueError):
            continue
    return total


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * len(s)) - 1))]


def restricted_refs(db: Path) -> frozenset[str]:
    """Refs of the document versions public may not read (no ``*`` or ``public`` reader)."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        rows = c.execute("SELECT m.ref FROM document_meta m WHERE NOT EXISTS (SELECT 1 FROM readers r "
                         "WHERE r.doc_ord = m.ord AND r.principal IN ('*', 'public'))").fetchall()
    return frozenset(r[0] for r in rows)


def carries_restricted(body: bytes, refs: frozenset[str], hidden: list[bytes]) -> int:
    """How many restricted things a response carries: a restricted document's ref (as a string, a unit
    ref's document, or an anchor's source/document/version) or one of ``hidden``."""
    found = sum(1 for h in hidden if h in body)

    def walk(x: Any) -> None:
        nonlocal found
        if isinstance(x, dict):
            if {"source", "document", "version"} <= x.keys() and f"{x['source']}/{x['document']}@{x['version']}" in refs:
                found += 1
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, str) and x.partition("#")[0] in refs:
            found += 1

    walk(json.loads(body))
    return found


class World:
    """A served store, its token file, the requests (principal, body) and the leak check."""

    def __init__(self, name: str, db: Path, jobs: list[tuple[str, dict[str, Any]]], warm: list[tuple[str, dict[str, Any]]],
                 hidden: list[str], tmp: Path) -> None:
        self.name, self.db, self.jobs, self.warm, self.tmp = name, db, jobs, warm, tmp
        self.unknown: list[str] = []  # a public request naming a project public may not know (the tolerant path)
        self.refs = restricted_refs(db)
        self.hidden = [h.encode() for h in hidden]
        self.tokens = {"auditor": new_token(), "public": new_token()}
        self.token_file = tmp / f"{name}-tokens.json"
        self.token_file.write_text(json.dumps({"tokens": [
            {"name": p, "sha256": hash_token(t), "principal": p} for p, t in self.tokens.items()]}), encoding="utf-8")

    def prepared(self, jobs: list[tuple[str, dict[str, Any]]]) -> list[serve_client.Job]:
        return [serve_client.ask_job("127.0.0.1", body, self.tokens[p]) for p, body in jobs]


def seed_world(tmp: Path, requests: int, warmup: int) -> World:
    from chainret.store import compile_store

    world = load_world(WORLD)
    case = next(c for c in world.cases if c.id == OVERLAY_CASE)
    catalog = apply_overlay(world.catalog, case.overlay, label=case.id)
    db = tmp / "seed.db"
    compile_store(catalog, db)
    mix = seed_mix(world)
    jobs = [(("auditor", "public")[k % 2], mix[(k // 2) % len(mix)]) for k in range(requests)]
    return World("seed", db, jobs, jobs[:warmup], hidden_strings(catalog, "public"), tmp)


def million_world(tmp: Path, db: Path, requests: int, warmup: int) -> tuple[World, int]:
    """store_bench's requests, with one in twenty a public request naming a project public may not know.

    Those take the tolerant path (issue 23), which looks the name up in the store's name index; until
    schema 4 they read the whole entity table (about a minute of CPU at 1M relations) and had to be
    left out of the mix. They are in it now (``store_bench.requests(..., unknown=True)``), and one of
    them is also timed alone on a fresh server (the probe)."""
    from benchmarks.store_bench import requests as bench_requests

    def body(req: str, view: str | None) -> dict[str, Any]:
        return {"request": req} if view is None else {"request": req, "view": view}

    def mix(count: int, seed: int) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
        hidden = bench_requests(1_000_000, count // 20, seed=seed, unknown=True)
        known = iter(bench_requests(1_000_000, count - len(hidden), seed=seed))
        unknown = iter(hidden)
        jobs = [(p, body(r, v)) for r, v, p in (next(unknown) if k % 20 == 19 and k // 20 < len(hidden) else next(known)
                                                for k in range(count))]
        return jobs, [r for r, _, _ in hidden]

    jobs, unknown = mix(requests, 0)
    warm, _ = mix(warmup, 97)
    world = World("1M", db, jobs, warm, [], tmp)
    world.unknown = unknown[:1]
    return world, len(unknown)


def run_once(world: World, workers: int, threads: int, clients: int, log: Path, http: str = "httptools",
             pin: bool = False) -> dict[str, Any]:
    args = ["--catalog", str(world.db), "--tokens", str(world.token_file), "--rate", "0", "--workers", str(workers),
            "--threads", str(threads), "--timeout", "600", "--http", http, *(["--pin"] if pin else [])]
    with LocalServer(args, log=log) as srv:
        port = srv.port
        if world.warm:
            serve_client.run("127.0.0.1", port, world.prepared(world.warm), min(clients, len(world.warm)))
        jobs = world.prepared(world.jobs)
        cpu0 = process_cpu(srv.proc.pid)  # type: ignore[union-attr]
        got = serve_client.run("127.0.0.1", port, jobs, clients)
        server_cpu = process_cpu(srv.proc.pid) - cpu0  # type: ignore[union-attr]
    found = _THREADS.search(log.read_text(errors="replace"))
    n = len(jobs)
    lat = [r[1] for r in got["results"]]
    return {"workers": workers, "threads": threads, "http": http, "pin": pin, "effective_threads": int(found.group(1)) if found else None,
            "clients": clients, "requests": n, "wall_s": got["wall_s"], "rps": n / got["wall_s"],
            "p50_ms": 1000 * pct(lat, 0.50), "p99_ms": 1000 * pct(lat, 0.99),
            "server_cpu_ms": 1000 * server_cpu / n, "client_cpu_ms": 1000 * got["client_cpu_s"] / n,
            "bodies": [(status, body) for status, _, body in got["results"]]}


def check(world: World, run: dict[str, Any], expected: list[bytes] | None) -> None:
    """Count errors, differences from the reference, and restricted strings in public responses."""
    errors = differences = leaks = 0
    for k, (status, body) in enumerate(run.pop("bodies")):
        if status != 200:
            errors += 1
            continue
        if expected is not None and comparable(body) != expected[k]:
            differences += 1
        if world.jobs[k][0] == "public":
            leaks += carries_restricted(body, world.refs, world.hidden)
    run.update(errors=errors, differences=differences, leaks=leaks)


def engine_cpu_ms(world: World, *, direct: bool = False) -> float:
    """CPU per request of the same requests asked in this process through ``Service.ask`` (no HTTP, one
    thread, after the same warm-up): what the engine alone costs, to compare the server with. ``direct``:
    each call made on this thread (``Service.ask`` unwrapped, inside an engine-call scope), without the
    hand-off to an engine thread and back that the server and the default both pay."""
    from chainret.server.auth import Identity
    from chainret.server.limits import Limits
    from chainret.server.service import AskIn, Service

    who = {p: Identity(principal=p, key=p, via="config") for p in ("auditor", "public")}
    service = Service(str(world.db), Limits(rate=0), threads=1)
    unwrapped = Service.ask.__wrapped__  # type: ignore[attr-defined]

    def call(identity: Any, body: Any) -> None:
        if not direct:
            service.ask(identity, body)
            return
        with service._engine_call():
            unwrapped(service, identity, body)

    try:
        for p, body in world.warm:
            call(who[p], AskIn(**body))
        asks = [(who[p], AskIn(**body)) for p, body in world.jobs]
        cpu0 = time.process_time()
        for identity, body in asks:
            call(identity, body)
        return 1000 * (time.process_time() - cpu0) / len(asks)
    finally:
        service.close()


def measure(world: World, threads: list[int], workers: list[int], clients: int, tmp: Path,
            say: Callable[[str], None], h11: bool = True, pinned: list[int] | None = None) -> dict[str, Any]:
    # The engine alone is measured again after every server run, and each run is compared with the mean of
    # the measurements either side of it: this machine's speed moves by 2x within minutes (machine.py).
    engines = [engine_cpu_ms(world)]
    say(f"{world.name}: the engine alone (Service.ask in this process, one thread): {engines[0]:.2f} ms CPU per request")

    def beside(res: dict[str, Any]) -> None:
        engines.append(engine_cpu_ms(world))
        res["engine_cpu_ms"] = statistics.fmean(engines[-2:])

    ref = run_once(world, 1, 1, 1, tmp / f"{world.name}-ref.log")
    beside(ref)
    bodies = ref["bodies"]
    if any(status != 200 for status, _ in bodies):
        raise SystemExit(f"{world.name}: the reference run had errors: {[b[:200] for s, b in bodies if s != 200][:2]}")
    expected = [comparable(b) for _, b in bodies]
    by_job: dict[str, bytes] = {}
    for (p, body), text in zip(world.jobs, expected):  # a repeated request must get the same answer
        key = json.dumps([p, body], sort_keys=True)
        if by_job.setdefault(key, text) != text:
            raise SystemExit(f"{world.name}: the reference answered the same request differently: {key}")
    auditor_carrying = sum(1 for (p, _), (_, b) in zip(world.jobs, bodies) if p == "auditor" and carries_restricted(b, world.refs, world.hidden))
    check(world, ref, None)
    say(_line(world.name, ref))
    runs = []
    settings = ([(1, t, "httptools", False) for t in threads] + ([(1, 1, "h11", False)] if h11 else [])
                + [(w, 1, "httptools", False) for w in workers] + [(w, 1, "httptools", True) for w in pinned or []])
    for w, t, http, pin in settings:
        res = run_once(world, w, t, clients, tmp / f"{world.name}-{w}x{t}-{http}{'-pin' if pin else ''}.log", http, pin)
        beside(res)
        check(world, res, expected)
        say(_line(world.name, res))
        runs.append(res)
    tolerant = None
    if world.unknown:  # one request down the tolerant path, alone on a fresh server
        probe = World(world.name, world.db, [("public", {"request": world.unknown[0]})], [], [], tmp)
        tolerant = run_once(probe, 1, 1, 1, tmp / f"{world.name}-tolerant.log")
        tolerant["request"] = world.unknown[0]
        tolerant["status"] = tolerant.pop("bodies")[0][0]
        say(f"{world.name}: tolerant-path request {world.unknown[0]!r}: {tolerant['wall_s']:.1f} s, "
            f"server CPU {tolerant['server_cpu_ms'] / 1000:.1f} s, status {tolerant['status']}")
    direct = engine_cpu_ms(world, direct=True)
    say(f"{world.name}: the engine's work called on this thread (no engine thread): {direct:.2f} ms CPU per request")
    return {"name": world.name, "engine_cpu_ms": statistics.median(engines), "engine_direct_cpu_ms": direct, "engines": engines, "ref": ref, "runs": runs, "tolerant": tolerant, "auditor_carrying": auditor_carrying,
            "auditor": sum(1 for p, _ in world.jobs if p == "auditor"), "distinct": len(by_job), "refs": len(world.refs)}


def _engine_cells(r: dict[str, Any]) -> str:
    e = r["engine_cpu_ms"]
    return f"{e:.2f} | {r['server_cpu_ms'] / e:.1f}"


def _line(name: str, r: dict[str, Any]) -> str:
    return (f"{name}: {r['workers']} worker(s){' (--pin)' if r.get('pin') else ''} x {r['threads']} thread(s), {r['http']}, {r['clients']} client(s): {r['requests']} requests in "
            f"{r['wall_s']:.1f} s, {r['rps']:.0f} req/s, p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, CPU/request server "
            f"{r['server_cpu_ms']:.2f} ms client {r['client_cpu_ms']:.2f} ms, errors {r['errors']}, differences {r['differences']}, "
            f"restricted in public {r['leaks']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=2000, help="requests per run (>= 1,000 for a p99)")
    ap.add_argument("--warmup", type=int, default=200, help="requests sent to each fresh server before a run (not measured)")
    ap.add_argument("--clients", type=int, default=8, help="concurrent keep-alive client processes")
    ap.add_argument("--threads", type=int, nargs="*", default=[1, 2, 4], help="engine threads per process, one run each (1 worker)")
    ap.add_argument("--workers", type=int, nargs="*", default=[2, 4], help="worker processes, one run each (1 thread each)")
    ap.add_argument("--store-1m", type=Path, default=None, help="a compiled 1M-relation SQLite store (store_bench's world)")
    ap.add_argument("--no-seed", action="store_true", help="skip the seed world (a quick check of the 1M run)")
    ap.add_argument("--no-tolerant-probe", action="store_true", help="skip timing one 1M tolerant-path request alone")
    ap.add_argument("--revocation-trials", type=int, default=3, help="revocation-lag trials under load (0: skip)")
    ap.add_argument("--pin", type=int, nargs="*", default=[1, 2], dest="pinned",
                    help="worker counts also run with `chainret serve --pin` (one thread each; each worker on a CPU of its own)")
    ap.add_argument("--no-h11", action="store_true", help="skip the run with the h11 parser (1 worker x 1 thread, beside httptools')")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    if not 1 <= args.clients <= 64 or args.requests < 1 or any(w < 1 for w in args.workers + args.threads + args.pinned):
        ap.error("--clients must be 1..64, --requests, --threads and --workers at least 1")
    if args.store_1m is not None and not args.store_1m.is_file():
        ap.error(f"--store-1m {args.store_1m}: no such file")

    load_start = load_average()
    pace = pace_line()
    worlds = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        specs: list[Callable[[], tuple[World, int]]] = [] if args.no_seed else [lambda: (seed_world(tmp, args.requests, args.warmup), 0)]
        if args.store_1m is not None:
            specs.append(lambda: million_world(tmp, args.store_1m.resolve(), args.requests, args.warmup))
        for spec in specs:
            world, tolerant_in_mix = spec()
            if args.no_tolerant_probe:
                world.unknown = []
            worlds.append({**measure(world, args.threads, args.workers, args.clients, tmp, lambda s: print(s, flush=True), not args.no_h11,
                                     args.pinned),
                           "tolerant_in_mix": tolerant_in_mix})
    revocation = revocation_lag(args.revocation_trials, max(args.threads or [1])) if args.revocation_trials > 0 else None
    load_end = load_average()
    write_report(args, worlds, load_start, load_end, revocation, pace)
    atomic_write_text(args.out.with_suffix(".json"), json.dumps(
        {"load_start": load_start, "load_end": load_end, "pace": pace, "worlds": worlds, "revocation": revocation}, indent=1, default=str))
    bad = sum(r["errors"] + r["differences"] + r["leaks"] for w in worlds for r in [w["ref"], *w["runs"]])
    if revocation is not None:
        bad += revocation["shown"] + revocation["failed"]
    return 1 if bad else 0


def revocation_lag(trials: int, engine_threads: int, background: int = 4, bound: float = 1.0) -> dict[str, Any]:
    """Lag from a store update to the first public refusal, with ``background`` clients asking meanwhile."""
    import threading

    import httpx

    from chainret.store import compile_store, update_store

    v1, v2 = revoking_versions()
    lags: list[float] = []
    shown = after = failed = requests = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(trials):
            db = Path(tmp) / f"rev{i}.db"
            compile_store(v1, db)
            with LocalServer(["--catalog", str(db), "--rate", "0", "--threads", str(engine_threads)], log=Path(tmp) / f"rev{i}.log") as srv:
                stop = threading.Event()
                errors: list[int] = []

                def load(stop: threading.Event = stop, errors: list[int] = errors, url: str = srv.url) -> None:
                    with httpx.Client(base_url=url, timeout=30) as c:
                        while not stop.is_set():
                            r = c.post("/ask", json={"request": REQUEST})
                            if r.status_code != 200:
                                errors.append(r.status_code)

                threads = [threading.Thread(target=load, daemon=True) for _ in range(background)]
                for t in threads:
                    t.start()
                seen = watch_revocation(srv.url, lambda db=db: update_store(v2, db), bound=bound, tail=1.0)
                stop.set()
                for t in threads:
                    t.join(timeout=30)
            if seen.lag_s is not None:
                lags.append(seen.lag_s)
            shown, after = shown + seen.still_shown, after + seen.after_bound
            failed += len(seen.failed) + len(errors)
            requests += seen.requests
            print(f"revocation trial {i + 1}: lag {seen.lag_s if seen.lag_s is None else round(seen.lag_s, 3)} s, "
                  f"{seen.still_shown} of {seen.after_bound} answers after {bound:g} s still showed the document, "
                  f"{len(seen.failed) + len(errors)} failed requests", flush=True)
    return {"trials": trials, "threads": engine_threads, "background": background, "bound": bound, "lags": lags, "shown": shown, "after": after,
            "failed": failed, "requests": requests}


def write_report(args: argparse.Namespace, worlds: list[dict[str, Any]], load_start: tuple[float, ...],
                 load_end: tuple[float, ...], revocation: dict[str, Any] | None, pace: str) -> None:
    argv, shown = sys.argv[1:], []
    while argv:  # the command as run, less where it wrote
        a = argv.pop(0)
        if a == "--out":
            argv = argv[1:]
        elif not a.startswith("--out="):
            shown.append(a)
    cmd = " ".join(["python -m benchmarks.serve_load", *shown])  # the command as run (no lock it did not take)
    rows = []
    for w in worlds:
        for r in [w["ref"], *w["runs"]]:
            eff = r["effective_threads"]
            threads = f"{r['threads']}" + (f" (ran {eff})" if eff is not None and eff != r["threads"] else "")
            per_core = 1000 / r["server_cpu_ms"] if r["server_cpu_ms"] else float("nan")
            rows.append(f"| {w['name']} | {r['workers']}{' (--pin)' if r.get('pin') else ''} | {threads} | {r['http']} | {r['clients']}{' (reference)' if r is w['ref'] else ''} | "
                        f"{r['requests']} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['rps']:.0f} | {r['server_cpu_ms']:.2f} | "
                        f"{per_core:.0f} | {r['client_cpu_ms']:.2f} | {_engine_cells(r)} | {r['errors']} | {r['differences']} | {r['leaks']} |")
    checks = []
    for w in worlds:
        skipped = (f" ({w['tolerant_in_mix']} of them public requests naming a project public may not know, "
                   "which take the tolerant path: see below)") if w.get("tolerant_in_mix") else ""
        checks.append(f"{w['name']}: {w['ref']['requests']} requests ({w['distinct']} distinct){skipped}, {w['auditor_carrying']} of the "
                      f"{w['auditor']} auditor responses carry restricted strings ({w['refs']} restricted document versions), "
                      "so the search is live")
    runs = [r for w in worlds for r in w["runs"]]
    ratio = max((r["client_cpu_ms"] / r["server_cpu_ms"] for r in runs if r["server_cpu_ms"]), default=0.0)
    cores = os.cpu_count() or 1
    loaded = max(load_start[0], load_end[0]) >= 0.5
    gain, parsers = [], []
    for w in worlds:
        one = next((r for r in w["runs"] if r["workers"] == 1 and r["threads"] == 1 and r["http"] == "httptools" and not r.get("pin")), None)
        h11_run = next((r for r in w["runs"] if r["http"] == "h11"), None)
        if one is not None and h11_run is not None:
            parsers.append(f"{w['name']}: h11 {h11_run['server_cpu_ms']:.2f} ms server CPU per request, httptools "
                           f"{one['server_cpu_ms']:.2f} ms ({one['server_cpu_ms'] / h11_run['server_cpu_ms']:.2f}x)")
        for r in w["runs"]:
            if one is not None and r is not one and r["http"] == "httptools":
                gain.append(f"{w['name']} {r['workers']}x{r['threads']}{' --pin' if r.get('pin') else ''}: {r['rps'] / one['rps']:.2f}x the req/s of 1x1, "
                            f"{one['server_cpu_ms'] / r['server_cpu_ms']:.2f}x its req/s per server core")
    slow = [w for w in worlds if w.get("tolerant")]
    tolerant = "".join(
        f"""
**The tolerant reading at 1M relations.** A public request naming a project public may not know
(`{w['tolerant']['request']}`, its document restricted) goes down the tolerant path (issue 23), which looks
the name up in the store's name index (schema 4): alone on a fresh one-thread server it took
{w['tolerant']['wall_s']:.2f} s wall and {w['tolerant']['server_cpu_ms']:.1f} ms of server CPU, first request included (status {w['tolerant']['status']}).
{w['tolerant_in_mix']} of the {w['ref']['requests']} requests of the mix are of this kind and are in it. (Before the name index, on a
schema-3 store, such a request read the whole entity table, so these requests were left out of the mix.)
""" for w in slow)
    aims = []
    for w in worlds:
        best = min(w["runs"], key=lambda r: r["server_cpu_ms"] / r["engine_cpu_ms"], default=w["ref"])
        engine = best["engine_cpu_ms"]
        ratio_e = best["server_cpu_ms"] / engine
        spread = f" (measured {len(w['engines'])} times, {min(w['engines']):.2f}-{max(w['engines']):.2f} ms)"
        aims.append(f"{w['name']}: the engine alone {engine:.2f} ms CPU per request beside the server's best run (`Service.ask` "
                    f"in-process, one thread, no HTTP{spread}); that run {best['server_cpu_ms']:.2f} ms ({best['workers']} worker(s)"
                    f"{' --pin' if best.get('pin') else ''} x {best['threads']} thread(s)), {ratio_e:.1f}x the engine"
                    + (": **the aim (serve at the engine's speed) is missed**" if ratio_e > 1.25 else ": about the engine's speed")
                    + (f"; the engine's work called on the asking thread, without the hand-off to an engine thread and back that both pay, "
                       f"{w['engine_direct_cpu_ms']:.2f} ms, so that run is {best['server_cpu_ms'] / w['engine_direct_cpu_ms']:.1f}x the bare engine"
                       if w.get("engine_direct_cpu_ms") else ""))
    counted = ROOT / "docs" / "results" / "serve_instructions.json"
    if counted.is_file():  # python -m benchmarks.serve_instructions --write
        counted_rows = json.loads(counted.read_text(encoding="utf-8"))["rows"]
        ratios = ", ".join(f"{r['world']} {r['httptools'] / r['engine']:.2f}x" for r in counted_rows)
        aims.append(f"counted in instructions instead (`docs/results/serve_instructions.md`, valgrind, {ratios} the engine's "
                    "with httptools), the server is nearer the engine: the rest of the CPU gap is what instructions leave "
                    "out, the kernel's socket work and the switches between the event loop's thread and the engine's")
    million = "" if args.store_1m is not None else (
        "\n**No 1M-relation run in this page** (run with `--store-1m PATH` under the heavy-job lock).\n")
    text = f"""## Serving: `chainret serve` under concurrent load (issues 14, 24)

Generated by `{cmd}` (do not edit by hand). Localhost only, {cores} CPUs, Python {platform.python_version()}.
Load average (1, 5, 15 min) {load_start[0]:.2f} / {load_start[1]:.2f} / {load_start[2]:.2f} at the start and
{load_end[0]:.2f} / {load_end[1]:.2f} / {load_end[2]:.2f} at the end{': **a loaded machine** (other jobs shared the cores), so wall-clock figures (latency, requests/s) are upper bounds on latency and lower bounds on throughput, and a setting with more runnable threads or processes gets a larger share of contended cores, so requests/s ratios between rows overstate what threads or workers give; CPU per request is less affected' if loaded else ' (an idle machine)'}.
{pace} at the start.
{million}
Each world is a compiled SQLite store served by `chainret serve --rate 0` (per-token rate limit off) with
an auditor and a public token, requests alternating between them. The load generator is
`benchmarks/serve_client.py`: {args.clients} client processes, each one keep-alive connection (h11 over a
socket, one request at a time), so at most {args.clients} requests are in flight. Every server is fresh and
warmed with {args.warmup} other requests first. The reference row is one worker, one engine thread and one
client; its responses (minus the trace's timing) are the expected ones for every other row.

| world | workers | threads per worker | HTTP parser | clients | requests | p50 ms | p99 ms | requests/s | server CPU ms/request | requests per server CPU-second | client CPU ms/request | engine alone CPU ms/request (beside) | server / engine | errors | differences | restricted strings in public responses |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
{chr(10).join(rows)}

- Checks: {'; '.join(checks)}. Public responses are searched for every restricted document version's ref
  (as a string, as a unit ref's document, as an anchor's source/document/version) and, on the seed world, for
  `hidden_strings` (paragraphs and relation ids of documents public may not read).
- CPU per request is user + system time over the run divided by its requests: the server's (its process
  and worker processes, from /proc) and the clients' (their own process time over the run). The clients
  spent at most {ratio:.2f}x the server's CPU per request, so the load generator does not dominate.
- Requests per server CPU-second is what one fully used core would serve (req/s per core).
- Engine alone (beside): the same requests through `Service.ask` in this process, one thread, no HTTP,
  measured before the world's first run and after every run; each row shows the mean of the
  measurements either side of it, and server / engine is that row's server CPU over it (the machine's
  speed moves within minutes, so a server run is compared with the engine at the same time).
- Server against engine: {'; '.join(aims)}.
- More threads or workers against 1 worker x 1 thread: {'; '.join(gain) or 'not measured'}.
- HTTP parser (`chainret serve --http`; `auto`, the default, is httptools where installed), one worker x one thread, the
  same requests: {'; '.join(parsers) or 'not measured (--no-h11)'}.
- Threads share one interpreter: they overlap SQLite's work (it releases the GIL) with Python's, so they
  help by at most SQLite's share of an ask; worker processes use more cores, one catalog each. On this
  {cores}-core machine the clients and other jobs share the same cores, so no setting can go past
  {cores} cores' worth of work.
- `--pin` (rows marked so): each worker process, its event loop and its engine thread, on a CPU of its own.
  A request crosses from the event loop to the engine thread and back; across two CPUs each crossing wakes
  the other CPU, which a virtual machine makes dear (`chainret.server.affinity`), so pinned rows spend less
  server CPU per request. The clients are not pinned and share the same cores.
{tolerant}{_revocation_text(revocation)}"""
    atomic_write_text(args.out, text)
    print(f"wrote {args.out}")


def _revocation_text(rev: dict[str, Any] | None) -> str:
    if rev is None:
        return ""
    lags = rev["lags"]
    lag = (f"{statistics.median(lags):.2f} s median, {max(lags):.2f} s max over {len(lags)} trials" if lags
           else "no refusal seen")
    return f"""
### Revocation under load (issue 21)

{rev['trials']} trials, each a fresh SQLite store and one-worker server with {rev['threads']} engine threads: {rev['background']} background clients
ask while one client asks as public back to back and `update_store` appends a version that restricts
the document its answer cites. Lag from the update's commit to the first public refusal: {lag}
(documented bound: `--reload-interval`, 1 s). Answers that started {rev['bound']:g} s or more after the
update and still showed the document: {rev['shown']} of {rev['after']}; failed requests (any client, before,
during or after the update): {rev['failed']}.
"""


if __name__ == "__main__":
    raise SystemExit(main())
