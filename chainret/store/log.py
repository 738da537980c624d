"""The per-viewer append-only log of a compiled store (SQLite or PostgreSQL): leaves, tree, checkpoints, proofs (docs/proof.md).

Every compile and ``--update`` appends, to the log of each viewer class, one leaf per unit and one per relation that
class may read and that its log does not hold yet (units first, then relations, each in store order), and records
a checkpoint (tree size and root) per class for that write. The viewer classes are the store's principal classes
(``identities``): ``""`` the audit class (reads everything: an unprojected trace), ``*`` everyone no document names
(the public), and each principal some restricted document names. A class's checkpoint therefore moves only when
what that class may read grows: a restricted-only update leaves the public checkpoint as it was, so the checkpoint
is a per-viewer revision that reveals nothing hidden.

Tables (written by ``append_log`` from the rows the compile or update just wrote, in the same transaction, in a
SQLite file or a PostgreSQL schema alike; the log is an addition beside ``chainret.store.schema``'s tables, never
read by a hop):

* ``log_info`` (key, value): the log's format and origin prefix (a random id chosen when the log began);
* ``log_leaves`` (principal, idx, kind, item_ord, hash): leaf ``idx`` of a class's log is unit or relation
  ``item_ord`` (``kind`` ``u`` or ``r``); ``hash`` its RFC 9162 leaf hash in hex;
* ``log_nodes`` (principal, level, idx, hash): every perfect subtree of 2**level leaves (level >= 1), so an
  inclusion or consistency proof is O(log^2 n) reads, never a pass over the leaves;
* ``log_checkpoints`` (seq, principal, size, root, unit_mark, relation_mark): each class's tree head after write
  ``seq`` (the ``identities`` sequence), and how many units and relations that write had looked at.

A PostgreSQL store keeps the same tables, and row-level security shows a login only its own class's leaves,
subtrees and checkpoints (``chainret.store.postgres.LOG_POLICY``); so every read here names the class it reads
(``StoreLog._read``), and a proof's units and relations are read as the request read them, in its view.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol, cast
from urllib.parse import quote

from chainret.core.tlog import (
    LogError,
    NodeGetter,
    audit_path,
    b64,
    checkpoint_body,
    consistency_proof,
    inclusion_proof,
    leaf_hash,
    node_hash,
    relation_leaf,
    root_hash,
    subtree_hash,
    unit_leaf,
)

if TYPE_CHECKING:  # (sqlite3 and uuid load only where a store is written: ``chainret ask`` imports this module)
    import sqlite3

    from chainret.trace.model import Trace

LOG_FORMAT = "rfc9162-sha256/1"
APPEND_BATCH = 20_000  # leaves of one class appended at a time
KEEP_LEVEL = 6  # a store object keeps the subtree hashes of this level and above (one per 64 leaves) once read
AUDIT, PUBLIC = "", "*"

LOG_TABLES = ("log_info", "log_leaves", "log_nodes", "log_checkpoints")
_CREATE = (
    "CREATE TABLE IF NOT EXISTS log_info (key TEXT PRIMARY KEY, value TEXT)",
    "CREATE TABLE IF NOT EXISTS log_leaves (principal TEXT, idx INTEGER, kind TEXT, item_ord INTEGER, hash TEXT, "
    "PRIMARY KEY (principal, idx)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS log_leaves_item ON log_leaves (principal, kind, item_ord)",
    "CREATE TABLE IF NOT EXISTS log_nodes (principal TEXT, level INTEGER, idx INTEGER, hash TEXT, "
    "PRIMARY KEY (principal, level, idx)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS log_checkpoints (seq INTEGER, principal TEXT, size INTEGER, root TEXT, "
    "unit_mark INTEGER, relation_mark INTEGER, PRIMARY KEY (seq, principal))",
)
_COLUMNS = {"log_leaves": ("principal", "idx", "kind", "item_ord", "hash"), "log_nodes": ("principal", "level", "idx", "hash")}


def log_create_statements(postgres: bool = False) -> list[str]:
    """The log's tables: SQLite's, or PostgreSQL's (BIGINT integers, no ``WITHOUT ROWID``)."""
    if not postgres:
        return list(_CREATE)
    return [s.replace(" WITHOUT ROWID", "").replace("INTEGER", "BIGINT") for s in _CREATE]


class LogWriter(Protocol):
    """What ``append_log`` writes through: the compile's or update's own transaction (SQLite or PostgreSQL)."""

    def rows(self, sql: str, params: Sequence[object] = ()) -> list[Any]: ...

    def execute(self, sql: str, params: Sequence[object] = ()) -> None: ...

    def stream(self, sql: str, params: Sequence[object] = ()) -> Iterable[Sequence[Any]]:
        """The rows of ``sql`` a batch at a time, while other statements run on the same transaction."""
        ...

    def insert_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[object]]) -> None: ...


class SQLiteLogWriter:
    """``LogWriter`` over a SQLite connection (``?`` placeholders, a cursor streams)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def rows(self, sql: str, params: Sequence[object] = ()) -> list[Any]:
        return self.conn.execute(sql, tuple(params)).fetchall()

    def execute(self, sql: str, params: Sequence[object] = ()) -> None:
        self.conn.execute(sql, tuple(params))

    def stream(self, sql: str, params: Sequence[object] = ()) -> Iterable[Sequence[Any]]:
        return self.conn.execute(sql, tuple(params))

    def insert_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
        self.conn.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})", rows)


def class_label(principal: str) -> str:
    """How a viewer class is named in a checkpoint's origin (no spaces, no ``+``: a signed note's key name)."""
    if principal == AUDIT:
        return "audit"
    if principal == PUBLIC:
        return "public"
    return "principal/" + quote(principal, safe="")


def viewer_class(principal_classes: Iterable[str], viewer: str | None) -> str:
    """The log a trace for ``viewer`` is proven against (None: the unprojected audit trace). A viewer no document
    names reads what the public reads (as ``SQLStore.identity_history`` counts them)."""
    if viewer is None:
        return AUDIT
    return viewer if viewer in set(principal_classes) - {AUDIT, PUBLIC} else PUBLIC


# -- writing ---------------------------------------------------------------------------------------------

class _Nodes:
    """Perfect-subtree hashes of one class's tree: those this write made, else the stored ones."""

    def __init__(self, db: LogWriter, principal: str) -> None:
        self.db, self.principal = db, principal
        self.fresh: dict[tuple[int, int], bytes] = {}

    def get(self, level: int, idx: int) -> bytes:
        hit = self.fresh.get((level, idx))
        if hit is not None:
            return hit
        if level == 0:
            found = self.db.rows("SELECT hash FROM log_leaves WHERE principal = ? AND idx = ?", (self.principal, idx))
        else:
            found = self.db.rows("SELECT hash FROM log_nodes WHERE principal = ? AND level = ? AND idx = ?",
                                 (self.principal, level, idx))
        if not found:
            raise LogError(f"the store's log for {class_label(self.principal)} lacks node {level}/{idx}")
        return bytes.fromhex(found[0][0])


def _append(db: LogWriter, principal: str, old: int, leaves: list[tuple[str, int, bytes]]) -> int:
    """Append ``leaves`` (kind, item ord, leaf hash) to a class's tree of ``old`` leaves, with every perfect subtree
    they complete; returns the new size."""
    nodes = _Nodes(db, principal)
    new = old + len(leaves)
    db.insert_rows("log_leaves", _COLUMNS["log_leaves"],
                   [(principal, old + i, kind, ordinal, h.hex()) for i, (kind, ordinal, h) in enumerate(leaves)])
    nodes.fresh.update(((0, old + i), h) for i, (_, _, h) in enumerate(leaves))
    level = 1
    while new >> level:
        made = [(j, node_hash(nodes.get(level - 1, 2 * j), nodes.get(level - 1, 2 * j + 1)))
                for j in range(old >> level, new >> level)]
        nodes.fresh.update(((level, j), h) for j, h in made)
        db.insert_rows("log_nodes", _COLUMNS["log_nodes"], [(principal, level, j, h.hex()) for j, h in made])
        level += 1
    return new


def _readers(db: LogWriter) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for d, p in db.rows("SELECT doc_ord, principal FROM readers"):
        out.setdefault(d, set()).add(p)
    return out


def _reads(principal: str, who: set[str] | None) -> bool:
    if principal == AUDIT:
        return True
    return who is not None and (PUBLIC in who or principal in who)


def _units(db: LogWriter, start: int) -> Iterator[tuple[int, int | None, bytes]]:
    """(unit ord, document ord, leaf data) of every unit from ord ``start`` on."""
    sql = ("SELECT u.ord, u.ref, u.doc_ord, d.source, d.document, d.version, d.representation, d.digest, u.start_, u.end_, u.text "
           "FROM units u JOIN documents d ON d.ord = u.doc_ord WHERE u.ord >= ? ORDER BY u.ord")
    for o, ref, d, src, doc, ver, rep, dig, s, e, text in db.stream(sql, (start,)):
        yield o, d, unit_leaf(ref, src, doc, ver, rep or "", dig or "", s, e, text)


def _relations(db: LogWriter, start: int) -> Iterator[tuple[int, int | None, bytes]]:
    """(relation ord, supporting document ord, leaf data) of every relation from ord ``start`` on."""
    sql = ("SELECT r.ord, r.id, r.subject, r.predicate, r.object, r.source, r.document, r.version, r.representation, r.digest, "
           "r.span_start, r.span_end, q.quote, r.kind, r.doc_ord FROM relations r JOIN relation_quotes q ON q.rel_ord = r.ord "
           "WHERE r.ord >= ? ORDER BY r.ord")
    for o, rid, s, p, ob, src, doc, ver, rep, dig, a, b, quote_, kind, d in db.stream(sql, (start,)):
        yield o, d, relation_leaf(rid, s, p, ob, src, doc, ver, rep or "", dig or "", a, b, quote_ or "", kind or "clause")


def append_log(db: LogWriter, *, postgres: bool = False) -> dict[str, int]:
    """Append this write's leaves to every viewer class's log and record its checkpoints (module docstring).

    Runs inside the compile's or update's transaction, after its rows are written (``identities`` holds this
    write's ``seq`` and classes), through ``db`` (``SQLiteLogWriter``, or the PostgreSQL writer's). Returns each
    class's tree size."""
    import uuid

    for stmt in log_create_statements(postgres):
        db.execute(stmt)
    if not db.rows("SELECT value FROM log_info WHERE key = 'origin'"):
        db.execute("INSERT INTO log_info (key, value) VALUES ('format', ?), ('origin', ?)", (LOG_FORMAT, uuid.uuid4().hex[:16]))
    seq = db.rows("SELECT max(seq) FROM identities")[0][0]
    classes = sorted(str(p) for (p,) in db.rows("SELECT principal FROM identities WHERE seq = ?", (seq,)))
    last: dict[str, tuple[int, int, int]] = {}
    for p, size, um, rm in db.rows(
            "SELECT principal, size, unit_mark, relation_mark FROM log_checkpoints c WHERE seq = (SELECT max(seq) FROM log_checkpoints "
            "WHERE principal = c.principal)"):
        last[p] = (size, um, rm)
    readers = _readers(db)
    n_units = db.rows("SELECT count(*) FROM units")[0][0]
    n_rels = db.rows("SELECT count(*) FROM relations")[0][0]
    sizes = {p: last.get(p, (0, 0, 0))[0] for p in classes}
    new: dict[str, list[tuple[str, int, bytes]]] = {p: [] for p in classes}
    for kind, rows, mark in (("u", _units, 1), ("r", _relations, 2)):
        marks = {p: last.get(p, (0, 0, 0))[mark] for p in classes}
        for ordinal, doc, data in rows(db, min(marks.values(), default=0)):
            h: bytes | None = None
            who = readers.get(doc) if doc is not None else None
            for p in classes:
                if ordinal >= marks[p] and _reads(p, who):
                    h = h or leaf_hash(data)
                    new[p].append((kind, ordinal, h))
                    if len(new[p]) >= APPEND_BATCH:  # (a 1M-relation store's leaves are never all held at once)
                        sizes[p] = _append(db, p, sizes[p], new[p])
                        new[p] = []
    for p in classes:
        sizes[p] = _append(db, p, sizes[p], new[p])
        root = root_hash(_Nodes(db, p).get, sizes[p])
        db.execute("INSERT INTO log_checkpoints (seq, principal, size, root, unit_mark, relation_mark) VALUES (?, ?, ?, ?, ?, ?)",
                   (seq, p, sizes[p], root.hex(), n_units, n_rels))
    db.execute("INSERT INTO meta (key, value) VALUES ('log', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", (LOG_FORMAT,))
    return sizes


# -- reading ---------------------------------------------------------------------------------------------

class StoreLog:
    """A compiled store's log as a reader sees it: checkpoints per class, inclusion and consistency proofs."""

    def __init__(self, rows: Any, world: str) -> None:
        self._rows = rows  # ``Backend.rows``: text and integers only
        self.world = world
        self._origin_id = str(self._one(None, "SELECT value FROM log_info WHERE key = 'origin'") or "")
        self._cache: dict[tuple[str, int, int], bytes] = {}
        self._edges: dict[tuple[str, int, int], bytes] = {}

    def _read(self, principal: str | None, sql: str, params: Sequence[object] = ()) -> list[Any]:
        """``sql`` read as a login of class ``principal`` reads (None: the store's metadata). A SQLite file reads every
        row alike; a PostgreSQL store shows each class's log rows to its own role only (the audit log's to the
        application role, which reads with no principal)."""
        if principal is None or principal == AUDIT:
            return cast("list[Any]", self._rows(sql, params))
        return cast("list[Any]", self._rows(sql, params, None, principal))

    def _one(self, principal: str | None, sql: str, params: Sequence[object] = ()) -> object:
        found = self._read(principal, sql, params)
        return found[0][0] if found else None

    def origin(self, principal: str) -> str:
        return f"chainret/{quote(self.world, safe='')}/{self._origin_id}/{class_label(principal)}"

    @cached_property
    def classes(self) -> list[str]:
        """Every viewer class the store records identities for: those the log keeps (``append_log``). Read from
        ``identities``, which every login may read, not from the checkpoints, which each reads of its own class only."""
        return sorted({str(p) for (p,) in self._read(None, "SELECT DISTINCT principal FROM identities")})

    def checkpoints(self, principal: str) -> list[dict[str, Any]]:
        """Every write's checkpoint of one class, oldest first: seq, size, root (base64) and its note text."""
        out = []
        for seq, size, root in self._read(principal, "SELECT seq, size, root FROM log_checkpoints WHERE principal = ? ORDER BY seq",
                                          (principal,)):
            raw = bytes.fromhex(cast(str, root))
            out.append({"seq": seq, "size": size, "root": b64(raw),
                        "checkpoint": checkpoint_body(self.origin(principal), cast(int, size), raw)})
        return out

    def latest(self, principal: str) -> tuple[int, bytes] | None:
        found = self._read(principal, "SELECT size, root FROM log_checkpoints WHERE principal = ? ORDER BY seq DESC LIMIT 1", (principal,))
        return (cast(int, found[0][0]), bytes.fromhex(cast(str, found[0][1]))) if found else None

    def _get(self, principal: str, fetched: dict[tuple[int, int], bytes] | None = None) -> NodeGetter:
        """Perfect-subtree hashes of one class's tree: this request's batch (``fetched``), the kept upper levels
        (``KEEP_LEVEL`` and above: a few per 2**KEEP_LEVEL leaves), else one read."""
        def get(level: int, idx: int) -> bytes:
            hit = fetched.get((level, idx)) if fetched is not None else None
            if hit is None:
                hit = self._cache.get((principal, level, idx))
            if hit is None:
                if level == 0:
                    h = self._one(principal, "SELECT hash FROM log_leaves WHERE principal = ? AND idx = ?", (principal, idx))
                else:
                    h = self._one(principal, "SELECT hash FROM log_nodes WHERE principal = ? AND level = ? AND idx = ?",
                                  (principal, level, idx))
                if h is None:
                    raise LogError(f"the store's log for {class_label(principal)} lacks node {level}/{idx}")
                hit = bytes.fromhex(cast(str, h))
                if level >= KEEP_LEVEL:
                    self._cache[(principal, level, idx)] = hit
            return hit
        return get

    def consistency(self, principal: str, old: int, new: int) -> list[str]:
        sizes = {cast(int, s) for (s,) in self._read(principal, "SELECT size FROM log_checkpoints WHERE principal = ?", (principal,))}
        for n in (old, new):
            if n not in sizes:
                raise LogError(f"no checkpoint of {class_label(principal)} has size {n} (sizes: {sorted(sizes)})")
        return [b64(h) for h in consistency_proof(self._get(principal), old, new)]

    def _fetch(self, principal: str, indexes: Iterable[int], size: int) -> dict[tuple[int, int], bytes]:
        """Every perfect-subtree hash the inclusion proofs of ``indexes`` need and the kept levels lack, in two reads."""
        wanted = {(level, i) for index in indexes for level, i in audit_path(index, size)
                  if level >= 0 and (principal, level, i) not in self._cache}
        out: dict[tuple[int, int], bytes] = {}
        leaves = sorted(i for lv, i in wanted if lv == 0)
        if leaves:
            marks = ", ".join("?" for _ in leaves)
            for i, h in self._read(principal, f"SELECT idx, hash FROM log_leaves WHERE principal = ? AND idx IN ({marks})",
                                   (principal, *leaves)):
                out[(0, cast(int, i))] = bytes.fromhex(cast(str, h))
        nodes = sorted(k for k in wanted if k[0] > 0)
        if nodes:
            pairs = ", ".join("(?, ?)" for _ in nodes)
            flat = [v for k in nodes for v in k]
            # A join on the primary key: SQLite plans ``(level, idx) IN (VALUES ...)`` as a scan of the class's nodes.
            for lv, i, h in self._read(principal, f"SELECT n.level, n.idx, n.hash FROM (VALUES {pairs}) v JOIN log_nodes n "
                                       "ON n.principal = ? AND n.level = v.column1 AND n.idx = v.column2", (*flat, principal)):
                out[(cast(int, lv), cast(int, i))] = bytes.fromhex(cast(str, h))
        return out

    def _edge(self, principal: str, size: int, get: NodeGetter) -> Callable[[int], bytes]:
        """MTH of leaves ``start`` up to ``size``: the tree's unfinished right edge, the same for every proof at that
        size (at most log2(size) of them), so kept once computed."""
        def edge(start: int) -> bytes:
            key = (principal, size, start)
            hit = self._edges.get(key)
            if hit is None:
                hit = self._edges[key] = subtree_hash(get, start, size)
            return hit
        return edge

    def _entries(self, principal: str, size: int, units: list[str], relations: list[str],
                 scope: tuple[str | None, str | None]) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
        """(units by ref, relations by id) among the given that the class's tree of ``size`` leaves holds, each with its
        leaf ``index``: a unit with its ``span`` and ``text``, a relation with its subject, predicate and object.

        Two reads: the units and relations as the request read them (``scope``: its view and principal, which a
        PostgreSQL store's policies on unit text need), then their leaf indexes in the class's log."""
        if not units and not relations:
            return {}, {}
        parts, params = [], []
        if units:
            parts.append(f"SELECT 'u', ref, ord, start_, end_, text, NULL, NULL FROM units WHERE ref IN ({', '.join('?' for _ in units)})")
            params += units
        if relations:
            parts.append(f"SELECT 'r', id, ord, NULL, NULL, subject, predicate, object FROM relations WHERE id IN "
                         f"({', '.join('?' for _ in relations)})")
            params += relations
        view, asker = scope
        items = self._rows(" UNION ALL ".join(parts), params, *((view, asker) if view is not None or asker is not None else ()))
        by_ord = {(str(kind), cast(int, o)): (str(key), rest) for kind, key, o, *rest in items}
        if not by_ord:
            return {}, {}
        conds, keys = [], []
        for kind in ("u", "r"):
            ords = sorted(o for k, o in by_ord if k == kind)
            if ords:
                conds.append(f"(kind = ? AND item_ord IN ({', '.join('?' for _ in ords)}))")
                keys += [kind, *ords]
        found: tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]] = ({}, {})
        for kind, o, idx in self._read(principal, f"SELECT kind, item_ord, idx FROM log_leaves WHERE principal = ? AND idx < ? AND "
                                       f"({' OR '.join(conds)})", (principal, size, *keys)):
            key, (start, end, a, b, c) = by_ord[(str(kind), cast(int, o))]
            if kind == "u":
                found[0][key] = {"index": idx, "span": [start, end], "text": a}
            else:
                found[1][key] = {"index": idx, "subject": a, "predicate": b, "object": c}
        return found

    def proofs(self, trace: Trace, principal: str, scope: tuple[str | None, str | None] = (None, None)) -> dict[str, Any] | None:
        """``meta.log`` of a trace for a viewer of class ``principal``: the checkpoint, and for each anchor its unit's
        and relation's leaf index and inclusion proof, with the unit's span and text (docs/proof.md). An anchor whose
        unit or relation is not in that class's log gets no entry (the offline verifier then fails it). ``scope``:
        the (view, principal) the trace was read in (``_entries``).

        Five reads whatever the number of anchors: the checkpoint, the units and relations, their leaf indexes, and
        the proofs' subtree hashes (leaves, nodes) that the kept upper levels do not hold."""
        head = self.latest(principal)
        if head is None:
            return None
        size, root = head
        anchors = [h.anchor for h in trace.hops if h.anchor is not None]
        units, relations = self._entries(principal, size, sorted({a.unit_ref for a in anchors}),
                                         sorted({a.relation_id for a in anchors}), scope)
        entries = [*units.values(), *relations.values()]
        get = self._get(principal, self._fetch(principal, (cast(int, e["index"]) for e in entries), size))
        edge = self._edge(principal, size, get)
        for e in entries:
            e["proof"] = [b64(h) for h in inclusion_proof(get, cast(int, e["index"]), size, edge)]
        return {"origin": self.origin(principal), "size": size, "root": b64(root),
                "units": dict(sorted(units.items())), "relations": dict(sorted(relations.items()))}


_LOGS: weakref.WeakKeyDictionary[object, StoreLog] = weakref.WeakKeyDictionary()


def store_log(reader: object) -> StoreLog | None:
    """The log of a compiled store (SQLite or PostgreSQL) that has one (None for any other reader), read once per
    store object."""
    sql = sys.modules.get("chainret.store.sql")  # a compiled store's reader loaded it; an ask of a catalog file never does
    if sql is None or not isinstance(reader, sql.SQLStore) or reader._meta.get("log") != LOG_FORMAT:  # (``append_log``'s row)
        return None
    cached = _LOGS.get(reader)
    if cached is None:  # one per store object: a store object reads one snapshot
        cached = _LOGS[reader] = StoreLog(reader.db.rows, reader.world)
    return cached


def with_log(trace: Trace, reader: object, viewer: str | None, scope: tuple[str | None, str | None] = (None, None)) -> Trace:
    """``trace`` with ``meta.log`` (its checkpoint and proofs) when ``reader`` is a store with a log; else unchanged.
    ``scope``: the (store view name, principal) the trace was read in (``StoreLog.proofs``)."""
    log = store_log(reader)
    if log is None:
        return trace
    proven = log.proofs(trace, viewer_class(log.classes, viewer), scope)
    if proven is None:
        return trace
    return trace.model_copy(update={"meta": {**trace.meta, "log": proven}})
