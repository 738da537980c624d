"""A hostile SQL client: a public login tries every escalation the issue-21 probe tried, and reads no restricted text.

The database decides from the login it authenticated: the policies key on role membership of
``current_user``, not on a setting the client may choose. Each escalation runs on a direct psycopg
connection as a login granted ``public`` (``chainret catalog grant``); whatever rows or errors come
back, no restricted unit text or clause may be in them. The same queries as a login granted the
auditor do return the restricted text, so the check can fail.
"""

from __future__ import annotations

import pytest
from store_worlds import new_schema_url, pg_url  # noqa: F401
from test_store_cli import SEED, cli

from chainret.catalog.load import load_world
from chainret.catalog.models import unit_spans
from chainret.store import compile_store, open_store
from chainret.store.postgres import Roles, split_url

psycopg = pytest.importorskip("psycopg")


def _restricted_strings(cat) -> list[str]:
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


@pytest.fixture(scope="module")
def world(pg_url):  # noqa: F811
    url = new_schema_url(pg_url)
    cat = load_world(SEED).catalog
    compile_store(cat, url)
    return url, cat


def _login(url: str, principal: str, login: str, tmp_path, capsys):
    secret = tmp_path / f"{login}.pw"
    secret.write_text(f"pw-{login}\n")
    code, _, err = cli(capsys, "catalog", "grant", url, principal, "--login", login, "--password-file", str(secret))
    assert code == 0, err
    conninfo, schema = split_url(url)
    conn = psycopg.connect(conninfo, user=login, password=f"pw-{login}", autocommit=True)
    conn.execute(f"SET search_path TO {schema}")
    return conn, schema


def _attempts(schema: str) -> list[str]:
    roles = Roles(schema)
    reads = [
        "SELECT text FROM units", "SELECT text FROM documents", "SELECT quote FROM relation_quotes", "SELECT term FROM postings",
        f"SELECT text FROM {schema}.units WHERE {schema}.chainret_readable(doc_ord) OR true",
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
        ["INSERT INTO principal_roles VALUES ('auditor2', current_user)"],
    ]
    out = []
    for setup in setups:
        for view in ("final", "revised"):
            out.append((setup, view, reads))
    return out


def _run(conn, schema: str) -> list[str]:
    """Everything a login got back from every escalation (rows as text, and error messages)."""
    seen: list[str] = []
    for setup, view, reads in _attempts(schema):
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


def _leaks(seen: list[str], secrets: list[str]) -> list[str]:
    blob = "\n".join(seen)
    # COPY escapes newlines; compare each secret's first line, which is still verbatim
    return [s for s in secrets if s in blob or s.splitlines()[0] in blob]


def test_a_public_login_reads_no_restricted_text_whatever_it_tries(world, tmp_path, capsys):
    url, cat = world
    secrets = _restricted_strings(cat)
    assert len(secrets) >= 2
    conn, schema = _login(url, "public", "hostile_public", tmp_path, capsys)
    try:
        assert conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()[0] is False
        seen = _run(conn, schema)
    finally:
        conn.close()
    assert _leaks(seen, secrets) == []
    # It does read public text (the policies are not simply closed).
    assert any("registry" in s or "REL " in s for s in seen)


def test_the_same_queries_as_an_auditor_login_see_the_restricted_text(world, tmp_path, capsys):
    url, cat = world
    secrets = _restricted_strings(cat)
    conn, schema = _login(url, "auditor", "probe_auditor", tmp_path, capsys)
    try:
        seen = _run(conn, schema)
    finally:
        conn.close()
    assert len(_leaks(seen, secrets)) == len(secrets)


def test_revoke_takes_the_principal_back_and_grant_refuses_unknown_principals(world, tmp_path, capsys):
    url, cat = world
    secrets = _restricted_strings(cat)
    conn, _ = _login(url, "auditor", "soon_revoked", tmp_path, capsys)
    conn.close()
    code, _, err = cli(capsys, "catalog", "revoke", url, "--login", "soon_revoked")
    assert code == 0 and "revoked" in err
    conninfo, schema = split_url(url)
    conn = psycopg.connect(conninfo, user="soon_revoked", password="pw-soon_revoked", autocommit=True)
    try:
        conn.execute(f"SET search_path TO {schema}")
        with pytest.raises((psycopg.errors.InsufficientPrivilege, psycopg.errors.UndefinedTable)):
            conn.execute(f"SELECT text FROM {schema}.units").fetchall()
    finally:
        conn.close()
    code, _, err = cli(capsys, "catalog", "grant", url, "auditr", "--login", "x_typo")
    assert code == 2 and "did you mean auditor" in err and "Traceback" not in err
    code, _, err = cli(capsys, "catalog", "grant", url, "public", "--login", "Bad-Name")
    assert code == 2 and "identifier" in err
    assert secrets  # (the world has restricted text to protect)


def test_chainret_as_a_granted_login_asks_as_its_principal_and_refuses_another(world, tmp_path, capsys):
    url, _ = world
    conn, _ = _login(url, "public", "asker_public", tmp_path, capsys)
    conn.close()
    conninfo, schema = split_url(url)
    as_public = url.replace("postgresql://postgres:", "postgresql://asker_public:pw-asker_public")
    if "asker_public" not in as_public:
        pytest.skip("the server URL has no user part to replace (CHAINRET_PG_URL in another form)")
    code, out, _ = cli(capsys, "ask", "Which contact serves PR-84?", "--catalog", as_public, "--json", "--no-trace")
    assert code == 0
    code, _, err = cli(capsys, "ask", "Which contact serves PR-84?", "--catalog", as_public, "--principal", "auditor", "--no-trace")
    assert code == 2 and "may not read as principal 'auditor'" in err
    store = open_store(url)  # the superuser URL: dropped to the app role for the whole session
    try:
        assert store.db.conn.execute("SELECT current_user").fetchone()[0] == Roles(schema).app
    finally:
        store.close()
