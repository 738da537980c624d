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
from typing import Any

from chainret.authoring.header import Header, SourceInvalid, _source_case
from chainret.catalog.cases import CaseFile
from chainret.catalog.issues import Issue
from chainret.catalog.models import Catalog


def header_cases(header: Header, catalog: Catalog, header_file: Path, cases_file: Path, catalog_file: Path) -> CaseFile | None:
    """The header's cases with path expectations turned into relation IDs of the built catalog."""
    from chainret.catalog.parse import with_lines
    from chainret.checks import check_cases
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
                if not hits:
                    issues.append(Issue("expectation_inconsistent", "error", str(header_file), where,
                                        "expect.path", f"no eligible relation from {a} to {b} in view {cv.view_name!r} for {cv.principal!r}; "
                                        "update the case's path, or pin it to an earlier view (view: NAME)"))
                    break
                rels.append(hits[0].id)
            else:
                expect: dict[str, Any] = {"outcome": "accepted_path", "relations": rels, "bridges": list(path.path[1:])}
                if path.packet_chars is not None:
                    expect["packet_chars"] = path.packet_chars
                data = {**data, "anchors": rels, "expect": expect}
        out.append(data)
    if issues:
        raise SourceInvalid(with_lines(issues, header_file))
    rel_catalog = os.path.relpath(catalog_file, cases_file.parent)
    case_file = CaseFile.model_validate({"catalog": rel_catalog, "description": f"cases of world {header.world}", "cases": out})
    problems = [i for i in check_cases(list(case_file.cases), catalog, str(header_file)) if i.severity == "error"]
    if problems:
        raise SourceInvalid(problems)
    return case_file
