"""uvicorn's h11 protocol with a header read timeout: a slow client is cut off within a bound.

uvicorn bounds the idle time between requests (``timeout_keep_alive``) but not the time a client
takes to send a request's line and headers: a client sending one header line every 0.5 s, or
half a request line and nothing more, holds its connection (and a slot of the server) forever.
``BoundedH11Protocol`` starts a timer when a connection opens and whenever the first bytes of a
next request arrive; when the headers are not complete ``header_timeout_s`` later, it answers 408
and closes the connection. The body is bounded separately, by ``LimitsMiddleware`` (``body_timeout_s``).

It also turns Nagle's algorithm off on every TCP connection (``TCP_NODELAY``). asyncio does that
only for a socket whose ``proto`` is TCP, and the listening socket uvicorn hands its worker
processes (``--workers N``) comes back with ``proto`` 0: without this, each response's body waited
for the client's delayed ACK, about 40 ms per request on Linux (measured: 22 requests/s from one
client against 2 workers, 640 against 1).

``chainret serve`` passes ``protocol_factory(header_timeout_s)`` as uvicorn's ``http`` (a
``functools.partial``: picklable, so ``--workers N`` gets it too). The h11 implementation is used
whether or not httptools is installed, so the bound holds on every install.
"""

from __future__ import annotations

import asyncio
import functools
import json
import socket
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

DEFAULT_HEADER_TIMEOUT_S = 10.0


def _timeout_response(seconds: float) -> bytes:
    body = json.dumps({"error": {"code": "header_timeout",
                                 "message": f"the request line and headers did not arrive within {seconds:g} s"}}).encode()
    head = (f"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\n\r\n")
    return head.encode("ascii") + body


def no_delay(transport: Any) -> None:
    """``TCP_NODELAY`` on a transport's TCP socket (see the module docstring); nothing for any other socket."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:  # not a TCP socket after all: nothing to turn off
            pass


class BoundedH11Protocol(H11Protocol):
    """``H11Protocol`` plus a deadline for each request's line and headers (see the module docstring)."""

    def __init__(self, *args: Any, header_timeout_s: float = DEFAULT_HEADER_TIMEOUT_S, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timeout_s = header_timeout_s
        self._header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        no_delay(transport)
        self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE:  # these bytes start a request (or continue its headers)
            self._arm_header_timer()
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # the headers are complete (or the request failed)
            self._disarm_header_timer()

    def _arm_header_timer(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.header_timeout_s, self._header_timed_out)

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_timed_out(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a response is still being written (pipelining): the next request waits for it
        self.logger.info("closing a connection whose request headers took longer than %g s", self.header_timeout_s)
        self.transport.write(_timeout_response(self.header_timeout_s))
        self.transport.close()


def protocol_factory(header_timeout_s: float = DEFAULT_HEADER_TIMEOUT_S) -> Any:
    """What ``uvicorn.run(http=...)`` takes: the bounded protocol with this header timeout."""
    return functools.partial(BoundedH11Protocol, header_timeout_s=header_timeout_s)
