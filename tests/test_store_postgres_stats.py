"""What a login learns about text it may not read from the PostgreSQL store's figures and the planner.

It cannot: read another principal class's corpus size, or tell from ``EXPLAIN``'s estimates whether a word
occurs only in restricted text (the writer keeps no value statistics on the protected tables). It still can
(docs/scaling.md says so): count such rows with ``EXPLAIN ANALYZE`` over an index scan, which reports the rows
the policy removed. This file pins both, so the documentation stays true.
"""

from __future__ import annotations

import pytest
from store_worlds import new_schema_url, pg_url  # noqa: F401
from test_store_postgres import SEED, login_connection

from benchmarks.harness.guards import N_SECRET
from chainret.authoring.lock import lock
from chainret.catalog.load import load_world
from chainret.store import compile_store
from chainret.store.postgres import split_url

psycopg = pytest.importorskip("psycopg")  # the test extra installs it; CI runs these

SECRET = "zephyrquartz"  # a word only restricted text holds, in many units
ABSENT = "quinoxalbert"  # a word no text holds


@pytest.fixture(scope="module")
def url(pg_url):  # noqa: F811
    cat = load_world(SEED).catalog
    docs = [d.model_copy(update={"text": d.text + "".join(f"\n{SECRET.title()} item {i}.\n" for i in range(N_SECRET))})
            if d.ref == "audit/findings.md@v1" else d for d in cat.documents]
    cat = lock(cat.model_copy(update={"documents": docs}), force=True).catalog
    u = new_schema_url(pg_url)
    compile_store(cat, u)
    return u


@pytest.fixture(scope="module")
def public(url):
    conn = login_connection(url, "public", "t_stats_public")
    yield conn
    conn.close()


def estimate(conn, word: str) -> int:
    plan = conn.execute("EXPLAIN (FORMAT JSON) SELECT * FROM postings WHERE term = %s", (word,)).fetchone()[0]
    return int(plan[0]["Plan"]["Plan Rows"])


def test_a_login_reads_the_corpus_figures_of_its_own_class_only(url, public):
    assert {p for (p,) in public.execute("SELECT principal FROM corpus").fetchall()} == {"*"}
    auditor = login_connection(url, "auditor", "t_stats_auditor")  # negative control: the auditor's own figures
    try:
        assert {p for (p,) in auditor.execute("SELECT principal FROM corpus").fetchall()} == {"*", "auditor"}
    finally:
        auditor.close()


def test_explain_estimates_a_restricted_only_word_as_an_absent_one(url, public):
    assert estimate(public, SECRET) == estimate(public, ABSENT)
    # Negative control: with the statistics ANALYZE makes, the estimates tell the two words apart.
    conninfo, schema = split_url(url)
    with psycopg.connect(conninfo, autocommit=True) as dba:
        dba.execute(f"ANALYZE {schema}.postings")
    assert estimate(public, SECRET) > estimate(public, ABSENT)


def test_what_a_login_still_learns_explain_analyze_counts_the_rows_the_policy_removed(public):
    """Documented, not prevented (docs/scaling.md): the policy is a filter after the index condition, and
    EXPLAIN ANALYZE reports how many rows it removed."""

    def removed(word: str) -> int:
        with public.transaction():
            public.execute("SET LOCAL enable_seqscan = off")
            plan = public.execute("EXPLAIN (ANALYZE, FORMAT JSON) SELECT * FROM postings WHERE term = %s", (word,)).fetchone()[0]

        def walk(node):
            yield node
            for child in node.get("Plans", []):
                yield from walk(child)

        return sum(int(n.get("Rows Removed by Filter", 0)) for n in walk(plan[0]["Plan"]))

    assert removed(SECRET) == N_SECRET and removed(ABSENT) == 0
