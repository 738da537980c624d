"""Tables -> a registry document: ``read_table`` and ``render_table`` (``chainret catalog import``).

A table exported from another system (CSV with a header row, or JSON Lines with one object per
line) has the columns ``subject``, ``predicate`` and ``object`` and optionally ``text`` (a
sentence kept beside the clause). Subjects and objects may be canonical IDs or the display name
or alias of exactly one entity of the predicate's domain / range. Each row becomes one paragraph
of a markdown document: its text (if any) and its clause ``REL subject | predicate | object``.
Rows are sorted by clause, so the same rows in another order render the same document (and a
rebuild keeps its version); an export is then auditable like any other document.

Every problem (missing column, unknown entity or predicate, duplicate row, non-UTF-8 file)
names the table file and line; nothing is rendered then.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

from chainret.authoring.header import (
    Header,
    SourceInvalid,
    closest,
    read_utf8_or_raise,
    source_issue,
)
from chainret.catalog.issues import Issue
from chainret.catalog.models import clause_text, normalize_name

REQUIRED = ("subject", "predicate", "object")
IMPORT_MARK = "Imported by chainret catalog import:"  # how a rendered document says where it came from
OPTIONAL = ("text",)


@dataclass(frozen=True)
class Row:
    line: int
    subject: str
    predicate: str
    object: str
    text: str


def _records(path: Path) -> list[tuple[int, dict[str, object]]]:
    """(line, record) pairs of a CSV or JSON Lines file; missing columns and bad lines are errors."""
    text = read_utf8_or_raise(path, "table")
    suffix = path.suffix.lower()
    issues: list[Issue] = []
    out: list[tuple[int, dict[str, object]]] = []
    if suffix in (".jsonl", ".ndjson"):
        for n, line in enumerate(text.split("\n"), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                issues.append(source_issue("syntax_error", path, n, f"invalid JSON: {exc.msg} (column {exc.colno})"))
                continue
            if not isinstance(record, dict):
                issues.append(source_issue("wrong_type", path, n, f"expected a JSON object per line, found {type(record).__name__}"))
                continue
            missing = [c for c in REQUIRED if c not in record]
            if missing:
                issues.append(source_issue("missing_column", path, n, f"missing field(s) {', '.join(missing)}; each line needs subject, predicate, object (text optional)"))
                continue
            out.append((n, record))
    elif suffix in (".csv", ".tsv"):
        reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t" if suffix == ".tsv" else ",")
        try:
            head = next(reader)
        except StopIteration:
            raise SourceInvalid([source_issue("missing_column", path, 1, "the table is empty; the first row must name the columns subject, predicate, object")]) from None
        columns = [c.strip() for c in head]
        missing = [c for c in REQUIRED if c not in columns]
        if missing:
            hint = "".join(closest(m, set(columns)) for m in missing)
            raise SourceInvalid([source_issue("missing_column", path, 1,
                                              f"missing column(s) {', '.join(missing)}; found {', '.join(columns) or 'none'}{hint}")])
        try:
            for values in reader:
                n = reader.line_num
                if not any(v.strip() for v in values):
                    continue
                if len(values) != len(columns):
                    issues.append(source_issue("wrong_type", path, n, f"expected {len(columns)} values, found {len(values)}"))
                    continue
                out.append((n, dict(zip(columns, values))))
        except csv.Error as exc:
            issues.append(source_issue("syntax_error", path, reader.line_num, f"invalid CSV: {exc}"))
    else:
        raise SourceInvalid([source_issue("unknown_format", path, None, "expected a .csv, .tsv, .jsonl or .ndjson table")])
    if issues:
        raise SourceInvalid(issues)
    return out


def read_table(path: str | Path, header: Header) -> list[Row]:
    """Rows of a table, each resolved to canonical IDs and checked against the header."""
    file = Path(path)
    entities = {e.id: e.entity() for e in header.entities}
    preds = {p.name: p for p in header.predicates}
    names: dict[tuple[str, str], list[str]] = {}
    for e in entities.values():
        for key in {normalize_name(e.id), normalize_name(e.name), *(normalize_name(a) for a in e.aliases)}:
            names.setdefault((e.type, key), []).append(e.id)
    issues: list[Issue] = []
    rows: list[Row] = []
    seen: dict[tuple[str, str, str], int] = {}
    for n, record in _records(file):
        values = {k: ("" if record.get(k) is None else str(record.get(k))).strip() for k in (*REQUIRED, *OPTIONAL)}
        pred = preds.get(values["predicate"])
        if pred is None:
            issues.append(source_issue("unknown_predicate", file, n, f"unknown predicate {values['predicate']!r}{closest(values['predicate'], set(preds))}"))
            continue
        ids: list[str] = []
        for role, want, allowed in (("subject", pred.domain, pred.domain_types), ("object", pred.range, pred.range_types)):
            value = values[role]
            if value in entities:
                hits = [value]
            else:
                hits = [i for t in allowed for i in names.get((t, normalize_name(value)), [])]
            if len(hits) == 1 and entities[hits[0]].type in allowed:
                ids.append(hits[0])
            elif len(hits) > 1:
                issues.append(source_issue("ambiguous_entity", file, n, f"{role} {value!r} names several {want} entities ({', '.join(sorted(hits))}); use the canonical ID"))
            elif value in entities:
                issues.append(source_issue("invalid_value", file, n, f"{role} {value} is a {entities[value].type}, but {pred.name!r} needs a {want}"))
            else:
                typed = {e.name for e in entities.values() if e.type in allowed} | {i for i in entities if i.split(":", 1)[0] in allowed}
                issues.append(source_issue("unknown_entity", file, n, f"unknown {role} {value!r}: no {want} has this ID, name or alias{closest(value, typed)}"))
        if len(ids) != 2:
            continue
        text = " ".join(values["text"].split())
        if text.startswith("REL ") or text == "REL":
            issues.append(source_issue("invalid_value", file, n, "the text column may not start with 'REL ' (that would read as a clause)"))
            continue
        triple = (ids[0], pred.name, ids[1])
        if triple in seen:
            issues.append(source_issue("duplicate_row", file, n, f"the same relation as line {seen[triple]}"))
            continue
        seen[triple] = n
        rows.append(Row(n, ids[0], pred.name, ids[1], text))
    if issues:
        raise SourceInvalid(issues)
    return rows


def render_table(rows: list[Row], *, title: str) -> str:
    """The document a table becomes: one paragraph per row (text, then clause), sorted by clause.

    Only the rows and the title shape the text (not the file's name or row order), so the same
    export under another name renders the same document and keeps its version.
    """
    lines = [f"# {title}", "", f"{IMPORT_MARK} {len(rows)} rows, one clause per row.", ""]
    for row in sorted(rows, key=lambda r: (r.subject, r.predicate, r.object)):
        if row.text:
            lines.append(row.text)
        lines.append(clause_text(row.subject, row.predicate, row.object))
        lines.append("")
    return "\n".join(lines)
