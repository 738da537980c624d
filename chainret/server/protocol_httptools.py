"""uvicorn's httptools protocol with ``HeadDeadline``'s header timer and a bound on a request head's size.

Its own module because it imports httptools, which the ``serve`` extra installs but an install
without it may lack (``protocol.protocol_class`` then picks h11); at module level so ``--workers N``
can pickle it. h11 refuses a request line and headers longer than ``HEAD_BYTES`` by itself; llhttp
(httptools' parser) keeps every header a client sends, so this protocol counts a head's bytes and
answers a longer one as uvicorn answers h11's refusal (a plain 400, connection closed).
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from chainret.server.head_deadline import HeadDeadline

HEAD_BYTES = 16 * 1024  # h11's default bound on an incomplete event (uvicorn's h11_max_incomplete_event_size)


class BoundedHttpToolsProtocol(HeadDeadline, HttpToolsProtocol):
    """``HttpToolsProtocol`` plus a deadline for each request's line and headers, and a bound on their size.

    ``_head`` is True from the connection's opening and from a request's first byte until its headers
    are complete. The bytes of the read in which a request began are not counted for it (the parser
    does not say where in the read it began), so a head is refused after at most ``HEAD_BYTES`` and one
    read's worth (asyncio reads at most 256 KiB at a time).
    """

    implementation = "httptools"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head, self._head_bytes, self._began = True, 0, False

    def data_received(self, data: bytes) -> None:
        self._began = False
        super().data_received(data)
        if self._head and not self._began and not self.transport.is_closing():
            self._head_bytes += len(data)
            if self._head_bytes > HEAD_BYTES:
                self._disarm_header_timer()
                self.logger.warning("Invalid HTTP request received.")
                self.send_400_response("Invalid HTTP request received.")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head, self._head_bytes, self._began = True, 0, True
        self._arm_header_timer()

    def on_headers_complete(self) -> None:
        self._head = False
        self._disarm_header_timer()
        super().on_headers_complete()

    def _awaiting_head(self) -> bool:
        return self._head
