"""A hub's kept ranking (``HubRankings``) answers a hop exactly as ranking every unit that holds the node again.

A node that thousands of units mention (an org operating 10,000 projects) is ranked once per index; later hops
take its rows from the kept first ``KEEP_RANKED`` units of the ID's order and of the subset that holds the hop's
predicate word. These tests compare every kept answer with ``stating_first`` / ``rank_term`` over all units, and
show the guard that matters (a subset is taken from the whole ranking, never from its cut prefix) catching the
mistake it exists for.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chainret.engine import search
from chainret.engine.search import HUB_UNITS, HubRankings, LexicalIndex, TermRanking, rank_term, stating_first

K1, B, DELTA = 1.5, 0.75, 1.0


def _cands(rows: list[tuple[int, int]]) -> list[tuple[int, str, int, int]]:
    return [(i, f"d#u{i}", ntok, tf) for i, (ntok, tf) in enumerate(rows)]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 9), st.integers(1, 3)), min_size=HUB_UNITS + 1, max_size=400),
    st.sets(st.integers(0, 399), max_size=300),
    st.lists(st.integers(1, 300), min_size=1, max_size=4),
    st.integers(2, 80),
)
def test_kept_hub_rows_equal_a_fresh_ranking(rows, stating, ks, keep) -> None:
    cands = _cands(rows)
    size, avgdl = 10 * len(cands), 5.0
    hubs = HubRankings()
    ranking = TermRanking.of(len(cands), cands, size, avgdl, K1, B, DELTA)
    original = search.KEEP_RANKED
    search.KEEP_RANKED = keep  # small cuts, so asks past them are tried
    try:
        hubs.rows(ranking, "org:hub", "contact", stating, 1)
        hubs.rows(ranking, "org:hub", None, (), 1)
    finally:
        search.KEEP_RANKED = original
    for k in ks:
        want = stating_first(cands, stating, size, avgdl, k, K1, B, DELTA)
        got = hubs.hits("org:hub", "contact", k)
        assert got is None or got == want  # None: past what was kept, the caller ranks again
        if k <= min(keep, len(stating)):
            assert got == want  # the subset alone fills the rows: always answered from the kept rows
        plain = hubs.hits("org:hub", None, k)
        assert plain is None or plain == rank_term(len(cands), cands, size, avgdl, k, K1, B, DELTA)
        assert (plain is None) == (k > keep and len(cands) > keep)


def test_the_stating_subset_comes_from_the_whole_ranking_not_its_cut() -> None:
    # 100 units hold the org; the 3 that also hold "contact" are the longest, so they rank last of all.
    cands = [(i, f"d#u{i}", 4 if i < 97 else 9, 1) for i in range(100)]
    stating = {97, 98, 99}
    want = stating_first(cands, stating, 1000, 5.0, 3, K1, B, DELTA)
    assert [h.ref for h in want] == ["d#u97", "d#u98", "d#u99"]
    hubs = HubRankings()
    ranking = TermRanking.of(100, cands, 1000, 5.0, K1, B, DELTA)
    hubs.rows(ranking, "org:hub", "contact", stating, 3)
    assert hubs.hits("org:hub", "contact", 3) == want
    # negative control: a subset taken from the kept prefix (the first 10) would lose all three
    cut = ranking.kept(10)
    with pytest.raises(ValueError):
        cut.only(stating)
    wrong = TermRanking(cut.n, [key for key in cut.keyed if key[1] in stating], True)
    assert ranking.stating_first(wrong, 3) != want


def test_lexical_index_hub_hops_repeat_the_first_answer() -> None:
    units = [(f"p#u{i}", f"REL project:p{i} | operated_by | org:hub") for i in range(HUB_UNITS + 40)]
    units += [("c#u1", "REL org:hub | contact | contact:c0"), ("c#u2", "REL org:hub | contact | contact:c1")]
    fresh = LexicalIndex(units)
    first = fresh.hop_search("org:hub", "contact", 3)
    assert [h.ref for h in first[:2]] == ["c#u1", "c#u2"]
    assert "org:hub" in fresh._hubs.terms
    for k in (1, 3, 5, 50):
        assert fresh.hop_search("org:hub", "contact", k) == LexicalIndex(units).hop_search("org:hub", "contact", k)
        assert fresh.search(["org:hub"], k) == LexicalIndex(units).search(["org:hub"], k)
