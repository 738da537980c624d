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

from benchmarks.harness.hostile_sql import leaks, restricted_strings, run

from chainret.catalog.load import load_world
from chainret.store import compile_store, open_store
from chainret.store.postgres import Roles, split_url

psycopg = pytest.importorskip("psycopg")


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


def test_a_public_login_reads_no_restricted_text_whatever_it_tries(world, tmp_path, capsys):
    url, cat = world
    secrets = restricted_strings(cat)
    assert len(secrets) >= 2
    conn, schema = _login(url, "public", "hostile_public", tmp_path, capsys)
    try:
        assert conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()[0] is False
        seen = run(conn, schema)
    finally:
        conn.close()
    assert leaks(seen, secrets) == []
    # It does read public text (the policies are not simply closed).
    assert any("registry" in s or "REL " in s for s in seen)


def test_the_same_queries_as_an_auditor_login_see_the_restricted_text(world, tmp_path, capsys):
    url, cat = world
    secrets = restricted_strings(cat)
    conn, schema = _login(url, "auditor", "probe_auditor", tmp_path, capsys)
    try:
        seen = run(conn, schema)
    finally:
        conn.close()
    assert len(leaks(seen, secrets)) == len(secrets)


def test_revoke_takes_the_principal_back_and_grant_refuses_unknown_principals(world, tmp_path, capsys):
    url, cat = world
    secrets = restricted_strings(cat)
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
        assert store.db.rows("SELECT current_user")[0][0] == Roles(schema).app
    finally:
        store.close()


def test_postgres_writers_serialise_on_the_schema_lock(pg_url):  # noqa: F811
    """An update racing a replace in one schema: an update that finished last and succeeded has its rows in the final store."""
    from benchmarks.harness.races import race_update_replace
    from test_store_cli import versions

    v1, v2 = versions()
    url = new_schema_url(pg_url)
    for trial in range(3):
        race = race_update_replace(v1, v2, url, trial)
        last, result = race.last
        final = race.final_digest
        # A commit is each write's last step; a return closer than 50 ms to the other's is left undecided (thread scheduling).
        if last == "update" and isinstance(result, dict) and race.gap_s > 0.05:
            assert final == v2.digest(), f"trial {trial}: the update reported success last, but its rows are gone"
        assert final in (v1.digest(), v2.digest())


def test_a_second_postgres_writer_is_refused_while_the_lock_is_held(world, monkeypatch):
    from chainret.store import postgres as pgs
    from chainret.store.base import StoreError

    url, cat = world
    conninfo, schema = split_url(url)
    holder = psycopg.connect(conninfo, autocommit=False)
    try:
        holder.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"chainret:{schema}",))
        monkeypatch.setattr(pgs, "LOCK_WAIT_S", 0.3)
        with pytest.raises(StoreError, match="another chainret command is writing"):
            compile_store(cat, url, replace=True)
    finally:
        holder.rollback()
        holder.close()
