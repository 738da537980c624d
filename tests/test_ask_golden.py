"""Every fixture case against its committed golden trace (traces/<world>/<case>.json).

Regenerate deliberately with `chainret eval fixtures --update-golden traces` (or run this file with
CHAINRET_UPDATE_GOLDEN=1) and review the diff before committing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from chainret.evaluate.cases import evaluate_cases, totals
from chainret.verify.replay import golden_path, stable, write_golden
from chainret.trace.model import read_trace

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def results():
    res = evaluate_cases([ROOT / "fixtures"], root=ROOT)  # traces record the cases file relative to the repo root
    if os.environ.get("CHAINRET_UPDATE_GOLDEN") == "1":
        write_golden(res, ROOT / "traces")
    return res


def test_every_expectation_holds(results):
    bad = [(r.world, r.case.id, r.problems) for r in results if not r.ok]
    assert bad == []


def test_seed_world_headline_counts(results):
    seed = totals([r for r in results if r.world == "final"])
    assert seed["positive_accepted"] == [3, 3]
    assert seed["unsupported_complete_paths"] == [0, 7]
    assert seed["complete_bundles"] == [3, 16]


def test_seed_packet_sizes_and_rows(results):
    by_id = {r.case.id: r.trace for r in results if r.world == "final"}
    assert by_id["main-serves"].packet.cost == 106 and by_id["revised-serves"].packet.cost == 107
    assert by_id["main-serves"].rows_used == 6 and by_id["main-serves"].searches_used == 2
    assert by_id["contradictory-assignment"].searches_used == 1  # stops after one search


def test_golden_traces_match(results):
    missing, changed = [], []
    for r in results:
        path = golden_path(ROOT / "traces", r.world, r.case.id)
        if not path.exists():
            missing.append(str(path))
            continue
        if read_trace(path).to_json() != stable(r.trace).to_json():
            changed.append(str(path))
    assert missing == [] and changed == [], "regenerate with: chainret eval fixtures --update-golden traces"


def test_no_stray_golden_files(results):
    expected = {golden_path(ROOT / "traces", r.world, r.case.id) for r in results}
    assert set((ROOT / "traces").rglob("*.json")) == expected
