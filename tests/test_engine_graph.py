"""The networkx view as an oracle over the fixture worlds (consistency, not independent evidence)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chainret.pipeline.ask import ask, catalog_graph
from chainret.store.caches import hop_world
from chainret.catalog.graph import supported_paths, to_graphml, to_mermaid
from chainret.catalog.load import apply_overlay, load_world
from chainret.catalog.views import open_view
from chainret.trace.model import Budget

ROOT = Path(__file__).resolve().parents[1]
WORLDS = [load_world(ROOT / "fixtures" / n) for n in ("seed", "lab", "supply")]
CASES = [(w, c) for w in WORLDS for c in w.cases if c.group != "other"]


@pytest.mark.parametrize("world,case", CASES, ids=[f"{w.catalog.world}-{c.id}" for w, c in CASES])
def test_engine_agrees_with_graph_oracle_given_enough_rows(world, case):
    cat = apply_overlay(world.catalog, case.overlay)
    t = ask(case.request, cat, view=case.view, principal=case.principal, project=False,
            budget=Budget(rows_per_hop=100, max_searches=50, max_rows=5000, max_hops=5))
    if t.interpretation is None:
        return
    cv = open_view(cat, case.view, case.principal)
    g = catalog_graph(cat, case.view, case.principal)
    functional = hop_world(cv).functional
    oracle = supported_paths(g, t.interpretation.start_id, t.interpretation.predicates, functional)
    if t.accepted_path is None:
        assert oracle == []
    else:
        assert t.accepted_path in oracle


def test_graph_edges_keyed_by_relation_id_with_usability():
    g = catalog_graph(WORLDS[0].catalog, "final")
    assert g.has_edge("project:final:main", "org:final:north", key="rel-1")
    assert g.edges["project:final:main", "org:final:north", "rel-1"]["usable"] is True
    assert g.edges["org:final:east", "contact:final:desk", "rel-7"]["valid"] is False
    assert g.nodes["org:final:north"]["name"] == "Rowan"
    assert "rel-3" in to_mermaid(g) and "<graphml" in to_graphml(g)
