"""``/ui``: a browser view of ``chainret serve`` (server-rendered HTML and SVG, one small script).

Routes (mounted by ``chainret.server.app.create_app``):

* ``GET /ui``: the page shell (ask box, token field, view select, patterns, verify button); it
  holds no catalog data, so it is served without credentials;
* ``GET /ui/app.js``, ``GET /ui/app.css``: the script and the style, the only ones the page may
  load (``script-src 'self'``, ``style-src 'self'``);
* ``POST /ui/ask``: the same ``AskIn`` body and bearer token as ``POST /ask``, answered by the same
  ``Service.ask``; the response carries that ``/ask`` response unchanged (``response``) and the HTML
  rendered from its projected trace (``html``), names and unit texts looked up as the response's
  viewer sees the catalog. The page never sees anything else;
* ``GET /ui/patterns``: the caller's ``GET /patterns`` as HTML (patterns with their phrasings as
  buttons that fill the ask box, grouped by the relation they follow first in ``<details>``, collapsed
  past ``OPEN_PATTERNS`` under a filter box that the page's script handles: an imported Backstage
  catalog has about 50 patterns) and the views as ``<option>``s, ordered as-of (``View.order``);
  ``as_of`` is set when the catalog's views are dated (``chainret catalog history``), and the page
  then offers a date, sent as the view (the latest view on or before it, ``as_of_view``).

Every ``/ui`` response has a Content-Security-Policy that allows the page's own script, style and
API calls and nothing else: no inline script or event handler, no remote load, no framing, no form
posts. The token is kept in the tab's ``sessionStorage`` and sent as ``Authorization: Bearer``,
exactly as an API client sends it; the script writes data only with ``textContent``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, Response
from fastapi.responses import HTMLResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chainret import __version__
from chainret.catalog.views import as_of_view
from chainret.render.html import CSS, clip, esc, extras_for, trace_fragment
from chainret.server.auth import Identity
from chainret.server.service import AskIn, AskOut, Service

STATIC = Path(__file__).resolve().parents[1] / "data" / "ui"
OPEN_PATTERNS = 8  # up to this many patterns the groups are shown open (and no filter box); more start collapsed
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'none'; base-uri 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>chainret: {world}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/ui/app.css"><script src="/ui/app.js" defer></script></head>
<body><header class="bar"><h1>chainret</h1><span>world <code>{world}</code> · version {version} ·
<a class="api" href="/docs">API</a></span></header>
<main>
<form class="ask" id="ask-form" autocomplete="off">
  <input type="text" id="request" name="request" required maxlength="{max_chars}"
         placeholder="Which contact serves PR-84?" aria-label="request">
  <button type="submit" id="ask">Ask</button>
  <div class="opts">
    <label>view <select id="view" aria-label="view"><option value="">(current)</option></select></label>
    <label id="asof-label" hidden>as of <input type="date" id="asof" aria-label="as of date"></label>
    <label>viewer <input type="text" id="viewer" size="10" placeholder="(principal)" aria-label="viewer"></label>
    <label>bearer token <input type="password" id="token" size="28" autocomplete="off" placeholder="none: anonymous" aria-label="bearer token"></label>
    <span class="meta" id="who"></span>
  </div>
</form>
<div class="verify"><button type="button" id="verify" disabled>Verify this trace</button>
<div id="verify-result" aria-live="polite"></div></div>
<div id="result" aria-live="polite"><p class="note">Ask a question, or pick a phrasing below.</p></div>
<aside class="side"><h2>Patterns</h2><div id="patterns"><p class="note">loading…</p></div></aside>
<noscript><p class="error">This page needs JavaScript to send the bearer token; a standalone trace
(<code>chainret trace show F --html OUT.html</code>) does not.</p></noscript>
</main></body></html>
"""


class SecurityHeaders:
    """Pure ASGI: add ``SECURITY_HEADERS`` to every response under ``/ui`` (errors included)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not (path == "/ui" or path.startswith("/ui/")):
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items() if k.lower().encode() not in have]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)


def ask_and_render(service: Service, who: Identity, body: AskIn) -> tuple[AskOut, str]:
    """``Service.ask`` and the HTML of its response, in one engine call (engine thread).

    The HTML is rendered from the response's projected trace; names and unit texts are looked up as
    its viewer sees the catalog object the request was answered from (``service.catalog`` inside an
    engine call: held until the call ends, so a store reload in between does not change or close it).
    """
    out = service.ask(who, body)
    trace = out.trace  # the projected trace itself (no second validation)
    ex = extras_for(trace, service.catalog, service.session, source=f"the served catalog ({service.world})")
    ex.suggestions = [(s.pattern, s.phrasing) for s in out.suggestions]  # buttons that fill the request box
    return out, trace_fragment(trace, ex)


def patterns_html(service: Service, principal: str) -> dict[str, str]:
    """The caller's patterns (phrasings as buttons) and the catalog's views as options, oldest first (engine thread)."""
    got = service.patterns(principal)
    groups: dict[str, list[str]] = {}  # by the relation a pattern follows first, in the catalog's order
    for p in got.patterns:
        buttons = "".join(f'<button type="button" class="phrasing" data-phrasing="{esc(ph)}">{esc(ph)}</button>' for ph in p.phrasings)
        desc = f' <span class="meta">{esc(p.description)}</span>' if p.description else ""
        groups.setdefault(p.hops[0] if p.hops else "", []).append(
            f"<li><code>{esc(p.name)}</code>: {esc(p.start_type)} → {esc(' → '.join(p.hops))}{desc}<br>{buttons}</li>")
    is_open = " open" if len(got.patterns) <= OPEN_PATTERNS else ""
    items = [f'<details class="pgroup"{is_open}><summary><code>{esc(rel)}</code> <span class="meta">{len(lis)} '
             f'pattern{"s" if len(lis) != 1 else ""}</span></summary><ul class="patterns">{"".join(lis)}</ul></details>'
             for rel, lis in groups.items()]
    search = ('<input type="search" id="pattern-filter" placeholder="filter phrasings and patterns" '
              'aria-label="filter patterns" autocomplete="off">' if not is_open else "")
    seen = {v.name: v for v in got.views}  # the caller's views, as their reduced catalog has them (reader_views)
    views = sorted((v for v in service.catalog.views if v.name in seen), key=lambda v: (getattr(v, "order", 0), v.name))
    current = next((v.name for v in got.views if v.current), None)
    options = ['<option value="">(current' + (f": {esc(current)}" if current else "") + ")</option>"]
    for v in views:
        desc = seen[v.name].description
        label = f"{v.name} (as of #{getattr(v, 'order', 0)}{', current' if v.name == current else ''})" + (f": {clip(desc, 60)}" if desc else "")
        options.append(f'<option value="{esc(v.name)}">{esc(label)}</option>')
    dated = as_of_view(views, "9999-12-31") is not None  # views named <date>-<hash> (chainret catalog history)
    return {"patterns_html": search + "".join(items), "views_html": "".join(options),
            "as_of": "dates" if dated else ""}


def router(service: Service, identity: Callable[..., Awaitable[Identity]],
           run_engine: Callable[..., Awaitable[Any]]) -> APIRouter:
    """The ``/ui`` routes over the app's own authentication dependency and engine queue."""
    r = APIRouter(include_in_schema=False)
    page = PAGE.format(world=esc(service.world), version=esc(__version__), max_chars=service.limits.request_chars)
    script = (STATIC / "app.js").read_text(encoding="utf-8")

    @r.get("/ui")
    async def ui_page() -> HTMLResponse:
        return HTMLResponse(page)

    @r.get("/ui/app.js")
    async def ui_js() -> Response:
        return Response(script, media_type="text/javascript; charset=utf-8")

    @r.get("/ui/app.css")
    async def ui_css() -> Response:
        return Response(CSS, media_type="text/css; charset=utf-8")

    @r.post("/ui/ask")
    async def ui_ask(body: AskIn, who: Identity = Depends(identity)) -> dict[str, Any]:
        out, html = await run_engine(ask_and_render, service, who, body)
        return {"response": out.model_dump(mode="json"), "html": html}

    @r.get("/ui/patterns")
    async def ui_patterns(who: Identity = Depends(identity)) -> dict[str, str]:
        result: dict[str, str] = await run_engine(patterns_html, service, who.principal)
        return result

    return r
