"""A hostile SQL client for PostgreSQL stores: every escalation the issue-21 probe tried, and what came back.

Shared by ``tests/test_trust_postgres.py`` (no restricted text for a public login; all of it for an
auditor login) and ``benchmarks/trust.py`` (the figures of docs/results/trust.md).
"""

from __future__ import annotations

from typing import Any

import psycopg

from chainret.catalog.models import unit_spans
from chainret.store.postgres import Roles


def restricted_strings(cat: Any) -> list[str]:
    """Text only restricted documents hold: their units and quotes, minus anything a public document also says."""
    public = "\n".join(d.text for d in cat.documents if d.visibility == "public")
    out = set()
    for d in cat.documents:
        if d.visibility == "restricted":
            out.update(d.text[s:e] for s, e in unit_spans(d.text))
    for r in cat.relations:
        doc = cat.documents_by_ref[r.support.doc_ref]
        if doc.visibility == "restricted":
            out.add(r.support.quote)
    return sorted(s for s in out if s.strip() and s not in public)


def attempts(schema: str) -> list[tuple[list[str], str, list[str]]]:
    roles = Roles(schema)
    reads = [
        "SELECT text FROM units", "SELECT text FROM documents", "SELECT quote FROM relation_quotes", "SELECT term FROM postings",
        f"SELECT u.text FROM {schema}.units u JOIN {schema}.readers rd ON rd.doc_ord = u.doc_ord WHERE rd.principal = 'auditor' OR true",
    ]
    setups = [
        [],
        ["SET chainret.principal = 'auditor'"],
        ["SELECT set_config('chainret.principal', 'auditor', false)"],
        ["RESET ROLE"],
        [f"SET ROLE {roles.principal('auditor')}"],
        [f"SET ROLE {roles.app}"],
        [f"SET ROLE {roles.owner}"],
        ["SET ROLE postgres"],
        ["SET SESSION AUTHORIZATION postgres"],
        ["SET row_security = off"],
        ["ALTER TABLE units DISABLE ROW LEVEL SECURITY"],
        ["ALTER TABLE units NO FORCE ROW LEVEL SECURITY"],
        ["DROP POLICY chainret_read ON units"],
        ["CREATE OR REPLACE FUNCTION chainret_readable(d bigint) RETURNS boolean LANGUAGE sql AS 'SELECT true'"],
        ["CREATE TABLE pg_temp.view_docs AS SELECT * FROM view_docs", "SET search_path TO pg_temp, " + schema],
        ["UPDATE readers SET principal = '*'"],
        # the reader classes of ``postings`` (``chainret.store.postgres.CLASSED_POLICY``): the function, its tables, the column
        ["CREATE OR REPLACE FUNCTION chainret_classes() RETURNS bigint[] LANGUAGE sql AS 'SELECT ARRAY[-1, 0, 1, 2, 3]::bigint[]'"],
        ["CREATE FUNCTION pg_temp.chainret_classes() RETURNS bigint[] LANGUAGE sql AS 'SELECT ARRAY[-1, 0, 1, 2, 3]::bigint[]'",
         "SET search_path TO pg_temp, " + schema],
        ["CREATE TABLE pg_temp.reader_classes AS SELECT cls, '*'::text AS principal FROM reader_classes",
         "SET search_path TO pg_temp, " + schema],
        ["UPDATE reader_classes SET principal = '*'"],
        ["UPDATE postings SET cls = 0"],
        ["INSERT INTO principal_roles VALUES ('auditor2', current_user)"],
    ]
    out = []
    for setup in setups:
        for view in ("final", "revised"):
            out.append((setup, view, reads))
    return out


def run(conn: Any, schema: str) -> list[str]:
    """Everything a login got back from every escalation (rows as text, and error messages)."""
    seen: list[str] = []
    for setup, view, reads in attempts(schema):
        for read in reads:
            try:
                with conn.transaction():
                    for stmt in setup:
                        conn.execute(stmt)
                    conn.execute("SELECT set_config('chainret.view', %s, false)", (view,))
                    seen.extend(str(r) for r in conn.execute(read).fetchall())
            except psycopg.Error as exc:
                seen.append(str(exc))
    for stmt in (
        "SELECT most_common_vals::text, histogram_bounds::text FROM pg_stats WHERE schemaname = current_schema()",
        "SELECT pg_catalog.pg_read_file('base')",
        "SELECT definition FROM pg_views WHERE schemaname = current_schema()",
    ):
        try:
            seen.extend(str(r) for r in conn.execute(stmt).fetchall())
        except psycopg.Error as exc:
            seen.append(str(exc))
    for copy in ("COPY units TO STDOUT", "COPY (SELECT text FROM documents) TO STDOUT", "COPY relation_quotes TO STDOUT"):
        try:
            with conn.cursor() as cur, cur.copy(copy) as cp:
                seen.extend(bytes(chunk).decode("utf-8", "replace") for chunk in cp)
        except psycopg.Error as exc:
            seen.append(str(exc))
    return seen


def leaks(seen: list[str], secrets: list[str]) -> list[str]:
    blob = "\n".join(seen)
    # COPY escapes newlines; compare each secret's first line, which is still verbatim
    return [s for s in secrets if s in blob or s.splitlines()[0] in blob]


