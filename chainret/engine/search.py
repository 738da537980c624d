"""Lexical search over retrievable units (rank-bm25), built per view and principal.

Why these choices:

* The tokenizer (``chainret.core.words.SEARCH_TOKEN``) keeps canonical IDs (``org:final:north``),
  aliases (``PR-84``) and unit refs (``registry/projects.md@v2#u3``) as single lower-cased tokens, so
  a hop's derived subquery (an exact canonical ID) matches exactly that ID and never its parts.
* ``BM25Plus``, not ``BM25Okapi``: Okapi's IDF is ``log((N - n + 0.5) / (n + 0.5))``, which is zero
  for a term in exactly half the documents and negative above that (rank_bm25 issues #29, #39,
  #43); on a two-unit world an exact ID match would then score 0. BM25Plus's IDF
  ``log((N + 1) / n)`` is positive for every term that occurs.
* Only units that contain at least one query token are returned. rank_bm25's BM25Plus adds
  ``idf * delta`` for every query term even to units that lack it; such units are not matches.
* Pre-tokenized corpus: rank_bm25's ``tokenizer=`` argument starts a multiprocessing Pool.
* Scoring goes through an inverted index (term -> units) and rank_bm25's ``BM25Plus`` formula,
  restated in plain Python over the candidate units only: the same operations in the same order,
  so scores equal ``rank_bm25.BM25Plus.get_scores`` exactly (a property test checks it). A
  100k-unit index answers an exact-ID query without touching every unit, and neither numpy nor
  rank_bm25 is imported on the ask path (``score_all`` builds the rank_bm25 reference on demand).
* The caller builds the index over the units the principal may read in the view, and nothing
  else: restricted text is neither searchable nor part of the IDF statistics.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from itertools import filterfalse
from typing import Any, NamedTuple, Protocol

from chainret.core.bulk import paused_gc
from chainret.core.words import SEARCH_TOKEN  # the token rule, and why it keeps IDs whole

# Small English stop list: only for prose words; IDs and aliases never collide with it.
STOPWORDS = frozenset(
    "a an and are as at be by for from has have in is it its of on or that the this to was "
    "were which who whom whose what with does do did".split()
)


def bm25plus_idf(size: int, n: int) -> float:
    """BM25Plus IDF of a term ``n`` of ``size`` units contain, ``log((N + 1) / n)``; 0 for a term no unit
    contains (rank_bm25 does the same)."""
    return math.log((size + 1) / n) if n else 0.0


def bm25plus(idf: Sequence[float], tfs: Sequence[int], ntok: int, avgdl: float, k1: float, b: float, delta: float) -> float:
    """rank_bm25's BM25Plus score of one unit of ``ntok`` tokens, from the query terms' IDFs and their counts
    in the unit, term by term in query order (the one home of the formula: the in-memory index and the
    compiled stores' SQL search both score with it)."""
    norm = k1 * (1 - b + b * ntok / avgdl)
    score = 0.0
    for w, f in zip(idf, tfs):
        score += w * (delta + (f * (k1 + 1)) / (norm + f))
    return score


def tokenize(text: str, *, stopwords: bool = True) -> list[str]:
    """Lower-case tokens; IDs like ``org:final:north`` and aliases like ``PR-84`` stay whole."""
    tokens = SEARCH_TOKEN.findall(text.lower())
    if stopwords:
        return list(filterfalse(STOPWORDS.__contains__, tokens))
    return tokens


def query_tokens(query: str | Sequence[str]) -> list[str]:
    """A query as the index scores it: text is tokenized like the units; a token list is used as given (lower-cased)."""
    return tokenize(query) if isinstance(query, str) else [t.lower() for t in query]


class SearchIndex(Protocol):
    """What the hop engine searches: ``LexicalIndex``, or a compiled store's index (``chainret.store.sqlindex``)."""

    def search(self, query: str | Sequence[str], k: int) -> list[SearchHit]: ...

    def hop_search(self, node: str, predicate: str, k: int) -> list[SearchHit]: ...


class SearchHit(NamedTuple):
    """One returned row: the unit ref, its 1-based rank and its BM25Plus score."""

    ref: str
    rank: int
    score: float


def top_hits(scores: Sequence[float], order: Sequence[int], ref_of: Callable[[int], str], k: int) -> list[SearchHit]:
    """The ``k`` best scored candidates, best first, ties by corpus position (``order[j]`` of candidate ``j``).

    The one ranking rule of both indexes: ``LexicalIndex`` and the compiled stores' ``rank_bm25plus``.
    """
    ranked = sorted(range(len(scores)), key=lambda j: (-scores[j], order[j]))[:k]
    return [SearchHit(ref_of(j), rank + 1, float(scores[j])) for rank, j in enumerate(ranked)]


def stating_first(
    cands: Sequence[tuple[int, str, int, int]], stating: Container[int], size: int, avgdl: float, k: int,
    k1: float, b: float, delta: float,
) -> list[SearchHit]:
    """A hop's rows (trace schema 1.1): of the units that contain the node's ID (``cands``, as ``rank_term`` takes
    them), those whose ordinal is in ``stating`` (they also contain the hop's predicate) first, then the rest, each
    group in BM25Plus order of the ID, ranks numbered across both.

    Why: a node that many units mention for other reasons (an org operating 10,000 projects) pushed the one unit
    that states the hop's relation past the row budget when the ID alone was ranked. The predicate word orders, it
    never adds a unit: every returned unit still contains the exact ID, and its score is the ID's score. The one
    rule of every index (``LexicalIndex.hop_search``, ``StoreIndex.hop_search`` and the SQL stores' hop statements):
    each group's order is the ID's whole order with the other group taken out (``TermRanking``)."""
    ranking = TermRanking.of(len(cands), cands, size, avgdl, k1, b, delta)
    hits = ranking.stating_first(ranking.only(stating), k)
    assert hits is not None  # (a whole ranking: always enough)
    return hits


# A term that more units than this contain is a hub: an index keeps its ranking (``HubRankings``).
HUB_UNITS = 64
# How many of a hub's best units a kept ranking holds: a hop asking for more rows ranks the hub again.
KEEP_RANKED = 256


class TermRanking:
    """The units that contain one term (or a subset of them), best first by the term's BM25Plus score, ties by
    unit ordinal: the first ``keep`` of them, ``complete`` when that is all. ``n`` is the term's unit count (its IDF).

    Why a class: a hop's two groups (``stating_first``) are both this order with the other group taken out, so
    one sort serves both, and a hub's sort can be kept (``HubRankings``) and answer later hops from its first
    rows instead of ranking every unit that mentions the node again."""

    __slots__ = ("n", "keyed", "complete", "ordinals")

    def __init__(self, n: int, keyed: list[tuple[float, int, str, float]], complete: bool, ordinals: frozenset[int] = frozenset()) -> None:
        self.n, self.keyed, self.complete = n, keyed, complete  # keyed: (-score, ordinal, ref, score), sorted
        self.ordinals = ordinals  # a subset's (``only``): the units the rest of a hop's rows leave out

    @classmethod
    def of(
        cls, n: int, cands: Sequence[tuple[int, str, int, int]], size: int, avgdl: float, k1: float, b: float, delta: float,
    ) -> TermRanking:
        """Rank all of ``cands`` (``(unit ordinal, ref, token count, term frequency)``) for a term ``n`` units
        contain: ``bm25plus`` and ``top_hits`` inlined, the same operations in the same order, so the scores are
        bit-identical to ``rank_bm25plus``'s."""
        w = bm25plus_idf(size, n)
        kp = k1 + 1
        keyed: list[tuple[float, int, str, float]] = []
        for pos, ref, ntok, f in cands:
            norm = k1 * (1 - b + b * ntok / avgdl)
            score = 0.0 + w * (delta + (f * kp) / (norm + f))
            keyed.append((-score, pos, ref, score))  # (unit ordinals are distinct: ties never reach the ref)
        keyed.sort()
        return cls(n, keyed, True)

    def kept(self, keep: int | None = None) -> TermRanking:
        """The first ``keep`` units of this ranking (what ``HubRankings`` holds: ``KEEP_RANKED``)."""
        keep = KEEP_RANKED if keep is None else keep
        return self if len(self.keyed) <= keep else TermRanking(self.n, self.keyed[:keep], False, self.ordinals)

    def only(self, ordinals: Container[int]) -> TermRanking:
        """The units whose ordinal is in ``ordinals``, in this order (of a whole ranking: a cut one would lose
        those of the subset past its cut)."""
        if not self.complete:
            raise ValueError("a subset of a ranking is taken before it is cut (TermRanking.kept)")
        keyed = [key for key in self.keyed if key[1] in ordinals]
        return TermRanking(self.n, keyed, True, frozenset(key[1] for key in keyed))

    def top(self, k: int) -> list[SearchHit] | None:
        """The ``k`` best units, or None when more are asked than this ranking kept."""
        if k > len(self.keyed) and not self.complete:
            return None
        return [SearchHit(ref, rank + 1, score) for rank, (_, _, ref, score) in enumerate(self.keyed[: max(k, 0)])]

    def stating_first(self, stating: TermRanking, k: int) -> list[SearchHit] | None:
        """``stating_first``'s rows from this ranking and its ``stating`` subset (``only``): the subset's best
        ``k``, then the best of the rest; None when the kept rows cannot tell them."""
        first = stating.keyed[: max(k, 0)]
        if len(first) < k and not stating.complete:
            return None
        rest: list[tuple[float, int, str, float]] = []
        need = k - len(first)
        if need > 0:
            taken = stating.ordinals
            for key in self.keyed:
                if key[1] not in taken:
                    rest.append(key)
                    if len(rest) == need:
                        break
            else:
                if not self.complete:
                    return None
        return [SearchHit(ref, rank + 1, score) for rank, (_, _, ref, score) in enumerate([*first, *rest])]


class HubRankings:
    """The kept rankings of one index's hub terms (more than ``HUB_UNITS`` units), and of the units of each that
    hold a hop's predicate word: a hop from a node that thousands of units mention then costs what a hop from
    any node costs, from that hub's second hop on (the first ranks it once).

    Kept per index object, which is per (view, principal) and, for a compiled store, per store generation: the
    same lifetime as the corpus figures the scores already depend on. Bounded (``max_terms``), dropped whole."""

    def __init__(self, max_terms: int = 256) -> None:  # (at most 256 x 2 x KEEP_RANKED rows: about 13 MB an index)
        self.max_terms = max_terms
        self.terms: dict[str, TermRanking] = {}
        self.stating: dict[tuple[str, str], TermRanking] = {}

    def hits(self, term: str, word: str | None, k: int) -> list[SearchHit] | None:
        """A kept hub's rows: ``stating_first`` with ``word``, else its top ``k``; None when not kept or not enough."""
        ranking = self.terms.get(term)
        if ranking is None:
            return None
        if word is None:
            return ranking.top(k)
        stating = self.stating.get((term, word))
        return None if stating is None else ranking.stating_first(stating, k)

    def rows(self, ranking: TermRanking, term: str, word: str | None, stating: Container[int], k: int) -> list[SearchHit]:
        """A hop's rows from a term's whole ``ranking`` (``word``: ``stating_first`` with the units in ``stating``),
        keeping its first rows when the term is a hub (more than ``HUB_UNITS`` units)."""
        sub = ranking.only(stating) if word is not None else ranking
        if ranking.n > HUB_UNITS:
            if len(self.terms) >= self.max_terms:
                self.terms.clear()
                self.stating.clear()
            if word is not None:
                self.stating[term, word] = sub.kept()
            self.terms[term] = ranking.kept()
        hits = ranking.top(k) if word is None else ranking.stating_first(sub, k)
        assert hits is not None  # (a whole ranking: always enough)
        return hits


def rank_bm25plus(
    query: Sequence[str],
    cands: Sequence[tuple[int, tuple[str, int, dict[str, int]]]],
    df: Mapping[str, int],
    size: int,
    avgdl: float,
    k: int,
    k1: float,
    b: float,
    delta: float,
) -> list[SearchHit]:
    """``LexicalIndex.search``'s scoring and ordering over candidates given as integers, in corpus order
    (``(unit ordinal, (ref, token count, term frequencies))``: what a compiled store's postings give)."""
    if len(query) == 1:  # a hop's search: one exact-ID term
        term = query[0]
        return rank_term(df.get(term, 0), [(pos, ref, ntok, tfs.get(term, 0)) for pos, (ref, ntok, tfs) in cands], size, avgdl, k, k1, b, delta)
    idf = [bm25plus_idf(size, df.get(t, 0)) for t in query]
    scores = [bm25plus(idf, [tfs.get(t, 0) for t in query], ntok, avgdl, k1, b, delta) for _, (_, ntok, tfs) in cands]
    return top_hits(scores, [c[0] for c in cands], lambda j: cands[j][1][0], k)


def rank_term(
    n: int, cands: Sequence[tuple[int, str, int, int]], size: int, avgdl: float, k: int, k1: float, b: float, delta: float,
) -> list[SearchHit]:
    """``rank_bm25plus`` for one term (a hop's search: one exact ID) that ``n`` units contain, over candidates
    given as ``(unit ordinal, ref, token count, term frequency)`` in corpus order (``TermRanking``)."""
    hits = TermRanking.of(n, cands, size, avgdl, k1, b, delta).top(k)
    assert hits is not None  # (a whole ranking: always enough)
    return hits


class LexicalIndex:
    """BM25Plus over ``(ref, text)`` units. Ranks ties by unit order, so results are stable.

    Example:
        >>> idx = LexicalIndex([("a#u1", "REL org:final:north | contact | contact:final:desk"),
        ...                     ("a#u2", "Rowan runs the northern desk")])
        >>> [h.ref for h in idx.search("org:final:north", k=3)]
        ['a#u1']
    """

    def __init__(self, units: Iterable[tuple[str, str]], *, k1: float = 1.5, b: float = 0.75, delta: float = 1.0):
        with paused_gc():  # 100k token lists and postings: nothing cyclic to collect
            pairs = list(units)
            self.refs: list[str] = [ref for ref, _ in pairs]
            if len(set(self.refs)) != len(self.refs):
                dup = next(r for r in self.refs if self.refs.count(r) > 1)
                raise ValueError(f"duplicate unit ref {dup!r} in search index")
            find, stop = SEARCH_TOKEN.findall, STOPWORDS.__contains__  # ``tokenize``, inlined for 100k units
            self._docs: list[list[str]] = [list(filterfalse(stop, find(text.lower()))) for _, text in pairs]
            postings: defaultdict[str, list[int]] = defaultdict(list)
            for i, toks in enumerate(self._docs):
                for tok in set(toks):
                    postings[tok].append(i)
            self._postings: dict[str, list[int]] = dict(postings)
        self.k1, self.b, self.delta = k1, b, delta
        # rank_bm25's statistics; it divides by the corpus size, so an empty view counts one empty unit.
        self._size = len(self._docs) or 1
        self._avgdl = sum(map(len, self._docs)) / self._size
        self._reference: Any = None
        self._hubs = HubRankings()  # hub terms' rankings, kept: a hop from a hub ranks its units once

    def __len__(self) -> int:
        return len(self.refs)

    def _scores(self, query: Sequence[str], cand: Sequence[int]) -> list[float]:
        """rank_bm25's BM25Plus score of each candidate unit, term by term in query order."""
        k1, b, delta, avgdl = self.k1, self.b, self.delta, self._avgdl
        idf = [bm25plus_idf(self._size, len(self._postings.get(q, ()))) for q in query]
        return [bm25plus(idf, [toks.count(q) for q in query], len(toks), avgdl, k1, b, delta)
                for toks in (self._docs[i] for i in cand)]

    def search(self, query: str | Sequence[str], k: int) -> list[SearchHit]:
        """Top ``k`` units that contain at least one query token, best first.

        ``query`` is text (tokenized like the units) or a list of tokens used as given; a hop passes
        ``[canonical_id]`` so that only that exact token is searched.
        """
        if k <= 0 or not self.refs:
            return []
        q = query_tokens(query)
        if len(q) == 1:  # a hop's search: one exact ID, ranked as ``hop_search`` ranks a group
            return self._term_hits(q[0], None, k)
        cand = sorted({i for t in q for i in self._postings.get(t, ())})
        if not cand:
            return []
        return top_hits(self._scores(q, cand), cand, lambda j: self.refs[cand[j]], k)

    def hop_search(self, node: str, predicate: str, k: int) -> list[SearchHit]:
        """The units that contain ``node``, those that also contain ``predicate`` first (``stating_first``)."""
        if k <= 0 or not self.refs:
            return []
        return self._term_hits(node.lower(), predicate.lower(), k)

    def _term_hits(self, term: str, word: str | None, k: int) -> list[SearchHit]:
        """One term's units ranked (``word``: those holding it first), a hub's from its kept ranking."""
        hits = self._hubs.hits(term, word, k)
        if hits is not None:
            return hits
        cand = self._postings.get(term, [])
        if not cand:
            return []
        docs = self._docs
        cands = [(i, self.refs[i], len(docs[i]), docs[i].count(term)) for i in cand]
        ranking = TermRanking.of(len(cands), cands, self._size, self._avgdl, self.k1, self.b, self.delta)
        stating = set(self._postings.get(word, ())) if word is not None else ()
        return self._hubs.rows(ranking, term, word, stating, k)

    def score_all(self, query: str | Sequence[str]) -> list[float]:
        """rank_bm25's own full scorer over the same corpus (the reference tests compare ``search`` to)."""
        if self._reference is None:
            from rank_bm25 import BM25Plus

            self._reference = BM25Plus(self._docs or [[]], k1=self.k1, b=self.b, delta=self.delta)
        q = query_tokens(query)
        return [float(s) for s in self._reference.get_scores(q)]
