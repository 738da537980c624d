"""What a login learns about text it may not read from the PostgreSQL store's figures and the planner.

It cannot: read another principal class's corpus size, tell from ``EXPLAIN``'s estimates whether a word
occurs only in restricted text (the writer keeps no value statistics on the protected tables), or count
such rows with ``EXPLAIN ANALYZE``: ``postings`` carries each row's reader class and its policy's class test
is part of any index scan's condition (``chainret.store.postgres.CLASSED_POLICY``), so a scan of a word only
restricted text holds fetches no row, neither a plain read of the postings nor the hop statement the engine
runs. What it still can (docs/scaling.md says so): a sequential scan's removed rows are the table's row count
less the visible matches, the same for every word (the size ``pg_class.reltuples`` shows anyway). The old
policy (the readers tested per row, after the index condition) is the negative control: its scan counts them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from store_worlds import new_schema_url, pg_url  # noqa: F401
from test_store_cli import versions
from test_store_postgres import SEED, assert_answers_as, login_connection

from benchmarks.harness.guards import N_SECRET
from chainret.authoring.lock import lock
from chainret.catalog.load import load_world
from chainret.store import compile_store, update_store
from chainret.store import postgres as pg
from chainret.store.postgres import PostgresStore, split_url

psycopg = pytest.importorskip("psycopg")  # the test extra installs it; CI runs these

SECRET = "zephyrquartz"  # a word only restricted text holds, in many units
ABSENT = "quinoxalbert"  # a word no text holds
PUBLIC_WORD = "rowan"  # a word public text holds
VIEW = "final"  # holds the restricted document (audit/findings.md@v1)


def _compile(pg_url: str) -> str:  # noqa: F811
    cat = load_world(SEED).catalog
    docs = [d.model_copy(update={"text": d.text + "".join(f"\n{SECRET.title()} item {i}.\n" for i in range(N_SECRET))})
            if d.ref == "audit/findings.md@v1" else d for d in cat.documents]
    cat = lock(cat.model_copy(update={"documents": docs}), force=True).catalog
    u = new_schema_url(pg_url)
    compile_store(cat, u)
    return u


@pytest.fixture(scope="module")
def url(pg_url):  # noqa: F811
    return _compile(pg_url)


@pytest.fixture(scope="module")
def public(url):
    conn = login_connection(url, "public", "t_stats_public")
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def old_shape(pg_url):  # noqa: F811
    """Negative control: a store whose ``postings`` policy is the old one (``POLICY``: the readers tested per row)."""
    u = _compile(pg_url)
    conninfo, schema = split_url(u)
    with psycopg.connect(conninfo, autocommit=True) as dba:
        dba.execute(f"ALTER POLICY chainret_read ON {schema}.postings USING "
                    f"({pg.POLICY.format(s=schema, col='postings.doc_ord')})")
    conn = login_connection(u, "public", "t_stats_old_public")
    yield conn
    conn.close()


def estimate(conn, word: str) -> int:
    plan = conn.execute("EXPLAIN (FORMAT JSON) SELECT * FROM postings WHERE term = %s", (word,)).fetchone()[0]
    return int(plan[0]["Plan"]["Plan Rows"])


def walk(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in node.get("Plans", []):
        yield from walk(child)


def analyze(conn, sql: str, params: tuple[object, ...], *, scans: str = "index") -> dict[str, int]:
    """EXPLAIN ANALYZE ``sql`` in view ``VIEW``: the rows its scans of ``postings`` removed by a filter, fetched (an
    index scan's returned and removed rows, a bitmap index scan's matches) and returned, and the rows any node of
    the plan removed by a filter. ``scans``: ``index`` (sequential scans off) or ``seq`` (index and bitmap scans off)."""
    off = ("enable_seqscan",) if scans == "index" else ("enable_indexscan", "enable_bitmapscan", "enable_indexonlyscan")
    with conn.transaction():
        conn.execute("SELECT set_config('chainret.view', %s, true)", (VIEW,))
        for setting in off:
            conn.execute(f"SET LOCAL {setting} = off")
        plan = conn.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params).fetchone()[0][0]["Plan"]
    nodes = list(walk(plan))
    on_postings = [n for n in nodes if n.get("Relation Name") == "postings" or "postings" in n.get("Index Name", "")]
    kinds = {n["Node Type"] for n in on_postings}
    assert kinds & ({"Index Scan", "Bitmap Index Scan"} if scans == "index" else {"Seq Scan"}), kinds  # the scan asked for
    fetched = sum(int(n["Actual Rows"]) + int(n.get("Rows Removed by Filter", 0)) for n in on_postings
                  if n["Node Type"] in ("Index Scan", "Index Only Scan", "Seq Scan"))
    fetched += sum(int(n["Actual Rows"]) for n in on_postings if n["Node Type"] == "Bitmap Index Scan")  # (its heap scan's)
    return {"removed": sum(int(n.get("Rows Removed by Filter", 0)) for n in on_postings), "fetched": fetched,
            "returned": sum(int(n["Actual Rows"]) for n in on_postings if n["Node Type"] != "Bitmap Index Scan"),
            "removed anywhere": sum(int(n.get("Rows Removed by Filter", 0)) for n in nodes)}


POSTINGS_READ = "SELECT * FROM postings WHERE term = %s"
NOTHING = {"removed": 0, "fetched": 0, "returned": 0, "removed anywhere": 0}


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


def misclassed(url: str) -> tuple[int, dict[int, list[str]]]:
    """(postings rows whose class's principals are not their document's ``readers``, each class's principals)."""
    conninfo, schema = split_url(url)
    with psycopg.connect(conninfo, autocommit=True) as dba:
        dba.execute(f"SET search_path TO {schema}")
        wrong = dba.execute(
            "SELECT count(*) FROM postings p WHERE coalesce((SELECT array_agg(r.principal ORDER BY r.principal) FROM readers r "
            "WHERE r.doc_ord = p.doc_ord), '{}') IS DISTINCT FROM coalesce((SELECT array_agg(c.principal ORDER BY c.principal) "
            "FROM reader_classes c WHERE c.cls = p.cls), '{}')").fetchone()[0]
        classes = dict(dba.execute("SELECT cls, array_agg(principal ORDER BY principal) FROM reader_classes GROUP BY cls").fetchall())
    return wrong, classes


def test_every_postings_row_carries_the_class_of_its_documents_readers(url):
    """The class column is the policy's whole reader test: it must say what ``readers`` says, row by row."""
    assert misclassed(url) == (0, {pg.PUBLIC_CLASS: ["*"], pg.PUBLIC_CLASS + 1: ["auditor"]})


@pytest.mark.parametrize("word", [SECRET, ABSENT])
def test_explain_analyze_of_an_index_scan_fetches_no_restricted_row(public, word):
    got = analyze(public, POSTINGS_READ, (word,))
    assert got == NOTHING


def test_explain_analyze_of_the_hop_statement_fetches_no_restricted_row(url, public):
    """The statement the engine runs for a hop (``HopStatement``, ``hop_sql``), captured as sent, analysed as the login."""
    store = PostgresStore(url)
    sent: list[tuple[str, tuple[object, ...]]] = []
    orig = store.pg.rows

    def capture(sql, params=(), view=None, principal=None):  # type: ignore[no-untyped-def]
        sent.append((sql, tuple(params)))
        return orig(sql, params, view, principal)

    try:
        store.pg.rows = capture  # type: ignore[method-assign]
        reader = store.hop_world(store.view(VIEW, "public")).reader
        for word in (SECRET, PUBLIC_WORD):
            reader.search(word, "contact", 5)
    finally:
        store.close()
    hops = [(sql, params) for sql, params in sent if sql.startswith("WITH c AS MATERIALIZED")]
    assert [p[0] for _, p in hops] == [SECRET, PUBLIC_WORD]
    (secret_sql, secret_params), (public_sql, public_params) = hops
    assert analyze(public, pg._sql(secret_sql), secret_params) == NOTHING
    assert analyze(public, pg._sql(public_sql), public_params)["returned"] > 0  # (the analysis sees a hop's rows)


def test_what_a_sequential_scan_still_shows_is_the_table_size(url, public):
    """Documented residual (docs/scaling.md): a sequential scan fetches every row, so its removed rows are the
    table's row count less the visible matches, the same for every word not in readable text (``reltuples`` shows
    about as much to any login)."""
    conninfo, schema = split_url(url)
    with psycopg.connect(conninfo, autocommit=True) as dba:
        total = dba.execute(f"SELECT count(*) FROM {schema}.postings").fetchone()[0]
    seen = {w: analyze(public, POSTINGS_READ, (w,), scans="seq") for w in (SECRET, ABSENT, PUBLIC_WORD)}
    assert seen[SECRET] == seen[ABSENT]  # a restricted-only word looks like an absent one
    for got in seen.values():  # every row fetched; removed = the row count less the visible matches
        assert got["fetched"] == total and got["removed"] == total - got["returned"]
    assert seen[SECRET]["returned"] == 0 < seen[PUBLIC_WORD]["returned"]


def test_negative_control_the_old_policy_lets_explain_analyze_count_the_restricted_rows(old_shape):
    """The readers tested per row (the policy before reader classes) is a filter after the index condition:
    EXPLAIN ANALYZE counts the rows it removed, for the plain read and the index scan alike."""
    got = analyze(old_shape, POSTINGS_READ, (SECRET,))
    assert (got["removed"], got["fetched"], got["returned"]) == (N_SECRET, N_SECRET, 0)
    assert analyze(old_shape, POSTINGS_READ, (ABSENT,)) == NOTHING


def _unclassed(url: str) -> None:
    """Turn a compiled store back into one written before reader classes (the per-row policy on ``postings``)."""
    conninfo, schema = split_url(url)
    with psycopg.connect(conninfo, autocommit=False) as dba:
        dba.execute(f"SET LOCAL search_path TO {schema}")
        dba.execute("DROP POLICY chainret_read ON postings")
        dba.execute("DROP INDEX postings_doc")
        dba.execute("ALTER TABLE postings DROP CONSTRAINT postings_pkey, DROP COLUMN cls, ADD PRIMARY KEY (term, unit_ord)")
        dba.execute("CREATE INDEX postings_doc ON postings (doc_ord)")
        dba.execute(f"DROP FUNCTION {schema}.chainret_classes()")
        dba.execute("DROP TABLE reader_classes")
        dba.execute(f"CREATE POLICY chainret_read ON postings FOR SELECT USING ({pg.POLICY.format(s=schema, col='postings.doc_ord')})")


def test_an_update_classes_a_store_written_before_reader_classes(pg_url):  # noqa: F811
    v1, v2 = versions()
    url = new_schema_url(pg_url)
    compile_store(v1, url)
    _unclassed(url)
    update_store(v2, url)
    wrong, classes = misclassed(url)
    assert wrong == 0 and classes[pg.PUBLIC_CLASS] == ["*"]
    conninfo, schema = split_url(url)
    with psycopg.connect(conninfo, autocommit=True) as dba:
        key = dba.execute("SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = %s::regclass AND indisprimary",
                          (f"{schema}.postings",)).fetchone()[0]
        policy = dba.execute("SELECT qual FROM pg_policies WHERE schemaname = %s AND tablename = 'postings'", (schema,)).fetchone()[0]
    assert key.endswith(f"({pg.CLASSED_KEY})") and "chainret_classes()" in policy
    assert_answers_as(url, v2)


def test_a_custom_plan_is_asked_for_one_metadata_read_and_the_generic_plan_comes_back(url):
    """``rows_custom_plan`` (a hub pair's census reads on ``relations``, whose statistics any login reads) sets
    ``force_custom_plan`` for its statement only: the next read in the same transaction, which may be of protected
    text, runs with the sessions' generic plans again (the negative control: the custom read itself does not)."""
    store = PostgresStore(url)
    try:
        with store.db.read_scope("public"):
            shown = [store.db.rows("SHOW plan_cache_mode", (), VIEW, "public")[0][0],
                     store.db.rows_custom_plan("SHOW plan_cache_mode", (), VIEW, "public")[0][0],
                     store.db.rows("SHOW plan_cache_mode", (), VIEW, "public")[0][0]]
        assert shown == ["force_generic_plan", "force_custom_plan", "force_generic_plan"]
        assert store.db.rows("SHOW plan_cache_mode", (), VIEW, "public")[0][0] == "force_generic_plan"  # a new transaction
    finally:
        store.close()
