"""Replaying traces against the catalog (``chainret trace verify``) and golden traces (``traces/``).

A trace records the request, view, principal, viewer, budget and catalog digest, so it can be run
again. ``verify_trace`` reports every difference as ``{"kind", "message"}``:

* ``digest``: the catalog content changed since the trace was written;
* ``eligibility``: an anchor or packet unit is no longer readable/eligible for the principal;
* ``outcome`` / ``path`` / ``hops``: the replay gives a different result.

Golden traces are the offline (unprojected) traces of every fixture case, one file per case at
``<root>/<world>/<case>.json``; ``chainret eval fixtures --update-golden traces`` rewrites them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from chainret.errors import UsageError
from chainret.trace import Budget, Trace, write_trace

VOLATILE_META = ("ask_ms",)


def golden_path(root: str | os.PathLike[str], world: str, case_id: str) -> Path:
    return Path(root) / world / f"{case_id}.json"


def stable(trace: Trace) -> Trace:
    """The trace without run-dependent fields (timings), as stored in golden files."""
    return trace.model_copy(update={"meta": {k: v for k, v in trace.meta.items() if k not in VOLATILE_META}})


def write_golden(results: Sequence[Any], root: str | os.PathLike[str]) -> list[Path]:
    """Write each case result's trace to its golden file (atomic writes)."""
    return [write_trace(stable(r.trace), golden_path(root, r.world, r.case.id)) for r in results]


def _hop_summary(t: Trace) -> list[tuple[Any, ...]]:
    return [
        (h.index, h.branch, h.subquery, tuple(x.ref for x in h.hits), h.bridge, h.refusal.code if h.refusal else None)
        for h in t.hops
    ]


def compare(old: Trace, new: Trace) -> list[dict[str, str]]:
    """Differences in result between a recorded trace and its replay."""
    diffs: list[dict[str, str]] = []
    if old.outcome != new.outcome:
        diffs.append({"kind": "outcome", "message": f"outcome was {old.outcome}, replay gives {new.outcome}"})
    if old.accepted_path != new.accepted_path or old.path_ids != new.path_ids:
        diffs.append({"kind": "path", "message": f"path was {old.path_ids} {old.accepted_path}, replay gives {new.path_ids} {new.accepted_path}"})
    a, b = _hop_summary(old), _hop_summary(new)
    if a != b:
        first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        diffs.append({"kind": "hops", "message": f"hop record {first + 1} differs: was {a[first] if first < len(a) else None}, replay {b[first] if first < len(b) else None}"})
    if (old.reason.code if old.reason else None) != (new.reason.code if new.reason else None):
        diffs.append({"kind": "outcome", "message": f"reason was {old.reason.code if old.reason else None}, replay gives {new.reason.code if new.reason else None}"})
    return diffs


def _eligibility(trace: Trace, catalog: Any) -> list[dict[str, str]]:
    from chainret.store.memory import cached_view as open_view  # a Catalog or a compiled store

    view = trace.meta.get("view")
    principal = trace.meta.get("principal", "public")
    try:
        cv = open_view(catalog, view, principal)
    except UsageError as exc:
        return [{"kind": "eligibility", "message": str(exc)}]
    diffs = []
    anchors = [h.anchor for h in trace.hops if h.anchor is not None]
    for a in anchors:
        if a.relation_id not in catalog.relations_by_id:
            diffs.append({"kind": "eligibility", "message": f"relation {a.relation_id} no longer exists"})
        elif not cv.relation_status(a.relation_id).eligible:
            why = ", ".join(cv.relation_status(a.relation_id).reasons)
            diffs.append({"kind": "eligibility", "message": f"relation {a.relation_id} is no longer eligible for {principal} in view {cv.view_name} ({why})"})
        if cv.unit(a.unit_ref) is None:
            diffs.append({"kind": "eligibility", "message": f"unit {a.unit_ref} is no longer readable by {principal} in view {cv.view_name}"})
    return diffs


def verify_trace(trace: Trace, catalog: str | os.PathLike[str] | None = None) -> list[dict[str, str]]:
    """Replay ``trace`` against ``catalog`` (default: the catalog or cases file the trace names)."""
    from chainret.ask import ask, resolve_catalog, run_case
    from chainret.catalog.load import apply_overlay, load_world

    if trace.kind != "chain":
        raise UsageError("trace verify replays chain traces (kind 'chain'); this is a benchmark trace")
    meta = trace.meta
    diffs: list[dict[str, str]] = []
    from chainret.store import is_store_spec

    if "case" in meta and not is_store_spec(catalog) and (catalog is not None or meta.get("cases_file")):
        world = load_world(catalog or meta["cases_file"])
        case = next((c for c in world.cases if c.id == meta["case"]), None)
        if case is None:
            raise UsageError(f"case {meta['case']!r} is not in {catalog or meta['cases_file']}")
        cat = apply_overlay(world.catalog, case.overlay, label=f"case {case.id} overlay")
        if cat.digest() != trace.catalog_digest:
            diffs.append({"kind": "digest", "message": f"catalog digest was {trace.catalog_digest}, now {cat.digest()}"})
        diffs += _eligibility(trace, cat)
        new = run_case(world.catalog, case, world=world.catalog.world, backtrack=meta.get("backtrack", True)).trace
        return diffs + compare(trace, new)
    source = catalog or meta.get("catalog")
    if source is None:
        raise UsageError("this trace does not name its catalog file; pass --catalog PATH")
    cat = resolve_catalog(source)
    if cat.digest() != trace.catalog_digest:
        diffs.append({"kind": "digest", "message": f"catalog digest was {trace.catalog_digest}, now {cat.digest()}"})
    diffs += _eligibility(trace, cat)
    new = ask(
        trace.request,
        cat,
        view=meta.get("view"),
        principal=meta.get("principal", "public"),
        budget=Budget(**trace.budget.model_dump()),
        viewer=meta.get("viewer"),
        backtrack=meta.get("backtrack", True),
        text_route="text_route" in meta,
        project=meta.get("projected", True),
    )
    return diffs + compare(trace, new)
