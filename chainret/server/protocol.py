"""uvicorn's HTTP protocols with a bound on each request's head: its time and its size.

uvicorn bounds the idle time between requests (``timeout_keep_alive``) but not the time a client
takes to send a request's line and headers: a client sending one header line every 0.5 s, or
half a request line and nothing more, holds its connection (and a slot of the server) forever.
Both protocols here start a timer when a connection opens and whenever the first bytes of a next
request arrive; when the headers are not complete ``header_timeout_s`` later, they answer 408 and
close the connection. The body is bounded separately, by ``LimitsMiddleware`` (``body_timeout_s``).

Two implementations, the same bounds: ``BoundedHttpToolsProtocol`` (httptools, llhttp's C parser:
about 0.45M fewer instructions per request than h11, ``docs/results/serve_instructions.md``, and
13-18% less server CPU under load, ``docs/results/serve.md``) where httptools is installed (the
``serve`` extra installs it), else ``BoundedH11Protocol`` (h11, pure Python). h11 refuses a request head longer than 16 KiB (``h11_max_incomplete_event_size``) by
itself; httptools keeps every header a client sends, so ``BoundedHttpToolsProtocol`` counts the
head's bytes and answers a longer one as h11 does (uvicorn's 400, connection closed), so a client
cannot grow a connection's memory without end in the seconds the timer gives it.

Both also turn Nagle's algorithm off on every TCP connection (``TCP_NODELAY``). asyncio does that
only for a socket whose ``proto`` is TCP, and the listening socket uvicorn hands its worker
processes (``--workers N``) comes back with ``proto`` 0: without this, each response's body waited
for the client's delayed ACK, about 40 ms per request on Linux (measured: 22 requests/s from one
client against 2 workers, 640 against 1).

Both also cap the connections a process holds open, per client address and in all
(``head_deadline.ConnectionCaps``).

``chainret serve`` and ``chainret mcp --http`` pass ``protocol_factory(header_timeout_s, http, caps)`` as
uvicorn's ``http`` (a ``functools.partial``: picklable, so ``--workers N`` gets it too, each worker its own
counts); ``--http h11`` picks h11 where httptools is installed too.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from chainret.server.head_deadline import DEFAULT_HEADER_TIMEOUT_S, ConnectionCaps, HeadDeadline, no_delay

__all__ = ["DEFAULT_HEADER_TIMEOUT_S", "BoundedH11Protocol", "ConnectionCaps", "HeadDeadline", "no_delay", "protocol_class",
           "protocol_factory"]


class BoundedH11Protocol(HeadDeadline, H11Protocol):
    """``H11Protocol`` plus a deadline for each request's line and headers (see the module docstring)."""

    implementation = "h11"

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE:  # these bytes start a request (or continue its headers)
            self._arm_header_timer()
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # the headers are complete (or the request failed)
            self._disarm_header_timer()

    def _awaiting_head(self) -> bool:
        return self.conn.their_state is h11.IDLE


HTTP_IMPLEMENTATIONS = ("auto", "httptools", "h11")
ProtocolClass = Callable[..., asyncio.Protocol]


def _httptools_protocol() -> ProtocolClass | None:
    """``BoundedHttpToolsProtocol`` where httptools is installed, else None."""
    try:
        from chainret.server.protocol_httptools import BoundedHttpToolsProtocol
    except ImportError:  # httptools (or uvicorn's protocol over it) is not installed
        return None
    return BoundedHttpToolsProtocol


def protocol_class(http: str = "auto") -> ProtocolClass:
    """The bounded protocol class for ``http`` (``auto``: httptools where installed, else h11)."""
    from chainret.core.errors import MissingExtra, UsageError

    if http not in HTTP_IMPLEMENTATIONS:
        raise UsageError(f"unknown HTTP implementation {http!r}: choose one of {', '.join(HTTP_IMPLEMENTATIONS)}")
    if http == "h11":
        return BoundedH11Protocol
    fast = _httptools_protocol()
    if fast is None and http == "httptools":
        raise MissingExtra("--http httptools needs httptools: install the 'serve' extra (pip install 'chainret[serve]')",
                           extra="serve")
    return fast or BoundedH11Protocol


def protocol_factory(header_timeout_s: float = DEFAULT_HEADER_TIMEOUT_S, http: str = "auto",
                     caps: ConnectionCaps | None = None) -> Any:
    """What ``uvicorn.run(http=...)`` takes: the bounded protocol (``protocol_class(http)``) with this header
    timeout and these connection caps (None: uncapped)."""
    return functools.partial(protocol_class(http), header_timeout_s=header_timeout_s, caps=caps)
