"""Rendering for the terminal: every value from data is shown, never interpreted.

All CLI text output that carries catalog values, requests or trace fields is built here from
``rich.text.Text`` pieces (never parsed as markup or emoji codes), with control and invisible
formatting characters shown escaped (``chainret.textsafe.visible``). ``--json`` output goes through
``json_out`` (``\\u``-escapes them). Mermaid labels use ``chainret.textsafe.mermaid_label``.

Tables never break a word: ``fit_table`` gives each column at least its longest word and, when
the terminal is too narrow for that, prints the rows as labelled records instead.

Reason codes get plain words here (``REASONS``, ``WHY``), so the text output says what ``--json``
knows: the code and what it means.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from chainret.codes import DefectCode, RefusalCode, ViewCode
from chainret.textsafe import json_safe, mermaid_label, visible

Part = str | tuple[str, str]
LABEL_WIDTH = 13

# Plain words for every reason code a trace can carry.
REASONS: dict[str, str] = {
    RefusalCode.NO_PATTERN: "no relation pattern of this catalog matches the request's words (`chainret patterns` lists them)",
    RefusalCode.UNKNOWN_ENTITY: "the words in the slot do not name an entity of the slot's type in this view",
    RefusalCode.AMBIGUOUS_ALIAS: "the words in the slot name several entities; ask again with one canonical ID",
    RefusalCode.AMBIGUOUS_READING: "the words read as more than one pattern or entity; ask again with one of the phrasings or IDs listed",
    RefusalCode.EXCEEDS_MAX_HOPS: "the pattern needs more hops than --max-hops allows",
    RefusalCode.BUDGET_EXHAUSTED: "the request ran out of searches or rows before the chain was complete",
    RefusalCode.NO_SUPPORTED_RELATION: "no usable relation of this hop is supported by a unit its search returned",
    RefusalCode.CONTRADICTION: "a functional relation has opposing current assignments, so the bridge is not settled",
    RefusalCode.DEAD_END: "every candidate bridge of a hop was tried and none completed the chain",
    RefusalCode.PACKET_TOO_SMALL: "a supported path was found but its clauses do not fit the packet cap "
    "(raise --packet-units or --packet-chars)",
    RefusalCode.CYCLE: "every supported bridge leads back to a node already on the path; a path never repeats a node",
}
# Plain words for why a relation record could not advance a hop.
WHY: dict[str, str] = {
    DefectCode.INVALID_DIGEST: "its support digest does not match the document (the quote is not verified)",
    DefectCode.SPAN_MISMATCH: "its quote differs from the document text at its span (invalid quote)",
    DefectCode.CLAUSE_MISMATCH: "its quoted clause does not state this subject, predicate and object (invalid quote)",
    DefectCode.PROSE_MISMATCH: "its quoted sentence does not name both its subject and its object",
    DefectCode.REPRESENTATION_MISMATCH: "its support representation differs from the document's",
    DefectCode.DOMAIN_MISMATCH: "its subject type is not the predicate's domain",
    DefectCode.RANGE_MISMATCH: "its object type is not the predicate's range",
    ViewCode.NOT_CURRENT: "its document version is not the one in this view",
    ViewCode.SUPERSEDED: "a later version of its document is in this view",
    ViewCode.REMOVED: "its document is removed",
    ViewCode.RESTRICTED: "its document is restricted",
    RefusalCode.CYCLE: "its object is already on the path",
}


def make_console(*, stderr: bool = False) -> Console:
    """A console that never parses markup or emoji codes in plain strings and never highlights."""
    return Console(stderr=stderr, markup=False, emoji=False, highlight=False)


console = make_console()
err_console = make_console(stderr=True)


def t(*parts: Part) -> Text:
    """A line from parts: ``"data"`` (shown as is, escaped) or ``("text", "style")``."""
    out = Text()
    for p in parts:
        if isinstance(p, tuple):
            out.append(visible(p[0]), style=p[1])
        else:
            out.append(visible(p))
    return out


def field(label: str, *parts: Part) -> Text:
    """``label`` padded to the label column, then the parts."""
    return t((label.ljust(LABEL_WIDTH), "bold"), *parts)


def why_words(code: str) -> str:
    """Plain words for a comma-separated list of ``why`` codes."""
    codes = [c for c in str(code).split(",") if c]
    return "; ".join(f"{c} ({WHY[c]})" if c in WHY else c for c in codes) or "not usable"


def reason_words(code: str) -> str:
    return REASONS.get(code, "")


def json_out(text: str) -> str:
    """``--json`` text with control and invisible formatting characters ``\\u``-escaped."""
    return json_safe(text)


# -- tables that never break a word ---------------------------------------------------------------
_SPACE = re.compile(r"\s+")


def _longest_word(cell: str) -> int:
    return max((len(w) for w in _SPACE.split(cell)), default=0)


def _longest_line(cell: str) -> int:
    return max((len(line) for line in cell.split("\n")), default=0)


def fit_table(
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    width: int,
    title: str | None = None,
    styles: dict[int, str] | None = None,
) -> RenderableType:
    """A table whose columns are never narrower than their longest word; records when it cannot fit.

    Cells are plain values (escaped here); ``styles`` maps a column index to a style.
    """
    cells = [[c if isinstance(c, Text) else "\n".join(visible(x) for x in str(c).split("\n")) for c in row] for row in rows]
    n = len(columns)
    plain = [[c.plain if isinstance(c, Text) else c for c in row] for row in cells]
    mins = [max([_longest_word(columns[i])] + [_longest_word(r[i]) for r in plain]) for i in range(n)]
    maxs = [max([_longest_line(columns[i])] + [_longest_line(r[i]) for r in plain]) for i in range(n)]
    frame = 3 * n + 1  # one space of padding either side of each cell and a rule between columns
    if sum(mins) + frame > width:
        return _records(columns, cells, title)
    spare = width - frame - sum(mins)
    want = [mx - mn for mn, mx in zip(mins, maxs, strict=True)]
    widths = list(mins)
    total_want = sum(want)
    if total_want <= spare:
        widths = list(maxs)
    elif total_want:
        for i in range(n):
            widths[i] += spare * want[i] // total_want
    table = Table(title=visible(title) if title else None, title_justify="left", show_lines=False)
    for i, col in enumerate(columns):
        table.add_column(visible(col), width=widths[i], overflow="fold", style=(styles or {}).get(i))
    for row in cells:
        table.add_row(*[c if isinstance(c, Text) else Text(c) for c in row])
    return table


def _records(columns: Sequence[str], cells: list[list[Any]], title: str | None) -> RenderableType:
    """Rows as labelled records (narrow terminals): ``column  value`` lines, a blank line between rows."""
    label = max(len(c) for c in columns) + 2
    parts: list[RenderableType] = []
    if title:
        parts.append(t((visible(title), "italic")))
    for row in cells:
        for col, cell in zip(columns, row, strict=True):
            value = cell if isinstance(cell, Text) else Text(cell)
            lines = value.split("\n") if value.plain else [Text("")]
            for k, piece in enumerate(lines):
                parts.append(Text.assemble((visible(col).ljust(label) if k == 0 else " " * label, "bold"), piece))
        parts.append(Text(""))
    return Group(*parts)


# -- traces ---------------------------------------------------------------------------------------
def _refusal_lines(ref: Any, indent: str = "  ") -> list[Text]:
    """A refusal's rejected relations, in plain words (what a viewer's projected trace still holds)."""
    out: list[Text] = []
    for r in ref.details.get("rejected", []) or []:
        out.append(t(indent, f"relation {r.get('relation')} in {r.get('unit')}: not usable: ", why_words(r.get("why", ""))))
    for w in ref.details.get("withheld", []) or []:
        out.append(t(indent, f"relation {w.get('relation')} in {w.get('unit')}: withheld from this principal: ",
                     why_words(w.get("why", ""))))
    if ref.details.get("not_returned"):
        out.append(t(indent, "supported elsewhere but not returned by this search: ", ", ".join(map(str, ref.details["not_returned"]))))
    if ref.details.get("opposing"):
        out.append(t(indent, "opposing assignments: ", ", ".join(map(str, ref.details["opposing"]))))
    return out


def hop_rows(trace: Any) -> list[list[str]]:
    rows = []
    for h in trace.hops:
        returned = "\n".join(f"{x.rank}. {x.ref}" for x in h.hits) or ("(reuses its search)" if h.reuses else "—")
        rows.append([
            str(h.index), h.branch, h.subquery, returned, h.anchor.relation_id if h.anchor else "—", h.bridge or "—",
            f"{h.searches_left} searches, {h.rows_left} rows", h.refusal.code if h.refusal else "—",
        ])
    return rows


def render_trace(
    trace: Any,
    trace_path: Path | None = None,
    *,
    out: Console | None = None,
    names: dict[str, str] | None = None,
    suggestions: Sequence[tuple[str, str]] = (),
    quiet: bool = False,
) -> None:
    """Readable summary, the answer first: answer (or outcome), path, then request, interpretation,
    hops, packet, outcome and reason. ``quiet``: the first line alone."""
    c = out or console
    names = names or {}
    c.print(answer_line(trace, names))
    if quiet:
        return
    if trace.path_ids:
        c.print(field("path", " → ".join(trace.path_ids), f"  ({', '.join(trace.accepted_path or [])})"))
    c.print(field("request", trace.request))
    principal = trace.meta.get("principal") or (trace.interpretation.principal if trace.interpretation else "public")
    viewer = trace.meta.get("viewer") or principal
    note = "" if viewer == principal else " (audit view of a request that ran with the principal's access)"
    c.print(field("for", "principal ", (str(principal), "cyan"), " · shown to ", (str(viewer), "cyan"), note))
    it = trace.interpretation
    if it is not None:
        c.print(field("interpreted", f"pattern {it.pattern} · {it.slot} {it.slot_text!r} → ", (it.start_id, "cyan"),
                      f" · hops {' → '.join(it.predicates)} · view {it.view}"))
        for matched in match_lines(it):
            c.print(t("  ", matched))
    if trace.hops:
        cols = ("hop", "branch", "search", "returned rows", "anchor", "bridge", "left", "stopped")
        c.print(fit_table(cols, hop_rows(trace), width=c.width, title="hops"))
        for h in trace.hops:
            if h.refusal is not None:
                c.print(t(f"  hop {h.index} (branch {h.branch}) stopped: ", (h.refusal.code, "yellow"), f" — {h.refusal.message}"))
                for line in _refusal_lines(h.refusal, "    "):
                    c.print(line)
    if trace.packet is not None:
        p = trace.packet
        c.print(field("packet", f"{len(p.items)} units, {p.cost} chars (cap {p.max_items} units / {p.budget} chars)"))
        for item in p.items:
            c.print(t("  ", (item.ref, "dim"), "  ", item.text))
    for pname, p in trace.packets.items():
        c.print(t((pname, "bold yellow"), f" ({p.diagnostics.get('label', '')}): {len(p.items)} units, {p.cost} chars"))
        for item in p.items:
            c.print(t("  ", (item.ref, "dim"), "  ", item.text[:120]))
    colour = "green" if trace.outcome == "accepted_path" else "yellow"
    line = field("outcome", (trace.outcome, colour))
    if trace.reason is not None:
        line.append_text(t(f" — {trace.reason.message}"))
    c.print(line)
    if trace.reason is not None:
        words = reason_words(trace.reason.code)
        c.print(field("reason", (trace.reason.code, "yellow"), f": {words}" if words else ""))
        for key in ("hop", "slot_text"):
            if key in trace.reason.details:
                c.print(t(f"  {key.replace('_', ' ')}: ", str(trace.reason.details[key])))
        if trace.reason.details.get("tried"):
            c.print(t("  bridges tried: ", ", ".join(map(str, trace.reason.details["tried"]))))
        for f in trace.reason.details.get("branch_failures", []) or []:
            c.print(t(f"  branch {f.get('details', {}).get('branch', '?')}: ", (str(f.get("code")), "yellow"),
                      f" — {f.get('message', '')}"))
            from chainret.trace import Refusal

            try:
                for sub in _refusal_lines(Refusal(**f), "    "):
                    c.print(sub)
            except (TypeError, ValueError):
                pass
        for line in _refusal_lines(trace.reason):
            c.print(line)
        for cand in trace.reason.details.get("candidates", []) or []:
            c.print(t(f"  candidate {cand.get('id')} ({cand.get('name')})"))
    if suggestions:
        c.print(t(("closest phrasings of this catalog:", "bold")))
        for pattern, phrasing in suggestions:
            c.print(t("  ", phrasing, (f"   ({pattern})", "dim")))
    for a in trace.assumptions:
        c.print(t(("assumption: ", "dim"), (a, "dim")))
    used = (f"budget used: {trace.searches_used} of {trace.budget.max_searches} searches, "
            f"{trace.rows_used} of {trace.budget.max_rows} rows")
    c.print(t((used, "dim")))
    if trace_path is not None:
        c.print(t("trace written to ", str(trace_path)))


def match_lines(it: Any) -> list[str]:
    """A tolerant reading's match record in words (none for a literal reading)."""
    if not getattr(it, "match", None):
        return []
    out = [f"read as: {it.reading}"]
    for m in it.match:
        how = m.how + (f" at distance {m.distance}" if m.distance is not None else "")
        label = f", matched {m.label!r}" if m.label and m.label != m.words else ""
        target = f" → {m.target}" if m.target else ""
        out.append(f"  {m.part}: {m.words!r}{target} ({how}{label})")
    return out


def answer_line(trace: Any, names: dict[str, str] | None = None) -> Text:
    """The one line that answers: the final entity's name and ID, or the outcome and why not."""
    if trace.outcome == "accepted_path" and trace.path_ids:
        final = trace.path_ids[-1]
        name = (names or {}).get(final)
        return field("answer", *(((name, "bold green"), f" ({final})") if name else ((final, "bold green"),)))
    line = field("no answer", (trace.outcome, "yellow"))
    if trace.reason is not None:
        line.append_text(t(f" — {trace.reason.message}"))
    return line


def trace_tree(trace: Any) -> Tree:
    tree = Tree(t((trace.request, "bold"), " → ", (trace.outcome, "bold")))
    if trace.interpretation:
        it = trace.interpretation
        node = tree.add(t(f"interpretation: {it.pattern} · {it.slot_text!r} → {it.start_id} · view {it.view} · principal {it.principal}"))
        for matched in match_lines(it):
            node.add(t(matched.strip()))
    viewer = trace.meta.get("viewer")
    if viewer:
        tree.add(t(f"shown to {viewer} (principal {trace.meta.get('principal', '?')})"))
    tree.add(t(f"catalog {trace.catalog_digest}"))
    hops = tree.add(t("hops"))
    for h in trace.hops:
        node = hops.add(t(f"hop {h.index} (branch {h.branch}) search {h.subquery!r} ({h.predicate}) · left {h.searches_left}/{h.rows_left}"))
        for x in h.hits:
            node.add(t(f"#{x.rank} {x.ref} score {x.score:.4f}"))
        if h.reuses:
            node.add(t(f"reuses the search of branch {h.reuses}"))
        if h.anchor:
            node.add(t(f"anchor {h.anchor.relation_id} @ {h.anchor.unit_ref} {list(h.anchor.span)}: {h.anchor.quote!r}"))
        if h.bridge:
            others = f" (other candidates: {', '.join(h.candidate_bridges)})" if h.candidate_bridges else ""
            node.add(t(f"bridge → {h.bridge}{others}"))
        if h.refusal:
            node.add(t(("stopped: ", "yellow"), (h.refusal.code, "yellow"), f" {h.refusal.message}"))
            for line in _refusal_lines(h.refusal, ""):
                node.add(line)
    if trace.accepted_path:
        tree.add(t(f"accepted path: {' → '.join(trace.path_ids or [])} via {', '.join(trace.accepted_path)}"))
    if trace.reason:
        words = reason_words(trace.reason.code)
        tree.add(t(f"reason: {trace.reason.code}: {trace.reason.message}" + (f" ({words})" if words else "")))
    cov = trace.coverage
    done = "—" if cov.complete_bundle is None else ("yes" if cov.complete_bundle else "no")
    tree.add(t(f"coverage: anchors {len(cov.anchors_observed)}/{len(cov.anchors_required)} observed · complete bundle {done}"))
    if trace.packet:
        p = tree.add(t(f"packet: {trace.packet.cost} chars, {len(trace.packet.items)} units"))
        for item in trace.packet.items:
            p.add(t(f"{item.ref}: {item.text!r}"))
    return tree


def trace_mermaid(trace: Any) -> str:
    """The hop sequence as a mermaid flowchart (one node per hop record, branches included)."""
    lines = ["flowchart TD", f'    Q["{mermaid_label(trace.request)}"]']
    nodes: dict[tuple[str, int], str] = {}
    for i, h in enumerate(trace.hops):
        nid = f"H{i}"
        label = mermaid_label(f"hop {h.index} · branch {h.branch}: search {h.subquery}")
        if h.anchor:
            label += "<br/>" + mermaid_label(f"{h.anchor.relation_id} → {h.bridge or 'stopped'}")
        if h.refusal:
            label += "<br/>" + mermaid_label(f"stopped: {h.refusal.code}")
        lines.append(f'    {nid}["{label}"]')
        lines.append(f"    {_parent(nodes, h.branch, h.index - 1)} --> {nid}")
        nodes[(h.branch, h.index)] = nid
    end = "accepted path" if trace.outcome == "accepted_path" else trace.outcome
    lines.append(f'    O["{mermaid_label(end)}"]')
    if trace.hops:
        lines.append(f"    H{len(trace.hops) - 1} --> O")
    return "\n".join(lines) + "\n"


def _parent(nodes: dict[tuple[str, int], str], branch: str, index: int) -> str:
    """The node of hop ``index`` on ``branch`` or the branch it forked from ("0.1" forks from "0")."""
    if index < 1:
        return "Q"
    b = branch
    while True:
        if (b, index) in nodes:
            return nodes[(b, index)]
        if "." not in b:
            return "Q"
        b = b.rsplit(".", 1)[0]
