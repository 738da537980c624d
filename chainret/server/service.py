"""The served operations over the library API, shared by the HTTP app and the MCP server.

``Service`` loads the catalog once per process (``chainret.ask.resolve_catalog``: a YAML/JSON
file or world directory, or whatever else the library accepts as a catalog) and answers:

* ``ask(identity, AskIn) -> AskOut``: ``chainret.ask.ask`` under the identity's principal, projected
  for its viewer, with a short answer that names the path's entities by display name and ID;
* ``patterns() -> PatternsOut``: the catalog's relation patterns and views (catalog-wide names);
* ``verify(identity, trace) -> VerifyOut``: ``chainret.replay.verify_trace`` of a trace this
  identity could have been given, replayed against the served catalog only.

Thread safety: the engine keeps module-level caches (``chainret.ask``: digests, views, search
indexes) and catalogs build lookup tables lazily; none of them is locked. ``Service`` therefore
runs one engine call at a time (``self.lock``). The engine is CPU-bound Python, so threads would
not add throughput anyway; to use more cores, run more server processes.
"""

from __future__ import annotations

import threading
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from chainret.ask import ask, catalog_digest, resolve_catalog
from chainret.catalog.models import Catalog
from chainret.errors import ChainretError, UsageError
from chainret.server.auth import Authenticator, Identity, check_narrower, resolve_viewer
from chainret.server.errors import ApiError
from chainret.server.limits import BudgetIn, Limits, check_budget, clamp_budget
from chainret.trace import Trace

# Meta keys that would make a replay read files or another catalog named by the client.
_FOREIGN_META = ("case", "cases_file", "catalog")


class AskIn(BaseModel):
    """POST /ask. The principal is never part of a request: it comes from authentication."""

    model_config = ConfigDict(extra="forbid")

    request: str = Field(min_length=1, description='the request words, e.g. "Which contact serves PR-84?"')
    view: str | None = Field(None, max_length=128, description="view name (default: the catalog's current view)")
    viewer: str | None = Field(
        None, max_length=64, description="a narrower viewer this credential may ask for (default: its principal)"
    )
    budget: BudgetIn | None = Field(None, description="request limits, each at most the server's ceiling")


class Named(BaseModel):
    id: str
    name: str


class AskOut(BaseModel):
    outcome: str
    answer: Named | None = Field(None, description="the accepted path's last entity (None without an accepted path)")
    path: list[Named] = Field(default_factory=list, description="the accepted path's entities, start first")
    message: str = Field(description="one line: the answer and its path, or why there is none")
    principal: str
    viewer: str
    view: str | None = None
    trace: dict[str, Any] = Field(description="the trace projected for the viewer (chainret.trace.Trace as JSON)")


class PatternOut(BaseModel):
    name: str
    start_type: str
    hops: list[str]
    phrasings: list[str]
    description: str = ""


class ViewOut(BaseModel):
    name: str
    current: bool


class PatternsOut(BaseModel):
    world: str
    catalog_digest: str
    patterns: list[PatternOut]
    views: list[ViewOut]


class Difference(BaseModel):
    kind: str
    message: str


class VerifyOut(BaseModel):
    matches: bool
    differences: list[Difference]


class Service:
    """One catalog, loaded once, answering for authenticated identities within ``limits``."""

    def __init__(self, catalog: Catalog | str | None, limits: Limits | None = None, auth: Authenticator | None = None,
                 *, tokens_source: str = "token file") -> None:
        self.limits = limits or Limits()
        self.catalog: Catalog = resolve_catalog(catalog)
        self.digest = catalog_digest(self.catalog)
        self.lock = threading.RLock()  # re-entrant: the HTTP app holds it around a whole operation too
        if auth is not None:
            check_narrower(auth, self.readable, tokens_source)

    # -- helpers ---------------------------------------------------------------------------------
    def readable(self, principal: str) -> set[str]:
        """Document refs (any view) that ``principal`` may read."""
        return {d.ref for d in self.catalog.documents if d.readable_by(principal)}

    def _engine(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """One engine call at a time; library errors become safe API errors."""
        try:
            with self.lock:
                return fn(*args, **kwargs)
        except UsageError as exc:  # messages about the caller's parameters (e.g. an unknown view)
            raise ApiError(400, "bad_request", str(exc)) from None
        except ChainretError:
            raise ApiError(500, "engine_error", "the engine could not answer this request") from None

    def _check_request(self, text: str) -> None:
        if len(text) > self.limits.request_chars:
            raise ApiError(400, "request_too_long", f"the request has {len(text)} characters; the limit is {self.limits.request_chars}")

    def name(self, entity_id: str) -> Named:
        e = self.catalog.entities_by_id.get(entity_id)
        return Named(id=entity_id, name=e.name if e is not None else entity_id)

    # -- operations ------------------------------------------------------------------------------
    def ask(self, identity: Identity, body: AskIn) -> AskOut:
        self._check_request(body.request)
        viewer = resolve_viewer(identity, body.viewer)
        budget = clamp_budget(body.budget, self.limits.ceiling)
        trace: Trace = self._engine(
            ask, body.request, self.catalog, view=body.view, principal=identity.principal, budget=budget, viewer=viewer
        )
        return self.answer(trace, identity.principal, viewer)

    def answer(self, trace: Trace, principal: str, viewer: str) -> AskOut:
        """The response for a projected trace: outcome, short answer with display names, trace."""
        path = [self.name(i) for i in trace.path_ids or []] if trace.outcome == "accepted_path" else []
        if path:
            message = f"{path[-1].name} ({path[-1].id}), via " + " → ".join(f"{n.name} ({n.id})" for n in path)
        else:
            message = trace.reason.message if trace.reason is not None else trace.outcome
        return AskOut(
            outcome=trace.outcome,
            answer=path[-1] if path else None,
            path=path,
            message=message,
            principal=principal,
            viewer=viewer,
            view=trace.meta.get("view"),
            trace=trace.model_dump(mode="json"),
        )

    def patterns(self) -> PatternsOut:
        cat = self.catalog
        current = cat.current_view.name if cat.current_view is not None else None
        return PatternsOut(
            world=cat.world,
            catalog_digest=self.digest,
            patterns=[PatternOut(**p.model_dump()) for p in cat.patterns],
            views=[ViewOut(name=v.name, current=v.name == current) for v in cat.views],
        )

    def verify(self, identity: Identity, trace: Trace) -> VerifyOut:
        """Replay a projected chain trace for the caller; differences as ``chainret trace verify`` gives them.

        The trace must have run for the caller's principal and be projected for a viewer the caller
        may ask for; it is replayed against the served catalog only (names of other catalogs or case
        files in its meta are dropped). An anchor whose relation the caller may not read is reported
        in one uniform message, so a made-up trace cannot probe which restricted relations exist.
        """
        from chainret.replay import verify_trace

        meta = trace.meta
        if trace.kind != "chain":
            raise ApiError(400, "not_a_chain_trace", "only chain traces (kind 'chain') can be verified")
        if meta.get("principal", "public") != identity.principal:
            raise ApiError(403, "trace_principal_mismatch",
                           f"this trace ran for another principal; this credential runs as {identity.principal!r}")
        resolve_viewer(identity, meta.get("viewer"))
        if meta.get("projected", True) is not True:
            raise ApiError(400, "unprojected_trace", "only projected traces (as /ask returns them) can be verified here")
        if "text_route" in meta:
            raise ApiError(400, "text_route_trace", "text-route traces are not served")
        self._check_request(trace.request)
        check_budget(trace.budget, self.limits.ceiling)
        hops, diffs = [], []
        for h in trace.hops:
            if h.anchor is not None and not self._may_read_relation(h.anchor.relation_id, identity.principal):
                diffs.append(Difference(kind="eligibility", message=f"hop {h.index}: anchor relation {h.anchor.relation_id} "
                                        f"is not eligible for {identity.principal}"))
                h = h.model_copy(update={"anchor": None})
            hops.append(h)
        clean = trace.model_copy(update={"hops": hops, "meta": {k: v for k, v in meta.items() if k not in _FOREIGN_META}})
        found = self._engine(verify_trace, clean, self.catalog)  # type: ignore[arg-type]  # a Catalog is accepted
        diffs += [Difference(**d) for d in found]
        return VerifyOut(matches=not diffs, differences=diffs)

    def _may_read_relation(self, relation_id: str, principal: str) -> bool:
        rel = self.catalog.relations_by_id.get(relation_id)
        if rel is None:
            return False
        doc = self.catalog.documents_by_ref.get(rel.support.doc_ref)
        return doc is not None and doc.readable_by(principal)


Status = Literal["ok"]


class Health(BaseModel):
    status: Status = "ok"
    world: str
    catalog_digest: str
    version: str
