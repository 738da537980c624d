"""Library entry point: ``ask(request) -> Trace`` (the case harness is ``chainret.evaluate.cases``).

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
import re
import time
from datetime import date
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, TypedDict, Unpack

from chainret.catalog.models import Catalog
from chainret.core.budget import DEFAULT_BUDGET as DEFAULT_BUDGET
from chainret.core.budget import fanout_budget
from chainret.core.codes import RefusalCode
from chainret.engine.hops import run_set, set_answer
from chainret.core.errors import UsageError
from chainret.query.check import may_check
from chainret.query.count import may_count, read_count
from chainret.query.discourse import Discourse, DiscourseRefusal, may_be_discourse, said_as_one, with_discourse
from chainret.query.interpret import Reading, interpret, interpret_at, pattern_specs
from chainret.query.kinds import KindFilter, read_kinds, said_with_nouns
from chainret.pipeline.kinds import typed_paths
from chainret.query.when import TimeWords, read_time
from chainret.pipeline.packet import coverage, path_packet
from chainret.pipeline.projection import project as project_trace
from chainret.catalog.readable import reader_narrowed
from chainret.core.session import Session
from chainret.store import catalog_location, resolve_catalog
from chainret.store.base import CatalogReader, ViewReader, read_scope, reads_within
from chainret.store.caches import relation_flags
from chainret.store.log import with_log
from chainret.trace.model import SCHEMA_VERSION, CHAIN_SCHEMA_VERSION, Budget, Hop, Interpretation, Refusal, Trace

if TYPE_CHECKING:
    from networkx import MultiDiGraph


def catalog_graph(catalog: CatalogReader | Catalog | str | os.PathLike[str] | None, view: str | None = None, principal: str = "public") -> MultiDiGraph:
    """The networkx MultiDiGraph of a catalog view as ``principal`` may know it (edge key = relation id).

    Built over the principal's reader catalog: a relation only a document they may not read holds,
    and an entity only such relations name, are not in it (not even as "not readable").
    """
    from chainret.catalog.graph import build_graph

    reader = resolve_catalog(catalog).reader_store(principal)
    cv = reader.view(view, principal)
    known = cv.entities_of([e.id for e in reader.entities if cv.knows(e.id)])  # with the labels the principal is shown
    ents = {i: {"type": e.type, "name": e.name} for i, e in known.items()}
    held = cv.catalog.relations_by_id  # a compiled store read as the principal: only what they may read
    return build_graph([relation_flags(cv, r) for r in cv.relations() if r.id in held], ents)


# -- ask ---------------------------------------------------------------------------------------------
def ask(
    request: str,
    catalog: CatalogReader | Catalog | str | os.PathLike[str] | None = None,
    view: str | None = None,
    principal: str = "public",
    budget: Budget | None = None,
    *,
    viewer: str | None = None,
    backtrack: bool = True,
    text_route: bool = False,
    required_anchors: Sequence[str] | None = None,
    project: bool = True,
    source: str | None = None,
    session: Session | None = None,
    sets: bool = True,
    proofs: bool = True,
    today: date | str | None = None,
    ceiling: Budget | None = None,
) -> Trace:
    """Answer a relationship request with a supported chain, or say exactly why not.

    Args:
        request: the original words, e.g. ``"Which contact serves PR-84?"``.
        catalog: a catalog reader, a Catalog, a path (a YAML file or world directory, a ``.db`` file, a
            ``postgresql://`` URL), or None for the default catalog (``$CHAINRET_CATALOG`` or catalogs/);
            resolved once, here (``chainret.store.resolve_catalog``).
        view: view name (None = the catalog's current view).
        principal: whose access the request runs under.
        budget: request limits; unset search/row limits scale with the pattern's hop count.
        viewer: who will see the result (default: ``principal``); the projection is for them.
        backtrack: try another eligible, supported bridge of the same hop after a dead end.
        text_route: when no pattern applies, attach a clearly labelled text-route result.
        required_anchors: relation ids of the target bundle (fixture cases), for coverage.
        project: False returns the unprojected audit trace (offline evaluation).
        source: where the trace says its catalog lives, when ``catalog`` is an already opened
            object (the CLI opens a catalog once and records the path or URL it was given).
        session: whose caches (views, indexes, digests) to use; None is ``default_session()``.
        sets: answer a chain with a many-valued hop with every value (``answers``, ``completeness``; a 1.1
            trace); False follows the 1.0 rule, one path (``trace verify`` replays a 1.0 trace so).
        proofs: asked of a store that keeps a log (``chainret.store.log``), attach ``meta.log``: the viewer's
            checkpoint and an inclusion proof of each anchor's unit and relation (docs/proof.md). False skips
            them (their cost: ``benchmarks/proof_cost.py``).
        ceiling: the most any limit may be (a server's ``Limits.ceiling``): a set's default limits
            (``chainret.core.budget.fanout_budget``) stay within it.

    Returns:
        A ``Trace`` with outcome ``accepted_path``, ``partial_evidence``, ``no_pattern`` or ``refused``.

    Example:
        >>> ask("Which contact serves PR-84?").path_ids
        ['project:final:main', 'org:final:south', 'contact:final:field']
    """
    t0 = time.perf_counter()
    full = resolve_catalog(catalog, session)  # the one dispatch: a CatalogReader from here on
    with read_scope(full, principal):  # PostgreSQL: one transaction per ask, the role and view set once
        budget = budget or DEFAULT_BUDGET
        viewer = viewer or principal
        # A principal who may read what the viewer may not runs over the viewer's catalog: trimming a
        # trace computed over restricted text afterwards leaks (see chainret.pipeline.projection).
        # So does a viewer who knows the catalog's names or views otherwise than it holds them (an
        # importer's names carry the document that declares them: chainret.catalog.readable.narrowed).
        wider = project and (not reads_within(full, principal, viewer) or reader_narrowed(full, viewer))
        cat = full.reader_store(viewer) if wider else full
        # A count ("how many people are on growth") is the size of the set its question asks for ("which people are
        # on growth"): the rest of the words are that question's; the trace keeps the request as asked.
        # A request of several sentences is read as the one that asks (chainret.query.discourse): "Hi! I'm new here. Which
        # team owns X?" is "Which team owns X?"; every reader below reads that question, and the trace keeps both.
        spoken = said_as_one(request, lambda: cat.view(view, principal)) if may_be_discourse(request) else None
        asked = spoken.question if isinstance(spoken, Discourse) else request
        counted = read_count(asked) if may_count(asked) else None
        words = counted.question if counted is not None else asked
        # The time the words carry is read first: it chooses the view the rest of the words are read in.
        day = today if isinstance(today, date) else date.fromisoformat(today) if today else date.today()
        when = read_time(words, day)
        cv, refused = (cat.view(view, principal), None) if when is None else _view_at(cat, when, view, principal, day)
        if refused is not None and "requested_view" in refused.details:
            view = str(refused.details["requested_view"])  # the trace names the view asked for, resolved
        meta: dict[str, object] = {
            "catalog": source if source is not None else catalog_location(catalog),
            "world": cat.world,
            "view": cv.shown_name if cv is not None else view,
            "principal": principal,
            "viewer": viewer if project else None,
            "backtrack": backtrack,
            "projected": project,
        }
        if counted is not None:
            meta["count"] = counted.record()
        if when is not None:
            said = cv.view_name if cv is not None else refused.details.get("view") if refused is not None else None
            meta |= {"time": when.record(str(said) if said else None), "today": day.isoformat()}
        # A kind word ("services", "websites") read as the kind the view's records declare, or refused (chainret.query.kinds)
        kinds = read_kinds(words, cv) if refused is None and cv is not None else None
        said = words  # (the kind words as said: a start set is read from them)
        if isinstance(kinds, Refusal):
            refused, kinds = kinds, None
        elif kinds:
            words = said_with_nouns(words, kinds, cv)
            when = read_time(words, day) if when is not None else None
        if refused is None and isinstance(spoken, DiscourseRefusal):
            refused = Refusal(code=RefusalCode.AMBIGUOUS_READING, message=spoken.message)
        if isinstance(spoken, Discourse):
            meta["discourse"] = spoken.record()
        if refused is not None:
            reading = Reading(outcome="refused", reason=refused)
        else:
            assert cv is not None
            reading = interpret(words, cv) if when is None else interpret_at(when, cv)
        if isinstance(spoken, Discourse) and reading.interpretation is not None:
            reading = reading._replace(interpretation=with_discourse(reading.interpretation, request, spoken))
        meta.update(reading.meta)
        base = _Base(schema_version=CHAIN_SCHEMA_VERSION if sets else SCHEMA_VERSION, request=request, catalog_digest=cat.digest())
        gaps = None
        # maybe a coverage ask ("which components have no owner", "which APIs does nobody consume": "nobody" names nothing)
        unknown = reading.reason is not None and reading.reason.code == RefusalCode.UNKNOWN_ENTITY
        if (reading.outcome == "no_pattern" or unknown) and cv is not None:
            from chainret.query.gaps import (read_absence_request, read_contrast_request, read_gap_request, read_neither_request,
                                             read_scoped_request, unsure_gap)

            words_ = when.rest if when is not None else words
            unsure = unsure_gap(words_)  # ("resources whose owner isn't declared": none declared, or declared nowhere)
            gap = None if unsure else read_gap_request(words_)  # (a closed grammar: "anything w/o an owner" is no name either)
            if unsure:
                gaps = Trace.model_construct(**base, budget=budget, outcome="refused", meta=meta, reason=Refusal(
                    code=RefusalCode.AMBIGUOUS_READING, details={"readings": list(unsure)},
                    message=f"the request reads as two coverage asks ({', '.join(k.replace('_', ' ') for k in unsure)}): "
                            "say 'have no owner' for entities that name none, or 'owned by a team that does not exist' "
                            "for entities whose owner is declared nowhere"))
            elif gap is not None:
                from chainret.pipeline.ownership import gap_trace  # (the importers' records: only for a coverage ask)

                gaps = gap_trace(gap, cat, cv, principal, base, budget, meta)
            elif (absence := read_absence_request(words_)) is not None:  # "which users are not on any team"
                from chainret.pipeline.ownership import absence_trace

                gaps = absence_trace(absence, cat, cv, principal, base, budget, meta)
            elif (neither := read_neither_request(words_)) is not None:  # "Ts that neither V1 nor V2 any N"
                from chainret.pipeline.ownership import neither_trace

                gaps = neither_trace(neither, cat, cv, principal, base, budget, meta)
            elif (contrast := read_contrast_request(words_)) is not None:  # "teams with no members but owning things"
                from chainret.pipeline.ownership import contrast_trace

                gaps = contrast_trace(contrast, cat, cv, principal, base, budget, meta)
            elif scoped := read_scoped_request(words_):  # "unowned components in system S", "which of G's APIs ..."
                from chainret.pipeline.ownership import scoped_trace

                gaps = scoped_trace(scoped, cat, cv, principal, base, budget, meta)
        checked = None
        if gaps is None and reading.interpretation is None and sets and cv is not None and may_check(words):
            # maybe a yes/no ask ("is Bo on growth"): the question whose answers decide it ("who is on growth")
            from chainret.query.check import read_check

            def read_words(question: str) -> Reading:
                assert cv is not None
                return interpret(question, cv) if when is None else interpret_at(when._replace(rest=question), cv)

            checked = read_check(when.rest if when is not None else words, cv, read_words)
            if checked is not None:
                reading = checked.reading
                meta.update(reading.meta)
                meta["check"] = checked.record()
        spread = None
        unread = reading.outcome == "no_pattern" or (reading.reason is not None and reading.reason.code == RefusalCode.UNKNOWN_ENTITY)
        if gaps is None and checked is None and reading.interpretation is None and unread and kinds and sets and cv is not None:
            # maybe a kind word said as the start ("which teams own the workers"): the chain from each of its entities
            from chainret.pipeline.startset import read_start_set, start_set_trace

            start = read_start_set(said, kinds, cv)
            if start is not None:
                timed = read_time(said, day) if when is not None else None

                def read_said(question: str) -> Reading:
                    assert cv is not None
                    return interpret(question, cv) if timed is None else interpret_at(timed._replace(rest=question), cv)

                spread = start_set_trace(start, timed.rest if timed is not None else said, read_said, cat, cv, budget,
                                       backtrack, base, meta, ceiling)
        if gaps is not None and kinds and "coverage" in gaps.meta:  # "which websites have no owner": the websites' rows
            from chainret.pipeline.kinds import filter_rows

            assert cv is not None
            gaps = filter_rows(gaps, kinds, words, cv)
        if gaps is not None:  # a coverage ask ("which components have no owner"): the coverage report's rows
            trace = gaps
        elif spread is not None:  # a start set: the chain from each entity of a kind, the answers their union
            trace = spread
        elif reading.interpretation is None:
            assert reading.outcome is not None
            trace = Trace.model_construct(**base, budget=budget, outcome=reading.outcome, reason=reading.reason, meta=meta)
            if text_route and reading.outcome == "no_pattern":
                from chainret.pipeline.baselines import text_route_result  # not on the ask path: it pulls the case models

                assert cv is not None
                trace = text_route_result(trace, cv, cat.hop_world(cv), budget)
        else:
            interp = reading.interpretation
            if len(interp.predicates) > budget.max_hops:
                reason = Refusal(
                    code=RefusalCode.EXCEEDS_MAX_HOPS,
                    message=f"pattern {interp.pattern!r} needs {len(interp.predicates)} hops but max_hops is "
                    f"{budget.max_hops}; raise --max-hops to run it",
                )
                trace = Trace.model_construct(**base, interpretation=interp, budget=budget, outcome="refused", reason=reason, meta=meta)
            else:
                assert cv is not None
                trace = _run(cat, cv, interp, budget, backtrack, required_anchors, base, meta, sets, ceiling, kinds or ())
        if checked is not None:  # yes (an answer's path), no (a complete answer without it) or not known
            from chainret.query.check import settle

            trace = trace.model_copy(update={"meta": {**trace.meta, "check": settle(trace, checked)}})
        ask_ms = round((time.perf_counter() - t0) * 1000, 3)
        # The revision the answer was computed from (``chainret.store.base.revision_token``): a compiled store counts
        # the identities this viewer was shown across compiles and updates; a catalog file's is always its first.
        revision = full.revision(viewer if project else None)
        scope = (getattr(cv, "view_name", None), principal)  # what a log's proofs read the anchors' units as (a store's view name)
        if project:  # one copy of the trace: the projection, the timing and the revision together
            shown = project_trace(trace, cat, viewer, meta={"ask_ms": ask_ms, "revision": revision})
            return with_log(shown, full, viewer, scope) if proofs else shown
        extra: dict[str, object] = {"ask_ms": ask_ms}
        if holds_restricted(trace, cat):  # (the timing, a number, never names a document)
            extra["holds_restricted"] = True
        extra["revision"] = revision
        audit = trace.model_copy(update={"meta": {**trace.meta, **extra}})
        return with_log(audit, full, None, scope) if proofs else audit


def _view_at(cat: CatalogReader, when: TimeWords, view: str | None, principal: str, today: date
             ) -> tuple[ViewReader | None, Refusal | None]:
    """The view a request's time words name (the last on or before their day, by the one view resolver,
    ``chainret.catalog.views.pick_view``), or why none answers: a day after ``today``, a day before every
    view (or a catalog whose views carry no date), or ``view`` naming another view than the words."""
    said = f"the request asks about {when.day.isoformat()} ({when.words!r})"
    if when.future:
        return None, Refusal(code=RefusalCode.NO_VIEW_AT_TIME, message=f"{said}, after today ({today.isoformat()}): "
                             "no record says what will hold then", details=when.record(None))
    try:
        cv = cat.view(when.day.isoformat(), principal)
        first = cv if when.since is None else cat.view(when.since.isoformat(), principal)
    except UsageError as exc:
        return None, Refusal(code=RefusalCode.NO_VIEW_AT_TIME, message=f"{said}, and {exc}", details=when.record(None))
    if first.view_name != cv.view_name:  # a season the records change in: its days may have different answers
        return None, Refusal(code=RefusalCode.NO_VIEW_AT_TIME, message=(
            f"{said}, a period from {when.since} in which the records change (view {first.view_name}, then "
            f"{cv.view_name}): its answer may differ from day to day; ask about a month or a day of it"),
            details=when.record(None))
    if view is not None:
        asked = cat.view(view, principal)  # (an unknown --view is a usage error, as without time words)
        if asked.view_name != cv.view_name:
            return None, Refusal(
                code=RefusalCode.NO_VIEW_AT_TIME,
                message=f"{said}, which is view {cv.view_name}, but the view requested is {asked.view_name}: "
                "drop the time words or the view",
                details={**when.record(cv.view_name), "requested_view": asked.view_name})
    return cv, None



class _Base(TypedDict):
    """What every trace of a request starts from."""

    schema_version: str
    request: str
    catalog_digest: str


class AskOptions(TypedDict, total=False):
    """``ask``'s keyword arguments (what ``answer`` passes on)."""

    view: str | None
    principal: str
    budget: Budget | None
    viewer: str | None
    backtrack: bool
    text_route: bool
    required_anchors: Sequence[str] | None
    project: bool
    source: str | None
    session: Session | None
    sets: bool
    proofs: bool
    today: date | str | None
    ceiling: Budget | None


class Answer(NamedTuple):
    """An ``answer``: the trace, the display names of its accepted path, the phrasings closest to an unmatched request."""

    trace: Trace
    names: dict[str, str]
    suggestions: list[tuple[str, str]]


def answer(request: str, catalog: CatalogReader | Catalog | str | os.PathLike[str] | None = None, **options: Unpack[AskOptions]) -> Answer:
    """``ask``, and what its caller shows beside the trace, read in the same request (one PostgreSQL
    transaction): the accepted path's display names as the viewer sees them and, for a request that
    matched no phrasing, the catalog's closest phrasings. The CLI and the server show these without
    going back into the catalog after the request."""
    full = resolve_catalog(catalog, options.get("session"))
    if options.get("source") is None:
        options["source"] = catalog_location(catalog)
    with read_scope(full, options.get("principal", "public")):
        trace = ask(request, full, **options)
        return Answer(trace, path_names(trace, full), _suggestions(trace, full))


def _suggestions(trace: Trace, catalog: CatalogReader) -> list[tuple[str, str]]:
    """The catalog's phrasings closest to a request that matched none."""
    if trace.outcome != "no_pattern":
        return []
    from chainret.catalog.patterns import suggest_phrasings

    return suggest_phrasings(trace.request, pattern_specs(catalog))


def path_names(trace: Trace, catalog: CatalogReader | Catalog, session: Session | None = None) -> dict[str, str]:
    """Display names of an accepted path's entities, looked up as the trace's viewer sees the catalog.

    ``catalog`` is the reader the request ran on (``answer`` returns these with the trace).
    """
    if trace.outcome != "accepted_path" or not (trace.path_ids or trace.answers):
        return {}
    reader = str(trace.meta.get("viewer") or trace.meta.get("principal", "public"))
    full = resolve_catalog(catalog, session)
    cv = (full.reader_store(reader) if reader_narrowed(full, reader) else full).view(trace.meta.get("view"), reader)
    check = trace.meta.get("check")  # a yes/no ask names the entity it asked about, an answer or not
    asked = [str(check["entity"])] if isinstance(check, dict) and check.get("entity") else []
    ids = list(dict.fromkeys([*(trace.path_ids or ()), *(i for a in trace.answers or () for i in a.path_ids), *asked]))
    named = cv.entities_of(ids)  # (a store reads those it has not yet read in one statement)
    return {i: named[i].name for i in ids if i in named}


def named_path(trace: Trace, names: dict[str, str]) -> list[tuple[str, str]]:
    """The accepted path's entities as (ID, display name), start first; the ID stands for a name the
    viewer cannot see; empty without an accepted path. The one home of the answer HTTP ``/ask``
    (``answer``, ``path``) and ``chainret ask --json`` (``answer``) report."""
    if trace.outcome != "accepted_path":
        return []
    return [(i, names.get(i, i)) for i in trace.path_ids or []]


def holds_restricted(trace: Trace, cat: CatalogReader) -> bool:
    """True when an unprojected trace cites a document version that is not public (audit only).

    Asks the store about the refs the trace cites only (``document_visibility``), so its cost follows the
    trace, not the catalog: reading every document row here made each unprojected ask grow with the catalog.
    """
    refs = cited_doc_refs(trace.to_json())
    return bool(refs) and any(v != "public" for v in cat.document_visibility(sorted(refs)).values())


# A ``source/document@version`` run of text (``DOC_REF_RE`` unanchored): a unit ref's document part, a packet
# item's doc_id, an anchor's document, a ref a refusal's message names.
_REF_RUN = re.compile(r"[A-Za-z0-9_.-]+/[^@#\s\"]+@[^@#/\s\"]+")
_TRAILING = ".,;:)]}'"


def cited_doc_refs(text: str) -> set[str]:
    """Every document ref written anywhere in a trace's JSON ``text``, as candidates to look up exactly.

    The earlier check was ``ref in text`` for every document of the catalog; this finds, in the text, each run
    shaped like a ref and offers it, its tail after each ``/`` of its document part (a ref may follow other
    path words) and each with sentence punctuation trimmed: a superset of the cited refs that a store's exact
    lookup narrows to the real ones.
    """
    out: set[str] = set()
    for m in _REF_RUN.finditer(text):
        run = m.group(0)
        for cut in (run, run.rstrip(_TRAILING)):
            head, _, version = cut.rpartition("@")
            if not version:
                continue
            out.add(cut)
            start = head.find("/")
            while start != -1:
                tail = head[start + 1 :]
                if "/" in tail:
                    out.add(f"{tail}@{version}")
                start = head.find("/", start + 1)
    return out


def _run(
    cat: CatalogReader,
    cv: ViewReader,
    interp: Interpretation,
    budget: Budget,
    backtrack: bool,
    required_anchors: Sequence[str] | None,
    base: _Base,
    meta: dict[str, object],
    sets: bool = True,
    ceiling: Budget | None = None,
    kinds: Sequence[KindFilter] = (),
) -> Trace:
    world = cat.hop_world(cv)
    many = sets and any(p not in world.functional for p in interp.predicates)
    if many:  # a chain over a set: the set is the answer, and each of its members may be searched (``fanout_budget``)
        budget = fanout_budget(budget, [p not in world.functional for p in interp.predicates], ceiling)
    run, paths = run_set(world, interp.start_id, interp.predicates, budget, backtrack=backtrack, sets=many, stating_first=sets)
    typed = None
    if (interp.answer_types or any(interp.hop_types)) and paths:  # "which components does X own": the head noun's types
        paths = typed = typed_paths(paths, interp, cv)
    none_of_kind = None
    if kinds and paths:  # "which websites does X own": the paths through entities of the kind asked about
        from chainret.pipeline.kinds import filter_paths, none_of_kind_reason

        found, records, kind_reason = filter_paths(paths, interp, kinds, base["request"])
        meta["kinds"] = records
        if kind_reason is not None:
            return Trace.model_construct(**base, interpretation=interp, budget=run.budget, hops=run.hops, outcome="refused",
                                         reason=kind_reason, meta=meta)
        if len(found) < len(paths):
            paths = typed = found
            none_of_kind = None if paths else none_of_kind_reason(records)
    path = paths[0] if paths else None
    eff = run.budget  # ``effective_budget``, computed once by the run
    packet = None
    if path is not None:
        packet = path_packet(path, eff)
        if packet is None:  # the packet cap cannot hold the path: not exposed as one
            path = None
    reason = None if path is not None else none_of_kind if none_of_kind is not None else overall_reason(run.failures, run.hops) if typed is None else Refusal(
        code=RefusalCode.NO_SUPPORTED_RELATION, message="no path goes through values of the types its nouns name: "
        + ", ".join(f"hop {k + 1}: {'|'.join(ts)}" for k, ts in enumerate(interp.typed_hops()) if ts))
    units: dict[str, str | None] | None = None
    if required_anchors is not None:
        required = list(required_anchors)
    else:  # the accepted path's relations: each already carries the unit that supports it in this view
        required = [r.id for r in path] if path else []
        units = {r.id: r.unit_ref for r in path} if path else {}
    answers, completeness = set_answer(run, interp.start_id, paths, len(interp.predicates), world) if many and path is not None else (None, None)
    if typed is not None and completeness is not None:  # counted over the types asked for: known only when every value was
        completeness = completeness.model_copy(update={"eligible": len(answers or []) if completeness.complete else None})
    return Trace.model_construct(
        **base,
        interpretation=interp,
        budget=eff,
        hops=run.hops,
        outcome="accepted_path" if path is not None else "partial_evidence",
        reason=reason,
        accepted_path=[r.id for r in path] if path else None,
        path_ids=[interp.start_id, *(r.object for r in path)] if path else None,
        answers=answers,
        completeness=completeness,
        coverage=coverage(cv, required, run.seen_refs, packet, units),
        packet=packet,
        assumptions=run.assumptions,
        searches_used=eff.max_searches - run.searches_left,
        rows_used=eff.max_rows - run.rows_left,
        meta=meta,
    )


def overall_reason(failures: Sequence[Refusal], hops: Sequence[Hop]) -> Refusal:
    """Why no path: the single failure, or ``dead_end`` at the hop whose bridges were all tried."""
    if not failures:
        return Refusal(code=RefusalCode.PACKET_TOO_SMALL, message="the accepted path does not fit the packet cap")
    alts = sorted({h.index for h in hops if h.reuses is not None})
    last = failures[-1]
    if not alts or last.code == RefusalCode.BUDGET_EXHAUSTED:
        return last
    k = alts[0]
    tried = [h.bridge or (h.refusal.details.get("proposed") if h.refusal is not None else None)
             for h in hops if h.index == k and (h.bridge or h.refusal)]
    return Refusal(
        code=RefusalCode.DEAD_END,
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
