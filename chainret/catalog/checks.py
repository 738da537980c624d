"""Cross-record checks of a loaded catalog and its cases -> ``Issue`` list with stable codes.

``check_catalog`` (support defects: errors, the record is kept and marked invalid, unless the
record's ``expect_invalid`` names exactly its defects: a deliberate control, info; document
digests: warnings; pattern type chains and phrasings: errors; view-time ineligibility: info;
functional-predicate contradictions per view and principal: warnings) and ``check_cases`` (views,
overlays, anchors and expected paths resolve and are consistent: errors).

The phrasing check is the rule ``ask`` matches with (``chainret.catalog.patterns``), so this module sits
above the engine's pattern layer; ``chainret validate`` (``chainret.evaluate.validate``) and the authoring
build both run it.

Where each validation rule lives (one home each):

- file bounds, syntax, field shapes and types: ``chainret.catalog.parse`` and the models
  (``chainret.catalog.models``, ``chainret.catalog.cases``), located by record and line;
- duplicate IDs, dangling references, wrong worlds, spans out of range: ``chainret.catalog.references``,
  for a loaded catalog, an overlay's result and a source header alike;
- one relation's support (digest, span, clause, prose mention, domain/range): ``chainret.catalog.defects``;
- whole-catalog and case checks (document digests, pattern chains, phrasings, view-time
  eligibility, contradictions; cases against their world): this module;
- what only a source header has (a file listed twice, a case written with entity IDs):
  ``chainret.authoring.header``; what only source files have (quotes, clause lines): ``chainret.authoring.build``.

``chainret.catalog.issues`` is the finding they all return; ``chainret.evaluate.validate`` runs them per target.
"""

from __future__ import annotations

from chainret.catalog.cases import Case, ExpectAccepted, ExpectNoPath
from chainret.catalog.defects import prose_unmentioned, relation_defects
from chainret.catalog.issues import CatalogFileInvalid, Issue
from chainret.catalog.overlay import apply_overlay
from chainret.catalog.models import Catalog, Relation, functional_names, parse_clause, sha256_digest
from chainret.catalog.quotes import where_quote_occurs
from chainret.catalog.views import VIEW_CODES, CatalogView, open_view
from chainret.core.codes import DefectCode
from chainret.catalog.functional import contradictions
from chainret.catalog.patterns import phrasing_problem

DEFECT_MESSAGES: dict[str, str] = {
    DefectCode.INVALID_DIGEST: "support digest is missing or does not match the document's content digest",
    DefectCode.SPAN_MISMATCH: "quoted text differs from the document text at the span",
    DefectCode.CLAUSE_MISMATCH: "the quoted clause does not reproduce the declared subject, predicate and object",
    DefectCode.PROSE_MISMATCH: "the quoted sentence does not mention both the subject and the object (by ID, name or alias)",
    DefectCode.REPRESENTATION_MISMATCH: "support representation differs from the document's",
    DefectCode.DOMAIN_MISMATCH: "subject type is not the predicate's domain",
    DefectCode.RANGE_MISMATCH: "object type is not the predicate's range",
}


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


def relation_issues(catalog: Catalog, rel: Relation, where: str, file: str,
                    defects: tuple[DefectCode, ...] | None = None) -> list[Issue]:
    """A relation's support defects as issues: errors, unless ``expect_invalid`` names exactly these (info).
    ``defects``: its ``relation_defects``, when the caller has them already."""
    defects = relation_defects(catalog, rel) if defects is None else defects
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
    issues: list[Issue] = []
    for i, doc in enumerate(catalog.documents):
        if doc.digest != sha256_digest(doc.text):
            issues.append(Issue("document_digest_mismatch", "warning", file, f"documents[{i}] (ref {doc.ref})", "digest",
                                f"expected {sha256_digest(doc.text)} (sha256 of the text), found {doc.digest}"))
    # Each record's defects, once: they are the same in every view and for every principal (a view adds
    # its own reasons, ``CatalogView.view_reasons``). Checked per view through ``relation_status``, a
    # 245,000-relation import computed them twice and cached a status per relation at its peak of memory.
    defects = [relation_defects(catalog, rel) for rel in catalog.relations]
    for i, (rel, found) in enumerate(zip(catalog.relations, defects, strict=True)):
        issues.extend(relation_issues(catalog, rel, f"relations[{i}] (id {rel.id})", file, found))
    preds = catalog.predicates_by_name
    for i, pat in enumerate(catalog.patterns):
        where = f"patterns[{i}] (name {pat.name})"
        # The types the chain may reach so far: a hop must start at one of them (a union range such
        # as group|user may go on with a hop from groups only: a user-owned entity has no parent group).
        reach: tuple[str, ...] = (pat.start_type,)
        for j, hop in enumerate(pat.hops):
            pred = preds.get(hop)
            if pred is None:
                continue
            if not set(reach) & set(pred.domain_types):
                issues.append(Issue("pattern_type_mismatch", "error", file, where, f"hops.{j}",
                                    f"hop {hop!r} starts at type {pred.domain!r}, but the chain reaches type {'|'.join(reach)!r} here"))
            reach = pred.range_types
        for j, phrasing in enumerate(pat.phrasings):  # the rule `ask` matches with (chainret.catalog.patterns)
            problem = phrasing_problem(phrasing, pat.start_type)
            if problem is not None:
                issues.append(Issue("invalid_phrasing", "error", file, where, f"phrasings.{j}", problem))
    principals = sorted({"public", *(p for d in catalog.documents for p in d.principals)})
    for view in catalog.views:
        public = open_view(catalog, view.name, "public")
        public_reasons = [public.view_reasons(rel) for rel in catalog.relations]  # (mostly the one empty tuple)
        for i, (rel, found, reasons) in enumerate(zip(catalog.relations, defects, public_reasons, strict=True)):
            shown = [r for r in reasons if r in VIEW_CODES and r != "not_current"]
            if shown and not found:  # (a valid record: ``Eligibility.valid``)
                issues.append(Issue("ineligible", "info", file, f"relations[{i}] (id {rel.id})", "",
                                    f"ineligible in view {view.name!r} for public: {', '.join(shown)}"))
        for principal in principals:
            cv = public if principal == "public" else open_view(catalog, view.name, principal)
            reasons_of = public_reasons if cv is public else (cv.view_reasons(rel) for rel in catalog.relations)
            eligible = [rel for rel, found, reasons in zip(catalog.relations, defects, reasons_of, strict=True)
                        if not found and not reasons]  # (``cv.eligible_relations()``)
            issues.extend(_contradictions(catalog, cv, file, eligible))
    return issues


def _contradictions(catalog: Catalog, cv: CatalogView, file: str, eligible: list[Relation]) -> list[Issue]:
    """``eligible``: ``cv.eligible_relations()``, from the defects already found."""
    out: list[Issue] = []
    for (subject, predicate), rels in contradictions(eligible, functional_names(catalog.predicates)).items():
        ids = ", ".join(f"{r.id} -> {r.object}" for r in rels)
        out.append(Issue("contradiction", "warning", file, f"view {cv.view_name} (principal {cv.principal})", "",
                         f"functional predicate {predicate!r} has {len(rels)} current objects for {subject}: {ids}"))
    return out


def check_cases(cases: list[Case], catalog: Catalog, file: str) -> list[Issue]:
    """Is every case well-formed against its world (view, overlay, anchors, expected path)?"""
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
