"""What both bounded HTTP protocols share: the header timer, its 408 answer, the connection caps, and ``TCP_NODELAY``.

Its own module so ``chainret.server.protocol`` (h11, and the choice of parser) and
``chainret.server.protocol_httptools`` (httptools) both import it without importing each other.
Why the timer and ``TCP_NODELAY`` are there: ``chainret.server.protocol``'s docstring.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
from collections import Counter
from typing import Any

DEFAULT_HEADER_TIMEOUT_S = 10.0


def _timeout_response(seconds: float) -> bytes:
    body = json.dumps({"error": {"code": "header_timeout",
                                 "message": f"the request line and headers did not arrive within {seconds:g} s"}}).encode()
    head = (f"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\n\r\n")
    return head.encode("ascii") + body


def no_delay(transport: Any) -> None:
    """``TCP_NODELAY`` on a transport's TCP socket (see ``chainret.server.protocol``'s docstring); nothing for any other socket."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:  # not a TCP socket after all: nothing to turn off
            pass


class ConnectionCaps:
    """How many connections one server process holds open at once: ``per_client`` from one address, ``total`` in all.

    uvicorn bounds neither per address (``limit_concurrency`` counts all connections together and answers a bare
    text 503), so one client could hold every file descriptor the process has. A connection past a cap is not
    served: its first request is answered as soon as its head is in (the header timeout bounds a silent one) with
    JSON 429 ``too_many_connections`` (its address holds ``per_client``) or 503 ``server_busy`` (the process holds
    ``total``), ``Retry-After: 1``, and the connection is closed. Addresses in ``exempt`` (``--forwarded-allow-ips``:
    comma-separated addresses or networks, ``*`` for all) count towards ``total`` only: every client behind a named
    proxy arrives from the proxy's address. Called on the event loop only (no lock); a worker process
    (``--workers N``) gets its own copy, so the caps are per process. Hand-written: counting open connections per
    address is a dict, and no kept library hooks into uvicorn's protocol to do it.
    """

    def __init__(self, total: int, per_client: int, exempt: str = "") -> None:
        self.total, self.per_client = total, per_client
        names = [n.strip() for n in exempt.split(",") if n.strip()]
        self._exempt_all = "*" in names
        self._exempt_nets, self._exempt_names = [], set()
        for name in names:
            try:
                self._exempt_nets.append(ipaddress.ip_network(name, strict=False))
            except ValueError:  # not an address (a Unix socket's name, say): matched as written
                self._exempt_names.add(name)
        self._open: Counter[str] = Counter()
        self._count = 0

    def _exempt(self, host: str) -> bool:
        if self._exempt_all or host in self._exempt_names:
            return True
        try:
            addr = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(addr in net for net in self._exempt_nets)

    def admit(self, host: str) -> tuple[int, str, str] | None:
        """Count a new connection from ``host``; None when admitted, else the (status, code, message) to refuse it with."""
        if self._count >= self.total:
            return 503, "server_busy", f"this server holds {self.total} connections, its most; retry shortly"
        if self._open[host] >= self.per_client and not self._exempt(host):
            return 429, "too_many_connections", (f"your address holds {self.per_client} connections to this server, "
                                                 "its most per client; close one or retry shortly")
        self._open[host] += 1
        self._count += 1
        return None

    def release(self, host: str) -> None:
        """An admitted connection from ``host`` closed."""
        self._count -= 1
        self._open[host] -= 1
        if self._open[host] <= 0:
            del self._open[host]


def refusal_app(status: int, code: str, message: str) -> Any:
    """An ASGI app answering every request with this JSON error, ``Retry-After: 1`` and ``connection: close``."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"retry-after", b"1"), (b"connection", b"close")]

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return app


class HeadDeadline(asyncio.Protocol):
    """The header timer both protocols share (mixed in before uvicorn's protocol): armed when a connection
    opens and when a request's first bytes arrive, disarmed when its headers are complete; on expiry a 408
    and the connection closed.

    A protocol mixing it in has uvicorn's ``loop``, ``transport``, ``cycle`` and ``logger``, calls
    ``_arm_header_timer`` / ``_disarm_header_timer``, and says through ``_awaiting_head`` whether the
    connection is still waiting for a request's line and headers.

    It also applies ``ConnectionCaps`` (when given): a connection past a cap gets ``refusal_app`` as its
    app (uvicorn's protocols take ``self.app`` anew for each request), so its request is answered and the
    connection closed; an admitted one is released when it closes."""

    header_timeout_s: float
    _header_timer: asyncio.TimerHandle | None
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    cycle: Any
    logger: Any
    app: Any

    def __init__(self, *args: Any, header_timeout_s: float = DEFAULT_HEADER_TIMEOUT_S,
                 caps: ConnectionCaps | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # uvicorn's protocol
        self.header_timeout_s = header_timeout_s
        self._header_timer = None
        self._caps = caps
        self._admitted: str | None = None  # the address counted for this connection

    def _awaiting_head(self) -> bool:
        raise NotImplementedError

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        no_delay(transport)
        if self._caps is not None:
            peer = transport.get_extra_info("peername")
            host = str(peer[0]) if isinstance(peer, (tuple, list)) and peer else ""
            refused = self._caps.admit(host)
            if refused is None:
                self._admitted = host
            else:
                self.logger.info("refusing a connection from %s: %s", host or "a local socket", refused[1])
                self.app = refusal_app(*refused)
        self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
        if self._caps is not None and self._admitted is not None:
            self._caps.release(self._admitted)
            self._admitted = None
        super().connection_lost(exc)

    def _arm_header_timer(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.header_timeout_s, self._header_timed_out)

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_timed_out(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or not self._awaiting_head():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a response is still being written (pipelining): the next request waits for it
        self.logger.info("closing a connection whose request headers took longer than %g s", self.header_timeout_s)
        self.transport.write(_timeout_response(self.header_timeout_s))
        self.transport.close()
