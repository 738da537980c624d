"""Trace parity across the three stores: in memory, compiled SQLite file, PostgreSQL (row-level security on).

Every fixture case (run offline, as ``chainret eval`` runs it) and every golden trace in traces/
must come out byte-identical (timing fields aside) from each store, projected and unprojected;
so must at least 500 generated requests over random worlds with several views, document versions,
restricted and removed text, invalid records and several principals and viewers.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_worlds import pg_url, random_catalog, random_requests, three_stores, trace_json  # noqa: F401
from benchmarks.harness.worldgen import ACCEPTED_FLOOR

from chainret.pipeline.ask import ask
from chainret.catalog.readable import reads_within
from chainret.catalog.load import apply_overlay, load_world
from chainret.core.errors import ChainretError
from chainret.evaluate.cases import portable_path, run_case
from chainret.verify.replay import golden_path
from chainret.trace.model import Budget, read_trace

ROOT = Path(__file__).resolve().parents[1]
STORES = ("memory", "sqlite", "postgres")


@pytest.fixture(scope="module")
def fixture_cases(pg_url, tmp_path_factory):  # noqa: F811
    """(world, case, {store name: store}) for every fixture case; one compile per distinct overlaid catalog."""
    tmp = tmp_path_factory.mktemp("stores")
    compiled: dict[str, dict[str, object]] = {}
    out = []
    for wdir in sorted(p for p in (ROOT / "fixtures").iterdir() if (p / "cases.yaml").exists()):
        w = load_world(wdir)
        for case in w.cases:
            cat = apply_overlay(w.catalog, case.overlay)
            stores = compiled.get(cat.digest())
            if stores is None:
                stores = compiled[cat.digest()] = three_stores(cat, tmp, pg_url)
            out.append((w, case, stores))
    yield out
    for stores in compiled.values():
        for s in stores.values():
            if hasattr(s, "close"):
                s.close()


def test_fixture_cases_and_golden_traces_identical_in_every_store(fixture_cases):
    # traces record the cases file relative to the repo root (portable_path's root)
    seen_goldens = set()
    for w, case, stores in fixture_cases:
        texts = {}
        for name in STORES:
            store = None if name == "memory" else stores[name]
            r = run_case(w.catalog, case, world=w.catalog.world, cases_file=portable_path(w.cases_path, ROOT), store=store)
            texts[name] = trace_json(r.trace)
            assert r.ok, (name, case.id, r.problems)
        assert texts["sqlite"] == texts["memory"], case.id
        assert texts["postgres"] == texts["memory"], case.id
        golden = golden_path(ROOT / "traces", w.catalog.world, case.id)
        assert read_trace(golden).to_json() == texts["sqlite"] == texts["postgres"], golden
        seen_goldens.add(golden.resolve())
    every = {p.resolve() for p in (ROOT / "traces").rglob("*.json")}
    assert every - seen_goldens == set()  # every golden trace was compared
    assert len(fixture_cases) >= 29


def _ask_all(stores, request, **kw):
    """{store: trace JSON or the error} for one request."""
    out = {}
    for name in STORES:
        try:
            out[name] = trace_json(ask(request, stores[name], **kw))
        except ChainretError as exc:
            out[name] = f"{type(exc).__name__}: {exc}"
    return out


def test_fixture_requests_projected_for_each_viewer(fixture_cases):
    for _, case, stores in fixture_cases:
        for viewer in (None, "public", "auditor", "alice"):
            got = _ask_all(stores, case.request, view=case.view, principal=case.principal, budget=case.budget, viewer=viewer)
            assert got["sqlite"] == got["memory"] == got["postgres"], (case.id, viewer)


PER_WORLD = 12
WORLDS = 60


def _outcome(text: str) -> str:
    return json.loads(text)["outcome"] if text.startswith("{") else "error"


@pytest.mark.slow  # ~23 s: the fast run keeps the fixture/golden parity test
def test_random_worlds_identical_in_every_store(pg_url, tmp_path_factory):  # noqa: F811
    """At least 500 generated requests come out identical from every store, a floor of them accepted paths
    (the SQL hop path, not only interpretation refusals) and some over a narrower viewer's reader catalog.

    The counts are this test's own (no other test fills them), so it holds under -k and in any order.
    """
    counts: Counter[str] = Counter()

    # derandomize: the draws are fixed, so the floor of accepted paths below holds or fails the same way
    # every run (random draws once gave 29.8% against the 30% floor while every store agreed).
    @settings(max_examples=WORLDS, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
    @given(cat=random_catalog(), data=st.data())
    def identical_in_every_store(cat, data):
        stores = three_stores(cat, tmp_path_factory.mktemp("w"), pg_url)
        draws = random_requests(cat)
        try:
            for _ in range(PER_WORLD):
                words, slot, view, principal, viewer, rows, backtrack, project = data.draw(draws)
                got = _ask_all(stores, words.format(slot), view=view, principal=principal, viewer=viewer,
                               budget=Budget(rows_per_hop=rows), backtrack=backtrack, project=project)
                assert got["sqlite"] == got["memory"], (words.format(slot), view, principal, viewer)
                assert got["postgres"] == got["memory"], (words.format(slot), view, principal, viewer)
                counts["requests"] += 1
                counts["accepted"] += _outcome(got["memory"]) == "accepted_path"
                if project and not reads_within(cat, principal, viewer or principal):
                    counts["narrower"] += 1  # ran over the viewer's reader catalog
        finally:
            stores["sqlite"].close()
            stores["postgres"].close()

    identical_in_every_store()
    share = counts["accepted"] / max(1, counts["requests"])
    print(f"store parity: {counts['requests']} generated requests, {counts['accepted']} accepted paths ({share:.0%}), "
          f"{counts['narrower']} over a narrower viewer")
    assert counts["requests"] >= 500
    assert share >= ACCEPTED_FLOOR
    assert counts["narrower"] > 0  # a wider principal seen by a narrower viewer: the reader-catalog path (the fixture test has more)
