"""Library entry point: ``ask(request) -> Trace`` and ``evaluate_cases(...)``.

``ask`` interprets the request against the catalog's relation patterns, resolves the slot in the
requested view, runs the bounded hop engine over the units the principal may read, packs the
accepted path's supporting clauses, and projects the result for whoever will look at it.

Two principals, on purpose:

* ``principal`` is whose access the request runs under (the search index holds only the units
  this principal may read in the view; eligibility is this principal's).
* ``viewer`` (default: the principal) is who will see the trace. The projection rechecks every
  unit ref and relation for the viewer. An auditor viewing a public request (``viewer="auditor"``)
  sees the failed hop and what was withheld; a public viewer never does.

Nothing heavy is imported here (no torch, no sentence-transformers).
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chainret.catalog.cases import Case, ExpectAccepted, ExpectNoPath, ExpectNoPattern, ExpectRefused
from chainret.catalog.load import apply_overlay, default_catalog_path, load_world
from chainret.catalog.models import Catalog
from chainret.catalog.readable import reader_catalog, reads_within
from chainret.catalog.views import CatalogView, open_view
from chainret.errors import UsageError
from chainret.hops import HopWorld, Rel, effective_budget, run_chain
from chainret.patterns import PatternSpec, best_matches, match_request
from chainret.projection import project as project_trace
from chainret.search import LexicalIndex
from chainret.trace import Budget, Coverage, Interpretation, Packet, PacketItem, Refusal, Trace

PACKET_SEPARATOR = "\n\n"  # a paragraph break between supporting clauses (2 characters)
VIEW_CODES_NOT_CURRENT = ("not_current", "superseded")
VIEW_CODES_NOT_ELIGIBLE = ("removed", "restricted")


# -- catalog, view and index caching ----------------------------------------------------------
# Catalogs are frozen, so a digest, a view and the index built for it never go stale. Keys hold
# the catalog object itself so an id() is never reused for another catalog while cached.
_CACHE_SIZE = 16
_DIGESTS: OrderedDict[int, tuple[Catalog, str]] = OrderedDict()
_VIEWS: OrderedDict[tuple[str, str | None, str], CatalogView] = OrderedDict()
_WORLDS: OrderedDict[tuple[str, str, str], HopWorld] = OrderedDict()


def _remember(cache: OrderedDict[Any, Any], key: Any, value: Any) -> Any:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)
    return value


def catalog_digest(cat: Catalog) -> str:
    """``cat.digest()``, memoised per catalog object (it serialises the whole catalog)."""
    hit = _DIGESTS.get(id(cat))
    if hit is not None and hit[0] is cat:
        return hit[1]
    return _remember(_DIGESTS, id(cat), (cat, cat.digest()))[1]


def cached_view(cat: Catalog, view: str | None, principal: str) -> CatalogView:
    """``open_view`` with its lookups kept across requests on the same catalog."""
    key = (catalog_digest(cat), view, principal)
    hit = _VIEWS.get(key)
    if hit is not None and hit.catalog is cat:
        return hit
    return _remember(_VIEWS, key, open_view(cat, view, principal))


def hop_world(cv: CatalogView) -> HopWorld:
    """The engine's input for one (catalog, view, principal): readable units indexed, relation flags.

    Cached by catalog digest, view and principal: building the BM25 index is the expensive part.
    """
    key = (catalog_digest(cv.catalog), cv.view_name, cv.principal)
    hit = _WORLDS.get(key)
    if hit is not None:
        _WORLDS.move_to_end(key)
        return hit
    index = LexicalIndex(cv.catalog.search_texts(cv.unit_texts()))  # prose-supported units also carry the IDs they name
    functional = frozenset(p.name for p in cv.catalog.predicates if p.cardinality == "functional")
    relations_of = cv.catalog.relations_of
    flags: dict[str, Rel] = {}

    def flag(rel: Any) -> Rel:  # relation status is computed only for relations a request touches
        if rel.id not in flags:
            flags[rel.id] = relation_flags(cv, rel)
        return flags[rel.id]

    world = HopWorld(
        index,
        functional=functional,
        in_unit=lambda ref: [flag(r) for r in sorted(cv.relations_in_unit(ref), key=lambda r: r.id)],
        of_subject=lambda s, p: [flag(r) for r in sorted(relations_of(s, p), key=lambda r: r.id)],
    )
    return _remember(_WORLDS, key, world)


def catalog_path(catalog: str | os.PathLike[str] | None) -> Path:
    """The catalog file or directory a path argument (None = default) names."""
    path = Path(catalog) if catalog is not None else default_catalog_path()
    if not path.exists():
        raise UsageError(f"catalog {path} does not exist; pass --catalog PATH or set CHAINRET_CATALOG")
    return path


def resolve_catalog(catalog: Catalog | str | os.PathLike[str] | None) -> Catalog:
    """A Catalog object, a path (file, world directory, cases file), or None for the default catalog."""
    if isinstance(catalog, Catalog):
        return catalog
    return load_world(catalog_path(catalog)).catalog


def relation_flags(cv: CatalogView, rel: Any) -> Rel:
    """A catalog relation as the engine sees it in this view for this principal."""
    st = cv.relation_status(rel)
    unit = cv.supporting_unit(rel)
    sup = rel.support
    return Rel(
        id=rel.id,
        subject=rel.subject,
        predicate=rel.predicate,
        object=rel.object,
        unit_ref=unit.ref if unit is not None else None,
        source=sup.source,
        document=sup.document,
        version=sup.version,
        representation=sup.representation,
        digest=sup.digest or "",
        span=(sup.span[0], sup.span[1]),
        quote=sup.quote,
        current=not any(r in VIEW_CODES_NOT_CURRENT for r in st.reasons),
        eligible=not any(r in VIEW_CODES_NOT_ELIGIBLE for r in st.reasons),
        valid=st.valid,
        why_not=",".join(st.reasons) or None,
        support_kind=sup.kind,
    )


def catalog_graph(catalog: Catalog | str | os.PathLike[str] | None, view: str | None = None, principal: str = "public") -> Any:
    """The networkx MultiDiGraph of a catalog view (edge key = relation id, usability as attributes)."""
    from chainret.catalog.graph import build_graph

    cv = open_view(resolve_catalog(catalog), view, principal)
    ents = {e.id: {"type": e.type, "name": e.name} for e in cv.catalog.entities}
    return build_graph([relation_flags(cv, r) for r in cv.relations()], ents)


# -- interpretation -----------------------------------------------------------------------------
@dataclass
class Reading:
    """The outcome of interpretation: an Interpretation, or a refusal / no-pattern Refusal."""

    interpretation: Interpretation | None = None
    outcome: str | None = None  # "no_pattern" | "refused" when interpretation is None
    reason: Refusal | None = None
    meta: dict[str, Any] = field(default_factory=dict)


def pattern_specs(catalog: Catalog) -> list[PatternSpec]:
    return [PatternSpec(p.name, p.start_type, tuple(p.hops), tuple(p.phrasings)) for p in catalog.patterns]


def interpret(request: str, cv: CatalogView) -> Reading:
    """Match the request to a pattern and resolve its slot to one canonical ID in the view."""
    matches = best_matches(match_request(request, pattern_specs(cv.catalog)))
    if not matches:
        return Reading(
            outcome="no_pattern",
            reason=Refusal(code="no_pattern", message="no relation pattern applies to this request"),
        )
    unknown: list[dict[str, Any]] = []
    for m in matches:
        text = m.slot_text
        ents = cv.resolve(text, type=m.slot_type)
        first, _, rest = text.partition(" ")
        if not ents and rest and first.lower() == m.slot_type.lower():  # "project PR-84" -> "PR-84"
            text, ents = rest, cv.resolve(rest, type=m.slot_type)
        if len(ents) > 1:
            cands = [{"id": e.id, "name": e.name} for e in ents]
            return Reading(
                outcome="refused",
                reason=Refusal(
                    code="ambiguous_alias",
                    message=f"{text!r} names {len(ents)} {m.slot_type} entities: "
                    + ", ".join(f"{e.id} ({e.name})" for e in ents)
                    + "; ask again with one of these canonical IDs",
                    details={"slot_text": text, "candidates": cands},
                ),
                meta={"pattern": m.pattern.name, "slot": m.slot},
            )
        if len(ents) == 1:
            start = ents[0].id
            interp = Interpretation(
                pattern=m.pattern.name,
                slot=m.slot,
                slot_text=text,
                start_id=start,
                predicates=list(m.pattern.predicates),
                view=cv.view_name,
                principal=cv.principal,
            )
            return Reading(interpretation=interp, meta={"phrasing": m.phrasing})
        other = [e.id for e in cv.resolve(text)]
        unknown.append({"slot_text": text, "slot_type": m.slot_type, "other_types": other})
    u = unknown[0]
    extra = f" (it names {', '.join(u['other_types'])}, not a {u['slot_type']})" if u["other_types"] else ""
    return Reading(
        outcome="refused",
        reason=Refusal(
            code="unknown_entity",
            message=f"{u['slot_text']!r} is not a known {u['slot_type']} in this catalog{extra}",
            details=u,
        ),
        meta={"pattern": matches[0].pattern.name},
    )


# -- packet ----------------------------------------------------------------------------------------
def pack_items(items: Sequence[PacketItem], budget: Budget, separator: str = PACKET_SEPARATOR) -> Packet:
    """Pack items in order with the shared packing interface; cost = characters incl. separators."""
    from chainret.pack.base import Candidate, get_packer

    sep = len(separator)
    # Each item after the first also pays one separator; charging every item one separator and
    # granting one extra separator of budget keeps the joined text within packet_chars.
    cands = [Candidate(ref=i.ref, text=i.text, cost=len(i.text) + sep, doc_id=i.doc_id, span=i.span, relevance=1.0) for i in items]
    chosen = get_packer("naive").pack(cands, budget.packet_chars + sep, max_items=budget.packet_units)
    kept = [items[i] for i in chosen]
    text = separator.join(i.text for i in kept)
    return Packet(
        packer="naive",
        cost_unit="chars",
        budget=budget.packet_chars,
        max_items=budget.packet_units,
        separator=separator,
        items=kept,
        cost=len(text),
        text=text,
    )


def coverage(cv: CatalogView, required: Sequence[str], seen_refs: Sequence[str], packet: Packet | None) -> Coverage:
    """Anchor coverage (seen in any returned row) and complete-bundle coverage (all in the packet)."""
    units = {}
    for rid in required:
        rel = cv.catalog.relations_by_id.get(rid)
        u = cv.supporting_unit(rel) if rel is not None else None
        units[rid] = u.ref if u is not None else None
    seen = set(seen_refs)
    in_packet = {i.ref for i in packet.items} if packet else set()
    return Coverage(
        anchors_required=list(required),
        anchors_observed=[r for r in required if units[r] in seen],
        complete_bundle=bool(required) and all(units[r] in in_packet for r in required),
    )


# -- ask ---------------------------------------------------------------------------------------------
def ask(
    request: str,
    catalog: Catalog | str | os.PathLike[str] | None = None,
    view: str | None = None,
    principal: str = "public",
    budget: Budget | None = None,
    *,
    viewer: str | None = None,
    backtrack: bool = True,
    text_route: bool = False,
    required_anchors: Sequence[str] | None = None,
    project: bool = True,
) -> Trace:
    """Answer a relationship request with a supported chain, or say exactly why not.

    Args:
        request: the original words, e.g. ``"Which contact serves PR-84?"``.
        catalog: a Catalog, a path, or None for the default catalog (``$CHAINRET_CATALOG`` or catalogs/).
        view: view name (None = the catalog's current view).
        principal: whose access the request runs under.
        budget: request limits; unset search/row limits scale with the pattern's hop count.
        viewer: who will see the result (default: ``principal``); the projection is for them.
        backtrack: try another eligible, supported bridge of the same hop after a dead end.
        text_route: when no pattern applies, attach a clearly labelled text-route result.
        required_anchors: relation ids of the target bundle (fixture cases), for coverage.
        project: False returns the unprojected audit trace (offline evaluation).

    Returns:
        A ``Trace`` with outcome ``accepted_path``, ``partial_evidence``, ``no_pattern`` or ``refused``.

    Example:
        >>> ask("Which contact serves PR-84?").path_ids  # doctest: +SKIP
        ['project:final:main', 'org:final:north', 'contact:final:desk']
    """
    t0 = time.perf_counter()
    full = resolve_catalog(catalog)
    budget = budget or Budget()
    viewer = viewer or principal
    # A principal who may read what the viewer may not runs over the viewer's catalog: trimming a
    # trace computed over restricted text afterwards leaks (see chainret.projection).
    cat = full if not project or reads_within(full, principal, viewer) else reader_catalog(full, viewer)
    cv = cached_view(cat, view, principal)
    meta: dict[str, Any] = {
        "catalog": None if isinstance(catalog, Catalog) else str(catalog_path(catalog).resolve()),
        "world": cat.world,
        "view": cv.view_name,
        "principal": principal,
        "viewer": viewer if project else None,
        "backtrack": backtrack,
        "projected": project,
    }
    reading = interpret(request, cv)
    meta.update(reading.meta)
    base = {"request": request, "catalog_digest": catalog_digest(cat)}
    if reading.interpretation is None:
        assert reading.outcome is not None
        trace = Trace(**base, budget=budget, outcome=reading.outcome, reason=reading.reason, meta=meta)  # type: ignore[arg-type]
        if text_route and reading.outcome == "no_pattern":
            from chainret.baselines import text_route_result

            trace = text_route_result(trace, cv, budget)
    else:
        interp = reading.interpretation
        if len(interp.predicates) > budget.max_hops:
            reason = Refusal(
                code="exceeds_max_hops",
                message=f"pattern {interp.pattern!r} needs {len(interp.predicates)} hops but max_hops is "
                f"{budget.max_hops}; raise --max-hops to run it",
            )
            trace = Trace(**base, interpretation=interp, budget=budget, outcome="refused", reason=reason, meta=meta)
        else:
            trace = _run(cv, interp, budget, backtrack, required_anchors, base, meta)
    trace = trace.model_copy(update={"meta": {**trace.meta, "ask_ms": round((time.perf_counter() - t0) * 1000, 3)}})
    if project:
        trace = project_trace(trace, cat, viewer)
    elif holds_restricted(trace, cat):
        trace = trace.model_copy(update={"meta": {**trace.meta, "holds_restricted": True}})
    return trace


def holds_restricted(trace: Trace, cat: Catalog) -> bool:
    """True when an unprojected trace cites a document version that is not public (audit only)."""
    text = trace.to_json()
    return any(d.visibility != "public" and d.ref in text for d in cat.documents)


def _run(
    cv: CatalogView,
    interp: Interpretation,
    budget: Budget,
    backtrack: bool,
    required_anchors: Sequence[str] | None,
    base: dict[str, Any],
    meta: dict[str, Any],
) -> Trace:
    world = hop_world(cv)
    eff = effective_budget(budget, len(interp.predicates))
    run, path = run_chain(world, interp.start_id, interp.predicates, budget, backtrack=backtrack)
    packet = None
    if path is not None:
        items = [
            PacketItem(
                ref=r.unit_ref or "",
                text=r.quote,
                cost=len(r.quote),
                doc_id=f"{r.source}/{r.document}@{r.version}",
                span=r.span,
                relation_id=r.id,
            )
            for r in path
        ]
        packet = pack_items(items, eff)
        if len(packet.items) < len(items):  # the packet cap cannot hold the path: not exposed as one
            packet = None
            path = None
    reason = None if path is not None else overall_reason(run.failures, run.hops)
    required = list(required_anchors) if required_anchors is not None else ([r.id for r in path] if path else [])
    return Trace(
        **base,
        interpretation=interp,
        budget=eff,
        hops=run.hops,
        outcome="accepted_path" if path is not None else "partial_evidence",
        reason=reason,
        accepted_path=[r.id for r in path] if path else None,
        path_ids=[interp.start_id, *(r.object for r in path)] if path else None,
        coverage=coverage(cv, required, run.seen_refs, packet),
        packet=packet,
        assumptions=run.assumptions,
        searches_used=eff.max_searches - run.searches_left,
        rows_used=eff.max_rows - run.rows_left,
        meta=meta,
    )


def overall_reason(failures: Sequence[Refusal], hops: Sequence[Any]) -> Refusal:
    """Why no path: the single failure, or ``dead_end`` at the hop whose bridges were all tried."""
    if not failures:
        return Refusal(code="packet_too_small", message="the accepted path does not fit the packet cap")
    alts = sorted({h.index for h in hops if h.reuses is not None})
    last = failures[-1]
    if not alts or last.code == "budget_exhausted":
        return last
    k = alts[0]
    tried = [h.bridge or h.refusal.details.get("proposed") for h in hops if h.index == k and (h.bridge or h.refusal)]
    return Refusal(
        code="dead_end",
        message=f"hop {k}: every candidate bridge returned by its search was tried ({', '.join(b for b in tried if b)}) "
        "and none completed the chain",
        details={"hop": k, "tried": [b for b in tried if b], "branch_failures": [f.model_dump() for f in failures]},
    )


def failed_hop(trace: Trace) -> int | None:
    """The hop where a partial-evidence trace stopped (from its reason)."""
    if trace.reason is None:
        return None
    hop = trace.reason.details.get("hop")
    return int(hop) if hop is not None else None


# -- evaluation over fixture cases ----------------------------------------------------------------------
@dataclass
class CaseResult:
    """One case: its trace, measurement row and whether the expectation held."""

    world: str
    case: Case
    trace: Trace
    ok: bool
    problems: list[str]
    first_anchor_observed: bool | None
    second_anchor_observed: bool | None
    complete_bundle: bool
    accepted: bool
    baselines: dict[str, dict[str, Any]] = field(default_factory=dict)

    def row(self) -> dict[str, Any]:
        return {
            "world": self.world,
            "case": self.case.id,
            "group": self.case.group,
            "challenge": self.case.challenge,
            "outcome": self.trace.outcome,
            "first_anchor_observed": self.first_anchor_observed,
            "second_anchor_observed": self.second_anchor_observed,
            "complete_bundle": self.complete_bundle,
            "accepted_path": self.accepted,
            "packet_chars": self.trace.packet.cost if self.trace.packet else None,
            "ok": self.ok,
            "problems": self.problems,
            "baselines": self.baselines,
        }


def _observed(trace: Trace, case: Case, i: int) -> bool | None:
    if len(case.anchors) <= i or case.anchors[i] is None:
        return None
    return case.anchors[i] in trace.coverage.anchors_observed


def check_case(case: Case, trace: Trace) -> list[str]:
    """Differences between a case's expectation and the (offline, unprojected) trace."""
    exp = case.expect
    got = trace.outcome
    probs: list[str] = []
    if isinstance(exp, ExpectAccepted):
        if got != "accepted_path":
            probs.append(f"expected an accepted path, got {got} ({trace.reason.code if trace.reason else ''})")
        else:
            if trace.accepted_path != exp.relations:
                probs.append(f"relations {trace.accepted_path} != expected {exp.relations}")
            if (trace.path_ids or [])[1:] != exp.bridges:
                probs.append(f"bridges {(trace.path_ids or [])[1:]} != expected {exp.bridges}")
            if exp.packet_chars is not None and (trace.packet is None or trace.packet.cost != exp.packet_chars):
                probs.append(f"packet {trace.packet.cost if trace.packet else None} chars != expected {exp.packet_chars}")
    elif isinstance(exp, ExpectNoPath):
        if got != "partial_evidence":
            probs.append(f"expected no complete path, got {got}")
        else:
            if failed_hop(trace) != exp.failed_hop:
                probs.append(f"failed at hop {failed_hop(trace)}, expected hop {exp.failed_hop}")
            if trace.reason is None or trace.reason.code != exp.reason:
                probs.append(f"reason {trace.reason.code if trace.reason else None} != expected {exp.reason}")
        for i, want in enumerate(exp.observed):
            if _observed(trace, case, i) is not None and _observed(trace, case, i) != want:
                probs.append(f"anchor {i + 1} ({case.anchors[i]}) observed={not want}, expected {want}")
    elif isinstance(exp, ExpectNoPattern):
        if got != "no_pattern":
            probs.append(f"expected no pattern, got {got}")
    elif isinstance(exp, ExpectRefused):
        if got != "refused" or trace.reason is None or trace.reason.code != exp.reason:
            probs.append(f"expected refusal {exp.reason}, got {got} ({trace.reason.code if trace.reason else ''})")
    return probs


def run_case(
    catalog: Catalog,
    case: Case,
    *,
    world: str = "",
    backtrack: bool = True,
    baselines: bool = False,
    cases_file: str | None = None,
) -> CaseResult:
    """Run one fixture case (overlay applied) offline and check its expectation."""
    cat = apply_overlay(catalog, case.overlay, label=f"case {case.id} overlay")
    required = [a for a in case.anchors if a is not None]
    trace = ask(
        case.request,
        cat,
        view=case.view,
        principal=case.principal,
        budget=case.budget,
        backtrack=backtrack,
        required_anchors=required,
        project=False,
    )
    meta = {k: v for k, v in trace.meta.items() if k != "ask_ms"} | {"case": case.id}
    if cases_file is not None:
        meta["cases_file"] = cases_file
    trace = trace.model_copy(update={"meta": meta})
    probs = check_case(case, trace)
    res = CaseResult(
        world=world or cat.world,
        case=case,
        trace=trace,
        ok=not probs,
        problems=probs,
        first_anchor_observed=_observed(trace, case, 0),
        second_anchor_observed=_observed(trace, case, 1),
        complete_bundle=trace.coverage.complete_bundle,
        accepted=trace.outcome == "accepted_path",
    )
    if baselines:
        from chainret.baselines import run_text_routes

        cv = open_view(cat, case.view, case.principal)
        res.baselines = run_text_routes(case, cv, case.budget or Budget())
    return res


def find_worlds(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """World directories (holding a cases file) under the given paths, sorted."""
    out: list[Path] = []
    for p in map(Path, paths):
        if not p.exists():
            raise UsageError(f"{p} does not exist")
        if p.is_file():
            out.append(p)
            continue
        found = sorted({c.parent for s in (".yaml", ".yml", ".json") for c in p.rglob(f"cases{s}")})
        out.extend(found)
    if not out:
        raise UsageError(f"no cases files (cases.yaml) under {', '.join(map(str, paths))}")
    return out


def evaluate_cases(
    paths: Sequence[str | os.PathLike[str]], *, backtrack: bool = True, baselines: bool = False
) -> list[CaseResult]:
    """Run every case of every world under ``paths``; never raises on a failed expectation."""
    results: list[CaseResult] = []
    for wpath in find_worlds(paths):
        w = load_world(wpath)
        for case in w.cases:
            results.append(
                run_case(
                    w.catalog,
                    case,
                    world=w.catalog.world,
                    backtrack=backtrack,
                    baselines=baselines,
                    cases_file=_portable(w.cases_path),
                )
            )
    return results


def _portable(path: Path | None) -> str | None:
    """A path as recorded in traces: relative to the working directory when inside it (golden files)."""
    if path is None:
        return None
    try:
        return Path(os.path.relpath(path.resolve(), Path.cwd())).as_posix() if path.resolve().is_relative_to(Path.cwd()) else str(path.resolve())
    except ValueError:
        return str(path)


def totals(results: Sequence[CaseResult]) -> dict[str, Any]:
    """Headline counts: positive accepted, unsupported complete paths among challenges, pattern coverage."""
    pos = [r for r in results if r.case.group == "positive"]
    chal = [r for r in results if r.case.group == "challenge"]
    out: dict[str, Any] = {
        "cases": len(results),
        "expectations_met": sum(r.ok for r in results),
        "positive_accepted": [sum(r.accepted for r in pos), len(pos)],
        "unsupported_complete_paths": [sum(r.accepted for r in chal), len(chal)],
        "complete_bundles": [sum(r.complete_bundle for r in results), len(results)],
    }
    routes = sorted({k for r in results for k in r.baselines})
    for route in routes:
        rows = [r.baselines[route] for r in results if route in r.baselines]
        out[f"{route}:complete_bundles"] = [sum(bool(x["complete_bundle"]) for x in rows), len(rows)]
        out[f"{route}:positive_complete"] = [
            sum(bool(r.baselines[route]["complete_bundle"]) for r in pos if route in r.baselines),
            len(pos),
        ]
    return out
