"""What ``chainret ask`` prints, as lines of parts, and those lines as text without rich (issue 24).

``trace_items`` is the one description of the readable trace summary: a list of lines (each a list
of parts: ``"data"`` or ``("text", "style")``) and tables. ``chainret.cli.render.render_trace``
prints them with rich; ``plain_text`` turns them into the very bytes rich would write to a file or
pipe (no terminal: no styles, and each line whole, never wrapped), so a cold ``ask`` need not
import rich. It answers None (the caller then uses rich) whenever it cannot be sure of that:
a table wide enough to be drawn as a table rather than as records, or a character whose cell
width rich would measure with its Unicode tables.

Nothing here imports rich (``tests/test_ask_imports.py``); ``tests/test_cli_plain.py`` holds the
plain text byte-identical to rich's over every golden trace at many widths.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from typing import Any, NamedTuple

from chainret.core.codes import DefectCode, RefusalCode, ViewCode
from chainret.core.textsafe import visible

Part = str | tuple[str, str]
Line = list[Part]
LABEL_WIDTH = 13

# Plain words for every reason code a trace can carry.
REASONS: dict[str, str] = {
    RefusalCode.NO_PATTERN: "no relation pattern of this catalog matches the request's words (`chainret patterns` lists them)",
    RefusalCode.UNKNOWN_ENTITY: "the words in the slot do not name an entity of the slot's type in this view",
    RefusalCode.UNRELATED_ENTITY: "the words name an entity its descriptor declares, but no relation of it (no owner, ...) is in this view",
    RefusalCode.AMBIGUOUS_ALIAS: "the words in the slot name several entities; ask again with one canonical ID",
    RefusalCode.AMBIGUOUS_READING: "the words read as more than one pattern or entity; ask again with one of the phrasings or IDs listed",
    RefusalCode.EXCEEDS_MAX_HOPS: "the pattern needs more hops than --max-hops allows",
    RefusalCode.NO_VIEW_AT_TIME: "the request's time words name a day before every view, or disagree with --view",
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


class TableItem(NamedTuple):
    """A ``fit_table`` to print: plain cells (escaped when printed), at the console's width."""

    columns: tuple[str, ...]
    rows: list[list[str]]
    title: str | None


Item = Line | TableItem


def why_words(code: str) -> str:
    """Plain words for a comma-separated list of ``why`` codes."""
    codes = [c for c in str(code).split(",") if c]
    return "; ".join(f"{c} ({WHY[c]})" if c in WHY else c for c in codes) or "not usable"


def reason_words(code: str) -> str:
    return REASONS.get(code, "")


def field(label: str, *parts: Part) -> Line:
    """``label`` padded to the label column (bold), then the parts."""
    return [(label.ljust(LABEL_WIDTH), "bold"), *parts]


# -- tables that never break a word ---------------------------------------------------------------
_SPACE = re.compile(r"\s+")


def _longest_word(cell: str) -> int:
    return max((len(w) for w in _SPACE.split(cell)), default=0)


def _longest_line(cell: str) -> int:
    return max((len(line) for line in cell.split("\n")), default=0)


def column_widths(columns: Sequence[str], plain: Sequence[Sequence[str]], width: int) -> list[int] | None:
    """Each column's width in a table of ``width`` cells (never narrower than its longest word), or
    None when even that does not fit: the rows are then printed as labelled records."""
    n = len(columns)
    mins = [max([_longest_word(columns[i])] + [_longest_word(r[i]) for r in plain]) for i in range(n)]
    maxs = [max([_longest_line(columns[i])] + [_longest_line(r[i]) for r in plain]) for i in range(n)]
    frame = 3 * n + 1  # one space of padding either side of each cell and a rule between columns
    if sum(mins) + frame > width:
        return None
    spare = width - frame - sum(mins)
    want = [mx - mn for mn, mx in zip(mins, maxs, strict=True)]
    widths = list(mins)
    total_want = sum(want)
    if total_want <= spare:
        widths = list(maxs)
    elif total_want:
        for i in range(n):
            widths[i] += spare * want[i] // total_want
    return widths


def escape_cell(cell: object) -> str:
    return "\n".join(visible(x) for x in str(cell).split("\n"))


# -- the trace summary ----------------------------------------------------------------------------
def refusal_lines(ref: Any, indent: str = "  ") -> list[Line]:
    """A refusal's rejected relations, in plain words (what a viewer's projected trace still holds)."""
    out: list[Line] = []
    for r in ref.details.get("rejected", []) or []:
        out.append([indent, f"relation {r.get('relation')} in {r.get('unit')}: not usable: ", why_words(r.get("why", ""))])
    for w in ref.details.get("withheld", []) or []:
        out.append([indent, f"relation {w.get('relation')} in {w.get('unit')}: withheld from this principal: ",
                    why_words(w.get("why", ""))])
    if ref.details.get("not_returned"):
        out.append([indent, "supported elsewhere but not returned by this search: ", ", ".join(map(str, ref.details["not_returned"]))])
    if ref.details.get("opposing"):
        out.append([indent, "opposing assignments: ", ", ".join(map(str, ref.details["opposing"]))])
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


def _named(ident: str, names: dict[str, str]) -> Line:
    """An entity as the answer shows it: its name (bold green) and ID, or the ID alone without a name."""
    name = names.get(ident)
    return [(name, "bold green"), f" ({ident})"] if name else [(ident, "bold green")]


def answer_parts(trace: Any, names: dict[str, str] | None = None, *, label: bool = True) -> Line:
    """The one line that answers: the final entity's name and ID, or the outcome and why not.
    Without ``label`` (``--quiet``) an answer is its name and ID alone, and "no answer:" leads the rest.
    A set answer's first member only: ``answer_lines`` shows the whole set."""
    if trace.outcome == "accepted_path" and trace.path_ids:
        value = _named(trace.path_ids[-1], names or {})
        return field("answer", *value) if label else value
    line: Line = field("no answer", (trace.outcome, "yellow")) if label else ["no answer: ", (trace.outcome, "yellow")]
    if trace.reason is not None:
        line.append(f" — {trace.reason.message}")
    return line


def completeness_line(trace: Any, *, label: bool = True) -> Line:
    """A set answer's completeness (``chainret.render.answers.completeness_words``): green when it is all,
    yellow when the set shown is a part."""
    from chainret.render.answers import completeness_words

    c = trace.completeness
    words = (completeness_words(c), "green" if c.complete else "yellow")
    return field("completeness", words) if label else ["completeness: ", words]


def answer_lines(trace: Any, names: dict[str, str] | None = None, *, label: bool = True) -> list[Line]:
    """What answers: a set answer's members, one line each, then its completeness line (never a part of a
    set without it); else ``answer_parts``' one line. Without ``label`` (``--quiet``) one member per line and
    no completeness line (``run_ask`` writes it to stderr when the set is a part)."""
    from chainret.render.answers import check_words, count_words, is_empty_set, is_set

    number = count_words(trace)  # a count ask ("how many ..."): its number first, then the members it counts
    checked = check_words(trace, names)  # a yes/no ask ("is Bo on growth"): yes or no first, then the answers it rests on
    said = number if number is not None else checked[0] if checked is not None else None
    if said is not None and not label:  # -q: the number, or yes / no / not known, alone
        return [[(said, "bold green")]]
    head: list[Line] = [field("count", (number, "bold green"))] if number is not None else []
    if checked is not None:
        head.append(field("check", (checked[0], "bold green" if checked[0] != "not known" else "yellow"), f" — {checked[1]}"))
    if is_empty_set(trace):  # "none", an answer: the whole view was read and nothing matched
        return [*head, field("answer", ("none", "bold green")), completeness_line(trace)] if label else [[("none", "bold green")]]
    if not is_set(trace):
        return [*head, answer_parts(trace, names, label=label)]
    names = names or {}
    members = [_named(a.id, names) for a in trace.answers]
    if not label:
        return members
    word = "answers" if len(members) > 1 else "answer"
    return [*head, *(field(word if k == 0 else "", *m) for k, m in enumerate(members)), completeness_line(trace)]


def _path_lines(trace: Any) -> list[Line]:
    """The accepted path; a set answer's path to each member, in the members' order."""
    from chainret.render.answers import is_set

    paths = [(a.path_ids, a.relations) for a in trace.answers] if is_set(trace) else [(trace.path_ids, trace.accepted_path or [])]
    head = "paths" if len(paths) > 1 else "path"
    return [field(head if k == 0 else "", " → ".join(ids), f"  ({', '.join(rels)})") for k, (ids, rels) in enumerate(paths)]


def trace_items(trace: Any, *, names: dict[str, str] | None = None, suggestions: Sequence[tuple[str, str]] = (),
                quiet: bool = False) -> list[Item]:
    """The readable summary, the answer first: answer (or outcome; a set answer's members and completeness),
    path, then request, interpretation, hops, packet, outcome and reason. ``quiet``: the answer alone,
    unlabelled, a set one member per line (or why there is none)."""
    names = names or {}
    if quiet:
        return list(answer_lines(trace, names, label=False))
    out: list[Item] = list(answer_lines(trace, names))
    if trace.path_ids:
        out.extend(_path_lines(trace))
    out.append(field("request", trace.request))
    principal = trace.meta.get("principal") or (trace.interpretation.principal if trace.interpretation else "public")
    viewer = trace.meta.get("viewer") or principal
    note = "" if viewer == principal else " (audit view of a request that ran with the principal's access)"
    out.append(field("for", "principal ", (str(principal), "cyan"), " · shown to ", (str(viewer), "cyan"), note))
    it = trace.interpretation
    if it is not None:
        out.append(field("interpreted", f"pattern {it.pattern} · {it.slot} {it.slot_text!r} → ", (it.start_id, "cyan"),
                         f" · hops {' → '.join(it.predicates)} · view {it.view}"))
        out.extend(["  ", matched] for matched in match_lines(it))
    if trace.hops:
        cols = ("hop", "branch", "search", "returned rows", "anchor", "bridge", "left", "stopped")
        out.append(TableItem(cols, hop_rows(trace), "hops"))
        for h in trace.hops:
            if h.refusal is not None:
                out.append([f"  hop {h.index} (branch {h.branch}) stopped: ", (h.refusal.code, "yellow"), f" — {h.refusal.message}"])
                out.extend(refusal_lines(h.refusal, "    "))
    if trace.packet is not None:
        p = trace.packet
        out.append(field("packet", f"{len(p.items)} units, {p.cost} chars (cap {p.max_items} units / {p.budget} chars)"))
        out.extend(["  ", (item.ref, "dim"), "  ", item.text] for item in p.items)
    for pname, p in trace.packets.items():
        out.append([(pname, "bold yellow"), f" ({p.diagnostics.get('label', '')}): {len(p.items)} units, {p.cost} chars"])
        out.extend(["  ", (item.ref, "dim"), "  ", item.text[:120]] for item in p.items)
    colour = "green" if trace.outcome == "accepted_path" else "yellow"
    line = field("outcome", (trace.outcome, colour))
    if trace.reason is not None:
        line.append(f" — {trace.reason.message}")
    out.append(line)
    if trace.reason is not None:
        out.extend(_reason_items(trace.reason))
    if suggestions:
        out.append([("closest phrasings of this catalog:", "bold")])
        out.extend(["  ", phrasing, (f"   ({pattern})", "dim")] for pattern, phrasing in suggestions)
    out.extend([("assumption: ", "dim"), (a, "dim")] for a in trace.assumptions)
    used = (f"budget used: {trace.searches_used} of {trace.budget.max_searches} searches, "
            f"{trace.rows_used} of {trace.budget.max_rows} rows")
    out.append([(used, "dim")])
    return out


def _reason_items(reason: Any) -> list[Item]:
    words = reason_words(reason.code)
    out: list[Item] = [field("reason", (reason.code, "yellow"), f": {words}" if words else "")]
    for key in ("hop", "slot_text"):
        if key in reason.details:
            out.append([f"  {key.replace('_', ' ')}: ", str(reason.details[key])])
    if reason.details.get("tried"):
        out.append(["  bridges tried: ", ", ".join(map(str, reason.details["tried"]))])
    for f in reason.details.get("branch_failures", []) or []:
        out.append([f"  branch {f.get('details', {}).get('branch', '?')}: ", (str(f.get("code")), "yellow"),
                    f" — {f.get('message', '')}"])
        from chainret.trace.model import Refusal

        try:
            out.extend(refusal_lines(Refusal(**f), "    "))
        except (TypeError, ValueError):
            pass
    out.extend(refusal_lines(reason))
    out.extend([f"  candidate {cand.get('id')} ({cand.get('name')})"] for cand in reason.details.get("candidates", []) or [])
    return out


# -- the same lines as text, the way rich writes them to a file or pipe -----------------------------
# Characters rich measures as one cell without its Unicode tables (rich.cells' single-cell ranges),
# plus the few the summary itself writes; any other character sends the output through rich.
_ONE_CELL = frozenset(
    [chr(c) for lo, hi in ((0x20, 0x7E), (0xA0, 0xAC), (0xAE, 0x2FF), (0x370, 0x482)) for c in range(lo, hi + 1)]
    + ["→", "—", "…"]
)
def _split(text: str, allow_blank: bool) -> list[str]:
    """``rich.text.Text.split("\\n")``."""
    if "\n" not in text:
        return [text]
    lines = text.split("\n")
    if not allow_blank and text.endswith("\n"):
        lines.pop()
    return lines


def _record_lines(columns: Sequence[str], rows: list[list[str]], title: str | None) -> list[str]:
    """``chainret.cli.render._records`` as text: ``column  value`` lines, a blank line after each row."""
    label = max(len(c) for c in columns) + 2
    out = [visible(title)] if title else []
    for row in rows:
        for col, cell in zip(columns, row, strict=True):
            pieces = _split(cell, allow_blank=False) if cell else [""]
            out.extend((visible(col).ljust(label) if k == 0 else " " * label) + piece for k, piece in enumerate(pieces))
        out.append("")
    return out


def plain_text(items: Sequence[Item], width: int) -> str | None:
    """The bytes rich writes for ``items`` at ``width`` with no terminal, or None where only rich can say.

    With no terminal the console prints each line whole (``chainret.cli.render.make_console``: soft
    wrap), so ``width`` only decides whether a table is drawn as one or as records."""
    printed: list[str] = []
    for item in items:
        if isinstance(item, TableItem):
            cells = [[escape_cell(c) for c in row] for row in item.rows]
            if column_widths(item.columns, cells, width) is not None:
                return None  # drawn as a table: rich's
            printed.extend(_record_lines(item.columns, cells, item.title))
        else:
            printed.append("".join(visible(p if isinstance(p, str) else p[0]) for p in item))
    text = "\n".join(printed)
    if not _ONE_CELL.issuperset(text.replace("\n", "")):
        return None
    return "".join(line + "\n" for p in printed for line in _split(p, allow_blank=True))  # soft wrap: lines whole


def plain_stream_width() -> int | None:
    """The width rich's console would use on ``sys.stdout``, when it would write no terminal codes
    there and this process can write the same bytes itself; else None (print through rich).

    rich is left to it when already loaded: its console (perhaps one a test put there) decides."""
    if "chainret.cli.render" in sys.modules or "rich" in sys.modules:
        return None
    out = sys.stdout
    env = os.environ
    isatty = getattr(out, "isatty", None)
    if isatty is None or isatty() or getattr(out, "encoding", None) is None:
        return None
    if str(out.encoding).lower().replace("_", "-") not in ("utf-8", "utf8"):  # rich and this write the same str to it
        return None
    if any(k in env for k in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "JUPYTER_COLUMNS", "JUPYTER_LINES")):
        return None
    if os.name == "nt" or "idlelib" in getattr(sys.stdin, "__module__", "") or "IPython" in sys.modules:
        return None
    columns = env.get("COLUMNS")
    if columns is not None and columns.isdigit():
        return int(columns)
    width = None
    for fd in (0, 1, 2):  # rich.console._STD_STREAMS
        try:
            width = os.get_terminal_size(fd)[0]
        except (AttributeError, ValueError, OSError):
            continue
        break
    return width or 80
