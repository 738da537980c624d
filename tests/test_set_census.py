"""A set hop's completeness check counted by the stores (``SQLView.census``) says what the in-memory engine says.

A subject with more than ``PAIR_MAX`` values of a many-valued predicate (a group of 90 members here) is no longer
read whole by the hop statement: its usable relations are counted in one aggregate statement and only the first
ids left behind are read. Every trace (answers, "K of N", the reasons naming the relations left behind) must stay
byte-identical to the memory store's, on SQLite (one statement per hop and per-lookup reads) and PostgreSQL.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest
from store_worlds import new_schema_url, pg_url, trace_json  # noqa: F401

from chainret.engine.hops import count_census
from chainret.pipeline.ask import ask
from chainret.store import compile_store, hopquery, open_store, paircensus, sqlview
from chainret.store.sqlite import SQLiteStore
from chainret.trace.model import Budget

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.peers.sets import fan_world, group_world  # noqa: E402

BUDGETS = [None, Budget(rows_per_hop=5), Budget(rows_per_hop=20), Budget(rows_per_hop=95)]


def _worlds():
    return [group_world(90, 300, 2), fan_world(90, 300, 2)]


def _kept(view, *args):
    return paircensus.kept_census(view.store, view.view_name, view.principal, view.within, *args)


def _asks(store, cat, w) -> int:
    n = 0
    for principal in ("public", "auditor"):
        for budget in BUDGETS:
            for q in (w.set_ask.text, *(a.text for a in w.singles)):
                kw = dict(principal=principal, budget=budget)
                assert trace_json(ask(q, store, **kw)) == trace_json(ask(q, cat, **kw)), (w.name, q, principal, budget)
                n += 1
    return n


@pytest.mark.parametrize("pair_max", [hopquery.PAIR_MAX, 0], ids=["hub-pairs", "every-pair-counted"])
@pytest.mark.parametrize("one", [True, False], ids=["one-statement", "per-lookup"])
def test_sqlite_set_traces_equal_the_memory_store(tmp_path, monkeypatch, pair_max, one):
    monkeypatch.setattr(hopquery, "PAIR_MAX", pair_max)
    monkeypatch.setattr(SQLiteStore, "hop_query", one)
    n = 0
    for w in _worlds():
        db = tmp_path / f"{w.name}.db"
        compile_store(w.catalog, db)
        store = open_store(db)
        try:
            for _ in range(2):  # a pair's first ask and its later ones take different paths
                n += _asks(store, w.catalog, w)
        finally:
            store.close()
    assert n == 96


def test_postgres_set_traces_equal_the_memory_store(pg_url, monkeypatch):  # noqa: F811
    from chainret.store import postgres as pg

    for pair_max in (pg.PAIR_MAX, 0):
        monkeypatch.setattr(pg, "PAIR_MAX", pair_max)
        for w in _worlds():
            url = new_schema_url(pg_url)
            compile_store(w.catalog, url)
            store = pg.PostgresStore(url)
            try:
                _asks(store, w.catalog, w)
            finally:
                store.close()


def test_census_counts_what_the_engine_counts_and_the_readable_condition_matters(tmp_path, monkeypatch):
    w = group_world(90, 300, 2)
    db = tmp_path / "g.db"
    compile_store(w.catalog, db)
    store = open_store(db)
    hub, pred = "group:set:hub", "has_member"
    try:
        for principal in ("public", "auditor"):
            view = store.view(None, principal)
            rels = view.rels_of(hub, pred)
            members = sorted({r.object for r in rels})
            units = sorted({r.unit_ref for r in rels if r.unit_ref})
            for followed, returned, on_path in [((), (), ()), (tuple(members[:3]), tuple(units[:3]), ()),
                                                (tuple(members[:50]), tuple(units[:10]), (members[60], hub))]:
                want = count_census(rels, on_path, followed, returned)
                # the counts kept at compile (a hub pair) and the aggregate both say what the engine says
                assert _kept(view, hub, pred, on_path, followed, returned) == want, (principal, len(followed))
                with monkeypatch.context() as m:
                    m.setattr(sqlview, "kept_census", lambda *a: None)
                    assert view.census(hub, pred, on_path, followed, returned) == want, (principal, len(followed))
        public = store.view(None, "public")
        want = count_census(public.rels_of(hub, pred), (), (), ())
        assert want.eligible == 89  # the 90th member's document is the auditor's
        # negative control: without the readable condition the public would count the auditor's member
        with monkeypatch.context() as m:
            m.setattr(sqlview, "kept_census", lambda *a: None)
            m.setattr(sqlview, "READABLE", "({col} = {col} OR ? IS NULL OR ? IS NULL)")
            assert store.view(None, "public").census(hub, pred, (), (), ()).eligible == 90
    finally:
        store.close()


def test_kept_counts_are_per_reader_class_and_a_store_without_them_is_counted(tmp_path, monkeypatch):
    """``pair_counts`` (``chainret.store.paircensus``) keeps a hub pair's counts per view and reader class; a store
    compiled without them (an older one) is counted by the aggregate, with the same census."""
    w = group_world(90, 300, 2)
    hub, pred = "group:set:hub", "has_member"
    db = tmp_path / "g.db"
    compile_store(w.catalog, db)
    store = open_store(db)
    try:
        got = {p: _kept(store.view(None, p), hub, pred, (), (), ()) for p in ("public", "auditor", "someone")}
        assert [got[p].eligible for p in ("public", "auditor", "someone")] == [89, 90, 89]  # an unnamed reader reads as everyone
        assert _kept(store.view(None, "public"), "user:set:u1", "member_of", (), (), ()) is None  # not a hub
    finally:
        store.close()
    # negative control: counts kept without the class's reader condition would give the public the auditor's member
    bare = tmp_path / "bare.db"
    real = paircensus.pair_counts_statements
    monkeypatch.setattr(paircensus, "pair_counts_statements", lambda postgres=False: [s.replace(paircensus._CLASS_READS, "1 = 1") for s in real(postgres)])
    compile_store(w.catalog, bare)
    store = open_store(bare)
    try:
        assert _kept(store.view(None, "public"), hub, pred, (), (), ()).eligible == 90
    finally:
        store.close()
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE pair_counts")
    conn.close()
    store = open_store(db)
    try:
        view = store.view(None, "public")
        assert _kept(view, hub, pred, (), (), ()) is None
        assert view.census(hub, pred, (), (), ()) == got["public"]
    finally:
        store.close()


def test_postgres_keeps_a_hub_pairs_counts_per_reader_class_under_row_level_security(pg_url, monkeypatch):  # noqa: F811
    """A PostgreSQL store keeps ``pair_counts`` as SQLite does, so a set of thousands is counted, not aggregated row by
    row under the policies (a group of 10,000 members: about 0.6-0.8 s an ask on a loaded machine before): the
    public's census counts 89 members and the auditor's 90, and the trace is the aggregate's. Each role reads the
    public class's row and its own principals' (``CORPUS_POLICY``): the public login never reads the auditor's count,
    which the auditor's role does read (the negative control); and a census with the kept counts switched off
    says the same as with them."""
    from chainret.store import postgres as pg

    w = group_world(90, 300, 2)
    hub, pred = "group:set:hub", "has_member"
    url = new_schema_url(pg_url)
    compile_store(w.catalog, url)
    store = pg.PostgresStore(url)
    try:
        got = {p: _kept(store.view(None, p), hub, pred, (), (), ()) for p in ("public", "auditor")}
        assert got["public"] is not None and got["auditor"] is not None
        assert (got["public"].eligible, got["auditor"].eligible) == (89, 90)
        classes = {p: sorted(r[0] for r in store.db.rows("SELECT principal FROM pair_counts WHERE subject = ?", (hub,), None, p))
                   for p in ("public", "auditor")}
        assert classes == {"public": ["*"], "auditor": ["*", "auditor"]}
        for principal in ("public", "auditor"):
            view = store.view(None, principal)
            rels = view.rels_of(hub, pred)
            members = sorted({r.object for r in rels})
            units = sorted({r.unit_ref for r in rels if r.unit_ref})
            for followed, returned in [((), ()), (tuple(members[:3]), tuple(units[:3]))]:
                want = count_census(rels, (), followed, returned)
                assert view.census(hub, pred, (), followed, returned) == want
                with monkeypatch.context() as m:
                    m.setattr(sqlview, "kept_census", lambda *a: None)
                    assert view.census(hub, pred, (), followed, returned) == want
    finally:
        store.close()
