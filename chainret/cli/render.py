"""Rendering for the terminal: every value from data is shown, never interpreted.

All CLI text output that carries catalog values, requests or trace fields is built here from
``rich.text.Text`` pieces (never parsed as markup or emoji codes), with control and invisible
formatting characters shown escaped (``chainret.core.textsafe.visible``). ``--json`` output goes through
``json_out`` (``\\u``-escapes them). Mermaid labels use ``chainret.core.textsafe.mermaid_label``.

Tables never break a word: ``fit_table`` gives each column at least its longest word and, when
the terminal is too narrow for that, prints the rows as labelled records instead.

Reason codes get plain words here (``REASONS``, ``WHY``), so the text output says what ``--json``
knows: the code and what it means.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from chainret.cli.plain import (
    LABEL_WIDTH,
    REASONS,
    WHY,
    Part,
    TableItem,
    answer_parts,
    column_widths,
    escape_cell,
    hop_rows,
    match_lines,
    reason_words,
    refusal_lines,
    trace_items,
    why_words,
)
from chainret.core.textsafe import json_safe, mermaid_label, visible
from chainret.render.answers import completeness_words, is_set

# The rich-free pieces (the reason words, the summary's lines, the table widths) live in chainret.cli.plain.
__all__ = ["LABEL_WIDTH", "REASONS", "WHY", "Part", "answer_line", "console", "err_console", "field", "fit_table",
           "hop_rows", "json_out", "make_console", "match_lines", "reason_words", "render_trace", "t", "trace_mermaid",
           "trace_tree", "why_words"]


class _Console(Console):
    """A console that wraps lines only on a terminal.

    Piped or redirected output is read by scripts: a line wrapped at 80 columns moves a trace path
    to a line of its own and splits an ID (``(rel-3,⏎rel-4)``). So where the console is no terminal
    it prints in rich's soft-wrap mode (each line whole, never cropped), decided at each print, as
    rich decides colour: the stream may change (a test's capture, ``file=``). Tables still fit the
    console's width (columns never break a word; ``fit_table``)."""

    @property  # type: ignore[override]
    def soft_wrap(self) -> bool:
        return self._soft_wrap or not self.is_terminal

    @soft_wrap.setter
    def soft_wrap(self, value: bool) -> None:
        self._soft_wrap = value


def make_console(*, stderr: bool = False, **options: Any) -> Console:
    """A console that never parses markup or emoji codes in plain strings and never highlights, and wraps
    lines only on a terminal (``options``: rich's, e.g. ``file`` and ``width`` in tests)."""
    return _Console(stderr=stderr, markup=False, emoji=False, highlight=False, **options)


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


def json_out(text: str) -> str:
    """``--json`` text with control and invisible formatting characters ``\\u``-escaped."""
    return json_safe(text)


# -- tables that never break a word ---------------------------------------------------------------
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
    cells = [[c if isinstance(c, Text) else escape_cell(c) for c in row] for row in rows]
    plain = [[c.plain if isinstance(c, Text) else c for c in row] for row in cells]
    widths = column_widths(columns, plain, width)
    if widths is None:
        return _records(columns, cells, title)
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
    return [t(*line) for line in refusal_lines(ref, indent)]


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
    hops, packet, outcome and reason. ``quiet``: the first line alone. The lines are
    ``chainret.cli.plain.trace_items``'."""
    c = out or console
    for item in trace_items(trace, names=names, suggestions=suggestions, quiet=quiet):
        if isinstance(item, TableItem):
            c.print(fit_table(item.columns, item.rows, width=c.width, title=item.title))
        else:
            c.print(t(*item))
    if trace_path is not None:
        c.print(t("trace written to ", str(trace_path)))


def answer_line(trace: Any, names: dict[str, str] | None = None) -> Text:
    """The one line that answers: the final entity's name and ID, or the outcome and why not (a set
    answer's first member: ``render_trace`` shows the whole set and its completeness)."""
    return t(*answer_parts(trace, names))


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
    if is_set(trace):  # every member, then whether that is all: the first path alone is not the answer
        node = tree.add(t(f"answers ({len(trace.answers)}): ", completeness_words(trace.completeness)))
        for a in trace.answers:
            node.add(t(f"{a.id}: {' → '.join(a.path_ids)} via {', '.join(a.relations)}"))
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
