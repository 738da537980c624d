"""Selectors and the later-hop AUC code on hand-made score tables (a table-driven fake NLI model)."""

import numpy as np
import pytest

from chainret.research.qa.example import Example, Paragraph, SubQuestion
from chainret.core.errors import UsageError
from chainret.research.verification.laterhop import LaterHopItem, resolve, summarize
from chainret.research.verification.scorer import EntailmentScorer
from chainret.research.verification.selectors import pair_auc, run_selectors


class TableNLI:
    """P(entail) looked up by which paragraph titles the premise contains (order-free)."""

    model_id = "table-nli"

    def __init__(self, table):
        self.table = table
        self.seen = []

    def p_entail(self, pairs, batch_size=32):
        out = []
        for premise, _ in pairs:
            self.seen.append(premise)
            key = frozenset(t for t in "ABCDEFG" if f"Title{t}." in premise)
            out.append(self.table.get(key, 0.0))
        return np.array(out)


def _example(qid="q1", gold=(1, 3)):
    paras = [
        Paragraph(idx=i, ref=f"x:{qid}#p{i}", title=f"Title{t}", sentences=[f"Text about {t}."], is_gold=i in gold)
        for i, t in enumerate("ABCDEFG")
    ]
    return Example(id=qid, dataset="hotpotqa", question="Who directed Inception?", answers=["Christopher Nolan"], paragraphs=paras)


def _scorer(table):
    return EntailmentScorer(TableNLI(table), use_cache=False)


# retriever order by embedding: B(1) > A(0) > D(3) > C(2) > E(4) > F, G
EMB = [np.array([0.8, 0.9, 0.6, 0.7, 0.5, 0.1, 0.0])]
SLOT = [np.array([0.05, 0.6, 0.2, 0.3, 0.9, 0.0, 0.0])]


def test_baselines_and_pc():
    ex = _example()
    res = run_selectors([ex], {"embedding": EMB, "nli-slot": SLOT}, ["B1", "B2", "B4", "PC", "B5"], top_k=5, scorer=_scorer({}))
    pq = res["per_question"]["q1"]
    assert pq["B1"] == {"kept": [1, 0, 3, 2, 4], "nli_calls": 0}
    assert pq["B2"]["kept"] == [1, 0]
    assert pq["B4"]["kept"] == [4, 1]  # reranked by nli-slot: E 0.9, B 0.6
    assert pq["B4"]["nli_calls"] == 5
    assert pq["PC"]["kept"] == [1, 4]  # >= 0.5
    assert pq["B5"]["kept"] == [1, 3]
    s = res["summary"]
    assert s["B1"]["gold_recall"] == 1.0 and s["B1"]["argmax_pair_accuracy"] == 0.0
    assert s["B2"]["gold_recall"] == 0.5
    assert s["B5"]["argmax_pair_accuracy"] == 1.0
    assert s["B4"]["reranker"] == "nli-slot"
    sweep = {r["tau"]: r for r in res["details"]["pc_sweep"]}
    assert sweep[0.1]["gold_recall"] == 1.0 and sweep[0.5]["gold_recall"] == 0.5 and sweep[0.75]["gold_recall"] == 0.0


def test_set_and_cond_use_pair_premises():
    ex = _example()
    table = {
        frozenset("BD"): 0.9,  # the gold pair
        frozenset("AC"): 0.95,  # a distractor pair that SET will (wrongly) prefer
        frozenset("BE"): 0.4,
    }
    nli = TableNLI(table)
    res = run_selectors([ex], {"embedding": EMB}, ["SET", "COND"], top_k=5, scorer=EntailmentScorer(nli, use_cache=False))
    pq = res["per_question"]["q1"]
    assert pq["SET"] == {"kept": [0, 2], "nli_calls": 10}
    # COND anchors on B (top by embedding) and only scores B ⊕ x: 4 calls, finds D
    assert pq["COND"] == {"kept": [1, 3], "nli_calls": 4}
    assert res["summary"]["COND"]["argmax_pair_accuracy"] == 1.0
    assert res["summary"]["SET"]["argmax_pair_accuracy"] == 0.0
    assert res["summary"]["COND"]["anchor_gold"] == 1.0
    assert len(nli.seen) == 10  # COND's anchor pairs are a subset of SET's: shared, not rescored
    assert res["details"]["pair_auc"]["n_gold_pairs"] == 1


def test_pair_auc_hand_computed():
    ex = _example()
    ps = [{(1, 3): 0.5, (0, 2): 0.9, (1, 0): 0.1, (0, 3): 0.3}]
    assert pair_auc([ex], ps)["auc"] == pytest.approx(2 / 3)


def test_selectors_need_a_retriever_and_known_names():
    ex = _example()
    with pytest.raises(UsageError, match="retriever"):
        run_selectors([ex], {"nli-slot": SLOT}, ["B1"], scorer=_scorer({}))
    with pytest.raises(UsageError, match="unknown selector"):
        run_selectors([ex], {"embedding": EMB}, ["B9"], scorer=_scorer({}))


def test_resolve_placeholders_and_relations():
    assert resolve("#1 >> father", {1: "Davy Crockett"}) == "Who is the father of Davy Crockett?"
    assert resolve("What company did #1 merge with in 2002?", {1: "Compaq"}) == "What company did Compaq merge with in 2002?"
    assert resolve("When did #1 , #2 and Nissan open plants?", {1: "Honda", 2: "Toyota"}) == "When did Honda , Toyota and Nissan open plants?"


def test_later_hop_summary_on_a_hand_made_table():
    exs = [_example("q1"), _example("q2")]
    exs = [e.model_copy(update={"hops": h, "decomposition": [SubQuestion(question="a", answer="b", paragraph_idx=1)] * h}) for e, h in zip(exs, (2, 3))]
    items = [LaterHopItem(e, target=e.hops, positive=3) for e in exs]
    # original: the positive ranks below every other paragraph in q1 (AUC 0), top in q2; gold-subq: always top
    orig = [np.array([0.5, 0.5, 0.5, 0.1, 0.5, 0.5, 0.5]), np.array([0.1, 0.1, 0.1, 0.9, 0.1, 0.1, 0.1])]
    gold = [np.array([0.1, 0.1, 0.1, 0.9, 0.1, 0.1, 0.1])] * 2
    out = summarize(items, {"original": orig, "gold-subq": gold}, n_resamples=50)
    assert out["sources"]["gold-subq"]["overall"]["value"] == 1.0
    assert out["sources"]["original"]["by_hops"]["2"]["value"] == 0.0
    assert out["sources"]["original"]["by_hops"]["3"]["value"] == 1.0
    # pooled over 2 positives x 12 negatives: 0.1 ties the six 0.1s (3), loses to the 0.5s; 0.9 beats all 12
    assert out["sources"]["original"]["overall"]["value"] == pytest.approx(15 / 24)
    assert out["lifts"]["gold-subq - original"]["value"] > 0
