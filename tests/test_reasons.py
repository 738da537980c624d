"""The reasons no fixture golden carries: dead_end, exceeds_max_hops, packet_too_small; and eval --baselines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_rels import rel
from typer.testing import CliRunner

from chainret.pipeline.ask import ask, overall_reason
from chainret.catalog.cases import Case
from chainret.catalog.load import load_catalog
from chainret.cli import app
from chainret.core.codes import RefusalCode
from chainret.evaluate.cases import check_case
from chainret.engine.hops import HopWorld, run_chain
from chainret.engine.reader import RelationList
from chainret.engine.search import LexicalIndex
from chainret.trace.model import Budget

REPO = Path(__file__).resolve().parents[1]
SEED = REPO / "fixtures" / "seed"
REQUEST = "Which contact serves project PR-84?"  # two hops in the seed world, accepted by default


def test_dead_end_when_every_bridge_of_a_hop_was_tried() -> None:
    units = [("d@v1#u1", "REL p:w:a | supplied_by | o:w:x"), ("d@v1#u2", "REL p:w:a | supplied_by | o:w:y")]
    rels = [rel("s1", "p:w:a", "supplied_by", "o:w:x", "d@v1#u1"), rel("s2", "p:w:a", "supplied_by", "o:w:y", "d@v1#u2")]
    world = HopWorld(RelationList(LexicalIndex(units), rels, frozenset()))
    run, path = run_chain(world, "p:w:a", ["supplied_by", "contact"], Budget(max_searches=3, max_rows=9), backtrack=True)
    assert path is None
    assert [f.code for f in run.failures] == ["no_supported_relation", "no_supported_relation"]
    reason = overall_reason(run.failures, run.hops)
    assert reason.code == RefusalCode.DEAD_END
    assert reason.details["hop"] == 1 and reason.details["tried"] == ["o:w:x", "o:w:y"]
    assert len(reason.details["branch_failures"]) == 2
    # without backtracking the same world stops at the first failure, not a dead end
    run2, _ = run_chain(world, "p:w:a", ["supplied_by", "contact"], Budget(max_searches=3, max_rows=9), backtrack=False)
    assert overall_reason(run2.failures, run2.hops).code == RefusalCode.NO_SUPPORTED_RELATION


def test_a_budget_exhausted_branch_is_not_reported_as_a_dead_end() -> None:
    units = [("d@v1#u1", "REL p:w:a | supplied_by | o:w:x"), ("d@v1#u2", "REL p:w:a | supplied_by | o:w:y")]
    rels = [rel("s1", "p:w:a", "supplied_by", "o:w:x", "d@v1#u1"), rel("s2", "p:w:a", "supplied_by", "o:w:y", "d@v1#u2")]
    world = HopWorld(RelationList(LexicalIndex(units), rels, frozenset()))
    run, _ = run_chain(world, "p:w:a", ["supplied_by", "contact"], Budget(), backtrack=True)
    assert overall_reason(run.failures, run.hops).code == RefusalCode.BUDGET_EXHAUSTED


def test_exceeds_max_hops_refuses_before_any_search() -> None:
    trace = ask(REQUEST, catalog=SEED / "catalog.yaml", budget=Budget(max_hops=1))
    assert trace.outcome == "refused" and trace.reason is not None
    assert trace.reason.code == RefusalCode.EXCEEDS_MAX_HOPS and trace.hops == [] and trace.searches_used == 0
    assert "max_hops is 1" in trace.reason.message
    # a case can now expect it (the registry lists every code the engine emits)
    case = Case.model_validate({"id": "too-long", "group": "challenge", "request": REQUEST, "budget": {"max_hops": 1},
                                "expect": {"outcome": "refused", "reason": "exceeds_max_hops"}})
    assert check_case(case, ask(REQUEST, catalog=SEED / "catalog.yaml", budget=case.budget, project=False)) == []


def test_packet_too_small_when_the_cap_cannot_hold_the_path() -> None:
    ok = ask(REQUEST, catalog=SEED / "catalog.yaml")
    assert ok.outcome == "accepted_path" and ok.accepted_path is not None and len(ok.accepted_path) == 2
    trace = ask(REQUEST, catalog=SEED / "catalog.yaml", budget=Budget(packet_units=1))
    assert trace.outcome == "partial_evidence" and trace.reason is not None
    assert trace.reason.code == RefusalCode.PACKET_TOO_SMALL
    assert trace.packet is None and trace.accepted_path is None
    assert [h.bridge is not None or h.refusal is None for h in trace.hops] == [True, True]  # the hops themselves found the path


def test_eval_baselines_runs_the_three_text_routes(monkeypatch: pytest.MonkeyPatch) -> None:
    import chainret.pipeline.baselines

    monkeypatch.setattr(chainret.pipeline.baselines, "dense_available", lambda: False)  # no embedder: the documented fallback
    result = CliRunner().invoke(app, ["eval", str(SEED), "--baselines", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    rows = out["cases"]
    positive = [r for r in rows if r["baselines"]]
    assert positive, "no case ran the text routes"
    for r in positive:
        assert set(r["baselines"]) == {"bm25-request", "bm25-expanded", "dense"}
        assert r["baselines"]["dense"]["route"] == "bm25-rewritten"
        for row in r["baselines"].values():
            assert row["packet_chars"] <= 900
    observed = [row["first_anchor_observed"] for r in positive for row in r["baselines"].values()]
    assert True in observed and set(observed) <= {True, False, None}  # None: a case without that anchor
    # the routes never claim an accepted path; the chain's own results are unchanged by --baselines
    plain = json.loads(CliRunner().invoke(app, ["eval", str(SEED), "--json"]).output)
    assert [r["outcome"] for r in plain["cases"]] == [r["outcome"] for r in rows]
    assert load_catalog(SEED / "catalog.yaml").world == rows[0]["world"]
