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
"""

from __future__ import annotations

from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from chainret.server.auth import Authenticator
from chainret.server.errors import ApiError, error_body
from chainret.server.limits import RateLimiter
from chainret.server.mcp import CURRENT_IDENTITY, build_server
from chainret.server.service import Service

MCP_PATH = "/mcp"


class TokenGate:
    """Pure ASGI: authenticate every HTTP request (401/429 as JSON), then run it as that identity."""

    def __init__(self, app: ASGIApp, auth: Authenticator, rate: RateLimiter) -> None:
        self.app = app
        self.auth = auth
        self.rate = rate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
        client = scope.get("client") or ("", 0)
        try:
            who = self.auth.authenticate(headers.get("authorization"), None, str(client[0]))
            self.rate.check(who.key)
        except ApiError as exc:
            await _send_error(send, exc)
            return
        token = CURRENT_IDENTITY.set(who)
        try:
            await self.app(scope, receive, send)
        finally:
            CURRENT_IDENTITY.reset(token)


async def _send_error(send: Send, exc: ApiError) -> None:
    import json

    body = json.dumps(error_body(exc.code, exc.message)).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in exc.headers.items()]
    await send({"type": "http.response.start", "status": exc.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def build_http_app(service: Service, auth: Authenticator, *, host: str = "127.0.0.1") -> Any:
    """The ASGI app: ``TokenGate`` in front of the SDK's streamable HTTP app at ``/mcp``."""
    server = build_server(service, None)  # no configured principal: TokenGate sets each request's identity
    inner = server.streamable_http_app(streamable_http_path=MCP_PATH, stateless_http=True, json_response=True,
                                       max_request_body_size=service.limits.body_bytes, host=host)
    return TokenGate(inner, auth, RateLimiter(service.limits.rate, service.limits.burst))
