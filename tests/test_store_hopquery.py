"""SQLite's one-statement-per-hop path (``chainret.store.hopquery``, the default) and the per-lookup reads
(``SQLStore.hop_query = False``, what PostgreSQL runs) each answer byte-for-byte as the in-memory engine:
every golden trace's fixture case and generated worlds with several views, restricted and removed text,
narrower viewers and small row budgets (hub fallback included)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_worlds import as_schema_4, as_schema_7, as_schema_10, as_schema_11, as_schema_12, random_catalog, random_requests, trace_json

from chainret.engine import search
from chainret.pipeline.ask import answer, ask
from chainret.catalog.load import apply_overlay, load_world
from chainret.core.errors import ChainretError
from chainret.store import compile_store, open_store
from chainret.store import hopquery
from chainret.store.sqlite import SQLiteStore
from chainret.trace.model import Budget

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(params=[True, False], ids=["one-statement", "per-lookup"])
def hop_query(request, monkeypatch):
    monkeypatch.setattr(SQLiteStore, "hop_query", request.param)
    return request.param


def _json(cat, store, request, **kw):
    try:
        return trace_json(ask(request, cat if store is None else store, **kw))
    except ChainretError as exc:
        return f"{type(exc).__name__}: {exc}"


def test_fixture_requests_identical(hop_query, tmp_path):
    n = 0
    for wdir in sorted(p for p in (ROOT / "fixtures").iterdir() if (p / "cases.yaml").exists()):
        w = load_world(wdir)
        for i, case in enumerate(w.cases):
            cat = apply_overlay(w.catalog, case.overlay)
            db = tmp_path / f"{wdir.name}-{i}.db"
            compile_store(cat, db)
            store = open_store(db)
            try:
                assert store.hop_query is hop_query
                for principal in ("public", "auditor"):
                    kw = dict(view=case.view, principal=principal)
                    assert _json(store, store, case.request, **kw) == _json(cat, None, case.request, **kw), (case.id, principal)
                    n += 1
            finally:
                store.close()
    assert n >= 58


@pytest.mark.slow  # ~5 s a path: 40 generated worlds
def test_random_worlds_identical(hop_query, tmp_path_factory, monkeypatch):
    monkeypatch.setattr(hopquery, "CAND_MAX", 2)  # small worlds reach the hub fallback too
    monkeypatch.setattr(hopquery, "PAIR_MAX", 2)  # and pairs too large to read (counted: SQLView.census)
    monkeypatch.setattr(search, "HUB_UNITS", 0)  # and every term's ranking is kept, cut after 2 units (HubRankings)
    monkeypatch.setattr(search, "KEEP_RANKED", 2)
    counts: Counter[str] = Counter()

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(cat=random_catalog(), data=st.data())
    def identical(cat, data):
        db = tmp_path_factory.mktemp("w") / "w.db"
        compile_store(cat, db)
        store = open_store(db)
        draws = random_requests(cat)
        try:
            for _ in range(8):
                words, slot, view, principal, viewer, rows, backtrack, project = data.draw(draws)
                kw = dict(view=view, principal=principal, viewer=viewer, budget=Budget(rows_per_hop=rows), backtrack=backtrack, project=project)
                got = _json(store, store, words.format(slot), **kw)
                assert got == _json(cat, None, words.format(slot), **kw), (words.format(slot), kw)
                counts["requests"] += 1
                counts["accepted"] += '"outcome":"accepted_path"' in got.replace(" ", "")
        finally:
            store.close()

    identical()
    assert counts["requests"] >= 300
    assert counts["accepted"] > 0


@pytest.fixture
def seed(tmp_path):
    """The seed world, its compiled store, and the statements the store's connection runs (as bound)."""
    w = load_world(ROOT / "fixtures" / "seed")
    db = tmp_path / "seed.db"
    compile_store(w.catalog, db)
    store = open_store(db)
    seen: list[str] = []
    store.db.conn.set_trace_callback(seen.append)
    try:
        yield w, store, seen
    finally:
        store.close()


def test_default_first_ask_reads_per_lookup_then_one_statement_per_hop(seed):
    """The default (``hop_query`` None): a (view, principal) pair's first ask reads no view facts (no bulk
    read of ``view_docs``, what a one-ask CLI process would pay for nothing); its later asks read the facts
    once and then run one statement per hop. Every ask answers as the in-memory engine."""
    w, store, seen = seed
    assert store.hop_query is None
    request = "Which contact serves PR-84?"
    per_ask = []
    for _ in range(3):
        seen.clear()
        assert _json(store, store, request) == _json(w.catalog, None, request)
        per_ask.append(list(seen))
    first, second, third = per_ask
    assert not any("FROM view_docs WHERE view_name" in s for s in first)  # no facts on the first ask
    assert any("FROM view_docs WHERE view_name" in s for s in second)  # read once, on the second
    assert not any(s in ("BEGIN", "COMMIT") for s in third), third  # an immutable file needs no read transaction
    # (the trace's log proofs have statements of their own, test_store_log: the log's tables, and the cited units and relations)
    reads = [s for s in third if "log_" not in s and not s.startswith(("SELECT 'u', ref, ord", "SELECT 'r', id, ord"))]
    hops = [s for s in reads if "FROM postings WHERE term" in s]
    assert len(hops) == 2 and len(reads) <= 3, reads  # two hops, two statements (and the name lookup)
    assert not any("view_docs" in s for s in third)


def test_answer_reads_its_path_names_in_one_statement(seed):
    """``answer``'s display names of the path: the bridge and the answer in one statement (issue 24: a served
    request read each by its own statement; the start's record came with its name lookup), the same names
    as the in-memory catalog gives."""
    w, store, seen = seed
    got = answer("Which contact serves PR-84?", store)
    by_id = [s for s in seen if "FROM entities WHERE id" in s]
    assert len(by_id) == 1 and "IN (" in by_id[0], by_id
    assert "org:final:south" in by_id[0] and "contact:final:field" in by_id[0]  # (the callback shows the bound values)
    assert "project:final:main" not in by_id[0]  # resolved by name: its record was read then
    assert got.names == answer("Which contact serves PR-84?", w.catalog).names
    assert list(got.names) == got.trace.path_ids and len(got.names) == 3


@pytest.mark.parametrize("one_statement", [False, True], ids=["per-lookup", "one-statement"])
# (a relation's digest and quote are read from its document version's and its unit's rows: store schema 8)
@pytest.mark.parametrize(("table", "column", "key", "of"), [("relation_rows", "note", "ord", "ord"), ("documents", "digest", "ord", "doc_ord"),
                                                            ("documents", "text", "ord", "doc_ord")])
def test_a_blob_where_the_compile_writes_text_refuses_the_store_naming_it(tmp_path, one_statement, table, column, key, of):
    """No compile writes a BLOB (every column is text or an integer): a store edited to hold one is refused with a
    ``StoreError`` that names the file, never answered from bytes or failed with a traceback. The per-lookup reads
    check every value ``SQLiteBackend.rows`` returns; the hop statement hands its rows over as JSON
    (``hopquery.HOP_SQL``), which cannot hold a BLOB (a server answers ``engine_error``, the CLI exits 2)."""
    import sqlite3

    from chainret.catalog.load import load_catalog
    from chainret.store.base import StoreError

    db = tmp_path / "edited.db"
    compile_store(load_catalog(ROOT / "catalogs" / "default.yaml"), db)
    with sqlite3.connect(db) as conn:
        conn.execute(f"UPDATE {table} SET {column} = x'00ff' WHERE {key} IN "
                     f"(SELECT {of} FROM relations WHERE subject = 'project:final:main')")
    conn.close()
    store = open_store(db)
    store.hop_query = one_statement  # the hop statement from a pair's first ask, or never
    try:
        with pytest.raises(StoreError) as err:
            ask("Which contact serves PR-84?", store)
        assert str(db) in str(err.value) and "recompile" in str(err.value)
        assert ("project:final:main" if one_statement else "BLOB") in str(err.value)
    finally:
        store.close()


def test_a_schema_4_store_joins_each_posting_to_its_unit_and_answers_the_same(tmp_path):
    """Store schema 5's postings carry their unit's token count and ref (schema 8: its index, whose ref the hop writes),
    which the hop statement reads instead of joining ``units``; a store compiled before (schema 4, still read) has
    neither column: its hops join, and every fixture request answers as the in-memory engine, as on a current store,
    and as on a store whose postings hold the ref (schemas 5 to 7), or every term as text (schema 10: 11 keeps an ID as its
    entity's ordinal, ``schema.TERM_KEY``), or their unit's columns (11: 12 joins each posting to its unit's row,
    ``schema.LEAN_POSTINGS``), or their words as text (12: 13 keeps a word by its code, ``schema.WORD_CODES``)."""
    w = load_world(ROOT / "fixtures" / "seed")
    stores = {}
    for schema in (13, 12, 11, 10, 4, 7):
        db = tmp_path / f"seed-{schema}.db"
        compile_store(w.catalog, db)
        if schema == 12:
            as_schema_12(db)
        if schema == 11:
            as_schema_11(db)
        if schema == 10:
            as_schema_10(db)
        if schema == 4:
            as_schema_4(db)
        if schema == 7:
            as_schema_7(db)
        stores[schema] = open_store(db)
    try:
        assert [stores[s].postings_unit for s in (13, 12, 11, 10, 4, 7)] == ["coded", "lean", "keyed", "idx", "joined", "ref"]
        n = 0
        for case in w.cases:
            for principal in ("public", "auditor"):
                kw = dict(view=case.view, principal=principal)
                memory = _json(w.catalog, None, case.request, **kw)
                for _ in range(2):  # a pair's second ask runs the hop statement
                    for store in stores.values():
                        assert _json(store, store, case.request, **kw) == memory, (case.id, principal)
                n += 1
        assert n >= 20
        seen: list[str] = []
        for schema, store in stores.items():
            seen.clear()
            store.db.conn.set_trace_callback(seen.append)
            ask("Which contact serves PR-84?", store)
            joined = [s for s in seen if "FROM postings p JOIN units u ON u.ord = p.unit_ord WHERE p.term" in s]
            assert len(joined) == (2 if schema in (4, 12, 13) else 0), (schema, seen)
    finally:
        for store in stores.values():
            store.close()


def test_the_hop_statement_looks_up_the_predicates_word_only_where_two_units_hold_the_node(tmp_path):
    """The third array of a 1.1 hop's statement (the node's units that hold the predicate's word, ``_STATING``), with
    the word given as the store keeps it (``HopQuery.word_term``), is the predicate's postings among the node's units
    wherever two or more units hold the node, and '[]' where one at most does (a single row is first either way).
    Negative control: some node's units that hold the word are neither none nor all of its units, so there an empty
    array would rank its rows otherwise (``stating_first``), and the comparison reads the real array."""
    w = load_world(ROOT / "fixtures" / "seed")
    db = tmp_path / "seed.db"
    compile_store(w.catalog, db)
    store = open_store(db)
    try:
        view = store.view(None, "auditor")
        reader = store.hop_world(view).reader
        reader = store.hop_world(view).reader if not isinstance(reader, hopquery.HopQuery) else reader  # (a pair's second ask)
        assert isinstance(reader, hopquery.HopQuery)
        conn = store.db.conn
        term_of = f"SELECT {store.term_sql}"
        mixed = 0
        for e in w.catalog.entities:
            node = e.id
            units = {u for (u,) in conn.execute(f"SELECT unit_ord FROM postings WHERE term = ({term_of})", (node.lower(),))}
            for pred in w.catalog.predicates:
                word = reader.word_term(pred.name)
                assert word == conn.execute(term_of, (pred.name.lower(),)).fetchone()[0]
                holding = {u for (u,) in conn.execute("SELECT unit_ord FROM postings WHERE term = ?", (word,))} & units
                row = conn.execute(reader.sql_stating, (node.lower(), hopquery.CAND_MAX + 1, node, pred.name, hopquery.PAIR_MAX + 1,
                                                        node.lower(), word, node.lower(), hopquery.CAND_MAX + 1)).fetchone()
                got = set(json.loads(row[2]))
                assert got == (holding if len(units) > 1 else set()), (node, pred.name)
                mixed += len(units) > 1 and 0 < len(holding) < len(units)
        assert mixed > 0
    finally:
        store.close()
