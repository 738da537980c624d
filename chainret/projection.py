"""Public projection: what a viewer may see of a trace, rechecked against the catalog now.

Before anything is shown, every unit ref (returned rows, anchors, packet items) and every
relation (anchors, accepted path, coverage) is rechecked for current eligibility for the viewer in
the trace's view. Then:

* anything the viewer may not read is removed;
* a hop whose anchor is removed is a protected intermediate: it and every later hop of its branch
  go (a later hop's subquery is the protected bridge ID), and no accepted path is returned;
* audit details (``withheld`` relations behind a failed hop) stay only when the viewer may read
  every one of them, so an auditor sees the failed hop and a public viewer does not;
* a request with no complete path says only that no complete path exists, in the same words
  whether or not something was withheld, so the message discloses no reason;
* when the request ran for a principal who may read more than the viewer, the rows of its
  searches are not shown at all: their ranks and scores were computed over text the viewer may
  not read.
"""

from __future__ import annotations

from typing import Any

from chainret.catalog.models import Catalog
from chainret.catalog.views import CatalogView
from chainret.errors import UsageError
from chainret.trace import Coverage, Hop, Refusal, Trace


def no_path_message(viewer: str) -> str:
    return "no complete public path exists" if viewer == "public" else f"no complete path exists for {viewer}"


def _unit_ok(cv: CatalogView, ref: str | None) -> bool:
    return ref is not None and cv.unit(ref) is not None


def _rel_ok(cv: CatalogView, rid: str | None) -> bool:
    return rid is not None and rid in cv.catalog.relations_by_id and cv.relation_status(rid).eligible


def _narrower(cat: Catalog, view: str, principal: str, viewer: str) -> bool:
    """True when ``principal`` may read a document of the view that ``viewer`` may not."""
    if principal == viewer:
        return False
    from chainret.ask import cached_view

    a = {d.ref for d in cached_view(cat, view, principal).documents()}
    b = {d.ref for d in cached_view(cat, view, viewer).documents()}
    return not a <= b


def project(trace: Trace, catalog: Catalog, viewer: str) -> Trace:
    """The trace as ``viewer`` may see it (see the module docstring for the rules)."""
    if trace.kind != "chain":
        raise UsageError("projection applies to chain traces only")
    view = trace.meta.get("view") or (trace.interpretation.view if trace.interpretation else None)
    principal = trace.meta.get("principal", trace.interpretation.principal if trace.interpretation else "public")
    from chainret.ask import cached_view

    try:
        cv = cached_view(catalog, view, viewer)
    except UsageError:
        cv = cached_view(catalog, None, viewer)
    hide_rows = _narrower(catalog, cv.view_name, principal, viewer)

    hops: list[Hop] = []
    cut: set[str] = set()  # branches whose intermediate was protected
    lost_anchor = False
    for hop in trace.hops:
        if any(hop.branch == b or hop.branch.startswith(b + ".") for b in cut):
            continue
        upd: dict[str, Any] = {
            "hits": [] if hide_rows else [h for h in hop.hits if _unit_ok(cv, h.ref)],
        }
        if hop.anchor is not None and not (_unit_ok(cv, hop.anchor.unit_ref) and _rel_ok(cv, hop.anchor.relation_id)):
            cut.add(hop.branch)
            lost_anchor = True
            continue
        if hop.refusal is not None:
            upd["refusal"] = _project_refusal(hop.refusal, cv)
        upd["candidate_bridges"] = [b for b in hop.candidate_bridges if cv.entity(b) is not None]
        hops.append(hop.model_copy(update=upd))

    path = trace.accepted_path
    packet = trace.packet
    outcome = trace.outcome
    reason = trace.reason
    path_ids = trace.path_ids
    if path is not None and (lost_anchor or not all(_rel_ok(cv, r) for r in path)):
        path, path_ids, packet, outcome = None, None, None, "partial_evidence"
    if packet is not None and not all(_unit_ok(cv, i.ref) and _rel_ok(cv, i.relation_id) for i in packet.items):
        path, path_ids, packet, outcome = None, None, None, "partial_evidence"
    if outcome == "partial_evidence":
        reason = _public_reason(trace.reason, cv, viewer)

    cov = trace.coverage
    keep = [r for r in cov.anchors_required if _rel_ok(cv, r)]
    coverage = Coverage(
        anchors_required=keep,
        anchors_observed=[r for r in cov.anchors_observed if r in keep] if not hide_rows else [],
        complete_bundle=cov.complete_bundle and packet is not None and len(keep) == len(cov.anchors_required),
    )
    packets = {} if hide_rows else {
        name: p.model_copy(update={"items": [i for i in p.items if _unit_ok(cv, i.ref)]})
        for name, p in trace.packets.items()
    }
    packets = {name: _rejoin(p) for name, p in packets.items()}
    meta = {**trace.meta, "viewer": viewer}
    return trace.model_copy(
        update={
            "hops": hops,
            "accepted_path": path,
            "path_ids": path_ids,
            "packet": packet,
            "outcome": outcome,
            "reason": reason,
            "coverage": coverage,
            "packets": packets,
            "meta": meta,
        }
    )


def _rejoin(packet: Any) -> Any:
    text = packet.separator.join(i.text for i in packet.items)
    return packet.model_copy(update={"text": text, "cost": len(text)})


def _project_refusal(ref: Refusal, cv: CatalogView) -> Refusal:
    details = dict(ref.details)
    withheld = details.get("withheld") or []
    if withheld and not all(_unit_ok(cv, w.get("unit")) for w in withheld):
        details.pop("withheld")
    for key in ("rejected",):
        if key in details:
            details[key] = [d for d in details[key] if _unit_ok(cv, d.get("unit"))]
            if not details[key]:
                details.pop(key)
    if "not_returned" in details:
        details["not_returned"] = [r for r in details["not_returned"] if _rel_ok(cv, r)]
        if not details["not_returned"]:
            details.pop("not_returned")
    if "opposing" in details:
        details["opposing"] = [r for r in details["opposing"] if _rel_ok(cv, r)]
    return ref.model_copy(update={"details": details})


def _public_reason(reason: Refusal | None, cv: CatalogView, viewer: str) -> Refusal:
    """One message for every no-path outcome; the hop and code stay, audit details only if readable."""
    if reason is None:
        return Refusal(code="no_complete_path", message=no_path_message(viewer))
    projected = _project_refusal(reason, cv)
    details = {k: v for k, v in projected.details.items() if k in ("hop", "withheld", "tried")}
    if "branch_failures" in projected.details:
        details["branch_failures"] = [
            _project_refusal(Refusal(**f), cv).model_dump() for f in projected.details["branch_failures"]
        ]
    return Refusal(code=reason.code, message=no_path_message(viewer), details=details)
