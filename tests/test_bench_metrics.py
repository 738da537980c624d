"""Metric functions against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from chainret.research.qa import metrics as M


def brute_auc(scores, labels) -> float:
    pos = [s for s, y in zip(scores, labels) if y]
    neg = [s for s, y in zip(scores, labels) if not y]
    return sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg) / (len(pos) * len(neg))


def test_auc_with_ties_by_hand() -> None:
    # pairs: .9>.5, .9>.1, .5=.5 (half), .5>.1  -> 3.5 / 4
    assert M.roc_auc([0.9, 0.5, 0.5, 0.1], [1, 1, 0, 0]) == pytest.approx(0.875)
    assert M.roc_auc([0.3, 0.3, 0.3], [1, 0, 0]) == 0.5
    assert M.roc_auc([0.1, 0.9], [1, 0]) == 0.0
    assert math.isnan(M.roc_auc([0.1, 0.2], [1, 1]))


def test_auc_matches_brute_force_on_random_ties() -> None:
    rng = np.random.default_rng(0)
    s = rng.integers(0, 5, 60).astype(float)
    y = rng.random(60) < 0.3
    assert M.roc_auc(s, y) == pytest.approx(brute_auc(s, y))


def test_pooled_auc_pools_pairs_across_questions() -> None:
    # q1: gold .8 vs .2; q2: gold .3 vs .5. Pooled pairs: .8>.2 .8>.5 .3>.2 .3<.5 -> 3/4
    assert M.pooled_auc([np.array([0.8, 0.2]), np.array([0.3, 0.5])], [np.array([1, 0], bool), np.array([1, 0], bool)]) == 0.75


def test_bootstrap_ci_with_known_seed_matches_plain_loop() -> None:
    rng = np.random.default_rng(1)
    scores = [rng.normal(size=6) + np.array([1, 0.5, 0, 0, 0, 0]) for _ in range(30)]
    labels = [np.array([1, 1, 0, 0, 0, 0], bool) for _ in range(30)]
    est = M.auc_ci(scores, labels, n_resamples=200, seed=7)
    # independent re-implementation: resample questions with numpy's default_rng(7), brute-force AUC
    draw = np.random.default_rng(7)
    vals = []
    for _ in range(200):
        idx = draw.integers(0, 30, 30)
        vals.append(brute_auc(np.concatenate([scores[i] for i in idx]), np.concatenate([labels[i] for i in idx])))
    lo, hi = np.quantile(vals, [0.025, 0.975])
    assert est.value == pytest.approx(brute_auc(np.concatenate(scores), np.concatenate(labels)))
    assert (est.low, est.high) == pytest.approx((lo, hi))
    assert est.low < est.value < est.high and est.n == 30


def test_split_auc_answer_bearing_vs_bridge_only() -> None:
    # one question: bridge gold scores top, answer-bearing gold is below one distractor
    scores = [np.array([0.9, 0.4, 0.6, 0.1])]
    kinds = [["bridge", "answer", "distractor", "distractor"]]
    r = M.split_auc(scores, kinds, n_resamples=50)
    assert r["bridge_only"].value == 1.0
    assert r["answer_bearing"].value == 0.5  # .4 < .6, .4 > .1
    assert r["overall"].value == 0.75
    assert r["deficit"].value == pytest.approx(0.5)


def test_auc_by_group_and_paired_diff() -> None:
    scores = [np.array([0.9, 0.1]), np.array([0.2, 0.8]), np.array([0.7, 0.3])]
    kinds = [["answer", "distractor"], ["answer", "distractor"], ["bridge", "distractor"]]
    by = M.auc_by_group(scores, kinds, ["a", "a", None], n_resamples=20)
    assert list(by) == ["a"] and by["a"]["overall"].value == 0.75  # pooled: .9>.1 .9>.8 .2>.1 .2<.8
    labels = [np.array([1, 0], bool)] * 3
    d = M.paired_auc_diff(scores, [s * 0 + np.array([1.0, 0.0]) for s in scores], labels, n_resamples=50)
    assert d.value == pytest.approx(1.0 - M.pooled_auc(scores, labels))


def test_hotpot_normalisation_and_em_f1() -> None:
    assert M.normalize_answer("The  Beatles!") == "beatles"
    assert M.exact_match("the beatles", "Beatles.") == 1.0
    f1, p, r = M.f1_score("the cat sat", "cat sat on a mat")
    assert (p, r) == (1.0, 0.5) and f1 == pytest.approx(2 / 3)  # "a" is dropped: 2 of 4 gold tokens
    assert M.f1_score("yes", "no") == (0.0, 0.0, 0.0)
    assert M.f1_score("yes it is", "yes") == (0.0, 0.0, 0.0)  # yes/no rule: a 'yes' gold needs exactly 'yes'
    assert M.f1_score("no", "no")[0] == 1.0
    assert M.em_f1("Paris", ["Lutetia", "paris"]) == (1.0, 1.0)


def test_answer_in_context_is_a_token_span() -> None:
    assert M.answer_in_text(["no"], "It is well known.") is False
    assert M.answer_in_text(["U.S."], "born in the us in 1950") is True
    assert M.answer_in_text(["The Beatles"], "Beatles, a band") is True
    assert M.answer_in_text(["New York"], "York, New") is False
    for rule in M.ANSWER_RULES:
        assert M.gold_kind(["Cork"], "buried in Cork.", True, rule) == "answer"
        assert M.gold_kind(["Cork"], "born in Dublin.", True, rule) == "bridge"
        assert M.gold_kind(["Cork"], "Cork", False, rule) == "distractor"


def test_selection_and_packing_metrics() -> None:
    assert M.top_k([0.1, 0.5, 0.5, 0.9], 3) == [3, 1, 2]
    assert M.recall_at_k([0.1, 0.5, 0.5, 0.9], [0, 2], 3) == 0.5
    assert M.argmax_correct([2, 0], [0, 2, 5], capacity=2) is True  # a pair selector, three gold
    assert M.argmax_correct([2, 0], [0, 2, 5]) is False  # unbounded: must keep all three
    assert M.argmax_correct([2, 1], [0, 2], capacity=2) is False
    assert M.argmax_correct([2], [0, 2], capacity=2) is False  # a pair selector that kept one
    assert M.selected_recall([1, 2], [2, 3]) == 0.5
    assert M.gold_doc_coverage(["a", "b"], ["b", "c"]) == 0.5
    assert M.all_gold_in_reader(["a", "b", "c"], ["b", "c"]) is True
    assert M.all_gold_in_reader(["a"], []) is False
    assert M.gold_token_density([10, 30], [True, False]) == 0.25


def test_mcnemar_exact_by_hand() -> None:
    a = [1, 1, 1, 0, 0, 1]
    b = [0, 0, 0, 1, 0, 1]
    # b=3 (a right, b wrong), c=1: p = 2 * (C(4,0)+C(4,1)) / 2^4 = 0.625
    assert M.mcnemar_exact(a, b) == (3, 1, 0.625)
    assert M.mcnemar_exact([0] * 6, [1] * 6) == (0, 6, pytest.approx(2 / 64))
    assert M.mcnemar_exact([1, 0], [1, 0]) == (0, 0, 1.0)
    from scipy.stats import binomtest

    assert M.mcnemar_exact([1] * 9 + [0] * 2, [0] * 9 + [1] * 2)[2] == pytest.approx(binomtest(2, 11).pvalue)


def test_wilson_paired_bootstrap() -> None:
    lo, hi = M.wilson(5, 10)
    assert (lo, hi) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    est, p = M.paired_bootstrap([0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 0, 1], n_resamples=500)
    assert est.value == 0.875 and est.low > 0 and p < 0.01
    _, p_null = M.paired_bootstrap([0, 1, 0, 1], [1, 0, 1, 0], n_resamples=500)
    assert p_null > 0.5


def test_jsonable_drops_nan_and_numpy() -> None:
    assert M.jsonable({"a": np.float32(0.5), "b": [float("nan")], "c": np.arange(2)}) == {"a": 0.5, "b": [None], "c": [0, 1]}
