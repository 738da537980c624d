"""The case evaluation harness: run fixture worlds' cases offline and check their expectations.

``evaluate_cases(paths)`` runs every case of every world under ``paths`` (``chainret eval``);
``run_case`` runs one case (its overlay applied) through ``chainret.pipeline.ask.ask`` unprojected;
``check_case`` compares a trace with the case's expectation; ``totals`` gives the headline counts.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chainret.pipeline.ask import ask, failed_hop
from chainret.pipeline.baselines import run_text_routes
from chainret.store.caches import hop_world
from chainret.catalog.cases import Case, ExpectAccepted, ExpectNoPath, ExpectNoPattern, ExpectRefused
from chainret.catalog.load import apply_overlay, load_world
from chainret.catalog.models import Catalog
from chainret.catalog.views import open_view
from chainret.core.errors import UsageError
from chainret.trace.model import Budget, Trace


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



# A case without a budget of its own runs under the seed's fixture budget: the defaults, with the row limit set
# explicitly, so that it is the case's budget and a set's wider default limits (``core.budget.fanout_budget``)
# do not apply. The fixture cases are the seed's experiment, and its figures are reproduced under its budget;
# search and row totals still scale with the pattern's hops (``effective_budget``), and the trace's JSON is the
# default budget's.
SEED_BUDGET = Budget(rows_per_hop=Budget().rows_per_hop)

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
            seen = case.anchor_observed(i, trace.coverage.anchors_observed)
            if seen is not None and seen != want:
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
    sets: bool = True,
    baselines: bool = False,
    cases_file: str | None = None,
    store: Any = None,
) -> CaseResult:
    """Run one fixture case (overlay applied) offline and check its expectation.

    ``store``: a compiled store of the overlaid catalog to run on instead of the in-memory catalog
    (the parity tests compare the traces).
    """
    cat = apply_overlay(catalog, case.overlay, label=f"case {case.id} overlay")
    required = [a for a in case.anchors if a is not None]
    trace = ask(
        case.request,
        cat if store is None else store,
        view=case.view,
        principal=case.principal,
        budget=case.budget or SEED_BUDGET,
        backtrack=backtrack,
        sets=sets,
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
        first_anchor_observed=case.anchor_observed(0, trace.coverage.anchors_observed),
        second_anchor_observed=case.anchor_observed(1, trace.coverage.anchors_observed),
        complete_bundle=trace.coverage.complete_bundle,
        accepted=trace.outcome == "accepted_path",
    )
    if baselines:
        cv = open_view(cat, case.view, case.principal)
        res.baselines = run_text_routes(case, cv, hop_world(cv), case.budget or SEED_BUDGET)
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
        if not found:  # a catalog folder without cases: evaluated as its catalog file is (0 cases)
            found = [c for s in (".yaml", ".yml", ".json") if (c := p / f"catalog{s}").is_file()][:1]
        out.extend(found)
    if not out:
        raise UsageError(f"no cases files (cases.yaml) under {', '.join(map(str, paths))}")
    return out


def evaluate_cases(
    paths: Sequence[str | os.PathLike[str]], *, backtrack: bool = True, baselines: bool = False,
    root: Path | None = None,
) -> list[CaseResult]:
    """Run every case of every world under ``paths``; never raises on a failed expectation.

    Traces record each cases file relative to ``root`` (default: the working directory), so golden traces
    read the same from wherever they are made (``portable_path``)."""
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
                    cases_file=portable_path(w.cases_path, root),
                )
            )
    return results


def portable_path(path: Path | None, root: Path | None = None) -> str | None:
    """A path as recorded in traces: relative to ``root`` (default: the working directory) when inside it."""
    if path is None:
        return None
    base = (root or Path.cwd()).resolve()
    try:
        return Path(os.path.relpath(path.resolve(), base)).as_posix() if path.resolve().is_relative_to(base) else str(path.resolve())
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


# -- the tables `chainret eval` prints and docs/retriever.md publishes (one definition for both) --------------
CASE_COLUMNS = (
    "case", "group", "outcome", "1st anchor observed", "2nd anchor observed", "complete bundle in packet",
    "accepted path", "packet chars", "rows", "searches",
)
ROUTE_COLUMNS = ("case", "route", "1st anchor observed", "2nd anchor observed", "complete bundle in packet", "packet chars")


def yes_no(value: bool | None) -> str:
    return "—" if value is None else ("yes" if value else "no")


def case_cells(r: CaseResult) -> list[str]:
    """One case's cells under ``CASE_COLUMNS``."""
    return [
        r.case.id, r.case.group, r.trace.outcome, yes_no(r.first_anchor_observed), yes_no(r.second_anchor_observed),
        yes_no(r.complete_bundle), yes_no(r.accepted), str(r.trace.packet.cost) if r.trace.packet else "—",
        str(r.trace.rows_used), str(r.trace.searches_used),
    ]


def route_cells(results: Sequence[CaseResult]) -> list[list[str]]:
    """The text routes' rows under ``ROUTE_COLUMNS`` (cases of group "other" have none to compare)."""
    return [
        [r.case.id, b["route"], yes_no(b["first_anchor_observed"]), yes_no(b["second_anchor_observed"]),
         yes_no(b["complete_bundle"]), str(b["packet_chars"])]
        for r in results if r.case.group != "other" for b in (r.baselines[slot] for slot in sorted(r.baselines))
    ]
