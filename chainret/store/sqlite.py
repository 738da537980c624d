"""The embedded store: one SQLite file (stdlib ``sqlite3``), compiled once, opened read-only per process.

A store file is written once and never changed after it is in place: a compile writes a new file
and renames it over the old one, and an update writes its rows into a copy of the store and renames
that (the copy is the kernel's: 1.4 s for the 1.4 GB of a 1M-relation store here). Every write
(compile, ``--replace``, ``--update``) holds an exclusive lock on a sidecar file ``.NAME.lock``
beside the store for its whole duration (``fcntl.flock``; a second writer waits up to
``LOCK_WAIT_S`` and is then refused), so an update and a replace never interleave and a command
that prints success has its rows in the store that is there afterwards. The writer removes the lock
file when it ends (``write_lock``), and removes its temporary copy and journal when it fails; what a
killed writer left, the next writer of that store removes. A full disk is reported as such (the store
in place is unchanged). File names reach SQLite as escaped URIs (``#``, ``?``, ``%``, spaces and
non-ASCII names are plain file names).

Because the file under a path's inode never changes, readers open it ``immutable`` (SQLite takes no
file lock and checks for no journal): an ask makes at most one system call for it, an ``fstat`` at most every
10 ms (a locking read transaction made seven per ask: four ``fcntl``, three ``stat``), every statement of an ask (of every
ask on that object) reads the same state by construction, and a writer never waits for a reader nor a
reader for a writer. A file that a journal or WAL file lies beside was written in place by something
else (an interrupted in-place write, a hand edit): opening it is refused, since an immutable reader
would not see what the journal holds; and a file written in place after a reader opened it is
refused at that reader's next request (``SQLiteBackend.read_scope``).

Reading is one connection per thread (``threading.local``), each opened read-only on first use, so
a server may run several engine calls at once (SQLite releases the GIL while it searches). Every
connection must read the same file: a store replaced after it was opened (a compile or an update
renames a new file into place) is detected when a thread opens its connection (the path's inode
is no longer the one the store was opened on) and refused with ``StoreChanged``, so an object never
mixes rows of two files; the server then answers from the reopened store.

A reading connection maps the file into memory (``READ_PRAGMAS``: ``mmap_size``, SQLite's own cap of
2 GiB): a page of a large store is then read where it lies in the page cache instead of copied by a
``pread`` system call (issue 24: a warm ask at 1M relations spent about half its system time in
those calls). The map is read-only (the connection is ``mode=ro``), so a stray write cannot
reach the file; the files are replaced by renaming, never written in place.

SQLite has no roles, so it cannot enforce who reads what: anyone who can read the file can read
every document in it. The store's queries filter on the request's view and principal themselves
(the same conditions PostgreSQL's row-level-security policies state); use PostgreSQL where the
database has to enforce permissions.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from chainret.catalog.models import Catalog
from chainret.core.errors import UsageError
from chainret.store.base import READABLE_SCHEMAS, SCHEMA_VERSION, STORE_FORMAT, StoreChanged, StoreError, recompile_advice, wait_for_lock
from chainret.store.hubindex import write_hub_index
from chainret.store.log import SQLiteLogWriter, append_log
from chainret.store.paircensus import write_pair_counts
from chainret.store.namewords import TABLE as NAME_WORDS
from chainret.store.schema import (
    ROW_TABLES, SQLITE_TABLES, TABLES, Row, SQLValue, as_int, as_str, create_statements, entity_row_coded, index_statements, text_pairs,
    unit_row_lean,
)
from chainret.store.sql import Backend, SQLStore

if TYPE_CHECKING:
    from chainret.store.compile import CompileSource
# The writers' modules (``chainret.store.compile``, ``shutil``, ``tempfile``, ``fcntl``) load with the first write, not
# with every reader: a cold ``chainret ask`` of a store imported them for nothing (about 5 ms, issue 47).


#: A compiled store's page (issue 47: a store's size): a log tile (about 1.5 kB) and a document's text fill 16 kB pages
#: better than 8 kB ones (a tenth of the log's pages was left empty at 8 kB), and B-tree rows of every table need fewer
#: interior pages. Set when a compile creates the file; an update's copy keeps its store's.
PAGE_SIZE = 16_384
READ_PRAGMAS = ("PRAGMA mmap_size = 2147418112",)  # what every reading connection runs once (module docstring)
# How often a reader looks at its file for an in-place write (``SQLiteBackend.read_scope``): at most once per this
# many seconds, at the start of an ask. The ``fstat`` cost about 5 µs of a warm ask at 1M relations (2.5%),
# more than a system call's own time: the kernel's entry and exit leave the caches colder for the ask.
WRITE_CHECK_S = 0.01
_NO_SCOPE = contextlib.nullcontext()  # (reusable: it holds nothing)


def store_uri(path: Path, *, write: bool = False) -> str:
    """The URI a connection opens: a reader's is read-only and immutable (module docstring: no file locks, no
    journal checks), a writer's read-write (only ever on a file not yet in place)."""
    return f"file:{quote(path.resolve().as_posix(), safe='/')}?mode={'rw' if write else 'ro&immutable=1'}"


class SQLiteBackend(Backend):
    """Connections to one SQLite file: one per thread for reading (see the module docstring), one for writing."""

    def __init__(self, path: Path, *, write: bool = False) -> None:
        self.path = path
        self.location = str(path.resolve())
        self.write = write
        self._uri = store_uri(path, write=write)
        if not write:
            for suffix in ("-journal", "-wal"):
                if Path(f"{path}{suffix}").exists():
                    raise StoreError(f"{path}{suffix} lies beside the store: something wrote {path} in place (a store is "
                                     f"written once, then replaced whole); " + recompile_advice(path))
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[sqlite3.Connection] = []  # every connection opened, closed by ``close``
        self._closed = False
        first = self._open()
        self._inode = self._identity()  # the file every later connection must also be reading
        # A reader holds the file open itself too, to see from its size and mtime that nothing wrote it in place
        # (``read_scope``): ``fstat`` on a descriptor, not ``stat`` on the path, which cost 10 µs of a warm ask.
        self._watch: int | None = None
        self._written: tuple[int, int] = (0, 0)
        if not write:
            try:
                fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
                st = os.fstat(fd)
            except OSError as exc:
                first.close()
                raise StoreError(f"cannot open {path}: {exc.strerror}") from None
            if (st.st_dev, st.st_ino) != self._inode:
                os.close(fd)
                first.close()
                raise StoreChanged(f"{path} was replaced while it was being opened")
            self._watch, self._written = fd, (st.st_size, st.st_mtime_ns)
        self._checked_at = time.monotonic()
        self._spare: sqlite3.Connection | None = first  # adopted by the first thread that reads
        self._type_codes: dict[str, int] | None = None  # a write's entity type codes (``_type_code``), read once

    def _open(self) -> sqlite3.Connection:
        try:
            # check_same_thread off: a connection is used only by its own thread (``_local``), but the
            # first one may be adopted by another thread, and ``close`` closes them all from one thread.
            conn = sqlite3.connect(self._uri, uri=True, isolation_level=None, check_same_thread=False)
            if not self.write:
                for pragma in READ_PRAGMAS:
                    conn.execute(pragma).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open {self.path}: {exc}") from None
        with self._lock:
            self._all.append(conn)
        return conn

    def _identity(self) -> tuple[int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return (st.st_dev, st.st_ino)

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's connection (opened on first use, on the same file as the first one)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        with self._lock:
            if self._closed:
                raise StoreError(f"the store {self.path} is closed")
            conn, self._spare = self._spare, None
        if conn is None:
            conn = self._open()
            # Checked after the open: if the path still names the first file now, the open read it.
            if self._identity() != self._inode:
                with self._lock:
                    if conn in self._all:
                        self._all.remove(conn)
                conn.close()
                raise StoreChanged(f"{self.path} was replaced after this store was opened")
        self._local.conn = conn
        return conn

    def rows(self, sql: str, params: Sequence[object] = (), view: str | None = None, principal: str | None = None) -> list[Row]:
        found: list[Row] = self.conn.execute(sql, tuple(params)).fetchall()
        for row in found:  # (a few rows per warm ask: the type of each value looked at in C, about 0.1 µs a row)
            if bytes in map(type, row):
                raise self._blob(sql, row)
        return found

    def _blob(self, sql: str, row: Row) -> StoreError:
        """A BLOB read from the store: no compile writes one (every column is text or an integer), so the file was
        edited; refused here, naming the file and the table, before the value reaches the engine as bytes."""
        column = next(i for i, v in enumerate(row) if isinstance(v, bytes))
        tables = ", ".join(dict.fromkeys(re.findall(r"\b(?:FROM|JOIN) (\w+)", sql))) or "the store"
        return StoreError(f"{self.path}: column {column + 1} of a row read from {tables} holds a BLOB, which no compile "
                          f"writes (the file was edited); " + recompile_advice(self.path))

    def read_scope(self, principal: str | None = None) -> AbstractContextManager[object]:
        """Nothing to open: the file a reader reads never changes (module docstring), so every statement of a
        request reads one state without a transaction; a writing connection keeps its own transactions.

        One check instead, an ``fstat`` at most every ``WRITE_CHECK_S`` (10 ms): that the file was not written in
        place since it was opened (a ``cp`` over the store, a hand edit). An immutable reader would read such a file as
        garbage, or fault on a page a shorter file no longer has; SQLite's own check, with locking, was the same one per
        request. The first ask that starts 10 ms or more after such a write raises; an ask during the write, or within
        those 10 ms, is not protected (no check at an ask's start can protect one that runs while the file changes).
        A file renamed over the path (a compile or an update) is fine: this object keeps reading its own.
        """
        fd = self._watch
        if fd is not None:
            now = time.monotonic()  # (a clock read without a system call)
            if now - self._checked_at >= WRITE_CHECK_S:
                st = os.fstat(fd)
                if (st.st_size, st.st_mtime_ns) != self._written:
                    raise StoreError(f"{self.path} was written in place after it was opened (a store is replaced whole, never "
                                     f"written in place); open it again, or " + recompile_advice(self.path))
                self._checked_at = now
        return _NO_SCOPE

    # Writer interface (compile / update)
    derives_evidence = True  # a relation's row leaves out what its document version holds (``chainret.store.schema``)
    keeps_name_words = True  # ``chainret.store.namewords``
    packs_relations = True  # its relations are ``relation_rows`` (``chainret.store.schema.RELATION_ROWS``)
    packs_names = True  # its label rows keep no normalised label (``chainret.store.schema.SQLITE_NAMES``)
    keys_terms = True  # a posting keeps an entity's ID as its ordinal (``chainret.store.schema.TERM_KEY``)
    lean_postings = True  # a posting keeps no unit columns (``chainret.store.schema.LEAN_POSTINGS``)
    bases_units = True  # a unit is found by its version's ``unit_base``, no ``units_doc`` (``chainret.store.schema.UNIT_BASE``)

    def execute(self, sql: str, params: Sequence[SQLValue] = ()) -> None:
        self.conn.execute(sql, tuple(params))

    codes_words = True  # a posting keeps a word that is no ID as its code (``chainret.store.schema.WORD_CODES``)
    row_tables = ROW_TABLES  # tables read through a view, and the tables that hold their rows (schema 13)

    def insert(self, table: str, rows: Iterable[Sequence[SQLValue]]) -> None:
        if table == "entities":  # (schema 13: a type by its code, ``chainret.store.schema.ENTITY_ROWS``)
            rows = [entity_row_coded(r, self._type_code) for r in rows]
        elif table == "units":  # (schema 13: no unit ref or text, ``chainret.store.schema.UNIT_ROWS``)
            rows = map(unit_row_lean, rows)
        table = ROW_TABLES.get(table, table)
        cols = SQLITE_TABLES.get(table) or TABLES[table]
        self.conn.executemany(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})", rows)

    def _type_code(self, type_: str) -> int:
        """The code of entity type ``type_`` in ``entity_types``, a new one written where it has none yet."""
        codes = self._type_codes
        if codes is None:
            codes = self._type_codes = {as_str(n): as_int(c) for c, n in self.conn.execute("SELECT code, name FROM entity_types")}
        code = codes.get(type_)
        if code is None:
            code = codes[type_] = len(codes)
            self.conn.execute("INSERT INTO entity_types (code, name) VALUES (?, ?)", (code, type_))
        return code

    def close(self) -> None:
        """Close every thread's connection (call it when no thread is reading: ``LiveCatalog`` waits for that)."""
        with self._lock:
            self._closed, conns, self._all, self._spare = True, self._all, [], None
            fd, self._watch = self._watch, None
        for conn in conns:
            conn.close()
        if fd is not None:
            os.close(fd)


LOCK_WAIT_S = 30.0


def lock_path(out: Path) -> Path:
    return out.parent / f".{out.name}.lock"


def _take_lock_file(path: Path) -> int | None:
    """An open descriptor holding ``flock`` on the lock file at ``path``, or None while another writer holds it.

    The holder removes the file when it ends (``write_lock``), so a waiter may have opened a file that is no longer
    at the path: it then holds a lock nobody else will look at, and opens the path again. The lock is held only
    when the descriptor's inode is the one the path names after ``flock`` returned: at any moment, only the writer
    holding the path's file, which alone removes it, can take that away.
    """
    import fcntl

    for _ in range(100):  # each pass: a holder removed the file between our open and our flock
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise StoreError(f"cannot create the write lock {path}: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        try:
            at_path = os.stat(path)
        except FileNotFoundError:
            at_path = None
        mine = os.fstat(fd)
        if at_path is not None and (at_path.st_dev, at_path.st_ino) == (mine.st_dev, mine.st_ino):
            return fd
        os.close(fd)
    return None


@contextlib.contextmanager
def write_lock(out: Path, wait_s: float | None = None) -> Iterator[None]:
    """Hold the store's exclusive write lock; a ``StoreError`` when another writer keeps it past ``wait_s``.

    The lock file (``.NAME.lock``) lives only while a writer holds it: the writer removes it, still holding
    it, when it ends, so nothing is left beside the store (a killed writer's file is removed by the next
    writer). Hand-written because ``fcntl.flock`` keeps no file away by itself, and a file removed by one
    writer while another waits on it is safe only with the re-check of ``_take_lock_file``.
    """
    wait = LOCK_WAIT_S if wait_s is None else wait_s
    out.parent.mkdir(parents=True, exist_ok=True)
    path = lock_path(out)
    held: list[int] = []

    def try_lock() -> bool:
        fd = _take_lock_file(path)
        if fd is not None:
            held.append(fd)
        return fd is not None

    wait_for_lock(try_lock, wait, f"{out} (lock {path.name} held)")
    try:
        _remove_leftovers(out)
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink()  # first, while it is held: a waiter that opened it sees another inode (or none) and retries
        os.close(held[0])  # closing the descriptor releases the lock


def _leftovers(out: Path) -> list[Path]:
    """The temporary files a writer of ``out`` makes (``_new_file_for``'s copy and SQLite's journal of it)."""
    pattern = re.compile(rf"\.{re.escape(out.name)}\.[a-z0-9_]{{8}}\.tmp(?:-journal|-wal|-shm)?")
    try:
        return [p for p in out.parent.iterdir() if pattern.fullmatch(p.name)]
    except OSError:
        return []


def _remove_leftovers(out: Path) -> None:
    """Remove what a killed writer of ``out`` left (its copy of the store and the copy's journal).

    Called under the write lock, so no other writer of ``out`` is using them; each writer removes its own files
    when it fails, but a writer killed outright cannot.
    """
    for p in _leftovers(out):
        with contextlib.suppress(OSError):
            p.unlink()


def check_schema(rows: Callable[[str], Sequence[tuple[object, ...]]], where: str, *, write: bool = False) -> None:
    """Refuse a database that is not a chainret store, or one written by another schema version.

    An older schema in ``READABLE_SCHEMAS`` is read (not written: ``write``)."""
    try:
        meta = text_pairs(rows("SELECT key, value FROM meta WHERE key IN ('store_format', 'schema_version')"))
    except Exception as exc:  # noqa: BLE001 - any database error here means "not our store"
        raise StoreError(f"{where} is not a chainret store (no chainret tables: {str(exc).splitlines()[0]})") from None
    if meta.get("store_format") != STORE_FORMAT:
        raise StoreError(f"{where} is not a chainret store (no store format record)")
    found = meta.get("schema_version")
    if found != str(SCHEMA_VERSION) and (write or found not in {str(v) for v in READABLE_SCHEMAS}):
        raise StoreError(
            f"{where} was compiled with store schema {found}; this chainret reads schema {SCHEMA_VERSION}: "
            + recompile_advice(where)
        )


class SQLiteStore(SQLStore):
    """A compiled catalog in one SQLite file (read-only; one connection per reading thread)."""

    kind = "sqlite"
    concurrent_reads = True  # several threads may ask at once (``chainret serve --threads``)

    def __init__(self, path: str | os.PathLike[str]) -> None:
        p = Path(path)
        if not p.is_file():
            raise UsageError(f"store file {p} does not exist; compile one with: chainret catalog compile CATALOG --out {p}")
        db = SQLiteBackend(p)
        try:
            check_schema(db.rows, str(p))
        except sqlite3.DatabaseError as exc:
            db.close()
            raise StoreError(f"{p} is not a chainret store ({exc})") from None
        except StoreError:
            db.close()
            raise
        super().__init__(db)
        self.path = p

    @cached_property
    def _name_words(self) -> bool:
        """Whether this store keeps ``name_words`` (``chainret.store.namewords``: stores compiled before it do not)."""
        return bool(self.db.rows(f"SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '{NAME_WORDS}'"))

    def name_words(self, type_: str, word: str) -> tuple[int, list[int]] | None:
        """``name_words``' row for a kept word: (entities with it, the first of them), (0, []) for none; None without the table."""
        if not self._name_words:
            return None
        rows = self.db.rows(f"SELECT n, owners FROM {NAME_WORDS} WHERE type = ? AND word = ?", (type_, word))
        if not rows:
            return 0, []
        n, owners = rows[0]
        return as_int(n), [int(o) for o in json.loads(as_str(owners))]

    def generation(self) -> str:
        """Changes when the file is replaced (another inode) or written (mtime, size, the meta generation)."""
        try:
            st = self.path.stat()
        except OSError:
            return "missing"
        return f"{st.st_ino}.{st.st_mtime_ns}.{st.st_size}.{super().generation()}"


def compile_sqlite(catalog: CompileSource, out: str | os.PathLike[str], *, replace: bool = True) -> dict[str, int]:
    """Write ``catalog`` (a record stream: ``chainret.store.stream.RecordSource``) to a new SQLite store at ``out`` (atomically: a temporary file, then rename).

    ``replace=False`` refuses an existing ``out``, checked under the write lock (two first compiles
    racing: one writes, the other is refused, never both "succeed").
    """
    out = Path(out)
    with write_lock(out):
        if out.exists() and not replace:
            raise StoreError(f"{out} exists; pass --replace to overwrite it or --update to append a new catalog version")
        return _compile_locked(catalog, out)


def _compile_locked(catalog: CompileSource, out: Path) -> dict[str, int]:
    from chainret.store.compile import compile_into

    with _new_file_for(out) as tmp_path, _scratch_beside(out) as build_path:
        tmp_path.unlink()
        build_path.unlink()
        conn = sqlite3.connect(build_path)
        conn.close()
        db = SQLiteBackend(build_path, write=True)
        try:
            c = db.conn
            c.execute("PRAGMA journal_mode = OFF")
            c.execute("PRAGMA synchronous = OFF")
            c.execute(f"PRAGMA page_size = {PAGE_SIZE}")
            c.execute("BEGIN")
            for stmt in create_statements():
                c.execute(stmt)
            counts = compile_into(db, catalog)
            for stmt in index_statements(sqlite=True):
                c.execute(stmt)
            write_pair_counts(c.execute)  # a hub pair's set census, counted once (chainret.store.paircensus)
            write_hub_index(c)  # a hub's hop rows in rank order (chainret.store.hubindex)
            append_log(SQLiteLogWriter(c))  # the per-viewer log (chainret.store.log), after the indexes its reads use
            c.execute("COMMIT")
            c.execute("ANALYZE")
            c.execute("VACUUM INTO ?", (str(tmp_path),))  # (the store, its pages full: ``_scratch_beside``)
        except sqlite3.DatabaseError as exc:
            raise _write_error(exc, out, "compile") from None
        finally:
            db.close()
    return counts


def _write_error(exc: sqlite3.DatabaseError | OSError, out: Path, doing: str) -> StoreError:
    """What a failed write of ``out`` says: a full disk or an I/O error as such (``out`` itself is unchanged: a
    writer writes a new file beside it), anything else from SQLite as a file that is not a chainret store."""
    if isinstance(exc, OSError):
        full, reason = exc.errno in (errno.ENOSPC, errno.EDQUOT), exc.strerror
    else:
        code = getattr(exc, "sqlite_errorcode", None)
        full, reason = code == sqlite3.SQLITE_FULL, str(exc)
        if not full and (code is None or code & 0xFF != sqlite3.SQLITE_IOERR):
            return StoreError(f"{out} is not a chainret store ({exc})")
    state = f"{out} is unchanged" if out.exists() else f"{out} was not written"
    if full:
        need = " (an update writes a copy of the store beside it: that much free space and more)" if doing == "update" else ""
        return StoreError(f"cannot {doing} {out}: the disk is full ({reason}); {state}. Free space{need} and run it again")
    return StoreError(f"cannot {doing} {out}: the disk failed a write ({reason}); {state}")


@contextlib.contextmanager
def _scratch_beside(out: Path) -> Iterator[Path]:
    """A temporary file beside ``out`` that a compile builds the store in, removed when the block ends (a killed
    writer's: ``_leftovers``); the store itself is the scratch file copied whole (``VACUUM INTO``, one sequential
    write). Why a copy: the compile inserts ``names`` and ``postings`` out of their keys' order and a tile
    of the log at a time, so their B-tree pages are left part-empty (about a tenth of those tables), which a
    copy in key order fills; at ``PAGE_SIZE`` the log's 1.5 kB tiles fill a page too. The compile needs twice the
    store's size free beside it while it runs."""
    import tempfile

    try:
        fd, scratch = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
        os.close(fd)
    except OSError as exc:
        raise StoreError(f"cannot write a new store file beside {out}: {exc.strerror}") from None
    try:
        yield Path(scratch)
    finally:
        for path in (Path(scratch), *(Path(f"{scratch}{s}") for s in ("-journal", "-wal", "-shm"))):
            path.unlink(missing_ok=True)


@contextlib.contextmanager
def _new_file_for(out: Path) -> Iterator[Path]:
    """A temporary path beside ``out``, renamed over ``out`` when the block ends and removed when it fails: the
    one way a store file comes into place (the module docstring: a file in place is never written)."""
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
        os.close(fd)
    except OSError as exc:
        raise StoreError(f"cannot write a new store file beside {out}: {exc.strerror}") from None
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, out)
    except BaseException:
        for path in (tmp_path, *(Path(f"{tmp_path}{s}") for s in ("-journal", "-wal", "-shm"))):
            path.unlink(missing_ok=True)  # the copy, and the journal SQLite keeps beside it while it writes
        raise


def update_sqlite(catalog: Catalog, path: str | os.PathLike[str]) -> dict[str, int]:
    """Append ``catalog``'s new records to a copy of the SQLite store at ``path``, then rename the copy over it.

    The store in place is never written (readers open it immutable; see the module docstring): a failed
    update leaves it as it was and removes the copy.
    """
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"store file {p} does not exist")
    with write_lock(p):  # copied after the lock: a replace that finished first is the store we append to
        return _update_locked(catalog, p)


def _update_locked(catalog: Catalog, p: Path) -> dict[str, int]:
    import shutil

    from chainret.store.compile import update_into

    with _new_file_for(p) as tmp_path:
        try:
            shutil.copyfile(p, tmp_path)
            shutil.copymode(p, tmp_path)
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise _write_error(exc, p, "update") from None
            raise StoreError(f"cannot copy {p} to update it: {exc.strerror}") from None
        db = SQLiteBackend(tmp_path, write=True)
        try:
            check_schema(db.rows, str(p), write=True)
            db.conn.execute("BEGIN IMMEDIATE")
            try:
                added = update_into(db, catalog)
                write_pair_counts(db.conn.execute)
                write_hub_index(db.conn)
                append_log(SQLiteLogWriter(db.conn))
            except BaseException:
                with contextlib.suppress(sqlite3.Error):  # (SQLite may have rolled back itself: a full disk does)
                    db.conn.execute("ROLLBACK")
                raise
            db.conn.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            raise _write_error(exc, p, "update") from None
        finally:
            db.close()
    return added
