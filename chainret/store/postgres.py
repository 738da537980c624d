"""The PostgreSQL store (psycopg 3): the SQLite tables in a schema, permissions enforced by the database.

Where the store lives: ``postgresql://user@host/db`` stores in schema ``chainret``;
``?schema=NAME`` picks another (several catalogs in one database). ``chainret catalog compile
CATALOG --out URL`` creates the schema, tables, indexes, roles and policies in one transaction.

Who reads what is decided by the login the database authenticated, never by a setting a client
chooses. For schema ``S`` the compile creates these NOLOGIN roles:

* ``S_owner`` owns the schema and its tables; row-level security is
  ``FORCE``d, so even the owner's privileges do not skip the policies;
* ``S_read``: may read the schema; under the policies it reads the text of public documents only
  (what any principal no document names, e.g. ``public``, may read);
* one role per principal that some restricted document names (``S_p_<hash>``, listed in
  ``principal_roles``), a member of ``S_read``: it also reads the documents naming that principal;
* ``S_app``: chainret's own application role, ``NOINHERIT``, a member of every principal role.
  It reads public text itself and takes a principal's role for one transaction at a time
  (``SET LOCAL ROLE`` inside each ask's read transaction). **It is trusted like the server that
  holds it**: whoever logs in with it may read as any principal.

``names`` and ``name_sources`` (an importer's labels: a display name, an e-mail) show a row only to a
role that may read some version of the document that declares it (``LABEL_POLICY``). The per-viewer log's
tables (``chainret.store.log``) show a role its own viewer class's leaves, subtrees and checkpoints only (``LOG_POLICY``).
``documents``, ``units``, ``postings`` and ``relation_quotes`` (everything that holds or reveals
source text or its term statistics) have a policy: a row is visible when its document version is
in the session's view (``chainret.view``: not a secret, any client may set it) and readable by a
principal whose role ``current_user`` holds (``pg_has_role(current_user, role, 'USAGE')``); for
``postings`` the second test is its reader class (``cls``, ``reader_classes``: ``CLASSED_POLICY``).
``chainret catalog grant URL PRINCIPAL --login NAME`` gives a person or a tool its own login that
reads as PRINCIPAL (``--app`` for a server's login); ``chainret catalog revoke URL --login NAME``
takes it back. chainret connects with the URL's user; a superuser URL (the README's throw-away
server) is dropped to ``S_app`` for the whole session, so no ask runs with superuser rights.

What a login can still see without any principal: the catalog metadata (entities with everyone's labels, predicates,
patterns, views, which principal may read which document version, and the relation records'
ids, endpoints and spans): the engine's contradiction check and the audit of withheld relations
need relation records the principal may not read. A relation record's subject, predicate and
object state the same fact as its (protected) clause, so a login can learn that a restricted
relation exists and what it relates; keep such records out of a shared store if that matters.
Statistics views (``pg_stats``) hide the columns of tables whose policies apply to the reader, and ``corpus``
(units and tokens per principal class) shows a login the figures of its own class only. The planner's
estimates come from statistics over every row, so the writer keeps no value statistics on the protected
tables (``_analyze``): ``EXPLAIN`` cannot tell a word only restricted text holds from an absent one. ``postings``
carries each row's reader class, tested in the index condition (``CLASSED_POLICY``), so ``EXPLAIN ANALYZE`` of a
scan by term fetches and removes no hidden row either. Row counts (``pg_class.reltuples``, a sequential scan's
removed rows) and, on the other protected tables, the count of rows a policy removed (a restricted version's
units and quotes) stay visible to any login: docs/scaling.md says what they reveal and how to keep a class's
text in a schema of its own.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple, cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from chainret.catalog.models import Catalog, functional_names
from chainret.engine.hops import HopWorld
from chainret.engine.reader import Rel
from chainret.engine.search import SearchHit, TermRanking
from chainret.store.base import StoreError, StoreUnavailable, ViewReader, wait_for_lock
from chainret.store.compile import CompileSource, compile_into, update_into
from chainret.store.schema import TABLES, as_int, as_str, create_statements, index_statements
from chainret.store.sql import Backend, SQLStore, SQLView, StoreIndex
from chainret.store.hopquery import PAIR_MAX, ViewHopReader
from chainret.store.paircensus import write_pair_counts
from chainret.store.rowdecode import SQLRow, _bounded, _unit, rel_row_of, status_rows
from chainret.store.sqlrows import IN_VIEW, READABLE, WITHIN, ViewCatalog

if TYPE_CHECKING:  # psycopg is an extra, imported where a store is opened
    from psycopg import Connection
    from psycopg.pq import TransactionStatus
    from psycopg.rows import TupleRow
    from psycopg_pool import ConnectionPool

    Conn = Connection[TupleRow]

Row = SQLRow  # a result row (psycopg decodes the store's BIGINT / TEXT columns to int / str)

DEFAULT_SCHEMA = "chainret"
RLS_TABLES = {"documents": "ord", "units": "doc_ord", "postings": "doc_ord", "relation_quotes": "doc_ord"}
# The policy (the rule ``chainret.catalog.models.document_readable``, over the ``readers`` rows ``reader_rows``
# writes, as ``READABLE`` in ``chainret.store.sqlrows`` renders it for the reader stores and ``ViewFacts`` in
# ``chainret.store.hopquery`` for the hop statements): the row's document version is in the session's view and
# readable by '*' or by a principal whose role current_user holds. Written as a correlated scalar sub-query (``LIMIT 1``), PostgreSQL runs
# it per row as two primary-key probes; a PL/pgSQL function doing the same costs about four times as
# much per row (executor start-up), and an ``EXISTS`` condition is planned as a hash of every (view
# document, reader) pair of the view, rebuilt for every query. Every name in it is schema-qualified
# (and a policy stores what its names resolved to when it was created), so a client's search_path
# cannot substitute tables or functions of its own.
POLICY = (
    "(SELECT true FROM {s}.view_docs vd JOIN {s}.readers rd ON rd.doc_ord = vd.doc_ord "
    "WHERE vd.view_name = pg_catalog.current_setting('chainret.view', true) AND vd.doc_ord = {col} "
    "AND (rd.principal = '*' OR EXISTS (SELECT 1 FROM {s}.principal_roles pr WHERE pr.principal = rd.principal "
    "AND pg_catalog.pg_has_role(current_user, pr.role, 'USAGE'))) LIMIT 1) IS NOT NULL"
)
# ``postings`` (the one table a login can probe by a word of the text: its ``term`` key) carries each row's reader
# class (``cls``: ``reader_classes``) and is keyed (term, cls, unit_ord), its other index (doc_ord, cls); its policy
# tests the class first, ``cls = ANY(S.chainret_classes())`` (the classes whose principals' roles current_user
# holds, and the public one), which the planner makes part of any index scan's condition: a scan of a word only
# restricted text holds fetches no row, so ``EXPLAIN ANALYZE`` has no removed row to count (``POLICY``'s test of
# the readers per row would come after the index condition, as a filter). The view test stays a filter.
CLASSED_POLICY = (
    "{t}.cls = ANY({s}.chainret_classes()) AND (SELECT true FROM {s}.view_docs vd "
    "WHERE vd.view_name = pg_catalog.current_setting('chainret.view', true) AND vd.doc_ord = {t}.doc_ord LIMIT 1) IS NOT NULL"
)
CLASSED_TABLES = ("postings",)
CLASSED_KEY = "term, cls, unit_ord"  # postings' primary key in PostgreSQL (SQLite's: term, unit_ord)
CLASSED_INDEXES = {"postings_doc": "doc_ord, cls"}  # (the writer's lookups by document lead; a reader's add the class)
# A reader class: one number per distinct set of ``readers`` rows of a document version, in ``reader_classes``
# (cls, principal): the public class ('*') is 0, a restricted set gets the next number when a write first meets it
# (numbers never change: stored rows keep theirs), a version nobody reads (removed: no readers row) is -1, no role's.
PUBLIC_CLASS, NOBODY_CLASS = 0, -1
# Every name schema-qualified and a search_path of its own, so no client's schema or pg_temp object can stand in;
# SECURITY INVOKER (the default), because current_user inside a SECURITY DEFINER function is its owner. STABLE:
# evaluated once per scan, where the index scan's condition takes its array.
CLASSES_FUNCTION = (
    "CREATE OR REPLACE FUNCTION {s}.chainret_classes() RETURNS bigint[] LANGUAGE sql STABLE PARALLEL SAFE "
    "SET search_path = pg_catalog, pg_temp AS $$ SELECT pg_catalog.array_agg(DISTINCT rc.cls) FROM {s}.reader_classes rc "
    "WHERE rc.principal = '*' OR EXISTS (SELECT 1 FROM {s}.principal_roles pr WHERE pr.principal = rc.principal "
    "AND pg_catalog.pg_has_role(current_user, pr.role, 'USAGE')) $$"
)
# ``names`` and ``name_sources`` (the labels an importer's documents declare: ``schema.entity_rows``): a row is
# visible when it is everyone's (``doc_id = ''``) or some version of its document is readable by '*' or by a
# principal whose role current_user holds, in any view (``sqlrows.LABEL``, ``Entity.as_read_by``).
LABEL_TABLES = ("names", "name_sources")
LABEL_POLICY = (
    "{col} = '' OR EXISTS (SELECT 1 FROM {s}.label_readers lr WHERE lr.doc_id = {col} AND (lr.principal = '*' OR EXISTS "
    "(SELECT 1 FROM {s}.principal_roles pr WHERE pr.principal = lr.principal AND pg_catalog.pg_has_role(current_user, pr.role, 'USAGE'))))"
)
# ``corpus`` (readable units and tokens per view and principal class): a role sees the public figures and those of
# the principals whose roles it holds, not the size of text it may not read.
CORPUS_POLICY = (
    "{t}.principal = '*' OR EXISTS (SELECT 1 FROM {s}.principal_roles pr WHERE pr.principal = {t}.principal "
    "AND pg_catalog.pg_has_role(current_user, pr.role, 'USAGE'))"
)
# The tables of figures per principal class that ``CORPUS_POLICY`` guards: ``corpus``, and ``pair_counts`` (a hub
# pair's set census per view and class: ``chainret.store.paircensus``).
CLASS_FIGURE_TABLES = ("corpus", "pair_counts")
_IDENT = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")  # schema and login names
LOCK_WAIT_S = 30.0


class Roles:
    """The role names of one schema's store (see the module docstring)."""

    def __init__(self, schema: str) -> None:
        prefix = schema if len(schema) <= 40 else "cr" + hashlib.sha256(schema.encode()).hexdigest()[:16]
        self.owner, self.read, self.app = f"{prefix}_owner", f"{prefix}_read", f"{prefix}_app"
        self._prefix = prefix

    def principal(self, name: str) -> str:
        return f"{self._prefix}_p_{hashlib.sha256(name.encode()).hexdigest()[:12]}"


def split_url(url: str) -> tuple[str, str]:
    """(connection URL without ``schema=``, schema name)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = next((v for k, v in query if k == "schema"), DEFAULT_SCHEMA)
    if not _IDENT.match(schema):
        raise StoreError(f"schema name {schema!r} must be a lower-case SQL identifier")
    rest = urlencode([(k, v) for k, v in query if k != "schema"])
    return urlunsplit((parts.scheme, parts.netloc, parts.path, rest, parts.fragment)), schema


def redact(url: str) -> str:
    """The URL without its password (what traces and messages show)."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _need_psycopg() -> None:
    """psycopg is the ``postgres`` extra: say so where it is not installed."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        from chainret.core.errors import MissingExtra

        raise MissingExtra("PostgreSQL stores need psycopg: pip install 'chainret[postgres]'", extra="postgres") from None


def connect(url: str, *, autocommit: bool = True) -> Conn:
    """A psycopg connection, or a ``StoreError`` naming the server that did not answer."""
    _need_psycopg()
    import psycopg

    conninfo, _ = split_url(url)
    try:
        return psycopg.connect(conninfo, autocommit=autocommit, connect_timeout=5)
    except psycopg.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise StoreUnavailable(f"cannot connect to PostgreSQL at {redact(url)}: {first}") from None


@functools.lru_cache(maxsize=1024)
def _sql(sql: str) -> str:
    """``sql`` with psycopg's placeholders (the engine's statements repeat on every ask: converted once)."""
    return sql.replace("?", "%s")


class PostgresBackend(Backend):
    """A pool of connections. Reads for a (view, principal) run inside a transaction, as the principal's role.

    With the application role (``S_app``, or a superuser URL dropped to it) each such read takes the
    principal's role with ``SET LOCAL ROLE``; a login of its own (``catalog grant``) reads as itself,
    and a request for a principal that login may not read as is refused.

    ``read_scope()`` holds one pooled connection in one read-only transaction for a whole request
    (``chainret.pipeline.ask`` opens one per ask): the role and view are set once, when the first read needs
    them, and again only when a later read asks for another (view, principal); every statement runs
    with exactly the role and view its read names. Outside a scope each read gets a connection and
    a transaction of its own. The scope is per thread, so one store object serves several threads at
    once, each request on its own connection (at most ``max_connections`` per principal role; more
    wait for one).
    """

    def __init__(self, url: str, *, as_reader: bool = True, max_connections: int = 8) -> None:
        self.url = url
        self.location = redact(url)
        conninfo, self.schema = split_url(url)
        self.roles = Roles(self.schema)
        self._role_of: dict[str, str] = {}
        self._local = threading.local()
        conn = connect(url)  # a server that does not answer is reported here, at once, with libpq's reason
        import psycopg

        try:
            conn.execute(f"SET search_path TO {self.schema}")
            found = conn.execute(
                "SELECT r.rolname, r.rolsuper, coalesce((SELECT pg_has_role(current_user, a.oid, 'MEMBER') "
                "FROM pg_roles a WHERE a.rolname = %s), false) FROM pg_roles r WHERE r.rolname = current_user",
                (self.roles.app,),
            ).fetchone()
            assert found is not None  # current_user is a role
            user, superuser, app = found
            self.login = str(user)
            self.app = bool(superuser) or bool(app)
            self.as_app = self.app and as_reader  # every session of the pool runs as S_app
            # The role a read with neither view nor principal runs as inside a transaction: the session's.
            self.base_role = self.roles.app if self.as_app else ("NONE" if self.app else None)
            if self.as_app:
                conn.execute(f"SET ROLE {self.roles.app}")
            self._role_of = {str(p): str(r) for p, r in conn.execute("SELECT principal, role FROM principal_roles").fetchall()}
            self.reads_as = {str(p) for (p,) in conn.execute(
                "SELECT principal FROM principal_roles WHERE pg_has_role(current_user, role, 'USAGE')").fetchall()}
        except psycopg.Error as exc:
            raise StoreError(f"{self.location} is not a chainret store (schema {self.schema}: {str(exc).splitlines()[0]})") from None
        finally:
            conn.close()
        self._conninfo, self.max_connections = conninfo, max(1, max_connections)
        self._pools: dict[str | None, ConnectionPool[Conn]] = {}
        self._pools_lock = threading.Lock()
        self._pool(None)

    def _pool(self, role: str | None) -> ConnectionPool[Conn]:
        """The connection pool of the principal role ``role`` (None: reads of catalog metadata), made on first use.

        One pool per role, because PostgreSQL plans a statement that reads a table under row-level
        security for the role it runs as, and plans it again whenever a session runs it as another:
        a connection that always takes the same principal's role keeps its prepared statements' plans.
        """
        pool = self._pools.get(role)
        if pool is None:
            from psycopg_pool import ConnectionPool

            with self._pools_lock:
                pool = self._pools.get(role)
                if pool is None:
                    pool = self._pools[role] = ConnectionPool(
                        self._conninfo, min_size=0, max_size=self.max_connections, open=True, configure=self._configure,
                        kwargs={"autocommit": True, "connect_timeout": 5, "prepare_threshold": PREPARE_THRESHOLD},
                        num_workers=1, name=f"chainret:{self.schema}:{role or '-'}",
                    )
        return pool

    def _configure(self, conn: Conn) -> None:
        """A new pooled session: the store's schema first on the path, and the app role where the login has it."""
        conn.execute(f"SET search_path TO {self.schema}; SET plan_cache_mode TO force_generic_plan")
        if self.as_app:
            conn.execute(f"SET ROLE {self.roles.app}")

    def role_for(self, principal: str) -> str:
        """The database role that reads as ``principal`` (``S_read`` for a principal no document names)."""
        return self._role_of.get(principal, self.roles.read)

    def check_principal(self, principal: str) -> None:
        """Refuse a request for a principal this login may not read as (a login of its own, not the app role)."""
        if self.app or principal not in self._role_of or principal in self.reads_as:
            return
        raise StoreError(
            f"the PostgreSQL login {self.login!r} may not read as principal {principal!r} "
            f"(it reads as: {', '.join(sorted(self.reads_as)) or 'public documents only'}); connect with a login granted it: "
            f"chainret catalog grant URL {principal} --login NAME"
        )

    @contextlib.contextmanager
    def connection(self) -> Iterator[Conn]:
        """A pooled connection for a statement of one's own (tests, benchmarks): session role and schema set."""
        with self._pool(None).connection() as conn:
            yield conn

    @contextlib.contextmanager
    def read_scope(self, principal: str | None = None) -> Iterator[None]:
        """Every read of this thread inside the block: one connection, one read-only transaction (nested: the outer one).

        ``principal`` (the request's) picks the connection: one that reads as that principal's role.
        """
        if getattr(self._local, "tx", None) is not None:
            yield
            return
        role = self.role_for(principal) if principal is not None and self.app else None
        with self._pool(role).connection() as conn:
            tx = self._local.tx = _ReadTransaction(self, conn)
            try:
                yield
            finally:
                self._local.tx = None
                tx.end()

    def rows(self, sql: str, params: Sequence[object] = (), view: str | None = None, principal: str | None = None, *,
             custom_plan: bool = False) -> list[Row]:
        tx: _ReadTransaction | None = getattr(self._local, "tx", None)
        if tx is not None:
            return tx.rows(sql, params, view, principal, custom_plan=custom_plan)
        if view is None and principal is None:  # catalog metadata: one autocommit statement in the session's role
            with self._pool(None).connection() as conn:
                return list(conn.execute(_sql(sql), tuple(params)).fetchall())
        with self.read_scope(principal):
            scope: _ReadTransaction = self._local.tx
            return scope.rows(sql, params, view, principal, custom_plan=custom_plan)

    def rows_custom_plan(self, sql: str, params: Sequence[object] = (), view: str | None = None,
                         principal: str | None = None) -> list[Row]:
        """``rows`` with ``plan_cache_mode`` set to ``force_custom_plan`` for this statement (``SET LOCAL`` in the
        read transaction, set back at its next statement): only for statements on catalog metadata, whose value
        statistics any login may read anyway; a read of protected text keeps the generic plan (``_analyze``). A
        metadata read outside a principal's scope runs as ``rows`` does."""
        return self.rows(sql, params, view, principal, custom_plan=True)

    def close(self) -> None:
        with self._pools_lock:
            pools, self._pools = list(self._pools.values()), {}
        for pool in pools:
            pool.close()


# A query is prepared on the server from its second execution on a connection (psycopg's default waits
# for five): the engine's statements repeat on every ask, so the parse and plan are paid once per session.
PREPARE_THRESHOLD = 1
_UNSET = object()


class _ReadTransaction:
    """One request's reads on one connection: BEGIN, the role and view when they change, the queries, COMMIT.

    The first read sends ``BEGIN``, ``SET LOCAL ROLE`` and ``set_config`` as one message, then its query;
    later reads with the same (view, principal) send only their query. A read for catalog
    metadata (no view, no principal) runs as the session's role (``S_app``) with no view set, as it
    does outside a transaction. A failed statement ends the transaction; the next read begins a new
    one, so one error does not poison the request's later reads.
    """

    def __init__(self, db: PostgresBackend, conn: Conn) -> None:
        self.db, self.conn = db, conn
        self.cur = conn.cursor()  # one cursor for the request's statements (psycopg makes one per conn.execute)
        self.open = False
        self.role: object = _UNSET
        self.view: object = _UNSET
        self.custom_plan = False  # ``SET LOCAL plan_cache_mode TO force_custom_plan`` in force (``rows_custom_plan``)

    def rows(self, sql: str, params: Sequence[object], view: str | None, principal: str | None, *,
             custom_plan: bool = False) -> list[Row]:
        db = self.db
        if view is None and principal is None:
            role, gview = db.base_role, ""
        else:
            who = principal or ""
            db.check_principal(who)
            role, gview = (f'"{db.role_for(who)}"' if db.app else None), view or ""
        setup: list[str] = []
        if not self.open:
            setup.append("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        if role is not None and role != self.role:
            setup.append(f"SET LOCAL ROLE {role}")
        if gview != self.view:
            setup.append(f"SELECT set_config('chainret.view', {_literal(gview, self.conn)}, true)")
        if custom_plan != (self.custom_plan and self.open):  # (a new transaction starts with the session's generic plans)
            setup.append(f"SET LOCAL plan_cache_mode TO {'force_custom_plan' if custom_plan else 'force_generic_plan'}")
        cur = self.cur
        try:
            if setup:  # one simple-protocol message: cheaper for the client than a pipeline of three
                cur.execute("; ".join(setup), prepare=False)
                self.open, self.role, self.view, self.custom_plan = True, role, gview, custom_plan
            cur.execute(_sql(sql), tuple(params))
            return cur.fetchall()
        except BaseException:
            self.end()
            raise

    def end(self) -> None:
        """End the transaction and forget the role and view it had set.

        ``COMMIT``, though nothing was written (the transaction is read-only): psycopg drops every
        prepared statement of a connection on which it sees a ``ROLLBACK``.
        """
        was_open = self.open or self.conn.info.transaction_status != _idle()
        self.open, self.role, self.view, self.custom_plan = False, _UNSET, _UNSET, False
        if was_open and not self.conn.closed:
            with contextlib.suppress(Exception):  # a broken connection: the pool discards it
                self.cur.execute("COMMIT")


def _literal(text: str, conn: Conn) -> str:
    """``text`` as an SQL string literal for ``conn`` (a view name, sent inside a simple-protocol message).

    Remembered per text: the store's sessions share one server and client encoding, so a view name
    quotes the same on each of them (and a request names one of a catalog's few views)."""
    hit = _LITERALS.get(text)
    if hit is None:
        from psycopg import sql

        hit = str(sql.Literal(text).as_string(conn))
        if len(_LITERALS) < 1024:
            _LITERALS[text] = hit
    return hit


_LITERALS: dict[str, str] = {}


def _idle() -> TransactionStatus:
    from psycopg.pq import TransactionStatus

    return TransactionStatus.IDLE


class _Writer:
    """The compile/update side: the owner's connection inside one transaction; rows go in with COPY."""

    # Relations keep their support whole: row-level security hides a withheld document's row (``chainret.store.schema``).
    derives_evidence = False
    # No table of name words: a login could read every row of it, words of labels it may not be shown included.
    keeps_name_words = False
    packs_relations = False
    packs_names = False
    keys_terms = False
    lean_postings = False
    bases_units = False
    codes_words = False
    row_tables: dict[str, str] = {}  # (its tables are the tables it reads)

    def __init__(self, conn: Conn) -> None:
        self.conn = conn
        self._classes: dict[int, int] = {}  # document ordinal -> reader class (``doc_class``)

    def execute(self, sql: str, params: Sequence[object] = ()) -> None:
        self.conn.execute(_sql(sql), tuple(params))

    def rows(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        return list(self.conn.execute(_sql(sql), tuple(params)).fetchall())

    def insert(self, table: str, rows: Iterable[Sequence[object]], columns: Sequence[str] | None = None) -> None:
        """COPY ``rows`` into ``table``: its ``chainret.store.schema.TABLES`` columns, or ``columns`` (the log's tables).
        A ``CLASSED_TABLES`` row gets its document's reader class (``cls``) added here, as it goes in."""
        if columns is None and table in CLASSED_TABLES:  # (classed before the COPY: no query may run during one)
            at = TABLES[table].index("doc_ord")
            columns = [*TABLES[table], "cls"]
            rows = [(*row, self.doc_class(as_int(row[at]))) for row in rows]
        with self.conn.cursor() as cur, cur.copy(f"COPY {table} ({', '.join(columns or TABLES[table])}) FROM STDIN") as cp:
            for row in rows:
                cp.write_row(row)

    def doc_class(self, doc_ord: int) -> int:
        """The reader class of a written document version (``reader_classes``), read again when one is new."""
        hit = self._classes.get(doc_ord)
        if hit is None:
            self._classes = _doc_classes(self)
            hit = self._classes[doc_ord]
        return hit


# -- one statement per hop ----------------------------------------------------------------------------------
HUB = 64  # above this many candidate units, the hop statement returns the postings only (see ``hop_sql``)
# The columns of a hop statement's rows after the tag: a candidate unit (posting and unit), then a relation
# (``REL_COLS`` and the four status columns of ``SQLView.status_columns``); each row fills one part.
_UNIT_TYPES = ("bigint", "bigint", "bigint", "text", "text", "bigint", "bigint", "bigint", "text")
_REL_TYPES = ("bigint", *("text",) * 9, "bigint", "bigint", "text", "bigint", "text", "text", "text", "text", "bigint", "bigint", "text")
_U = 1 + len(_UNIT_TYPES)  # where a relation row's columns start (``StatusRow``)


class HopUnitRow(NamedTuple):
    """The unit part of a hop statement's row (after the tag; ``_UNIT_TYPES``): a posting of the node's term and its
    unit (tag 0; ``text`` is None for a hub's), or (tag 1) a candidate unit that holds the predicate's word."""

    unit_ord: int
    tf: int
    ntok: int
    ref: str
    doc_ref: str
    idx: int
    start: int
    end: int
    text: str | None


_hop_unit = cast("Callable[[Iterable[object]], HopUnitRow]", functools.partial(tuple.__new__, HopUnitRow))


def hop_sql(status_cols: str, within: bool, of_subject: bool, stating: bool = False) -> str:
    """A hop's reads in one statement: tag 0 the candidate units (the node's postings the principal may
    read in the view, with their units: what BM25Plus ranks, and the unit rows), tag 2 the relations those
    units support with their status, tag 3 (with ``of_subject``, for a functional predicate) every
    relation of (subject, predicate) in the view. With ``stating`` (a 1.1 hop), tag 1 lists the candidate units that
    also hold the predicate's word (``StoreIndex.hop_search``). The conditions are those of ``StoreIndex.search``,
    ``SQLView.prefetch`` and ``SQLView.rels_of``; row-level security applies to every table read as it
    does to them. A hub (more than ``HUB`` candidates) gets its postings only, without unit text or
    relations: the engine then reads the returned units' rows as before."""

    def w(col: str) -> str:
        return WITHIN.format(col=col) if within else ""

    no_rel = ", ".join(f"NULL::{t}" for t in _REL_TYPES)
    no_unit = ", ".join(f"NULL::{t}" for t in _UNIT_TYPES)
    sql = (
        "WITH c AS MATERIALIZED (SELECT p.unit_ord AS uo, p.tf, u.ntok, u.ref, u.doc_ref, u.idx, u.start_, u.end_, u.text, "
        "count(*) OVER () AS n FROM postings p JOIN units u ON u.ord = p.unit_ord WHERE p.term = ? AND "
        + READABLE.format(col="p.doc_ord") + w("p.doc_ord") + ") "
        f"SELECT 0, uo, tf, ntok, ref, doc_ref, idx, start_, end_, CASE WHEN n <= {HUB} THEN text END, {no_rel} FROM c "
        f"UNION ALL SELECT 2, {no_unit}, {status_cols} FROM relations r WHERE r.unit_ref IN (SELECT ref FROM c WHERE n <= {HUB}) AND "
        + READABLE.format(col="r.doc_ord") + w("r.doc_ord")
    )
    if stating:
        sql += (f" UNION ALL SELECT 1, s.unit_ord, {', '.join(f'NULL::{t}' for t in _UNIT_TYPES[1:])}, {no_rel} FROM postings s "
                "WHERE s.term = ? AND s.unit_ord IN (SELECT uo FROM c)")
    if of_subject:  # (at most ``PAIR_MAX`` + 1 rows: a larger pair is not kept)
        sql += (f" UNION ALL (SELECT 3, {no_unit}, {status_cols} FROM relations r WHERE r.subject = ? AND r.predicate = ? AND "
                + IN_VIEW.format(col="r.doc_ord") + w("r.doc_ord") + f" LIMIT {PAIR_MAX + 1})")
    return sql


class HopStatement(ViewHopReader):
    """The ``HopReader`` of one PostgreSQL (view, principal): each hop's search in one round trip (``hop_sql``),
    ranked in Python exactly as ``StoreIndex.search`` ranks (same hits, scores bit-identical), with the view's caches
    primed with what the per-lookup reads would have read: the candidate units, the relations they support and,
    over a functional predicate, the (subject, predicate) relations (``of_subject``). Its other reads are the
    view's (``SQLView.rels_in_unit``, ``rels_of``, ``census``), under row-level security as the principal's role."""

    def __init__(self, view: SQLView, index: StoreIndex, functional: frozenset[str], catalog: ViewCatalog, prime_rows: bool) -> None:
        self.view, self.index, self.functional, self.prime_rows = view, index, functional, prime_rows
        self.catalog = catalog
        cols, self._cp = view.status_columns()
        self.sql = {(f, s): hop_sql(cols, view.within is not None, f, s) for f in (False, True) for s in (False, True)}
        self.of: dict[tuple[str, str], list[Rel]] = {}

    def search(self, node: str, predicate: str, k: int, stating: bool = False) -> list[SearchHit]:
        v, ix = self.view, self.index
        n_units, total = ix.store.corpus(ix.view, ix.principal, ix.within)
        if k <= 0 or not n_units:
            return []
        term = node.lower()
        word = predicate.lower() if stating else None
        kept = ix.hubs.hits(term, word, k)
        if kept is not None:  # a hub ranked before: its units' rows as the hub path below reads them, the pair's on demand
            v.prefetch([h.ref for h in kept])
            return kept
        vp: tuple[str, ...] = (v.view_name, v.principal)
        wp: tuple[str, ...] = (v.within,) if v.within is not None else ()
        # a 1.1 hop reads the pair's relations too: its completeness or contradiction check needs them
        functional = predicate in self.functional or stating
        params = (term, *vp, *wp, *self._cp, *vp, *wp, *((predicate.lower(),) if stating else ()),
                  *((*self._cp, node, predicate, v.view_name, *wp) if functional else ()))
        units: dict[int, tuple[int, str, int, int]] = {}
        unit_rows: list[HopUnitRow] = []
        in_units: list[Row] = []
        of: list[Row] = []
        has: set[int] = set()
        for r in v.store.db.rows(self.sql[functional, stating], params, v.view_name, v.principal):
            tag = r[0]
            if tag == 0:
                u = _hop_unit(r[1:_U])
                units[u.unit_ord] = (u.unit_ord, u.ref, u.ntok, u.tf)
                unit_rows.append(u)
            elif tag == 1:
                has.add(_hop_unit(r[1:_U]).unit_ord)
            else:
                (in_units if tag == 2 else of).append(r[_U:])
        if not units:
            hits: list[SearchHit] = []
        else:
            size = n_units or 1
            rank = sorted(units.values())
            ranking = TermRanking.of(len(rank), rank, size, total / size, ix.k1, ix.b, ix.delta)
            hits = ix.hubs.rows(ranking, term, word, has, k)
        status_in, status_of = status_rows(in_units), status_rows(of)
        v.noted(status_in)
        if functional and len(status_of) <= PAIR_MAX:  # (a larger pair: read on demand, or counted: ``census``)
            v.noted(status_of)
            _bounded(self.of, (node, predicate), [v._flag(r) for r in sorted(status_of, key=lambda r: r.id)])
        if len(units) > HUB:  # a hub: the statement held back the units' rows; read the returned ones
            v.prefetch([h.ref for h in hits])
            return hits
        if self.prime_rows:  # what ``_relation_row`` reads here: the record, no quote (no view is set for it)
            cache = v.store._rows_cache
            for r in (*status_in, *status_of):
                _bounded(cache, r.id, rel_row_of(r, None))
        grouped: dict[str, list[Rel]] = {u.ref: [] for u in unit_rows}
        for r in sorted(status_in, key=lambda r: r.id):
            grouped[str(r.unit_ref)].append(v._flag(r))
        for u in unit_rows:
            _bounded(v._units, u.ref, _unit((u.ref, u.doc_ref, u.idx, u.start, u.end, cast(str, u.text))))
            _bounded(v._in_unit, u.ref, grouped[u.ref])
        return hits

    def hop_relations(self, ref: str, subject: str, predicate: str) -> list[Rel]:
        return self.view.rels_in_unit(ref)  # (the statement primed the returned units' relations)


class PostgresStore(SQLStore):
    """A compiled catalog in PostgreSQL, read under row-level security as the principal's role."""

    kind = "postgres"
    concurrent_reads = True  # one pooled connection per request (PostgresBackend): ``chainret serve --threads``

    def __init__(self, url: str, *, as_reader: bool = True, max_connections: int = 8) -> None:
        from chainret.store.sqlite import check_schema

        db = PostgresBackend(url, as_reader=as_reader, max_connections=max_connections)
        try:
            check_schema(db.rows, f"{db.location} (schema {db.schema})")
        except StoreError:
            db.close()
            raise
        super().__init__(db)
        self.pg = db

    def hop_world(self, view: ViewReader) -> HopWorld:
        """The engine's input for (view, principal): each hop one statement (``HopStatement``), cached."""
        if not isinstance(view, SQLView):
            raise TypeError(f"a SQL store runs the hops of its own views, not of {type(view).__name__}")
        key = (view.view_name, view.principal, view.within)
        hit: HopWorld | None = self._worlds.get(key)
        if hit is None:
            functional = functional_names(self.predicates)
            index = StoreIndex(self, view.view_name, view.principal, prefetch=view.prefetch, within=view.within)
            # A catalog-metadata read sees no quote where it runs under row-level security (always but for a
            # superuser that was not dropped to the app role): then the hop statement may prime those rows.
            hop = HopStatement(view, index, functional, self, prime_rows=self.pg.as_app or not self.pg.app)
            hit = self._worlds[key] = HopWorld(hop)
        return hit


def _writer_check(w: _Writer, url: str) -> None:
    """Compiles and updates run as the DBA: a role that may create roles and bypasses row-level security."""
    ok = w.rows("SELECT rolsuper OR (rolcreaterole AND rolbypassrls) FROM pg_roles WHERE rolname = current_user")[0][0]
    if not ok:
        raise StoreError(
            f"writing a store at {redact(url)} needs a superuser login (or one with CREATEROLE and BYPASSRLS): "
            "it creates the store's roles and policies; asks then run through a login of their own (chainret catalog grant)"
        )


def _lock(w: _Writer, schema: str, url: str) -> None:
    """One writer per schema at a time: an advisory lock held to the end of the write transaction."""
    key = f"chainret:{schema}"
    wait_for_lock(lambda: bool(w.rows("SELECT pg_try_advisory_xact_lock(hashtext(%s))", (key,))[0][0]),
                  LOCK_WAIT_S, f"the store at {redact(url)} (schema {schema})")


def _create_role(w: _Writer, role: str, *options: str) -> None:
    opts = " ".join(options)
    w.execute(f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{role}') THEN CREATE ROLE {role} NOLOGIN {opts}; END IF; END $$")
    if opts:
        w.execute(f"ALTER ROLE {role} {opts}")


def _principals(w: _Writer) -> list[str]:
    return [str(p) for (p,) in w.rows("SELECT DISTINCT principal FROM readers WHERE principal <> '*' ORDER BY principal")]


def _doc_classes(w: _Writer) -> dict[int, int]:
    """Every written document version's reader class, numbering a reader set not met before (``reader_classes``)."""
    readers: dict[int, set[str]] = {}
    for doc_ord, principal in w.rows("SELECT m.ord, r.principal FROM document_meta m LEFT JOIN readers r ON r.doc_ord = m.ord"):
        got = readers.setdefault(as_int(doc_ord), set())
        if principal is not None:
            got.add(as_str(principal))
    members: dict[int, set[str]] = {}
    for cls, principal in w.rows("SELECT cls, principal FROM reader_classes"):
        members.setdefault(as_int(cls), set()).add(as_str(principal))
    number = {frozenset(m): cls for cls, m in members.items()}
    number[frozenset()] = NOBODY_CLASS
    out: dict[int, int] = {}
    for doc_ord, principals in readers.items():
        key = frozenset(principals)
        if key not in number:
            cls = number[key] = max(PUBLIC_CLASS, *number.values()) + 1
            w.insert("reader_classes", [(cls, p) for p in sorted(key)], ["cls", "principal"])
        out[doc_ord] = number[key]
    return out


def _classify(w: _Writer) -> None:
    """Give ``postings`` its reader class column, key and index (``CLASSED_POLICY``): on a new schema's empty
    table, or on a store written before them (its rows classed here, in the update's transaction)."""
    if w.rows("SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() "
              "AND table_name = 'postings' AND column_name = 'cls'"):
        return
    w.execute("CREATE TABLE IF NOT EXISTS reader_classes (cls BIGINT, principal TEXT, PRIMARY KEY (cls, principal))")
    w.execute("INSERT INTO reader_classes VALUES (%s, '*') ON CONFLICT DO NOTHING", (PUBLIC_CLASS,))
    w.execute("ALTER TABLE postings ADD COLUMN cls BIGINT")
    if w.rows("SELECT 1 FROM postings LIMIT 1"):
        w.execute("CREATE TEMPORARY TABLE doc_classes (doc_ord BIGINT PRIMARY KEY, cls BIGINT) ON COMMIT DROP")
        w.insert("doc_classes", sorted(_doc_classes(w).items()), ["doc_ord", "cls"])
        w.execute("UPDATE postings p SET cls = d.cls FROM doc_classes d WHERE d.doc_ord = p.doc_ord")
        w.execute("DROP INDEX IF EXISTS postings_doc")
        for stmt in index_statements(CLASSED_INDEXES):
            w.execute(stmt)
    w.execute(f"ALTER TABLE postings ALTER COLUMN cls SET NOT NULL, DROP CONSTRAINT postings_pkey, ADD PRIMARY KEY ({CLASSED_KEY})")


def _security(w: _Writer, schema: str) -> None:
    """Roles, ownership, grants and the FORCEd policies of a freshly written schema (also after an update)."""
    roles = Roles(schema)
    _create_role(w, roles.owner)
    _create_role(w, roles.read)
    _create_role(w, roles.app, "NOINHERIT")
    w.execute("CREATE TABLE IF NOT EXISTS principal_roles (principal TEXT PRIMARY KEY, role TEXT NOT NULL)")
    w.execute("DELETE FROM principal_roles")
    for principal in _principals(w):
        role = roles.principal(principal)
        _create_role(w, role)
        w.execute(f"GRANT {roles.read} TO {role}")
        w.execute(f"GRANT {role} TO {roles.app}")
        w.execute("INSERT INTO principal_roles (principal, role) VALUES (%s, %s)", (principal, role))
    w.execute(f"GRANT {roles.read} TO {roles.app}")
    w.execute(f"DROP FUNCTION IF EXISTS {schema}.chainret_readable(bigint) CASCADE")  # the policy function of older stores
    w.execute(f"ALTER SCHEMA {schema} OWNER TO {roles.owner}")
    w.execute(f"REVOKE ALL ON SCHEMA {schema} FROM PUBLIC")
    w.execute(CLASSES_FUNCTION.format(s=schema))
    w.execute(f"ALTER FUNCTION {schema}.chainret_classes() OWNER TO {roles.owner}")
    for table in (*TABLES, "principal_roles", "reader_classes"):
        w.execute(f"ALTER TABLE {schema}.{table} OWNER TO {roles.owner}")
        w.execute(f"REVOKE ALL ON {schema}.{table} FROM PUBLIC")
    for role in (roles.read, roles.app):  # S_app is NOINHERIT: it gets its own grants
        w.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
        w.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {role}")
    policies = {table: POLICY.format(s=schema, col=f"{table}.{col}") for table, col in RLS_TABLES.items()}
    policies.update({table: CLASSED_POLICY.format(s=schema, t=table) for table in CLASSED_TABLES})
    policies.update({table: CORPUS_POLICY.format(s=schema, t=table) for table in CLASS_FIGURE_TABLES})
    policies.update({table: LABEL_POLICY.format(s=schema, col=f"{table}.doc_id") for table in LABEL_TABLES})
    for table, policy in policies.items():
        w.execute(f"ALTER TABLE {schema}.{table} ENABLE ROW LEVEL SECURITY")
        w.execute(f"ALTER TABLE {schema}.{table} FORCE ROW LEVEL SECURITY")
        w.execute(f"DROP POLICY IF EXISTS chainret_read ON {schema}.{table}")
        w.execute(f"CREATE POLICY chainret_read ON {schema}.{table} FOR SELECT USING ({policy})")
        # Only the writer analyses them (``_analyze``): autovacuum's ANALYZE would bring back the value statistics.
        w.execute(f"ALTER TABLE {schema}.{table} SET (autovacuum_analyze_threshold = 2147483647)")


def _analyze(w: _Writer, schema: str) -> None:
    """Planner statistics for every table, then none that name or count values in the protected ones.

    The planner estimates a condition on a table under row-level security from statistics over all its rows
    (PostgreSQL uses them with leakproof operators such as text equality): with the most common values and
    histograms of ``postings.term`` any login could tell from ``EXPLAIN`` whether a word occurs in text it may
    not read, and about how often. Those are removed from the protected tables; what stays per column (the
    share of NULLs, the mean width, the number of distinct values, the physical order's correlation) is all a
    generic plan (``plan_cache_mode = force_generic_plan``, which chainret's sessions use) estimates a
    parameter's selectivity from (the largest value's share, which it also consults, goes). Needs PostgreSQL 18 (``pg_restore_attribute_stats``); on an older
    server a superuser writer edits ``pg_statistic`` instead, and another writer leaves the statistics as
    ANALYZE made them (docs/scaling.md says what they reveal).
    """
    w.execute(f"ANALYZE {', '.join(f'{schema}.{t}' for t in TABLES)}")
    tables = [*RLS_TABLES, *CLASS_FIGURE_TABLES, *LABEL_TABLES]
    if int(cast(int, w.rows("SELECT current_setting('server_version_num')::int")[0][0])) >= 180000:
        kept = w.rows("SELECT tablename, attname, null_frac, avg_width, n_distinct, correlation FROM pg_catalog.pg_stats "
                      "WHERE schemaname = %s AND tablename = ANY(%s) AND NOT inherited", (schema, tables))
        for table, column, null_frac, width, distinct, correlation in kept:
            args = ["'schemaname', %s::text, 'relname', %s::text, 'attname', %s::text, 'inherited', false",
                    "'null_frac', %s::real, 'avg_width', %s::integer, 'n_distinct', %s::real"]
            values: list[object] = [schema, table, column, null_frac, width, distinct]
            if correlation is not None:
                args.append("'correlation', %s::real")
                values.append(correlation)
            w.rows("SELECT pg_catalog.pg_clear_attribute_stats(%s, %s, %s, false)", (schema, table, column))
            w.rows(f"SELECT pg_catalog.pg_restore_attribute_stats({', '.join(args)})", values)
    elif w.rows("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")[0][0]:
        for n in range(1, 6):  # every slot but the correlation's (kind 3)
            w.execute(f"UPDATE pg_catalog.pg_statistic SET stakind{n} = 0, staop{n} = 0, stacoll{n} = 0, stanumbers{n} = NULL, "
                      f"stavalues{n} = NULL WHERE starelid = ANY(%s::regclass[]) AND stakind{n} <> 3",
                      ([f"{schema}.{t}" for t in tables],))


@contextlib.contextmanager
def _dba_transaction(url: str, doing: str, *, lock: bool = True, search_path: bool = True) -> Iterator[tuple[_Writer, str]]:
    """One write transaction as the DBA: (writer, schema); committed on success, rolled back on any error.

    ``lock`` takes the schema's writer lock; ``search_path`` points the transaction at the schema (a
    compile sets it itself, after creating the schema). A database error becomes a ``StoreError``
    saying what was being done.
    """
    _, schema = split_url(url)
    conn = connect(url, autocommit=False)
    import psycopg

    try:
        w = _Writer(conn)
        _writer_check(w, url)
        if lock:
            _lock(w, schema, url)
        if search_path:
            w.execute(f"SET LOCAL search_path TO {schema}")
        yield w, schema
        conn.commit()
    except psycopg.Error as exc:
        conn.rollback()
        raise StoreError(f"cannot {doing} at {redact(url)}: {str(exc).strip().splitlines()[0]}") from None
    except BaseException:
        conn.rollback()
        raise
    finally:
        conn.close()


def compile_postgres(catalog: CompileSource, url: str, *, replace: bool = False) -> dict[str, int]:
    """Write ``catalog`` (a record stream: ``chainret.store.stream.RecordSource``) into a new schema (one transaction); ``replace`` drops an existing store there."""
    with _dba_transaction(url, "write the store", search_path=False) as (w, schema):
        exists = w.rows("SELECT 1 FROM information_schema.tables WHERE table_schema = %s AND table_name = 'meta'", (schema,))
        if exists and not replace:
            raise StoreError(f"{redact(url)} already holds a store in schema {schema}; pass --replace or --update")
        w.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        w.execute(f"CREATE SCHEMA {schema}")
        w.execute(f"SET LOCAL search_path TO {schema}")
        for stmt in create_statements(postgres=True):
            w.execute(stmt)
        _classify(w)
        counts = compile_into(w, catalog)
        for stmt in index_statements(CLASSED_INDEXES):
            w.execute(stmt)
        write_pair_counts(w.execute, postgres=True)
        _append_log(w)
        _security(w, schema)
        _log_security(w, schema)
        _analyze(w, schema)  # inside: the commit is the last step
    return counts


def update_postgres(catalog: Catalog, url: str) -> dict[str, int]:
    """Append ``catalog``'s new records to the store at ``url`` in one transaction."""
    from chainret.store.sqlite import check_schema

    with _dba_transaction(url, "update the store") as (w, schema):
        check_schema(w.rows, f"{redact(url)} (schema {schema})", write=True)
        _classify(w)  # (a store written before reader classes gets them)
        added = update_into(w, catalog)
        write_pair_counts(w.execute, postgres=True)
        _append_log(w)
        _security(w, schema)  # a principal the new version names gets its role
        _log_security(w, schema)
        _analyze(w, schema)
    return added


# -- the per-viewer log (chainret.store.log): its tables, written in the write's transaction, and who reads them ------
# A log row (leaf run, tile of subtrees, checkpoint) of class ``principal`` is visible to a role of that class only: the audit
# class ('') to the application role (which reads with no principal, ``StoreLog._read``), the public class ('*') to
# a role that holds ``S_read`` and no principal's role, a principal's class to a role holding that principal's role.
# So a public login cannot read, or count, the leaves or checkpoints of restricted text, and a principal's login
# reads its own class's log (a viewer's traces are proven against it: ``chainret.store.log.viewer_class``).
LOG_POLICY = (
    "CASE WHEN {t}.principal = '' THEN pg_catalog.pg_has_role(current_user, '{app}', 'USAGE') "
    "WHEN {t}.principal = '*' THEN pg_catalog.pg_has_role(current_user, '{read}', 'USAGE') AND NOT EXISTS "
    "(SELECT 1 FROM {s}.principal_roles pr WHERE pg_catalog.pg_has_role(current_user, pr.role, 'USAGE')) "
    "ELSE EXISTS (SELECT 1 FROM {s}.principal_roles pr WHERE pr.principal = {t}.principal "
    "AND pg_catalog.pg_has_role(current_user, pr.role, 'USAGE')) END"
)
LOG_RLS_TABLES = ("log_runs", "log_tiles", "log_checkpoints")  # (``log_info``, the log's format and origin, is everyone's)


class _LogWriter:
    """``chainret.store.log.LogWriter`` over the write transaction: leaves and subtrees go in with COPY, the units and
    relations are read a batch at a time through a server-side cursor."""

    def __init__(self, w: _Writer) -> None:
        self.w = w
        self.rows, self.execute = w.rows, w.execute

    def stream(self, sql: str, params: Sequence[object] = ()) -> Iterator[Sequence[object]]:
        with self.w.conn.cursor(name="chainret_log_items") as cur:
            cur.itersize = 5000
            cur.execute(_sql(sql), tuple(params))
            yield from cur

    def insert_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
        self.w.insert(table, rows, columns)


def _append_log(w: _Writer) -> None:
    """This write's leaves and checkpoints (``chainret.store.log.append_log``), in its transaction."""
    from chainret.store.log import append_log

    append_log(_LogWriter(w), postgres=True)


def _log_security(w: _Writer, schema: str) -> None:
    """The log tables' owner, grants and FORCEd policies (``LOG_POLICY``), after ``_security`` made the roles.

    No value statistics are kept on them (autovacuum's ANALYZE never runs there; ``_analyze`` leaves them out): a
    histogram of ``principal`` or ``hash`` would show any login the leaves of classes it may not read."""
    from chainret.store.log import LOG_TABLES

    roles = Roles(schema)
    for table in LOG_TABLES:
        w.execute(f"ALTER TABLE {schema}.{table} OWNER TO {roles.owner}")
        w.execute(f"REVOKE ALL ON {schema}.{table} FROM PUBLIC")
        for role in (roles.read, roles.app):
            w.execute(f"GRANT SELECT ON {schema}.{table} TO {role}")
    for table in LOG_RLS_TABLES:
        policy = LOG_POLICY.format(s=schema, t=f"{table}", app=roles.app, read=roles.read)
        w.execute(f"ALTER TABLE {schema}.{table} ENABLE ROW LEVEL SECURITY")
        w.execute(f"ALTER TABLE {schema}.{table} FORCE ROW LEVEL SECURITY")
        w.execute(f"DROP POLICY IF EXISTS chainret_read ON {schema}.{table}")
        w.execute(f"CREATE POLICY chainret_read ON {schema}.{table} FOR SELECT USING ({policy})")
        w.execute(f"ALTER TABLE {schema}.{table} SET (autovacuum_analyze_threshold = 2147483647)")


# -- logins: who may read as which principal ---------------------------------------------------------------
def _held_roles(w: _Writer, roles: Roles, login: str) -> list[str]:
    """The roles of this store (read, app, every principal role) that ``login`` is a member of."""
    every = [roles.read, roles.app, *(str(r) for (r,) in w.rows("SELECT role FROM principal_roles ORDER BY role"))]
    return [r for r in every if w.rows("SELECT pg_has_role(%s, %s, 'MEMBER')", (login, r))[0][0]]


def _check_login(login: str) -> None:
    if not _IDENT.match(login):
        raise StoreError(f"login name {login!r} must be a lower-case SQL identifier (letters, digits, _)")


def grant_login(url: str, principal: str | None, login: str, password: str | None = None) -> str:
    """Create or update ``login`` so that it reads the store at ``url`` as ``principal`` (None: the app role).

    Returns the database role it was granted. The login loses any other role of this store first: one
    login, one principal. Runs as the DBA (the compile's login). The password never reaches the server,
    a command line or a message: the statement carries its SCRAM-SHA-256 verifier (``_scram_verifier``),
    so a server that logs statements (``log_statement = ddl``) logs no password.
    """
    from psycopg import sql

    _check_login(login)
    with _dba_transaction(url, f"grant {login!r}", lock=False) as (w, schema):
        roles = Roles(schema)
        if not w.rows("SELECT 1 FROM information_schema.tables WHERE table_schema = %s AND table_name = 'principal_roles'", (schema,)):
            raise StoreError(f"{redact(url)} holds no chainret PostgreSQL store in schema {schema}; compile one first")
        named = {str(p): str(r) for p, r in w.rows("SELECT principal, role FROM principal_roles")}
        if principal is None:
            target = roles.app
        elif principal in named:
            target = named[principal]
        elif principal == "public":
            target = roles.read
        else:
            from difflib import get_close_matches

            known = ["public", *sorted(named)]
            near = get_close_matches(principal, known, n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            raise StoreError(f"principal {principal!r} is named by no document of this store (known: {', '.join(known)}){hint}")
        found = w.rows("SELECT rolsuper FROM pg_roles WHERE rolname = %s", (login,))
        if found and found[0][0]:
            raise StoreError(f"{login!r} is a superuser: a superuser reads everything; grant a login of its own")
        if login in {roles.owner, roles.read, roles.app, *named.values()}:
            raise StoreError(f"{login!r} is one of the store's own roles; choose another login name")
        verb = "ALTER" if found else "CREATE"
        stmt = sql.SQL(verb + " ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS INHERIT").format(sql.Identifier(login))
        if password is not None:
            stmt = stmt + sql.SQL(" PASSWORD {}").format(sql.Literal(_scram_verifier(w.conn, login, password)))
        w.conn.execute(stmt)
        for role in _held_roles(w, roles, login):
            if role != target:
                w.execute(f'REVOKE "{role}" FROM "{login}"')
        w.execute(f'GRANT "{target}" TO "{login}"')
    return target


def _scram_verifier(conn: Conn, login: str, password: str) -> str:
    """The SCRAM-SHA-256 verifier of ``password`` (``SCRAM-SHA-256$4096:<salt>$<StoredKey>:<ServerKey>``).

    Computed on the client by libpq (``PQencryptPasswordConn``, as psql's ``\\password`` does: a random salt,
    the server's iteration count), so only the verifier is sent; PostgreSQL stores a verifier it is given as it
    is, and a login then authenticates with the password.
    """
    try:
        return conn.pgconn.encrypt_password(password.encode(), login.encode(), b"scram-sha-256").decode("ascii")
    except Exception as exc:  # noqa: BLE001 - libpq's reason, never the password
        raise StoreError(f"cannot compute the password verifier for {login!r}: {str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}") from None


def revoke_login(url: str, login: str) -> list[str]:
    """Take every role of the store at ``url`` from ``login`` (the login itself stays). Returns the roles revoked."""
    _check_login(login)
    with _dba_transaction(url, f"revoke {login!r}", lock=False) as (w, schema):
        if not w.rows("SELECT 1 FROM pg_roles WHERE rolname = %s", (login,)):
            raise StoreError(f"there is no login {login!r} at {redact(url)}")
        revoked = _held_roles(w, Roles(schema), login)
        for role in revoked:
            w.execute(f'REVOKE "{role}" FROM "{login}"')
    return revoked
