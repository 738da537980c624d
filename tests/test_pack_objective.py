"""The submodular objective: each term by hand, monotone + diminishing returns by hypothesis, fallback."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chainret.pack import Candidate, PackContext
from chainret.research.packing.objective import Objective
from chainret.research.packing.packers import SubmodularPacker

# Three snippets: 0 and 1 are near-duplicates in document A, 2 stands alone in B.
SIM = np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 1.0]])
TERMS = [frozenset("x"), frozenset("xy"), frozenset("z")]


def hand_made() -> Objective:
    return Objective([1.0, 2.0, 1.0], ["A", "A", "B"], TERMS, frozenset("xyzw"), SIM)


def test_rel_is_modular_share_of_total_relevance():
    o = hand_made()
    assert o.term_values([0])["rel"] == pytest.approx(1 / 4)
    assert o.term_values([1, 2])["rel"] == pytest.approx(3 / 4)
    assert o.term_values([0, 1, 2])["rel"] == pytest.approx(1.0)


def test_query_cov_is_set_cover_of_query_terms():
    o = hand_made()
    assert o.term_values([0])["qry"] == pytest.approx(1 / 4)
    assert o.term_values([0, 1])["qry"] == pytest.approx(2 / 4)  # x counted once
    assert o.term_values([1, 2])["qry"] == pytest.approx(3 / 4)  # w is never covered


def test_repr_saturates_so_a_near_duplicate_buys_nothing():
    o = hand_made()  # deg = [1.5, 1.5, 1]; caps = 0.3 * deg = [.45, .45, .3]; total 1.2
    assert o.term_values([0])["cov"] == pytest.approx(0.9 / 1.2)
    assert o.term_values([0, 1])["cov"] == pytest.approx(0.9 / 1.2)  # saturated: duplicate adds 0
    assert o.term_values([2])["cov"] == pytest.approx(0.3 / 1.2)
    assert o.term_values([0, 2])["cov"] == pytest.approx(1.0)


def test_div_is_concave_over_documents():
    o = hand_made()
    z = math.sqrt(3) + 1
    assert o.term_values([0])["div"] == pytest.approx(1 / z)
    assert o.term_values([0, 2])["div"] == pytest.approx(2 / z)  # a second document: full credit
    assert o.term_values([0, 1])["div"] == pytest.approx(math.sqrt(3) / z)  # same document: sqrt


def test_value_is_the_weighted_sum_1_05_04_03():
    o = hand_made()
    t = o.term_values([0, 2])
    assert o.value([0, 2]) == pytest.approx(1.0 * t["rel"] + 0.5 * t["qry"] + 0.4 * t["cov"] + 0.3 * t["div"])


@st.composite
def instances(draw):
    n = draw(st.integers(1, 6))
    rel = draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))
    docs = draw(st.lists(st.sampled_from("abc"), min_size=n, max_size=n))
    vocab = "pqrstu"
    terms = [frozenset(draw(st.sets(st.sampled_from(vocab), max_size=4))) for _ in range(n)]
    query = frozenset(draw(st.sets(st.sampled_from(vocab), max_size=5)))
    upper = draw(st.lists(st.floats(0, 1), min_size=n * n, max_size=n * n))
    m = np.array(upper).reshape(n, n)
    sim = np.triu(m, 1) + np.triu(m, 1).T + np.eye(n)
    obj = Objective(rel, docs, terms, query, sim)
    b_mask = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    a_mask = [b and draw(st.booleans()) for b in b_mask]
    outside = [i for i in range(n) if not b_mask[i]]
    e = draw(st.sampled_from(outside)) if outside else None
    return obj, [i for i in range(n) if a_mask[i]], [i for i in range(n) if b_mask[i]], e


@settings(max_examples=200, deadline=None)
@given(instances())
def test_each_term_is_monotone_with_diminishing_returns(inst):
    obj, a, b, e = inst
    if e is None:
        return
    ta, tae = obj.term_values(a), obj.term_values(a + [e])
    tb, tbe = obj.term_values(b), obj.term_values(b + [e])
    for k in ("rel", "qry", "cov", "div"):
        assert tbe[k] >= tb[k] - 1e-9, k  # monotone
        assert tae[k] - ta[k] >= tbe[k] - tb[k] - 1e-9, k  # A ⊆ B: gain at A >= gain at B
        assert 0.0 <= tbe[k] <= 1.0 + 1e-9


@settings(max_examples=100, deadline=None)
@given(instances())
def test_incremental_gains_match_value_differences(inst):
    obj, _, b, _ = inst
    gains = obj.gains(obj.state_of(b))
    base = obj.value(b)
    for i in range(obj.n):
        expected = 0.0 if i in b else obj.value(b + [i]) - base
        assert gains[i] == pytest.approx(expected, abs=1e-9)


def rel_only(rel):
    n = len(rel)
    return Objective(rel, [f"d{i}" for i in range(n)], [frozenset()] * n, frozenset(), np.eye(n),
                     weights={"rel": 1.0, "qry": 0.0, "cov": 0.0, "div": 0.0})


def test_singleton_fallback_triggers_when_one_big_snippet_beats_the_greedy_set():
    # Ratios 0.9, 1, 1: greedy takes the two cheap ones (value 2/11), then the big one no longer fits.
    packer = SubmodularPacker()
    assert packer.pack_objective(rel_only([9.0, 1.0, 1.0]), [10, 1, 1], 10) == [0]
    assert packer.last_used_fallback


def test_singleton_fallback_stays_off_when_greedy_is_better():
    packer = SubmodularPacker()
    assert packer.pack_objective(rel_only([1.0, 1.0, 1.0]), [2, 1, 1], 10) == [1, 2, 0]  # by gain per token
    assert not packer.last_used_fallback


def test_submodular_prefers_the_second_document_over_a_near_duplicate():
    cands = [Candidate(f"c{i}", t, 5, d, None, r) for i, (t, d, r) in
             enumerate([("x", "A", 1.0), ("x y", "A", 1.0), ("z", "B", 0.6)])]
    ctx = PackContext(query="x y z", query_terms=frozenset("xyz"), terms=TERMS,
                      sim=np.array([[1, 0.95, 0], [0.95, 1, 0], [0, 0, 1.0]]))
    assert sorted(SubmodularPacker().pack(cands, 10, context=ctx)) == [1, 2]
