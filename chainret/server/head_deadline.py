"""What both bounded HTTP protocols share: the header timer, its 408 answer, and ``TCP_NODELAY``.

Its own module so ``chainret.server.protocol`` (h11, and the choice of parser) and
``chainret.server.protocol_httptools`` (httptools) both import it without importing each other.
Why the timer and ``TCP_NODELAY`` are there: ``chainret.server.protocol``'s docstring.
"""

from __future__ import annotations

import asyncio
import json
import socket
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


class HeadDeadline(asyncio.Protocol):
    """The header timer both protocols share (mixed in before uvicorn's protocol): armed when a connection
    opens and when a request's first bytes arrive, disarmed when its headers are complete; on expiry a 408
    and the connection closed.

    A protocol mixing it in has uvicorn's ``loop``, ``transport``, ``cycle`` and ``logger``, calls
    ``_arm_header_timer`` / ``_disarm_header_timer``, and says through ``_awaiting_head`` whether the
    connection is still waiting for a request's line and headers."""

    header_timeout_s: float
    _header_timer: asyncio.TimerHandle | None
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    cycle: Any
    logger: Any

    def __init__(self, *args: Any, header_timeout_s: float = DEFAULT_HEADER_TIMEOUT_S, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # uvicorn's protocol
        self.header_timeout_s = header_timeout_s
        self._header_timer = None

    def _awaiting_head(self) -> bool:
        raise NotImplementedError

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        no_delay(transport)
        self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
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
