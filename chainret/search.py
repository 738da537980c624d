"""Lexical search over retrievable units (rank-bm25), built per view and principal.

Why these choices:

* The tokenizer keeps canonical IDs (``org:final:north``), aliases (``PR-84``) and unit refs
  (``registry/projects.md@v2#u3``) as single lower-cased tokens, so a hop's derived subquery (an
  exact canonical ID) matches exactly that ID and never its parts.
* ``BM25Plus``, not ``BM25Okapi``: Okapi's IDF is ``log((N - n + 0.5) / (n + 0.5))``, which is zero
  for a term in exactly half the documents and negative above that (rank_bm25 issues #29, #39,
  #43); on a two-unit world an exact ID match would then score 0. BM25Plus's IDF
  ``log((N + 1) / n)`` is positive for every term that occurs.
* Only units that contain at least one query token are returned. rank_bm25's BM25Plus adds
  ``idf * delta`` for every query term even to units that lack it; such units are not matches.
* Pre-tokenized corpus: rank_bm25's ``tokenizer=`` argument starts a multiprocessing Pool.
* Scoring goes through an inverted index (term -> units) and rank_bm25's own
  ``get_batch_scores`` formula on the candidate units only, so a 100k-unit index answers an exact
  ID query without touching every unit.
* The caller builds the index over the units the principal may read in the view, and nothing
  else: restricted text is neither searchable nor part of the IDF statistics.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from rank_bm25 import BM25Plus

# A token: runs of letters/digits, joined by ID/alias/ref punctuation when a letter or digit
# follows (so the trailing "." of a sentence or "?" of a question is not part of the token).
_TOKEN = re.compile(r"[0-9a-z]+(?:[-:_./@#][0-9a-z]+)*")

# Small English stop list: only for prose words; IDs and aliases never collide with it.
STOPWORDS = frozenset(
    "a an and are as at be by for from has have in is it its of on or that the this to was "
    "were which who whom whose what with does do did".split()
)


def tokenize(text: str, *, stopwords: bool = True) -> list[str]:
    """Lower-case tokens; IDs like ``org:final:north`` and aliases like ``PR-84`` stay whole."""
    tokens = _TOKEN.findall(text.lower())
    if stopwords:
        return [t for t in tokens if t not in STOPWORDS]
    return tokens


@dataclass(frozen=True)
class SearchHit:
    """One returned row: the unit ref, its 1-based rank and its BM25Plus score."""

    ref: str
    rank: int
    score: float


class _BM25Plus(BM25Plus):
    """rank_bm25's BM25Plus with the doc-length array cached (its batch scorer rebuilds it per call)."""

    def get_batch_scores(self, query: Sequence[str], doc_ids: Sequence[int]) -> list[float]:
        if not hasattr(self, "_doc_len_arr"):
            self._doc_len_arr = np.asarray(self.doc_len, dtype=float)
        ids = np.asarray(doc_ids, dtype=int)
        doc_len = self._doc_len_arr[ids]
        norm = self.k1 * (1 - self.b + self.b * doc_len / self.avgdl)
        score = np.zeros(len(ids))
        for q in query:
            q_freq = np.array([self.doc_freqs[i].get(q, 0) for i in ids], dtype=float)
            score += self.idf.get(q, 0.0) * (self.delta + (q_freq * (self.k1 + 1)) / (norm + q_freq))
        return score.tolist()


class LexicalIndex:
    """BM25Plus over ``(ref, text)`` units. Ranks ties by unit order, so results are stable.

    Example:
        >>> idx = LexicalIndex([("a#u1", "REL org:final:north | contact | contact:final:desk"),
        ...                     ("a#u2", "Rowan runs the northern desk")])
        >>> [h.ref for h in idx.search("org:final:north", k=3)]
        ['a#u1']
    """

    def __init__(self, units: Iterable[tuple[str, str]], *, k1: float = 1.5, b: float = 0.75, delta: float = 1.0):
        pairs = list(units)
        self.refs: list[str] = [ref for ref, _ in pairs]
        if len(set(self.refs)) != len(self.refs):
            dup = next(r for r in self.refs if self.refs.count(r) > 1)
            raise ValueError(f"duplicate unit ref {dup!r} in search index")
        corpus = [tokenize(text) for _, text in pairs]
        self._postings: dict[str, list[int]] = {}
        for i, toks in enumerate(corpus):
            for tok in set(toks):
                self._postings.setdefault(tok, []).append(i)
        # rank_bm25 divides by the corpus size; an empty view gets an index that returns nothing.
        self._bm25 = _BM25Plus(corpus or [[]], k1=k1, b=b, delta=delta)

    def __len__(self) -> int:
        return len(self.refs)

    def search(self, query: str | Sequence[str], k: int) -> list[SearchHit]:
        """Top ``k`` units that contain at least one query token, best first.

        ``query`` is text (tokenized like the units) or a list of tokens used as given; a hop passes
        ``[canonical_id]`` so that only that exact token is searched.
        """
        if k <= 0 or not self.refs:
            return []
        q = tokenize(query) if isinstance(query, str) else [t.lower() for t in query]
        cand = sorted({i for t in q for i in self._postings.get(t, ())})
        if not cand:
            return []
        scores = self._bm25.get_batch_scores(q, cand)
        order = sorted(range(len(cand)), key=lambda j: (-scores[j], cand[j]))[:k]
        return [SearchHit(self.refs[cand[j]], rank + 1, float(scores[j])) for rank, j in enumerate(order)]

    def score_all(self, query: str | Sequence[str]) -> list[float]:
        """rank_bm25's own full scorer (used by tests as the reference for ``search``)."""
        q = tokenize(query) if isinstance(query, str) else [t.lower() for t in query]
        return [float(s) for s in BM25Plus.get_scores(self._bm25, q)]
