"""The engines asked the same requests: chainret (a compiled SQLite store) and two peers fed its export.

The export is the world's current view as chainret reads it: each relation eligible to a principal
(``view(None, principal).eligible_relations()``: in the view, current, readable), one row a relation and
reader (``*`` when ``public`` may read it, else the principal), and every name and alias of each entity.
A peer answers ``which contact serves P`` with one statement: the alias's entity, its ``operated_by``
object, that object's ``contact`` objects, each relation readable by the asker. It is handed the slot
words; chainret reads them from the request (interpretation is part of its cost, and of no peer's).
"""

from __future__ import annotations

import contextlib
import csv
import os
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

PRINCIPALS = ("public", "auditor")

JOIN = (
    "SELECT DISTINCT c.object FROM names n "
    "JOIN rel p ON p.subject = n.id AND p.predicate = 'operated_by' AND p.reader IN ('*', {r}) "
    "JOIN rel c ON c.subject = p.object AND c.predicate = 'contact' AND c.reader IN ('*', {r}) "
    "WHERE n.key = {a}"
)


def export(catalog: Any) -> tuple[list[tuple[str, str, str, str]], list[tuple[str, str]]]:
    """(relations (subject, predicate, object, reader), names (key, entity id)) of the catalog's current view."""
    from chainret.store.memory import MemoryStore

    store = MemoryStore(catalog, "export")
    rows: dict[str, tuple[str, str, str, str]] = {}
    for principal in PRINCIPALS:  # public first: what public may read is readable by everyone ('*')
        for r in store.view(None, principal).eligible_relations():
            rows.setdefault(r.id, (r.subject, r.predicate, r.object, "*" if principal == "public" else principal))
    names = [(key, e.id) for e in catalog.entities for key in dict.fromkeys([e.id, e.name, *e.aliases])]
    return list(rows.values()), names


class SQLiteFloor:
    """Plain SQLite tables, an index a join column, the bare 2-hop join: no engine, the floor."""

    name = "sqlite-join"

    def __init__(self, folder: Path) -> None:
        self.path = folder / "floor.db"

    def load(self, rels: list[tuple[str, str, str, str]], names: list[tuple[str, str]]) -> None:
        conn = sqlite3.connect(self.path)
        conn.executescript("CREATE TABLE rel(subject TEXT, predicate TEXT, object TEXT, reader TEXT);"
                           "CREATE TABLE names(key TEXT, id TEXT);")
        conn.executemany("INSERT INTO rel VALUES (?, ?, ?, ?)", rels)
        conn.executemany("INSERT INTO names VALUES (?, ?)", names)
        conn.executescript("CREATE INDEX rel_sp ON rel(subject, predicate); CREATE INDEX names_key ON names(key);")
        conn.commit()
        conn.close()
        self.conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
        self.sql = JOIN.format(r="?", a="?")

    def answer(self, alias: str, principal: str) -> set[str]:
        return {row[0] for row in self.conn.execute(self.sql, (principal, principal, alias))}

    def size(self) -> int:
        return self.path.stat().st_size

    def close(self) -> None:
        self.conn.close()


class DuckDBPeer:
    """DuckDB, one thread, the same tables loaded from a CSV, the join prepared once (``PREPARE``; DuckDB's Python
    API binds no parameters to ``EXECUTE``, so each ask passes its two values as quoted literals)."""

    name = "duckdb"

    def __init__(self, folder: Path) -> None:
        self.path = folder / "peer.duckdb"
        self.folder = folder

    def load(self, rels: list[tuple[str, str, str, str]], names: list[tuple[str, str]]) -> None:
        import duckdb

        self.conn = duckdb.connect(str(self.path))
        self.conn.execute("SET threads = 1")
        for table, cols, rows in (("rel", ("subject", "predicate", "object", "reader"), rels), ("names", ("key", "id"), names)):
            columns = ", ".join(f"'{c}': 'VARCHAR'" for c in cols)
            with _csv(self.folder, table, rows) as csv_path:
                self.conn.execute(f"CREATE TABLE {table} AS SELECT * FROM read_csv('{csv_path}', header = false, columns = {{{columns}}})")
        self.conn.execute("CHECKPOINT")
        self.conn.execute("PREPARE contacts AS " + JOIN.format(r="$1", a="$2"))

    def answer(self, alias: str, principal: str) -> set[str]:
        q = f"EXECUTE contacts({_lit(principal)}, {_lit(alias)})"
        return {row[0] for row in self.conn.execute(q).fetchall()}

    def size(self) -> int:
        return self.path.stat().st_size + (os.path.getsize(wal) if os.path.exists(wal := f"{self.path}.wal") else 0)

    def close(self) -> None:
        self.conn.close()


class LadybugPeer:
    """Ladybug (the maintained fork of the Kùzu embedded graph database), one thread: entities as nodes, each
    exported relation an edge carrying its predicate and reader, each name an edge from a key node to its entity;
    the same two hops as one Cypher pattern, run with parameters."""

    name = "ladybug"

    def __init__(self, folder: Path) -> None:
        self.path = folder / "peer.lbug"
        self.folder = folder

    def load(self, rels: list[tuple[str, str, str, str]], names: list[tuple[str, str]]) -> None:
        import ladybug

        self.db = ladybug.Database(str(self.path))
        self.conn = ladybug.Connection(self.db, num_threads=1)
        for ddl in ("CREATE NODE TABLE E(id STRING, PRIMARY KEY (id))", "CREATE NODE TABLE K(key STRING, PRIMARY KEY (key))",
                    "CREATE REL TABLE R(FROM E TO E, predicate STRING, reader STRING)", "CREATE REL TABLE NAMED(FROM K TO E)"):
            self.conn.execute(ddl)
        pairs = list(dict.fromkeys(names))
        tables = {
            "E": [(e,) for e in dict.fromkeys([*(x for s, _, o, _ in rels for x in (s, o)), *(i for _, i in pairs)])],
            "K": [(k,) for k in dict.fromkeys(k for k, _ in pairs)],
            "R": [(s, o, p, r) for s, p, o, r in rels],
            "NAMED": pairs,
        }
        for table, rows in tables.items():
            with _csv(self.folder, table, rows) as csv_path:
                self.conn.execute(f"COPY {table} FROM '{csv_path}' (HEADER = false)")
        self.query = (  # (run with parameters: Ladybug deprecates a separate prepare())
            "MATCH (k:K {key: $alias})-[:NAMED]->(:E)-[p:R]->(:E)-[c:R]->(x:E) "
            "WHERE p.predicate = 'operated_by' AND c.predicate = 'contact' AND p.reader IN ['*', $reader] "
            "AND c.reader IN ['*', $reader] RETURN DISTINCT x.id"
        )

    def answer(self, alias: str, principal: str) -> set[str]:
        res = self.conn.execute(self.query, {"alias": alias, "reader": principal})
        return {row[0] for row in res.get_all()}

    def size(self) -> int:
        return sum(f.stat().st_size for f in self.folder.glob("peer.lbug*") if f.is_file())

    def close(self) -> None:
        self.conn.close()
        self.db.close()


@contextlib.contextmanager
def _csv(folder: Path, table: str, rows: list[tuple[str, ...]]) -> Iterator[Path]:
    """``rows`` written to a CSV file for a peer's bulk load, removed after it."""
    path = folder / f"{table}.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    try:
        yield path
    finally:
        path.unlink()


def _lit(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class Chainret:
    """chainret on a compiled SQLite store, warm: ``ask`` (projected for the asker) and the trace's JSON written."""

    name = "chainret"

    def __init__(self, folder: Path) -> None:
        self.path = folder / "chainret.db"

    def load(self, catalog: Any) -> None:
        from chainret.store import compile_store, open_store

        compile_store(catalog, self.path)
        self.store = open_store(str(self.path))
        self.last: Any = None

    def answer(self, request: str, principal: str) -> set[str]:
        from chainret.pipeline.ask import ask

        t = ask(request, self.store, principal=principal)
        t.to_json()
        self.last = t
        return answer_set(t)

    def size(self) -> int:
        return self.path.stat().st_size

    def close(self) -> None:
        self.store.close()


def answer_set(trace: Any) -> set[str]:
    """The entities a trace answers: every set member, or the accepted path's end; none without a path."""
    if trace.outcome != "accepted_path":
        return set()
    if trace.answers:
        return {a.id for a in trace.answers}
    return {trace.path_ids[-1]} if trace.path_ids else set()


def timed(fn: Any, *args: Any) -> tuple[Any, float, float]:
    """(result, CPU seconds, wall seconds) of one call."""
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn(*args)
    return out, time.process_time() - c0, time.perf_counter() - t0


def scratch() -> Path:
    return Path(tempfile.mkdtemp(prefix="chainret-peers-"))
