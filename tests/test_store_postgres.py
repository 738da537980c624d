"""PostgreSQL store: row-level security enforced by the database for the login it authenticated, updates."""

from __future__ import annotations

import pytest
from store_worlds import new_schema_url, pg_url, trace_json  # noqa: F401
from test_store_cli import REQUESTS, SEED, versions

from chainret.pipeline.ask import ask
from chainret.catalog.load import load_world
from chainret.verify.replay import verify
from chainret.store import compile_store, open_store, update_store
from chainret.store.postgres import Roles, grant_login, split_url

psycopg = pytest.importorskip("psycopg")  # the test extra installs it; CI runs these

RESTRICTED = "audit/findings.md@v1"  # restricted to the auditor in the seed world


@pytest.fixture(scope="module")
def seed_url(pg_url):  # noqa: F811
    url = new_schema_url(pg_url)
    compile_store(load_world(SEED).catalog, url)
    return url


def login_connection(url: str, principal: str, login: str):
    """A direct connection (not through chainret) as a login granted ``principal``."""
    grant_login(url, principal, login, password="pw-" + login)
    conninfo, schema = split_url(url)
    conn = psycopg.connect(conninfo, user=login, password="pw-" + login, autocommit=True)
    conn.execute(f"SET search_path TO {schema}")
    return conn


def test_public_login_cannot_select_restricted_text_directly(seed_url):
    conn = login_connection(seed_url, "public", "t_public")
    try:
        sql = "SELECT u.text FROM units u JOIN documents d ON d.ord = u.doc_ord WHERE u.doc_ref = %s"
        with conn.transaction():
            conn.execute("SET LOCAL chainret.view = 'revised'")
            assert conn.execute(sql, (RESTRICTED,)).fetchall() == []
            assert conn.execute("SELECT count(*) FROM units WHERE doc_ref = %s", (RESTRICTED,)).fetchone()[0] == 0
            assert conn.execute("SELECT count(*) FROM documents WHERE ref = %s", (RESTRICTED,)).fetchone()[0] == 0
            assert conn.execute(
                "SELECT count(*) FROM relation_quotes q JOIN relations r ON r.ord = q.rel_ord WHERE r.document = 'findings.md'"
            ).fetchone()[0] == 0
            assert conn.execute("SELECT count(*) FROM units WHERE doc_ref = 'registry/projects.md@v2'").fetchone()[0] > 0
        # Without a view the policies show no text at all.
        assert conn.execute("SELECT count(*) FROM units").fetchone()[0] == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE units SET text = 'x'")
    finally:
        conn.close()
    auditor = login_connection(seed_url, "auditor", "t_auditor")  # the login granted the auditor sees it, same policy
    try:
        with auditor.transaction():
            auditor.execute("SET LOCAL chainret.view = 'revised'")
            assert len(auditor.execute("SELECT u.text FROM units u WHERE u.doc_ref = %s", (RESTRICTED,)).fetchall()) > 0
    finally:
        auditor.close()


def test_asks_run_as_the_reader_role_and_match_memory(seed_url):
    store = open_store(seed_url)
    try:
        assert store.db.rows("SELECT current_user")[0][0] == Roles(split_url(seed_url)[1]).app
        cat = load_world(SEED).catalog
        for request, view, principal in REQUESTS:
            assert trace_json(ask(request, store, view=view, principal=principal)) == trace_json(ask(request, cat, view=view, principal=principal))
    finally:
        store.close()


def test_update_in_postgres_equals_a_rebuild(pg_url):  # noqa: F811
    v1, v2 = versions()
    url = new_schema_url(pg_url)
    compile_store(v1, url)
    old = ask("Which contact serves PR-84?", url, view="final")
    added = update_store(v2, url)
    assert added["documents"] == 2 and added["views"] == 1
    assert_answers_as(url, v2)
    # The trace verifies against the PostgreSQL store itself: cited text is read as the trace's
    # principal in a view holding it, and v1's identity is in the store's history (an update since).
    assert verify(old, url).status == "evidence_intact"
    # Without --catalog the trace's own URL is used (no longer folded like a path).
    assert verify(old).status == "evidence_intact"
    # A rebuilt file never had v1's identity: a difference, not a false "intact".
    assert verify(old, str(_v2_db(v2))).status == "mismatch"


def assert_answers_as(url: str, cat) -> None:
    """Every store request (``test_store_cli.REQUESTS``) asked of the store at ``url`` traces as of ``cat``."""
    live = open_store(url)
    try:
        for request, view, principal in REQUESTS:
            assert trace_json(ask(request, live, view=view, principal=principal)) == trace_json(ask(request, cat, view=view, principal=principal))
    finally:
        live.close()


def _v2_db(cat):
    import tempfile
    from pathlib import Path

    out = Path(tempfile.mkdtemp()) / "v2.db"
    compile_store(cat, out)
    return out


def test_missing_schema_is_not_a_chainret_store(pg_url):  # noqa: F811
    from chainret.store.base import StoreError

    with pytest.raises(StoreError, match="is not a chainret store"):
        open_store(pg_url + ("&" if "?" in pg_url else "?") + "schema=nothing_here")
