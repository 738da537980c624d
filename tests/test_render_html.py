"""chainret.render.html without a browser: every golden trace as a standalone page, and hostile values.

The page is parsed with html.parser: which elements and attributes it holds, what text each
``<mark class="quote">`` marks. The browser tests (test_ui_browser.py) open the same pages in Chromium.
"""

from __future__ import annotations

import html as html_mod
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from chainret.render.html import CSS, Extras, UnitText, catalog_for_trace, extras_for, standalone_page, style_hash, trace_fragment
from chainret.trace.model import Trace, read_trace

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = sorted((ROOT / "traces").glob("*/*.json"))
HOSTILE = ['<img src=x onerror="alert(1)">', "</script><script>alert(2)</script>", "javascript:alert(3)",
           "\u202eevil\u202c", "\" onmouseover=\"alert(4)", "'><svg onload=alert(5)>"]
ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "span", "main", "div",
                "strong", "code", "dl", "dt", "dd", "svg", "defs", "marker", "path", "g", "rect", "text", "line",
                "section", "pre", "mark", "table", "thead", "tbody", "tr", "th", "td", "ul", "li", "p"}


class Page(HTMLParser):
    """Elements, attributes, marked text and text of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.marks: list[str] = []
        self.text: list[str] = []
        self._in_mark = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "mark":
            self._in_mark += 1
            self.marks.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "mark":
            self._in_mark -= 1

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._in_mark:
            self.marks[-1] += data


def parse(html: str) -> Page:
    p = Page()
    p.feed(html)
    p.close()
    return p


def _golden_page(path: Path) -> tuple[Trace, str]:
    trace = read_trace(path)
    found = catalog_for_trace(trace, path)
    assert found is not None, f"{path}: the catalog it names is not found"
    return trace, standalone_page(trace, extras_for(trace, found[0], source=found[1]))


@pytest.mark.parametrize("path", GOLDEN, ids=[f"{p.parent.name}/{p.stem}" for p in GOLDEN])
def test_every_golden_trace_renders_offline_with_its_quotes_marked(path: Path) -> None:
    trace, html = _golden_page(path)
    page = parse(html)
    tags = {t for t, _ in page.tags}
    assert tags <= ALLOWED_TAGS and "script" not in tags and "link" not in tags and "img" not in tags
    for _, attrs in page.tags:  # nothing loads from anywhere: no src/href, no url() but the SVG's own markers
        assert not {"src", "href", "action"} & set(attrs)
        assert not any(k.startswith("on") for k in attrs)
    csp = next(a["content"] for t, a in page.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    assert csp is not None and "default-src 'none'" in csp and style_hash() in csp and "script-src" not in csp
    style = re.search(r"<style>(.*?)</style>", html, re.S)
    assert style is not None and style.group(1) == CSS  # the hash in the CSP is of exactly this style
    assert "url(" not in CSS and "@import" not in CSS
    quotes = [h.anchor.quote for h in trace.hops if h.anchor is not None]
    assert page.marks == quotes, "each anchor's quote, and nothing else, is marked, in hop order"
    text = "".join(page.text)
    if trace.outcome == "accepted_path":
        assert trace.path_ids is not None and trace.path_ids[-1] in text
    else:
        assert trace.reason is not None and trace.reason.message in text
    for h in trace.hops:
        if h.anchor is not None:
            assert h.anchor.digest in text and h.anchor.unit_ref in text
        for hit in h.hits:
            assert hit.ref in text


def test_quote_is_marked_inside_its_unit_at_its_span() -> None:
    path = ROOT / "traces" / "final" / "main-serves.json"
    trace, html = _golden_page(path)
    a = trace.hops[0].anchor
    assert a is not None
    ex = extras_for(trace, catalog_for_trace(trace, path)[0])  # type: ignore[index]
    unit = ex.units[a.unit_ref]
    before = unit.text[: a.span[0] - unit.start]
    frag = parse(trace_fragment(trace, ex))
    joined = "".join(frag.text)
    assert before.split("\n")[0] in joined and a.quote in frag.marks
    # a unit whose text at the span is not the quote is flagged, never marked at the wrong place
    bad = Extras(units={a.unit_ref: UnitText(a.unit_ref, unit.start, unit.end, unit.text.replace("REL", "XEL"))})
    out = trace_fragment(trace, bad)
    assert "the quote is not at span" in out


def _hostile_trace() -> Trace:
    """main-serves with every string in it (request, IDs, quote, refs, messages, meta) made hostile."""
    data = json.loads((ROOT / "traces" / "final" / "restricted-second-hop.json").read_text(encoding="utf-8"))
    n = 0

    def walk(v: Any) -> Any:
        nonlocal n
        if isinstance(v, str):
            n += 1
            return v + HOSTILE[n % len(HOSTILE)] + ("x" * 5000 if n % 7 == 0 else "")
        if isinstance(v, dict):
            return {k: (walk(x) if k not in ("outcome", "kind", "support_kind", "code", "cost_unit") else x) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x) for x in v]
        return v

    return Trace.model_validate(walk(data))


def test_hostile_values_are_text_never_markup() -> None:
    trace = _hostile_trace()
    names = {i: HOSTILE[0] + "name" for i in [trace.interpretation.start_id, *(h.bridge for h in trace.hops if h.bridge)]}  # type: ignore[union-attr]
    html = standalone_page(trace, Extras(names=names, source="<b>catalog</b>"))
    page = parse(html)
    assert {t for t, _ in page.tags} <= ALLOWED_TAGS
    for _, attrs in page.tags:
        assert not any(k.startswith("on") for k in attrs), attrs
        assert not {"src", "href", "style", "action", "formaction"} & set(attrs)
        assert all("javascript:" not in (v or "") or k in ("data-id", "title", "data-branch") for k, v in attrs.items())
    assert "\u202e" not in html and "\\u202e" in html  # a bidi override is shown, not obeyed
    text = "".join(page.text)
    assert '<img src=x onerror="alert(1)">' in text and "</script><script>alert(2)</script>" in text
    assert "<b>catalog</b>" in text
    svg = re.search(r"<svg.*?</svg>", html, re.S)
    assert svg is not None
    labels = [html_mod.unescape(t) for t in re.findall(r"<text[^>]*>(?:<title>.*?</title>)?([^<]*)</text>", svg.group(0))]
    assert labels and max(map(len, labels)) <= 120  # long IDs are clipped in the graph (full in <title>)


def test_unprojected_withheld_details_say_so() -> None:
    path = ROOT / "traces" / "final" / "restricted-second-hop.json"
    trace, html = _golden_page(path)
    assert trace.meta.get("projected") is False and "withheld" in json.dumps(trace.reason.details)  # type: ignore[union-attr]
    assert "an unprojected trace" in html
    projected = trace.model_copy(update={"meta": {**trace.meta, "projected": True}})
    assert "shown because this viewer may read them" in trace_fragment(projected)


def test_trace_show_html_cli(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from chainret.cli import app

    out = tmp_path / "t.html"
    r = CliRunner().invoke(app, ["trace", "show", str(ROOT / "traces" / "supply" / "backtrack.json"), "--html", str(out)])
    assert r.exit_code == 0, r.output
    page = parse(out.read_text(encoding="utf-8"))
    assert len(page.marks) == 3 and "Kestrel Test Lab" in "".join(page.text)  # three of its four hops have an anchor
    r = CliRunner().invoke(app, ["trace", "show", str(ROOT / "traces" / "supply" / "backtrack.json"), "--html", str(tmp_path)])
    assert r.exit_code != 0  # a directory is never replaced


def test_standalone_page_says_it_is_not_verified(tmp_path: Path) -> None:
    """``trace show --html`` renders a trace file as written, whatever viewer it claims: the page says so.

    The claimed viewer is shown escaped; only a passed verification of the trace removes the notice
    (negative controls: a verified result has no notice, a mismatch keeps it; the /ui fragment, built
    from the server's own answer, carries none).
    """
    from typer.testing import CliRunner

    from chainret.cli import app
    from chainret.verify.replay import Difference, Verification

    src = ROOT / "traces" / "supply" / "backtrack.json"
    data = json.loads(src.read_text(encoding="utf-8"))
    data["meta"] = {**data["meta"], "viewer": '<b onmouseover="x()">admin</b>', "projected": True}
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "t.html"
    r = CliRunner().invoke(app, ["trace", "show", str(forged), "--html", str(out)])
    assert r.exit_code == 0, r.output
    html = out.read_text(encoding="utf-8")
    page = parse(html)
    text = " ".join("".join(page.text).split())
    assert "not verified: this page shows the trace as written" in text and "run chainret trace verify" in text
    assert '<b onmouseover="x()">admin</b>' in text and '<b onmouseover' not in html  # the claimed viewer is text
    assert html.index('id="verification"') < html.index('class="trace"')  # before the answer
    trace = Trace.model_validate(data)
    assert 'class="unverified"' not in standalone_page(trace, verification=Verification(status="verified", catalog_changed=False, differences=[]))
    mismatch = standalone_page(trace, verification=Verification(
        status="mismatch", catalog_changed=False, differences=[Difference(kind="replay", field="meta.viewer", message="<i>forged</i>")]))
    assert 'class="unverified"' in mismatch and "not verified" in mismatch and "<i>forged" not in mismatch
    assert "not verified" not in trace_fragment(trace)
