"""The hop engine on plain worlds: exact-ID advance, budget, contradiction, backtracking, and the graph oracle."""

from __future__ import annotations

from engine_rels import rel
from hypothesis import given, settings
from hypothesis import strategies as st

from chainret.core.budget import effective_budget
from chainret.catalog.graph import build_graph, supported_paths
from chainret.engine.hops import HopWorld, run_chain
from chainret.engine.reader import RelationList
from chainret.engine.search import LexicalIndex
from chainret.trace.model import Budget


def world(units, rels, functional=()):
    return HopWorld(RelationList(LexicalIndex(units), rels, frozenset(functional)))


def simple(extra_units=(), extra_rels=(), functional=("operated_by",)):
    units = [
        ("d@v1#u1", "REL p:w:a | operated_by | o:w:n"),
        ("d@v1#u2", "REL o:w:n | contact | c:w:desk"),
        *extra_units,
    ]
    rels = [rel("r1", "p:w:a", "operated_by", "o:w:n", "d@v1#u1"), rel("r2", "o:w:n", "contact", "c:w:desk", "d@v1#u2"), *extra_rels]
    return world(units, rels, functional)


def test_two_hop_chain_accepted_with_bridge_and_budget_accounting():
    run, path = run_chain(simple(), "p:w:a", ["operated_by", "contact"], Budget())
    assert [r.id for r in path] == ["r1", "r2"]
    h1, h2 = run.hops
    assert (h1.subquery, h1.bridge, h2.subquery, h2.bridge) == ("p:w:a", "o:w:n", "o:w:n", "c:w:desk")
    assert h1.anchor.unit_ref == "d@v1#u1" and h2.anchor.relation_id == "r2"
    # hop 2's search also returns u1 (it names o:w:n as object): rows count whether used or not
    assert [h.ref for h in h2.hits] == ["d@v1#u2", "d@v1#u1"] or [h.ref for h in h2.hits] == ["d@v1#u1", "d@v1#u2"]
    assert (h1.searches_left, h1.rows_left, h2.searches_left, h2.rows_left) == (1, 5, 0, 3)
    assert any("catalog-level" in a for a in run.assumptions)


def test_relation_elsewhere_never_advances():
    # r2's unit exists but is not readable/indexed: the relation is usable in the catalog but not returned
    w = HopWorld(RelationList(LexicalIndex([("d@v1#u1", "REL p:w:a | operated_by | o:w:n")]),
              [rel("r1", "p:w:a", "operated_by", "o:w:n", "d@v1#u1"), rel("r2", "o:w:n", "contact", "c:w:desk", "x@v1#u9")]))
    run, path = run_chain(w, "p:w:a", ["operated_by", "contact"], Budget())
    assert path is None
    assert run.hops[-1].refusal.code == "no_supported_relation"
    assert run.hops[-1].refusal.details["not_returned"] == ["r2"]


def test_rows_per_hop_cap_hides_a_supporting_unit():
    noise = [(f"n@v1#u{i}", "o:w:n o:w:n o:w:n noise") for i in range(3)]
    w = simple(extra_units=noise)
    run, path = run_chain(w, "p:w:a", ["operated_by", "contact"], Budget(rows_per_hop=2, max_rows=4, max_searches=2))
    assert path is None and len(run.hops[1].hits) == 2
    assert "d@v1#u2" not in [h.ref for h in run.hops[1].hits]


def test_unusable_relations_do_not_advance():
    for flags in ({"valid": False, "why_not": "invalid"}, {"current": False}, {"readable": False}):
        w = world([("d@v1#u1", "REL p:w:a | operated_by | o:w:n")], [rel("r1", "p:w:a", "operated_by", "o:w:n", "d@v1#u1", **flags)])
        run, path = run_chain(w, "p:w:a", ["operated_by", "contact"], Budget())
        assert path is None and run.hops[0].refusal.code == "no_supported_relation"
        assert run.searches_left == 1  # one search spent, nothing more


def test_contradiction_stops_after_first_hop_with_one_search():
    w = simple(
        extra_units=[("e@v1#u1", "REL p:w:a | operated_by | o:w:s")],
        extra_rels=[rel("r3", "p:w:a", "operated_by", "o:w:s", "e@v1#u1")],
    )
    run, path = run_chain(w, "p:w:a", ["operated_by", "contact"], Budget())
    assert path is None and len(run.hops) == 1
    assert run.hops[0].refusal.code == "contradiction" and run.searches_left == 1
    assert run.hops[0].refusal.details["opposing"]
    assert any("catalog-level" in a for a in run.assumptions)


def test_contradiction_counts_unreturned_relations():
    # the opposing assignment's unit is never searched or returned: still stops (catalog-level assumption)
    w = HopWorld(RelationList(LexicalIndex([("d@v1#u1", "REL p:w:a | operated_by | o:w:n")]),
              [rel("r1", "p:w:a", "operated_by", "o:w:n", "d@v1#u1"), rel("r3", "p:w:a", "operated_by", "o:w:s", "z@v1#u1")],
              frozenset({"operated_by"})))
    run, _ = run_chain(w, "p:w:a", ["operated_by", "contact"], Budget())
    assert run.hops[0].refusal.details["opposing"] == ["r3"]


def two_candidates():
    units = [
        ("d@v1#u1", "REL p:w:a | supplied_by | o:w:x"),
        ("d@v1#u2", "REL p:w:a | supplied_by | o:w:y"),
        ("d@v1#u3", "REL o:w:y | contact | c:w:y"),
    ]
    rels = [
        rel("s1", "p:w:a", "supplied_by", "o:w:x", "d@v1#u1"),
        rel("s2", "p:w:a", "supplied_by", "o:w:y", "d@v1#u2"),
        rel("c2", "o:w:y", "contact", "c:w:y", "d@v1#u3"),
    ]
    return world(units, rels)


def test_backtracking_finds_the_only_complete_path_and_depth_first_misses_it():
    b = Budget(max_searches=3, max_rows=9)
    run, path = run_chain(two_candidates(), "p:w:a", ["supplied_by", "contact"], b, backtrack=True)
    assert [r.id for r in path] == ["s2", "c2"]
    assert [(h.index, h.branch, h.bridge) for h in run.hops] == [(1, "0", "o:w:x"), (2, "0", None), (1, "0.1", "o:w:y"), (2, "0.1", "c:w:y")]
    assert run.hops[2].reuses == "0" and run.hops[2].hits == []
    run2, path2 = run_chain(two_candidates(), "p:w:a", ["supplied_by", "contact"], b, backtrack=False)
    assert path2 is None and run2.hops[0].candidate_bridges == ["o:w:y"]


def test_backtracking_stays_inside_the_budget():
    run, path = run_chain(two_candidates(), "p:w:a", ["supplied_by", "contact"], Budget(), backtrack=True)
    assert path is None  # the default two searches are spent before the alternative can be searched
    assert run.hops[-1].refusal.code == "budget_exhausted" and run.searches_left == 0


def test_effective_budget_scales_with_hops_unless_set():
    assert effective_budget(Budget(), 3).max_searches == 3 and effective_budget(Budget(), 3).max_rows == 9
    assert effective_budget(Budget(max_searches=5), 2).max_searches == 5
    assert effective_budget(Budget(rows_per_hop=2), 2).max_rows == 4


# --- property tests: budget never exceeded; engine agrees with the graph oracle on random small worlds ---

ENT = ["a", "b", "c", "d", "e"]
PREDS = ["p", "q"]


@st.composite
def random_world(draw):
    n = draw(st.integers(0, 9))
    rels, units = [], []
    for i in range(n):
        s, o = draw(st.sampled_from(ENT)), draw(st.sampled_from(ENT))
        p = draw(st.sampled_from(PREDS))
        flags = draw(st.sampled_from([{}, {}, {}, {"valid": False}, {"current": False}, {"readable": False}]))
        ref = f"d@v1#u{i}"
        rels.append(rel(f"r{i}", f"e:w:{s}", p, f"e:w:{o}", ref, **flags))
        if flags.get("readable", True):  # only readable units are indexed
            units.append((ref, f"REL e:w:{s} | {p} | e:w:{o}"))
    noise = draw(st.integers(0, 3))
    units += [(f"n@v1#u{i}", "prose about e:w:a and e:w:b") for i in range(noise)]
    functional = draw(st.sampled_from([(), ("p",)]))
    return world(units, rels, functional)


@settings(max_examples=150, deadline=None)
@given(random_world(), st.sampled_from(ENT), st.lists(st.sampled_from(PREDS), min_size=1, max_size=3),
       st.integers(1, 4), st.integers(1, 6), st.integers(1, 12), st.booleans())
def test_never_over_budget(w, start, preds, rows, searches, max_rows, backtrack):
    b = Budget(rows_per_hop=rows, max_searches=searches, max_rows=max_rows)
    run, path = run_chain(w, f"e:w:{start}", preds, b, backtrack=backtrack)
    searched = [h for h in run.hops if h.reuses is None and not (h.refusal and h.refusal.code == "budget_exhausted")]
    assert len(searched) == searches - run.searches_left <= searches
    assert sum(len(h.hits) for h in run.hops) <= max_rows
    assert all(len(h.hits) <= rows for h in run.hops)
    assert run.searches_left >= 0 and run.rows_left >= 0
    assert len(run.seen_refs) == sum(len(h.hits) for h in run.hops)


@settings(max_examples=200, deadline=None)
@given(random_world(), st.sampled_from(ENT), st.lists(st.sampled_from(PREDS), min_size=1, max_size=3))
def test_engine_paths_equal_graph_oracle(w, start, preds):
    # generous budget: every unit naming the node is returned, so only the catalog decides
    b = Budget(rows_per_hop=50, max_searches=200, max_rows=10_000)
    oracle = supported_paths(build_graph(w.reader.relations), f"e:w:{start}", preds, w.functional)
    run, path = run_chain(w, f"e:w:{start}", preds, b, backtrack=True)
    if path is None:
        assert oracle == [], (oracle, run.hops)
    else:
        assert [r.id for r in path] in oracle
