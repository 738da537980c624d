"""The per-viewer append-only log of a compiled SQLite store: leaves, tree, checkpoints, proofs (docs/proof.md).

Every compile and ``--update`` appends, to the log of each viewer class, one leaf per unit and one per relation that
class may read and that its log does not hold yet (units first, then relations, each in store order), and records
a checkpoint (tree size and root) per class for that write. The viewer classes are the store's principal classes
(``identities``): ``""`` the audit class (reads everything: an unprojected trace), ``*`` everyone no document names
(the public), and each principal some restricted document names. A class's checkpoint therefore moves only when
what that class may read grows: a restricted-only update leaves the public checkpoint as it was, so the checkpoint
is a per-viewer revision that reveals nothing hidden.

Tables (SQLite only: written by ``append_log`` from the rows the compile or update just wrote, in the same
transaction; the log is an addition beside ``chainret.store.schema``'s tables, never read by a hop):

* ``log_info`` (key, value): the log's format and origin prefix (a random id chosen when the log began);
* ``log_leaves`` (principal, idx, kind, item_ord, hash): leaf ``idx`` of a class's log is unit or relation
  ``item_ord`` (``kind`` ``u`` or ``r``); ``hash`` its RFC 9162 leaf hash in hex;
* ``log_nodes`` (principal, level, idx, hash): every perfect subtree of 2**level leaves (level >= 1), so an
  inclusion or consistency proof is O(log^2 n) reads, never a pass over the leaves;
* ``log_checkpoints`` (seq, principal, size, root, unit_mark, relation_mark): each class's tree head after write
  ``seq`` (the ``identities`` sequence), and how many units and relations that write had looked at.

PostgreSQL stores keep no log yet (docs/proof.md says so): traces from them carry no proofs.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast
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

    def __init__(self, conn: sqlite3.Connection, principal: str) -> None:
        self.conn, self.principal = conn, principal
        self.fresh: dict[tuple[int, int], bytes] = {}

    def get(self, level: int, idx: int) -> bytes:
        hit = self.fresh.get((level, idx))
        if hit is not None:
            return hit
        if level == 0:
            row = self.conn.execute("SELECT hash FROM log_leaves WHERE principal = ? AND idx = ?", (self.principal, idx)).fetchone()
        else:
            row = self.conn.execute("SELECT hash FROM log_nodes WHERE principal = ? AND level = ? AND idx = ?",
                                    (self.principal, level, idx)).fetchone()
        if row is None:
            raise LogError(f"the store's log for {class_label(self.principal)} lacks node {level}/{idx}")
        return bytes.fromhex(row[0])


def _append(conn: sqlite3.Connection, principal: str, old: int, leaves: list[tuple[str, int, bytes]]) -> int:
    """Append ``leaves`` (kind, item ord, leaf hash) to a class's tree of ``old`` leaves, with every perfect subtree
    they complete; returns the new size."""
    nodes = _Nodes(conn, principal)
    new = old + len(leaves)
    conn.executemany("INSERT INTO log_leaves VALUES (?, ?, ?, ?, ?)",
                     ((principal, old + i, kind, ordinal, h.hex()) for i, (kind, ordinal, h) in enumerate(leaves)))
    nodes.fresh.update(((0, old + i), h) for i, (_, _, h) in enumerate(leaves))
    level = 1
    while new >> level:
        made = [(j, node_hash(nodes.get(level - 1, 2 * j), nodes.get(level - 1, 2 * j + 1)))
                for j in range(old >> level, new >> level)]
        nodes.fresh.update(((level, j), h) for j, h in made)
        conn.executemany("INSERT INTO log_nodes VALUES (?, ?, ?, ?)", ((principal, level, j, h.hex()) for j, h in made))
        level += 1
    return new


def _readers(conn: sqlite3.Connection) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for d, p in conn.execute("SELECT doc_ord, principal FROM readers"):
        out.setdefault(d, set()).add(p)
    return out


def _reads(principal: str, who: set[str] | None) -> bool:
    if principal == AUDIT:
        return True
    return who is not None and (PUBLIC in who or principal in who)


def _units(conn: sqlite3.Connection, start: int) -> Iterator[tuple[int, int | None, bytes]]:
    """(unit ord, document ord, leaf data) of every unit from ord ``start`` on."""
    sql = ("SELECT u.ord, u.ref, u.doc_ord, d.source, d.document, d.version, d.representation, d.digest, u.start_, u.end_, u.text "
           "FROM units u JOIN documents d ON d.ord = u.doc_ord WHERE u.ord >= ? ORDER BY u.ord")
    for o, ref, d, src, doc, ver, rep, dig, s, e, text in conn.execute(sql, (start,)):
        yield o, d, unit_leaf(ref, src, doc, ver, rep or "", dig or "", s, e, text)


def _relations(conn: sqlite3.Connection, start: int) -> Iterator[tuple[int, int | None, bytes]]:
    """(relation ord, supporting document ord, leaf data) of every relation from ord ``start`` on."""
    sql = ("SELECT r.ord, r.id, r.subject, r.predicate, r.object, r.source, r.document, r.version, r.representation, r.digest, "
           "r.span_start, r.span_end, q.quote, r.kind, r.doc_ord FROM relations r JOIN relation_quotes q ON q.rel_ord = r.ord "
           "WHERE r.ord >= ? ORDER BY r.ord")
    for o, rid, s, p, ob, src, doc, ver, rep, dig, a, b, quote_, kind, d in conn.execute(sql, (start,)):
        yield o, d, relation_leaf(rid, s, p, ob, src, doc, ver, rep or "", dig or "", a, b, quote_ or "", kind or "clause")


def append_log(conn: sqlite3.Connection) -> dict[str, int]:
    """Append this write's leaves to every viewer class's log and record its checkpoints (module docstring).

    Runs inside the compile's or update's transaction, after its rows are written (``identities`` holds this
    write's ``seq`` and classes). Returns each class's tree size."""
    import uuid

    for stmt in _CREATE:
        conn.execute(stmt)
    if conn.execute("SELECT value FROM log_info WHERE key = 'origin'").fetchone() is None:
        conn.execute("INSERT INTO log_info VALUES ('format', ?), ('origin', ?)", (LOG_FORMAT, uuid.uuid4().hex[:16]))
    seq = conn.execute("SELECT max(seq) FROM identities").fetchone()[0]
    classes = sorted(p for (p,) in conn.execute("SELECT principal FROM identities WHERE seq = ?", (seq,)))
    last: dict[str, tuple[int, int, int]] = {}
    for p, size, um, rm in conn.execute(
            "SELECT principal, size, unit_mark, relation_mark FROM log_checkpoints c WHERE seq = (SELECT max(seq) FROM log_checkpoints "
            "WHERE principal = c.principal)"):
        last[p] = (size, um, rm)
    readers = _readers(conn)
    n_units = conn.execute("SELECT count(*) FROM units").fetchone()[0]
    n_rels = conn.execute("SELECT count(*) FROM relations").fetchone()[0]
    sizes = {p: last.get(p, (0, 0, 0))[0] for p in classes}
    new: dict[str, list[tuple[str, int, bytes]]] = {p: [] for p in classes}
    for kind, rows, mark in (("u", _units, 1), ("r", _relations, 2)):
        marks = {p: last.get(p, (0, 0, 0))[mark] for p in classes}
        for ordinal, doc, data in rows(conn, min(marks.values(), default=0)):
            h: bytes | None = None
            who = readers.get(doc) if doc is not None else None
            for p in classes:
                if ordinal >= marks[p] and _reads(p, who):
                    h = h or leaf_hash(data)
                    new[p].append((kind, ordinal, h))
                    if len(new[p]) >= APPEND_BATCH:  # (a 1M-relation store's leaves are never all held at once)
                        sizes[p] = _append(conn, p, sizes[p], new[p])
                        new[p] = []
    for p in classes:
        sizes[p] = _append(conn, p, sizes[p], new[p])
        root = root_hash(_Nodes(conn, p).get, sizes[p])
        conn.execute("INSERT INTO log_checkpoints VALUES (?, ?, ?, ?, ?, ?)", (seq, p, sizes[p], root.hex(), n_units, n_rels))
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('log', ?)", (LOG_FORMAT,))
    return sizes


# -- reading ---------------------------------------------------------------------------------------------

class StoreLog:
    """A compiled store's log as a reader sees it: checkpoints per class, inclusion and consistency proofs."""

    def __init__(self, rows: Any, world: str) -> None:
        self._rows = rows  # ``Backend.rows``: text and integers only
        self.world = world
        self._origin_id = str(self._one("SELECT value FROM log_info WHERE key = 'origin'") or "")
        self._cache: dict[tuple[str, int, int], bytes] = {}
        self._edges: dict[tuple[str, int, int], bytes] = {}

    def _one(self, sql: str, params: Sequence[object] = ()) -> object:
        found = self._rows(sql, params)
        return found[0][0] if found else None

    def origin(self, principal: str) -> str:
        return f"chainret/{quote(self.world, safe='')}/{self._origin_id}/{class_label(principal)}"

    @cached_property
    def classes(self) -> list[str]:
        return sorted({str(p) for (p,) in self._rows("SELECT DISTINCT principal FROM log_checkpoints")})

    def checkpoints(self, principal: str) -> list[dict[str, Any]]:
        """Every write's checkpoint of one class, oldest first: seq, size, root (base64) and its note text."""
        out = []
        for seq, size, root in self._rows("SELECT seq, size, root FROM log_checkpoints WHERE principal = ? ORDER BY seq", (principal,)):
            raw = bytes.fromhex(cast(str, root))
            out.append({"seq": seq, "size": size, "root": b64(raw),
                        "checkpoint": checkpoint_body(self.origin(principal), cast(int, size), raw)})
        return out

    def latest(self, principal: str) -> tuple[int, bytes] | None:
        found = self._rows("SELECT size, root FROM log_checkpoints WHERE principal = ? ORDER BY seq DESC LIMIT 1", (principal,))
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
                    h = self._one("SELECT hash FROM log_leaves WHERE principal = ? AND idx = ?", (principal, idx))
                else:
                    h = self._one("SELECT hash FROM log_nodes WHERE principal = ? AND level = ? AND idx = ?", (principal, level, idx))
                if h is None:
                    raise LogError(f"the store's log for {class_label(principal)} lacks node {level}/{idx}")
                hit = bytes.fromhex(cast(str, h))
                if level >= KEEP_LEVEL:
                    self._cache[(principal, level, idx)] = hit
            return hit
        return get

    def consistency(self, principal: str, old: int, new: int) -> list[str]:
        sizes = {cast(int, s) for (s,) in self._rows("SELECT size FROM log_checkpoints WHERE principal = ?", (principal,))}
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
            for i, h in self._rows(f"SELECT idx, hash FROM log_leaves WHERE principal = ? AND idx IN ({marks})", (principal, *leaves)):
                out[(0, cast(int, i))] = bytes.fromhex(cast(str, h))
        nodes = sorted(k for k in wanted if k[0] > 0)
        if nodes:
            pairs = ", ".join("(?, ?)" for _ in nodes)
            flat = [v for k in nodes for v in k]
            # A join on the primary key: SQLite plans ``(level, idx) IN (VALUES ...)`` as a scan of the class's nodes.
            for lv, i, h in self._rows(f"SELECT n.level, n.idx, n.hash FROM (VALUES {pairs}) v JOIN log_nodes n "
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

    _ITEMS = {"u": ("units", "ref", {"span_start": "start_", "span_end": "end_", "text": "text"}),
              "r": ("relations", "id", {"subject": "subject", "predicate": "predicate", "object": "object"})}

    def _entries(self, principal: str, size: int, kind: str, keys: list[str], fields: tuple[str, ...]) -> dict[str, dict[str, Any]]:
        """key -> {"index": its leaf in the class's tree of ``size`` leaves, and ``fields``} for the units (``u``, by ref)
        or relations (``r``, by id) among ``keys`` that the class's log holds: one read."""
        if not keys:
            return {}
        table, key, columns = self._ITEMS[kind]
        cols = ", ".join(f"t.{columns[f]}" for f in fields)
        found = self._rows(f"SELECT t.{key}, l.idx, {cols} FROM {table} t JOIN log_leaves l ON l.principal = ? AND l.kind = ? "
                           f"AND l.item_ord = t.ord WHERE t.{key} IN ({', '.join('?' for _ in keys)})", (principal, kind, *keys))
        return {cast(str, row[0]): {"index": row[1], **dict(zip(fields, row[2:]))} for row in found if cast(int, row[1]) < size}

    def proofs(self, trace: Trace, principal: str) -> dict[str, Any] | None:
        """``meta.log`` of a trace for a viewer of class ``principal``: the checkpoint, and for each anchor its unit's
        and relation's leaf index and inclusion proof, with the unit's span and text (docs/proof.md). An anchor whose
        unit or relation is not in that class's log gets no entry (the offline verifier then fails it).

        Four reads whatever the number of anchors: the units with their leaf indexes, the relations with theirs, and
        the proofs' subtree hashes (leaves, nodes) that the kept upper levels do not hold."""
        head = self.latest(principal)
        if head is None:
            return None
        size, root = head
        anchors = [h.anchor for h in trace.hops if h.anchor is not None]
        units = self._entries(principal, size, "u", sorted({a.unit_ref for a in anchors}), ("span_start", "span_end", "text"))
        relations = self._entries(principal, size, "r", sorted({a.relation_id for a in anchors}), ("subject", "predicate", "object"))
        for unit in units.values():
            unit["span"] = [unit.pop("span_start"), unit.pop("span_end")]
        entries = [*units.values(), *relations.values()]
        get = self._get(principal, self._fetch(principal, (cast(int, e["index"]) for e in entries), size))
        edge = self._edge(principal, size, get)
        for e in entries:
            e["proof"] = [b64(h) for h in inclusion_proof(get, cast(int, e["index"]), size, edge)]
        return {"origin": self.origin(principal), "size": size, "root": b64(root),
                "units": dict(sorted(units.items())), "relations": dict(sorted(relations.items()))}


_LOGS: weakref.WeakKeyDictionary[object, StoreLog] = weakref.WeakKeyDictionary()


def store_log(reader: object) -> StoreLog | None:
    """The log of a compiled SQLite store that has one (None for any other reader), read once per store object."""
    sql = sys.modules.get("chainret.store.sql")  # a compiled store's reader loaded it; an ask of a catalog file never does
    if sql is None or not isinstance(reader, sql.SQLStore) or reader._meta.get("log") != LOG_FORMAT:  # (``append_log``'s row)
        return None
    cached = _LOGS.get(reader)
    if cached is None:  # one per store object: a store object reads one snapshot
        cached = _LOGS[reader] = StoreLog(reader.db.rows, reader.world)
    return cached


def with_log(trace: Trace, reader: object, viewer: str | None) -> Trace:
    """``trace`` with ``meta.log`` (its checkpoint and proofs) when ``reader`` is a store with a log; else unchanged."""
    log = store_log(reader)
    if log is None:
        return trace
    proven = log.proofs(trace, viewer_class(log.classes, viewer))
    if proven is None:
        return trace
    return trace.model_copy(update={"meta": {**trace.meta, "log": proven}})
