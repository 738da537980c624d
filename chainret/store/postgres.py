"""The PostgreSQL store (psycopg 3): the SQLite tables in a schema, with row-level security.

Where the store lives: ``postgresql://user@host/db`` stores in schema ``chainret``;
``?schema=NAME`` picks another (several catalogs in one database). ``chainret catalog compile
CATALOG --out URL`` creates the schema, the tables, the indexes, the application role
``chainret_reader`` and the policies, in one transaction.

Permissions are enforced by the database, not only by the queries:

* ``documents``, ``units``, ``postings`` and ``relation_quotes`` (everything that holds or reveals
  source text or its term statistics) have row-level security: the application role sees a row only
  when its document version is in the request's view and readable by the request's principal, read
  from ``current_setting('chainret.view')`` and ``current_setting('chainret.principal')``;
* the store sets both with ``set_config(..., true)`` (``SET LOCAL``) inside each request's
  transaction, so a pooled connection never carries one request's principal into the next;
  without them a query returns no text at all;
* asks run as ``chainret_reader`` (``SET ROLE`` after connecting, or connect as it directly): not
  the table owner, so the policies apply. The policy columns (``doc_ord``) and the tables they
  consult (``view_docs``, ``readers``) are indexed by their primary keys.

Catalog metadata (entities, predicates, patterns, views, which principals may read which
document, and the relation records' ids, endpoints and spans) is readable without a view: the
engine's contradiction check and the audit of withheld relations need relation records the
principal may not read. The clause *text* of a relation is under the policy, but a relation
record's subject, predicate and object state the same fact, so a reader role can learn that a
restricted relation exists; keep such records out of a shared store if that matters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from chainret.catalog.models import Catalog
from chainret.store.base import StoreError, StoreUnavailable
from chainret.store.compile import compile_into, update_into
from chainret.store.schema import TABLES, create_statements, index_statements
from chainret.store.sql import Backend, SQLStore

READER_ROLE = "chainret_reader"
DEFAULT_SCHEMA = "chainret"
RLS_TABLES = {"documents": "ord", "units": "doc_ord", "postings": "doc_ord", "relation_quotes": "doc_ord"}
# The policy calls a PL/pgSQL function (never inlined), so each row costs two primary-key probes. The
# same condition written inline is planned as a hash of every (view document, reader) pair of the
# view, rebuilt for every query: cheap at 200 documents, milliseconds at 20,000.
READABLE_FN = """
CREATE FUNCTION chainret_readable(d bigint) RETURNS boolean LANGUAGE plpgsql STABLE PARALLEL SAFE AS $fn$
BEGIN
  RETURN EXISTS (
    SELECT 1 FROM view_docs vd JOIN readers rd ON rd.doc_ord = vd.doc_ord
    WHERE vd.view_name = current_setting('chainret.view', true) AND vd.doc_ord = d
      AND rd.principal IN ('*', current_setting('chainret.principal', true)));
END
$fn$"""
POLICY = "chainret_readable({col})"
_IDENT = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


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


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        from chainret.errors import MissingExtra

        raise MissingExtra("PostgreSQL stores need psycopg: pip install 'chainret[postgres]'", extra="postgres") from None
    return psycopg


def connect(url: str, *, autocommit: bool = True) -> Any:
    """A psycopg connection, or a ``StoreError`` naming the server that did not answer."""
    psycopg = _psycopg()
    conninfo, _ = split_url(url)
    try:
        return psycopg.connect(conninfo, autocommit=autocommit, connect_timeout=5)
    except psycopg.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise StoreUnavailable(f"cannot connect to PostgreSQL at {redact(url)}: {first}") from None


def _sql(sql: str) -> str:
    return sql.replace("?", "%s")


class PostgresBackend(Backend):
    """One connection. Reads for a (view, principal) run in their own transaction with ``SET LOCAL``."""

    def __init__(self, url: str, *, as_reader: bool = True) -> None:
        self.url = url
        self.location = redact(url)
        self.conn = connect(url)
        _, self.schema = split_url(url)
        psycopg = _psycopg()
        try:
            self.conn.execute(f"SET search_path TO {self.schema}")
            if as_reader:
                user = self.conn.execute("SELECT current_user").fetchone()[0]
                if user != READER_ROLE:
                    self.conn.execute(f"SET ROLE {READER_ROLE}")
        except psycopg.Error as exc:
            self.conn.close()
            raise StoreError(f"{self.location} is not a chainret store (schema {self.schema}: {str(exc).splitlines()[0]})") from None

    def rows(self, sql: str, params: Sequence[Any] = (), view: str | None = None, principal: str | None = None) -> list[tuple[Any, ...]]:
        if view is None and principal is None:
            return self.conn.execute(_sql(sql), tuple(params)).fetchall()
        # BEGIN, SET LOCAL (set_config(..., true)), the query and COMMIT go out in one pipeline: one round trip.
        with self.conn.pipeline(), self.conn.transaction():
            self.conn.execute(
                "SELECT set_config('chainret.view', %s, true), set_config('chainret.principal', %s, true)",
                (view or "", principal or ""),
            )
            cur = self.conn.execute(_sql(sql), tuple(params))
        return cur.fetchall()

    def close(self) -> None:
        self.conn.close()


class _Writer:
    """The compile/update side: the owner's connection inside one transaction; rows go in with COPY."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.conn.execute(_sql(sql), tuple(params))

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.conn.execute(_sql(sql), tuple(params)).fetchall()

    def insert(self, table: str, rows: Iterable[Sequence[Any]]) -> None:
        with self.conn.cursor() as cur, cur.copy(f"COPY {table} ({', '.join(TABLES[table])}) FROM STDIN") as cp:
            for row in rows:
                cp.write_row(row)


class PostgresStore(SQLStore):
    """A compiled catalog in PostgreSQL, read as ``chainret_reader`` under row-level security."""

    kind = "postgres"

    def __init__(self, url: str, *, as_reader: bool = True) -> None:
        from chainret.store.sqlite import check_schema

        db = PostgresBackend(url, as_reader=as_reader)
        try:
            check_schema(db.rows, f"{db.location} (schema {db.schema})")
        except StoreError:
            db.close()
            raise
        super().__init__(db)


def _security(w: _Writer, schema: str) -> None:
    w.execute(
        f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{READER_ROLE}') "
        f"THEN CREATE ROLE {READER_ROLE} LOGIN; END IF; END $$"
    )
    w.execute(f"GRANT USAGE ON SCHEMA {schema} TO {READER_ROLE}")
    w.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {READER_ROLE}")
    if not w.rows("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")[0][0]:
        if not w.rows(f"SELECT pg_has_role(current_user, '{READER_ROLE}', 'MEMBER')")[0][0]:
            w.execute(f"GRANT {READER_ROLE} TO current_user")
    w.execute(READABLE_FN)
    w.execute(f"GRANT EXECUTE ON FUNCTION chainret_readable(bigint) TO {READER_ROLE}")
    for table, col in RLS_TABLES.items():
        w.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
        w.execute(f"DROP POLICY IF EXISTS chainret_read ON {table}")
        w.execute(f"CREATE POLICY chainret_read ON {table} FOR SELECT TO {READER_ROLE} USING ({POLICY.format(col=f'{table}.{col}')})")


def compile_postgres(catalog: Catalog, url: str, *, replace: bool = False) -> dict[str, int]:
    """Write ``catalog`` into a new schema (one transaction); ``replace`` drops an existing store there."""
    psycopg = _psycopg()
    _, schema = split_url(url)
    conn = connect(url, autocommit=False)
    try:
        w = _Writer(conn)
        exists = w.rows("SELECT 1 FROM information_schema.tables WHERE table_schema = %s AND table_name = 'meta'", (schema,))
        if exists and not replace:
            raise StoreError(f"{redact(url)} already holds a store in schema {schema}; pass --replace or --update")
        w.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        w.execute(f"CREATE SCHEMA {schema}")
        w.execute(f"SET LOCAL search_path TO {schema}")
        for stmt in create_statements(postgres=True):
            w.execute(stmt)
        counts = compile_into(w, catalog)
        for stmt in index_statements():
            w.execute(stmt)
        _security(w, schema)
        conn.commit()
        conn.autocommit = True
        conn.execute(f"ANALYZE {', '.join(f'{schema}.{t}' for t in TABLES)}")
    except psycopg.Error as exc:
        conn.rollback()
        raise StoreError(f"cannot write the store to {redact(url)}: {str(exc).strip().splitlines()[0]}") from None
    finally:
        conn.close()
    return counts


def update_postgres(catalog: Catalog, url: str) -> dict[str, int]:
    """Append ``catalog``'s new records to the store at ``url`` in one transaction."""
    from chainret.store.sqlite import check_schema

    psycopg = _psycopg()
    _, schema = split_url(url)
    conn = connect(url, autocommit=False)
    try:
        w = _Writer(conn)
        w.execute(f"SET LOCAL search_path TO {schema}")
        check_schema(w.rows, f"{redact(url)} (schema {schema})")
        added = update_into(w, catalog)
        conn.commit()
    except psycopg.Error as exc:
        conn.rollback()
        raise StoreError(f"cannot update the store at {redact(url)}: {str(exc).strip().splitlines()[0]}") from None
    except BaseException:
        conn.rollback()
        raise
    finally:
        conn.close()
    return added
