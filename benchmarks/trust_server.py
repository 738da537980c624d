"""Trust of the served front ends (issue 21): prints the server rows of docs/results/trust.md as markdown.

    python -m benchmarks.trust_server             # every row at the default bounds (about 1-2 min)
    python -m benchmarks.trust_server --quick     # fewer payloads and trials (not for the page)

Each row is measured against the current code, on 127.0.0.1 only:

* **hostile payloads**: every field path of a real trace (``/ask`` as public on the seed world) x
  every JSON kind, plus each key deleted and a lone-surrogate key added (``benchmarks.harness.hostile``),
  posted to ``/trace/verify`` in process (ASGI); a sample of them over a real ``chainret serve``
  socket on one keep-alive connection (a reset counts as unanswered); the same traces through the
  MCP ``verify_trace`` tool and hostile ``ask`` arguments (SDK in-memory client); and raw lines with
  lone surrogates, deep nesting or garbage to ``chainret mcp`` over stdio (no reply within 20 s
  counts as unanswered). Counted: 5xx answers (or a tool crash) and unanswered calls.
* **slow clients**: against ``chainret serve`` with its default bounds (10 s header and body
  timeouts), clients sending one header line every 0.5 s, half a request line, or a body one byte
  every 0.5 s; counted: connections still open 1 s after the bound.
* **rate-limit bypass**: ``chainret serve --rate 0.001 --burst 40`` (defaults otherwise, so no
  ``--forwarded-allow-ips``), 120 anonymous requests each with a fresh ``X-Forwarded-For``; counted:
  requests answered beyond the 40 the client may make.
* **revocation**: ``chainret serve`` (default ``--reload-interval`` 1 s) over a SQLite store; one
  client asks as public back to back while ``update_store`` appends a version restricting the cited
  document (``benchmarks.harness.revocation``); counted: answers that started after the bound and still showed
  the document, requests that failed at any point, and the lag (first refusal after the update
  returned), over several trials with a fresh store each.

The wall time and this process's CPU time are printed beside the table.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from benchmarks.harness.availability import forwarded_bypasses, half_sent, slow_body, slow_headers
from benchmarks.harness.hostile import (
    KINDS, SURROGATE_CALLS, encode, is_error_body, mcp_failures, mutations, plain, sample, stdio_exchange,
)
from benchmarks.harness.local_server import LocalServer
from benchmarks.harness.revocation import REQUEST, revoking_versions, watch_revocation

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "fixtures" / "seed"
SUPPLY = ROOT / "fixtures" / "supply"
COMMAND = "python -m benchmarks.trust_server"


def _utf8(payload: Any) -> bool:
    try:
        json.dumps(payload, ensure_ascii=False).encode("utf-8")
    except (TypeError, UnicodeEncodeError):
        return False
    return True


def _exchange(sock: socket.socket, body: bytes) -> int:
    sock.sendall(b"POST /trace/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        buf += chunk
    head, _, rest = buf.partition(b"\r\n\r\n")
    length = next(int(x.split(b":", 1)[1]) for x in head.split(b"\r\n") if x.lower().startswith(b"content-length:"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed mid-body")
        rest += chunk
    status = int(head.split(b" ", 2)[1])
    return status if status < 400 or is_error_body(rest[:length]) else 599


def hostile(n_socket: int, n_mcp: int, tmp: Path) -> dict[str, Any]:
    import anyio
    from fastapi.testclient import TestClient

    from chainret.server.app import ServeConfig, build
    from chainret.server.limits import Limits
    from chainret.server.mcp import build_server

    logging.getLogger("chainret.server").disabled = True
    service, _, app = build(ServeConfig(catalog=str(SEED), limits=Limits(rate=0)))
    with TestClient(app, raise_server_exceptions=False) as client:
        trace = client.post("/ask", json={"request": REQUEST}).json()["trace"]
        payloads = list(mutations(trace)) + list(mutations(trace, wrap=True))
        asgi_5xx = 0
        for _, p in payloads:
            r = client.post("/trace/verify", content=encode(p), headers={"content-type": "application/json"})
            asgi_5xx += r.status_code >= 500 or (r.status_code >= 400 and not is_error_body(r.content))
    service.close()

    picked = sample(payloads, n_socket, seed=3)
    sock_5xx = sock_unanswered = 0
    with LocalServer(["--catalog", str(SEED), "--rate", "0"], log=tmp / "hostile.log") as server:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=20)
        for _, p in picked:
            try:
                sock_5xx += _exchange(sock, encode(p)) >= 500
            except (ConnectionError, OSError, TimeoutError):
                sock_unanswered += 1
                sock.close()
                sock = socket.create_connection(("127.0.0.1", server.port), timeout=20)
        sock.close()

    logging.getLogger("mcp").disabled = True
    mservice = service.__class__(str(SUPPLY))
    mcp_server = build_server(mservice, "public")

    async def first_trace() -> Any:
        from mcp import Client

        async with Client(mcp_server) as c:
            return (await c.call_tool("ask", {"request": "Which lab certifies the supplier of V-12?"})).structured_content["trace"]

    mtrace = anyio.run(first_trace)
    calls = [(label, "verify_trace", {"trace": plain(p)}) for label, p in sample(mutations(mtrace), n_mcp, seed=4) if _utf8(p)]
    calls += [(f"ask {arg}={i}", "ask", {"request": "Which lab certifies the supplier of V-12?", arg: plain(k)})
              for arg in ("view", "budget", "min_revision") for i, k in enumerate(KINDS) if _utf8(k)]
    calls += [(f"ask request={i}", "ask", {"request": plain(k)}) for i, k in enumerate(KINDS) if _utf8(k)]
    mcp_bad = anyio.run(mcp_failures, mcp_server, calls)
    mservice.close()

    lines = [*SURROGATE_CALLS, "not json", "{\"jsonrpc\": \"2.0\", \"id\": ID, \"method\": \"tools/call\", \"params\": 1}"]
    replies = stdio_exchange([sys.executable, "-m", "chainret", "mcp", "--catalog", str(SUPPLY)], lines, timeout=20, cwd=str(ROOT))
    return {"asgi": (len(payloads), asgi_5xx), "socket": (len(picked), sock_5xx, sock_unanswered),
            "mcp": (len(calls), len(mcp_bad)), "stdio": (len(lines), sum(r is None for r in replies))}


def slow(tmp: Path, bound: float) -> dict[str, tuple[int, int]]:
    with LocalServer(["--catalog", str(SEED), "--rate", "0"], log=tmp / "slow.log") as server, ThreadPoolExecutor(3) as pool:
        jobs = {
            "one header line every 0.5 s": (20, pool.submit(slow_headers, server.port, 20, 0.5, bound + 1)),
            "half a request line": (200, pool.submit(half_sent, server.port, 200, bound + 1)),
            "a body byte every 0.5 s": (20, pool.submit(slow_body, server.port, 20, 0.5, bound + 1)),
        }
        return {k: (n, f.result()) for k, (n, f) in jobs.items()}


def bypass(tmp: Path, n: int = 120, burst: int = 40) -> tuple[int, int]:
    with LocalServer(["--catalog", str(SEED), "--rate", "0.001", "--burst", str(burst)], log=tmp / "rate.log") as server:
        return n, forwarded_bypasses(server.url, n, burst)


def revocation(tmp: Path, trials: int, bound: float) -> dict[str, Any]:
    from chainret.store import compile_store, update_store

    v1, v2 = revoking_versions()
    rows = []
    for i in range(trials):
        db = tmp / f"rev{i}.db"
        compile_store(v1, db)
        with LocalServer(["--catalog", str(db), "--rate", "0"], log=tmp / f"rev{i}.log") as server:
            rows.append(watch_revocation(server.url, lambda db=db: update_store(v2, db), bound=bound, tail=1.0))
    lags = [r.lag_s for r in rows if r.lag_s is not None]
    return {"trials": trials, "after": sum(r.after_bound for r in rows), "shown": sum(r.still_shown for r in rows),
            "failed": sum(len(r.failed) for r in rows), "requests": sum(r.requests for r in rows),
            "never": sum(r.lag_s is None for r in rows), "lags": lags}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer payloads and trials (not for the page)")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    t0, c0 = time.perf_counter(), time.process_time()
    with tempfile.TemporaryDirectory(prefix="chainret-trust-") as d:
        tmp = Path(d)
        h = hostile(100 if args.quick else 600, 150 if args.quick else 1000, tmp)
        s = slow(tmp, 10.0)
        b = bypass(tmp)
        r = revocation(tmp, 2 if args.quick else 5, 1.0)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0

    lag = (f"lag median {statistics.median(r['lags']):.2f} s, max {max(r['lags']):.2f} s" if r["lags"] else "no refusal seen")
    out = [
        "| guard | measured | result |",
        "|---|---|---|",
        f"| hostile JSON, `POST /trace/verify` in process | {h['asgi'][0]:,} mutated traces (every field path x {len(KINDS)} JSON kinds, deleted keys, surrogate keys; bare and wrapped) | **{h['asgi'][1]}** 5xx or non-JSON errors |",
        f"| hostile JSON over a real socket (one keep-alive connection) | {h['socket'][0]} of them | **{h['socket'][1]}** 5xx, **{h['socket'][2]}** resets/unanswered |",
        f"| hostile MCP tool calls (in-memory client) | {h['mcp'][0]} calls (`verify_trace` mutations, hostile `ask` arguments) | **{h['mcp'][1]}** crashes |",
        f"| MCP stdio lines with lone surrogates, deep nesting, garbage | {h['stdio'][0]} requests | **{h['stdio'][1]}** unanswered after 20 s |",
    ]
    for what, (n, still) in s.items():
        out.append(f"| slow clients, {what} (default bound 10 s) | {n} connections | **{still}** still open 11 s after connecting |")
    out.append(f"| rate limit, a fresh `X-Forwarded-For` per request | {b[0]} anonymous requests, burst 40 | **{b[1]}** answered beyond the limit |")
    out.append(f"| revocation (default `--reload-interval` 1 s) | {r['trials']} updates, {r['requests']:,} public asks | "
               f"**{r['shown']}** of {r['after']} asks after the bound still showed the document; {r['failed']} failed requests; "
               f"{lag}{'; ' + str(r['never']) + ' trials never refused' if r['never'] else ''} |")
    print(f"Server trust rows (`{COMMAND}{' --quick' if args.quick else ''}`), {time.strftime('%Y-%m-%d')}:\n")
    print("\n".join(out))
    print(f"\nwall {wall:.1f} s, CPU (this process) {cpu:.1f} s; servers are child processes on 127.0.0.1")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
