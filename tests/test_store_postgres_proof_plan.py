"""A trace's log proofs read one leaf tile per item from a PostgreSQL store, whatever the size of the class's log.

``StoreLog._entries`` reads, in PostgreSQL, each proven item's run and its leaf tile (``StoreLog._lookup``).
``log_tiles`` is under row-level security (``chainret.store.postgres.LOG_POLICY``), and the planner does not use a
join condition that applies a function that is not leakproof (``+``, ``-``, ``/``) to another table's columns before
the policy: written as a plain join, ``t.idx = (r.idx + ? - r.item_ord) / w`` became a filter over every leaf tile of
the class, a whole index range read per item, which grew with the store (most of a warm ask's server time at 1M
relations). The statement a warm ask runs is explained as the asking role reads it: its ``log_tiles`` scans must
find their tile by the index key, tile index included, and fetch one row each. The plain join (the statement as the
SQLite branch still writes it, where no policy applies) is the negative control: the same check fails on it, and it
returns the same rows.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from store_worlds import new_schema_url, pg_url  # noqa: F401

from benchmarks.store_bench import bench_catalog, requests
from chainret.pipeline.ask import ask
from chainret.store import compile_store, open_store
from chainret.store.log import TILE_WIDTH, store_log

psycopg = pytest.importorskip("psycopg")  # the test extra installs it; CI runs these
pytest.importorskip("cryptography")

RELATIONS = 2_000  # every class's log then has dozens of leaf tiles (TILE_WIDTH leaves each)


@pytest.fixture(scope="module")
def store(pg_url):  # noqa: F811
    url = new_schema_url(pg_url)
    compile_store(bench_catalog(RELATIONS), url)
    s = open_store(url)
    yield s
    s.close()


@pytest.fixture(scope="module")
def proof_reads(store) -> list[tuple[str, list[object], str]]:
    """(statement, parameters, class) of every run-and-tile read of a few asks' proofs, public and auditor."""
    seen: list[tuple[str, list[object], str]] = []
    rows = store.db.rows

    def capture(sql: str, params: Any = (), *scope: Any, **kw: Any) -> Any:
        if "log_tiles" in sql and "log_runs" in sql:
            seen.append((sql, list(params), scope[1]))
        return rows(sql, params, *scope, **kw)

    store.db.rows = capture
    try:
        for request, view, principal in requests(RELATIONS, 6, seed=1):
            trace = ask(request, store, view=view, principal=principal)
            assert trace.meta.get("log"), "the store keeps a log: the trace carries its proofs"
    finally:
        store.db.rows = rows
    assert {c for _, _, c in seen} == {"*", "auditor"}
    return seen


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


def tile_scan_problems(store: Any, sql: str, params: list[object], principal: str) -> list[str]:
    """What is wrong with the ``log_tiles`` scans of ``sql`` as ``principal``'s role runs it (``EXPLAIN ANALYZE``):
    a scan whose index condition leaves out the tile index, or that fetches more than the one tile it needs."""
    (explained,), = store.db.rows("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params, None, principal)
    plan = (json.loads(explained) if isinstance(explained, str) else explained)[0]["Plan"]
    scans = [n for n in _nodes(plan) if n.get("Relation Name") == "log_tiles"]
    problems = [] if scans else ["no scan of log_tiles"]
    for n in scans:
        if "idx =" not in n.get("Index Cond", ""):
            problems.append(f"{n['Node Type']} of log_tiles without the tile index in its index condition")
        if n["Actual Rows"] > 1 or n.get("Rows Removed by Filter", 0):
            problems.append(f"{n['Node Type']} of log_tiles fetched {n['Actual Rows']} rows a loop")
    joins = [n for n in _nodes(plan) if n.get("Rows Removed by Join Filter")]
    problems += [f"{n['Node Type']} removed {n['Rows Removed by Join Filter']} rows by its join filter" for n in joins]
    return problems


def plain_join(store: Any, sql: str) -> str:
    """``sql`` with its leaf tiles joined in the join's ``ON`` (no sub-query): the statement before the fix."""
    log = store_log(store)
    assert log is not None
    lateral = log._lookup("?")
    tile = f"(r.idx + ? - r.item_ord) / {TILE_WIDTH}"
    sub_query = f"LEFT JOIN LATERAL (SELECT hashes, above FROM log_tiles WHERE principal = r.principal AND level = 0 AND idx = {tile} LIMIT 1) t ON true"
    plain = lateral.replace(sub_query, f"LEFT JOIN log_tiles t ON t.principal = r.principal AND t.level = 0 AND t.idx = {tile}")
    assert lateral != plain and lateral in sql.replace("(SELECT 1) AS one", "{items}")
    return sql.replace("(SELECT 1) AS one", "{items}").replace(lateral, plain).replace("{items}", "(SELECT 1) AS one")


def test_the_class_log_has_many_leaf_tiles(store):
    """(What makes the negative control bite: a class's leaf tiles, all of which the plain join's filter reads.)"""
    for principal in ("*", "auditor"):
        (tiles,), = store.db.rows("SELECT count(*) FROM log_tiles WHERE principal = ? AND level = 0", (principal,), None, principal)
        assert tiles >= 20, (principal, tiles, TILE_WIDTH)


def test_a_proofs_tile_reads_fetch_one_tile_per_item_by_the_index(store, proof_reads):
    for sql, params, principal in proof_reads:
        assert tile_scan_problems(store, sql, params, principal) == [], sql[:300]


def test_negative_control_the_plain_join_reads_every_leaf_tile_of_the_class(store, proof_reads):
    for sql, params, principal in proof_reads:
        problems = tile_scan_problems(store, plain_join(store, sql), params, principal)
        assert any("without the tile index" in p for p in problems), problems
        assert any("join filter" in p for p in problems), problems


def test_the_lateral_read_returns_what_the_plain_join_returns(store, proof_reads):
    for sql, params, principal in proof_reads:
        got = store.db.rows(sql, params, None, principal)
        assert got and all(r[1] is not None and r[4] is not None for r in got)  # every item's run and tile found
        assert got == store.db.rows(plain_join(store, sql), params, None, principal)
