"""The training command runs end to end on a few hundred pairs, exports, and resumes exactly."""

import json

import pytest
from safetensors.torch import load_file

from chainret.research.nli.model import load_nli
from chainret.research.nli.train import DeadlineSchedule, TrainConfig, bucketed_batches, train
from conftest import needs_nli_data


def _cfg(out, **kw):
    base = dict(out_dir=str(out), max_pairs=200, max_steps=4, batch_size=16, max_length=64, warmup_steps=1,
                checkpoint_every=2, curve_eval_n=16, seed=3)
    base.update(kw)
    return TrainConfig(**base)


def test_bucketed_batches_cover_everything_once_and_are_deterministic():
    lengths = [(i * 37) % 50 + 1 for i in range(1000)]
    a = bucketed_batches(lengths, 32, seed=1, epoch=0, chunk_batches=4)
    assert sorted(i for b in a for i in b) == list(range(1000))
    assert a == bucketed_batches(lengths, 32, seed=1, epoch=0, chunk_batches=4)
    assert a != bucketed_batches(lengths, 32, seed=1, epoch=1, chunk_batches=4)
    def mean_spread(batches):
        return sum(max(lengths[i] for i in b) - min(lengths[i] for i in b) for b in batches) / len(batches)

    unbucketed = [list(range(k, min(k + 32, 1000))) for k in range(0, 1000, 32)]
    assert mean_spread(a) < 0.4 * mean_spread(unbucketed)  # sorted within chunks: little padding


def test_schedule_warmup_decay_and_replan():
    s = DeadlineSchedule(1.0, warmup=10, total=110)
    assert s.lr(0) < s.lr(9) <= 1.0 and s.lr(10) == pytest.approx(1.0)
    assert s.lr(60) == pytest.approx(0.5) and s.lr(110) == 0.0
    before = s.lr(60)
    assert s.replan(60, steps_per_s=1.0, seconds_left=20, cap=110, margin=1.0) == 80
    assert s.lr(60) == pytest.approx(before) and s.lr(80) == 0.0  # no jump, decays to 0 at the new end


@pytest.mark.slow  # 150-200 s on the shared 2-core machine: trains, exports and resumes a model
@needs_nli_data
def test_train_end_to_end_export_and_resume(tmp_path):
    from chainret.research.nli.export import export

    final = train(_cfg(tmp_path / "a"), progress=False, log=lambda m: None)
    cfg = json.loads((tmp_path / "a" / "config.json").read_text())
    assert cfg["train_pairs"] == 200 and cfg["total_steps"] == 4 and cfg["config"]["seed"] == 3
    assert {d["name"] for d in cfg["data"]} and len(json.loads((tmp_path / "a" / "curve.json").read_text())) == 2
    dest = export(final, tmp_path / "exported")
    m = load_nli(str(dest), check=False)  # 4 steps cannot learn NLI; loading and shape are what matter
    assert m.predict_proba([("a b", "c")]).shape == (1, 3)
    assert json.loads((dest / "training.json").read_text())["training"]["train_pairs"] == 200

    class Stop(Exception):
        pass

    def interrupt(msg):
        if "checkpoints/step-000002" in msg:
            raise Stop

    with pytest.raises(Stop):
        train(_cfg(tmp_path / "b"), progress=False, log=interrupt)
    train(_cfg(tmp_path / "b"), resume=True, progress=False, log=lambda m: None)
    wa = load_file(str(tmp_path / "a" / "final" / "model.safetensors"))
    wb = load_file(str(tmp_path / "b" / "final" / "model.safetensors"))
    for k in wa:
        assert (wa[k] - wb[k]).abs().max().item() < 1e-5, k
