"""A light HTTP load generator for ``benchmarks/serve_load.py``: h11 over keep-alive sockets, one per process.

httpx spent more CPU per request than the server it measured (docs/results/serve.md before issue
24), so the figures measured the client. Here each client is its own process holding one
keep-alive connection: the request bodies are encoded once, h11 (a well-kept library, not a
hand-written parser) writes each request, sent with one ``sendall``, and parses the response;
nothing is decoded while timing. A process reports its
latencies, its own CPU time over the run and the raw response bodies; the caller checks them after
the timed part.

``run(host, port, jobs, clients)`` sends ``jobs`` (``ask_job``: headers and body of a POST /ask) from ``clients`` processes, job k from process k % clients, all processes
starting together, and returns per-job (status, latency, body) plus the clients' CPU seconds and
the wall time from the common start to the last answer.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import socket
import time
from typing import Any

import h11


Job = tuple[list[tuple[str, str]], bytes]  # (headers, body) of one POST /ask


def ask_job(host: str, body: dict[str, Any], token: str | None) -> Job:
    """A POST /ask with a JSON body, prepared once (keep-alive: no ``Connection: close``)."""
    data = json.dumps(body).encode()
    headers = [("Host", host), ("Content-Type", "application/json"), ("Content-Length", str(len(data)))]
    if token is not None:
        headers.append(("Authorization", f"Bearer {token}"))
    return headers, data


def _exchange(sock: socket.socket, conn: h11.Connection, job: Job) -> tuple[int, bytes]:
    headers, data = job
    sock.sendall(b"".join(conn.send(e) or b"" for e in (h11.Request(method="POST", target="/ask", headers=headers),
                                                       h11.Data(data=data), h11.EndOfMessage())))
    status, chunks = 0, []
    while True:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            conn.receive_data(sock.recv(65536))
            continue
        if isinstance(event, h11.Response):
            status = event.status_code
        elif isinstance(event, h11.Data):
            chunks.append(bytes(event.data))
        elif isinstance(event, h11.EndOfMessage):
            conn.start_next_cycle()
            return status, b"".join(chunks)
        elif isinstance(event, h11.ConnectionClosed):
            raise ConnectionError("the server closed the connection")


def _client(host: str, port: int, jobs: list[tuple[int, Job]], start: Any, out: Any) -> None:
    sock = socket.create_connection((host, port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    conn = h11.Connection(h11.CLIENT)
    results = []
    start.wait()
    cpu0 = time.process_time()
    for k, job in jobs:
        t0 = time.perf_counter()
        status, body = _exchange(sock, conn, job)
        results.append((k, status, time.perf_counter() - t0, body))
    cpu = time.process_time() - cpu0
    end = time.perf_counter()
    sock.close()
    out.send((results, cpu, end))
    out.close()


def run(host: str, port: int, jobs: list[Job], clients: int) -> dict[str, Any]:
    """Send every job once from ``clients`` keep-alive processes; see the module docstring."""
    ctx = mp.get_context("fork")  # this process holds no threads or large state when it forks
    start = ctx.Event()
    procs, pipes = [], []
    for c in range(clients):
        mine = [(k, job) for k, job in enumerate(jobs) if k % clients == c]
        recv, send = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_client, args=(host, port, mine, start, send), daemon=True)
        p.start()
        procs.append(p)
        pipes.append(recv)
    time.sleep(0.2)  # every process connected and waiting
    t0 = time.perf_counter()
    start.set()
    results: list[Any] = [None] * len(jobs)
    cpu, end = 0.0, t0
    for recv in pipes:
        got, c_cpu, c_end = recv.recv()
        for k, status, lat, body in got:
            results[k] = (status, lat, body)
        cpu, end = cpu + c_cpu, max(end, c_end)
    for p in procs:
        p.join()
    return {"results": results, "client_cpu_s": cpu, "wall_s": end - t0}
