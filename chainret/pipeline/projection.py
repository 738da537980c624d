"""Projection: the trace a viewer is shown, built from what that viewer may read.

The reference is the *viewer's catalog*: the catalog with every document the viewer may not read
removed (``chainret.catalog.readable``). Whatever a viewer sees, outcome and reason code included,
must equal what the same request gives over that catalog; nothing shown may tell the viewer that
records it may not read exist.

``chainret.pipeline.ask`` guarantees the precondition: when the request's principal may read a document the
viewer may not (``--principal auditor --as public``), the request is *run* over the viewer's
catalog, under the principal, instead of being run in full and trimmed afterwards (trimming a trace
computed over restricted text leaks through ranks, refusal codes, branch order and candidate
lists). So every fact in the trace handed to ``project`` was derived from documents the principal
may read, and the principal reads nothing the viewer may not. What is left to do here:

* audit details about records the principal could not use (``withheld`` relations behind a failed
  hop) stay only when the viewer may read every one of them: an auditor viewing a public request
  sees what was withheld, a public viewer never does;
* the catalog identity becomes the viewer's catalog digest, so it does not change when only text
  the viewer may not read changes;
* ``meta.viewer`` names the viewer.
"""

from __future__ import annotations

from collections.abc import Mapping

from chainret.catalog.models import unit_doc
from chainret.core.errors import UsageError
from chainret.store.base import CatalogReader, reads_within
from chainret.trace.model import Hop, Refusal, Trace


class ProjectionError(UsageError):
    """A trace computed with more access than its viewer has cannot be projected by trimming."""


def _unit_doc(ref: object) -> str:
    return unit_doc(ref if isinstance(ref, str) else "")


def _strip_withheld(details: dict[str, object], readable: frozenset[str]) -> dict[str, object]:
    """Drop ``withheld`` lists the viewer may not read in full; recurse into branch failures."""
    out = dict(details)
    withheld = out.get("withheld")
    if isinstance(withheld, list) and not all(isinstance(w, dict) and _unit_doc(w.get("unit")) in readable for w in withheld):
        out.pop("withheld")
    failures = out.get("branch_failures")
    if isinstance(failures, list):
        out["branch_failures"] = [
            {**f, "details": _strip_withheld(f.get("details", {}), readable)} for f in failures
        ]
    return out


def _refusal(ref: Refusal | None, readable: frozenset[str]) -> Refusal | None:
    if ref is None:
        return None
    return ref.model_copy(update={"details": _strip_withheld(ref.details, readable)})


def project(trace: Trace, catalog: CatalogReader, viewer: str, *, meta: Mapping[str, object] | None = None) -> Trace:
    """The trace as ``viewer`` may see it (see the module docstring).

    ``catalog`` is the catalog the request ran over; ``meta`` adds entries to the projected trace's
    ``meta`` after ``viewer`` and ``projected`` (``ask`` adds its timing and revision in the same copy). Raises ``ProjectionError`` when the trace's
    principal may read a document the viewer may not: such a trace is re-run, not trimmed.
    """
    if trace.kind != "chain":
        raise UsageError("projection applies to chain traces only")
    principal = str(trace.meta.get("principal", "public"))
    if not reads_within(catalog, principal, viewer):
        raise ProjectionError(
            f"a trace run for {principal!r} cannot be trimmed for {viewer!r}; ask again with "
            f"viewer={viewer!r} so the request runs over what {viewer!r} may read"
        )
    # Only refusals carry what may be withheld: a trace without one needs no list of what the viewer may
    # read (on a large store that list is a query over every document version; issue 24).
    stopped = trace.reason is not None or any(h.refusal is not None for h in trace.hops)
    readable = catalog.readable_docs(viewer) if stopped else frozenset()
    hops: list[Hop] = (
        [h.model_copy(update={"refusal": _refusal(h.refusal, readable)}) if h.refusal is not None else h for h in trace.hops]
        if stopped else list(trace.hops)
    )
    shown: dict[str, object] = {**trace.meta, "viewer": viewer, "projected": True}
    if meta:
        shown.update(meta)
    return trace.model_copy(
        update={
            "hops": hops,
            "reason": _refusal(trace.reason, readable),
            "catalog_digest": catalog.reader_digest(viewer),
            "meta": shown,
        }
    )
