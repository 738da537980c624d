"""Set answers: a many-valued hop follows every supported bridge, and the answer says whether it is complete.

The property that matters: a set answer that says it is complete holds every end entity the readable catalog
supports (the graph oracle), under any budget; with a generous budget it is always complete.
"""

from __future__ import annotations

import json
from pathlib import Path

from engine_rels import rel
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine_hops import ENT, PREDS, random_world, world

from chainret.catalog.graph import build_graph, supported_paths
from chainret.core.budget import SET_ROWS_PER_HOP, fanout_budget
from chainret.engine.hops import run_chain, run_set, set_answer
from chainret.server.limits import DEFAULT_CEILING
from chainret.trace.model import Budget, read_trace

TEAM = "group:w:team"


def team(n_members: int, noise: int = 0):
    """A team with ``n_members`` members (many-valued ``has_member``) and ``noise`` units that mention it first."""
    units = [(f"n@v1#u{i}", f"{TEAM} {TEAM} {TEAM} is mentioned here") for i in range(noise)]
    rels = []
    for i in range(n_members):
        units.append((f"m@v1#u{i}", f"REL {TEAM} | has_member | user:w:m{i}"))
        rels.append(rel(f"r{i}", TEAM, "has_member", f"user:w:m{i}", f"m@v1#u{i}"))
    return world(units, rels)


def test_a_many_valued_hop_answers_every_member_and_says_all():
    w = team(2)
    run, paths = run_set(w, TEAM, ["has_member"], Budget())
    answers, done = set_answer(run, TEAM, paths, 1, w)
    assert sorted(a.id for a in answers) == ["user:w:m0", "user:w:m1"]
    assert done.complete and done.answered == done.eligible == 2 and done.reasons == []
    # each member has its own hop record and anchor; the second reuses the first's search
    assert [h.bridge for h in run.hops] == [a.id for a in answers] and run.hops[1].reuses == "0"
    assert run.budget.max_searches - run.searches_left == 1


def test_the_single_path_rule_answers_one_member():
    """Negative control: the 1.0 rule (``sets=False``, how a 1.0 trace replays) stops at the first member."""
    run, path = run_chain(team(2), TEAM, ["has_member"], Budget())
    assert path is not None and len(path) == 1 and run.hops[0].candidate_bridges == ["user:w:m1"]


def test_a_budget_cut_set_says_k_of_n_and_the_flag_that_reaches_the_rest():
    w = team(3, noise=1)
    run, paths = run_set(w, TEAM, ["has_member"], Budget(rows_per_hop=3))
    answers, done = set_answer(run, TEAM, paths, 1, w)
    assert len(answers) == 2 and not done.complete
    assert done.answered == 2 and done.eligible == 3
    assert done.flags == ["--rows-per-hop"] and "--rows-per-hop (now 3)" in done.reasons[0]
    run, paths = run_set(w, TEAM, ["has_member"], Budget(rows_per_hop=4))
    assert set_answer(run, TEAM, paths, 1, w)[1].complete


def test_a_set_larger_than_the_row_limit_is_answered_whole_by_its_default_limits():
    """``fanout_budget``: a many-valued hop reads on past ``rows_per_hop`` while the catalog holds more of its set."""
    w = team(7, noise=2)
    b = fanout_budget(Budget(), [True])
    assert b.set_rows_per_hop == SET_ROWS_PER_HOP and b.rows_per_hop == 3
    run, paths = run_set(w, TEAM, ["has_member"], b)
    answers, done = set_answer(run, TEAM, paths, 1, w)
    assert len(answers) == 7 and done.complete and done.eligible == 7
    # it keeps its rows through the last unit that states a member, not the budget's 25 rows
    assert len(run.hops[0].hits) == 9 and run.budget.max_rows - run.rows_left == 9
    # negative control: the single-valued row limit (a budget the caller wrote) cuts the set to a part
    run, paths = run_set(w, TEAM, ["has_member"], Budget(rows_per_hop=3))
    answers, done = set_answer(run, TEAM, paths, 1, w)
    assert len(answers) == 1 and not done.complete and done.eligible == 7


def test_a_set_within_its_first_rows_reads_no_further():
    """A set's cost follows the set: two members, mentioned by 40 other units, take the first three rows only."""
    units = [(f"n@v1#u{i}", f"{TEAM} is mentioned here") for i in range(40)]
    units += [(f"m@v1#u{i}", f"REL {TEAM} | has_member | user:w:m{i}") for i in range(2)]
    rels = [rel(f"r{i}", TEAM, "has_member", f"user:w:m{i}", f"m@v1#u{i}") for i in range(2)]
    w = world(units, rels)
    run, paths = run_set(w, TEAM, ["has_member"], fanout_budget(Budget(), [True]), stating_first=True)
    answers, done = set_answer(run, TEAM, paths, 1, w)
    assert len(answers) == 2 and done.complete and len(run.hops[0].hits) == 3


def test_a_sets_default_limits_stay_within_a_servers_ceiling():
    for many in ([True], [True, True], [False, True], [True, False, True]):
        b = fanout_budget(Budget(), many, DEFAULT_CEILING)
        assert b.set_rows_per_hop <= DEFAULT_CEILING.set_rows_per_hop and b.max_searches <= DEFAULT_CEILING.max_searches
        assert b.max_rows <= DEFAULT_CEILING.max_rows
    # negative control: without the ceiling the same chain is given more than it allows
    assert fanout_budget(Budget(), [True, True]).max_searches > DEFAULT_CEILING.max_searches
    # a chain with no many-valued hop, or a budget the caller wrote, is left as it is
    assert fanout_budget(Budget(), [False, False]) == Budget()
    assert fanout_budget(Budget(rows_per_hop=5), [True]) == Budget(rows_per_hop=5)


def test_a_budget_without_set_rows_writes_the_json_it_always_did():
    assert "set_rows_per_hop" not in Budget().model_dump(mode="json")
    assert fanout_budget(Budget(), [True]).model_dump(mode="json")["set_rows_per_hop"] == SET_ROWS_PER_HOP


@settings(max_examples=200, deadline=None)
@given(random_world(), st.sampled_from(ENT), st.lists(st.sampled_from(PREDS), min_size=1, max_size=3),
       st.integers(1, 4), st.integers(1, 6), st.integers(1, 12))
def test_a_set_said_complete_is_the_whole_supported_set(w, start, preds, rows, searches, max_rows):
    """Under any budget: complete means every end entity the oracle finds; with a generous budget, complete."""
    s = f"e:w:{start}"
    oracle = {p[-1] for p in _oracle_ends(w, s, preds)}
    for b in (Budget(rows_per_hop=rows, max_searches=searches, max_rows=max_rows),
              Budget(rows_per_hop=rows, max_searches=searches, max_rows=max_rows, set_rows_per_hop=rows + max_rows),
              fanout_budget(Budget(), [p not in w.functional for p in preds]),
              Budget(rows_per_hop=50, max_searches=500, max_rows=10_000)):
        run, paths = run_set(w, s, preds, b)
        if not paths:
            continue
        answers, done = set_answer(run, s, paths, len(preds), w)
        got = {a.id for a in answers}
        assert got <= oracle
        if done.complete:
            assert got == oracle, (got, oracle, done)
            assert done.eligible == len(got)
    if oracle and all(p not in w.functional for p in preds):
        run, paths = run_set(w, s, preds, Budget(rows_per_hop=50, max_searches=500, max_rows=10_000))
        answers, done = set_answer(run, s, paths, len(preds), w)
        assert {a.id for a in answers} == oracle and done.complete


def _oracle_ends(w, start, preds):
    """End entities of every supported path (relation ids -> objects)."""
    by_id = {r.id: r for r in w.reader.relations}
    return [[by_id[i].object for i in path] for path in supported_paths(build_graph(w.reader.relations), start, preds, w.functional)]


# --- the whole request: CLI/library traces and 1.0 traces ---

REPO = Path(__file__).resolve().parents[1]


def test_a_10_trace_still_verifies_by_the_single_path_rule():
    """A trace written before set answers (schema 1.0) replays by its own rule and verifies."""
    from chainret.verify.replay import verify

    for name, cases in (("main-serves.json", "fixtures/seed/cases.yaml"), ("three-hop-as-of-2024.json", "fixtures/lab/cases.yaml")):
        trace = read_trace(REPO / "tests/data/traces-1.0" / name)
        assert trace.schema_version == "1.0" and trace.answers is None
        assert verify(trace, REPO / cases).status == "verified", name


def test_a_trace_that_drops_a_member_or_claims_complete_falsely_is_a_difference(tmp_path):
    from chainret import ask
    from chainret.verify.replay import verify

    cat = REPO / "catalogs/default.yaml"
    trace = ask("Which contact serves PR-84?", cat)
    assert trace.schema_version == "1.1" and trace.completeness is not None and trace.completeness.complete
    assert verify(trace, cat).status == "verified"
    data = json.loads(trace.to_json())
    forged = dict(data, completeness=dict(data["completeness"], complete=False, eligible=5))
    assert verify(type(trace).model_validate(forged), cat).status == "mismatch"
    dropped = dict(data, answers=[])
    assert verify(type(trace).model_validate(dropped), cat).status == "mismatch"


def test_a_sets_default_limits_are_kept_per_chain_shape():
    """Every limit at its default: one frozen budget per shape of chain, the one ``_fanout`` works out, kept (not
    worked out each ask). Negative controls: another shape, a ceiling or a budget the caller wrote gets its own."""
    from chainret.core.budget import _fanout

    for many in ([True], [False, True], [True, True], [True, False, True]):
        first = fanout_budget(Budget(), many)
        assert fanout_budget(Budget(), list(many)) is first and first == _fanout(Budget(), many, None)
    assert fanout_budget(Budget(), [True]) != fanout_budget(Budget(), [True, True])
    assert fanout_budget(Budget(), [True, True], DEFAULT_CEILING) != fanout_budget(Budget(), [True, True])
    assert fanout_budget(Budget(rows_per_hop=5), [True]).set_rows_per_hop is None


def test_a_kept_sets_limits_are_filled_once_per_hop_count():
    """``effective_budget`` of a kept set budget is kept too, and is the fill worked out afresh. Negative control: an
    equal budget that is not the kept object (a caller's copy) is filled afresh, to an equal but new value."""
    from chainret.core.budget import _fill, effective_budget

    kept = fanout_budget(Budget(), [False, True])
    first = effective_budget(kept, 2)
    assert effective_budget(kept, 2) is first and first == _fill(kept, 2, kept.model_fields_set)
    three = effective_budget(kept, 3)
    assert effective_budget(kept, 3) is three and three == _fill(kept, 3, kept.model_fields_set)
    copy = kept.model_copy()
    assert effective_budget(copy, 2) == first and effective_budget(copy, 2) is not first
