"""A hub's hop rows read in rank order from lists kept at compile (SQLite), instead of ranking every unit it is in.

A hop from a node that thousands of units mention (an org operating 10,000 projects, a group of 10,000 members)
ranked every readable unit holding the node's ID to return 3 of them: ``StoreIndex._ranking`` read and scored all
of them, about 65 ms CPU the first time a process met such a hub at 10k relations (docs/results/peers.md; later hops
from it read ``HubRankings``). The rows follow the ranking rule of every index (``stating_first``): the units that
hold the ID and the predicate's word first, then the rest, each group by the ID's BM25Plus score, ties by unit
ordinal. That score is a function of the unit's term frequency and token count alone (the IDF, corpus size and mean
length being one reader's constants), so a hub's units grouped by (tf, ntok) are ranked by scoring one unit of each
group: the group's units follow in ordinal order. The compile keeps, for every hub ID (an entity ID more than
``HUB_UNITS`` units hold):

* ``hub_ranked``: its postings keyed by (term, word, tf, ntok, unit_ord): word ``''`` for all of them, and each
  predicate's name for those that also hold it (the group a hop over that predicate ranks first), with each unit's
  document and ref;
* ``hub_classes``: the (tf, ntok) groups of each list;
* ``hub_counts``: per view and reader class (``corpus``'s), how many of its units the class may read (the IDF's n).

A hop then scores the groups, walks them best first, reading each group's readable units in ordinal order only as
far as the rows it returns (``ranked_hits``): bounded rows for any hub size. Hits and scores are those of
``TermRanking`` over every unit (the scores from ``TermRanking.of`` itself; tests/test_hub_index.py holds them to the
in-memory index). A narrower viewer, PostgreSQL, a non-ASCII ID or predicate, a term the compile did not keep and a
store compiled before these tables answer None: the caller ranks every unit as before.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, cast

from chainret.engine.search import HUB_UNITS, SearchHit, TermRanking
from chainret.store.paircensus import CLASS_READS, of_class
from chainret.store.sqlrows import READABLE
from chainret.store.schema import UNIT_REF, WORD_KEY, term_text

if TYPE_CHECKING:
    from chainret.store.sqlrows import RowSource

_CLASS_READS = CLASS_READS.format(col="h.doc_ord")

_WORD = term_text("w.term", True, True)
# SQLite only: what a compile and an update write after the tables (``postings`` of schema 11: an ID's postings keep its
# entity's ordinal, ``schema.TERM_KEY``; the lists keep every term as text, as a hop names it).
HUB_INDEX_SQL = [
    "CREATE TABLE IF NOT EXISTS hub_ranked (term TEXT, word TEXT, tf INTEGER, ntok INTEGER, unit_ord INTEGER, "
    "doc_ord INTEGER, ref TEXT, PRIMARY KEY (term, word, tf, ntok, unit_ord)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS hub_classes (term TEXT, word TEXT, tf INTEGER, ntok INTEGER, "
    "PRIMARY KEY (term, word, tf, ntok)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS hub_counts (term TEXT, view_name TEXT, principal TEXT, n INTEGER, "
    "PRIMARY KEY (term, view_name, principal)) WITHOUT ROWID",
    "DELETE FROM hub_ranked",
    "DELETE FROM hub_classes",
    "DELETE FROM hub_counts",
    f"INSERT INTO hub_ranked SELECT {term_text('p.term', True, True)}, '', p.tf, u.ntok, p.unit_ord, u.doc_ord, {UNIT_REF} "
    "FROM postings p JOIN units u ON u.ord = p.unit_ord "
    f"WHERE p.term IN (SELECT q.term FROM postings q GROUP BY q.term HAVING count(*) > {HUB_UNITS} "
    f"AND {term_text('q.term', True, True)} IN (SELECT lower(e.id) FROM entities e))",
    f"INSERT INTO hub_ranked SELECT h.term, {_WORD}, h.tf, h.ntok, h.unit_ord, h.doc_ord, h.ref FROM hub_ranked h "
    "JOIN postings w ON w.unit_ord = h.unit_ord AND w.term IN "
    f"(SELECT DISTINCT {WORD_KEY.replace('?', 'lower(name)')} FROM predicates) WHERE h.word = ''",
    "INSERT INTO hub_classes SELECT DISTINCT term, word, tf, ntok FROM hub_ranked",
    # every (view, class) x hub term, a zero where the class reads none: a missing row means "not kept"
    "INSERT INTO hub_counts SELECT t.term, c.view_name, c.principal, "
    f"(SELECT count(*) FROM hub_ranked h WHERE h.term = t.term AND h.word = '' AND {_CLASS_READS}) "
    "FROM corpus c CROSS JOIN (SELECT DISTINCT term FROM hub_classes) t",
]


def write_hub_index(conn: sqlite3.Connection) -> None:
    """(Re)write the hub lists and counts from the stored postings, entities, predicates and corpus classes."""
    for stmt in HUB_INDEX_SQL:
        conn.execute(stmt)


def ranked_hits(
    store: RowSource, view: str, principal: str, within: str | None, term: str, word: str | None, k: int,
    size: int, avgdl: float, k1: float, b: float, delta: float,
) -> list[SearchHit] | None:
    """A hop's rows for ``term`` (``word``: ``stating_first`` with the units that hold it), as ``TermRanking`` over
    every readable unit gives them, read from the kept lists (module docstring); None where they are not kept."""
    if within is not None or store.kind != "sqlite" or not term.isascii() or not (word is None or word.isascii()):
        return None
    vp = (view, principal)
    try:
        counts = cast("list[tuple[str, int]]", store.db.rows(
            "SELECT principal, n FROM hub_counts WHERE term = ? AND view_name = ? AND principal IN ('*', ?)", (term, *vp), *vp,
        ))
    except sqlite3.OperationalError:  # a store compiled before the hub lists: the caller ranks every unit
        return None
    if not counts:
        return None
    n = of_class(dict(counts), principal)
    if not n:
        return []
    walk = _Walk(store, vp, term, n, size, avgdl, k1, b, delta)
    first = walk.best(word, k, None) if word is not None else []
    rest = walk.best("", k - len(first), word) if len(first) < k else []
    return [SearchHit(ref, rank + 1, score) for rank, (ref, score) in enumerate([*first, *rest])]


class _Walk:
    """One hop's reads of one hub's kept lists: groups scored once, units read best first."""

    def __init__(self, store: RowSource, vp: tuple[str, str], term: str, n: int, size: int, avgdl: float,
                 k1: float, b: float, delta: float) -> None:
        self.store, self.vp, self.term = store, vp, term
        self.n, self.size, self.avgdl, self.k1, self.b, self.delta = n, size, avgdl, k1, b, delta

    def best(self, word: str, m: int, without: str | None) -> list[tuple[str, float]]:
        """The ``m`` best readable units of list ``word`` (``''``: all the term's units), leaving out those holding
        ``without``: (ref, score), best first, ties by unit ordinal."""
        if m <= 0:
            return []
        db, vp = self.store.db, self.vp
        classes = cast("list[tuple[int, int]]", db.rows(
            "SELECT tf, ntok FROM hub_classes WHERE term = ? AND word = ?", (self.term, word), *vp))
        if not classes:
            return []
        # the score of each (tf, ntok) group, by the one scoring rule (``TermRanking.of``: bit-identical scores)
        scored = TermRanking.of(self.n, [(i, "", ntok, tf) for i, (tf, ntok) in enumerate(classes)],
                                self.size, self.avgdl, self.k1, self.b, self.delta).keyed
        by_score: dict[float, list[tuple[int, int]]] = {}
        for _, i, _, score in scored:  # best first; groups of one score kept together (their units merge by ordinal)
            by_score.setdefault(score, []).append(classes[i])
        skip = (f" AND NOT EXISTS (SELECT 1 FROM postings x WHERE x.term = {self.store.term_sql} AND x.unit_ord = h.unit_ord)"
                if without else "")
        sql = ("SELECT h.unit_ord, h.ref FROM hub_ranked h WHERE h.term = ? AND h.word = ? AND h.tf = ? AND h.ntok = ? AND "
               + READABLE.format(col="h.doc_ord") + skip + " ORDER BY h.unit_ord LIMIT ?")
        out: list[tuple[str, float]] = []
        for score, group in by_score.items():
            got: list[tuple[int, str]] = []
            for tf, ntok in group:
                got += cast("list[tuple[int, str]]", db.rows(
                    sql, (self.term, word, tf, ntok, *vp, *((without,) if without else ()), m - len(out)), *vp))
            out += [(ref, score) for _, ref in sorted(got)[: m - len(out)]]
            if len(out) >= m:
                break
        return out
