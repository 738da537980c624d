"""The model card is generated from recorded JSON, including the honest target comparison."""

import json

from chainret.research.nli.card import render_card, write_card


def _write(d, name, obj):
    (d / name).write_text(json.dumps(obj))


def test_card_reports_results_targets_and_curve(tmp_path):
    _write(tmp_path, "training.json", {
        "checkpoint": "final", "run": "r1",
        "training": {"config": {"seed": 7, "lr": 5e-5, "batch_size": 32, "max_length": 128},
                     "command": ["/x/chainret", "nli", "train", "--out", "nli-runs/r1"], "pool_pairs": 1000,
                     "data": [{"name": "mpe", "dataset": "mpe", "split": "train", "pairs": 1000, "licence": "L-MPE"}],
                     "total_steps": 10},
        "log_summary": {"steps": 10, "pairs_seen": 320, "epochs": 0.32, "hours": 0.1, "pairs_per_s": 0.9,
                        "replans": [{"step": 5, "old_total": 20, "new_total": 10, "steps_per_s": 0.5}]}})
    _write(tmp_path, "eval.json", {"limit": 100, "sets": {
        "mnli_dev_matched": {"accuracy": 0.7, "n": 100, "confusion": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]},
        "snli_test": {"accuracy": 0.85, "n": 100, "confusion": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}}})
    _write(tmp_path, "curve.json", [{"step": 5, "pairs_seen": 160, "set": "mnli_dev_matched", "n": 50, "accuracy": 0.5}])
    _write(tmp_path, "speed.json", {"threads": 2, "batch_size": 32, "throughput": [
        {"premise_words": 30, "variant": "fp32 bucketed", "pairs_per_s": 99.5}],
        "quantized": {"n": 10, "acc_fp32": 0.6, "acc_int8": 0.5, "agreement": 0.9, "speed_ratio": 1.5}})
    card = render_card(tmp_path)
    assert "chainret nli train --out nli-runs/r1" in card
    assert "| mpe | mpe / train | 1,000 | L-MPE |" in card
    assert "| mnli_dev_matched | 70.0% | 100 |" in card
    assert "target 75.0%: **NOT met**" in card and "target 82.0%: **met**" in card
    assert "The targets are not met (mnli_dev_matched)" in card
    assert "| 5 | 160 | 50.0% |" in card and "budget 20 -> 10" in card
    assert "99.5" in card and "int8 50.0%" in card
    assert "## Known weaknesses" in write_card(tmp_path).read_text()
