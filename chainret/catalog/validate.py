"""Cross-record checks of a loaded catalog and its cases -> ``Issue`` list with stable codes.

``validate_paths(paths) -> list[WorldReport]`` is what ``chainret validate`` runs: each world
directory (its ``cases.*``, else ``catalog.*``, else a source folder's ``chainret.yaml``, built in
memory by ``validate_source``) or loose file is loaded (load errors become issues)
and checked by ``check_catalog`` (support defects: errors, the record is kept and marked invalid,
unless the record's ``expect_invalid`` names exactly its defects: a deliberate control, info;
document digests: warnings; pattern type chains: errors; view-time ineligibility: info; functional-predicate
contradictions per view and principal: warnings) and ``check_cases`` (views, overlays, anchors and
expected paths resolve and are consistent: errors). A report is valid when it has no error.

``relation_defects`` (the per-record support check views use) lives in ``chainret.catalog.defects``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from chainret.catalog.cases import Case, ExpectAccepted, ExpectNoPath
from chainret.catalog.issues import CatalogFileInvalid, Issue
from chainret.catalog.load import SUFFIXES, apply_overlay, load_cases, load_catalog, read_document
from chainret.catalog.defects import document_digest_ok, prose_unmentioned, relation_defects  # noqa: F401 - re-exported
from chainret.catalog.models import Catalog, Relation, parse_clause, sha256_digest
from chainret.codes import DefectCode
from chainret.patterns import phrasing_problem


def line_of(text: str, offset: int) -> int:
    """1-based line number of a character offset."""
    return text.count("\n", 0, offset) + 1


def occurrences(text: str, quote: str) -> list[int]:
    """Start offsets of every occurrence of ``quote`` in ``text`` (overlaps included)."""
    out, i = [], text.find(quote) if quote else -1
    while i >= 0:
        out.append(i)
        i = text.find(quote, i + 1)
    return out


def where_quote_occurs(text: str, quote: str) -> str:
    """``the quote occurs at [a, b) (line n)``, or that it occurs nowhere in this text."""
    found = occurrences(text, quote)
    if not found:
        return "the quote does not occur anywhere in this document version"
    at = ", ".join(f"[{s}, {s + len(quote)}] (line {line_of(text, s)})" for s in found[:5])
    more = f" and {len(found) - 5} more" if len(found) > 5 else ""
    return f"the quote occurs at {at}{more}"


# -- whole-world validation -------------------------------------------------------------------------

DEFECT_MESSAGES: dict[str, str] = {
    DefectCode.INVALID_DIGEST: "support digest is missing or does not match the document's content digest",
    DefectCode.SPAN_MISMATCH: "quoted text differs from the document text at the span",
    DefectCode.CLAUSE_MISMATCH: "the quoted clause does not reproduce the declared subject, predicate and object",
    DefectCode.PROSE_MISMATCH: "the quoted sentence does not mention both the subject and the object (by ID, name or alias)",
    DefectCode.REPRESENTATION_MISMATCH: "support representation differs from the document's",
    DefectCode.DOMAIN_MISMATCH: "subject type is not the predicate's domain",
    DefectCode.RANGE_MISMATCH: "object type is not the predicate's range",
}


@dataclass
class WorldReport:
    """What ``validate`` found for one target (a world directory or one file)."""

    target: str
    world: str = ""
    catalog_file: str = ""
    cases_file: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not any(i.severity == "error" for i in self.issues)

    def to_dict(self) -> dict[str, object]:
        return {"target": self.target, "world": self.world, "catalog_file": self.catalog_file,
                "cases_file": self.cases_file, "valid": self.valid, "counts": self.counts,
                "issues": [i.to_dict() for i in self.issues]}


def _describe(catalog: Catalog, rel: Relation) -> str:
    found = parse_clause(rel.support.quote)
    if found is None:
        return f"quote {rel.support.quote!r} is not a 'REL subject | predicate | object' clause"
    parts = []
    for name, want, got in zip(("subject", "predicate", "object"), (rel.subject, rel.predicate, rel.object), found, strict=True):
        if want != got:
            parts.append(f"{name}: declared {want!r}, clause has {got!r}")
    return "; ".join(parts)


_DEFECT_FIELDS = {"invalid_digest": "support.digest", "span_mismatch": "support.quote", "clause_mismatch": "support.quote",
                  "prose_mismatch": "support.quote", "representation_mismatch": "support.representation",
                  "domain_mismatch": "subject", "range_mismatch": "object"}


def defect_detail(catalog: Catalog, rel: Relation, code: str) -> str:
    """What is wrong, in words a person can act on (expected digest, where the quote really is, …)."""
    detail = DEFECT_MESSAGES[code]
    doc = catalog.documents_by_ref.get(rel.support.doc_ref)
    if code == "invalid_digest" and doc is not None:
        if rel.support.digest is None:
            detail = f"support digest is missing; the document version's digest is {sha256_digest(doc.text)}"
        elif doc.digest != sha256_digest(doc.text):
            detail = f"the document's own digest {doc.digest} does not match its text ({sha256_digest(doc.text)})"
        else:
            detail += f": expected {doc.digest}, found {rel.support.digest}"
    elif code == "clause_mismatch":
        detail += f" ({_describe(catalog, rel)})"
    elif code == "prose_mismatch":
        detail += f": not mentioned: {', '.join(f'{r} {getattr(rel, r)}' for r in prose_unmentioned(catalog, rel))}"
    elif code == "span_mismatch" and doc is not None:
        start, end = rel.support.span
        detail += f": text at {[start, end]} is {doc.text[start:end]!r}; {where_quote_occurs(doc.text, rel.support.quote)}"
    return detail


def relation_issues(catalog: Catalog, rel: Relation, where: str, file: str) -> list[Issue]:
    """A relation's support defects as issues: errors, unless ``expect_invalid`` names exactly these (info)."""
    defects = relation_defects(catalog, rel)
    expected = set(rel.expect_invalid)
    if expected and set(defects) == expected:
        return [Issue("expected_invalid", "info", file, where, "expect_invalid",
                      f"deliberate control, invalid as declared ({', '.join(defects)})")]
    out = [Issue(code, "error", file, where, _DEFECT_FIELDS[code], defect_detail(catalog, rel, code)) for code in defects]
    if expected:
        found = ", ".join(defects) or "no defect"
        out.append(Issue("expectation_inconsistent", "error", file, where, "expect_invalid",
                         f"expected defects {', '.join(sorted(expected))}, found {found}"))
    return out


def check_catalog(catalog: Catalog, file: str) -> list[Issue]:
    """Support, type, pattern and view-time checks of a loaded catalog."""
    from chainret.catalog.views import VIEW_CODES, open_view

    issues: list[Issue] = []
    for i, doc in enumerate(catalog.documents):
        if doc.digest != sha256_digest(doc.text):
            issues.append(Issue("document_digest_mismatch", "warning", file, f"documents[{i}] (ref {doc.ref})", "digest",
                                f"expected {sha256_digest(doc.text)} (sha256 of the text), found {doc.digest}"))
    for i, rel in enumerate(catalog.relations):
        issues.extend(relation_issues(catalog, rel, f"relations[{i}] (id {rel.id})", file))
    preds = catalog.predicates_by_name
    for i, pat in enumerate(catalog.patterns):
        where = f"patterns[{i}] (name {pat.name})"
        expected = pat.start_type
        for j, hop in enumerate(pat.hops):
            pred = preds.get(hop)
            if pred is None:
                continue
            if pred.domain != expected:
                issues.append(Issue("pattern_type_mismatch", "error", file, where, f"hops.{j}",
                                    f"hop {hop!r} starts at type {pred.domain!r}, but the chain reaches type {expected!r} here"))
            expected = pred.range
        for j, phrasing in enumerate(pat.phrasings):  # the rule `ask` matches with (chainret.patterns)
            problem = phrasing_problem(phrasing, pat.start_type)
            if problem is not None:
                issues.append(Issue("invalid_phrasing", "error", file, where, f"phrasings.{j}", problem))
    principals = sorted({"public", *(p for d in catalog.documents for p in d.principals)})
    for view in catalog.views:
        public = open_view(catalog, view.name, "public")
        for i, rel in enumerate(catalog.relations):
            status = public.relation_status(rel)
            shown = [r for r in status.reasons if r in VIEW_CODES and r != "not_current"]
            if shown and status.valid:
                issues.append(Issue("ineligible", "info", file, f"relations[{i}] (id {rel.id})", "",
                                    f"ineligible in view {view.name!r} for public: {', '.join(shown)}"))
        for principal in principals:
            cv = public if principal == "public" else open_view(catalog, view.name, principal)
            issues.extend(_contradictions(catalog, cv, file))
    return issues


def _contradictions(catalog: Catalog, cv: object, file: str) -> list[Issue]:
    from chainret.catalog.views import CatalogView

    assert isinstance(cv, CatalogView)
    out: list[Issue] = []
    functional = {p.name for p in catalog.predicates if p.cardinality == "functional"}
    groups: dict[tuple[str, str], list[Relation]] = {}
    for rel in cv.eligible_relations():
        if rel.predicate in functional:
            groups.setdefault((rel.subject, rel.predicate), []).append(rel)
    for (subject, predicate), rels in sorted(groups.items()):
        if len({r.object for r in rels}) > 1:
            ids = ", ".join(f"{r.id} -> {r.object}" for r in rels)
            out.append(Issue("contradiction", "warning", file, f"view {cv.view_name} (principal {cv.principal})", "",
                             f"functional predicate {predicate!r} has {len(rels)} current objects for {subject}: {ids}"))
    return out


def check_cases(cases: list[Case], catalog: Catalog, file: str) -> list[Issue]:
    """Is every case well-formed against its world (view, overlay, anchors, expected path)?"""
    from chainret.catalog.views import open_view

    issues: list[Issue] = []
    seen: dict[str, int] = {}
    hop_counts = {len(p.hops) for p in catalog.patterns}
    for i, case in enumerate(cases):
        where = f"cases[{i}] (id {case.id})"

        def err(code: str, fld: str, message: str, where: str = where) -> None:
            issues.append(Issue(code, "error", file, where, fld, message))

        if case.id in seen:
            err("duplicate_id", "id", f"duplicate case id {case.id!r}: already used by cases[{seen[case.id]}]")
        seen.setdefault(case.id, i)
        if case.view is not None and case.view not in catalog.views_by_name:
            err("dangling_reference", "view", f"expected one of {sorted(catalog.views_by_name)}, found {case.view!r}")
            continue
        try:
            world = apply_overlay(catalog, case.overlay, label=file)
        except CatalogFileInvalid as exc:
            for sub in exc.issues:
                err(sub.code, f"overlay.{sub.field}".rstrip("."), sub.message)
            continue
        for j, rid in enumerate(case.anchors):
            if rid is not None and rid not in world.relations_by_id:
                err("dangling_reference", f"anchors.{j}", f"expected a relation id of this world, found {rid!r}")
        if case.anchors and hop_counts and len(case.anchors) not in hop_counts:
            err("invalid_value", "anchors", f"expected one anchor per hop ({sorted(hop_counts)} hops), found {len(case.anchors)}")
        exp = case.expect
        if isinstance(exp, ExpectNoPath) and hop_counts and exp.failed_hop > max(hop_counts):
            err("invalid_value", "expect.failed_hop", f"expected at most {max(hop_counts)}, found {exp.failed_hop}")
        if isinstance(exp, ExpectAccepted):
            cv = open_view(world, case.view, case.principal)
            prev: str | None = None
            for j, (rid, bridge) in enumerate(zip(exp.relations, exp.bridges, strict=True)):
                rel = world.relations_by_id.get(rid)
                if rel is None:
                    err("dangling_reference", f"expect.relations.{j}", f"expected a relation id of this world, found {rid!r}")
                    continue
                if rel.object != bridge:
                    err("expectation_inconsistent", f"expect.bridges.{j}", f"relation {rid} ends at {rel.object!r}, found {bridge!r}")
                if prev is not None and rel.subject != prev:
                    err("expectation_inconsistent", f"expect.relations.{j}", f"relation {rid} starts at {rel.subject!r}, not at the previous bridge {prev!r}")
                status = cv.relation_status(rel)
                if not status.eligible:
                    err("expectation_inconsistent", f"expect.relations.{j}",
                        f"relation {rid} is not eligible in view {cv.view_name!r} for {case.principal!r}: {', '.join(status.reasons)}")
                prev = rel.object
    return issues


def discover(path: Path) -> list[Path]:
    """The files to validate under ``path``: a world directory's cases (or catalog) file, a source
    folder's header, else each file.

    Each directory is walked once (by device and inode), so a symlink loop cannot make the walk
    repeat or recurse; anything that is not a directory (a FIFO or device too) is a file to report on.
    """
    found: list[Path] = []
    seen: set[tuple[int, int]] = set()
    stack = [path]
    while stack:
        current = stack.pop()
        if not current.is_dir():
            found.append(current)
            continue
        st = current.stat()
        if (st.st_dev, st.st_ino) in seen:
            continue
        seen.add((st.st_dev, st.st_ino))
        world = next((current / f"{stem}{suffix}" for stem in ("cases", "catalog") for suffix in SUFFIXES
                      if (current / f"{stem}{suffix}").is_file()), None)
        if world is None and (current / SOURCE_HEADER).is_file():
            world = current / SOURCE_HEADER  # a source folder: built in memory and checked (validate_source)
        if world is not None:
            found.append(world)
            continue
        try:
            children = sorted(current.iterdir())
        except OSError as exc:
            from chainret.errors import UsageError

            raise UsageError(f"{current}: cannot list this directory: {exc.strerror}") from None
        below: list[Path] = []
        for child in children:
            if child.name.startswith((".", "_")):
                continue
            if child.is_dir():
                below.append(child)
            elif child.suffix in SUFFIXES:
                below.append(child)
        stack.extend(reversed(below))
    return found


SOURCE_HEADER = "chainret.yaml"  # chainret.authoring.header.HEADER_NAME


def validate_source(header: Path) -> WorldReport:
    """A source folder: built in memory from scratch (as ``chainret catalog build`` would) and checked.

    A fresh build has one view, so cases pinned to a named view (the catalog's history) are not
    checked here but listed as info; validate the built catalog for those.
    """
    from chainret.authoring.build import build
    from chainret.authoring.header import Header, SourceInvalid, read_header

    report = WorldReport(target=str(header.parent))
    try:
        parsed = read_header(header)
        pinned = [c for c in parsed.cases if isinstance(c, dict) and c.get("view") is not None]
        if pinned:
            parsed = Header.model_validate({**parsed.model_dump(), "cases": [c for c in parsed.cases if c not in pinned]})
        result = build(header.parent, header.parent / "_validate" / "catalog.yaml", fresh=True, parsed=parsed)
    except SourceInvalid as exc:
        report.issues.extend(exc.issues)
        return report
    catalog, cases = result.catalog, list(result.cases.cases) if result.cases else []
    report.world, report.catalog_file, report.cases_file = catalog.world, str(header), str(header) if cases else ""
    report.issues.extend(check_catalog(catalog, str(header)))
    for c in pinned:
        report.issues.append(Issue("not_checked", "info", str(header), f"case {c.get('id')}", "view",
                                   f"pinned to view {c['view']!r}: checked when the built catalog is validated"))
    report.counts = {"entities": len(catalog.entities), "documents": len(catalog.documents),
                     "relations": len(catalog.relations),
                     "invalid_relations": sum(1 for r in catalog.relations if relation_defects(catalog, r)),
                     "views": len(catalog.views), "patterns": len(catalog.patterns), "cases": len(cases)}
    return report


def validate_file(path: Path) -> WorldReport:
    if path.name == SOURCE_HEADER:
        return validate_source(path)
    report = WorldReport(target=str(path))
    try:
        kind, _ = read_document(path)
        if kind == "cases":
            case_file, catalog, catalog_path = load_cases(path)
            cases = list(case_file.cases)
            report.cases_file = str(path)
        else:
            catalog, catalog_path, cases = load_catalog(path), path, []
    except CatalogFileInvalid as exc:
        report.issues.extend(exc.issues)
        return report
    report.world, report.catalog_file = catalog.world, str(catalog_path)
    report.issues.extend(check_catalog(catalog, str(catalog_path)))
    report.issues.extend(check_cases(cases, catalog, str(path)))
    invalid = sum(1 for r in catalog.relations if relation_defects(catalog, r))
    report.counts = {"entities": len(catalog.entities), "documents": len(catalog.documents),
                     "relations": len(catalog.relations), "invalid_relations": invalid,
                     "views": len(catalog.views), "patterns": len(catalog.patterns), "cases": len(cases)}
    return report


def validate_paths(paths: list[str | os.PathLike[str]]) -> list[WorldReport]:
    """Validate every world or file under ``paths`` (missing paths are a ``UsageError``)."""
    from chainret.errors import UsageError

    reports: list[WorldReport] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            kind = "a symlink loop or a dangling symlink" if p.is_symlink() else "no such file or directory"
            raise UsageError(f"{p}: {kind}")
        files = discover(p)
        if not files:
            raise UsageError(f"{p}: no catalog or cases files (*.yaml, *.yml, *.json) found")
        reports.extend(validate_file(f) for f in files)
    return reports
