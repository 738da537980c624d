"""A set hop's census from counts kept at compile (``pair_counts``), for a pair with thousands of relations (SQLite).

``SQLView.census`` counts a many-valued hop's usable relations in one aggregate statement; for a group of 10,000
members that statement still visits 10,000 relations (and checks each one's document for the reader), about 95 ms
a warm ask at 10k relations (docs/results/sets.md), so an ask for "Who is on GRP-HUB?" cost what its set's size
costs even when the budget returns 3 rows. This module answers the same ``Census`` from:

* ``pair_counts``: per view, principal class (``corpus``'s classes: a principal some restricted document names,
  or ``*`` for everyone else) and hub pair (a (subject, predicate) with more than ``KEPT_OVER`` relations that
  could be usable: no defect, a unit), the relations the class may read in the view and their distinct objects,
  written by the compile and every update (``PAIR_COUNTS_SQL``) from the stored rows;
* the few relations the counts must leave out, read by index: those whose object is on the path or was
  followed (``relations_spo``), those in a unit the hop's search returned (``relations_unit``);
* the first ``SHOWN`` ids left behind, walked in id order (``relations_spi``), stopping at the tenth.

The usable rule is ``SQLView.census``'s (no defect, a unit, readable in the view by the principal), restated over
the kept counts; the store parity and set property tests hold both to the engine's ``count_census``. A narrower
viewer (``within``), PostgreSQL (row-level security decides what a role reads: it keeps the aggregate), a small
pair and a store compiled before this table (no ``pair_counts``) answer None: ``SQLView.census`` counts them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar, cast

from chainret.engine.hops import SHOWN
from chainret.engine.reader import Census
from chainret.store.sqlrows import READABLE, _marks

if TYPE_CHECKING:
    from chainret.store.sqlrows import RowSource

_T = TypeVar("_T")

# A pair with more usable relations than this has its counts kept (the hop statement's ``hopquery.PAIR_MAX``: a
# larger pair is counted, not read whole). Any bound gives the same census: a smaller pair is counted by the aggregate.
KEPT_OVER = 64

# A relation that could be usable (``SQLView.census``'s rule, less the reader's): no defect, a unit.
_USABLE = "r.defects = '' AND r.unit_ref IS NOT NULL AND r.unit_ref <> ''"
_PAIR = "r.subject = h.subject AND r.predicate = h.predicate AND " + _USABLE
# ``READABLE`` for the reader class of a ``corpus`` row ``c`` (what a compile keeps per class), ``{col}`` a doc_ord.
CLASS_READS = (
    "EXISTS (SELECT 1 FROM view_docs vd JOIN readers rd ON rd.doc_ord = vd.doc_ord "
    "WHERE vd.view_name = c.view_name AND vd.doc_ord = {col} AND rd.principal IN ('*', c.principal))"
)
_CLASS_READS = CLASS_READS.format(col="r.doc_ord")

# SQLite only: what a compile and an update write after the tables (the indexes the census reads by, the counts).
PAIR_COUNTS_SQL = [
    "CREATE INDEX IF NOT EXISTS relations_spo ON relations (subject, predicate, object)",
    "CREATE INDEX IF NOT EXISTS relations_spi ON relations (subject, predicate, id)",
    "CREATE TABLE IF NOT EXISTS pair_counts (view_name TEXT, principal TEXT, subject TEXT, predicate TEXT, rels INTEGER, "
    "objects INTEGER, PRIMARY KEY (subject, predicate, view_name, principal)) WITHOUT ROWID",
    "DELETE FROM pair_counts",
    # every (view, class) x hub pair, a zero where the class reads none: a missing row means "not a hub"
    "INSERT INTO pair_counts SELECT c.view_name, c.principal, h.subject, h.predicate, "
    f"(SELECT count(*) FROM relations r WHERE {_PAIR} AND {_CLASS_READS}), "
    f"(SELECT count(DISTINCT r.object) FROM relations r WHERE {_PAIR} AND {_CLASS_READS}) "
    "FROM corpus c CROSS JOIN (SELECT r.subject, r.predicate FROM relations r WHERE " + _USABLE
    + f" GROUP BY r.subject, r.predicate HAVING count(*) > {KEPT_OVER}) h",
]


def of_class(rows: dict[str, _T], principal: str) -> _T:
    """A kept figure's row for ``principal``'s reader class, of its rows for ``'*'`` and ``principal``: a principal
    no document names has no row of its own and reads as everyone (``corpus``'s classes)."""
    return rows[principal] if principal in rows else rows["*"]


def write_pair_counts(conn: sqlite3.Connection) -> None:
    """(Re)write ``pair_counts`` and its indexes from the stored relations, corpus classes and readers."""
    for stmt in PAIR_COUNTS_SQL:
        conn.execute(stmt)


def kept_census(
    store: RowSource, view: str, principal: str, within: str | None,
    subject: str, predicate: str, on_path: Sequence[str], followed: Sequence[str], returned: Sequence[str],
) -> Census | None:
    """``SQLView.census`` of (``view``, ``principal``, ``within``) from ``pair_counts`` (module docstring); None where
    the counts are not kept."""
    if within is not None or store.kind != "sqlite":
        return None
    vp = (view, principal)
    try:
        kept = cast("list[tuple[str, int, int]]", store.db.rows(
            "SELECT principal, rels, objects FROM pair_counts WHERE subject = ? AND predicate = ? AND view_name = ? "
            "AND principal IN ('*', ?)", (subject, predicate, *vp), *vp,
        ))
    except sqlite3.OperationalError:  # a store compiled before pair_counts: the aggregate counts it
        return None
    if not kept:
        return None
    # (SQLite's integers and text as they are: ``as_int``'s Protocol check costs 1 ms)
    rels, objects = of_class({p: (n, o) for p, n, o in kept}, principal)
    readable = READABLE.format(col="r.doc_ord")
    pair = f"r.subject = ? AND r.predicate = ? AND {_USABLE} AND {readable}"
    near = list(dict.fromkeys([*on_path, *followed]))
    out: dict[int, tuple[str, str]] = {}  # the kept relations the counts must leave out: ord -> (object, unit)
    # each read by its own index (SQLite's planner would walk the pair's thousands of rows by (subject, predicate))
    for col, index, values in (("r.object", "relations_spo", near), ("r.unit_ref", "relations_unit", list(dict.fromkeys(returned)))):
        if values:
            for o, obj, unit in cast("list[tuple[int, str, str]]", store.db.rows(
                f"SELECT r.ord, r.object, r.unit_ref FROM relations r INDEXED BY {index} WHERE {pair} AND {col} IN ({_marks(values)})",
                (subject, predicate, *vp, *values), *vp,
            )):
                out[o] = (obj, unit)
    path, done, seen = set(on_path), set(followed), set(returned)
    eligible = objects - len({obj for obj, _ in out.values() if obj in path})
    left = eligible - len({obj for obj, _ in out.values() if obj in done and obj not in path})
    n_missing = rels - sum(1 for obj, unit in out.values() if obj in path or obj in done or unit in seen)
    missing: list[str] = []
    if n_missing:
        obj_not = f" AND r.object NOT IN ({_marks(near)})" if near else ""
        unit_not = f" AND r.unit_ref NOT IN ({_marks(returned)})" if returned else ""
        missing = [i for (i,) in cast("list[tuple[str]]", store.db.rows(
            f"SELECT r.id FROM relations r INDEXED BY relations_spi WHERE {pair}{obj_not}{unit_not} ORDER BY r.id LIMIT {SHOWN}",
            (subject, predicate, *vp, *near, *returned), *vp,
        ))]
    return Census(eligible, left, tuple(missing), n_missing)
