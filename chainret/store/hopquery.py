"""One SQLite statement per hop, and row decoders that skip validation the compile already did.

A hop of the engine needs: the postings of the node's ID in the units the principal may read in
the view (BM25Plus ranks them), the returned units, the relations those units support with their
status in the view, and the (subject, predicate) relations for the catalog-level checks. Read
one lookup at a time that is three to four statements a hop; ``HopQuery`` reads them in one
(``UNION ALL`` of the four parts over one materialised candidate set), with the same conditions as
``StoreIndex.search``, ``SQLView.prefetch`` and ``SQLView.rels_of`` (the view, the reader and, for a
view read within a narrower viewer, that viewer), then ranks in Python exactly as ``StoreIndex``
does, so hits and scores are bit-identical. When more than ``CAND_MAX`` units hold the ID (a hub),
the statement returns the postings only and the top rows are read as before (two more statements),
so a hop never reads the relations of thousands of units it will not return.

SQLite only, and opt-in (``SQLiteStore.hop_query = True``): measured at 1M relations
(``benchmarks/store_bench.py``, docs/results/store.md) it runs 3 statements per two-hop ask instead
of 10 and passes the parity suite and the golden traces, but costs more CPU per ask than the
per-lookup reads, because it computes the permission and status sub-queries for every candidate
unit (not only the returned ones) and they, not the statement count, dominate. Ranking in SQL
(so only the returned units' relations are read) is the next step. The statement text is stable,
so ``sqlite3``'s statement cache reuses the prepared statement.

``sqlrows.anchor_of`` / ``relation_of`` (row decoders, in the row module so the view needs nothing from here) build the engine's and coverage's models from store rows with
pydantic validation, as before: measured here, ``model_construct`` (Python code in pydantic 2) cost
more than validating these small models (Rust), so it is not used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chainret.search import SearchHit, rank_bm25plus
from chainret.store.sqlrows import IN_VIEW, READABLE, WITHIN, _bounded, _unit

if TYPE_CHECKING:
    from chainret.store.sqlindex import StoreIndex
    from chainret.store.sqlview import SQLView

CAND_MAX = 64  # above this many candidate units, read only the top rows' units and relations
_PAD_UNIT = ", NULL" * 15  # unit rows: tag + 6 columns, padded to the relation rows' tag + 21
_PAD_POST = ", NULL" * 17  # posting rows: tag + 4 columns, padded


def hop_sql(within: bool, status_cols: str, of_subject: bool = True) -> str:
    """The statement: tag 0 postings, 1 units, 2 relations in those units, 3 relations of (subject, predicate)
    (only with ``of_subject``: the engine reads them on every hop over a functional predicate)."""
    w = (lambda col: WITHIN.format(col=col)) if within else (lambda col: "")
    small = f"n <= {CAND_MAX}"  # (a window count: a scalar count over ``c`` per part cost more than the parts)
    of = (f" UNION ALL SELECT 3, {status_cols} FROM relations r WHERE r.subject = ? AND r.predicate = ? AND "
          + IN_VIEW.format(col="r.doc_ord") + w("r.doc_ord")) if of_subject else ""
    return (
        "WITH c AS MATERIALIZED (SELECT p.unit_ord AS uo, p.tf AS tf, u.ntok AS ntok, u.ref AS ref, count(*) OVER () AS n "
        "FROM postings p JOIN units u ON u.ord = p.unit_ord WHERE p.term = ? AND "
        + READABLE.format(col="p.doc_ord") + w("p.doc_ord") + ") "
        f"SELECT 0, uo, tf, ntok, ref{_PAD_POST} FROM c "
        "UNION ALL SELECT 1, u.ref, u.doc_ref, u.idx, u.start_, u.end_, u.text" + _PAD_UNIT
        + f" FROM units u WHERE u.ord IN (SELECT uo FROM c WHERE {small}) AND " + READABLE.format(col="u.doc_ord") + w("u.doc_ord")
        + f" UNION ALL SELECT 2, {status_cols} FROM relations r WHERE r.unit_ref IN (SELECT ref FROM c WHERE {small}) AND "
        + READABLE.format(col="r.doc_ord") + w("r.doc_ord") + of
    )


class HopQuery:
    """``search(node, predicate, k)`` for the engine: one statement, caches of the view primed with the rest."""

    def __init__(self, view: SQLView, index: StoreIndex, functional: frozenset[str]) -> None:
        self.view, self.index, self.functional = view, index, functional
        cols, self._cp = view.status_columns()
        self.sql = {f: hop_sql(view.within is not None, cols, f) for f in (False, True)}
        self.of: dict[tuple[str, str], list[Any]] = {}  # (subject, predicate) -> flagged relations, for rels_of

    def params(self, node: str, predicate: str) -> tuple[Any, ...]:
        v = self.view
        vp: tuple[Any, ...] = (v.view_name, v.principal)
        wp: tuple[Any, ...] = (v.within,) if v.within is not None else ()
        head = (node.lower(), *vp, *wp, *vp, *wp, *self._cp, *vp, *wp)
        return (*head, *self._cp, node, predicate, v.view_name, *wp) if predicate in self.functional else head

    def search(self, node: str, predicate: str, k: int) -> list[SearchHit]:
        v, ix = self.view, self.index
        n_units, total = ix.store.corpus(ix.view, ix.principal, ix.within)
        if k <= 0 or not n_units:
            return []
        rows = v.store.db.rows(self.sql[predicate in self.functional], self.params(node, predicate), v.view_name, v.principal)
        posts, units, in_units, of = [], {}, [], []
        for r in rows:
            tag = r[0]
            if tag == 0:
                posts.append(r[1:5])
            elif tag == 1:
                units[r[1]] = r[1:7]
            elif tag == 2:
                in_units.append(r[1:])
            else:
                of.append(r[1:])
        term = node.lower()
        cands = sorted((uo, (ref, ntok, {term: tf})) for uo, tf, ntok, ref in posts)
        size = n_units or 1
        hits = rank_bm25plus([term], cands, {term: len(posts)} if posts else {}, size, total / size, k, ix.k1, ix.b, ix.delta)
        v.noted(in_units)
        if predicate in self.functional:
            v.noted(of)
            _bounded(self.of, (node, predicate), [v._flag(r) for r in sorted(of, key=lambda r: r[1])])
        if len(posts) > CAND_MAX:  # a hub: the statement held back the units' rows; read the returned ones
            v.prefetch([h.ref for h in hits])
            return hits
        store_rows = v.store._rows_cache
        for r in (*in_units, *of):
            if r[20] is not None:  # readable: the same quote ``_relation_row`` reads
                _bounded(store_rows, r[1], (*r[:17], r[20]))
        grouped: dict[str, list[Any]] = {ref: [] for _, _, _, ref in posts}
        for r in sorted(in_units, key=lambda r: r[1]):
            grouped[r[14]].append(v._flag(r))
        for _, _, _, ref in posts:
            _bounded(v._units, ref, _unit(units[ref]) if ref in units else None)
            _bounded(v._in_unit, ref, grouped[ref])
        return hits

    def rels_of(self, subject: str, predicate: str) -> list[Any]:
        """``SQLView.rels_of``, from this hop's statement when it read that pair."""
        hit = self.of.get((subject, predicate))
        return hit if hit is not None else self.view.rels_of(subject, predicate)
