"""Instructions per request of ``chainret serve`` beside the engine alone, counted by valgrind (issue 24).

    python -m benchmarks.serve_instructions                                   # the seed world
    python -m benchmarks.serve_instructions --store-1m bench/1m.db --write   # docs/results/serve_instructions.md

``docs/results/serve.md`` measures the server's CPU per request under load; on this shared machine the
same run moves by 20% from one minute to the next, more than the difference between two HTTP parsers.
Here the figure is the user-space instructions (valgrind's callgrind) the server process executes per
request, all its threads together, for each parser (``--http h11``, ``--http httptools``), beside the
instructions ``Service.ask`` executes for the same requests in a process of its own (the engine, the
projection and the response model; no HTTP):

* **server**: ``chainret serve --threads 1 --rate 0`` under callgrind, one keep-alive client
  (``benchmarks/serve_client.py``) sending ``--warmup`` requests, then the counters zeroed
  (``callgrind_control -z``), ``--requests`` requests, the counters dumped (``callgrind_control -d``);
  per request = the dump's total / requests.
* **engine**: a process asking the same warm-up and requests through ``Service.ask``, counted with and
  without the measured requests; per request = the difference / requests.

Instructions leave out what the kernel does for the server (``epoll``, ``send``, ``recv``, waking the
engine thread) and what the CPU pays for the switches between the event loop and the engine thread
(cache misses, fewer instructions per cycle): ``docs/results/serve.md``'s CPU figures include both,
which is why the server / engine ratio there is larger than here.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.ask_instructions import counted
from benchmarks.serve_load import World, million_world, seed_world

ROOT = Path(__file__).resolve().parents[1]

from benchmarks import serve_client  # noqa: E402

from chainret.core.files import atomic_write_text  # noqa: E402

PAGE = ROOT / "docs" / "results" / "serve_instructions.md"
PARSERS = ("h11", "httptools")
ENGINE_CHILD = r"""
import json, sys
from chainret.server.auth import Identity
from chainret.server.limits import Limits
from chainret.server.service import AskIn, Service
db, jobfile, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = json.load(open(jobfile))
who = {p: Identity(principal=p, key=p, via="config") for p in ("auditor", "public")}
service = Service(db, Limits(rate=0), threads=1)
for p, body in data["warm"]:
    service.ask(who[p], AskIn(**body))
for p, body in data["jobs"][:k]:
    service.ask(who[p], AskIn(**body))
service.close()
"""
_TOTAL = re.compile(r"^(?:summary|totals): (\d+)", re.M)


def engine(world: World, requests: int, folder: Path, env: dict[str, str]) -> float:
    jobfile = folder / f"{world.name}-jobs.json"
    jobfile.write_text(json.dumps({"warm": world.warm, "jobs": world.jobs[:requests]}))
    base = [sys.executable, "-c", ENGINE_CHILD, str(world.db), str(jobfile)]
    return (counted([*base, str(requests)], env) - counted([*base, "0"], env)) / requests


def _wait_for(port: int, proc: subprocess.Popen[bytes], seconds: float = 600.0) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"the server under valgrind exited {proc.returncode} before listening")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"the server under valgrind did not listen on {port} within {seconds:g} s")


def server(world: World, http: str, requests: int, folder: Path, env: dict[str, str]) -> float:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = folder / f"cg-{world.name}-{http}"
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p", sys.executable, "-m", "chainret", "serve",
           "--catalog", str(world.db), "--tokens", str(world.token_file), "--rate", "0", "--threads", "1", "--timeout", "600",
           "--port", str(port), "--http", http, "--log-level", "warning"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(port, proc)
        serve_client.run("127.0.0.1", port, world.prepared(world.warm), 1)
        subprocess.run(["callgrind_control", "-z", str(proc.pid)], check=True, capture_output=True)
        got = serve_client.run("127.0.0.1", port, world.prepared(world.jobs[:requests]), 1)
        subprocess.run(["callgrind_control", "-d", str(proc.pid)], check=True, capture_output=True)
    finally:
        proc.terminate()
        proc.wait(120)
    bad = [status for status, _, _ in got["results"] if status != 200]
    if bad:
        raise RuntimeError(f"{world.name} ({http}): {len(bad)} requests not answered 200")
    dumps = sorted(folder.glob(f"{out.name}.{proc.pid}.*"))  # .1: the dump after the measured requests
    if not dumps:
        raise RuntimeError(f"callgrind wrote no dump for {world.name} ({http})")
    m = _TOTAL.search(dumps[0].read_text(errors="replace"))
    if m is None:
        raise RuntimeError(f"{dumps[0]}: no instruction total")
    return int(m.group(1)) / requests


def _label() -> str:
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "chainret"], capture_output=True, text=True)
    return f"{done.stdout.strip()}{' + changes' if dirty.stdout.strip() else ''}"


def page(cmd: str, started: str, rows: list[dict[str, Any]]) -> str:
    lines = []
    for r in rows:
        e = r["engine"]
        cells = " | ".join(f"{r[h] / 1e6:.3f}M ({r[h] / e:.2f}x)" for h in PARSERS)
        lines.append(f"| {r['world']} | {r['requests']} | {e / 1e6:.3f}M | {cells} | {(r['h11'] - r['httptools']) / 1e6:.3f}M |")
    return f"""# Server instructions per request (valgrind)

Generated by `{cmd}` ({started} UTC, commit {_label()}; add `--write` to rewrite this page). User-space
instructions counted by valgrind's callgrind (the machine's speed and load do not move them): the
`chainret serve` process (one engine thread, every thread of the process counted) per request from one
keep-alive client, against `Service.ask` alone in a process of its own for the same requests (engine,
projection and response model, no HTTP). See the script's docstring for how each is counted; the CPU
time under load is `docs/results/serve.md`.

| world | requests | engine alone | server, h11 (x engine) | server, httptools (x engine) | httptools saves |
|---|---:|---:|---:|---:|---:|
{chr(10).join(lines)}

What the counts leave out: the kernel's work for the server (`epoll`, `send`, `recv`, waking the engine
thread) and the cost of switching between the event loop's thread and the engine's (cache misses, fewer
instructions per cycle). The CPU figures in `docs/results/serve.md` include both; that is why their
server / engine ratio is larger than this page's.
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=200, help="measured requests per server (valgrind runs ~50x slower)")
    ap.add_argument("--warmup", type=int, default=60, help="requests before the counters are zeroed")
    ap.add_argument("--store-1m", type=Path, default=None, help="also a compiled 1M-relation SQLite store (store_bench's world)")
    ap.add_argument("--no-seed", action="store_true")
    ap.add_argument("--write", action="store_true", help=f"rewrite {PAGE.relative_to(ROOT)}")
    args = ap.parse_args(argv)
    if args.requests < 1 or args.warmup < 0:
        ap.error("--requests must be at least 1 and --warmup at least 0")
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    rows = []
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        worlds = [] if args.no_seed else [seed_world(folder, args.requests, args.warmup)]
        if args.store_1m is not None:
            worlds.append(million_world(folder, args.store_1m.resolve(), args.requests, args.warmup)[0])
        for world in worlds:
            row: dict[str, Any] = {"world": world.name, "requests": args.requests, "engine": engine(world, args.requests, folder, env)}
            for http in PARSERS:
                row[http] = server(world, http, args.requests, folder, env)
            print(json.dumps(row), flush=True)
            rows.append(row)
    shown = [a for a in sys.argv[1:] if a != "--write"]
    text = page(" ".join(["python -m benchmarks.serve_instructions", *shown]), started, rows)
    if args.write:
        atomic_write_text(PAGE, text)
        atomic_write_text(PAGE.with_suffix(".json"), json.dumps({"command": shown, "started": started, "rows": rows}, indent=1))
        print(f"wrote {PAGE}")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
