"""Bounded load test of `chainret serve` on localhost; writes docs/results/serve.md.

    python benchmarks/serve_load.py                      # 1 and 2 workers x 8, 16, 32 clients x 1200 requests
    python benchmarks/serve_load.py --requests 300 --clients 8 --workers 1 --out /tmp/serve.md

It starts one `chainret serve` process on 127.0.0.1 (a free port; nothing else is contacted) over
the seed world with the overlay of its `restricted-second-hop` case (the contact registry becomes
auditor-only, so most requests differ between the two principals), with a two-token file (auditor,
public), then:

1. single client against the first server: every request of the mix once per token, one at a
   time (3 rounds, which must agree) -> the expected response (the projected trace minus its
   timing) for each (principal, request), and the reference latency;
2. for each worker count (`--workers`, a fresh server each) and client count: a fixed number of
   requests, alternating the two tokens over the mix, sent by that many concurrent clients; it
   stops when they are all answered;
3. revocation lag (``--revocation-trials``, a fresh SQLite store and server each): while 4
   background clients keep asking, one client asks as public back to back and the store gets an
   update that restricts the document the answer cites (``support.revocation``); reported: the lag
   from the update's commit to the first public refusal, answers after the bound (the default
   ``--reload-interval``, 1 s) that still showed the document, and failed requests.

Every response is checked against the single-client response for its principal (0 differences
expected) and every public response for the strings public may never receive (the paragraphs, doc
refs and relation ids of documents it may not read; 0 expected). Reported: p50 / p99 latency,
throughput, errors. The server runs with its per-token rate limit off (`--rate 0`) so the engine is
what is measured; client and server share this machine's cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # support: the harnesses (tests/support)

import httpx  # noqa: E402

from chainret.catalog.load import apply_overlay, load_world  # noqa: E402
from chainret.server.auth import hash_token, new_token  # noqa: E402
from support.local_server import LocalServer, hidden_strings  # noqa: E402
from support.revocation import REQUEST, revoking_versions, watch_revocation  # noqa: E402
from chainret.files import atomic_write_text  # noqa: E402

WORLD = ROOT / "fixtures" / "seed"
OVERLAY_CASE = "restricted-second-hop"  # its overlay makes the contact registry auditor-only
OUT = ROOT / "docs" / "results" / "serve.md"


def request_mix(world: Any) -> list[dict[str, Any]]:
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


def comparable(data: dict[str, Any]) -> str:
    trace = {**data["trace"], "meta": {k: v for k, v in data["trace"]["meta"].items() if k != "ask_ms"}}
    return json.dumps({**data, "trace": trace}, sort_keys=True)


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


def _content(expected: str) -> str:
    """A response without who asked: the trace's outcome, path, hops, packet and reason."""
    trace = json.loads(expected)["trace"]
    return json.dumps({k: v for k, v in trace.items() if k != "meta"}, sort_keys=True)


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * len(s)) - 1))]


async def run_level(url: str, tokens: dict[str, str], jobs: list[tuple[str, int]], mix: list[dict[str, Any]],
                    clients: int, expected: dict[tuple[str, int], str], hidden: list[str]) -> dict[str, Any]:
    queue: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
    for j in jobs:
        queue.put_nowait(j)
    lat: list[float] = []
    counts = {"errors": 0, "differences": 0, "leaks": 0, "public": 0}
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)

    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:

        async def worker() -> None:
            while True:
                try:
                    principal, i = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                t0 = time.perf_counter()
                r = await client.post("/ask", json=mix[i], headers={"Authorization": f"Bearer {tokens[principal]}"})
                lat.append(time.perf_counter() - t0)
                if r.status_code != 200:
                    counts["errors"] += 1
                    continue
                if comparable(r.json()) != expected[(principal, i)]:
                    counts["differences"] += 1
                if principal == "public":
                    counts["public"] += 1
                    counts["leaks"] += sum(s in r.text for s in hidden)

        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        wall = time.perf_counter() - t0
    return {"clients": clients, "requests": len(jobs), "wall_s": wall, "rps": len(jobs) / wall,
            "p50_ms": 1000 * pct(lat, 0.50), "p99_ms": 1000 * pct(lat, 0.99), **counts}


def single_client(url: str, tokens: dict[str, str], mix: list[dict[str, Any]], rounds: int) -> tuple[dict[tuple[str, int], str], dict[str, Any]]:
    expected: dict[tuple[str, int], str] = {}
    lat = []
    with httpx.Client(base_url=url, timeout=60) as c:
        for r_ in range(rounds):
            for principal, tok in tokens.items():
                for i, body in enumerate(mix):
                    t0 = time.perf_counter()
                    r = c.post("/ask", json=body, headers={"Authorization": f"Bearer {tok}"})
                    lat.append(time.perf_counter() - t0)
                    r.raise_for_status()
                    got = comparable(r.json())
                    if r_ == 0:
                        expected[(principal, i)] = got
                    elif expected[(principal, i)] != got:
                        raise SystemExit(f"single-client responses differ between rounds for {principal} request {i}")
    n = len(lat)
    return expected, {"clients": 1, "requests": n, "wall_s": sum(lat), "rps": n / sum(lat),
                      "p50_ms": 1000 * pct(lat, 0.5), "p99_ms": 1000 * pct(lat, 0.99)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=1200, help="requests per client count (fixed; the run stops after them)")
    ap.add_argument("--clients", type=int, nargs="+", default=[8, 16, 32], help="concurrent clients (8-32)")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="server processes (chainret serve --workers), one run each")
    ap.add_argument("--revocation-trials", type=int, default=3, help="revocation-lag trials under load (0: skip)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    if any(not 1 <= c <= 64 for c in args.clients) or args.requests < 1 or any(w < 1 for w in args.workers):
        ap.error("--clients must be 1..64, --requests and --workers at least 1")

    load = os.getloadavg()[0]
    world = load_world(WORLD)
    mix = request_mix(world)
    case = next(c for c in world.cases if c.id == OVERLAY_CASE)
    catalog = apply_overlay(world.catalog, case.overlay, label=case.id)
    hidden = hidden_strings(catalog, "public")
    tokens = {"auditor": new_token(), "public": new_token()}
    with tempfile.TemporaryDirectory() as tmp:
        cfile = Path(tmp) / "catalog.json"
        cfile.write_text(json.dumps(catalog.model_dump(mode="json")), encoding="utf-8")
        tfile = Path(tmp) / "tokens.json"
        tfile.write_text(json.dumps({"tokens": [
            {"name": p, "sha256": hash_token(t), "principal": p} for p, t in tokens.items()]}), encoding="utf-8")
        expected: dict[tuple[str, int], str] = {}
        base: dict[str, Any] = {}
        levels = []
        for workers in args.workers:
            server_args = ["--catalog", str(cfile), "--tokens", str(tfile), "--rate", "0", "--workers", str(workers)]
            with LocalServer(server_args, log=Path(tmp) / f"server-{workers}.log") as srv:
                if not expected:  # the reference: one client, one request at a time, the first server
                    server0, client0 = process_cpu(srv.proc.pid), time.process_time()
                    expected, base = single_client(srv.url, tokens, mix, rounds=3)
                    base["server_cpu_ms"] = 1000 * (process_cpu(srv.proc.pid) - server0) / base["requests"]
                    base["client_cpu_ms"] = 1000 * (time.process_time() - client0) / base["requests"]
                    base["workers"] = workers
                for clients in args.clients:
                    jobs = [(("auditor", "public")[k % 2], (k // 2) % len(mix)) for k in range(args.requests)]
                    server0, client0 = process_cpu(srv.proc.pid), time.process_time()
                    res = asyncio.run(run_level(srv.url, tokens, jobs, mix, clients, expected, hidden))
                    res["server_cpu_ms"] = 1000 * (process_cpu(srv.proc.pid) - server0) / len(jobs)
                    res["client_cpu_ms"] = 1000 * (time.process_time() - client0) / len(jobs)
                    res["workers"] = workers
                    levels.append(res)
                    print(f"{workers} worker(s), {clients:>3} clients: {res['requests']} requests in {res['wall_s']:.1f} s, "
                          f"{res['rps']:.0f} req/s, p50 {res['p50_ms']:.1f} ms, p99 {res['p99_ms']:.1f} ms, "
                          f"CPU/request server {res['server_cpu_ms']:.1f} ms client {res['client_cpu_ms']:.1f} ms, errors {res['errors']}, "
                          f"differences {res['differences']}, restricted strings in public responses {res['leaks']}", flush=True)
    differs = sum(1 for i in range(len(mix)) if _content(expected[("auditor", i)]) != _content(expected[("public", i)]))
    carrying = sum(1 for (p, _), text in expected.items() if p == "auditor" and any(s in text for s in hidden))
    revocation = revocation_lag(args.revocation_trials) if args.revocation_trials > 0 else None
    write_report(args, mix, base, levels, len(hidden), differs, carrying, load, revocation)
    bad = sum(r["errors"] + r["differences"] + r["leaks"] for r in levels)
    if revocation is not None:
        bad += revocation["shown"] + revocation["failed"]
    return 1 if bad else 0


def revocation_lag(trials: int, background: int = 4, bound: float = 1.0) -> dict[str, Any]:
    """Lag from a store update to the first public refusal, with ``background`` clients asking meanwhile."""
    import threading

    from chainret.store import compile_store, update_store

    v1, v2 = revoking_versions()
    lags: list[float] = []
    shown = after = failed = requests = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(trials):
            db = Path(tmp) / f"rev{i}.db"
            compile_store(v1, db)
            with LocalServer(["--catalog", str(db), "--rate", "0"], log=Path(tmp) / f"rev{i}.log") as srv:
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
    return {"trials": trials, "background": background, "bound": bound, "lags": lags, "shown": shown, "after": after,
            "failed": failed, "requests": requests}


def write_report(args: argparse.Namespace, mix: list[dict[str, Any]], base: dict[str, Any], levels: list[dict[str, Any]],
                 n_hidden: int, differs: int, carrying: int, load: float, revocation: dict[str, Any] | None = None) -> None:
    cmd = "python benchmarks/serve_load.py"
    if args.requests != 1200 or args.clients != [8, 16, 32] or args.workers != [1, 2]:
        cmd += (f" --requests {args.requests} --clients {' '.join(map(str, args.clients))}"
                f" --workers {' '.join(map(str, args.workers))}")
    rows = [f"| {base['workers']} | 1 (reference, sequential) | {base['requests']} | {base['p50_ms']:.1f} | {base['p99_ms']:.1f} | "
            f"{base['rps']:.0f} | {base['server_cpu_ms']:.1f} | {base['client_cpu_ms']:.1f} | – | – | – |"]
    for r in levels:
        rows.append(f"| {r['workers']} | {r['clients']} | {r['requests']} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['rps']:.0f} | "
                    f"{r['server_cpu_ms']:.1f} | {r['client_cpu_ms']:.1f} | {r['errors']} | {r['differences']} | {r['leaks']} |")
    runs = [base, *levels]
    if all(r["client_cpu_ms"] > r["server_cpu_ms"] for r in runs):
        bound = ("In every run the load generator (httpx) spent more CPU per request than the server "
                 f"({min(r['client_cpu_ms'] for r in runs):.1f}-{max(r['client_cpu_ms'] for r in runs):.1f} ms against "
                 f"{min(r['server_cpu_ms'] for r in runs):.1f}-{max(r['server_cpu_ms'] for r in runs):.1f} ms), so on this "
                 "machine the throughput figures measure the client as much as the server.")
    else:
        bound = ""
    text = f"""## Serving: `chainret serve` under concurrent load (issue 14)

Generated by `{cmd}` (do not edit by hand). Localhost only: `chainret serve` with
{' and then '.join(str(w) for w in args.workers)} worker process(es) (uvicorn; in each process engine calls run one at a time on
one engine thread; per-token rate limit off) over the seed
world (`fixtures/seed`) with the overlay of its `{OVERLAY_CASE}` case (the contact registry is
auditor-only), and an httpx client in this process; both share this machine
({os.cpu_count()} CPUs, Python {platform.python_version()}; 1-minute load average {load:.1f} when the run
started: other jobs shared the cores, so treat the times as an upper bound).

Request mix: the {len(mix)} seed cases that need no overlay (accepted paths, refusals, no-pattern,
both views), sent alternately with an auditor token and a public token. The expected response for
each (token, request) is the single-client response (the projected trace without its timing, the
short answer, principal and viewer); it was identical over 3 sequential rounds. The trace content
(outcome, path, hops, packet) differs between the two tokens for {differs} of the {len(mix)} requests. Every
concurrent response is compared with the expected one, and every public response is searched for the
{n_hidden} strings public may never receive (paragraphs, doc refs and relation ids of documents it may
not read); {carrying} of the {len(mix)} auditor responses do carry such strings, so the search is live.

| workers | clients | requests | p50 ms | p99 ms | requests/s | server CPU ms/request | client CPU ms/request | errors | differences | restricted strings in public responses |
|---|---|---|---|---|---|---|---|---|---|---|
{chr(10).join(rows)}

Every run with more workers is checked against the same single-client, one-worker reference.
CPU per request is user + system time over the run divided by its requests: the server's (all its
processes, from /proc) and the load generator's (this process); their sum against the cores
available bounds the throughput. {bound}
Latency is per request as the client saw it, queueing included: with one engine slot per
process, more concurrent clients mean longer queues at about the same throughput. More workers
can only help where there are idle cores; here the load generator itself needs one of the
{os.cpu_count()} cores. docs/serving.md says why each process runs one engine call at a time.
{_revocation_text(revocation)}"""
    atomic_write_text(args.out, text)
    print(f"wrote {args.out}")


def _revocation_text(rev: dict[str, Any] | None) -> str:
    if rev is None:
        return ""
    import statistics

    lags = rev["lags"]
    lag = (f"{statistics.median(lags):.2f} s median, {max(lags):.2f} s max over {len(lags)} trials" if lags
           else "no refusal seen")
    return f"""
### Revocation under load (issue 21)

{rev['trials']} trials, each a fresh SQLite store and one-worker server: {rev['background']} background clients
ask while one client asks as public back to back and `update_store` appends a version that restricts
the document its answer cites. Lag from the update's commit to the first public refusal: {lag}
(documented bound: `--reload-interval`, 1 s). Answers that started {rev['bound']:g} s or more after the
update and still showed the document: {rev['shown']} of {rev['after']}; failed requests (any client, before,
during or after the update): {rev['failed']}.
"""


if __name__ == "__main__":
    raise SystemExit(main())
