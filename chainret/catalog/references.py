"""Cross-record reference checks: duplicate IDs, dangling references, wrong worlds, spans out of range.

The one home of these rules: a loaded catalog (``reference_issues``), a case's overlay applied to
its world, and a source header (``chainret.authoring.header.header_issues``, through
``declared_issues``) are all checked here, so the same bad record gives the same error wherever it
is written.
"""

from __future__ import annotations

from collections.abc import Sequence

from chainret.catalog.issues import Issue
from chainret.catalog.models import Catalog, Entity, Pattern, Predicate, split_doc_ref, type_union
from chainret.catalog.functional import Triple


def wrong_world_message(world: str, found: str) -> str:
    """The one wording of an entity from another world (the whole-catalog check and the streamed compile)."""
    return f"expected an ID in world {world!r} (type:{world}:name), found world {found!r}"


def duplicate_message(label: str, key: str, kind: str, first: int) -> str:
    """The one wording of a duplicate key (the whole-catalog check and the streamed compile)."""
    return f"duplicate {label} {key!r}: already used by {kind}[{first}]"


def reference_issues(cat: Catalog, file: str) -> list[Issue]:
    """Duplicates, dangling references and out-of-range spans: the load-time cross-record checks."""
    from chainret.catalog.suggest import did_you_mean

    issues = declared_issues(cat.world, cat.entities, cat.predicates, cat.patterns, cat.relations, file)

    def err(code: str, where: str, fld: str, message: str) -> None:
        issues.append(Issue(code, "error", file, where, fld, message))

    _duplicates(issues, file, "documents", [d.ref for d in cat.documents], "ref")
    _duplicates(issues, file, "relations", [r.id for r in cat.relations], "id")
    _duplicates(issues, file, "views", [v.name for v in cat.views], "name")
    docs = cat.documents_by_ref
    for i, r in enumerate(cat.relations):
        where = f"relations[{i}] (id {r.id})"
        doc = docs.get(r.support.doc_ref)
        if doc is None:
            err("dangling_reference", where, "support",
                f"expected a declared document version, found {r.support.doc_ref!r}{did_you_mean(r.support.doc_ref, docs)}")
        elif r.support.span[1] > len(doc.text):
            err("span_out_of_range", where, "support.span",
                f"expected a span within the document's {len(doc.text)} characters, found {list(r.support.span)}")
    for i, v in enumerate(cat.views):
        seen: dict[str, str] = {}
        for j, ref in enumerate(v.documents):
            if ref not in docs:
                err("dangling_reference", f"views[{i}] (name {v.name})", f"documents.{j}",
                    f"expected a declared document version, found {ref!r}{did_you_mean(ref, docs)}")
            src, doc_name, _ = split_doc_ref(ref)
            doc_id = f"{src}/{doc_name}"
            if doc_id in seen:
                err("duplicate_id", f"views[{i}] (name {v.name})", f"documents.{j}",
                    f"a view holds one version per document: {seen[doc_id]!r} and {ref!r}")
            seen[doc_id] = ref
    if cat.views and sum(v.current for v in cat.views) > 1:
        err("invalid_value", "views", "current", "expected at most one view marked current, found several")
    return issues


def declared_issues(world: str, entities: Sequence[Entity], predicates: Sequence[Predicate], patterns: Sequence[Pattern],
                    relations: Sequence[Triple], file: str) -> list[Issue]:
    """The checks a catalog and a source header share: duplicate entity, predicate and pattern names,
    each entity ID in the world, and every type and predicate a predicate, pattern or relation names
    declared (with the closest declared name for a typo)."""
    from chainret.catalog.suggest import did_you_mean

    issues: list[Issue] = []

    def err(code: str, where: str, fld: str, message: str) -> None:
        issues.append(Issue(code, "error", file, where, fld, message))

    _duplicates(issues, file, "entities", [e.id for e in entities], "id")
    _duplicates(issues, file, "predicates", [p.name for p in predicates], "name")
    _duplicates(issues, file, "patterns", [p.name for p in patterns], "name")
    ents = {e.id for e in entities}
    preds = {p.name for p in predicates}
    types_known = {e.type for e in entities}
    listed_types, listed_preds = ", ".join(sorted(types_known)) or "none", ", ".join(sorted(preds)) or "none"
    for i, e in enumerate(entities):
        if e.world != world:
            err("wrong_world", f"entities[{i}] (id {e.id})", "id", wrong_world_message(world, e.world))
    for i, p in enumerate(predicates):
        for fld in ("domain", "range"):
            for value in type_union(getattr(p, fld)):  # "group|user": each type of the union
                if value not in types_known:
                    err("dangling_reference", f"predicates[{i}] (name {p.name})", fld,
                        f"expected an entity type declared by some entity ({listed_types}), found {value!r}"
                        f"{did_you_mean(value, types_known)}")
    for i, r in enumerate(relations):
        rid = getattr(r, "id", None)  # a header's prose relation has none yet
        where = f"relations[{i}]" + (f" (id {rid})" if rid else "")
        for fld in ("subject", "object"):
            value = getattr(r, fld)
            if value not in ents:
                err("dangling_reference", where, fld, f"expected a declared entity ID, found {value!r}{did_you_mean(value, ents)}")
        if r.predicate not in preds:
            err("dangling_reference", where, "predicate",
                f"expected a declared predicate ({listed_preds}), found {r.predicate!r}{did_you_mean(r.predicate, preds)}")
    for i, pat in enumerate(patterns):
        where = f"patterns[{i}] (name {pat.name})"
        if pat.start_type not in types_known:
            err("dangling_reference", where, "start_type",
                f"expected a declared entity type, found {pat.start_type!r}{did_you_mean(pat.start_type, types_known)}")
        for j, hop in enumerate(pat.hops):
            if hop not in preds:
                err("dangling_reference", where, f"hops.{j}",
                    f"expected a declared predicate ({listed_preds}), found {hop!r}{did_you_mean(hop, preds)}")
    return issues


def _duplicates(issues: list[Issue], file: str, kind: str, keys: list[str], label: str) -> None:
    first: dict[str, int] = {}
    for i, key in enumerate(keys):
        if key in first:
            issues.append(Issue("duplicate_id", "error", file, f"{kind}[{i}] ({label} {key})", label,
                                duplicate_message(label, key, kind, first[key])))
        else:
            first[key] = i
