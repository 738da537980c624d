"""Every packer: never over budget (hypothesis, costs above the budget included), caps, determinism."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chainret.research.packing import Candidate, PackContext, available_packers, get_packer

PACKERS = ["naive", "focused", "focused-seed", "mmr", "submodular", "oracle"]


def test_all_packers_are_registered():
    assert set(PACKERS) <= set(available_packers())


@st.composite
def requests(draw):
    budget = draw(st.integers(0, 60))
    n = draw(st.integers(0, 8))
    words = ["alpha", "beta", "gamma", "delta", "answer"]
    cands = [
        Candidate(
            ref=f"c{i}",
            text=" ".join(draw(st.lists(st.sampled_from(words), min_size=1, max_size=4))),
            cost=draw(st.integers(0, 3 * budget + 5)),  # often dearer than the whole budget
            doc_id=draw(st.sampled_from(["d1", "d2", "d3"])),
            span=None,
            relevance=draw(st.floats(0, 1)),
        )
        for i in range(n)
    ]
    max_items = draw(st.one_of(st.none(), st.integers(0, 5)))
    ctx = PackContext(query="alpha gamma answer", gold_answers=["answer"], gold_docs=frozenset({"d1", "d2"}))
    return cands, budget, max_items, ctx


@settings(max_examples=150, deadline=None)
@given(requests(), st.sampled_from(PACKERS))
def test_never_over_budget_never_duplicates_respects_max_items(req, name):
    cands, budget, max_items, ctx = req
    sel = get_packer(name).pack(cands, budget, max_items=max_items, context=ctx)
    assert sum(cands[i].cost for i in sel) <= budget
    assert len(sel) == len(set(sel))
    assert all(0 <= i < len(cands) for i in sel)
    if max_items is not None:
        assert len(sel) <= max_items


@settings(max_examples=50, deadline=None)
@given(requests(), st.sampled_from(PACKERS))
def test_deterministic(req, name):
    cands, budget, max_items, _ = req
    mk = lambda: PackContext(query="alpha gamma answer", gold_answers=["answer"], gold_docs=frozenset({"d1"}))  # noqa: E731
    assert get_packer(name).pack(cands, budget, max_items=max_items, context=mk()) == get_packer(name).pack(
        cands, budget, max_items=max_items, context=mk()
    )


@pytest.mark.parametrize("name", PACKERS)
def test_a_single_candidate_dearer_than_the_budget_is_not_taken(name):
    cands = [Candidate("big", "alpha answer", 50, "d1", None, 1.0)]
    assert get_packer(name).pack(cands, 49, context=PackContext(gold_answers=["answer"], gold_docs=frozenset({"d1"}))) == []


def _c(ref, text, doc, rel, cost=4):
    return Candidate(ref, text, cost, doc, None, rel)


def test_focused_prefers_new_query_terms_and_new_documents():
    cands = [_c("a", "paris france", "d1", 1.0), _c("b", "paris capital", "d1", 0.9), _c("c", "eiffel tower", "d2", 0.5)]
    ctx = PackContext(query="Which tower in Paris?")
    # after "a" (covers paris), "c" brings a new term (tower) and a new document; "b" brings neither
    assert get_packer("focused").pack(cands, 8, context=ctx) == [0, 2]
    assert get_packer("naive").pack(cands, 8, context=ctx) == [0, 1]


def test_mmr_penalises_redundancy_with_lambda_07():
    cands = [_c("a", "x", "d1", 1.0), _c("b", "x", "d1", 0.95), _c("c", "y", "d2", 0.7)]
    sim = np.array([[1, 0.99, 0], [0.99, 1, 0], [0, 0, 1.0]])
    # b: 0.7*0.95 - 0.3*0.99 = 0.368 < c: 0.7*0.7 - 0 = 0.49
    assert get_packer("mmr").pack(cands, 8, context=PackContext(sim=sim)) == [0, 2]


def test_oracle_puts_the_answer_in_and_covers_gold_documents_cheaply():
    cands = [
        _c("d", "distractor text", "x", 1.0, cost=3),
        _c("g1", "bridge fact", "g1", 0.2, cost=5),
        _c("ans", "the answer is Paris.", "g2", 0.1, cost=6),
        _c("g1b", "another bridge fact with more words", "g1", 0.3, cost=9),
    ]
    ctx = PackContext(gold_answers=["paris"], gold_docs=frozenset({"g1", "g2"}))
    assert get_packer("oracle").pack(cands, 11, context=ctx) == [2, 1]
