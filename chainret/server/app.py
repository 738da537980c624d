"""The HTTP API (FastAPI): ``POST /ask``, ``GET /patterns``, ``POST /trace/verify``, ``GET /healthz``.

``create_app(service, auth, limits)`` builds the application; ``build(ServeConfig)`` also loads the
catalog and the token file; ``chainret serve`` runs it with uvicorn, in one process or, with
``--workers N``, in N processes that each build it from the same ``ServeConfig`` (``app_from_env``). FastAPI also serves the OpenAPI description (``/openapi.json``) and its page (``/docs``).

Every error is JSON ``{"error": {"code", "message"}}`` with a stable code: 400 ``bad_json``,
422 ``invalid_request``, 401 ``invalid_token`` / ``bad_authorization`` / ``missing_credentials``,
403 ``viewer_not_allowed``, 413 ``body_too_large``, 429 ``rate_limited``, 504 ``timeout``, 500
``internal_error``. Messages never carry an exception's own text or any document text.

Concurrency: requests are parsed, authenticated and rate-limited on the event loop; engine calls
are queued on the service's engine threads (``Service.submit``: ``ServeConfig.threads`` at once where
the store allows it, else one), so a request that waits past the timeout is answered 504 and its
call is cancelled before it starts. The whole request, body
upload included, is bounded by ``limits.timeout_s``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from fastapi.security import HTTPBearer
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chainret import __version__
from chainret.server.auth import Authenticator, Identity, load_token_file
from chainret.server.errors import ApiError, error_body
from chainret.server.inputs import VerifyIn
from chainret.server.limits import Limits, RateLimiter
from chainret.server.service import DEFAULT_THREADS, MIN_REVISION_HELP, AskIn, AskOut, Health, PatternsOut, Service, VerifyOut

log = logging.getLogger("chainret.server")
CONFIG_ENV = "CHAINRET_SERVE_CONFIG"  # a ServeConfig as JSON, for worker processes

_STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
    408: "body_timeout",
    429: "rate_limited",
}


_CLOSE = {"connection": "close"}  # an answer sent before the whole body arrived ends the connection


class _BodyRefused(Exception):
    """The body passed ``body_bytes`` or did not arrive within ``body_timeout_s``: answered by ``LimitsMiddleware``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


class LimitsMiddleware:
    """Pure ASGI: refuse bodies over ``body_bytes`` (declared or streamed), cut off a body that has not
    arrived within ``body_timeout_s`` (408, connection closed), and bound each request's time (``timeout_s``;
    None: unbounded, for ``chainret mcp --http``, whose event streams outlive any request time).

    The body is read here, whole, before the app runs, and handed to it as one message: so a slow or
    oversized body is answered here with the same JSON for every app behind it (the HTTP API, and the MCP
    SDK's app, which reads the whole body too and would log an error's traceback and answer 500), and
    never reaches the app. Bodies are at most ``body_bytes`` (64 KiB by default), which every route reads
    whole anyway. The bounds are ``asyncio.timeout`` scopes (the server runs on asyncio): they cost a
    third of anyio's ``fail_after``, and two of them wrap every request."""

    def __init__(self, app: ASGIApp, body_bytes: int, timeout_s: float | None, body_timeout_s: float = 10.0) -> None:
        self.app = app
        self.body_bytes = body_bytes
        self.timeout_s = timeout_s
        self.body_timeout_s = body_timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            try:
                too_big = int(declared) > self.body_bytes
            except ValueError:
                await _send_json(send, 400, error_body("bad_request", "invalid Content-Length header"), _CLOSE)
                return
            if too_big:  # answered before the body is read: the connection closes, its body is never waited for
                await _send_json(send, 413, error_body("body_too_large", f"the request body is larger than {self.body_bytes} bytes"), _CLOSE)
                return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            async with asyncio.timeout(self.timeout_s):
                body = await self._body(receive)
                if body is None:
                    return  # the client went away before its body was in: nobody to answer
                await self.app(scope, _replay(body, receive), tracking_send)
        except _BodyRefused as exc:
            await _send_json(send, exc.status, error_body(exc.code, exc.message), _CLOSE)
        except TimeoutError:
            if not started:
                await _send_json(send, 504, error_body("timeout", f"the request took longer than {self.timeout_s:g} s"))

    async def _body(self, receive: Receive) -> bytes | None:
        """The whole body, within ``body_timeout_s`` and ``body_bytes`` (``_BodyRefused`` else); None on a disconnect."""
        chunks: list[bytes] = []
        seen = 0
        try:
            async with asyncio.timeout(self.body_timeout_s):
                while True:
                    message = await receive()
                    if message["type"] != "http.request":
                        return None
                    chunk = message.get("body", b"")
                    seen += len(chunk)
                    if seen > self.body_bytes:
                        raise _BodyRefused(413, "body_too_large", f"the request body is larger than {self.body_bytes} bytes")
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
        except TimeoutError:
            raise _BodyRefused(408, "body_timeout", f"the request body did not arrive within {self.body_timeout_s:g} s") from None


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive that gives the body already read as one message, then the connection's own messages (a disconnect)."""
    pending = True

    async def replayed() -> Message:
        nonlocal pending
        if pending:
            pending = False
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


async def _send_json(send: Send, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
    response = JSONResponse(body, status_code=status, headers=headers)
    await send({"type": "http.response.start", "status": status, "headers": response.raw_headers})
    await send({"type": "http.response.body", "body": response.body})


def _validation_message(exc: RequestValidationError) -> tuple[int, str, str]:
    errors = exc.errors()
    if any(e.get("type") == "json_invalid" for e in errors):
        return 400, "bad_json", "the request body is not valid JSON"
    if any(e.get("type") == "extra_forbidden" and e.get("loc", ())[-1:] == ("principal",) for e in errors):
        return 400, "principal_not_accepted", "the principal comes from authentication (a bearer token), not from the request body"
    if any(tuple(e.get("loc", ())) == ("body",) and e.get("type") in ("model_attributes_type", "dict_type") for e in errors):
        return 422, "invalid_request", "the body must be a JSON object, sent with Content-Type: application/json"
    parts = []
    for e in errors[:5]:  # location and pydantic's message only: never the input itself
        loc = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
        parts.append(f"{loc}: {str(e.get('msg', 'invalid')).removeprefix('Value error, ')}")
    return 422, "invalid_request", "; ".join(parts)


def create_app(service: Service, auth: Authenticator, limits: Limits | None = None) -> FastAPI:
    """The FastAPI application over one ``Service`` (catalog loaded once, shared by every request)."""
    limits = limits or service.limits
    rate = RateLimiter(limits.rate, limits.burst)
    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        service.close()

    app = FastAPI(
        lifespan=lifespan,
        title="chainret",
        version=__version__,
        description=(
            "Auditable multi-hop retrieval over a permission-aware relation catalog. The principal of "
            "every request comes from its bearer token (none: `public`); the response is projected for "
            "that principal, or for a narrower viewer the token may ask for."
        ),
    )
    app.add_middleware(LimitsMiddleware, body_bytes=limits.body_bytes, timeout_s=limits.timeout_s,
                       body_timeout_s=limits.body_timeout_s)
    bearer = HTTPBearer(auto_error=False, description="a token listed (by its sha256) in the server's token file")

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        status, code, message = _validation_message(exc)
        return JSONResponse(error_body(code, message), status_code=status)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _STATUS_CODES.get(exc.status_code, "http_error")
        message = exc.detail if exc.status_code in (404, 405) else code.replace("_", " ")
        return JSONResponse(error_body(code, str(message)), status_code=exc.status_code, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _crash(_: Request, exc: Exception) -> JSONResponse:
        log.error("unexpected error", exc_info=exc)  # the server log has the details; the client never does
        return JSONResponse(error_body("internal_error", "the server could not answer this request"), status_code=500)

    def who_asks(request: Request) -> Identity:
        # One value each: a duplicated identity header (a client's copy the proxy appended to, or two
        # proxies) is ambiguous, so it is refused rather than resolved to the first or the last.
        for name in (auth.trust_header, "authorization"):
            if name and len(request.headers.getlist(name)) > 1:
                raise ApiError(400, "duplicate_identity_header", f"the request carries more than one {name} header")
        header = request.headers.get(auth.trust_header) if auth.trust_header else None
        who = auth.authenticate(request.headers.get("authorization"), header, request.client.host if request.client else "")
        rate.check(who.key)
        return who

    async def identity(request: Request, _creds: Any = Depends(bearer)) -> Identity:
        return who_asks(request)

    async def run_engine(fn: Any, *args: Any) -> Any:
        # Queue on the service's engine threads. At the timeout (LimitsMiddleware cancels this await)
        # the request is answered 504 and its queued call is cancelled, so it never runs; a call
        # already running cannot be interrupted and is left to finish.
        return await asyncio.wrap_future(service.submit(fn, *args))

    @app.post("/ask", response_model=AskOut, summary="Answer a relationship request as the authenticated principal")
    async def post_ask(body: AskIn, who: Identity = Depends(identity)) -> AskOut:
        return await run_engine(service.ask, who, body)

    # The usual /ask request, answered before FastAPI's route (which stays for the OpenAPI description
    # and for every other request): see ``QuickAsk``.
    full = next(r for r in app.router.routes if isinstance(r, APIRoute) and r.path == "/ask")
    app.router.routes.insert(0, Route("/ask", QuickAsk(full, who_asks, lambda who, body: run_engine(_ask_json, service, who, body)),
                                      methods=["POST"], include_in_schema=False))

    @app.get("/patterns", response_model=PatternsOut, summary="The catalog's relation patterns and views")
    async def get_patterns(who: Identity = Depends(identity),
                           min_revision: str | None = Query(None, max_length=80, description=MIN_REVISION_HELP)) -> PatternsOut:
        return await run_engine(service.patterns, who.principal, min_revision)

    @app.post("/trace/verify", response_model=VerifyOut, summary="Replay a trace /ask returned against the catalog")
    async def post_verify(body: VerifyIn, who: Identity = Depends(identity),
                          min_revision: str | None = Query(None, max_length=80, description=MIN_REVISION_HELP)) -> VerifyOut:
        return await run_engine(service.verify, who, body.trace, body.min_revision or min_revision)

    @app.get("/healthz", response_model=Health, summary="Liveness and the served catalog")
    async def healthz() -> Health:
        return Health(world=service.world, version=__version__)

    from chainret.server import ui  # /ui: the browser view, same authentication and engine queue

    app.include_router(ui.router(service, identity, run_engine))
    app.add_middleware(ui.SecurityHeaders)
    return app


class QuickAsk:
    """``POST /ask`` for a well-formed request, without FastAPI's per-request dependency solving.

    FastAPI solves the route's dependency tree (body, bearer scheme, identity) on every request: about
    half the server's own CPU per answer on a small catalog (issue 24: serve at the engine's speed).
    This ASGI route does the same steps in a straight line for the usual request: a JSON object body
    sent as ``application/json`` that ``AskIn`` accepts, parsed as FastAPI parses it (``json.loads``,
    then python-mode validation). Authentication, the rate limit, the engine queue and the response's
    serialisation (``AskOut`` dumped by alias to JSON bytes, in the engine call: the response is
    serialised on the thread that built it, and the event loop only sends bytes) are the same calls the
    FastAPI route makes. Anything else (another content type, a body that is not JSON, a body ``AskIn``
    refuses) is handed, with its body replayed, to FastAPI's route, so every error answer is FastAPI's own; an
    error raised here (an unknown token, the rate limit, the engine's refusals) reaches the app's
    exception handlers as it would from that route. ``tests/test_serve_quick_ask.py`` checks the two paths
    answer byte for byte alike.
    """

    def __init__(self, full: APIRoute, who_asks: Callable[[Request], Identity],
                 ask: Callable[[Identity, AskIn], Awaitable[bytes]]) -> None:
        self.full, self.who_asks, self.ask = full, who_asks, ask

    @staticmethod
    def parsed(request: Request, body: bytes) -> AskIn | None:
        """The request body as ``AskIn`` when it is the usual kind, else None (FastAPI answers it)."""
        kind = request.headers.get("content-type", "")
        if kind.partition(";")[0].strip().lower() != "application/json" or not body:
            return None
        try:
            data = json.loads(body)
            return AskIn.model_validate(data) if isinstance(data, dict) else None
        except (ValueError, ValidationError, RecursionError):  # (JSONDecodeError, UnicodeDecodeError: ValueErrors)
            return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        body = await request.body()  # already read, within the size and time limits, by LimitsMiddleware
        ask_in = self.parsed(request, body)
        if ask_in is None:
            replayed = False

            async def replay() -> Message:
                nonlocal replayed
                if replayed:
                    return await receive()
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}

            _, child = self.full.matches(scope)
            await self.full.handle({**scope, **child}, replay, send)
            return
        out = await self.ask(self.who_asks(request), ask_in)
        await Response(out, media_type="application/json")(scope, receive, send)


_ASK_OUT: TypeAdapter[AskOut] = TypeAdapter(AskOut)


def _ask_json(service: Service, who: Identity, body: AskIn) -> bytes:
    """``Service.ask``'s answer as the JSON bytes FastAPI's route would send (an engine call: see ``QuickAsk``)."""
    return _ASK_OUT.dump_json(service.ask(who, body), by_alias=True)


class ServeConfig(BaseModel):
    """What a server process needs to build its app: catalog, token file, trusted header, limits, engine threads."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    catalog: str | None = None
    tokens: str | None = None
    trust_header: str | None = None
    limits: Limits = Limits()
    threads: int = Field(DEFAULT_THREADS, ge=1, description="engine calls at once per process, where the store allows it")
    pin_group: str | None = Field(None, description="--pin: this server's name among CPU claims; this process takes one CPU (chainret.server.affinity)")
    sign_key: str | None = Field(None, description="--sign-key: an Ed25519 private key file; /ask answers carry the trace signed")


def build(cfg: ServeConfig) -> tuple[Service, Authenticator, FastAPI]:
    """Load the token file and the catalog (once) and build the app; errors are ``ChainretError``s."""
    if cfg.pin_group is not None:  # before the engine threads start, so they share the event loop's CPU
        from chainret.server.affinity import pin_this_process

        cpu = pin_this_process(cfg.pin_group)
        log.info("--pin: %s", f"this worker's threads run on CPU {cpu}" if cpu is not None else "no CPU left to pin to; left to the scheduler")
    table = load_token_file(cfg.tokens) if cfg.tokens is not None else None
    auth = Authenticator(table, trust_header=cfg.trust_header)
    service = Service(cfg.catalog, cfg.limits, auth, tokens_source=cfg.tokens or "tokens", threads=cfg.threads,
                      sign_key=cfg.sign_key)
    return service, auth, create_app(service, auth, cfg.limits)


def app_from_env() -> FastAPI:
    """uvicorn factory for worker processes: the app for the ServeConfig in ``$CHAINRET_SERVE_CONFIG``."""
    return build(ServeConfig.model_validate_json(os.environ[CONFIG_ENV]))[2]
