"""A set hop's census from counts kept at compile (``pair_counts``), for a pair with thousands of relations (SQLite).

``SQLView.census`` counts a many-valued hop's usable relations in one aggregate statement; for a group of 10,000
members that statement still visits 10,000 relations (and checks each one's document for the reader), about 95 ms
a warm ask at 10k relations (docs/results/sets.md), so an ask for "Who is on GRP-HUB?" cost what its set's size
costs even when the budget returns 3 rows. This module answers the same ``Census`` from:

* ``pair_counts``: per view, principal class (``corpus``'s classes: a principal some restricted document names,
  or ``*`` for everyone else) and hub pair (a (subject, predicate) with more than ``KEPT_OVER`` relations that
  could be usable: no defect, a unit), the relations the class may read in the view and their distinct objects,
  written by the compile and every update (``pair_counts_statements``) from the stored rows;
* the few relations the counts must leave out, read by index: those whose object is on the path or was
  followed (``relations_spo``), those in a unit the hop's search returned (``relations_unit``);
* the first ``SHOWN`` ids left behind, walked in id order (``relations_spi``), stopping at the tenth.

The usable rule is ``SQLView.census``'s (no defect, a unit, readable in the view by the principal), restated over
the kept counts; the store parity and set property tests hold both to the engine's ``count_census``. A narrower
viewer (``within``), a small pair and a store compiled before this table (no ``pair_counts``) answer None:
``SQLView.census`` counts them. A PostgreSQL store keeps the same table under a policy: a role reads the public
class's rows and its own principals' (``chainret.store.postgres.CORPUS_POLICY``), and no value statistics.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar, cast

from chainret.engine.hops import SHOWN
from chainret.engine.reader import Census
from chainret.store.schema import RELATION_ROWS, has_unit, relation_in_units, relation_unit_ref
from chainret.store.sqlrows import READABLE, _marks

if TYPE_CHECKING:
    from chainret.store.sqlrows import RowSource

_T = TypeVar("_T")

# A pair with more usable relations than this has its counts kept (the hop statement's ``hopquery.PAIR_MAX``: a
# larger pair is counted, not read whole). Any bound gives the same census: a smaller pair is counted by the aggregate.
KEPT_OVER = 64

def _usable(packed: bool) -> str:
    """A relation that could be usable (``SQLView.census``'s rule, less the reader's): no defect, a unit."""
    return f"r.defects = '' AND {has_unit(packed)}"
# ``READABLE`` for the reader class of a ``corpus`` row ``c`` (what a compile keeps per class), ``{col}`` a doc_ord.
CLASS_READS = (
    "EXISTS (SELECT 1 FROM view_docs vd JOIN readers rd ON rd.doc_ord = vd.doc_ord "
    "WHERE vd.view_name = c.view_name AND vd.doc_ord = {col} AND rd.principal IN ('*', c.principal))"
)
_CLASS_READS = CLASS_READS.format(col="r.doc_ord")

def pair_counts_statements(postgres: bool = False) -> list[str]:
    """What a compile and an update write after the tables: the indexes the census reads by and the counts. In
    PostgreSQL the id index is in byte order (``COLLATE "C"``: Python's order of ids, which the first ``SHOWN`` ids
    follow), and ``chainret.store.postgres`` gives the table a policy (a role reads the public class's rows and its
    own principals') and no value statistics."""
    usable = _usable(packed=not postgres)  # (a SQLite store writes schema 10: ``schema.RELATION_ROWS``)
    pair = "r.subject = h.subject AND r.predicate = h.predicate AND " + usable
    on = 'relations (subject, predicate, object)' if postgres else f"{RELATION_ROWS} (s, p, o)"
    spi = 'relations (subject, predicate, id COLLATE "C")' if postgres else f"{RELATION_ROWS} (s, p, id)"
    return [
        f"CREATE INDEX IF NOT EXISTS relations_spo ON {on}",
        f"CREATE INDEX IF NOT EXISTS relations_spi ON {spi}",
        "CREATE TABLE IF NOT EXISTS pair_counts (view_name TEXT, principal TEXT, subject TEXT, predicate TEXT, rels INTEGER, "
        "objects INTEGER, PRIMARY KEY (subject, predicate, view_name, principal))" + ("" if postgres else " WITHOUT ROWID"),
        "DELETE FROM pair_counts",
        # every (view, class) x hub pair, a zero where the class reads none: a missing row means "not a hub"
        "INSERT INTO pair_counts SELECT c.view_name, c.principal, h.subject, h.predicate, "
        f"(SELECT count(*) FROM relations r WHERE {pair} AND {_CLASS_READS}), "
        f"(SELECT count(DISTINCT r.object) FROM relations r WHERE {pair} AND {_CLASS_READS}) "
        "FROM corpus c CROSS JOIN (SELECT r.subject, r.predicate FROM relations r WHERE " + usable
        + f" GROUP BY r.subject, r.predicate HAVING count(*) > {KEPT_OVER}) h",
    ]


def of_class(rows: dict[str, _T], principal: str) -> _T:
    """A kept figure's row for ``principal``'s reader class, of its rows for ``'*'`` and ``principal``: a principal
    no document names has no row of its own and reads as everyone (``corpus``'s classes)."""
    return rows[principal] if principal in rows else rows["*"]


def write_pair_counts(execute: Callable[[str], object], postgres: bool = False) -> None:
    """(Re)write ``pair_counts`` and its indexes from the stored relations, corpus classes and readers, through the
    write's ``execute`` (a SQLite connection's, or ``chainret.store.postgres``'s writer's: it reads every row)."""
    for stmt in pair_counts_statements(postgres):
        execute(stmt)


_KEEPS: weakref.WeakKeyDictionary[object, bool] = weakref.WeakKeyDictionary()


def _keeps_counts(store: RowSource) -> bool:
    """Whether ``store`` holds ``pair_counts`` (a store compiled before it does not: the aggregate counts), asked
    once per store object. Asked of the catalog, not by trying the table: in PostgreSQL a failed statement would
    end the ask's read transaction."""
    found = _KEEPS.get(store)
    if found is None:
        if store.kind == "sqlite":
            sql = "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'pair_counts'"
        elif store.kind == "postgres":
            sql = "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'pair_counts'"
        else:
            return False
        found = _KEEPS[store] = bool(store.db.rows(sql))
    return found


def kept_census(
    store: RowSource, view: str, principal: str, within: str | None,
    subject: str, predicate: str, on_path: Sequence[str], followed: Sequence[str], returned: Sequence[str],
) -> Census | None:
    """``SQLView.census`` of (``view``, ``principal``, ``within``) from ``pair_counts`` (module docstring); None where
    the counts are not kept."""
    if within is not None or not _keeps_counts(store):
        return None
    vp = (view, principal)
    kept = cast("list[tuple[str, int, int]]", store.db.rows(
        "SELECT principal, rels, objects FROM pair_counts WHERE subject = ? AND predicate = ? AND view_name = ? "
        "AND principal IN ('*', ?)", (subject, predicate, *vp), *vp,
    ))
    if not kept:
        return None
    # (SQLite's integers and text as they are: ``as_int``'s Protocol check costs 1 ms)
    rels, objects = of_class({p: (n, o) for p, n, o in kept}, principal)
    near = list(dict.fromkeys([*on_path, *followed]))
    units = list(dict.fromkeys(returned))
    if store.packed_relations:
        out, missing_of = _packed_reads(store, vp, subject, predicate, near, units)
    else:
        out, missing_of = _reads(store, vp, subject, predicate, near, units)
    path, done, seen = set(on_path), set(followed), set(returned)
    eligible = objects - len({obj for obj, _ in out.values() if obj in path})
    left = eligible - len({obj for obj, _ in out.values() if obj in done and obj not in path})
    n_missing = rels - sum(1 for obj, unit in out.values() if obj in path or obj in done or unit in seen)
    return Census(eligible, left, tuple(missing_of() if n_missing else ()), n_missing)


#: The kept relations a census must leave out (ord -> (object, unit ref)), and a reader of the first ``SHOWN`` ids of
#: the pair's usable relations left behind (neither near nor in a returned unit), in id order.
_Reads = tuple[dict[int, tuple[str, str]], Callable[[], list[str]]]


def _reads(store: RowSource, vp: tuple[str, str], subject: str, predicate: str, near: list[str], units: list[str]) -> _Reads:
    """``kept_census``' reads of a store whose relations are a table (PostgreSQL, SQLite of schema 9 and before).

    Each read by its own index: SQLite's planner would walk the pair's thousands of rows by (subject, predicate), so
    it is told; PostgreSQL takes no hint, and a generic plan (its sessions' ``plan_cache_mode``) estimates any pair
    at a row or two and walks the same thousands, so these reads are planned for their values (``rows_custom_plan``:
    ``relations`` is catalog metadata, whose statistics any login may read)."""
    postgres = store.kind == "postgres"
    pair = f"r.subject = ? AND r.predicate = ? AND {_usable(False)} AND {READABLE.format(col='r.doc_ord')}"
    out: dict[int, tuple[str, str]] = {}
    for col, index, values in (("r.object", "relations_spo", near), ("r.unit_ref", "relations_unit", units)):
        if values:
            hint = "" if postgres else f" INDEXED BY {index}"
            for o, obj, unit in cast("list[tuple[int, str, str]]", store.db.rows_custom_plan(
                f"SELECT r.ord, r.object, r.unit_ref FROM relations r{hint} WHERE {pair} AND {col} IN ({_marks(values)})",
                (subject, predicate, *vp, *values), *vp,
            )):
                out[o] = (obj, unit)

    def missing() -> list[str]:
        by_id = ' COLLATE "C"' if postgres else ""  # (Python's order of ids; PostgreSQL's index is in it)
        obj_not = f" AND r.object NOT IN ({_marks(near)})" if near else ""
        unit_not = f" AND r.unit_ref NOT IN ({_marks(units)})" if units else ""
        return [i for (i,) in cast("list[tuple[str]]", store.db.rows(
            f"SELECT r.id FROM relations r{'' if postgres else ' INDEXED BY relations_spi'} WHERE {pair}{obj_not}{unit_not} "
            f"ORDER BY r.id{by_id} LIMIT {SHOWN}",
            (subject, predicate, *vp, *near, *units), *vp,
        ))]
    return out, missing


def _packed_reads(store: RowSource, vp: tuple[str, str], subject: str, predicate: str, near: list[str], units: list[str]) -> _Reads:
    """``_reads`` of a SQLite store of schema 10, whose relations are ``relation_rows`` (``schema.RELATION_ROWS``): the
    same reads by the same indexes, which a hint names on the table (a view takes none), by the ordinals of the
    pair, of the objects and of the units' versions."""
    pair = ("r.s = (SELECT ord FROM entities WHERE id = ?) AND r.p = (SELECT ord FROM predicates WHERE name = ?) AND "
            f"r.defects = '' AND {has_unit(True)} AND {READABLE.format(col='r.doc_ord')}")
    objects = f"r.o IN (SELECT ord FROM entities WHERE id IN ({_marks(near)}))"
    in_units, keys = relation_in_units(units, True, store.doc_ords)
    cols = f"r.ord, (SELECT id FROM entities WHERE ord = r.o), {relation_unit_ref()}"
    out: dict[int, tuple[str, str]] = {}
    for cond, index, params in ((objects, "relations_spo", near), (in_units, "relations_unit", keys)):
        if params:
            for o, obj, unit in cast("list[tuple[int, str, str]]", store.db.rows(
                f"SELECT {cols} FROM {RELATION_ROWS} r INDEXED BY {index} WHERE {pair} AND {cond}", (subject, predicate, *vp, *params),
            )):
                out[o] = (obj, unit)

    def missing() -> list[str]:
        obj_not = f" AND NOT {objects}" if near else ""
        unit_not = f" AND NOT coalesce({in_units}, 0)" if units else ""  # (a ref of no unit: NULL keys, no match)
        return [i for (i,) in cast("list[tuple[str]]", store.db.rows(
            f"SELECT r.id FROM {RELATION_ROWS} r INDEXED BY relations_spi WHERE {pair}{obj_not}{unit_not} ORDER BY r.id LIMIT {SHOWN}",
            (subject, predicate, *vp, *near, *keys),
        ))]
    return out, missing
