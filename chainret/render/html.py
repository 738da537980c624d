"""A trace as HTML: the answer, the path as an inline SVG graph, and every hop's evidence.

One renderer for both places a person looks at a trace in a browser:

* ``chainret serve``'s ``/ui`` (``chainret.server.ui``) renders the projected trace that ``/ask``
  returns, as a fragment (``trace_fragment``);
* ``chainret trace show F --html OUT.html`` writes ``standalone_page``: one file with its style
  inline (allowed by a CSP hash), no script, no network, so it opens anywhere, offline. It is the
  trace as written, not checked, and leads with a notice that says so (``unverified_notice``).

Data is never interpreted: every value from a catalog, a request or a trace goes through ``esc``
(``html.escape`` after ``chainret.core.textsafe.visible``, so bidi overrides and control characters are
shown as escapes, not obeyed) and is only ever placed in element text or in quoted attributes that
carry no behaviour (``class``/``data-*``/``title``). Nothing from data becomes a URL, a style or
markup. Long values wrap (CSS) and are clipped only inside the graph, where the full value is the
node's ``<title>``; a node shows its entity's display name and, below it, the whole ID wrapped onto
lines that fit the box (``_id_lines``; only an ID past four lines is clipped). A refusal leads with
its own sentence (``Refusal.message``: "'PR-99' is not a known project ..."), the code's generic
wording (``PLAIN_REASONS``) below it.

``Extras`` is what the trace itself does not carry: entity display names and the text of each
anchor's unit, looked up (``extras_for``) as the trace's viewer sees the catalog, so nothing is
shown that the viewer may not read. Without a catalog the page shows IDs and the quote alone.
"""

from __future__ import annotations

import base64
import hashlib
import html
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chainret.core.codes import HOP_FAILURES, INTERPRETATION_REFUSALS
from chainret.core.textsafe import visible
from chainret.render.answers import check_words, completeness_words, count_words, is_empty_set, is_set
from chainret.trace.model import Hop, Refusal, Trace

if TYPE_CHECKING:
    from chainret.catalog.models import Catalog
    from chainret.core.session import Session
    from chainret.store.base import CatalogReader
    from chainret.verify.replay import Verification

LONG = 160  # an entity name or ID longer than this is shown clipped, in full in its title (tooltip)
PLAIN_REASONS: dict[str, str] = {
    **{str(k): v for k, v in HOP_FAILURES.items()},
    **{str(k): v for k, v in INTERPRETATION_REFUSALS.items()},
    "no_pattern": "no relation pattern of this catalog matches the request's words",
    "packet_too_small": "the evidence packet budget is too small for the chain's evidence",
}
OUTCOME_WORDS = {
    "accepted_path": "answer found",
    "partial_evidence": "no answer: the chain stopped before its end",
    "no_pattern": "no answer: the request matches no pattern",
    "refused": "no answer: the request was refused before any search",
    "retrieved": "ranked evidence (no claim of a supported chain)",
}

CSS = """
:root{--ink:#1d2330;--mute:#5b6475;--line:#c9d0dc;--ok:#1f7a3f;--bad:#b3261e;--warn:#8a5a00;--mark:#ffe27a;--card:#f7f9fc}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);margin:0;background:#fff;overflow-wrap:anywhere}
header.bar{background:#1d2330;color:#fff;padding:10px 20px;display:flex;gap:16px;align-items:baseline}
header.bar h1{font-size:18px;margin:0}
header.bar span{color:#b9c2d3;font-size:13px}
header.bar a,header.bar a:visited{color:#9cc3ff}
main{max-width:1100px;margin:0 auto;padding:16px 20px 40px}
code,.id,pre.unit,td.ref{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
.id,.wrap,td,pre.unit,.msg,h2,h3{overflow-wrap:anywhere;word-break:break-word}
.answer{border:2px solid var(--line);border-radius:8px;padding:12px 16px;margin:12px 0;background:var(--card)}
.answer.accepted{border-color:var(--ok)}
.answer.stopped{border-color:var(--bad)}
.answer .big{font-size:22px;font-weight:600}
.answer .outcome{text-transform:uppercase;font-size:12px;letter-spacing:.06em;color:var(--mute)}
.answer.accepted .outcome{color:var(--ok)}
.answer.stopped .outcome{color:var(--bad)}
.answer.partial{border-color:var(--warn)}
.answer.partial .outcome,.completeness.partial{color:var(--warn)}
ul.answers{list-style:none;margin:4px 0;padding:0}
ul.answers li{margin:2px 0 6px}
.completeness{font-weight:600}
.completeness.complete{color:var(--ok)}
.reason{color:var(--bad)}
.meta{color:var(--mute);font-size:13px}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:6px 0}
dl.kv dt{color:var(--mute)}
dl.kv dd{margin:0;overflow-wrap:anywhere}
.graph{overflow-x:auto;border:1px solid var(--line);border-radius:8px;padding:6px;margin:12px 0;background:#fff}
.graph svg{display:block}
svg .node rect{fill:#eef3fb;stroke:#5b7bb5;stroke-width:1.5}
svg .node.answer rect{fill:#e3f4e8;stroke:var(--ok);stroke-width:2.5}
svg .node.stop rect{fill:#fdecea;stroke:var(--bad);stroke-dasharray:5 3}
svg .node .name{font:600 13px system-ui,sans-serif;fill:var(--ink)}
svg .node .nid{font:11px ui-monospace,Menlo,monospace;fill:var(--mute)}
svg .edge line{stroke:#5b7bb5;stroke-width:2}
svg .edge.stop line{stroke:var(--bad);stroke-dasharray:6 4}
svg .edge text{font:12px system-ui,sans-serif;fill:var(--ink)}
svg .edge text.rel{font:11px ui-monospace,Menlo,monospace;fill:var(--mute)}
svg .rowlabel{font:11px system-ui,sans-serif;fill:var(--mute)}
.unverified{border:2px solid var(--warn);border-radius:8px;padding:8px 14px;margin:12px 0;background:#fff8e6;color:var(--ink)}
.unverified strong{color:var(--warn)}
.verified{border:2px solid var(--ok);border-radius:8px;padding:8px 14px;margin:12px 0;color:var(--ok)}
section.hop{border:1px solid var(--line);border-radius:8px;padding:10px 14px;margin:12px 0;background:var(--card)}
section.hop.failed{border-color:var(--bad)}
section.hop h3{margin:0 0 6px;font-size:16px}
pre.unit{white-space:pre-wrap;background:#fff;border:1px solid var(--line);border-radius:6px;padding:8px 10px;margin:6px 0}
mark.quote{background:var(--mark);outline:1px solid #d9b300;padding:0 1px}
table.rows{border-collapse:collapse;width:100%;margin:6px 0;font-size:13px}
table.rows th,table.rows td{border-bottom:1px solid var(--line);padding:3px 6px;text-align:left;vertical-align:top}
table.rows tr.used td{font-weight:600}
.withheld{color:var(--warn)}
.note{color:var(--mute);font-style:italic}
form.ask{display:grid;grid-template-columns:1fr auto;gap:8px;margin:10px 0}
form.ask>input[type=text]{font-size:16px;padding:8px}
form.ask .opts{grid-column:1/3;display:flex;gap:14px;flex-wrap:wrap;align-items:center;font-size:13px}
button{font-size:14px;padding:7px 14px;cursor:pointer}
ul.patterns{padding-left:18px;margin:4px 0 8px}
details.pgroup{border-bottom:1px solid var(--line);padding:4px 0}
details.pgroup summary{cursor:pointer}
#pattern-filter{width:100%;max-width:420px;font-size:14px;padding:6px 8px;margin:4px 0 8px}
ul.patterns button.phrasing,#suggestions button.phrasing{font-size:13px;padding:2px 8px;margin:2px 4px 2px 0;background:#eef3fb;border:1px solid #9fb3d9;border-radius:12px}
div.verify{display:flex;gap:12px;align-items:center;min-height:36px}
div.verify p{margin:0}
#verify-result .verified,#verify-result .evidence_intact{color:var(--ok);font-weight:600}
#verify-result .mismatch{color:var(--bad);font-weight:600}
.error{color:var(--bad);font-weight:600}
aside.side{border-top:1px solid var(--line);margin-top:24px}
"""


def esc(value: object) -> str:
    """Text or quoted-attribute content: control/bidi characters as visible escapes, then HTML-escaped."""
    return html.escape(visible("" if value is None else value), quote=True)


def esc_lines(text: str) -> str:
    """Multi-line text (for ``white-space: pre-wrap``): each line made visible and escaped, newlines kept."""
    return "\n".join(esc(line) for line in text.split("\n"))


def clip(value: str, limit: int) -> str:
    return value if len(value) <= limit else value[: max(1, limit - 1)] + "…"


def style_hash(css: str = CSS) -> str:
    """The CSP source (``'sha256-…'``) that allows exactly this inline ``<style>`` content."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(css.encode("utf-8")).digest()).decode("ascii") + "'"


@dataclass
class UnitText:
    ref: str
    start: int
    end: int
    text: str


@dataclass
class Extras:
    """What a trace does not carry: display names and anchor unit texts, for the trace's viewer only."""

    names: dict[str, str] = field(default_factory=dict)
    units: dict[str, UnitText] = field(default_factory=dict)
    source: str | None = None  # where they came from (shown on the page), None: no catalog
    suggestions: list[tuple[str, str]] = field(default_factory=list)  # (pattern, phrasing): a no_pattern request's closest


def trace_reader(trace: Trace) -> str:
    """Who the trace is shown to: its viewer (projected) or the principal it ran for."""
    return str(trace.meta.get("viewer") or trace.meta.get("principal") or "public")


def trace_ids(trace: Trace) -> list[str]:
    ids: list[str] = []
    if trace.interpretation is not None:
        ids.append(trace.interpretation.start_id)
    for h in trace.hops:
        ids += [i for i in (h.from_id, h.bridge) if i]
        ids += h.candidate_bridges
    ids += trace.path_ids or []
    ids += [i for a in trace.answers or () for i in a.path_ids]
    return list(dict.fromkeys(ids))


def extras_for(trace: Trace, catalog: Catalog | CatalogReader, session: Session | None = None, source: str | None = "catalog") -> Extras:
    """Names and anchor unit texts as ``trace_reader(trace)`` sees ``catalog`` in the trace's view.

    A name is given only for an entity the reader may know of, a unit text only from a document
    version the reader may read in that view (``CatalogView.unit``), so the page shows nothing the
    projection withheld.
    """
    from chainret.store import resolve_catalog

    cv = resolve_catalog(catalog, session).view(trace.meta.get("view"), trace_reader(trace))
    names = {}
    for i in trace_ids(trace):
        ent = cv.entity(i) if cv.knows(i) else None
        if ent is not None:
            names[i] = ent.name
    units = {}
    for h in trace.hops:
        if h.anchor is not None and h.anchor.unit_ref not in units:
            u = cv.unit(h.anchor.unit_ref)
            if u is not None:
                units[u.ref] = UnitText(u.ref, u.start, u.end, u.text)
    return Extras(names=names, units=units, source=source)


# -- pieces ---------------------------------------------------------------------------------------
def _kv(rows: list[tuple[str, str]]) -> str:
    return '<dl class="kv">' + "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in rows) + "</dl>"


def _entity(i: str | None, ex: Extras) -> str:
    if not i:
        return '<span class="note">none</span>'
    name = ex.names.get(i)
    ident = f'<code class="id" title="{esc(i)}">{esc(clip(i, LONG))}</code>' if len(i) > LONG else f'<code class="id">{esc(i)}</code>'
    if not name:
        return ident
    shown = f'<strong title="{esc(name)}">{esc(clip(name, LONG))}</strong>' if len(name) > LONG else f"<strong>{esc(name)}</strong>"
    return f"{shown} ({ident})"


def plain_reason(ref: Refusal) -> str:
    return PLAIN_REASONS.get(str(ref.code), str(ref.code).replace("_", " "))


def _stop_hop(trace: Trace) -> Hop | None:
    """The hop where the chain stopped: the last hop with a refusal (None when none did)."""
    failed = [h for h in trace.hops if h.refusal is not None]
    return failed[-1] if failed else None


def answer_block(trace: Trace, ex: Extras) -> str:
    """The answer box: the answer (a set answer: every member, then whether that is all), or why there is none."""
    accepted = trace.outcome == "accepted_path" and (bool(trace.path_ids) or is_empty_set(trace))
    members = is_set(trace)
    partial = members and trace.completeness is not None and not trace.completeness.complete
    cls = ("accepted partial" if partial else "accepted") if accepted else "stopped"
    out = [f'<div class="answer {cls}" id="answer" data-outcome="{esc(trace.outcome)}">']
    if (number := count_words(trace)) is not None:  # a count ask: its number, then the members it counts
        out.append(f'<div class="big" id="count">{esc(number)}</div>')
    if (checked := check_words(trace, ex.names)) is not None:  # a yes/no ask
        out.append(f'<div class="big" id="check">{esc(checked[0])}</div><div class="meta" id="check-why">{esc(checked[1])}</div>')
    if members:
        assert trace.answers is not None and trace.completeness is not None
        n = len(trace.answers)
        found = f"{n} answer{'s' if n != 1 else ''} found" + (" (part of the set)" if partial else "")
        out.append(f'<div class="outcome">{esc(found)}</div><ul class="answers" id="answers">')
        out.extend(f'<li data-id="{esc(a.id)}"><div class="big">{_entity(a.id, ex)}</div>'
                   '<div class="meta">via ' + " → ".join(_entity(i, ex) for i in a.path_ids) + "</div></li>"
                   for a in trace.answers)
        state = "partial" if partial else "complete"
        out.append(f'</ul><div class="completeness {state}" id="completeness" data-complete="{str(not partial).lower()}">'
                   f"{'not complete' if partial else 'complete'}: {esc(completeness_words(trace.completeness))}</div>")
    elif is_empty_set(trace):  # "none" is an answer: the whole view was read and nothing matched
        assert trace.completeness is not None
        out.append('<div class="outcome">0 answers found</div><div class="big" id="answers">none</div>'
                   f'<div class="completeness complete" id="completeness" data-complete="true">complete: '
                   f"{esc(completeness_words(trace.completeness))}</div>")
    elif accepted:
        assert trace.path_ids is not None
        out.append(f'<div class="outcome">{esc(OUTCOME_WORDS.get(trace.outcome, trace.outcome))}</div>')
        out.append(f'<div class="big">{_entity(trace.path_ids[-1], ex)}</div>')
        out.append('<div class="meta">via ' + " → ".join(_entity(i, ex) for i in trace.path_ids) + "</div>")
    else:
        out.append(f'<div class="outcome">{esc(OUTCOME_WORDS.get(trace.outcome, trace.outcome))}</div>')
        reason = trace.reason
        if reason is not None:  # the refusal's own sentence leads ("'PR-99' is not a known project ..."); the code's
            # generic wording ("the slot text resolves to no entity of the slot type") is the small print under it
            out.append(f'<div class="big reason" id="reason">{esc(reason.message or plain_reason(reason))}</div>')
            out.append(f'<div class="msg" id="reason-code">{esc(plain_reason(reason))} <code>({esc(reason.code)})</code></div>')
        stop = _stop_hop(trace)
        if stop is not None:
            out.append(f'<div class="msg" id="stopped-at">The chain stopped at hop {stop.index} (branch {esc(stop.branch)}): '
                       f"searching {_entity(stop.from_id, ex)} for <code>{esc(stop.predicate or '')}</code>.</div>")
        elif trace.outcome in ("refused", "no_pattern"):
            out.append('<div class="msg" id="stopped-at">The chain stopped before its first search.</div>')
        if ex.suggestions and trace.outcome == "no_pattern":
            buttons = "".join(f'<button type="button" class="phrasing" data-phrasing="{esc(ph)}" title="{esc(pat)}">{esc(ph)}</button>'
                              for pat, ph in ex.suggestions)
            out.append(f'<div class="msg" id="suggestions">Closest phrasings of this catalog: {buttons}</div>')
    out.append("</div>")
    return "".join(out)


def _interpretation(trace: Trace, ex: Extras) -> str:
    rows = [("request", f'<span class="wrap">{esc(trace.request)}</span>')]
    it = trace.interpretation
    if it is not None:
        rows += [("pattern", f"<code>{esc(it.pattern)}</code> ({esc(' → '.join(it.predicates))})"),
                 (esc(it.slot), f"“{esc(it.slot_text)}” = {_entity(it.start_id, ex)}")]
    meta = trace.meta
    rows += [("view", f"<code>{esc(meta.get('view') or (it.view if it else ''))}</code>"),
             ("principal / viewer", f"{esc(meta.get('principal', 'public'))} / {esc(meta.get('viewer') or '(unprojected)')}"),
             ("catalog digest", f'<code class="id">{esc(trace.catalog_digest or "")}</code>'),
             ("budget used", f"{trace.searches_used} of {trace.budget.max_searches or '–'} searches, "
                             f"{trace.rows_used} of {trace.budget.max_rows or '–'} rows")]
    return _kv(rows)


# -- the graph ------------------------------------------------------------------------------------
_NODE_W, _GAP, _ROW_GAP, _CHAR, _ID_CHARS, _ID_LINES = 200, 150, 48, 7.2, 26, 4
_ID_SEP = ":./-_@"  # an ID is wrapped after one of these where it can be (else mid-word)


def _id_lines(ident: str, width: int = _ID_CHARS, most: int = _ID_LINES) -> list[str]:
    """``ident`` in lines of at most ``width`` characters (a monospace node is that wide), broken after a
    separator where one is near; past ``most`` lines the last is clipped (the full ID is the node's title).
    Hand-written: ``textwrap`` breaks at spaces only, and an ID has none."""
    lines: list[str] = []
    rest = ident
    while rest and len(lines) < most:
        if len(rest) <= width:
            lines.append(rest)
            rest = ""
            break
        cut = max((rest.rfind(c, width // 2, width) for c in _ID_SEP), default=-1) + 1 or width
        lines.append(rest[:cut])
        rest = rest[cut:]
    if rest:
        lines[-1] = clip(lines[-1] + rest, width)
    return lines or [""]


def _node_height(ids: list[str], ex: Extras) -> int:
    """One height for every node of a graph: its name line and the most ID lines any of its nodes needs."""
    lines = max((len(_id_lines(i)) + (1 if ex.names.get(i) else 0) for i in ids), default=1)
    return max(48, 14 + 15 * lines)


def _svg_node(x: float, y: float, ident: str, ex: Extras, cls: str = "", h: int = 48) -> str:
    """An entity's box: its display name (clipped to the box) above its full ID, wrapped; both whole in the title."""
    name = ex.names.get(ident)
    limit = int((_NODE_W - 16) / _CHAR)
    title = f"{name} ({ident})" if name else ident
    lines = ([f'<text class="name" x="{x + 8:.0f}" y="{y + 19:.0f}">{esc(clip(name, limit))}</text>'] if name else [])
    first = y + (36 if name else 21)
    lines += [f'<text class="nid" x="{x + 8:.0f}" y="{first + 15 * k:.0f}">{esc(part)}</text>'
              for k, part in enumerate(_id_lines(ident))]
    return (f'<g class="node {cls}" data-id="{esc(ident)}"><title>{esc(title)}</title>'
            f'<rect x="{x:.0f}" y="{y:.0f}" width="{_NODE_W}" height="{h}" rx="8" fill="#eef3fb" stroke="#5b7bb5"/>'
            + "".join(lines) + "</g>")


def _svg_stop(x: float, y: float, label: str, detail: str, h: int = 48) -> str:
    return (f'<g class="node stop"><title>{esc(detail)}</title>'
            f'<rect x="{x:.0f}" y="{y:.0f}" width="{_NODE_W}" height="{h}" rx="8" fill="#fdecea" stroke="#b3261e"/>'
            f'<text class="name" x="{x + 8:.0f}" y="{y + 19:.0f}">✕ stopped</text>'
            f'<text class="nid" x="{x + 8:.0f}" y="{y + 38:.0f}">{esc(clip(label, 26))}</text></g>')


def _svg_edge(x1: float, x2: float, y: float, top: str, bottom: str, stop: bool = False) -> str:
    cls = "edge stop" if stop else "edge"
    mid = (x1 + x2) / 2
    limit = int((x2 - x1) / 6.6)
    return (f'<g class="{cls}"><title>{esc(top)} {esc(bottom)}</title>'
            f'<line x1="{x1:.0f}" y1="{y:.0f}" x2="{x2 - 4:.0f}" y2="{y:.0f}" stroke="{"#b3261e" if stop else "#5b7bb5"}" '
            f'stroke-width="2" marker-end="url(#{"arrow-stop" if stop else "arrow"})"/>'
            f'<text x="{mid:.0f}" y="{y - 7:.0f}" text-anchor="middle">{esc(clip(top, limit))}</text>'
            f'<text class="rel" x="{mid:.0f}" y="{y + 16:.0f}" text-anchor="middle">{esc(clip(bottom, limit))}</text></g>')


def _branches(trace: Trace) -> list[tuple[str, list[Hop]]]:
    out: dict[str, list[Hop]] = {}
    for h in trace.hops:
        out.setdefault(h.branch, []).append(h)
    return list(out.items())


def svg_graph(trace: Trace, ex: Extras) -> str:
    """The path as an inline SVG: one row per branch, entities as boxes, hops as labelled arrows."""
    accepted = set(trace.accepted_path or [])
    answers = {trace.path_ids[-1]} if trace.outcome == "accepted_path" and trace.path_ids else set()
    if is_set(trace):  # every member's path is an answer path
        accepted.update(r for a in trace.answers or () for r in a.relations)
        answers.update(a.id for a in trace.answers or ())
    rows: list[str] = []
    width = 0.0
    branches = _branches(trace)
    nh = _node_height(trace_ids(trace), ex)
    row_h = nh + _ROW_GAP
    if not branches:  # refused / no pattern: the request and where it stopped
        start = trace.interpretation.start_id if trace.interpretation is not None else None
        x = 20.0
        if start:
            rows.append(_svg_node(x, 24, start, ex, h=nh))
            x += _NODE_W
            rows.append(_svg_edge(x, x + _GAP, 24 + nh / 2, "interpretation", "no search", stop=True))
            x += _GAP
        code = str(trace.reason.code) if trace.reason is not None else trace.outcome
        rows.append(_svg_stop(x, 24, code, plain_reason(trace.reason) if trace.reason else trace.outcome, nh))
        width = x + _NODE_W + 20
        height = 24 + nh + 24
    else:
        for r, (branch, hops) in enumerate(branches):
            y = 24 + r * row_h
            on_path = bool(accepted) and all(h.anchor is None or h.anchor.relation_id in accepted for h in hops) \
                and any(h.anchor is not None for h in hops) and hops[-1].refusal is None
            label = f"branch {branch}" + (" (accepted path)" if on_path and trace.outcome == "accepted_path" else "")
            if hops[0].reuses:
                label += f", reuses branch {hops[0].reuses}'s search for hop {hops[0].index}"
            rows.append(f'<text class="rowlabel" x="20" y="{y - 8}"><title>{esc(label)}</title>{esc(clip(label, 100))}</text>')
            x = 20.0 + (hops[0].index - 1) * (_NODE_W + _GAP)
            first = hops[0].from_id or (trace.interpretation.start_id if trace.interpretation else "?")
            rows.append(_svg_node(x, y, first, ex, h=nh))
            for h in hops:
                x2 = x + _NODE_W + _GAP
                cy = y + nh / 2
                if h.bridge:
                    rel = h.anchor.relation_id if h.anchor is not None else ""
                    rows.append(_svg_edge(x + _NODE_W, x2, cy, f"hop {h.index}: {h.predicate or ''}", rel))
                    rows.append(_svg_node(x2, y, h.bridge, ex, "answer" if h.bridge in answers and on_path else "", nh))
                elif h.refusal is not None:
                    rows.append(_svg_edge(x + _NODE_W, x2, cy, f"hop {h.index}: {h.predicate or ''}", str(h.refusal.code), stop=True))
                    rows.append(_svg_stop(x2, y, str(h.refusal.code), plain_reason(h.refusal), nh))
                x = x2
            width = max(width, x + _NODE_W + 20)
        height = 24 + len(branches) * row_h - _ROW_GAP + 24
    defs = ('<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto">'
            '<path d="M0,0 L10,5 L0,10 z" fill="#5b7bb5"/></marker>'
            '<marker id="arrow-stop" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto">'
            '<path d="M0,0 L10,5 L0,10 z" fill="#b3261e"/></marker></defs>')
    return (f'<div class="graph"><svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="the chain of hops" '
            f'width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}">{defs}{"".join(rows)}</svg></div>')


# -- hops -----------------------------------------------------------------------------------------
def highlighted_unit(hop: Hop, ex: Extras) -> str:
    """The anchor's unit with the quote marked at its span (or the quote alone without the unit text)."""
    a = hop.anchor
    assert a is not None
    u = ex.units.get(a.unit_ref)
    quote = f'<mark class="quote">{esc_lines(a.quote)}</mark>'
    if u is None:
        return (f'<pre class="unit">{quote}</pre><div class="note">the unit text is not shown '
                f'({"not readable here" if ex.source else "no catalog given"}); the quote is as the trace records it</div>')
    lo, hi = a.span[0] - u.start, a.span[1] - u.start
    if not (0 <= lo <= hi <= len(u.text)) or u.text[lo:hi] != a.quote:
        return (f'<pre class="unit">{esc_lines(u.text)}</pre><div class="reason">the quote is not at span '
                f"[{a.span[0]}, {a.span[1]}) of this unit: run verify</div><pre class=\"unit\">{quote}</pre>")
    return f'<pre class="unit">{esc_lines(u.text[:lo])}{quote}{esc_lines(u.text[hi:])}</pre>'


def _withheld(details: dict[str, Any], projected: bool = True) -> str:
    items = details.get("withheld") or []
    if not items:
        return ""
    why = ("shown because this viewer may read them" if projected
           else "an unprojected trace: recorded for its local user, not projected for any viewer")
    lis = "".join(f"<li><code>{esc(w.get('relation', ''))}</code> in <code>{esc(w.get('unit', ''))}</code>: {esc(w.get('why', ''))}</li>"
                  for w in items if isinstance(w, dict))
    return f'<div class="withheld" id="withheld">withheld from this request ({esc(why)}):<ul>{lis}</ul></div>'


def hop_section(hop: Hop, trace: Trace, ex: Extras) -> str:
    failed = hop.refusal is not None
    parts = [f'<section class="hop{" failed" if failed else ""}" data-hop="{hop.index}" data-branch="{esc(hop.branch)}">',
             f"<h3>Hop {hop.index} · branch {esc(hop.branch)}: <code>{esc(hop.predicate or hop.kind)}</code> from "
             f"{_entity(hop.from_id, ex)}" + (f" → {_entity(hop.bridge, ex)}" if hop.bridge else "") + "</h3>"]
    a = hop.anchor
    if a is not None:
        parts.append(_kv([
            ("document", f'<code class="id">{esc(a.source)}/{esc(a.document)}</code> version <code>{esc(a.version)}</code> '
                         f"({esc(a.representation)})"),
            ("digest", f'<code class="id">{esc(a.digest)}</code>'),
            ("unit", f'<code class="id">{esc(a.unit_ref)}</code>, span [{a.span[0]}, {a.span[1]})'),
            ("relation", f"<code>{esc(a.relation_id)}</code> ({esc(a.support_kind)} support)"),
        ]))
        parts.append(highlighted_unit(hop, ex))
    if hop.refusal is not None:
        parts.append(f'<div class="reason"><strong>stopped here:</strong> {esc(plain_reason(hop.refusal))}</div>'
                     f'<div class="msg">{esc(hop.refusal.message)}</div>')
        parts.append(_withheld(hop.refusal.details, trace.meta.get("projected") is True))
    if hop.reuses:
        parts.append(f'<div class="note">no new search: this hop reuses branch {esc(hop.reuses)}\'s rows</div>')
    if hop.candidate_bridges:
        parts.append('<div class="meta">other supported bridges seen: ' + ", ".join(_entity(c, ex) for c in hop.candidate_bridges) + "</div>")
    used = a.unit_ref if a is not None else None
    rows = "".join(f'<tr class="{"used" if hit.ref == used else ""}"><td>{hit.rank}</td><td class="ref">{esc(hit.ref)}</td>'
                   f"<td>{hit.score:.3f}</td></tr>" for hit in hop.hits)
    parts.append(f"<div class=\"meta\">searched <code class=\"id\">{esc(hop.subquery)}</code>: {len(hop.hits)} row(s)"
                 + (f"; {hop.searches_left} search(es) and {hop.rows_left} row(s) left" if hop.searches_left is not None else "")
                 + "</div>")
    if rows:
        parts.append(f'<table class="rows"><thead><tr><th>rank</th><th>row (unit)</th><th>score</th></tr></thead><tbody>{rows}</tbody></table>')
    parts.append("</section>")
    return "".join(parts)


def trace_fragment(trace: Trace, ex: Extras | None = None) -> str:
    """The answer, the graph, the interpretation and every hop: the body of both pages."""
    ex = ex or Extras()
    parts = [answer_block(trace, ex), svg_graph(trace, ex), _interpretation(trace, ex)]
    parts += [hop_section(h, trace, ex) for h in trace.hops]
    if trace.reason is not None and not trace.hops:
        parts.append(_withheld(trace.reason.details, trace.meta.get("projected") is True))
    if trace.assumptions:
        parts.append("<h3>Assumptions</h3><ul>" + "".join(f'<li class="wrap">{esc(s)}</li>' for s in trace.assumptions) + "</ul>")
    src = f"names and unit texts from {esc(ex.source)}, as {esc(trace_reader(trace))} may read it" if ex.source \
        else "no catalog: entities by ID, quotes as the trace records them"
    parts.append(f'<p class="note">{src}.</p>')
    return f'<div class="trace" data-outcome="{esc(trace.outcome)}">' + "".join(parts) + "</div>"


def unverified_notice(trace: Trace, verification: Verification | None = None) -> str:
    """The standalone page's line on what has been checked: nothing, unless a verification passed.

    A trace file says which viewer it was projected for and what it found; ``trace show --html``
    renders it as written, so the page says so where a reader looks first, naming the viewer as the
    trace claims it. Only a ``Verification`` whose status is ``verified`` (the replay matched and
    every cited version checked out) replaces the notice; a changed catalog or a mismatch keeps it,
    with verify's own summary.
    """
    if verification is not None and verification.status == "verified":
        return f'<div class="verified" id="verification">verified: {esc(verification.summary())}</div>'
    why = f" ({verification.summary()})" if verification is not None else ""
    return (f'<div class="unverified" id="verification" role="note"><strong>not verified:</strong> this page shows the trace '
            f"as written{esc(why)}, including its viewer <code>{esc(trace_reader(trace))}</code> as the trace claims it; "
            "run <code>chainret trace verify FILE</code></div>")


def standalone_page(trace: Trace, ex: Extras | None = None, verification: Verification | None = None) -> str:
    """One self-contained HTML file: style inline (allowed by its hash), no script, no network.

    It leads with ``unverified_notice``: a file can claim any viewer and any evidence, and the page
    does not check it unless the caller passes the ``Verification`` of this very trace.
    """
    csp = f"default-src 'none'; style-src {style_hash()}; img-src data:; base-uri 'none'; form-action 'none'"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{esc(csp)}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>chainret trace: {esc(clip(trace.request, 120))}</title><style>{CSS}</style></head><body>"
            '<header class="bar"><h1>chainret trace</h1><span>a standalone view; verify it with '
            "<code>chainret trace verify FILE</code></span></header>"
            f"<main>{unverified_notice(trace, verification)}{trace_fragment(trace, ex)}</main></body></html>\n")


def write_standalone(trace: Trace, trace_path: Path | None, out: str | Path, catalog: str | None = None) -> str:
    """Write ``standalone_page`` to ``out`` (atomically); returns a line saying what it holds.

    Names and unit texts come from ``catalog``, else from the catalog the trace names (found as
    ``chainret trace verify`` finds it); without either the page shows IDs and quotes only.
    """
    from chainret.core.files import atomic_write_text, check_output_path

    target = check_output_path(out)
    found = catalog_for_trace(trace, trace_path, catalog)
    ex = extras_for(trace, found[0], source=found[1]) if found is not None else Extras()
    atomic_write_text(target, standalone_page(trace, ex))
    where = f"names and unit texts from {found[1]}" if found is not None else "no catalog found: IDs and quotes only (pass --catalog)"
    return f"wrote {target} ({where})"


def catalog_for_trace(trace: Trace, trace_path: Path | None, catalog: str | None = None) -> tuple[CatalogReader, str] | None:
    """The catalog a trace ran over, as ``chainret trace verify`` finds it (an overlay case's included).

    None when the trace names none or it cannot be opened; an explicit ``catalog`` that cannot be
    opened is an error (``ChainretError``), not a silent fallback.
    """
    from chainret.core.errors import ChainretError
    from chainret.store import resolve_catalog

    meta = trace.meta
    if catalog is not None:
        return resolve_catalog(catalog), str(catalog)
    try:
        if "case" in meta and meta.get("cases_file"):
            from chainret.catalog.load import apply_overlay, load_world
            from chainret.verify.replay import _locate

            source = _locate(str(meta["cases_file"]), trace_path)
            world = load_world(source)
            case = next((c for c in world.cases if c.id == meta["case"]), None)
            if case is None:
                return None
            return resolve_catalog(apply_overlay(world.catalog, case.overlay, label=f"case {case.id} overlay")), f"{source} (case {case.id})"
        named = meta.get("catalog")
        if named is None:
            return None
        from chainret.verify.replay import _locate

        where = str(_locate(str(named), trace_path))
        return resolve_catalog(where), where
    except (ChainretError, OSError):
        return None
