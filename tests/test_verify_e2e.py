"""Real model, real data, small: the verification layer end to end.

* the label-order check reached through the scorer refuses a model whose config swaps labels;
* `chainret bench run … --signals embedding,nli-slot,nli-oracle --selectors …` on 10 questions;
* `chainret bench later-hop musique` on 4 questions, with Verification records in the traces.

The two CLI runs score a few hundred pairs each and are marked slow (minutes on a busy 2-core
machine); the label-order and slot/oracle checks use the real model on two pairs and stay fast.
"""

import json
import shutil

import pytest

from chainret.research.nli.model import default_model_path
from benchmarks.harness.paths import absent

MODEL_DIR = default_model_path()
needs_model = pytest.mark.skipif(not (MODEL_DIR / "config.json").exists(), reason=f"chainret's NLI model not present at {MODEL_DIR}")
needs_data = pytest.mark.skipif(bool(absent("musique")), reason=absent("musique") or "present")


@pytest.fixture(autouse=True)
def _offline(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("CHAINRET_CACHE_DIR", str(tmp_path / "cache"))  # no stale cached scores


@needs_model
def test_scorer_refuses_a_permuted_label_config(tmp_path):
    from chainret.core.errors import ModelError
    from chainret.research.verification.scorer import EntailmentScorer

    bad = tmp_path / "permuted"
    shutil.copytree(MODEL_DIR, bad)
    cfg = json.loads((bad / "config.json").read_text())
    id2label = cfg["id2label"]
    ent = next(k for k, v in id2label.items() if v.lower().startswith("entail"))
    con = next(k for k, v in id2label.items() if v.lower().startswith("contra"))
    id2label[ent], id2label[con] = id2label[con], id2label[ent]  # the config now lies about its order
    cfg["label2id"] = {v: int(k) for k, v in id2label.items()}
    (bad / "config.json").write_text(json.dumps(cfg))
    scorer = EntailmentScorer(model_name=str(bad), use_cache=False)
    with pytest.raises(ModelError, match="label-order check failed"):
        scorer.p_entail([("A man is playing a guitar on stage.", "A person is playing an instrument.")])


@needs_model
def test_slot_vs_oracle_on_a_sufficient_premise():
    from chainret.research.verification.hypothesis import hypothesis
    from chainret.research.verification.scorer import EntailmentScorer

    scorer = EntailmentScorer(use_cache=False)
    q = "Who directed the 2010 film Inception?"
    premise = "Inception is a 2010 science fiction action film written and directed by Christopher Nolan."
    unrelated = "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France."
    p = scorer.p_entail([(premise, hypothesis(q, "Christopher Nolan")), (unrelated, hypothesis(q, "Christopher Nolan"))])
    assert p[0] > 0.5 > p[1]


def _cli_summary(args, out):
    """Run the CLI to completion (exit 0) and read the run's summary.json."""
    from chainret.cli import main

    with pytest.raises(SystemExit) as exc:
        main([*args, "--out", str(out), "--resamples", "50"])
    assert exc.value.code in (0, None)
    return json.loads((out / "summary.json").read_text())


@pytest.mark.slow
@needs_model
@needs_data
def test_bench_run_with_nli_signals_and_selectors(tmp_path):
    out = tmp_path / "run"
    summary = _cli_summary(["bench", "run", "hotpotqa-vws", "--n", "10", "--signals", "embedding,nli-slot,nli-oracle",
                            "--selectors", "B1,B2,B4,PC,SET,COND,B5"], out)
    sel = summary["selector_summary"]
    assert set(sel) >= {"B1", "B2", "B4", "PC", "SET", "COND", "B5"}
    assert sel["B5"]["gold_recall"] == 1.0
    assert sel["SET"]["nli_calls"] == 10 and sel["COND"]["nli_calls"] == 4
    assert 0.0 <= summary["metrics"]["nli-oracle"]["auc"]["overall"]["value"] <= 1.0
    from chainret.trace.model import Trace

    first = Trace.from_json((out / "traces.jsonl").read_text().splitlines()[0])
    kinds = {v.hypothesis_kind for v in first.hops[0].verifications}
    assert kinds == {"slot", "oracle"}
    assert len(first.hops[0].verifications) == 2 * len(first.hops[0].hits)


@pytest.mark.slow
@needs_model
@needs_data
def test_later_hop_cli_writes_summary_and_verifications(tmp_path):
    from chainret.trace.model import Trace

    out = tmp_path / "lh"
    summary = _cli_summary(["bench", "later-hop", "musique", "--n", "4"], out)
    assert set(summary["sources"]) == {"original", "gold-subq", "gold-subq+answer", "anchored-subq"}
    for v in summary["sources"].values():
        assert 0.0 <= v["overall"]["value"] <= 1.0 and v["by_hops"]
    assert "gold-subq - original" in summary["lifts"]
    lines = (out / "traces.jsonl").read_text().splitlines()
    assert len(lines) == summary["n_questions"]
    tr = Trace.from_json(lines[0])
    ver = tr.hops[0].verifications
    assert {v.hypothesis_kind for v in ver} == set(summary["sources"])
    assert all(v.model == summary["nli_model"] and len(v.premise_refs) == 1 for v in ver)
    assert "the answer" not in " ".join(v.hypothesis.lower() for v in ver)


def test_later_hop_rejects_a_dataset_without_decompositions():
    from chainret.core.errors import UsageError
    from chainret.research.verification.laterhop import build_items

    with pytest.raises(UsageError, match="decompositions"):
        build_items([], "hotpotqa")
