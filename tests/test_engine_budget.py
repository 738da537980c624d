"""No request exceeds its budget, whatever the world, view, principal or limits (hypothesis over fixture worlds)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chainret.pipeline.ask import ask
from chainret.catalog.load import apply_overlay, load_world
from chainret.trace.model import Budget

ROOT = Path(__file__).resolve().parents[1]
WORLDS = {n: load_world(ROOT / "fixtures" / n) for n in ("seed", "lab", "supply")}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_no_request_exceeds_its_budget(data):
    world = WORLDS[data.draw(st.sampled_from(sorted(WORLDS)))]
    case = data.draw(st.sampled_from(world.cases))
    cat = apply_overlay(world.catalog, case.overlay)
    limits = {
        k: data.draw(st.integers(lo, hi))
        for k, lo, hi in [("rows_per_hop", 1, 5), ("max_searches", 1, 5), ("max_rows", 1, 12),
                          ("max_hops", 1, 4), ("packet_units", 1, 4), ("packet_chars", 20, 300)]
        if data.draw(st.booleans())
    }
    budget = Budget(**limits)
    backtrack = data.draw(st.booleans())
    t = ask(case.request, cat, view=case.view, principal=case.principal, budget=budget, backtrack=backtrack, project=False)
    eff = t.budget
    for k, v in limits.items():
        assert getattr(eff, k) == v  # explicit limits are used as given
    assert t.searches_used <= eff.max_searches and t.rows_used <= eff.max_rows
    assert sum(len(h.hits) for h in t.hops) == t.rows_used
    assert all(len(h.hits) <= eff.rows_per_hop for h in t.hops)
    assert len({h.index for h in t.hops}) <= eff.max_hops
    if t.packet is not None:
        assert t.packet.cost <= eff.packet_chars and len(t.packet.items) <= eff.packet_units
        assert t.packet.cost == len(t.packet.text)
