"""Slow clients and forwarded headers against a real uvicorn socket on 127.0.0.1 (tests and benchmark).

``ThreadServer(app, **uvicorn_config)`` runs uvicorn in a background thread on a free loopback
port (so a test can pass the protocol or proxy settings it wants to compare). The probes are
bounded loops over raw sockets; each returns how many connections were still open past the bound:

* ``slow_headers(port, n, interval, bound)``: n clients each send a request line, then one header
  line every ``interval`` seconds and never finish;
* ``half_sent(port, n, bound)``: n clients each send half a request line and nothing more;
* ``slow_body(port, n, interval, bound)``: n clients send complete headers, then the body one byte
  every ``interval`` seconds;
* ``forwarded_bypasses(url, n, burst)``: n anonymous requests, each with a fresh
  ``X-Forwarded-For``, against a server allowing ``burst`` requests per client (and a negligible
  rate); the requests answered beyond ``burst`` are bypasses.
"""

from __future__ import annotations

import select
import socket
import threading
import time
from typing import Any

from benchmarks.harness.local_server import free_port


class ThreadServer:
    def __init__(self, app: Any, **config: Any) -> None:
        import uvicorn

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning",
                                                    lifespan="off", **config))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ThreadServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)


def _open(port: int, first: bytes) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(first)
    s.setblocking(False)
    return s


def _closed(s: socket.socket) -> bool:
    """True once the server closed (or answered and closed) this connection; never blocks."""
    try:
        while True:
            r, _, _ = select.select([s], [], [], 0)
            if not r:
                return False
            if not s.recv(65536):
                return True
    except (ConnectionError, OSError):
        return True


def _trickle(port: int, n: int, first: bytes, more: bytes | None, interval: float, bound: float) -> int:
    """Open n connections sending ``first``, then ``more`` every ``interval`` s; how many are open after ``bound``."""
    socks = [_open(port, first) for _ in range(n)]
    open_ = set(range(n))
    end = time.monotonic() + bound
    try:
        while open_ and time.monotonic() < end:
            time.sleep(min(interval, max(0.0, end - time.monotonic())))
            for i in list(open_):
                if _closed(socks[i]):
                    open_.discard(i)
                elif more is not None:
                    try:
                        socks[i].send(more)
                    except OSError:
                        open_.discard(i)
        return sum(1 for i in open_ if not _closed(socks[i]))
    finally:
        for s in socks:
            s.close()


def slow_headers(port: int, n: int = 5, interval: float = 0.5, bound: float = 10.0) -> int:
    return _trickle(port, n, b"GET /healthz HTTP/1.1\r\nHost: x\r\n", b"X-Slow: 1\r\n", interval, bound)


def half_sent(port: int, n: int = 50, bound: float = 10.0) -> int:
    return _trickle(port, n, b"GET /heal", None, 0.1, bound)


def slow_body(port: int, n: int = 5, interval: float = 0.5, bound: float = 10.0, length: int = 1000) -> int:
    """``length`` over the server's body limit: answered 413 at once, and the connection must close too."""
    head = (b"POST /ask HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {length}\r\n\r\n{{".encode())
    return _trickle(port, n, head, b" ", interval, bound)


def long_head(port: int, limit: int = 1 << 20, line: int = 4000) -> tuple[int | None, bytes]:
    """Send a request head that never ends: header lines of ``line`` bytes, up to ``limit`` bytes in all.

    Returns the bytes sent when the server closed the connection (None: still open after ``limit``) and
    what it answered."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    sent, k = 0, 0
    try:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        while sent < limit:
            if _readable(s):
                break
            chunk = b"X-Pad-%d: %s\r\n" % (k, b"a" * line)
            try:
                s.sendall(chunk)
            except OSError:
                break
            sent, k = sent + len(chunk), k + 1
            time.sleep(0.001)
        else:
            time.sleep(0.2)
            if not _readable(s):
                return None, b""
        s.settimeout(2)
        answer = b""
        try:
            while chunk := s.recv(65536):
                answer += chunk
        except OSError:
            pass
        return sent, answer
    finally:
        s.close()


def _readable(s: socket.socket) -> bool:
    """True once the server sent something or closed; reads nothing (the answer is read afterwards)."""
    r, _, _ = select.select([s], [], [], 0)
    return bool(r)


def forwarded_bypasses(url: str, n: int, burst: int) -> int:
    import httpx

    ok = 0
    with httpx.Client(base_url=url, timeout=10) as client:
        for i in range(n):
            r = client.get("/patterns", headers={"X-Forwarded-For": f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}"})
            ok += r.status_code == 200
    return max(0, ok - burst)


def read_response(s: socket.socket, whole: bool = False) -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 response from ``s``: (status, lower-cased headers, body). The body is read to the
    connection's end (``whole``) or as far as its Content-Length says (0 without one: an event stream's
    head). Bounded by the socket's timeout; a connection closed before a whole head fails the caller."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        assert chunk, f"closed without an answer: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    if whole:
        while chunk := s.recv(65536):
            body += chunk
    else:
        while len(body) < int(headers.get("content-length", "0")):
            body += s.recv(65536)
    return int(lines[0].split()[1]), headers, body
