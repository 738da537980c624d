"""The served operations over the library API, shared by the HTTP app and the MCP server.

``Service`` opens the catalog once per process (``chainret.store.resolve_catalog``: a YAML/JSON
file or world directory, a compiled store, or whatever else the library accepts as a catalog),
keeps it current through ``chainret.server.live.LiveCatalog`` (the store's generation, or a catalog
file's sizes and mtimes, checked at most once per ``--reload-interval``; a fresh object swapped in
between engine calls, so a revocation is seen within that bound) and answers:

* ``ask(identity, AskIn) -> AskOut``: ``chainret.pipeline.ask.ask`` under the identity's principal, projected
  for its viewer, with a short answer that names the path's entities by display name and ID;
* ``patterns(principal) -> PatternsOut``: the catalog's relation patterns and views, and the
  catalog's identity for that principal;
* ``verify(identity, trace) -> VerifyOut``: ``chainret.verify.replay.verify`` (evidence, replay, catalog
  identity) of a trace this identity could have been given, against the served catalog only.

Threads: every operation runs on the service's engine threads (``submit``), up to ``threads`` at
once where the catalog allows it (``concurrent_reads``: a SQLite store, which gives each thread its
own read-only connection and releases the GIL while SQLite searches; PostgreSQL, one pooled
connection per request), else one at a time (an in-memory catalog is pure Python, so threads would
add nothing under the GIL). The engine's caches belong to the thread-safe ``Session``
this ``Service`` owns. Each engine call holds the catalog objects it was handed
(``LiveCatalog.get``/``release``), so a reload never closes an object a call still reads; a call
that finds its store replaced under it (``StoreChanged``) runs once more on the reopened store.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from chainret.core.session import Session
from chainret.pipeline.ask import Answer, answer, named_path
from chainret.catalog.models import Catalog, doc_ref, unit_doc
from chainret.core.errors import ChainretError, UsageError
from chainret.server.auth import Authenticator, Identity, check_narrower, resolve_viewer
from chainret.server.errors import ApiError
from chainret.server.inputs import trace_problem
from chainret.server.live import LiveCatalog
from chainret.server.limits import BudgetIn, Limits, check_budget, clamp_budget
from chainret.store.base import CatalogReader, StoreChanged, revision_number
from chainret.render.answers import completeness_words, is_empty_set, is_set, listed, named_answers
from chainret.trace.model import Completeness, Trace

R = TypeVar("R")
REVISION_HELP = ("the catalog revision this answer was computed from, for its viewer: an opaque token "
                 "'<n>.<hex>' whose n grows each time what this viewer may read changes")
MIN_REVISION_HELP = ("answer from at least this catalog revision (a 'revision' of an earlier response), "
                     "or refuse with 409 catalog_behind")

# Meta keys that would make a replay read a cases file named by the client.
_FOREIGN_META = ("case", "cases_file")


class AskIn(BaseModel):
    """POST /ask. The principal is never part of a request: it comes from authentication."""

    model_config = ConfigDict(extra="forbid")

    request: str = Field(min_length=1, description='the request words, e.g. "Which contact serves PR-84?"')
    view: str | None = Field(None, max_length=128, description="view name (default: the catalog's current view)")
    viewer: str | None = Field(
        None, max_length=64, description="a narrower viewer this credential may ask for (default: its principal)"
    )
    budget: BudgetIn | None = Field(None, description="request limits, each at most the server's ceiling")
    min_revision: str | None = Field(None, max_length=80, description=MIN_REVISION_HELP)


class Named(BaseModel):
    id: str
    name: str


class NamedAnswerOut(BaseModel):
    id: str
    name: str = Field(description="its display name as the viewer may know it (the ID where the viewer knows none)")
    path: list[Named] = Field(description="the supported path that reaches it, start first")
    relations: list[str] = Field(description="relation ids of that path, in order (each hop's anchor is in the trace)")


class Suggestion(BaseModel):
    pattern: str
    phrasing: str


class AskOut(BaseModel):
    outcome: str
    answer: Named | None = Field(None, description="the accepted path's last entity (None without an accepted path)")
    path: list[Named] = Field(default_factory=list, description="the accepted path's entities, start first")
    answers: list[NamedAnswerOut] | None = Field(
        None, description="a set answer (a chain with a many-valued hop, e.g. members or contacts): every member found, "
        "in the order found, each with its path (``answer`` and ``path`` are the first's); empty, with ``completeness``, where "
        "the whole readable view was checked and nothing matches (a coverage ask: \"none\"); None for a single-valued chain")
    completeness: Completeness | None = Field(
        None, description="with ``answers``: whether they are every value the viewer's readable catalog supports "
        "(complete, answered, eligible), and if not why (reasons) and which budget flags would reach the rest")
    message: str = Field(description="one line: the answer and its path (a set: every member and whether that is all), "
                         "or why there is none")
    principal: str
    viewer: str
    view: str | None = None
    revision: str = Field(description=REVISION_HELP)
    suggestions: list[Suggestion] = Field(
        default_factory=list,
        description="for a request that matched no phrasing (outcome no_pattern): the catalog's closest phrasings, "
        "closest first (the phrasings GET /patterns lists); empty otherwise")
    # The model itself, not its dump: the response is written in one pass of pydantic's serializer (the JSON
    # of a dict of Any is typed value by value: twice as long; issue 24).
    trace: Trace = Field(description="the trace projected for the viewer (chainret.trace.model.Trace as JSON)")
    envelope: dict[str, Any] | None = Field(
        None, description="the trace signed (a DSSE envelope, docs/proof.md) when the server was started with --sign-key; "
        "`chainret trace verify --offline --key PUB` checks it with no store. None without a key: never a fake signature")


class PatternOut(BaseModel):
    name: str
    start_type: str
    hops: list[str]
    phrasings: list[str]
    description: str = ""


class ViewOut(BaseModel):
    name: str
    current: bool
    description: str = ""


class PatternsOut(BaseModel):
    world: str
    catalog_digest: str = Field(description="the catalog's identity for this principal (traces record the same)")
    revision: str = Field(description=REVISION_HELP)
    patterns: list[PatternOut]
    views: list[ViewOut]


class Difference(BaseModel):
    kind: str = Field(description="evidence | replay | catalog")
    field: str = Field(description="the trace field concerned, e.g. hops[1].anchor.quote")
    message: str


class VerifyOut(BaseModel):
    status: Literal["verified", "evidence_intact", "mismatch"] = Field(
        description="verified; evidence_intact (the catalog changed elsewhere, this trace still holds); mismatch"
    )
    ok: bool = Field(description="status is not mismatch")
    catalog_changed: bool
    differences: list[Difference]
    revision: str = Field(description="the revision of the catalog the trace was replayed against, for the caller")


def _in_engine(method: Callable[..., R]) -> Callable[..., R]:
    """Run a ``Service`` method as an engine call (directly when already inside one)."""

    @functools.wraps(method)
    def wrapper(self: Service, *args: Any) -> R:
        if getattr(self._tls, "depth", 0):
            return method(self, *args)
        return self.submit(method, self, *args).result()

    return wrapper


DEFAULT_THREADS = 4


class Service:
    """One catalog, loaded once, answering for authenticated identities within ``limits``.

    Every engine call runs on an engine thread (``submit``): up to ``threads`` at once where the
    catalog allows it (``concurrent_reads``), else one at a time (see the module docstring).
    """

    def __init__(self, catalog: Catalog | CatalogReader | str | None, limits: Limits | None = None, auth: Authenticator | None = None,
                 *, tokens_source: str = "token file", threads: int = 1, sign_key: str | None = None) -> None:
        if threads < 1:
            raise UsageError("the number of engine threads must be at least 1")
        self._sign_key: Any = None
        if sign_key is not None:  # loaded (and refused) before the catalog: a bad key never starts a server
            from chainret.verify.signing import load_private_key

            self._sign_key = load_private_key(sign_key)
        self.limits = limits or Limits()
        self.session = Session()  # this process's caches (views, indexes, digests)
        self._tls = threading.local()  # per thread: engine-call depth, the catalog the call answers from
        self.live = LiveCatalog(catalog, self.limits.reload_interval_s, session=self.session)
        self.threads = threads if getattr(self.live.current, "concurrent_reads", False) else 1
        self._pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="chainret-engine")
        self.world: str = self.catalog.world
        self.digest: str = self.submit(lambda: self.live.get().digest()).result()
        if auth is not None:
            self.submit(check_narrower, auth, lambda p: set(self.live.get().readable_docs(p)),
                        tokens_source).result()

    def submit(self, fn: Callable[..., R], *args: Any) -> Future[R]:
        """Queue ``fn(*args)`` as an engine call. A future cancelled before it starts never runs."""
        return self._pool.submit(self._call, fn, *args)

    def _call(self, fn: Callable[..., R], *args: Any) -> R:
        """One engine call: the catalog objects it is handed stay open until it returns; run once more
        from the reopened store when its store was replaced under it."""
        try:
            with self._engine_call():
                return fn(*args)
        except StoreChanged:
            self.live.get(force=True)  # swaps in the reopened store
            self.live.release()
        with self._engine_call():
            return fn(*args)

    @contextlib.contextmanager
    def _engine_call(self) -> Any:
        depth = getattr(self._tls, "depth", 0)
        self._tls.depth = depth + 1
        try:
            yield
        finally:
            self._tls.depth = depth
            if depth == 0:
                self._tls.catalog = None
                self.live.release()

    @property
    def catalog(self) -> CatalogReader:
        """Inside an engine call, the catalog object it answers from; else the catalog now served
        (``LiveCatalog``: swapped for a fresh object when its store changes)."""
        held: CatalogReader | None = getattr(self._tls, "catalog", None)
        return held if held is not None else self.live.current

    def close(self) -> None:
        """Cancel queued calls, wait for running ones, and close the store."""
        self._pool.shutdown(wait=True, cancel_futures=True)
        self.live.close()

    # -- helpers (engine thread) ------------------------------------------------------------------
    def _engine(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """A library call; its errors become safe API errors."""
        try:
            return fn(*args, **kwargs)
        except StoreChanged:
            raise  # answered again from the reopened store (``_call``)
        except UsageError as exc:  # messages about the caller's parameters (e.g. an unknown view)
            raise ApiError(400, "bad_request", str(exc)) from None
        except ChainretError:
            raise ApiError(500, "engine_error", "the engine could not answer this request") from None

    def _fresh(self, viewer: str, min_revision: str | None) -> CatalogReader:
        """The catalog to answer from: checked for a store update (at most once per interval, or now when
        the caller asks for a revision newer than the one held), and at least ``min_revision`` (409 if not)."""
        cat = self._tls.catalog = self.live.get()
        if min_revision is None:
            return cat
        try:
            wanted = revision_number(min_revision)
        except ValueError:
            raise ApiError(400, "bad_revision", "min_revision must be a 'revision' of an earlier response (<number>.<hex>)") from None
        held = self._revision(cat, viewer)
        if revision_number(held) < wanted:
            cat = self._tls.catalog = self.live.get(force=True)
            held = self._revision(cat, viewer)
        if revision_number(held) < wanted:
            raise ApiError(409, "catalog_behind",
                           f"this server answers from catalog revision {held} for this viewer, older than min_revision "
                           f"{min_revision}; retry shortly (a store update is seen within {self.limits.reload_interval_s:g} s)")
        return cat

    def _revision(self, cat: CatalogReader, viewer: str) -> str:
        return cat.revision(viewer)

    def _check_request(self, text: str) -> None:
        if len(text) > self.limits.request_chars:
            raise ApiError(400, "request_too_long", f"the request has {len(text)} characters; the limit is {self.limits.request_chars}")

    # -- operations ------------------------------------------------------------------------------
    @_in_engine
    def ask(self, identity: Identity, body: AskIn) -> AskOut:
        """``chainret.pipeline.ask.ask`` as ``identity``; the response for the projected trace."""
        self._check_request(body.request)
        viewer = resolve_viewer(identity, body.viewer)
        budget = clamp_budget(body.budget, self.limits.ceiling)
        cat = self._fresh(viewer, body.min_revision)  # this request keeps this object, even if a later one swaps
        result: Answer = self._engine(
            answer, body.request, cat, view=body.view, principal=identity.principal, budget=budget, viewer=viewer,
            session=self.session, ceiling=self.limits.ceiling,
        )
        trace, names = result.trace, result.names  # read in the request's own scope: no second trip
        view = trace.meta.get("view")
        path = [Named(id=i, name=name) for i, name in named_path(trace, names)]
        done = trace.completeness if is_set(trace) or is_empty_set(trace) else None
        members = named_answers(trace, names) if done is not None else []
        answers = [NamedAnswerOut(id=a.id, name=a.name, path=[Named(id=i, name=n) for i, n in a.path], relations=a.relations)
                   for a in members]
        if done is not None and not members:  # the complete empty set: "none", an answer
            message = completeness_words(done)
        elif done is not None:  # every member and whether that is all: never one of several as the answer
            message = listed(members) + (", via " + " → ".join(f"{n} ({i})" for i, n in members[0].path) if len(members) == 1 else "")
            message += f" — {completeness_words(done)}"
        elif path:
            message = f"{path[-1].name} ({path[-1].id}), via " + " → ".join(f"{n.name} ({n.id})" for n in path)
        else:
            message = trace.reason.message if trace.reason is not None else trace.outcome
        return AskOut(
            outcome=trace.outcome,
            answer=path[-1] if path else None,
            path=path,
            answers=answers if done is not None else None,
            completeness=done,
            message=message,
            principal=identity.principal,
            viewer=viewer,
            view=view,
            revision=str(trace.meta.get("revision") or self._revision(cat, viewer)),
            suggestions=[Suggestion(pattern=pattern, phrasing=phrasing) for pattern, phrasing in result.suggestions],
            trace=trace,
            envelope=self._signed(trace),
        )

    def _signed(self, trace: Trace) -> dict[str, Any] | None:
        """The trace's DSSE envelope with the server's key (docs/proof.md), or None without one."""
        if self._sign_key is None:
            return None
        from chainret.verify.signing import sign_trace

        return sign_trace(trace, self._sign_key)

    @_in_engine
    def patterns(self, principal: str = "public", min_revision: str | None = None) -> PatternsOut:
        cat = self._fresh(principal, min_revision)
        seen = cat.reader_store(principal)  # the views of the principal's reduced catalog (reader_views)
        current = seen.current_view.name if seen.current_view is not None else None
        return PatternsOut(
            world=cat.world,
            catalog_digest=cat.reader_digest(principal),
            revision=self._revision(cat, principal),
            patterns=[PatternOut(**p.model_dump()) for p in cat.patterns],
            views=[ViewOut(name=v.name, current=v.name == current, description=v.description) for v in seen.views],
        )

    @_in_engine
    def verify(self, identity: Identity, trace: Trace, min_revision: str | None = None) -> VerifyOut:
        """``chainret.verify.replay.verify`` of a projected chain trace, for the principal it ran for.

        The trace must have run for the caller's principal and be projected for a viewer the caller
        may ask for; it is replayed against the served catalog only (a case or cases file named in its
        meta is dropped). Every document version it cites must be one the caller may read: otherwise
        it is refused with one uniform difference per citation, before the library reads anything,
        so a made-up trace can neither read restricted text nor tell which documents exist.
        """
        from chainret.verify.replay import verify

        problem = trace_problem(trace)  # the HTTP body was checked already (VerifyIn); MCP's is checked here
        if problem is not None:
            raise ApiError(422, "invalid_request", problem)
        meta = trace.meta
        if trace.kind != "chain":
            raise ApiError(400, "not_a_chain_trace", "only chain traces (kind 'chain') can be verified")
        principal = identity.principal
        if meta.get("principal", "public") != principal:
            raise ApiError(403, "trace_principal_mismatch",
                           f"this trace ran for another principal; this credential runs as {principal!r}")
        resolve_viewer(identity, meta.get("viewer"))
        if meta.get("projected", True) is not True:
            raise ApiError(400, "unprojected_trace", "only projected traces (as /ask returns them) can be verified here")
        if "text_route" in meta:
            raise ApiError(400, "text_route_trace", "text-route traces are not served")
        self._check_request(trace.request)
        check_budget(trace.budget, self.limits.ceiling)
        cat = self._fresh(principal, min_revision)
        revision = self._revision(cat, principal)
        docs = cat.readable_docs(principal)
        unreadable = [
            Difference(kind="evidence", field=field, message=f"cites a document version that {principal} may not read")
            for field, refs in _citations(trace)
            if not refs <= docs
        ]
        if unreadable:
            return VerifyOut(status="mismatch", ok=False, catalog_changed=False, differences=unreadable, revision=revision)
        clean = trace.model_copy(update={"meta": {k: v for k, v in meta.items() if k not in _FOREIGN_META}})
        result = self._engine(functools.partial(verify, reader=principal), clean, cat)
        return VerifyOut(status=result.status, ok=result.ok, catalog_changed=result.catalog_changed,
                         differences=[Difference(**d.model_dump()) for d in result.differences], revision=revision)


def _citations(trace: Trace) -> list[tuple[str, set[str]]]:
    """(field, document versions) for every cited piece of evidence: hop anchors and packet items."""
    out = []
    for i, h in enumerate(trace.hops):
        if h.anchor is not None:
            a = h.anchor
            out.append((f"hops[{i}].anchor", {doc_ref(a.source, a.document, a.version), unit_doc(a.unit_ref)}))
    if trace.packet is not None:
        for i, item in enumerate(trace.packet.items):
            out.append((f"packet.items[{i}]", {item.doc_id or unit_doc(item.ref), unit_doc(item.ref)}))
    return out


Status = Literal["ok"]


class Health(BaseModel):
    """No catalog digest: the full digest changes with text a public caller may not read."""

    status: Status = "ok"
    world: str
    version: str
