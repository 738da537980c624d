"""Header cases -> a ``chainret-cases/1`` file for the built catalog (``header_cases``).

A header case is a ``chainret-cases/1`` case in which what a person cannot know before the build
is written as entity IDs: an accepted path as ``expect: {outcome: accepted_path, path: [start,
bridge, …, answer]}`` and anchors as ``[subject, object]`` pairs (or null). The builder finds the
relation records: for a path, the eligible relation of each step in the case's view (clause
support first, then by ID); for an anchor, the relation of that pair whose document version is in
the view (valid records first).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chainret.authoring.header import Header, SourceInvalid, _source_case
from chainret.catalog.cases import CaseFile
from chainret.catalog.issues import Issue
from chainret.catalog.models import Catalog

if TYPE_CHECKING:
    from chainret.catalog.views import CatalogView


def header_cases(header: Header, catalog: Catalog, header_file: Path, cases_file: Path, catalog_file: Path, *,
                 failed: dict[tuple[str, str], int] | None = None, absent: dict[tuple[str, str], str] | None = None,
                 absent_documents: list[str] | None = None, notes: list[str] | None = None) -> CaseFile | None:
    """The header's cases with path expectations turned into relation IDs of the built catalog.

    A step with no eligible relation is an error saying why: the header relation for it that
    failed (``failed``: (subject, object) -> its index), or what the view holds from that entity.
    A case that needs a document absent from this snapshot is left out, with a line in ``notes``:
    its step is a header relation of that document (``absent``), or, while the header declares
    documents this snapshot lacks (``absent_documents``), a step's entity is named by no relation
    of the view (it lives in those documents)."""
    from chainret.catalog.parse import with_lines
    from chainret.catalog.checks import check_cases
    from chainret.catalog.views import open_view

    if not header.cases:
        return None
    out: list[dict[str, Any]] = []
    issues: list[Issue] = []
    for i, raw in enumerate(header.cases):
        data, path, pairs = _source_case(raw)
        where = f"cases[{i}] (id {data.get('id')})"
        if data.get("view") is not None and data["view"] not in catalog.views_by_name:
            issues.append(Issue("dangling_reference", "error", str(header_file), where, "view",
                                f"view {data['view']!r} is not in this catalog ({', '.join(catalog.views_by_name)}); "
                                f"name the build's view with --view {data['view']}"))
            continue
        cv = open_view(catalog, data.get("view"), data.get("principal", "public"))
        in_view = set(cv.view.documents)
        if pairs is not None:
            anchors: list[str | None] = []
            for j, pair in enumerate(pairs):
                if pair is None:
                    anchors.append(None)
                    continue
                hits = sorted((r for r in catalog.relations_by_subject.get(pair[0], ())
                               if r.object == pair[1] and r.support.doc_ref in in_view),
                              key=lambda r: (not cv.relation_status(r).valid, r.support.kind != "clause", r.id))
                if not hits:
                    issues.append(Issue("dangling_reference", "error", str(header_file), where, f"anchors.{j}",
                                        f"no relation from {pair[0]} to {pair[1]} in view {cv.view_name!r}"))
                    anchors.append(None)
                else:
                    anchors.append(hits[0].id)
            data = {**data, "anchors": anchors}
        if path is not None:
            rels: list[str] = []
            for a, b in zip(path.path, path.path[1:], strict=False):
                hits = sorted((r for r in catalog.relations_by_subject.get(a, ())
                               if r.object == b and cv.relation_status(r).eligible),
                              key=lambda r: (r.support.kind != "clause", r.id))
                gone = _needs_absent(catalog, cv, a, b, absent or {}, absent_documents or []) if not hits else ""
                if gone:
                    if notes is not None:
                        notes.append(f"case {data.get('id')} left out: {gone}")
                    break
                if not hits:
                    issues.append(Issue("expectation_inconsistent", "error", str(header_file), where,
                                        "expect.path", f"no eligible relation from {a} to {b} in view {cv.view_name!r} for {cv.principal!r}"
                                        f"{_why(catalog, cv, a, b, failed or {})}; "
                                        "update the case's path, or pin it to an earlier view (view: NAME)"))
                    break
                rels.append(hits[0].id)
            else:
                expect: dict[str, Any] = {"outcome": "accepted_path", "relations": rels, "bridges": list(path.path[1:])}
                if path.packet_chars is not None:
                    expect["packet_chars"] = path.packet_chars
                data = {**data, "anchors": rels, "expect": expect}
                out.append(data)
            continue
        out.append(data)
    if issues:
        raise SourceInvalid(with_lines(issues, header_file))
    rel_catalog = os.path.relpath(catalog_file, cases_file.parent)
    case_file = CaseFile.model_validate({"catalog": rel_catalog, "description": f"cases of world {header.world}", "cases": out})
    problems = [i for i in check_cases(list(case_file.cases), catalog, str(header_file)) if i.severity == "error"]
    if problems:
        raise SourceInvalid(problems)
    return case_file


def _why(catalog: Catalog, cv: CatalogView, a: str, b: str, failed: dict[tuple[str, str], int]) -> str:
    """Why a case's step has no relation: its header relation failed, or what ``a`` leads to now."""
    if (a, b) in failed:
        return f" (header relations[{failed[(a, b)]}], which says it, did not build: see its error)"
    now = sorted({f"{r.predicate} -> {r.object}" for r in catalog.relations_by_subject.get(a, ()) if cv.relation_status(r).eligible})
    if now:
        return f" (the view has from {a}: {', '.join(now[:5])}{' …' if len(now) > 5 else ''})"
    return f" (the view has no eligible relation from {a})"


def _needs_absent(catalog: Catalog, cv: CatalogView, a: str, b: str, absent: dict[tuple[str, str], str],
                  absent_documents: list[str]) -> str:
    """Why a step ``a -> b`` waits for a document absent from this snapshot, or ``""``."""
    if (a, b) in absent:
        return f"its step {a} -> {b} is said by {absent[(a, b)]}, absent from this snapshot"
    if absent_documents:
        in_view = set(cv.view.documents)
        named = {x for r in catalog.relations if r.support.doc_ref in in_view for x in (r.subject, r.object)}
        for entity in (a, b):
            if entity not in named:
                return (f"its step {a} -> {b} names {entity}, which no document of this snapshot names "
                        f"(absent here: {', '.join(absent_documents)})")
    return ""
