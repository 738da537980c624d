"""Who may read a document version is one rule (``chainret.catalog.models.document_readable``); the compiled
stores render it four more times: the ``readers`` rows that the compiler of a new store and an update write,
``READABLE`` in SQL for the reader stores, ``ViewFacts`` (the same answers read once for the hop statements),
and PostgreSQL's row-level security ``POLICY``. Each rendering is held to the rule here, for every (view,
principal, document version) of catalogs whose visibilities are drawn at random.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_worlds import grown_by_update, new_schema_url, pg_url  # noqa: F401
from benchmarks.harness.catalogs import changed

from chainret.catalog.load import load_world
from chainret.catalog.models import Catalog, document_readable, reader_rows
from chainret.store import compile_store, open_reader
from chainret.store.sqlrows import READABLE

SEED = Path(__file__).resolve().parents[1] / "fixtures" / "seed"
PRINCIPALS = ("public", "auditor", "ops", "nobody-named")  # the last is named by no document
SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

visibility = st.sampled_from(["public", "restricted", "removed"])
named = st.lists(st.sampled_from(PRINCIPALS[:3]), max_size=3)


def _seed() -> Catalog:
    return load_world(SEED).catalog


def with_visibilities(cat: Catalog, draws: list[tuple[str, list[str]]]) -> Catalog:
    docs = []
    for d, (vis, who) in zip(cat.documents, draws, strict=False):
        docs.append(d.model_copy(update={"visibility": vis, "principals": who if vis == "restricted" else []}))
    docs.extend(cat.documents[len(docs):])
    return changed(cat, documents=docs)


def expected(cat: Catalog) -> dict[tuple[str, str], set[str]]:
    """(view, principal) -> the document versions the rule lets that principal read in that view."""
    by_ref = cat.documents_by_ref
    return {(v.name, p): {r for r in v.documents if by_ref[r].readable_by(p)} for v in cat.views for p in PRINCIPALS}


def sqlite_readable(db: Path, cat: Catalog) -> dict[tuple[str, str], set[str]]:
    with sqlite3.connect(db) as c:
        sql = "SELECT d.ref FROM documents d WHERE " + READABLE.format(col="d.ord")
        return {(v.name, p): {r for (r,) in c.execute(sql, (v.name, p))} for v in cat.views for p in PRINCIPALS}


def viewfacts_readable(db: Path, cat: Catalog) -> dict[tuple[str, str], set[str]]:
    store = open_reader(db)
    with sqlite3.connect(db) as c:
        ref_of = dict(c.execute("SELECT ord, ref FROM documents"))
    return {(v.name, p): {ref_of[d] for d in store.view_facts(v.name, p).readable} for v in cat.views for p in PRINCIPALS}


def agrees_with_the_rule(render) -> bool:
    """Whether a ``readers`` rendering gives ``document_readable``'s answer for every visibility, list and principal."""
    return all(
        document_readable(vis, who, p) == ("*" in render(vis, who) or p in render(vis, who))
        for vis in ("public", "restricted", "removed")
        for who in ([], ["auditor"], ["auditor", "ops", "auditor"])
        for p in PRINCIPALS
    )


def test_reader_rows_render_the_rule():
    assert agrees_with_the_rule(reader_rows)


def test_a_wrong_rendering_is_caught():
    """Negative control: a rendering that lets a restricted version be read by everyone disagrees."""
    assert not agrees_with_the_rule(lambda vis, who: ["*"] if vis != "removed" else [])


@SETTINGS
@given(draws=st.lists(st.tuples(visibility, named), min_size=1, max_size=12))
def test_a_compile_an_update_and_the_sql_hold_to_the_rule(draws, tmp_path_factory):
    cat = with_visibilities(_seed(), draws)
    tmp = tmp_path_factory.mktemp("perm")
    updated, streamed = tmp / "updated.db", tmp / "streamed.db"
    grown_by_update(cat, updated)  # the rows an update writes
    compile_store(cat, streamed)  # a new store's: record by record
    want = expected(cat)
    for db in (updated, streamed):
        with sqlite3.connect(db) as c:
            readers = sorted(c.execute("SELECT d.ref, r.principal FROM readers r JOIN documents d ON d.ord = r.doc_ord"))
        assert readers == sorted((d.ref, p) for d in cat.documents for p in d.reader_rows()), db.name
        assert sqlite_readable(db, cat) == want, db.name
        assert viewfacts_readable(db, cat) == want, db.name


def test_the_sql_check_catches_a_changed_readers_row(tmp_path):
    """Negative control: one forged ``readers`` row (a restricted version opened to everyone) breaks parity."""
    cat = with_visibilities(_seed(), [("restricted", ["auditor"])] * len(_seed().documents))
    db = tmp_path / "s.db"
    compile_store(cat, db)
    with sqlite3.connect(db) as c:
        c.execute("INSERT INTO readers (doc_ord, principal) VALUES (0, '*')")
    assert sqlite_readable(db, cat) != expected(cat)
    assert viewfacts_readable(db, cat) != expected(cat)


FIXED = [
    [("public", [])] * 12,
    [("restricted", ["auditor"]), ("removed", []), ("restricted", ["ops", "auditor"])] * 4,
    [("restricted", []), ("public", []), ("restricted", ["ops"])] * 4,
]


@pytest.mark.parametrize(("draws", "forge"), [(FIXED[0], False), (FIXED[1], False), (FIXED[2], False), (FIXED[1], True)],
                         ids=["public", "mixed", "nobody", "forged-row-is-caught"])
def test_the_postgres_policy_holds_to_the_rule(draws, forge, pg_url):  # noqa: F811
    """Each principal's role (no role: the read role alone, as a login granted ``public``) sees, under row-level
    security, exactly the document versions the rule lets it read in the session's view. Negative control
    (``forge``): a ``readers`` row opening a restricted version to everyone is seen through the policy."""
    psycopg = pytest.importorskip("psycopg")
    from chainret.store.postgres import Roles, split_url

    cat = with_visibilities(_seed(), draws)
    url = new_schema_url(pg_url)
    compile_store(cat, url)
    base, schema = split_url(url)
    roles = Roles(schema)
    named_roles = {p for d in cat.documents if d.visibility == "restricted" for p in d.principals}
    got: dict[tuple[str, str], set[str]] = {}
    with psycopg.connect(base, autocommit=True) as c:
        if forge:
            c.execute(f"INSERT INTO {schema}.readers (doc_ord, principal) VALUES (0, '*')")
        for p in PRINCIPALS:
            c.execute(f"SET ROLE {roles.principal(p) if p in named_roles else roles.read}")
            for v in cat.views:
                c.execute("SELECT set_config('chainret.view', %s, false)", (v.name,))
                got[(v.name, p)] = {r for (r,) in c.execute(f"SELECT ref FROM {schema}.documents")}
            c.execute("RESET ROLE")
    assert (got != expected(cat)) if forge else (got == expected(cat))
