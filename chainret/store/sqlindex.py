"""BM25Plus over the units one principal may read in one view, answered by a SQL store (``StoreIndex``).

The scores come from integers the store keeps (corpus size and total token count per view and
principal class, per-unit token counts, term frequencies), ranked by ``chainret.engine.search.rank_bm25plus``
with the operations of ``LexicalIndex`` in the same order, so scores are bit-identical and ties fall
in catalog unit order, exactly as the in-memory index ranks them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from chainret.engine.search import HubRankings, SearchHit, TermRanking, query_tokens, rank_bm25plus
from chainret.store.hubindex import ranked_hits
from chainret.store.schema import UNIT_REF, posting_doc, term_text
from chainret.store.sqlrows import READABLE, WITHIN, RowSource

_NOT_READ: list[SearchHit] = []  # (a marker: ``StoreIndex.walked`` holds no entry for the key)


class StoreIndex:
    """BM25Plus over the units one principal may read in one view, answered by the store.

    Same scores, ranks and tie order as ``LexicalIndex`` over ``CatalogView.unit_texts()``.
    """

    def __init__(
        self, store: RowSource, view: str, principal: str, *, prefetch: Callable[[list[str]], None] | None = None,
        within: str | None = None, k1: float = 1.5, b: float = 0.75, delta: float = 1.0,
    ) -> None:
        self.store, self.view, self.principal, self.prefetch, self.within = store, view, principal, prefetch, within
        self.k1, self.b, self.delta = k1, b, delta
        self.hubs = HubRankings()  # hub terms' rankings, kept for this (view, principal) of this store generation
        self.walked: dict[tuple[str, str | None, int], list[SearchHit] | None] = {}  # a hub's rows read from its kept lists

    def __len__(self) -> int:
        return self.store.corpus(self.view, self.principal, self.within)[0]

    def hop_search(self, node: str, predicate: str, k: int) -> list[SearchHit]:
        """``LexicalIndex.hop_search``: the units holding ``node``, those also holding ``predicate`` first
        (``stating_first``). The predicate's postings are read only for the node's units (an index lookup each);
        a hub's ranking is kept (``HubRankings``), so its later hops read none of its postings."""
        n_units, total = self.store.corpus(self.view, self.principal, self.within)
        if k <= 0 or not n_units:
            return []
        term, word = node.lower(), predicate.lower()
        hits = self.hubs.hits(term, word, k)
        if hits is None:
            hits = self._kept(term, word, k, n_units, total)
        if hits is None:
            ranking = self._ranking(term, n_units, total)
            if ranking is None:
                return []
            k_ = self.store.term_sql
            has = {uo for (uo,) in cast("list[tuple[int]]", self.store.db.rows(
                f"SELECT s.unit_ord FROM postings s WHERE s.term = {k_} AND s.unit_ord IN (SELECT p.unit_ord FROM postings p WHERE p.term = {k_})",
                (word, term), self.view, self.principal,
            ))}
            hits = self.hubs.rows(ranking, term, word, has, k)
        if self.prefetch is not None:
            self.prefetch([h.ref for h in hits])
        return hits

    def _kept(self, term: str, word: str | None, k: int, n_units: int, total: int) -> list[SearchHit] | None:
        """A hub's rows read in rank order from the lists a SQLite compile keeps (``chainret.store.hubindex``), or None;
        kept, like ``HubRankings``, for this index's later hops from that hub (bounded, dropped whole)."""
        key = (term, word, k)
        hits = self.walked.get(key, _NOT_READ)  # (one lookup: another thread may clear the dict meanwhile)
        if hits is _NOT_READ:  # (None is kept too: a term that is no hub is looked up once)
            size = n_units or 1
            hits = ranked_hits(self.store, self.view, self.principal, self.within, term, word, k, size, total / size, self.k1, self.b, self.delta)
            if len(self.walked) >= self.hubs.max_terms:
                self.walked.clear()
            self.walked[key] = hits
        return None if hits is None else list(hits)

    def _ranking(self, term: str, n_units: int, total: int) -> TermRanking | None:
        """Every readable unit holding ``term``, ranked (None: no such unit)."""
        wp = (self.within,) if self.within is not None else ()
        doc = posting_doc(self.store.lean_postings)
        rows = cast("list[tuple[int, int, int, str]]", self.store.db.rows(
            f"SELECT p.unit_ord, p.tf, u.ntok, {UNIT_REF} FROM postings p JOIN units u ON u.ord = p.unit_ord "
            f"WHERE p.term = {self.store.term_sql} AND " + READABLE.format(col=doc) + (WITHIN.format(col=doc) if wp else ""),
            (term, self.view, self.principal, *wp), self.view, self.principal,
        ))
        if not rows:
            return None
        size = n_units or 1
        cands = sorted((uo, ref, ntok, tf) for uo, tf, ntok, ref in rows)
        return TermRanking.of(len(cands), cands, size, total / size, self.k1, self.b, self.delta)

    def search(self, query: str | Sequence[str], k: int) -> list[SearchHit]:
        n_units, total = self.store.corpus(self.view, self.principal, self.within)
        if k <= 0 or not n_units:
            return []
        q = query_tokens(query)
        if len(q) == 1:  # a hop's search: one exact ID, ranked as ``hop_search`` ranks a group
            hits = self.hubs.hits(q[0], None, k)
            if hits is None:
                hits = self._kept(q[0], None, k, n_units, total)
            if hits is None:
                ranking = self._ranking(q[0], n_units, total)
                if ranking is None:
                    return []
                hits = self.hubs.rows(ranking, q[0], None, (), k)
            if self.prefetch is not None:
                self.prefetch([h.ref for h in hits])
            return hits
        terms = sorted(set(q))
        if not terms:
            return []
        keyed, coded, doc = self.store.keyed_terms, self.store.coded_words, posting_doc(self.store.lean_postings)
        marks = ", ".join(self.store.term_sql for _ in terms)
        rows = cast("list[tuple[str, int, int, int, str]]", self.store.db.rows(
            f"SELECT {term_text('p.term', keyed, coded)}, p.unit_ord, p.tf, u.ntok, {UNIT_REF} FROM postings p JOIN units u ON u.ord = p.unit_ord "
            f"WHERE p.term IN ({marks}) AND " + READABLE.format(col=doc)
            + (WITHIN.format(col=doc) if self.within is not None else ""),
            (*terms, self.view, self.principal, *((self.within,) if self.within is not None else ())),
            self.view,
            self.principal,
        ))
        if not rows:
            return []
        df: dict[str, int] = {}
        units: dict[int, tuple[str, int, dict[str, int]]] = {}
        for term, uo, tf, ntok, ref in rows:
            df[term] = df.get(term, 0) + 1
            units.setdefault(uo, (ref, ntok, {}))[2][term] = tf
        size = n_units or 1
        hits = rank_bm25plus(q, sorted(units.items()), df, size, total / size, k, self.k1, self.b, self.delta)
        if self.prefetch is not None:
            self.prefetch([h.ref for h in hits])
        return hits

