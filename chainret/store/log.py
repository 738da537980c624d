"""The per-viewer append-only log of a compiled store (SQLite or PostgreSQL): leaves, tree, checkpoints, proofs (docs/proof.md).

Every compile and ``--update`` appends, to the log of each viewer class, one leaf per anchor that class may read and
that its log does not hold yet, in store order: a relation that a unit states, with that unit (``anchor_leaf``: log
format 3; format 2 had a leaf per unit and one per relation), and records a checkpoint (tree size and root) per
class for that write. The viewer classes are the store's principal classes
(``identities``): ``""`` the audit class (reads everything: an unprojected trace), ``*`` everyone no document names
(the public), and each principal some restricted document names. A class's checkpoint therefore moves only when
what that class may read grows: a restricted-only update leaves the public checkpoint as it was, so the checkpoint
is a per-viewer revision that reveals nothing hidden.

Tables (written by ``append_log`` from the rows the compile or update just wrote, in the same transaction, in a
SQLite file or a PostgreSQL schema alike; the log is an addition beside ``chainret.store.schema``'s tables, never
read by a hop):

* ``log_info`` (key, value): the log's format and origin prefix (a random id chosen when the log began);
* ``log_runs`` (principal, kind, item_ord, idx, length): leaves ``idx`` up to ``idx + length`` of a class's log are
  the anchors of relations ``item_ord`` up to ``item_ord + length`` (``kind`` ``r``; format 2 also wrote ``u``, a
  unit's). A class's leaves follow store order, so a run covers every readable stretch: a class that reads
  everything has a few runs per write, a class that may not read some documents a few per such document, never
  more than one a leaf;
* ``log_tiles`` (principal, level, idx, hashes, above): the tree's hashes in tiles (``TILE_HEIGHT`` levels each,
  as C2SP tlog-tiles cut a tree, in binary): tile ``(level, idx)`` holds, in ``hashes``, the perfect subtrees
  of ``2**(level * TILE_HEIGHT)`` leaves numbered ``idx * TILE_WIDTH`` onwards (up to ``TILE_WIDTH`` of them,
  fewer at the tree's right edge), and in ``above`` the tile's complete subtrees ``INNER_LEVELS`` levels above
  those (a leaf tile level 3, a tile above levels 2 to 4). The levels between are hashed again when read (a leaf's
  path, five hashes in its own tile), so the tiles hold about 1.17 hashes a leaf (every level would be 2; format 3's
  tiles, levels 2 to 4 in every tile, 1.5), and an inclusion proof reads one tile per ``TILE_HEIGHT`` levels: one
  for the leaf's own tile, the upper tiles being kept by the reader once read;
* ``log_checkpoints`` (seq, principal, size, root, unit_mark, relation_mark): each class's tree head after write
  ``seq`` (the ``identities`` sequence), and how many units and relations that write had looked at.

In a SQLite file a class whose log is the audit log leaf for leaf (it may read everything the store holds, as the
public may where no document is restricted) keeps no runs or tiles: ``log_info``'s ``tree:<class>`` names the audit
log as the tree it reads, until a write appends something it may not read (``_sharing``).

A PostgreSQL store keeps the same tables (every class its own runs and tiles), and row-level security shows a login only its own class's runs, tiles
and checkpoints (``chainret.store.postgres.LOG_POLICY``); so every read here names the class it reads
(``StoreLog._read``), and a proof's units and relations are read as the request read them, in its view.
"""

from __future__ import annotations

import sys
import weakref
from binascii import b2a_base64
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol, cast
from urllib.parse import quote

from chainret.core.tlog import (
    ANCHOR_FORMAT,
    HASH_SIZE,
    LogError,
    NodeGetter,
    anchor_leaf,
    audit_path,
    b64,
    checkpoint_body,
    consistency_proof,
    leaf_hash,
    node_hash,
    pair_hash,
    root_hash,
    subtree_hash,
)
from chainret.store.base import StoreError, recompile_advice
from chainret.store.schema import QUOTE, RELATION_ROWS, SUPPORT_COLUMNS, UNIT_TEXT, support_column, unit_of_relation, unit_text

if TYPE_CHECKING:  # (sqlite3 and uuid load only where a store is written: ``chainret ask`` imports this module)
    import sqlite3

    from chainret.trace.model import Trace

# (1: a row per leaf and per subtree, hex; 2: runs and tiles, a leaf per unit and one per relation; 3: a leaf per anchor,
# ``anchor_leaf``. A store of an earlier format proves nothing, its traces carry no ``meta.log``: recompile it)
# The store's log format (``log_info``'s and ``meta``'s ``log``): its leaves and proofs' format, which a trace names
# (``ANCHOR_FORMAT``), and how its tiles hold the tree: ``+tiles2`` a leaf tile keeps its foot and level 3 only
# (``INNER_LEVELS``); plain ``rfc9162-sha256/3`` kept levels 2, 3 and 4 in every tile. Its traces are the same either way.
LOG_FORMAT = ANCHOR_FORMAT + "+tiles2"
APPEND_BATCH = 20_000  # leaves of one class appended at a time
TILE_HEIGHT = 5  # levels of the tree one tile spans (``foot_hashes`` and ``leaf_foot_hashes`` are written for five)
TILE_WIDTH = 1 << TILE_HEIGHT  # subtrees at a tile's foot
# The levels above its foot a tile keeps, by tile level: a leaf tile (level 0) level 3 only, a tile above the leaves'
# levels 2, 3 and 4; the others are hashed again from the level below. The leaf tiles are 32 in 33 of the tiles, and
# a proof reads one of them from the store each: at 1M relations, levels 2 and 4 were 19 MB of the log's 92 that a
# proof rebuilds with four hashes (``leaf_foot_hashes``). A tile above them is read once per store object and kept, its
# paths sliced from it (``foot_hashes``): they keep what costs a proof no hash.
INNER_LEVELS = ((3,), (2, 3, 4))
WHOLE_TILE = TILE_WIDTH * HASH_SIZE  # bytes of a whole tile's foot
ABOVE_KEPT = 8_192  # audit paths from a tile level up a reader keeps of each kind (``StoreLog.audit_paths``: about 0.9 kB each), then starts again
AUDIT, PUBLIC = "", "*"

LOG_TABLES = ("log_info", "log_runs", "log_tiles", "log_checkpoints")
# (A tile is about 1.5 kB: a WITHOUT ROWID row holds it in the page, whose size the compile sets: ``chainret.store.sqlite.PAGE_SIZE``.)
_CREATE = (
    "CREATE TABLE IF NOT EXISTS log_info (key TEXT PRIMARY KEY, value TEXT)",
    "CREATE TABLE IF NOT EXISTS log_runs (principal TEXT, kind TEXT, item_ord INTEGER, idx INTEGER, length INTEGER, "
    "PRIMARY KEY (principal, kind, item_ord)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS log_tiles (principal TEXT, level INTEGER, idx INTEGER, hashes BLOB, above BLOB, "
    "PRIMARY KEY (principal, level, idx)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS log_checkpoints (seq INTEGER, principal TEXT, size INTEGER, root TEXT, "
    "unit_mark INTEGER, relation_mark INTEGER, PRIMARY KEY (seq, principal))",
)
_COLUMNS = {"log_runs": ("principal", "kind", "item_ord", "idx", "length"),
            "log_tiles": ("principal", "level", "idx", "hashes", "above")}


def log_create_statements(postgres: bool = False) -> list[str]:
    """The log's tables: SQLite's, or PostgreSQL's (BIGINT integers, BYTEA, no ``WITHOUT ROWID``)."""
    if not postgres:
        return list(_CREATE)
    return [s.replace(" WITHOUT ROWID", "").replace("INTEGER", "BIGINT").replace("BLOB", "BYTEA") for s in _CREATE]


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


# -- tiles ---------------------------------------------------------------------------------------------

#: A stored tile: its foot's hashes and its inner levels' (``log_tiles``' two BLOB columns).
Tile = tuple[bytes, bytes]


def tile_node(tile: Callable[[int, int], Tile | None], level: int, idx: int) -> bytes | None:
    """The hash of the perfect subtree ``(level, idx)`` read from the tiles ``tile(tile level, tile index)`` gives
    (None where a tile, or the subtree in it, is not there). A level a tile does not keep is hashed again from
    the ones below it (``INNER_LEVELS``: a hash a node)."""
    t_level, above = divmod(level, TILE_HEIGHT)
    kept = INNER_LEVELS[t_level > 0]
    if above and above not in kept:
        left, right = tile_node(tile, level - 1, 2 * idx), tile_node(tile, level - 1, 2 * idx + 1)
        return None if left is None or right is None else node_hash(left, right)
    shift = TILE_HEIGHT - above
    found = tile(t_level, idx >> shift)
    if found is None:
        return None
    hashes, inner = found
    pos = idx & ((1 << shift) - 1)
    if above:
        width = len(hashes) // HASH_SIZE  # the tile's foot: its complete subtrees at ``above`` are width >> above
        if pos >= width >> above:
            return None
        pos += sum(width >> v for v in kept if v < above)
        hashes = inner
    found_hash = hashes[pos * HASH_SIZE:(pos + 1) * HASH_SIZE]
    return found_hash if len(found_hash) == HASH_SIZE else None


# Where the first ``TILE_HEIGHT`` hashes of a leaf's audit path lie in its whole tile, by the leaf's place there: its
# sibling's in the foot, its pair's (two siblings in the foot, hashed again: level 1), and the three inner levels'
# (``INNER_LEVELS`` 2, 3, 4: 8, 4 and 2 hashes), as byte offsets in the foot and the inner levels (``foot_hashes``,
# and ``audit_paths``, which writes it out).
FOOT_BYTES = tuple((((pos ^ 1) * HASH_SIZE, ((pos >> 1) ^ 1) * 2 * HASH_SIZE, ((pos >> 2) ^ 1) * HASH_SIZE,
                     (8 + ((pos >> 3) ^ 1)) * HASH_SIZE, (12 + ((pos >> 4) ^ 1)) * HASH_SIZE)) for pos in range(TILE_WIDTH))


def foot_hashes(tile: Tile, pos: int) -> bytes:
    """The first ``TILE_HEIGHT`` hashes of a leaf's audit path, one after another, from its own tile when that tile is
    whole (each sibling then a complete subtree in it): what ``tile_node`` reads for them, with no lookups and one
    hash. ``pos``: the leaf's place in the tile (``FOOT_BYTES``)."""
    hashes, inner = tile
    n = HASH_SIZE
    sibling, pair, at2, at3, at4 = FOOT_BYTES[pos]
    return b"".join((hashes[sibling:sibling + n], pair_hash(hashes[pair:pair + 2 * n]),
                     inner[at2:at2 + n], inner[at3:at3 + n], inner[at4:at4 + n]))


# Where a leaf tile's hashes for the first ``TILE_HEIGHT`` hashes of a leaf's audit path lie, by the leaf's place there:
# its sibling's in the foot, its pair's (two in the foot, hashed: level 1), the four foot hashes under its level-2
# sibling (three hashes), its level-3 sibling's in the inner level and the two level-3 hashes of its level-4 sibling
# (one hash), as byte offsets (``leaf_foot_hashes``, and ``audit_paths``, which writes it out).
LEAF_FOOT_BYTES = tuple((((pos ^ 1) * HASH_SIZE, ((pos >> 1) ^ 1) * 2 * HASH_SIZE, ((pos >> 2) ^ 1) * 4 * HASH_SIZE,
                          ((pos >> 3) ^ 1) * HASH_SIZE, ((pos >> 4) ^ 1) * 2 * HASH_SIZE)) for pos in range(TILE_WIDTH))


def leaf_foot_hashes(tile: Tile, pos: int) -> bytes:
    """``foot_hashes`` of a whole leaf tile (``INNER_LEVELS``: its foot and level 3): five hashes, one after another,
    rebuilt with five hashes where an upper tile's take one. ``pos``: the leaf's place in the tile."""
    hashes, inner = tile
    n = HASH_SIZE
    sibling, pair, quad, at3, at4 = LEAF_FOOT_BYTES[pos]
    return b"".join((hashes[sibling:sibling + n], pair_hash(hashes[pair:pair + 2 * n]),
                     node_hash(pair_hash(hashes[quad:quad + 2 * n]), pair_hash(hashes[quad + 2 * n:quad + 4 * n])),
                     inner[at3:at3 + n], pair_hash(inner[at4:at4 + 2 * n])))


def _tile_rows(principal: str, get: NodeGetter, old: int, new: int) -> tuple[list[tuple[object, ...]], list[tuple[int, int]]]:
    """The tiles a tree grown from ``old`` to ``new`` leaves has new subtrees in, whole (the ``log_tiles`` rows), and
    those of them the tree of ``old`` leaves already had a row for (one a tile level at most: its right edge)."""
    rows: list[tuple[object, ...]] = []
    replaced: list[tuple[int, int]] = []
    t_level = 0
    while new >> (t_level * TILE_HEIGHT):
        foot = t_level * TILE_HEIGHT
        before, after = old >> foot, new >> foot  # complete subtrees at the foot level
        if after > before:
            first = before >> TILE_HEIGHT
            if before & (TILE_WIDTH - 1):
                replaced.append((t_level, first))
            for t in range(first, ((after - 1) >> TILE_HEIGHT) + 1):
                width = min(TILE_WIDTH, after - (t << TILE_HEIGHT))
                hashes = b"".join(get(foot, (t << TILE_HEIGHT) + k) for k in range(width))
                inner = b"".join(get(foot + v, (t << (TILE_HEIGHT - v)) + k) for v in INNER_LEVELS[t_level > 0] for k in range(width >> v))
                rows.append((principal, t_level, t, hashes, inner))
        t_level += 1
    return rows, replaced


# -- writing ---------------------------------------------------------------------------------------------

class _Nodes:
    """Perfect-subtree hashes of one class's tree: those this write made, else the stored tiles' (each read once)."""

    def __init__(self, db: LogWriter, principal: str) -> None:
        self.db, self.principal = db, principal
        self.fresh: dict[tuple[int, int], bytes] = {}
        self._tiles: dict[tuple[int, int], Tile | None] = {}

    def _tile(self, t_level: int, t_idx: int) -> Tile | None:
        key = (t_level, t_idx)
        if key not in self._tiles:
            found = self.db.rows("SELECT hashes, above FROM log_tiles WHERE principal = ? AND level = ? AND idx = ?",
                                 (self.principal, t_level, t_idx))
            self._tiles[key] = (bytes(found[0][0]), bytes(found[0][1])) if found else None
        return self._tiles[key]

    def get(self, level: int, idx: int) -> bytes:
        hit = self.fresh.get((level, idx))
        if hit is None:
            hit = tile_node(self._tile, level, idx)
            if hit is None:
                raise LogError(f"the store's log for {class_label(self.principal)} lacks node {level}/{idx}")
        return hit


def _runs(principal: str, old: int, leaves: list[tuple[str, int, bytes]]) -> list[tuple[object, ...]]:
    """The ``log_runs`` rows of leaves ``old`` onwards: each stretch of one kind's consecutive ordinals, one row."""
    out: list[list[Any]] = []
    for i, (kind, ordinal, _) in enumerate(leaves):
        last = out[-1] if out else None
        if last is not None and last[1] == kind and last[2] + last[4] == ordinal:
            last[4] += 1
        else:
            out.append([principal, kind, ordinal, old + i, 1])
    return [tuple(r) for r in out]


def _append(db: LogWriter, principal: str, old: int, leaves: list[tuple[str, int, bytes]]) -> int:
    """Append ``leaves`` (kind, item ord, leaf hash) to a class's tree of ``old`` leaves: their runs, and the tiles
    that hold every perfect subtree they complete (the tile that was the right edge written again); returns the
    new size."""
    if not leaves:
        return old
    nodes = _Nodes(db, principal)
    new = old + len(leaves)
    db.insert_rows("log_runs", _COLUMNS["log_runs"], _runs(principal, old, leaves))
    nodes.fresh.update(((0, old + i), h) for i, (_, _, h) in enumerate(leaves))
    level = 1
    while new >> level:
        for j in range(old >> level, new >> level):
            nodes.fresh[(level, j)] = node_hash(nodes.get(level - 1, 2 * j), nodes.get(level - 1, 2 * j + 1))
        level += 1
    rows, replaced = _tile_rows(principal, nodes.get, old, new)  # (read before the edge tiles are deleted)
    for t_level, t_idx in replaced:
        db.execute("DELETE FROM log_tiles WHERE principal = ? AND level = ? AND idx = ?", (principal, t_level, t_idx))
    db.insert_rows("log_tiles", _COLUMNS["log_tiles"], rows)
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


def _anchors(db: LogWriter, start: int, postgres: bool) -> Iterator[tuple[int, int | None, bytes]]:
    """(relation ord, supporting document ord, anchor leaf data) of every relation from ord ``start`` on that a unit
    states (a relation no unit states can be no hop's anchor, and gets no leaf): the relation, its support and its
    unit in one leaf (``anchor_leaf``; log format 3). Its unit: by its version's ordinal and index in a SQLite file
    (``schema.RELATION_ROWS``), by its ref in PostgreSQL."""
    support = ", ".join(support_column("{t}." + c) for c in SUPPORT_COLUMNS)  # (schema 8: as the catalog has them)
    unit = "u.ref = r.unit_ref" if postgres else unit_of_relation("r", based=True)  # (a write's: this schema's, ``UNIT_BASE``)
    sql = (f"SELECT r.ord, r.id, r.subject, r.predicate, r.object, {support}, "
           f"r.span_start, r.span_end, {QUOTE}, r.kind, r.doc_ord, r.unit_ref, u.start_, u.end_, {UNIT_TEXT} "
           f"FROM relations r JOIN units u ON {unit} WHERE r.ord >= ? ORDER BY r.ord")
    for o, rid, s, p, ob, src, doc, ver, rep, dig, a, b, quote_, kind, d, ref, us, ue, text in db.stream(sql, (start,)):
        yield o, d, anchor_leaf(rid, s, p, ob, src, doc, ver, rep or "", dig or "", a, b, quote_ or "", kind or "clause",
                                ref, us, ue, text)


SHARED_TREE = "tree:"  # a ``log_info`` key: ``tree:<class>`` = the class whose runs and tiles it reads (``_sharing``)


def _sharing(db: LogWriter, classes: list[str], info: dict[str, str], last: dict[str, tuple[int, int, int]],
             readers: dict[int, set[str]]) -> set[str]:
    """The classes whose log stays, after this write, the audit log leaf for leaf (a SQLite store keeps it once).

    A class whose log has been the audit log's so far (it shared it, or both are empty) and that may read every
    anchor this write appends to the audit log holds the same leaves in the same order: it keeps no
    runs or tiles of its own, ``log_info`` names the tree it reads (``SHARED_TREE``), and its checkpoint is the
    audit log's. A class that shared it and may not read something new gets, before anything is appended, a
    copy of the audit log's runs and tiles as they are (its tree until now), and goes on with its own. A
    PostgreSQL store shares nothing: row-level security shows each class its own rows only."""
    if AUDIT not in classes:
        return set()
    empty = (0, 0, 0)
    audit = last.get(AUDIT, empty)
    # (the documents of the relations this write gives leaves: a unit has none of its own, ``_anchors``)
    docs = {d for (d,) in db.rows("SELECT DISTINCT doc_ord FROM relations WHERE ord >= ? AND unit_idx IS NOT NULL", (audit[2],))}
    out: set[str] = set()
    for p in classes:
        if p == AUDIT:
            continue
        before = info.get(SHARED_TREE + p) == AUDIT or (last.get(p, empty) == audit and audit[0] == 0)
        if before and all(d is not None and _reads(p, readers.get(d)) for d in docs):
            out.add(p)
            if SHARED_TREE + p not in info:
                db.execute("INSERT INTO log_info (key, value) VALUES (?, ?)", (SHARED_TREE + p, AUDIT))
        elif info.get(SHARED_TREE + p) == AUDIT:  # (it parts from the audit log here: its tree until now, its own)
            for table, cols in _COLUMNS.items():
                rest = ", ".join(cols[1:])
                db.execute(f"INSERT INTO {table} (principal, {rest}) SELECT ?, {rest} FROM {table} WHERE principal = ?", (p, AUDIT))
            db.execute("DELETE FROM log_info WHERE key = ?", (SHARED_TREE + p,))
    return out


def append_log(db: LogWriter, *, postgres: bool = False) -> dict[str, int]:
    """Append this write's leaves to every viewer class's log and record its checkpoints (module docstring).

    Runs inside the compile's or update's transaction, after its rows are written (``identities`` holds this
    write's ``seq`` and classes), through ``db`` (``SQLiteLogWriter``, or the PostgreSQL writer's). Returns each
    class's tree size."""
    import uuid

    for stmt in log_create_statements(postgres):
        db.execute(stmt)
    info = {str(k): str(v) for k, v in db.rows("SELECT key, value FROM log_info")}
    if info.get("format", LOG_FORMAT) != LOG_FORMAT:  # (its tables are not this format's: appending would break its trees)
        raise StoreError(f"the store's log is of format {info['format']!r}, which this chainret does not append to "
                         f"(it writes {LOG_FORMAT!r}); " + recompile_advice())
    if "origin" not in info:
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
    shared = set() if postgres else _sharing(db, classes, info, last, readers)
    new: dict[str, list[tuple[str, int, bytes]]] = {p: [] for p in classes}
    marks = {p: last.get(p, (0, 0, 0))[2] for p in classes}
    for ordinal, doc, data in _anchors(db, min(marks.values(), default=0), postgres):
        h: bytes | None = None
        who = readers.get(doc) if doc is not None else None
        for p in classes:
            if ordinal >= marks[p] and p not in shared and _reads(p, who):
                h = h or leaf_hash(data)
                new[p].append(("r", ordinal, h))
                if len(new[p]) >= APPEND_BATCH:  # (a 1M-relation store's leaves are never all held at once)
                    sizes[p] = _append(db, p, sizes[p], new[p])
                    new[p] = []
    roots: dict[str, bytes] = {}
    for p in classes:  # (the audit class first: a class that shares its tree takes its size and root)
        if p in shared:
            sizes[p], root = sizes[AUDIT], roots[AUDIT]
        else:
            sizes[p] = _append(db, p, sizes[p], new[p])
            root = roots[p] = root_hash(_Nodes(db, p).get, sizes[p])
        db.execute("INSERT INTO log_checkpoints (seq, principal, size, root, unit_mark, relation_mark) VALUES (?, ?, ?, ?, ?, ?)",
                   (seq, p, sizes[p], root.hex(), n_units, n_rels))
    db.execute("INSERT INTO meta (key, value) VALUES ('log', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", (LOG_FORMAT,))
    return sizes


# -- reading ---------------------------------------------------------------------------------------------

class StoreLog:
    """A compiled store's log as a reader sees it: checkpoints per class, inclusion and consistency proofs.

    What it keeps, per store object (one per store object: ``store_log``): each proven class's tiles above the
    leaves' (about 1.5 kB per 1,024 leaves: 3 MB for a 2M-leaf class), the subtrees over them and at the right edge
    it hashed (a few per upper tile), and audit paths from a tile level up (their hashes one after another), at most
    ``ABOVE_KEPT`` of each of two kinds (``audit_paths``; about 0.5 kB each with its key: at most about 8 MB; at 1M
    relations those from two tile levels up and higher, made at once, are about 1 MB a class, and those from the
    leaves' tiles' parents are not kept once those tiles are). A leaf tile is not kept past its request."""

    def __init__(self, rows: Any, world: str, kind: str = "sqlite", packed: bool = True, based: bool = True,
                 ords: Mapping[str, int] | None = None) -> None:
        self._rows = rows  # ``Backend.rows``, or (SQLite) the connection's reads: the tiles are BLOBs (``store_log``)
        self.world = world
        # A SQLite file is never written in place (a write replaces it whole), so a store object reads one state of it:
        # the checkpoints are read once, and a proof's units, relations, runs and tiles are one statement. A
        # PostgreSQL store reads the units as the request and the log as the viewer's class: two statements.
        self._snapshot = kind == "sqlite"
        self._packed = packed  # (SQLite schema 10: a relation names its unit by its index, ``_anchors_sql``)
        self._based = based  # (SQLite schema 12: a unit is found by its version's ``unit_base``, ``schema.UNIT_BASE``)
        # The ordinals of the relations the store's reads returned (``SQLStore._known_ords``): a trace's hops followed
        # relations its ask read, so their rows are read by rowid, not looked up by ID in ``relations_id``
        self._ords: Mapping[str, int] = ords if ords is not None else {}
        self._heads: dict[str, tuple[int, bytes] | None] = {}
        self._roots: dict[bytes, str] = {}  # (``_root_text``)
        # Audit paths from a tile level up, per (class, size, level, ancestor) (``audit_paths``): from the first tile
        # level (one a leaf tile: many) and from those above (one a tile above the leaves': few), kept apart
        self._above: tuple[dict[tuple[str, int, int, int], bytes], ...] = ({}, {})
        self._origin_id = str(self._one(None, "SELECT value FROM log_info WHERE key = 'origin'") or "")
        self._origins: dict[str, str] = {}
        # A class whose log is the audit log leaf for leaf reads the audit log's runs and tiles (``_sharing``: SQLite).
        self._trees = {str(k)[len(SHARED_TREE):]: str(v) for k, v in self._read(None, "SELECT key, value FROM log_info WHERE key LIKE ?",
                                                                              (SHARED_TREE + "%",))}
        self._tiles: dict[tuple[str, int, int], Tile] = {}  # tiles above the leaves' (``_keep``)
        self._cache: dict[tuple[str, int, int], bytes] = {}  # subtrees of TILE_HEIGHT levels and more, once computed
        self._edges: dict[tuple[str, int, int], bytes] = {}
        self._statements: dict[tuple[int, int, bool, bool], str] = {}
        self._upper_read: set[str] = set()  # classes whose tiles above the leaves' are kept (``_read_upper``)
        self._asked: set[str] = set()  # classes proven for at least once  # ``_entries``' statement per count of units and relations

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
        found = self._origins.get(principal)
        if found is None:
            found = self._origins[principal] = f"chainret/{quote(self.world, safe='')}/{self._origin_id}/{class_label(principal)}"
        return found

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
        if principal in self._heads:
            return self._heads[principal]
        found = self._read(principal, "SELECT size, root FROM log_checkpoints WHERE principal = ? ORDER BY seq DESC LIMIT 1", (principal,))
        head = (cast(int, found[0][0]), bytes.fromhex(cast(str, found[0][1]))) if found else None
        if self._snapshot:
            self._heads[principal] = head
        return head

    def _tile_reader(self, principal: str, fetched: dict[tuple[int, int], Tile]) -> Callable[[int, int], Tile | None]:
        """One class's tiles: this request's (``fetched``: the leaves' own, read with their indexes, and any other
        tile read here), the whole upper tiles kept once read, else one read a tile. (Only whole tiles are kept past
        the request: the right edge's grows with the next write.)"""
        def tile(t_level: int, t_idx: int) -> Tile | None:
            hit = fetched.get((t_level, t_idx)) or self._tiles.get((principal, t_level, t_idx))
            if hit is None:
                found = self._read(principal, "SELECT hashes, above FROM log_tiles WHERE principal = ? AND level = ? AND idx = ?",
                                   (principal, t_level, t_idx))
                if not found:
                    return None
                hit = fetched[(t_level, t_idx)] = (bytes(found[0][0]), bytes(found[0][1]))
                self._keep(principal, t_level, t_idx, hit)
            return hit
        return tile

    def _keep(self, principal: str, t_level: int, t_idx: int, tile: Tile) -> None:
        """Keep a tile above the leaves' for later requests (a leaf tile is read with its leaf, every time): a whole
        one always; one at the tree's right edge only from a SQLite file, which a store object reads one state of
        (in PostgreSQL the next write grows it)."""
        if t_level and (self._snapshot or len(tile[0]) == TILE_WIDTH * HASH_SIZE):
            self._tiles[(principal, t_level, t_idx)] = tile

    def _read_upper(self, principal: str) -> None:
        """Keep every tile above the leaves' of one class, read in one statement the second time a store object
        proves for it. They are about one hash in a thousand of the tree (1,954 tiles, 3 MB, for 2M leaves), and at
        that size a leaf's tile one level up is seldom one an earlier proof read: read one at a time, they were most
        of a proof's statements (two of every three in the first 300 requests at 1M relations). Not the first time:
        a one-ask process (``chainret ask``) reads the few its proofs need, where the whole read cost it 10-60 ms.
        From them a leaf's path takes its parent tile's part by slicing (``audit_paths``)."""
        for level, idx, hashes, above in self._read(principal, "SELECT level, idx, hashes, above FROM log_tiles WHERE principal = ? "
                                                               "AND level > 0", (principal,)):
            self._keep(principal, cast(int, level), cast(int, idx), (bytes(hashes), bytes(above)))
        self._upper_read.add(principal)

    def _get(self, principal: str, tile: Callable[[int, int], Tile | None]) -> NodeGetter:
        """Perfect-subtree hashes of one class's tree, from its tiles (``_tile_reader``); those of TILE_HEIGHT levels
        and more kept once computed."""
        def get(level: int, idx: int) -> bytes:
            upper = level >= TILE_HEIGHT
            hit = self._cache.get((principal, level, idx)) if upper else None
            if hit is None:
                hit = tile_node(tile, level, idx)
                if hit is None:
                    raise LogError(f"the store's log for {class_label(principal)} lacks node {level}/{idx}")
                if upper:
                    self._cache[(principal, level, idx)] = hit
            return hit
        return get

    def consistency(self, principal: str, old: int, new: int) -> list[str]:
        sizes = {cast(int, s) for (s,) in self._read(principal, "SELECT size FROM log_checkpoints WHERE principal = ?", (principal,))}
        for n in (old, new):
            if n not in sizes:
                raise LogError(f"no checkpoint of {class_label(principal)} has size {n} (sizes: {sorted(sizes)})")
        tree = self._trees.get(principal, principal)
        return [b64(h) for h in consistency_proof(self._get(tree, self._tile_reader(tree, {})), old, new)]

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

    def _lookup(self, ord_sql: str) -> str:
        """Columns and joins that find, in PostgreSQL, the leaf of the item whose ordinal is ``ord_sql``: the run that
        would hold it (the class's last run of that kind starting at or before it) and the foot tile its leaf would be
        in. Parameters: the class, the kind, the class, the kind (and the ordinal twice where ``ord_sql`` is ``?``).

        The tile is a ``LATERAL`` sub-query (``LIMIT 1`` keeps the planner from flattening it; the key is
        unique anyway). ``log_tiles`` is under row-level security, and the planner may not evaluate, before the policy,
        a join condition that applies a function that is not leakproof (``+``, ``-`` and ``/`` may raise an error) to
        another table's columns: in the join's ``ON``, ``t.idx = (r.idx + ...) / w`` was a join filter over every leaf
        tile of the class, a whole index range read per item, growing with the store (at 100k relations three quarters
        of a warm ask's server CPU). Inside the sub-query ``r``'s columns are parameters, and the condition is part of
        the index scan's key (``tests/test_store_postgres_proof_plan.py``)."""
        tile = f"(r.idx + {ord_sql} - r.item_ord) / {TILE_WIDTH}"
        tiles = (f"LEFT JOIN LATERAL (SELECT hashes, above FROM log_tiles WHERE principal = r.principal AND level = 0 AND idx = {tile} "
                 "LIMIT 1) t ON true")
        return ("r.item_ord, r.idx, r.length, t.hashes, t.above FROM "
                f"{{items}} LEFT JOIN log_runs r ON r.principal = ? AND r.kind = ? AND r.item_ord = (SELECT item_ord FROM "
                f"log_runs WHERE principal = ? AND kind = ? AND item_ord <= {ord_sql} ORDER BY item_ord DESC LIMIT 1) " + tiles)

    def _entries_sql(self, units: int, relations: int, stated: bool = False, by_ord: bool = False) -> str:
        """``_entries``' statement for so many units and relations (kept per count: the same text every time)."""
        if self._snapshot:
            return self._anchors_sql(relations, self._packed, stated, self._based, by_ord)
        parts = []
        for kind, count, cols, table, key in (("u", units, ("start_", "end_", "text"), "units", "ref"),
                                              ("r", relations, ("subject", "predicate", "object"), "relations", "id")):
            if count:
                listed = f"{key} IN ({', '.join('?' for _ in range(count))})"
                own = [unit_text(table) if c == "text" else c for c in cols]
                values = ", ".join((*own, "NULL", "NULL") if kind == "u" else ("NULL", "NULL", *own))
                parts.append(f"SELECT '{kind}', {key}, ord, {values} FROM {table} WHERE {listed}")
        return " UNION ALL ".join(parts)

    @staticmethod
    def _anchors_sql(relations: int, packed: bool = True, stated: bool = False, based: bool = True, by_ord: bool = False) -> str:
        """SQLite's one statement for a proof's relations (parameters: the class, then their ids): each relation with its
        unit (the one its anchor leaf commits to: by its version's ordinal and index, ``schema.RELATION_ROWS``), its leaf
        index from the one run of the class that would hold it (its last run starting at or before the relation: one
        probe, the length checked in the same row), and that leaf's foot tile. The relations with their leaves are a
        sub-query ``LIMIT -1`` keeps from being flattened into the tile's join, which would probe the runs a second time
        for the tile's index: about a tenth less of the statement at 1M relations. (Format 2 read the units by their refs
        in a part of their own, each with its own leaf: a unit's lookup, run and tile more an anchor.) A store of an
        earlier schema that keeps relations whole (not ``packed``: schema 9 and before, still read) names the unit by
        its ref, whose index follows ``#u`` (``chainret.catalog.clause.unit_ref``).

        ``stated``: the trace's hops state each relation's subject, predicate and object and its anchor names the unit
        (``proofs``), so a ``packed`` store's statement reads ``relation_rows`` itself, not the view, which would make
        them again from the entities', the predicate's and the version's rows (four lookups a relation: a fifth of the
        statement at 1M relations). A hop that states another relation than the store holds gets a leaf that is not
        in the log, and the verifier fails it as before. Its unit's version's ``document_meta`` and ``documents`` rows
        are joined, once a statement, where sub-queries ran once a row (some 4 and 7 us a relation at 1M relations).

        ``by_ord``: the parameters are the relations' ordinals (``proofs``: every relation the trace names was read by
        its ask), each row read by its rowid; else their ids, each looked up in ``relations_id`` first."""
        if stated and packed:
            meta = "LEFT JOIN document_meta m ON m.ord = i.doc_ord " if based else ""
            return ("SELECT 'r', x.id, x.ord, x.start_, x.end_, NULL, NULL, NULL, x.leaf, t.hashes, t.above, NULL, x.text FROM "
                    f"(SELECT i.ord, i.id, u.start_, u.end_, {unit_text('u', joined='d')} AS text, {StoreLog._leaf_sql()} AS leaf "
                    f"FROM {RELATION_ROWS} i {meta}LEFT JOIN units u ON {unit_of_relation('i', based, meta='m' if based else None)} "
                    "LEFT JOIN documents d ON d.ord = u.doc_ord "
                    f"WHERE i.{'ord' if by_ord else 'id'} IN ({', '.join(f'?{k}' for k in range(2, 2 + relations))}) LIMIT -1) x "
                    f"LEFT JOIN log_tiles t ON t.principal = ?1 AND t.level = 0 AND t.idx = x.leaf / {TILE_WIDTH}")
        index = "i.unit_idx" if packed else "CAST(substr(i.unit_ref, instr(i.unit_ref, '#u') + 2) AS INTEGER)"
        listed = ", ".join(f"?{k}" for k in range(2, 2 + relations))
        leaf = StoreLog._leaf_sql()
        return ("SELECT 'r', x.id, x.ord, x.start_, x.end_, x.subject, x.predicate, x.object, x.leaf, t.hashes, t.above, "
                "x.unit_ref, x.text FROM (SELECT i.ord, i.id, i.subject, i.predicate, i.object, i.unit_ref, u.start_, u.end_, "
                f"{unit_text('u')} AS text, {leaf} AS leaf FROM relations i LEFT JOIN units u ON {unit_of_relation('i', based, index=index)} "
                f"WHERE i.id IN ({listed}) LIMIT -1) x "
                f"LEFT JOIN log_tiles t ON t.principal = ?1 AND t.level = 0 AND t.idx = x.leaf / {TILE_WIDTH}")

    @staticmethod
    def _leaf_sql() -> str:
        """The leaf index of relation ``i`` in the log of class ``?1``, from the one run that would hold it."""
        return ("(SELECT CASE WHEN i.ord < r.item_ord + r.length THEN r.idx + i.ord - r.item_ord END FROM log_runs r WHERE "
                "r.principal = ?1 AND r.kind = 'r' AND r.item_ord <= i.ord ORDER BY r.item_ord DESC LIMIT 1)")

    def _entries(self, principal: str, size: int, units: list[str], relations: list[str], scope: tuple[str | None, str | None],
                 fetched: dict[tuple[int, int], Tile], stated: Mapping[str, tuple[str, str, str, str]] | None = None,
                 ) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
        """(units by ref, relations by id) among the given: a unit with its ``span`` and ``text``, a relation that the
        class's tree of ``size`` leaves holds with its subject, predicate, object and leaf ``index`` (the anchor leaf of
        the relation and its unit, ``anchor_leaf``); the tiles of their leaves go into ``fetched``.

        The units and relations are read as the request read them (``scope``: its view and principal, which a
        PostgreSQL store's policies on unit text need), each relation with its leaf in the class's log (from the run
        that holds it) and that leaf's tile: in SQLite one statement, which reads each relation's unit with it
        (``_anchors_sql``); in PostgreSQL, where the class's log rows are its own role's, the units and relations first
        and then, in a second statement, the relations' runs and tiles (``_lookup``). ``stated``: each relation's
        subject, predicate, object and unit ref as the trace's hops and anchors give them, where they give them all
        (``_anchors_sql``; SQLite)."""
        found: tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]] = ({}, {})
        if not units and not relations:
            return found
        lean = stated is not None and self._snapshot and self._packed
        ords = [self._ords.get(r) for r in relations] if lean else [None]
        by_ord = None not in ords
        counts = (0 if self._snapshot else len(units), len(relations), lean, by_ord)
        statement = self._statements.get(counts)
        if statement is None:
            statement = self._statements[counts] = self._entries_sql(*counts)
        view, asker = scope
        if self._snapshot:
            rows = self._rows(statement, [principal, *(ords if by_ord else relations)]) if relations else []
        else:
            items = self._rows(statement, [*units, *relations], *((view, asker) if view is not None or asker is not None else ()))
            proven = [n for n, item in enumerate(items) if item[0] == "r"]  # (a unit has no leaf of its own)
            runs = " UNION ALL ".join(f"SELECT {n}, " + self._lookup("?").format(items="(SELECT 1) AS one") for n in proven)
            looked: dict[int, tuple[Any, ...]] = {}
            if proven:
                for n, *rest in self._read(principal, runs, [v for m in proven for v in (principal, "r", principal, "r", items[m][2], items[m][2])]):
                    looked[n] = tuple(rest)
            rows = []
            for n, item in enumerate(items):
                first, idx, length, hashes, inner = looked.get(n, (None,) * 5)
                if bytes in map(type, (item[2], first, idx, length)):
                    raise _edited()
                rows.append((*item, None if first is None or item[2] >= first + length else idx + item[2] - first, hashes, inner))
        wanted = set(units)
        for row in rows:
            # (``store_log``: past the store's guard. In SQLite a log run's values are the statement's arithmetic, where a
            # BLOB would read as a number: a wrong leaf, whose proof then fails to verify.)
            if bytes in map(type, row[1:9]):
                raise _edited()
            kind, key, _, start, end, a, b, c, index, hashes, inner, *unit = row
            if lean:
                assert stated is not None
                said = stated.get(key)
                if said is None:  # (a row of another relation than asked: an ordinal that was not this one's)
                    continue
                a, b, c, unit[0] = said
            if kind == "u" or (unit and unit[0] in wanted):  # (SQLite: the relation's unit, read with it)
                ref, text = (str(key), a) if kind == "u" else (str(unit[0]), unit[1])
                found[0][ref] = {"span": [start, end], "text": text}
            if kind == "u" or index is None or index >= size:
                continue  # (a unit; or a relation not in this class's log at this size)
            if hashes is not None:
                fetched[(0, index >> TILE_HEIGHT)] = (bytes(hashes), bytes(inner))
            found[1][str(key)] = {"index": index, "subject": a, "predicate": b, "object": c}
        return found

    def audit_paths(self, principal: str, size: int, indexes: Iterable[int],
                    fetched: dict[tuple[int, int], Tile] | None = None) -> dict[int, str]:
        """RFC 9162 PATH(index, D[0:size]) of each leaf in ``indexes``, its hashes one after another in one base64 string
        (docs/proof.md), from the tiles of the tree ``principal`` reads (``fetched``: tiles this request already read,
        its leaves' own among them).

        A leaf's tile, when whole, gives the first TILE_HEIGHT hashes of its path (``foot_hashes``: one hash); so does
        every whole tile above it, which the reader keeps once read; the levels over the last whole tile (the
        tree's right edge) come from ``audit_path`` and are kept once computed. The path above a tile level is the
        same for every leaf under the ancestor it starts from, so it is kept per ancestor (``ABOVE_KEPT`` of
        them each): a leaf's path is its own tile's five hashes, its tile's parent's five and the kept path above that.
        In a tree too large for every such part to be kept (more than ``ABOVE_KEPT // 2`` leaf tiles), the parent's
        five are sliced from that tile once it is kept and the part is not kept: at 1M relations a request's leaves'
        parents are seldom an earlier request's (kept as they were met, the map was emptied every few hundred requests).
        Those from the tiles two levels up and higher are made when the upper tiles are read (``_read_upper``),
        where they are few enough (at 1M relations about 2,000 a class): at that size a request's leaves seldom share
        one that an earlier request made, and making them as they were met was a fifth of a proof's time over the
        first hundreds of requests.
        One string a path, encoded once (docs/proof.md; the verifiers read the list that earlier traces carry too): a
        list of base64 hashes took a ``b2a_base64`` call and a string a hash, 15-21 a leaf, and kept its parts as
        lists of strings (``benchmarks/proof_cost.py --against`` times the two). Under a whole tile its own five come
        from ``leaf_foot_hashes`` and its parent's from ``foot_hashes`` (written out here once, they were the same rule
        twice; with ``chainret.core.tlog``'s hashes of a copied prefix state the calls cost less than those hashes did)."""
        fetched = {} if fetched is None else fetched
        if principal not in self._upper_read:
            if principal in self._asked:  # (a process that asks again: see ``_read_upper``)
                self._read_upper(principal)
                self._make_upper_paths(principal, size, fetched)
            self._asked.add(principal)
        out: dict[int, str] = {}
        tiles, firsts, uppers, span = self._tiles, self._above[0], self._above[1], 2 * TILE_HEIGHT
        small = (size >> TILE_HEIGHT) <= ABOVE_KEPT // 2  # (every leaf tile's part above it fits in half the map)
        for index in indexes:
            t_idx = index >> TILE_HEIGHT
            parent = None if small else tiles.get((principal, 1, index >> span)) if ((index >> span) + 1) << span <= size else None
            if parent is None:
                above = firsts.get((principal, size, TILE_HEIGHT, t_idx))
                if above is None:
                    above = self._path_above(principal, size, index, TILE_HEIGHT, fetched)
            else:  # (a large tree's: its leaf tile's parent's five, sliced from that tile, not kept: most are met once)
                above = uppers.get((principal, size, span, index >> span))
                if above is None:
                    above = self._path_above(principal, size, index, span, fetched)
                above = foot_hashes(parent, t_idx & (TILE_WIDTH - 1)) + above
            foot = None
            if (index | (TILE_WIDTH - 1)) < size:
                foot = fetched.get((0, t_idx)) or self._tile_reader(principal, fetched)(0, t_idx)
            if foot is None or len(foot[0]) != WHOLE_TILE:  # (the leaf's tile not whole: the tree's right edge)
                path = self._hashed_path(principal, size, index, 0, TILE_HEIGHT, fetched) + above
            else:
                path = leaf_foot_hashes(foot, index & (TILE_WIDTH - 1)) + above
            out[index] = b2a_base64(path, newline=False).decode("ascii")
        return out

    def _path_above(self, principal: str, size: int, index: int, level: int, fetched: dict[tuple[int, int], Tile]) -> bytes:
        """The audit path of leaf ``index`` from ``level`` (a tile level's foot) up: a whole tile's TILE_HEIGHT hashes
        (as the leaf's own tile gives them, ``foot_hashes``) and the path above it, or over the last whole tile the
        right edge's. Kept per ancestor (``ABOVE_KEPT`` of each kind); those from a tile above the first level are
        all made the first time their tile is read: the tile's 32 ancestors' for one more hash each."""
        key = (principal, size, level, index >> level)
        kept = self._above[level > TILE_HEIGHT]
        part = kept.get(key)
        if part is not None:
            return part
        span = level + TILE_HEIGHT
        if len(kept) + TILE_WIDTH > ABOVE_KEPT:
            kept.clear()
        if ((index >> span) + 1) << span > size:  # (its tile not whole: the right edge above it)
            part = kept[key] = self._hashed_path(principal, size, index, level, 64, fetched)
            return part
        t_level, t_idx = level // TILE_HEIGHT, index >> span
        found = self._tiles.get((principal, t_level, t_idx)) or self._tile_reader(principal, fetched)(t_level, t_idx)
        if found is None or len(found[0]) != WHOLE_TILE:
            raise LogError(f"the store's log for {class_label(principal)} lacks a tile at level {level}")
        rest = self._path_above(principal, size, index, span, fetched)
        if level == TILE_HEIGHT:  # (one a leaf tile: its own)
            part = kept[key] = foot_hashes(found, (index >> level) & (TILE_WIDTH - 1)) + rest
            return part
        first = t_idx << TILE_HEIGHT  # (one a tile above: few, so the tile's every one at once, sharing the rest)
        for pos in range(TILE_WIDTH):
            kept[(principal, size, level, first + pos)] = foot_hashes(found, pos) + rest
        return kept[key]

    def _make_upper_paths(self, principal: str, size: int, fetched: dict[tuple[int, int], Tile]) -> None:
        """The paths from every whole tile two levels up and higher of one class (``audit_paths``), where they fit in
        half of ``ABOVE_KEPT`` (at 1M relations about 2,000 a class): made once, as its upper tiles are read."""
        uppers = [(t_level, t_idx) for (p, t_level, t_idx), (hashes, _) in self._tiles.items()
                  if p == principal and t_level >= 2 and len(hashes) == WHOLE_TILE]
        if len(uppers) * TILE_WIDTH <= ABOVE_KEPT // 2:
            for t_level, t_idx in uppers:  # (``_path_above`` makes a whole tile's 32 at once: one call a tile)
                if ((t_idx + 1) << (TILE_HEIGHT * (t_level + 1))) <= size:
                    self._path_above(principal, size, t_idx << (TILE_HEIGHT * (t_level + 1)), TILE_HEIGHT * t_level, fetched)

    def _hashed_path(self, principal: str, size: int, index: int, start: int, stop: int,
                     fetched: dict[tuple[int, int], Tile]) -> bytes:
        """The audit path of leaf ``index`` from level ``start`` up to ``stop`` hash by hash (``audit_path``), where
        its tiles are not whole (the tree's right edge); the subtrees over the leaves' tiles and the right edge's
        hashes are kept once computed (``_get``, ``_edge``)."""
        get = self._get(principal, self._tile_reader(principal, fetched))
        edge = self._edge(principal, size, get)
        return b"".join([edge(idx) if level < 0 else get(level, idx) for level, idx in audit_path(index, size, start, stop)])

    def proofs(self, trace: Trace, principal: str, scope: tuple[str | None, str | None] = (None, None)) -> dict[str, Any] | None:
        """``meta.log`` of a trace for a viewer of class ``principal``: the checkpoint, and for each anchor its unit's
        and relation's leaf index and inclusion proof, with the unit's span and text (docs/proof.md). An anchor whose
        unit or relation is not in that class's log gets no entry (the offline verifier then fails it). ``scope``:
        the (view, principal) the trace was read in (``_entries``).

        Three reads whatever the number of anchors (the checkpoint; the units and relations; their leaf indexes with
        the leaves' tiles), and one a tile above those the first time a store object needs it."""
        head = self.latest(principal)
        if head is None:
            return None
        size, root = head
        origin = self.origin(principal)
        principal = self._trees.get(principal, principal)  # the runs and tiles it reads (a SQLite store's shared tree)
        anchors = [h.anchor for h in trace.hops if h.anchor is not None]
        fetched: dict[tuple[int, int], Tile] = {}
        stated: dict[str, tuple[str, str, str, str]] = {}
        for h in trace.hops:  # (what each hop states of its relation: ``_anchors_sql``)
            if h.anchor is not None and h.from_id is not None and h.predicate is not None and h.bridge is not None:
                stated.setdefault(h.anchor.relation_id, (h.from_id, h.predicate, h.bridge, h.anchor.unit_ref))
        named = sorted({a.relation_id for a in anchors})
        units, relations = self._entries(principal, size, sorted({a.unit_ref for a in anchors}), named,
                                         scope, fetched, stated if len(stated) == len(named) else None)
        # (a unit is shown only beside an anchor of this class's log, whose leaf commits to it: as the request read it,
        # and never one the class's log does not hold)
        shown = {a.unit_ref for a in anchors if a.relation_id in relations}
        paths = self.audit_paths(principal, size, [e["index"] for e in relations.values()], fetched)
        for e in relations.values():
            e["proof"] = paths[e["index"]]
        return {"format": ANCHOR_FORMAT, "origin": origin, "size": size, "root": self._root_text(root),
                "units": {ref: units[ref] for ref in sorted(units) if ref in shown},
                "relations": {rid: relations[rid] for rid in sorted(relations)}}

    def _root_text(self, root: bytes) -> str:
        """A checkpoint's root in base64, as traces carry it (encoded once a root)."""
        text = self._roots.get(root)
        if text is None:
            if len(self._roots) > 64:
                self._roots.clear()
            text = self._roots[root] = b64(root)
        return text


def _edited() -> StoreError:
    return StoreError("a unit, relation or log run read for a trace's proofs holds a BLOB, which no compile writes "
                      "(the store was edited); " + recompile_advice())


_LOGS: weakref.WeakKeyDictionary[object, StoreLog] = weakref.WeakKeyDictionary()


def store_log(reader: object) -> StoreLog | None:
    """The log of a compiled store (SQLite or PostgreSQL) that has one (None for any other reader), read once per
    store object."""
    sql = sys.modules.get("chainret.store.sql")  # a compiled store's reader loaded it; an ask of a catalog file never does
    if sql is None or not isinstance(reader, sql.SQLStore) or reader._meta.get("log") != LOG_FORMAT:  # (``append_log``'s row)
        return None
    cached = _LOGS.get(reader)
    if cached is None:  # one per store object: a store object reads one snapshot
        rows = reader.db.rows
        if reader.kind == "sqlite":  # (``SQLiteBackend.rows`` refuses BLOBs, which only the log's tiles hold: read here)
            backend = reader.db

            def rows(sql: str, params: Sequence[object] = (), *scope: object) -> list[Any]:
                return cast("list[Any]", backend.conn.execute(sql, tuple(params)).fetchall())
        cached = _LOGS[reader] = StoreLog(rows, reader.world, reader.kind, reader.packed_relations, reader.based_units,
                                          reader._known_ords)
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
