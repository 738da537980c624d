"""`chainret serve`'s /ui and `trace show --html` in a real headless Chromium (Debian's `chromium`, Playwright).

Servers run as child processes on 127.0.0.1 (random ports): the seed world with its contact registry
auditor-only (the restricted-second-hop overlay), and a hostile copy of the seed world whose display
names, descriptions, phrasing, document title and anchor unit carry markup, script, `javascript:`
links, bidi overrides and a very long name. Every page is watched for dialogs, page errors and CSP
violations (a hook installed before any page script); any of them fails the test.

Skips only where Chromium or the playwright package is absent, saying which; with CI=true that is a
failure instead (`.ci/run` installs Chromium, the `test` extra installs playwright).
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from chainret.pipeline.ask import ask, path_names
from chainret.catalog.load import apply_overlay, load_world
from chainret.catalog.models import Catalog, sha256_digest
from chainret.render.html import PLAIN_REASONS, extras_for, standalone_page
from chainret.server.auth import hash_token
from chainret.server.limits import DEFAULT_CEILING
from chainret.trace.model import Trace
from benchmarks.harness.local_server import LocalServer, hidden_strings

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "fixtures" / "seed"
CHROMIUM = os.environ.get("CHAINRET_CHROMIUM", "/usr/bin/chromium")
AUDITOR, PUBLIC = "ui-auditor-token-5d1e", "ui-public-token-0b7c"
REQUEST = "Which contact serves project PR-84?"
HOSTILE_NAME = '<img src=x onerror="alert(\'name\')">'
HOSTILE_DESK = "</script><script>alert('desk')</script>\u202eksed"
HOSTILE_LINE = 'Note <a href="javascript:alert(\'unit\')">here</a> <svg onload=alert("unit")> \u202eevil'
LONG_NAME = "javascript:alert('project')//" + "L" * 3000
WATCH = """
window.__events = [];
document.addEventListener('securitypolicyviolation', e => window.__events.push('csp ' + e.violatedDirective + ' ' + e.blockedURI));
window.alert = window.confirm = window.prompt = (m) => { window.__events.push('dialog ' + m); };
"""


def _need_browser() -> None:
    missing = []
    if importlib.util.find_spec("playwright") is None:
        missing.append("the playwright package (pip install -e '.[test]')")
    if not Path(CHROMIUM).exists():
        missing.append(f"Chromium at {CHROMIUM} (apt-get install chromium)")
    if missing:
        msg = "browser tests need " + " and ".join(missing)
        if os.environ.get("CI") == "true":
            pytest.fail(msg + "; CI=true, so this is a failure, not a skip", pytrace=False)
        pytest.skip(msg)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            yield b
        finally:
            b.close()


def hostile_catalog(base: Catalog) -> Catalog:
    """The seed catalog with hostile display names, descriptions, a phrasing, a title and a line in an anchor unit."""
    data = base.model_dump(mode="json")
    names = {"org:final:north": HOSTILE_NAME, "contact:final:desk": HOSTILE_DESK, "project:final:main": LONG_NAME}
    for e in data["entities"]:
        e["name"] = names.get(e["id"], e["name"])
        if e["id"] == "org:final:north":
            e["description"] = "<iframe src=javascript:alert('desc')>"
    for p in data["patterns"]:
        p["description"] = "<svg onload=alert('pattern')>"
        p["phrasings"].append("<b onclick=alert('phrasing')>which contact serves {project}</b>")
    for v in data["views"]:
        v["description"] = "</option><script>alert('view')</script>"
    doc = next(d for d in data["documents"] if d["document"] == "contacts.md" and d["version"] == "v1")
    at = doc["text"].index("REL org:final:north | contact | contact:final:desk")  # inside the anchor unit u3
    insert = HOSTILE_LINE + "\n"
    doc["text"] = doc["text"][:at] + insert + doc["text"][at:]
    doc["digest"] = sha256_digest(doc["text"])
    doc["title"] = "<script>alert('title')</script>"
    for r in data["relations"]:
        s = r["support"]
        if (s["source"], s["document"], s["version"]) == (doc["source"], doc["document"], doc["version"]):
            s["digest"] = doc["digest"]
            if s["span"][0] >= at:
                s["span"] = [s["span"][0] + len(insert), s["span"][1] + len(insert)]
    return Catalog.model_validate(data)


DATED = {"final": "2024-01-05-1a2b3c4", "revised": "2024-06-01-5d6e7f8"}


def dated_catalog(base: Catalog) -> Catalog:
    """The seed catalog with its views named as `chainret catalog history` names them (<commit date>-<hash>)."""
    data = base.model_dump(mode="json")
    for v in data["views"]:
        v["name"] = DATED[v["name"]]
    return Catalog.model_validate(data)


def backstage_catalog(out: Path) -> Catalog:
    """The Backstage example's records imported as `catalog import --format backstage --format codeowners` does."""
    from chainret.sources.records import import_snapshot, read_snapshot

    snap = read_snapshot(ROOT / "examples" / "backstage" / "records", ["backstage", "codeowners"], "acme")
    return import_snapshot(snap, out / "catalog.json", world="acme").catalog


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[LocalServer, Catalog]]]:
    _need_browser()
    tmp = tmp_path_factory.mktemp("ui")
    tokens = tmp / "tokens.json"
    tokens.write_text(json.dumps({"format": "chainret-tokens/1", "tokens": [
        {"name": "audit", "sha256": hash_token(AUDITOR), "principal": "auditor", "viewers": ["public"]},
        {"name": "pub", "sha256": hash_token(PUBLIC), "principal": "public"},
    ]}), encoding="utf-8")
    world = load_world(SEED)
    case = next(c for c in world.cases if c.id == "restricted-second-hop")
    cats = {"seed": apply_overlay(world.catalog, case.overlay, label=case.id), "hostile": hostile_catalog(world.catalog),
            "dated": dated_catalog(world.catalog), "backstage": backstage_catalog(tmp / "backstage")}
    started = {}
    for key, cat in cats.items():
        path = tmp / f"{key}.json"
        path.write_text(json.dumps(cat.model_dump(mode="json")), encoding="utf-8")
        started[key] = (LocalServer(["--catalog", str(path), "--tokens", str(tokens), "--rate", "0"], log=tmp / f"{key}.log").start(), cat)
    try:
        for srv, _ in started.values():
            srv.wait()
        yield started
    finally:
        for srv, _ in started.values():
            srv.stop()


class UI:
    """One browser context on /ui, recording every response body and page event."""

    def __init__(self, browser: Any, url: str, token: str | None, *, bypass_csp: bool = False) -> None:
        self.ctx = browser.new_context(bypass_csp=bypass_csp)
        self.page = self.ctx.new_page()
        self.responses: list[Any] = []
        self.errors: list[str] = []
        self.page.add_init_script(WATCH)
        self.page.on("dialog", lambda d: (self.errors.append(f"dialog {d.message}"), d.dismiss()))
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror {e}"))
        self.page.on("console", lambda m: self.errors.append(f"console {m.text}") if m.type == "error" else None)
        self.page.on("response", lambda r: self.responses.append(r))
        self.page.goto(url + "/ui")
        self.page.wait_for_function("() => document.getElementById('patterns').dataset.loads === '1'")
        if token is not None:  # the patterns are loaded again, for the token's principal
            self.page.fill("#token", token)
            self.page.eval_on_selector("#token", "t => t.blur()")  # leaving the box fires its change, as a user's does
            self.page.wait_for_function("() => document.getElementById('patterns').dataset.loads === '2'")

    def ask(self, request: str, view: str | None = None, viewer: str = "") -> dict[str, Any]:
        p = self.page
        p.fill("#request", request)
        p.fill("#viewer", viewer)
        if view is not None:
            p.select_option("#view", view)
        with p.expect_response("**/ui/ask") as got:
            p.click("#ask")
        p.wait_for_function("() => document.querySelector('#result .trace, #result .error') !== null")
        data: dict[str, Any] = got.value.json()
        return data

    def verify(self) -> tuple[str, str]:
        p = self.page
        with p.expect_response("**/trace/verify"):
            p.click("#verify")
        p.wait_for_selector("#verify-status, #verify-result .error")
        status = p.get_attribute("#verify-status", "data-status") or ""
        first = p.inner_text("#verify-first") if p.query_selector("#verify-first") else ""
        return status, first

    def events(self) -> list[str]:
        return self.errors + list(self.page.evaluate("window.__events"))

    def bodies(self) -> list[str]:
        out = []
        for r in self.responses:
            try:
                out.append(r.body().decode("utf-8", "replace"))
            except Exception:  # noqa: BLE001 - a redirect or aborted response has no body
                continue
        return out

    def close(self) -> None:
        self.ctx.close()


def _stable(trace: dict[str, Any]) -> dict[str, Any]:
    return {**trace, "meta": {k: v for k, v in trace["meta"].items() if k != "ask_ms"}}


def _api_ask(url: str, token: str | None, body: dict[str, Any]) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = httpx.post(url + "/ask", json=body, headers=headers, timeout=30)
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


@pytest.mark.parametrize("who", ["auditor", "public", "anonymous", "auditor-as-public"])
def test_ui_answers_as_the_token_and_shows_only_what_the_projection_allows(browser: Any, servers: Any, who: str) -> None:
    srv, cat = servers["seed"]
    token = {"auditor": AUDITOR, "public": PUBLIC, "anonymous": None, "auditor-as-public": AUDITOR}[who]
    viewer = "public" if who == "auditor-as-public" else ""
    principal = "auditor" if who.startswith("auditor") else "public"
    seen_as = "public" if viewer else principal
    ui = UI(browser, srv.url, token)
    try:
        got = ui.ask(REQUEST, view="final", viewer=viewer)
        # the page renders exactly the projected trace the HTTP API returns for this token
        api = _api_ask(srv.url, token, {"request": REQUEST, "view": "final", **({"viewer": viewer} if viewer else {})})
        assert _stable(got["response"]["trace"]) == _stable(api["trace"])
        assert got["response"]["principal"] == principal and got["response"]["viewer"] == seen_as
        lib = ask(REQUEST, cat, view="final", principal=principal, viewer=seen_as, ceiling=DEFAULT_CEILING)  # the server's
        assert _stable(api["trace"]) == _stable(lib.model_dump(mode="json"))
        page = ui.page
        answer = page.inner_text("#answer")
        marks = page.eval_on_selector_all("mark.quote", "els => els.map(e => e.textContent)")
        assert marks == [h.anchor.quote for h in lib.hops if h.anchor is not None]
        if seen_as == "auditor":
            assert lib.outcome == "accepted_path" and lib.path_ids is not None
            names = path_names(lib, cat)
            assert names[lib.path_ids[-1]] in answer and lib.path_ids[-1] in answer
            # the unit around the quote is shown, with the quote marked inside it
            assert page.eval_on_selector("mark.quote", "m => m.parentElement.tagName") == "PRE"
            assert "takes enquiries for the northern office" in page.inner_text("section.hop[data-hop='2'] pre.unit")
        else:
            assert lib.outcome == "partial_evidence" and lib.reason is not None
            assert page.inner_text("#reason") == lib.reason.message
            assert PLAIN_REASONS[str(lib.reason.code)] in page.inner_text("#reason-code")
            assert "stopped at hop 2" in page.inner_text("#stopped-at")
            assert page.query_selector("#withheld") is None and page.query_selector(".node.stop") is not None
            dom = page.content()
            for secret in hidden_strings(cat, "public"):
                assert secret not in dom, f"the public page shows {secret[:60]!r}"
        status, first = ui.verify()
        assert status == "verified" and first == ""
        if seen_as == "public":
            for body in ui.bodies():
                for secret in hidden_strings(cat, "public"):
                    assert secret not in body, f"a response to the public page carries {secret[:60]!r}"
        assert ui.events() == []
    finally:
        ui.close()


def test_ui_views_patterns_and_a_tampered_trace(browser: Any, servers: Any) -> None:
    srv, cat = servers["seed"]
    ui = UI(browser, srv.url, AUDITOR)
    try:
        page = ui.page
        options = page.eval_on_selector_all("#view option", "os => os.map(o => [o.value, o.textContent])")
        assert [v for v, _ in options] == ["", "final", "revised"] and "as of" in options[1][1]
        phrasings = page.eval_on_selector_all("button.phrasing", "bs => bs.map(b => b.dataset.phrasing)")
        assert phrasings == [ph for p in cat.patterns for ph in p.phrasings]
        page.click("button.phrasing >> nth=1")
        assert page.input_value("#request") == phrasings[1]
        assert page.evaluate("[document.activeElement.selectionStart, document.activeElement.selectionEnd]") == [
            phrasings[1].index("{"), phrasings[1].index("}") + 1]
        got = ui.ask(REQUEST, view="revised")
        assert got["response"]["answer"] == {"id": "contact:final:field", "name": "Rowan field office"}
        assert "Rowan field office" in page.inner_text("#answer")
        # A trace whose quote was changed on the way: verify names the first differing field.
        def tamper(route: Any) -> None:
            resp = route.fetch()
            data = resp.json()
            data["response"]["trace"]["hops"][0]["anchor"]["quote"] += " (edited)"
            route.fulfill(response=resp, json=data)

        page.route("**/ui/ask", tamper)
        ui.ask(REQUEST, view="revised")
        status, first = ui.verify()
        assert status == "mismatch" and "hops[0].anchor.quote" in first
        page.unroute("**/ui/ask")
        refused = ui.ask("Which contact serves project PR-99?")
        assert refused["response"]["outcome"] == "refused"
        assert page.inner_text("#reason") == refused["response"]["trace"]["reason"]["message"]
        assert PLAIN_REASONS["unknown_entity"] in page.inner_text("#reason-code")
        assert "before its first search" in page.inner_text("#stopped-at")
        # A request that matches no phrasing: the closest ones as buttons that fill the request box.
        missed = ui.ask("who do I blame for PR-84")  # (no frame: "who do I ring about" now reads as the contact)
        closest = [s["phrasing"] for s in missed["response"]["suggestions"]]
        assert missed["response"]["outcome"] == "no_pattern" and len(closest) == 3
        assert page.eval_on_selector_all("#suggestions button.phrasing", "bs => bs.map(b => b.dataset.phrasing)") == closest
        page.click("#suggestions button.phrasing >> nth=0")
        assert page.input_value("#request") == closest[0]
        assert ui.events() == []
    finally:
        ui.close()


def test_a_phrasing_clicked_as_the_token_box_is_left_still_fills_the_request(browser: Any, servers: Any) -> None:
    """Leaving the token box (the mousedown of a click on a phrasing) fires its change, which reloads the patterns.
    Where that reload lands between the mousedown and the mouseup, a rebuilt list would put a new button under the
    mouseup and the browser would fire no click. The same patterns leave the DOM alone, so the click fills the box."""
    srv, _ = servers["seed"]
    ui = UI(browser, srv.url, AUDITOR)
    try:
        page = ui.page
        first = page.query_selector("button.phrasing >> nth=1")
        assert first is not None
        page.fill("#token", AUDITOR + " ")  # the same principal, typed again: the box's value changed
        box = page.locator("button.phrasing").nth(1).bounding_box()
        assert box is not None
        want = page.locator("button.phrasing").nth(1).get_attribute("data-phrasing")
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()  # the token box loses focus here: its change reloads the patterns
        page.wait_for_function("() => document.getElementById('patterns').dataset.loads === '3'")
        page.mouse.up()
        assert page.input_value("#request") == want
        assert first.evaluate("b => b.isConnected")  # the button shown before the reload is the one still shown
        assert ui.events() == []
    finally:
        ui.close()



@pytest.mark.parametrize("bypass_csp", [False, True], ids=["csp", "escaping-alone"])
def test_hostile_catalog_values_never_execute(browser: Any, servers: Any, bypass_csp: bool) -> None:
    """With the CSP on, and with it bypassed (escaping alone must hold), nothing hostile runs or becomes markup."""
    srv, cat = servers["hostile"]
    ui = UI(browser, srv.url, AUDITOR, bypass_csp=bypass_csp)
    try:
        page = ui.page
        got = ui.ask(REQUEST, view="final")
        assert got["response"]["outcome"] == "accepted_path"
        answer = page.inner_text("#answer")
        assert "</script><script>alert('desk')</script>" in answer and "\\u202e" in answer and "\u202e" not in answer
        assert HOSTILE_NAME in answer
        unit = page.inner_text("section.hop[data-hop='2'] pre.unit")
        assert HOSTILE_LINE.replace("\u202e", "\\u202e") in unit
        assert page.eval_on_selector_all("mark.quote", "els => els.map(e => e.textContent)")[1] == \
            "REL org:final:north | contact | contact:final:desk"
        page.click("button.phrasing >> text=onclick")  # the hostile phrasing is a button's text, not markup
        assert page.input_value("#request").startswith("<b onclick=")
        ui.ask(page.input_value("#request").replace("{project}", '<img src=x onerror="alert(9)">'))
        ui.ask("Which contact serves project " + "PR-" + "9" * 900)  # a very long slot text: refused, shown, no crash
        assert "refused" in page.inner_text("#answer").lower() or page.query_selector("#reason") is not None
        counts = page.evaluate("""() => ({
            img: document.querySelectorAll('img, iframe, object, embed').length,
            scripts: Array.from(document.scripts).map(s => s.getAttribute('src')),
            handlers: Array.from(document.querySelectorAll('*')).filter(e => Array.from(e.attributes).some(a => a.name.startsWith('on'))).length,
            links: Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href')),
        })""")
        assert counts == {"img": 0, "scripts": ["/ui/app.js"], "handlers": 0, "links": ["/docs"]}
        # a 3000-character name wraps: the page never grows sideways (only the graph scrolls, in its box)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        assert ui.events() == []
    finally:
        ui.close()


def test_csp_blocks_what_escaping_would_miss(browser: Any, servers: Any) -> None:
    """The CSP forbids inline handlers and remote loads: markup injected into the page still cannot run."""
    srv, _ = servers["seed"]
    r = httpx.get(srv.url + "/ui")
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "default-src 'none'" in csp
    assert "frame-ancestors 'none'" in csp and r.headers["x-content-type-options"] == "nosniff"
    ui = UI(browser, srv.url, None)
    try:
        page = ui.page
        page.evaluate("""() => { const d = document.createElement('div');
            d.innerHTML = '<img src="https://example.invalid/x.png" onerror="window.__ran = 1">';
            document.body.appendChild(d); }""")
        page.wait_for_function("() => window.__events.length >= 1")
        assert page.evaluate("window.__ran") is None
        assert any("script-src" in e or "img-src" in e for e in page.evaluate("window.__events"))
    finally:
        ui.close()


@pytest.mark.slow  # ~9 s: every golden trace in the browser
def test_every_golden_trace_opens_offline_without_javascript(browser: Any, tmp_path: Path) -> None:
    """`trace show --html` of every golden trace, opened from disk with JavaScript off and the network cut."""
    from typer.testing import CliRunner

    from chainret.cli import app

    golden = sorted((ROOT / "traces").glob("*/*.json"))
    assert len(golden) >= 30
    ctx = browser.new_context(java_script_enabled=False, offline=True)
    try:
        page = ctx.new_page()
        requests: list[str] = []
        page.on("request", lambda q: requests.append(q.url))
        for src in golden:
            out = tmp_path / f"{src.parent.name}-{src.stem}.html"
            r = CliRunner().invoke(app, ["trace", "show", str(src), "--html", str(out)])
            assert r.exit_code == 0, r.output
            trace = Trace.model_validate_json(src.read_text(encoding="utf-8"))
            requests.clear()
            page.goto(out.as_uri())
            assert requests == [out.as_uri()], src  # the file itself and nothing else
            marks = page.locator("mark.quote")
            assert marks.all_inner_texts() == [h.anchor.quote for h in trace.hops if h.anchor is not None], src
            if marks.count():  # the inline style applies (its CSP hash matches): the quote is highlighted
                assert marks.first.evaluate("m => getComputedStyle(m).backgroundColor") == "rgb(255, 226, 122)"
            assert page.locator(".graph svg g.node").count() >= 1
            if trace.outcome == "accepted_path":
                assert trace.path_ids is not None and trace.path_ids[-1] in page.inner_text("#answer")
            else:
                assert page.inner_text("#reason"), src
    finally:
        ctx.close()


def test_hostile_standalone_page_never_executes(browser: Any, tmp_path: Path) -> None:
    from test_render_html import _hostile_trace

    trace = _hostile_trace()
    out = tmp_path / "hostile.html"
    out.write_text(standalone_page(trace), encoding="utf-8")
    errors: list[str] = []
    for bypass in (False, True):
        ctx = browser.new_context(bypass_csp=bypass)
        try:
            page = ctx.new_page()
            page.add_init_script(WATCH)
            page.on("dialog", lambda d: (errors.append(d.message), d.dismiss()))
            page.goto(out.as_uri())
            assert page.evaluate("document.querySelectorAll('script, img, iframe, a').length") == 0
            assert errors == [] and page.evaluate("window.__events") == []
            assert "</script><script>alert(2)</script>" in page.inner_text("body")
        finally:
            ctx.close()


def test_extras_never_name_what_the_viewer_may_not_read(servers: Any) -> None:
    """The page's names and unit texts come from the viewer's view of the catalog (no browser needed, same fixture)."""
    _, cat = servers["seed"]
    auditor = ask(REQUEST, cat, view="final", principal="auditor", viewer="auditor")
    as_public = auditor.model_copy(update={"meta": {**auditor.meta, "viewer": "public"}})
    ex = extras_for(as_public, cat)
    assert "registry/contacts.md@v1#u3" not in ex.units  # restricted to auditor: no text for a public reader
    assert "registry/contacts.md@v1#u3" in extras_for(auditor, cat).units


def test_ui_asks_as_of_a_date_where_the_views_are_dated(browser: Any, servers: Any) -> None:
    srv, _ = servers["dated"]
    ui = UI(browser, srv.url, None)
    try:
        page = ui.page
        assert page.is_visible("#asof")
        for date, answer in (("2024-03-01", "contact:final:desk"), ("2024-07-01", "contact:final:field")):
            page.fill("#asof", date)
            got = ui.ask(REQUEST)
            assert got["response"]["view"] in DATED.values() and got["response"]["answer"]["id"] == answer
            assert answer in page.inner_text("#answer")
        page.fill("#asof", "2023-01-01")  # before every view: refused with the server's message
        ui.ask(REQUEST)
        assert page.query_selector("#result .error") is not None
        assert ui.events() == [] or all("400" in e for e in ui.events())
    finally:
        ui.close()
    seed = UI(browser, servers["seed"][0].url, None)
    try:
        assert not seed.page.is_visible("#asof")  # undated views: no date box
    finally:
        seed.close()


@contextmanager
def _opened(browser: Any, url: str, token: str | None) -> Iterator[UI]:
    """A ``UI`` that must see no dialog, page error or CSP violation; closed afterwards."""
    ui = UI(browser, url, token)
    try:
        yield ui
        assert ui.events() == []
    finally:
        ui.close()


def _luminance(rgb: str) -> float:
    """WCAG relative luminance of a computed ``rgb(r, g, b)`` colour."""
    chans = [int(v) / 255 for v in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3]]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in chans]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(fg: str, bg: str) -> float:
    hi, lo = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_header_api_link_is_readable_on_the_navy_bar(browser: Any, servers: Any) -> None:
    with _opened(browser, servers["seed"][0].url, None) as ui:
        page = ui.page
        # the API link: its computed colour against the header's background, WCAG AA for normal text (4.5:1)
        fg = page.eval_on_selector("header.bar a.api", "a => getComputedStyle(a).color")
        bg = page.eval_on_selector("header.bar", "h => getComputedStyle(h).backgroundColor")
        assert _contrast(fg, bg) >= 4.5, (fg, bg)
        assert _contrast(page.eval_on_selector("header.bar span", "s => getComputedStyle(s).color"), bg) >= 4.5  # control
        assert _contrast("rgb(0, 0, 238)", bg) < 4.5  # the browser's default link blue would fail: the check can fail


def test_a_refusal_leads_with_its_plain_sentence(browser: Any, servers: Any) -> None:
    with _opened(browser, servers["seed"][0].url, None) as ui:
        page = ui.page
        got = ui.ask("Which contact serves project PR-99?")
        message = got["response"]["trace"]["reason"]["message"]
        assert got["response"]["outcome"] == "refused" and "'PR-99' is not a known project" in message
        # the headline (large, red) is the refusal's own sentence; the code's generic words are the small print below
        assert page.inner_text("#reason") == message
        assert PLAIN_REASONS["unknown_entity"] not in page.inner_text("#reason")
        assert PLAIN_REASONS["unknown_entity"] in page.inner_text("#reason-code")
        size = "e => parseFloat(getComputedStyle(e).fontSize)"
        assert page.eval_on_selector("#reason", size) > page.eval_on_selector("#reason-code", size)
        assert page.eval_on_selector("#reason", "e => e.compareDocumentPosition(document.getElementById('reason-code'))") & 4


def test_graph_nodes_show_the_name_and_the_whole_id_inside_the_box(browser: Any, servers: Any) -> None:
    srv, cat = servers["backstage"]
    with _opened(browser, srv.url, None) as ui:
        page = ui.page
        got = ui.ask("who is on the team that owns the system that artist-lookup belongs to")
        assert got["response"]["outcome"] == "accepted_path"
        names = {e.id: e.name for e in cat.entities}
        nodes = page.eval_on_selector_all("svg g.node[data-id]", """gs => gs.map(g => {
            const r = g.querySelector('rect').getBBox();
            const texts = Array.from(g.querySelectorAll('text'));
            return {id: g.dataset.id, title: g.querySelector('title').textContent,
                    name: (g.querySelector('text.name') || {}).textContent || '',
                    nid: Array.from(g.querySelectorAll('text.nid')).map(t => t.textContent).join(''),
                    inside: texts.every(t => { const b = t.getBBox(); return b.x >= r.x && b.x + b.width <= r.x + r.width
                                                                        && b.y >= r.y && b.y + b.height <= r.y + r.height; })};
        })""")
        assert set(got["response"]["trace"]["path_ids"]) <= {n["id"] for n in nodes}
        assert any(len(n["id"]) > 30 for n in nodes)  # IDs that one line of the box would cut
        for n in nodes:
            assert n["nid"] == n["id"], n  # the whole ID, wrapped onto lines in the box
            assert n["name"] == names[n["id"]] and n["id"] in n["title"] and names[n["id"]] in n["title"]
            assert n["inside"], n  # every line fits inside its box


def test_many_patterns_are_grouped_collapsed_and_filtered(browser: Any, servers: Any) -> None:
    srv, cat = servers["backstage"]
    with _opened(browser, srv.url, None) as ui:
        page = ui.page
        assert len(cat.patterns) > 40
        # the whole page fits a few screens (3,145 px with every phrasing listed, at this 1280x720 viewport)
        height = page.evaluate("document.documentElement.scrollHeight")
        assert height < 1600, height
        first = list(dict.fromkeys(p.hops[0] for p in cat.patterns))
        groups = page.eval_on_selector_all("details.pgroup", "ds => ds.map(d => [d.querySelector('summary code').textContent, d.open])")
        assert groups == [[rel, False] for rel in first]
        word = "depend"
        expected = [p.name for p in cat.patterns
                    if word in " ".join([p.name, p.start_type, *p.hops, p.description, *p.phrasings]).lower()]
        assert 0 < len(expected) < len(cat.patterns)
        page.fill("#pattern-filter", word)
        shown = page.eval_on_selector_all("details.pgroup li", "ls => ls.filter(l => l.offsetParent !== null).map(l => l.querySelector('code').textContent)")
        assert shown == expected
        button = "details.pgroup li:visible button.phrasing >> nth=0"  # a phrasing of an opened group fills the box
        phrasing = page.get_attribute(button, "data-phrasing")
        page.click(button)
        assert phrasing in cat.patterns[[p.name for p in cat.patterns].index(expected[0])].phrasings
        assert page.input_value("#request") == phrasing
        page.fill("#pattern-filter", "")  # cleared: every pattern back, every group closed again
        assert page.eval_on_selector_all("details.pgroup", "ds => ds.filter(d => d.open || d.hidden).length") == 0
        assert page.eval_on_selector_all("details.pgroup li", "ls => ls.filter(l => l.hidden).length") == 0


def test_ui_shows_every_member_of_a_set_and_whether_that_is_all(browser: Any, tmp_path: Path) -> None:
    """A many-valued hop: the answer box lists each member (a hostile name as text) and the completeness line;
    a budget-cut set says "1 of 2" and the flag that reaches the rest, never one member as the answer."""
    from records_world import HOSTILE_MEMBER, MEMBERS, SET_REQUEST, set_world

    srv = LocalServer(["--catalog", str(set_world(tmp_path)), "--rate", "0"], log=tmp_path / "set.log").start()
    ui = None
    try:
        srv.wait()
        ui = UI(browser, srv.url, None)
        page = ui.page
        got = ui.ask(SET_REQUEST)
        assert [a["id"] for a in got["response"]["answers"]] == list(MEMBERS)
        items = page.eval_on_selector_all("#answers li", "ls => ls.map(l => [l.dataset.id, l.querySelector('.big').innerText])")
        assert [i for i, _ in items] == list(MEMBERS)
        assert "Breanna Davison" in items[0][1] and "Janelle</b>\\u202eDawe" in items[1][1]  # text, escaped, not markup
        assert page.query_selector("#answers b") is None and HOSTILE_MEMBER not in page.inner_text("#answer")
        assert page.is_visible("#answers li >> nth=1") and page.inner_text("#completeness") == "complete: all 2"
        # The same request under a budget the page has no box for: POST /ui/ask as app.js does, its HTML shown as app.js shows it.
        part = page.evaluate(
            "async (q) => { const r = await fetch('/ui/ask', {method: 'POST', headers: {'Content-Type': 'application/json'},"
            " body: JSON.stringify({request: q, budget: {rows_per_hop: 1}})}); const d = await r.json();"
            " document.getElementById('result').innerHTML = d.html; return d.response; }", SET_REQUEST)
        assert [a["id"] for a in part["answers"]] == [next(iter(MEMBERS))]
        assert page.eval_on_selector_all("#answers li", "ls => ls.length") == 1
        line = page.inner_text("#completeness")
        assert line.startswith("not complete: 1 of 2 shown") and line.endswith("--rows-per-hop would reach the rest")
        assert "part of the set" in page.inner_text("#answer .outcome").lower()
        assert ui.events() == []
    finally:
        if ui is not None:
            ui.close()
        srv.stop()
