"""PostgreSQL reads each hop in one statement (``chainret.store.postgres.HopStatement``).

The statement returns a hop's candidate units, the relations they support and (over a functional
predicate) the subject's relations together; the traces must be the ones the per-lookup reads give,
including for a hub (more candidate units than ``HUB``, where the statement holds the units back and
the returned ones are read after), and a two-hop ask must be one round trip per hop.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from store_worlds import new_schema_url, pg_url, trace_json  # noqa: F401

from chainret.engine import search
from chainret.pipeline.ask import ask
from chainret.catalog.load import apply_overlay, load_world
from chainret.store import compile_store
from chainret.store import postgres as pg
from chainret.store.postgres import PostgresStore

psycopg = pytest.importorskip("psycopg")
ROOT = Path(__file__).resolve().parents[1]


def _cases() -> list[tuple[object, object]]:
    out = []
    for wdir in sorted(p for p in (ROOT / "fixtures").iterdir() if (p / "cases.yaml").exists()):
        w = load_world(wdir)
        out += [(apply_overlay(w.catalog, c.overlay), c) for c in w.cases]
    return out


def _ask(catalog: object, case: object, viewer: str | None) -> str:
    try:
        return trace_json(ask(case.request, catalog, view=case.view, principal=case.principal, budget=case.budget, viewer=viewer))
    except Exception as exc:  # noqa: BLE001 - the error is the answer compared
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("hub", [pg.HUB, 0], ids=["statement", "every-hop-a-hub"])
def test_hop_statement_traces_equal_the_memory_store(pg_url, monkeypatch, hub):  # noqa: F811
    monkeypatch.setattr(pg, "HUB", hub)  # 0: every hop takes the hub path (postings, then the returned units)
    if not hub:  # and every term's ranking is kept, cut after 2 units: later hops answer from it (HubRankings)
        monkeypatch.setattr(search, "HUB_UNITS", 0)
        monkeypatch.setattr(search, "KEEP_RANKED", 2)
    stores: dict[str, PostgresStore] = {}
    try:
        for cat, case in _cases():
            store = stores.get(cat.digest())
            if store is None:
                url = new_schema_url(pg_url)
                compile_store(cat, url)
                store = stores[cat.digest()] = PostgresStore(url)
            for viewer in (None, "public", "auditor"):
                assert _ask(store, case, viewer) == _ask(cat, case, viewer), (case.id, viewer, hub)
    finally:
        for s in stores.values():
            s.close()


def test_a_two_hop_ask_is_one_round_trip_per_hop(pg_url, monkeypatch):  # noqa: F811
    cat = load_world(ROOT / "fixtures" / "seed").catalog
    url = new_schema_url(pg_url)
    compile_store(cat, url)
    store = PostgresStore(url)
    try:
        request = "Which contact serves PR-84?"
        first = ask(request, store, view="final", principal="public", proofs=False)
        assert first.outcome == "accepted_path" and len(first.hops) == 2
        sent: list[str] = []
        orig = psycopg.Cursor.execute

        def counting(self, query, *a, **kw):  # type: ignore[no-untyped-def]
            sent.append(str(query))
            return orig(self, query, *a, **kw)

        monkeypatch.setattr(psycopg.Cursor, "execute", counting)
        again = ask(request, store, view="final", principal="public", proofs=False)
        assert trace_json(again) == trace_json(first)
        # BEGIN with the role and view, the entity's name, one statement per hop, COMMIT
        assert len(sent) == 2 + len(first.hops) + 1, sent
        assert sum(s.startswith("WITH c AS MATERIALIZED") for s in sent) == len(first.hops)
        # The trace's log proofs (chainret.store.log) add statements of their own, a fixed number whatever the
        # anchors, each reading the log's tables or the cited units and relations; the hops' statements stay as many.
        bare = list(sent)
        sent.clear()
        proven = ask(request, store, view="final", principal="public")
        assert "log" in proven.meta and proven.hops == first.hops
        assert sum(s.startswith("WITH c AS MATERIALIZED") for s in sent) == len(first.hops)
        proof_reads = [s for s in sent if s not in bare]
        assert proof_reads and all("log_" in s or s.startswith(("SET LOCAL ROLE", "SELECT set_config", "SELECT 'u', ref, ord",
                                                                  "SELECT DISTINCT principal FROM identities"))
                                   for s in proof_reads), proof_reads
    finally:
        store.close()
