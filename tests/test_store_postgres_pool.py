"""PostgreSQL reads: one transaction per ask with the principal's role, and one store object shared by threads.

``read_scope`` holds one pooled connection in one read-only transaction for a whole ask; inside it
every statement must still run as exactly the role and view its read names (the permission
guarantee of issue 21), and a store object must answer several threads at once as it answers one.
"""

from __future__ import annotations

import threading

import pytest
from store_worlds import new_schema_url, pg_url, trace_json  # noqa: F401
from test_store_cli import REQUESTS, SEED

from chainret.pipeline.ask import ask
from chainret.catalog.load import load_world
from chainret.store import compile_store, open_store
from chainret.store.postgres import PostgresStore, Roles, split_url

psycopg = pytest.importorskip("psycopg")

RESTRICTED = "audit/findings.md@v1"  # restricted to the auditor in the seed world
WHO = "SELECT pg_backend_pid(), transaction_timestamp(), current_user, current_setting('chainret.view', true)"


@pytest.fixture(scope="module")
def store(pg_url):  # noqa: F811
    url = new_schema_url(pg_url)
    compile_store(load_world(SEED).catalog, url)
    s = open_store(url)
    yield s
    s.close()


def test_one_scope_is_one_transaction_and_each_read_runs_as_the_role_and_view_it_names(store):
    roles = Roles(split_url(store.db.url)[1])
    auditor = store.db.role_for("auditor")
    assert auditor != roles.read
    with store.read_scope("auditor"):
        a = store.db.rows(WHO, (), "revised", "auditor")[0]
        meta = store.db.rows(WHO)[0]
        pub = store.db.rows(WHO, (), "final", "public")[0]
        again = store.db.rows(WHO, (), "revised", "auditor")[0]
        restricted_as_public = store.db.rows("SELECT count(*) FROM units WHERE doc_ref = ?", (RESTRICTED,), "revised", "public")[0][0]
        restricted_as_auditor = store.db.rows("SELECT count(*) FROM units WHERE doc_ref = ?", (RESTRICTED,), "revised", "auditor")[0][0]
    assert len({(r[0], r[1]) for r in (a, meta, pub, again)}) == 1  # one backend, one transaction
    assert [(r[2], r[3]) for r in (a, meta, pub, again)] == [
        (auditor, "revised"), (roles.app, ""), (roles.read, "final"), (auditor, "revised")]
    assert restricted_as_public == 0 and restricted_as_auditor > 0
    outside = store.db.rows(WHO, (), "revised", "public")[0]
    assert (outside[2], outside[3]) == (roles.read, "revised")
    assert (outside[0], outside[1]) != (a[0], a[1])  # a new transaction outside the scope


def test_a_failed_statement_does_not_poison_the_rest_of_the_scope(store):
    with store.read_scope("public"):
        with pytest.raises(psycopg.errors.UndefinedTable):
            store.db.rows("SELECT * FROM no_such_table", (), "revised", "public")
        assert store.db.rows("SELECT current_user", (), "revised", "public")[0][0] == store.db.role_for("public")
        assert store.db.rows("SELECT count(*) FROM units WHERE doc_ref = ?", (RESTRICTED,), "revised", "public")[0][0] == 0


def test_one_store_shared_by_threads_answers_as_it_does_alone(store):
    url = store.db.url
    shared = PostgresStore(url, max_connections=3)  # fewer connections than threads: some wait for one
    alone = {r: trace_json(ask(r[0], store, view=r[1], principal=r[2])) for r in REQUESTS}
    got: list[tuple[tuple[str, str | None, str], str]] = []
    errors: list[BaseException] = []

    def run(k: int) -> None:
        try:
            for _ in range(3):
                for r in REQUESTS[k % len(REQUESTS):] + REQUESTS[: k % len(REQUESTS)]:
                    got.append((r, trace_json(ask(r[0], shared, view=r[1], principal=r[2]))))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    shared.close()
    assert errors == []
    assert len(got) == 8 * 3 * len(REQUESTS)
    assert [r for r, trace in got if trace != alone[r]] == []
