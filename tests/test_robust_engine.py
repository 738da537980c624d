"""Cycles are refused in paths; the text route records its budget honestly (issue 11)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from chainret.pipeline.ask import ask
from chainret.catalog.load import catalog_from_data
from benchmarks.harness.fuzz import _add_loop
from chainret.trace.model import Budget

ROOT = Path(__file__).resolve().parents[1]


def loop_catalog(hops: int, two_cycle: bool):
    data = yaml.safe_load((ROOT / "fixtures" / "seed" / "catalog.yaml").read_text(encoding="utf-8"))
    _add_loop(data, hops, two_cycle)
    return catalog_from_data(data, "loop.yaml")


@pytest.mark.parametrize(("hops", "two_cycle"), [(1, False), (2, False), (50, False), (2, True), (3, True), (50, True)])
def test_no_path_repeats_a_node(hops, two_cycle):
    cat = loop_catalog(hops, two_cycle)
    budget = Budget(max_hops=60, max_searches=60, max_rows=400)
    t = ask("What does PR-84 link to?", cat, view="final", budget=budget, project=False)
    if t.accepted_path is not None:
        assert len(set(t.path_ids)) == len(t.path_ids) and len(set(t.accepted_path)) == len(t.accepted_path)
    # a self-loop never advances; a 2-cycle advances once (main -> side) and then must stop
    expect_accept = two_cycle and hops == 1
    assert (t.outcome == "accepted_path") == expect_accept
    if not expect_accept:
        stopped = [h.refusal.code for h in t.hops if h.refusal is not None]
        assert "cycle" in stopped, stopped
        assert len(t.hops) <= 2


def test_text_route_records_the_budget_it_ran_under():
    for budget in (Budget(rows_per_hop=7), Budget(rows_per_hop=12, max_rows=30), Budget(max_rows=2)):
        b = Budget(**{k: getattr(budget, k) for k in budget.model_fields_set})
        t = ask("How often is the registry audited?", text_route=True, budget=b)
        assert t.outcome == "no_pattern" and t.hops and t.packets
        assert t.rows_used <= t.budget.max_rows and t.searches_used <= t.budget.max_searches
        assert sum(len(h.hits) for h in t.hops) == t.rows_used
        assert t.hops[0].rows_left == t.budget.max_rows - t.rows_used
