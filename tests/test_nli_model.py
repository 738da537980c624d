"""The shipped NLI model: loads offline, gets the two check pairs right, refuses a permuted config."""

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

from chainret.core.errors import ModelError
from chainret.research.nli.model import CANONICAL, canonical_order, default_model_path, load_nli
from conftest import needs_nli_data

pytestmark = pytest.mark.skipif(not (default_model_path() / "config.json").exists(),
                                reason="shipped NLI model not exported yet")

P = "A man is playing a guitar on stage."


@pytest.fixture(scope="module")
def nli():
    return load_nli()


def test_shipped_model_entails_and_contradicts(nli):
    probs = nli.predict_proba([(P, "A person is playing an instrument."), (P, "Nobody is playing music.")])
    assert probs.shape == (2, 3)
    np.testing.assert_allclose(probs.sum(1), 1.0, rtol=1e-5)
    assert CANONICAL[probs[0].argmax()] == "entailment"
    assert CANONICAL[probs[1].argmax()] == "contradiction"
    assert nli.model_id == "chainret/nli-minilm-l6"


def test_order_is_restored_after_length_bucketing(nli):
    pairs = [(P * k, "A person is playing an instrument.") for k in (5, 1, 3)] + [(P, "Nobody is playing music.")]
    batched = nli.p_entail(pairs, batch_size=2)
    single = np.array([nli.p_entail([p])[0] for p in pairs])
    np.testing.assert_allclose(batched, single, atol=1e-4)
    assert nli.predict_proba([]).shape == (0, 3)


def test_permuted_config_is_rejected(tmp_path):
    dest = tmp_path / "permuted"
    shutil.copytree(default_model_path(), dest)
    cfg = json.loads((dest / "config.json").read_text())
    cfg["id2label"] = {"0": "contradiction", "1": "neutral", "2": "entailment"}
    cfg["label2id"] = {v: int(k) for k, v in cfg["id2label"].items()}
    (dest / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(ModelError, match="label-order check failed"):
        load_nli(str(dest))


def test_label_names_are_read_case_insensitively():
    assert canonical_order({0: "CONTRADICTION", 1: "Entailment", 2: "neutral"}) == [1, 2, 0]
    with pytest.raises(ModelError, match="does not name"):
        canonical_order({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})


def test_unreachable_hub_name_is_a_model_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelError, match="cannot load NLI model"):
        load_nli("cross-encoder/definitely-not-cached-nli-model")


@pytest.mark.slow  # ~13 s: loads the NLI model in a CLI process
@needs_nli_data
def test_cli_eval_json_prints_one_object():
    proc = subprocess.run([sys.executable, "-m", "chainret", "nli", "eval", "--sets", "conjnli_dev", "--limit", "24", "--json"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert list(out) == ["conjnli_dev"] and out["conjnli_dev"]["n"] == 24
    assert 0.0 <= out["conjnli_dev"]["accuracy"] <= 1.0


def test_cli_eval_bad_model_has_no_traceback(tmp_path, capsys):
    """In-process through ``main`` (the console script's entry point): its error path sets the exit code and prints
    the message; an exception it does not turn into one escapes ``pytest.raises`` and fails the test. A second
    interpreter would add nothing but ~3 s of torch import (``test_cli_root`` holds the process boundary)."""
    from chainret.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["nli", "eval", "--model", str(tmp_path), "--limit", "2"])
    assert exc.value.code == 3  # environment: the model is missing or broken (chainret.core.errors exit table)
    captured = capsys.readouterr()
    err = " ".join(captured.err.split())  # rich wraps long lines
    assert "not a model directory" in err and "Traceback" not in err + captured.out
