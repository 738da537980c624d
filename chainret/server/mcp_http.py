"""``chainret mcp --http``: the MCP server over streamable HTTP, authenticated like ``chainret serve``.

The official SDK's streamable HTTP transport (``MCPServer.streamable_http_app``, stateless, JSON
responses) serves the same three tools as stdio (``chainret.server.mcp.build_server``). In front of
it, ``TokenGate`` applies the HTTP API's rules (``chainret.server.auth.Authenticator``, the same token
file): a listed bearer token -> its principal; any other ``Authorization`` header -> 401; no
credentials -> ``public``, or 401 when the file says ``anonymous: false``; then the per-identity
rate limit. The identity is set in ``CURRENT_IDENTITY`` for that HTTP request only, so every tool
call answers as the caller's own principal (viewer = principal: no tool takes a viewer), and a
request can never run as another request's caller. Stateless mode keeps no MCP session between
requests, so there is no session a second token could reuse.

Bounds, as for ``chainret serve``: ``LimitsMiddleware`` (the HTTP API's own) reads every body within
``body_timeout_s`` and ``body_bytes`` before anything else runs (408 / 413, connection closed), and the
bounded protocol (``chainret.server.protocol``) bounds the request head and the connections per
address. ``StreamCaps`` bounds the ``GET /mcp`` event streams, which the SDK holds open until the
client leaves: ``streams_per_client`` per identity (429), ``streams`` in all (503), and a stream that
has sent no event for ``stream_idle_s`` is ended (in stateless mode none ever carries one: there is no
session to send it to).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chainret.server.app import LimitsMiddleware
from chainret.server.auth import Authenticator
from chainret.server.errors import ApiError, error_body
from chainret.server.limits import Limits, RateLimiter
from chainret.server.mcp import CURRENT_IDENTITY, build_server
from chainret.server.service import Service

MCP_PATH = "/mcp"


class StreamCaps:
    """Open ``GET /mcp`` event streams: at most ``per_client`` per identity key and ``total`` in all (this process).

    Called on the event loop only (no lock). Hand-written: a counter per key, like ``RateLimiter``."""

    def __init__(self, total: int, per_client: int, idle_s: float) -> None:
        self.total, self.per_client, self.idle_s = total, per_client, idle_s
        self.open: Counter[str] = Counter()
        self.count = 0

    def admit(self, key: str) -> None:
        """Count a new stream for ``key``, or raise 503 (all streams taken) / 429 (``key`` holds its share)."""
        retry = {"Retry-After": str(max(1, round(self.idle_s)))}  # by then an idle stream has been ended
        if self.count >= self.total:
            raise ApiError(503, "too_many_streams", f"this server holds {self.total} event streams, its most; retry later", retry)
        if self.open[key] >= self.per_client:
            raise ApiError(429, "too_many_streams", f"you hold {self.per_client} event streams, the most per client; "
                           "close one or retry later", retry)
        self.open[key] += 1
        self.count += 1

    def release(self, key: str) -> None:
        self.count -= 1
        self.open[key] -= 1
        if self.open[key] <= 0:
            del self.open[key]


def _is_event(chunk: bytes) -> bool:
    """True when an event-stream chunk carries an event; False for keep-alive comments (lines starting ':') alone."""
    return any(line and not line.startswith(b":") for line in chunk.replace(b"\r", b"\n").split(b"\n"))


async def _run_stream(app: ASGIApp, scope: Scope, receive: Receive, send: Send, idle_s: float) -> None:
    """Run a ``GET`` through ``app``, ending its event stream once it has sent no event for ``idle_s``.

    The end is the client's disconnect as the app sees it (``receive`` answers ``http.disconnect``; the
    SDK's event-stream response then stops), and the response is completed here, so the client reads a
    whole, ended stream rather than a cut connection."""
    loop = asyncio.get_running_loop()
    last_event = loop.time()
    started = complete = False

    async def watched_send(message: Message) -> None:
        nonlocal last_event, started, complete
        if message["type"] == "http.response.start":
            started = True
        elif message["type"] == "http.response.body":
            complete = not message.get("more_body", False)
            if _is_event(message.get("body", b"")):
                last_event = loop.time()
        await send(message)

    async def watched_receive() -> Message:
        while True:
            try:
                async with asyncio.timeout_at(last_event + idle_s):
                    return await receive()
            except TimeoutError:
                if loop.time() >= last_event + idle_s:  # else an event went out meanwhile: wait on
                    return {"type": "http.disconnect"}

    await app(scope, watched_receive, watched_send)
    if started and not complete:
        await send({"type": "http.response.body", "body": b"", "more_body": False})


class TokenGate:
    """Pure ASGI: authenticate every HTTP request (401/429 as JSON), then run it as that identity;
    a ``GET`` (an event stream) only within ``streams``' caps."""

    def __init__(self, app: ASGIApp, auth: Authenticator, rate: RateLimiter, streams: StreamCaps) -> None:
        self.app = app
        self.auth = auth
        self.rate = rate
        self.streams = streams

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
        client = scope.get("client") or ("", 0)
        try:
            who = self.auth.authenticate(headers.get("authorization"), None, str(client[0]))
            self.rate.check(who.key)
            stream = scope.get("method") == "GET"
            if stream:
                self.streams.admit(who.key)
        except ApiError as exc:
            await _send_error(send, exc)
            return
        token = CURRENT_IDENTITY.set(who)
        try:
            if stream:
                await _run_stream(self.app, scope, receive, send, self.streams.idle_s)
            else:
                await self.app(scope, receive, send)
        finally:
            CURRENT_IDENTITY.reset(token)
            if stream:
                self.streams.release(who.key)


async def _send_error(send: Send, exc: ApiError) -> None:
    import json

    body = json.dumps(error_body(exc.code, exc.message)).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in exc.headers.items()]
    await send({"type": "http.response.start", "status": exc.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def build_http_app(service: Service, auth: Authenticator, *, host: str = "127.0.0.1") -> Any:
    """The ASGI app: ``LimitsMiddleware``, then ``TokenGate``, in front of the SDK's streamable HTTP app at ``/mcp``."""
    limits: Limits = service.limits
    server = build_server(service, None)  # no configured principal: TokenGate sets each request's identity
    inner = server.streamable_http_app(streamable_http_path=MCP_PATH, stateless_http=True, json_response=True,
                                       max_request_body_size=limits.body_bytes, host=host)
    gate = TokenGate(inner, auth, RateLimiter(limits.rate, limits.burst),
                     StreamCaps(limits.streams, limits.streams_per_client, limits.stream_idle_s))
    return LimitsMiddleware(gate, body_bytes=limits.body_bytes, timeout_s=None, body_timeout_s=limits.body_timeout_s)
