"""``rank_bm25plus``'s one-term path (a hop's exact-ID search) gives the general path's hits: same refs, ranks
and bit-identical scores, ties by corpus position then candidate order (issue 24)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from chainret.engine.search import bm25plus, bm25plus_idf, rank_bm25plus, top_hits

_cands = st.lists(st.tuples(st.integers(0, 6), st.integers(1, 40), st.integers(0, 4)), max_size=9)


@settings(max_examples=400, deadline=None)
@given(_cands, st.integers(0, 12), st.integers(1, 10**6), st.floats(1.0, 30.0), st.integers(1, 6))
def test_one_term_path_equals_general(rows: list[tuple[int, int, int]], n: int, size: int, avgdl: float, k: int) -> None:
    cands = [(pos, (f"d@v#u{i}", ntok, {"x": tf})) for i, (pos, ntok, tf) in enumerate(rows)]
    df = {"x": n}
    idf = [bm25plus_idf(size, n)]
    scores = [bm25plus(idf, [tfs.get("x", 0)], ntok, avgdl, 1.5, 0.75, 1.0) for _, (_, ntok, tfs) in cands]
    want = top_hits(scores, [c[0] for c in cands], lambda j: cands[j][1][0], k)
    got = rank_bm25plus(["x"], cands, df, size, avgdl, k, 1.5, 0.75, 1.0)
    assert [(h.ref, h.rank, h.score) for h in got] == [(h.ref, h.rank, h.score) for h in want]
