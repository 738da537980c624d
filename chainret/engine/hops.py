"""The bounded hop engine: follow declared, source-backed relations one exact-ID search at a time.

Hop k searches the exact canonical ID of the current node and takes at most ``rows_per_hop``
rows. It may advance only over a relation that

* has hop k's predicate and the current node as subject,
* is current in the view, readable by the principal and valid (digest, span, clause), and
* is supported by a unit that *this* hop's search returned, and
* is stated by its own quote (``chainret.catalog.statement``: re-derived from the cited text, whatever
  flags a store carries, so an edited store row cannot advance a hop).

The relation's object becomes the bridge; hop k+1 searches that exact ID. A relation elsewhere in
the catalog never advances the search. For a functional predicate, a catalog-level check looks at
every usable relation of that subject and predicate (returned or not); an opposing current
assignment stops that branch after the hop (with backtracking, an earlier hop's other bridges may
still be tried), and the trace records that this check is a catalog-level assumption.

Budget is counted per request: every search and every returned row counts, used or not. With
``backtrack=True`` a dead end makes the engine try the next eligible, supported bridge that the
same hop's search returned (no new search for that hop), within the same total budget; every
branch tried is a ``Hop`` record with its branch id.

Sets (``sets=True``). A hop over a many-valued predicate (``cardinality: many``) follows *every* eligible,
supported bridge its search returned, not just the first that completes: each is a ``Hop`` record (the first
with the search, the others ``reuses`` it, as backtracking records them), and each completed branch is one
answer path. After such a hop the engine compares the bridges it followed with every usable relation of that
subject and predicate in the principal's readable catalog (a catalog-level check, like the contradiction
check, recorded as an assumption): the set is complete only when nothing eligible was left behind there, and no
branch below it stopped for want of budget or a returned unit. The check counts (``Census``): a compiled store
answers it with one aggregate statement (``SQLView.census``), so a subject with 10,000 values is not read and
flagged relation by relation; a reason names the first ``SHOWN`` relations left behind and counts the rest.
Functional hops keep the single-path rule.

The engine reads a catalog through a ``HopReader`` (``chainret.engine.reader``: named reads, each answering as
the principal's projection would), wrapped in a ``HopWorld``: the caller (``chainret.pipeline.ask``) gets one from
its catalog reader (``hop_world(view)``), and tests build random ones over a list of relations (``RelationList``). Source text is data here: nothing in a unit's text is read except by
the search index, so prose cannot change the budget, the principal's allowance or a bridge.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from chainret.core.budget import effective_budget
from chainret.core.codes import RefusalCode
from chainret.catalog.functional import opposing
from chainret.engine.reader import Census, HopReader, Rel
from chainret.engine.search import SearchHit
from chainret.catalog.statement import states
from chainret.trace.model import Budget, Completeness, Hit, Hop, Refusal, SetAnswer


SET_ASSUMPTION = (
    "catalog-level completeness check: after following every returned {pred!r} bridge from {subject!r}, all "
    "eligible current relations of that subject and predicate were inspected, including relations whose units "
    "were not returned by this request's searches"
)

CONTRADICTION_ASSUMPTION = (
    "catalog-level contradiction check: before accepting a bridge over functional predicate {pred!r}, "
    "all eligible current relations of subject {subject!r} were inspected, including relations whose "
    "units were not returned by this request's searches"
)


class HopWorld:
    """What the engine reads, checked: a ``HopReader``'s lookups with every would-be usable relation's statement
    re-derived from its quote (``_checked``), whatever flags the reader gave it, and a set hop's census counted
    here where the reader declines to count it."""

    def __init__(self, reader: HopReader) -> None:
        self.reader = reader
        self.index = reader.index  # the text routes' search (``chainret.pipeline.baselines``)
        self.functional = reader.functional
        self._stated: dict[str, Rel] = {}

    def _checked(self, rels: Sequence[Rel]) -> Sequence[Rel]:
        """``rels`` with any would-be usable relation whose quote does not state it marked invalid."""
        out: list[Rel] | None = None
        for i, r in enumerate(rels):
            if not (r.current and r.readable and r.valid):
                continue  # already not usable: its flags and reason stand as recorded
            hit = self._stated.get(r.id)
            if hit is None or hit.support is not r.support:
                sup = r.support
                st = states(sup.support_kind, sup.quote, r.subject, r.predicate, r.object, self.reader.entity)
                hit = r if st.ok else r._replace(valid=False, why_not=str(st.code))
                if len(self._stated) >= 65_536:
                    self._stated.clear()
                self._stated[r.id] = hit
            if hit is not r:
                if out is None:
                    out = list(rels)
                out[i] = hit
        return rels if out is None else out

    def search(self, node: str, predicate: str, k: int, *, stating_first: bool = False) -> list[SearchHit]:
        """Hop search: the reader's top ``k`` units for ``node`` (``HopReader.search``)."""
        return self.reader.search(node, predicate, k, stating_first)

    def in_unit(self, ref: str) -> Sequence[Rel]:
        """Relations supported inside a readable unit (none for a unit the principal may not read)."""
        reader = self.reader
        return self._checked(reader.in_unit(ref)) if reader.readable(ref) else ()

    def hop_relations(self, ref: str, subject: str, predicate: str) -> Sequence[Rel]:
        """The candidates of a hop in a unit its search returned (``HopReader.hop_relations``)."""
        return self._checked(self.reader.hop_relations(ref, subject, predicate))

    def of_subject(self, subject: str, predicate: str) -> Sequence[Rel]:
        """Every relation record of this subject and predicate, any status (catalog-level checks)."""
        return self._checked(self.reader.of_subject(subject, predicate))

    def census(self, subject: str, predicate: str, on_path: Sequence[str], followed: Sequence[str], returned: Sequence[str]) -> Census:
        """A many-valued hop's completeness check (``Census``): a store that counts in one aggregate statement
        answers it (a hub's thousands of relations are counted, not read and flagged); otherwise, or where the
        store declines (None: a pair small enough to read), it is counted here over ``of_subject``."""
        hit = self.reader.census(subject, predicate, on_path, followed, returned)
        if hit is not None:
            return hit
        return count_census(self.of_subject(subject, predicate), on_path, followed, returned)

    def eligible_objects(self, subject: str, predicate: str, on_path: Sequence[str]) -> tuple[str, ...]:
        """The objects of every usable relation of (subject, predicate) not on the path, in relation-id order
        (the union of several set hops' eligible values needs them; one set hop's count does not)."""
        return tuple(dict.fromkeys(r.object for r in self.of_subject(subject, predicate) if r.usable and r.object not in on_path))


SHOWN = 10  # relation ids a completeness reason names; the rest are counted


def count_census(rels: Sequence[Rel], on_path: Sequence[str], followed: Sequence[str], returned: Sequence[str]) -> Census:
    """``Census`` over relation records (``HopWorld.of_subject``, by id): the rule the stores' aggregates restate."""
    usable = [r for r in rels if r.usable and r.object not in on_path]
    eligible = set(r.object for r in usable)
    done, seen = set(followed), set(returned)
    missing = sorted(r.id for r in usable if r.object not in done and r.unit_ref not in seen)
    return Census(len(eligible), len(eligible - done), tuple(missing[:SHOWN]), len(missing))


class SetHop(NamedTuple):
    """One many-valued hop's completeness: the objects it followed against every eligible one in the catalog."""

    hop: int
    branch: str
    subject: str
    predicate: str
    on_path: tuple[str, ...]
    followed: tuple[str, ...]
    census: Census  # the usable relations of (subject, predicate), returned or not, counted

    @property
    def complete(self) -> bool:
        return self.census.left == 0


class Run:
    """Mutable state of one request: budget left, hop records, branches, assumptions."""

    __slots__ = ("budget", "searches_left", "rows_left", "hops", "assumptions", "seen_refs", "failures", "sets", "set_hops", "stating_first")

    def __init__(self, budget: Budget, searches_left: int, rows_left: int, *, sets: bool = False, stating_first: bool = False) -> None:
        self.budget = budget
        self.searches_left = searches_left
        self.rows_left = rows_left
        self.hops: list[Hop] = []
        self.assumptions: list[str] = []
        self.seen_refs: list[str] = []  # every returned row, in order
        self.failures: list[Refusal] = []
        self.sets = sets  # follow every bridge of a many-valued hop (``run_set``)
        self.set_hops: list[SetHop] = []
        self.stating_first = stating_first  # rank a hop's units that hold its predicate first (trace schema 1.1)

    def __repr__(self) -> str:
        return (f"Run(budget={self.budget!r}, searches_left={self.searches_left}, rows_left={self.rows_left}, "
                f"hops={len(self.hops)}, failures={len(self.failures)})")


def _hits(hits: Sequence[SearchHit]) -> list[Hit]:
    return [Hit.model_construct(ref=h.ref, rank=h.rank, score=h.score) for h in hits]


def run_chain(
    world: HopWorld,
    start_id: str,
    predicates: Sequence[str],
    budget: Budget,
    *,
    backtrack: bool = True,
) -> tuple[Run, list[Rel] | None]:
    """Follow ``predicates`` from ``start_id``. Returns the run record and the accepted path, if any."""
    run, paths = run_set(world, start_id, predicates, budget, backtrack=backtrack, sets=False)
    return run, paths[0] if paths else None


def run_set(
    world: HopWorld,
    start_id: str,
    predicates: Sequence[str],
    budget: Budget,
    *,
    backtrack: bool = True,
    sets: bool = True,
    stating_first: bool = False,
) -> tuple[Run, list[list[Rel]]]:
    """Follow ``predicates`` from ``start_id``: every completed path, in the order found (one at most where
    no hop is many-valued, or with ``sets=False``). ``run.set_hops`` says what each many-valued hop left behind."""
    eff = effective_budget(budget, len(predicates))
    run = Run(budget=eff, searches_left=eff.max_searches, rows_left=eff.max_rows, sets=sets, stating_first=stating_first)
    paths = _hop(world, run, start_id, list(predicates), 1, "0", backtrack, (start_id,))
    return run, paths


def _first_census(
    world: HopWorld, node: str, pred: str, on_path: Sequence[str], found: Sequence[SearchHit], stated: Sequence[Sequence[Rel]],
) -> Census:
    """The completeness check's count (``HopWorld.census``) over a many-valued hop's first rows: ``n_missing`` says
    whether they leave a usable relation of its set unread (one whose object they do not reach, stated only in a
    unit they did not return). Where the hop reads no further, it is the hop's own census (the same objects, the
    same units), so ``_record_set_hop`` takes it instead of counting again."""
    followed = tuple(dict.fromkeys(r.object for rels in stated for r in rels
                                   if r.subject == node and r.predicate == pred and r.usable and r.object not in on_path))
    return world.census(node, pred, on_path, followed, sorted({h.ref for h in found}))


def _read_on(
    world: HopWorld, node: str, pred: str, most: int, stating_first: bool, first: Sequence[Sequence[Rel]],
) -> tuple[list[SearchHit], list[Sequence[Rel]]]:
    """A many-valued hop whose first rows (``first``: their hop relations) leave part of its set unread reads on,
    up to ``most`` rows (the budget's ``set_rows_per_hop``), and keeps them through the last row that states its
    relation (at least the first rows): the same search with a larger ``k``, so its first rows are the ones
    already read, and only the rows after them are read for their relations.

    Why: the set is the answer, so the single-valued row limit would cut every set larger than it; reading on only
    where the catalog holds more of the set, and only through its last stating row, keeps a set's cost in
    proportion to the set, not to how many units mention its subject for other reasons. Replay reads the same
    rows (the rule, the catalog and the budget are the trace's)."""
    found = world.search(node, pred, most, stating_first=stating_first)
    stated = [*first, *(world.hop_relations(h.ref, node, pred) for h in found[len(first):])]
    keep = max((i + 1 for i, rels in enumerate(stated) if _states(rels, node, pred)), default=0)
    keep = max(keep, len(first))
    return found[:keep], stated[:keep]


def _states(rels: Sequence[Rel], node: str, pred: str) -> bool:
    """Whether a unit's hop relations hold one of ``pred`` from ``node`` (of any status)."""
    return any(r.subject == node and r.predicate == pred for r in rels)


def _refuse(run: Run, hop: Hop, code: RefusalCode, message: str, **details: object) -> Hop:
    ref = Refusal(code=code, message=message, details={"hop": hop.index, "branch": hop.branch, **details})
    run.failures.append(ref)
    return hop.model_copy(update={"refusal": ref})


def _hop(
    world: HopWorld, run: Run, node: str, preds: list[str], k: int, branch: str, backtrack: bool,
    on_path: tuple[str, ...] = (),
) -> list[list[Rel]]:
    pred = preds[k - 1]
    if run.searches_left <= 0 or run.rows_left <= 0:
        run.hops.append(
            _refuse(
                run,
                Hop.model_construct(index=k, branch=branch, subquery=node, predicate=pred, from_id=node,
                                    searches_left=run.searches_left, rows_left=run.rows_left),
                RefusalCode.BUDGET_EXHAUSTED,
                f"hop {k} needs a search but the request has {run.searches_left} searches and "
                f"{run.rows_left} rows left (max_searches={run.budget.max_searches}, max_rows={run.budget.max_rows})",
            )
        )
        return []
    many = run.sets and pred not in world.functional
    rows = min(run.budget.rows_per_hop, run.rows_left)
    found = world.search(node, pred, rows, stating_first=run.stating_first)
    stated = [world.hop_relations(h.ref, node, pred) for h in found]
    set_rows = min(run.budget.set_rows_per_hop or 0, run.rows_left)
    census = None
    if many and set_rows > rows == len(found):
        census = _first_census(world, node, pred, on_path, found, stated)
        if census.n_missing:
            found, stated = _read_on(world, node, pred, set_rows, run.stating_first, stated)
            census = None
    run.searches_left -= 1
    run.rows_left -= len(found)
    run.seen_refs.extend(h.ref for h in found)
    hits = _hits(found)

    # Candidates: usable relations of this predicate from this node, in units this search returned.
    # A node already on this path is never entered again (a self-loop or cycle is no chain).
    rejected: list[dict[str, str]] = []
    cycles = 0
    # Distinct bridges, first supporting relation wins (rank order); a relation returned by two units counts once.
    bridges: list[Rel] = []
    cand_ids: set[str] = set()
    objects: set[str] = set()
    for h, in_unit in zip(found, stated):
        for r in in_unit:
            if r.subject != node or r.predicate != pred:
                continue
            if not r.usable:
                rejected.append({"relation": r.id, "unit": h.ref, "why": r.why_not or "not usable"})
            elif r.object in on_path:
                cycles += 1
                rejected.append({"relation": r.id, "unit": h.ref, "why": "cycle"})
            elif r.id not in cand_ids:
                cand_ids.add(r.id)
                if r.object not in objects:
                    objects.add(r.object)
                    bridges.append(r)

    if not bridges:
        base = Hop.model_construct(index=k, branch=branch, subquery=node, predicate=pred, from_id=node, hits=hits,
                                   searches_left=run.searches_left, rows_left=run.rows_left)
        returned = {h.ref for h in found}
        elsewhere = [r for r in world.of_subject(node, pred) if r.usable and r.unit_ref not in returned]
        withheld = [
            {"relation": r.id, "unit": r.unit_ref or "", "why": r.why_not or "not eligible"}
            for r in world.of_subject(node, pred)
            if r.current and r.valid and not r.readable
        ]
        details: dict[str, object] = {}
        if rejected:
            details["rejected"] = rejected
        if elsewhere:
            details["not_returned"] = [r.id for r in elsewhere]
        if withheld:
            details["withheld"] = withheld  # audit only: the projection strips it for other viewers
        if cycles and not elsewhere:
            run.hops.append(
                _refuse(run, base, RefusalCode.CYCLE, f"hop {k}: every supported {pred!r} bridge from {node} returns to a node "
                        "already on this path; a path never enters a node twice", **details)
            )
            return []
        run.hops.append(
            _refuse(
                run,
                base,
                RefusalCode.NO_SUPPORTED_RELATION,
                f"hop {k}: no current, eligible, valid {pred!r} relation from {node} is supported by a "
                f"unit this search returned",
                **details,
            )
        )
        return []

    found_paths: list[list[Rel]] = []
    searches_left, rows_left = run.searches_left, run.rows_left  # after this hop's search (its first branch's record)
    for j, rel in enumerate(bridges):
        if j > 0 and not (backtrack or many):
            break
        this_branch = branch if j == 0 else f"{branch}.{j}"
        # a many-valued hop follows every bridge, each its own record: listing the others on each would make a set
        # of k members cost k * k in the trace (measured: docs/results/sets.md)
        others = [] if many else [b.object for b in bridges if b.object != rel.object]
        if j == 0:
            hop = Hop.model_construct(index=k, branch=this_branch, subquery=node, predicate=pred, from_id=node, hits=hits,
                                      anchor=rel.anchor(), bridge=rel.object, candidate_bridges=others,
                                      searches_left=searches_left, rows_left=rows_left)
        else:  # the alternative reuses hop k's search: no new search, no new rows
            hop = Hop.model_construct(index=k, branch=this_branch, subquery=node, predicate=pred, from_id=node, hits=[],
                                      anchor=rel.anchor(), bridge=rel.object, candidate_bridges=others, reuses=branch,
                                      searches_left=run.searches_left, rows_left=run.rows_left)
        if pred in world.functional:
            against = opposing([r for r in world.of_subject(node, pred) if r.usable], rel.object)
            note = CONTRADICTION_ASSUMPTION.format(pred=pred, subject=node)
            if note not in run.assumptions:
                run.assumptions.append(note)
            if against:
                run.hops.append(
                    _refuse(
                        run,
                        hop.model_copy(update={"bridge": None}),
                        RefusalCode.CONTRADICTION,
                        f"hop {k}: {pred!r} is functional and {node} has an opposing current assignment; "
                        f"the bridge {rel.object} is not settled, so the chain stops here",
                        opposing=against,
                        proposed=rel.object,
                    )
                )
                return []  # the alternatives here are the opposing assignments: not tried
        run.hops.append(hop)
        if k == len(preds):
            rests: list[list[Rel]] = [[]]
        else:
            rests = _hop(world, run, rel.object, preds, k + 1, this_branch, backtrack, (*on_path, rel.object))
        found_paths.extend([rel, *rest] for rest in rests)
        if found_paths and not many:
            return found_paths
    if many:
        _record_set_hop(world, run, k, branch, node, pred, bridges, {h.ref for h in found}, on_path, census)
    return found_paths


def _record_set_hop(
    world: HopWorld, run: Run, k: int, branch: str, node: str, pred: str, bridges: Sequence[Rel],
    returned: set[str], on_path: tuple[str, ...], census: Census | None = None,
) -> None:
    """The catalog-level completeness check of one many-valued hop (see the module docstring); ``census``: the
    count ``_first_census`` already made over the same rows, where the hop read no further."""
    followed = tuple(b.object for b in bridges)
    if census is None:
        census = world.census(node, pred, on_path, followed, sorted(returned))
    note = SET_ASSUMPTION.format(pred=pred, subject=node)
    if note not in run.assumptions:
        run.assumptions.append(note)
    run.set_hops.append(SetHop(k, branch, node, pred, on_path, followed, census))


def _some(census: Census) -> str:
    """The first ``SHOWN`` ids left behind and how many more: a reason stays a line however large the set left behind."""
    more = census.n_missing - len(census.missing)
    return ", ".join(census.missing) + (f" and {more} more" if more > 0 else "")


def set_answer(
    run: Run, start_id: str, paths: Sequence[Sequence[Rel]], hops: int, world: HopWorld,
) -> tuple[list[SetAnswer], Completeness]:
    """A set run's answers (one per end entity, first path found wins, in the order found) and whether they
    are all the readable catalog supports: ``eligible`` is exact when nothing but the last hop's sets left a
    value behind; the reasons say what stopped, the flags which budget would reach it."""
    answers: dict[str, SetAnswer] = {}
    for p in paths:
        end = p[-1].object
        if end not in answers:
            answers[end] = SetAnswer.model_construct(id=end, path_ids=[start_id, *(r.object for r in p)], relations=[r.id for r in p])
    reasons: list[str] = []
    flags: dict[str, None] = {}
    exact = True
    last = [s for s in run.set_hops if s.hop == hops]
    if len(last) == 1:  # every answer is one of its eligible values: the count is the union
        n_eligible = max(last[0].census.eligible, len(answers))
    else:  # several subjects' sets: their union, by value
        union = set(answers)
        for s in last:
            union.update(world.eligible_objects(s.subject, s.predicate, s.on_path))
        n_eligible = len(union)
    for s in run.set_hops:
        if s.complete:
            continue
        exact = exact and s.hop == hops
        if s.census.n_missing:
            flags["--rows-per-hop"] = None
            reasons.append(f"hop {s.hop}: {s.census.left} more supported {s.predicate!r} relation(s) of {s.subject} were not "
                           f"returned by its search ({_some(s.census)}); raise --rows-per-hop "
                           f"(now {run.budget.set_rows_per_hop or run.budget.rows_per_hop}) to reach them")
        else:
            reasons.append(f"hop {s.hop}: {s.census.left} more {s.predicate!r} value(s) of {s.subject} were not followed")
    for f in run.failures:
        if f.code == RefusalCode.BUDGET_EXHAUSTED:
            flags["--max-searches"] = flags["--max-rows"] = None
        elif f.code == RefusalCode.NO_SUPPORTED_RELATION and f.details.get("not_returned"):
            flags["--rows-per-hop"] = None
        elif f.code != RefusalCode.CONTRADICTION:
            continue  # a branch with no value there (no relation, a cycle): nothing of the set is missing
        exact = False
        reasons.append(f.message)
    complete = not reasons
    return list(answers.values()), Completeness.model_construct(
        complete=complete, answered=len(answers), eligible=n_eligible if exact else None, reasons=reasons, flags=list(flags),
    )
