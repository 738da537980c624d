"""Like-for-like with the seed papers (issue 15): seed 000's answer-bearing rule beside ours, small split
cells, the papers' question sets, quoted constants, the seed-like focused packer, and metric edges."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from chainret.research.qa import metrics as M
from benchmarks.harness import paper as P
from benchmarks.harness.paths import absent
from chainret.research.qa.example import Example, Paragraph
from chainret.research.bench.report import est, signed
from chainret.core.errors import DataError
from chainret.research.packing import Candidate, PackContext, get_packer

ROOT = Path(__file__).resolve().parents[1]

# ----------------------------------------------------------------------------- 1. answer-bearing rule


def test_paper_rule_is_a_plain_substring_of_the_canonical_answer():
    text = "Harvest. The farm grows corn, tomatoes and beans."
    assert M.gold_kind(["tomato"], text, True) == "answer"  # the paper's rule is the default
    assert M.gold_kind(["tomato"], text, True, "paper") == "answer"
    assert M.gold_kind(["tomato"], text, True, "ours") == "bridge"  # ours needs whole tokens


def test_paper_rule_never_counts_yes_no():
    text = "Tennis. She reached world no 8 in 2019."
    assert M.gold_kind(["no"], text, True, "paper") == "bridge"
    assert M.gold_kind(["yes"], "Yes. yes yes", True, "paper") == "bridge"
    assert M.gold_kind(["no"], text, True, "ours") == "answer"


def test_paper_rule_uses_the_canonical_answer_only_and_the_title():
    assert M.gold_kind(["Robert Smith", "Bob Smith"], "Band. Bob Smith sang.", True, "paper") == "bridge"
    assert M.gold_kind(["Robert Smith", "Bob Smith"], "Band. Bob Smith sang.", True, "ours") == "answer"
    para = Paragraph(idx=0, ref="x#p0", title="Shirley Temple", sentences=["She was an actress."], is_gold=True)
    ex = Example(id="q", dataset="hotpotqa", question="?", answers=["Shirley Temple"], paragraphs=[para])
    assert M.paragraph_kinds(ex) == ["answer"]  # the title is part of the paragraph
    with pytest.raises(ValueError, match="unknown answer-bearing rule"):
        M.answer_bearing(["x"], "x", "loose")


def test_paragraph_kinds_is_the_one_home():
    """No benchmark module labels paragraphs with its own gold_kind loop any more."""
    offenders = []
    for path in (ROOT / "chainret").rglob("*.py"):
        if path.name == "metrics.py":
            continue
        if re.search(r"gold_kind\(", path.read_text(encoding="utf-8")):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


# ----------------------------------------------------------------------------- 2. small split cells


def test_split_cells_on_fewer_than_30_paragraphs_print_their_count():
    rng = np.random.default_rng(0)
    scores, kinds = [], []
    for q in range(40):  # 40 answer-bearing gold, 3 bridge-only gold
        kinds.append(["answer", "distractor", "distractor"] + (["bridge"] if q < 3 else []))
        scores.append(rng.random(len(kinds[-1])))
    out = M.split_auc(scores, kinds, n_resamples=50)
    assert out["answer_bearing"].n_gold == 40 and not out["answer_bearing"].too_few
    assert out["bridge_only"].n_gold == 3 and out["bridge_only"].too_few
    assert out["deficit"].n_gold == 3
    assert est(out["bridge_only"].as_dict()) == "n/a (3 paragraphs)"
    assert signed(out["deficit"].as_dict()) == "n/a (3 paragraphs)"
    assert out["bridge_only"].fmt() == "n/a (3 paragraphs)"
    assert est(out["answer_bearing"].as_dict()).startswith("0.")
    assert out["overall"].n_gold is None  # only split cells are withheld
    assert M.withheld(1) == "n/a (1 paragraph)"


# ----------------------------------------------------------------------------- 3. the paper's question sets


@pytest.mark.skipif(bool(absent("vws-splits")), reason=absent("vws-splits") or "present")
def test_hotpotqa_table_ii_covers_evaluation_plus_calibration():
    from chainret.research.qa.datasets import load_examples

    ev = load_examples("hotpotqa-vws").examples
    cal = load_examples("hotpotqa-vws-calib").examples
    assert (len(ev), len(cal)) == (500, 200)
    assert not {e.id for e in ev} & {e.id for e in cal}
    types = [e.qtype for e in ev + cal]
    assert (types.count("bridge"), types.count("comparison")) == (P.T2_N[("hotpotqa", "bridge")], P.T2_N[("hotpotqa", "comparison")])


def test_musique_anchor_is_quoted_with_its_hop_counts():
    assert P.ANCHOR["musique"] == 0.778 and "2-4 hops" in P.ANCHOR_HOPS["musique"]
    assert sum(P.FIG2_HOP_COUNTS.values()) == 500


# ----------------------------------------------------------------------------- 4. quotations


def test_calibration_quote_is_the_calibration_figure_not_table_i():
    assert P.CALIBRATION_ORACLE["nli-deberta-v3-base (184M)"] == 0.668
    assert P.T1["hotpotqa"]["nli-oracle"][0] == 0.669


def test_derived_figures_are_marked():
    d = P.t1_deficit("hotpotqa", "embedding")
    assert math.isclose(float(d), 0.092) and "rounded" in d.how
    assert P.mark(d, "+.3f") == "+0.092 (derived)"
    assert P.mark(0.887) == "0.887"
    assert isinstance(P.PACK_GATE["hotpotqa"]["all_gold@5"], P.Derived)


def test_no_paper_constant_is_hard_coded_in_the_result_scripts():
    """The quoted numbers live in benchmarks/harness/paper.py only."""
    for name in ("verify_results.py", "bench_results.py", "pack_results.py"):
        text = (ROOT / "benchmarks" / name).read_text(encoding="utf-8")
        for needle in ("0.669", "0.668", "0.887", "0.849", "0.941", "0.778", "0.933"):
            assert needle not in text, f"{name} quotes {needle}; use benchmarks.harness.paper"


# ----------------------------------------------------------------------------- 5. seed-like focused


def test_focused_seed_stops_at_the_first_snippet_that_does_not_fit():
    ctx = lambda: PackContext(query="paris tower river")  # noqa: E731
    cands = [
        Candidate("a", "paris", 6, "d1", None, 1.0),
        Candidate("b", "tower", 6, "d2", None, 0.9),  # best second pick, but 6 + 6 > 10
        Candidate("c", "river", 3, "d3", None, 0.1),  # fits
    ]
    assert get_packer("focused").pack(cands, 10, context=ctx()) == [0, 2]  # skips b, keeps filling
    assert get_packer("focused-seed").pack(cands, 10, context=ctx()) == [0]  # b overflows: stop
    assert get_packer("focused-seed").pack(cands, 20, context=ctx()) == get_packer("focused").pack(cands, 20, context=ctx())


# ----------------------------------------------------------------------------- 6. metric edges


def test_roc_auc_raises_on_nan():
    with pytest.raises(DataError, match="NaN"):
        M.roc_auc([float("nan"), 0.2, 0.3, 0.1], [1, 0, 1, 0])
    with pytest.raises(DataError, match="NaN"):
        M.auc_ci([np.array([0.1, float("nan")])], [np.array([True, False])], n_resamples=10)


def test_argmax_of_a_variable_size_selector():
    assert M.argmax_correct([3], [3, 7]) is False  # kept one of two gold: not the best it could do
    assert M.argmax_correct([3, 7], [3, 7]) is True
    assert M.argmax_correct([3, 7], [3, 7, 9], capacity=2) is True  # a pair cannot hold three
    assert M.argmax_correct([3, 7, 9], [3, 7, 9], capacity=5) is True
    assert M.argmax_correct([], [3, 7]) is False


def test_pc_sweep_gold_recall_equals_the_selector_tables():
    from chainret.research.verification.scorer import EntailmentScorer
    from chainret.research.verification.selectors import PC_DEFAULT_TAU, run_selectors

    class Zero:
        model_id = "zero"

        def p_entail(self, pairs, batch_size=32):
            return np.zeros(len(pairs))

    rng = np.random.default_rng(3)
    exs, emb, slot = [], [], []
    for q in range(12):
        gold = {q % 7, (q + 3) % 7}
        paras = [Paragraph(idx=i, ref=f"x:{q}#p{i}", title=f"T{i}", sentences=["s."], is_gold=i in gold) for i in range(7)]
        exs.append(Example(id=f"q{q}", dataset="hotpotqa", question="Who?", answers=["T1"], paragraphs=paras))
        emb.append(rng.random(7))
        slot.append(rng.random(7))
    res = run_selectors(exs, {"embedding": emb, "nli-slot": slot}, ["PC"], top_k=5, scorer=EntailmentScorer(Zero(), use_cache=False))
    sweep = {r["tau"]: r for r in res["details"]["pc_sweep"]}
    assert sweep[PC_DEFAULT_TAU]["gold_recall"] == pytest.approx(res["summary"]["PC"]["gold_recall"])
