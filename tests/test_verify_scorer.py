"""The NLI score cache: each pair reaches the model once per model, across runs; a timed sweep can
skip reading it and still leave its scores for later runs; damaged shards cost only recomputation."""

import numpy as np

from chainret.research.verification.scorer import EntailmentScorer


class CountingNLI:
    """P(entail) = premise length / 100; remembers every pair it was asked to score."""

    def __init__(self, model_id="counting-nli"):
        self.model_id = model_id
        self.seen = []

    def p_entail(self, pairs, batch_size=32):
        self.seen.extend(pairs)
        return np.array([len(p) / 100 for p, _ in pairs])


PAIRS = [("a cat sat", "an animal sat"), ("dogs bark", "an animal makes noise"), ("a cat sat", "an animal sat")]


def _scorer(model, **kw):
    return EntailmentScorer(model, **kw)


def test_repeated_pairs_cost_one_call_and_come_back_in_order(tmp_path, monkeypatch):
    monkeypatch.setenv("CHAINRET_CACHE_DIR", str(tmp_path))
    model = CountingNLI()
    s = _scorer(model)
    out = s.p_entail(PAIRS)
    np.testing.assert_allclose(out, [0.09, 0.09, 0.09])
    assert len(model.seen) == 2 and s.calls == 2


def test_second_run_reads_the_cache_and_sweep_mode_rescores_but_still_saves(tmp_path, monkeypatch):
    monkeypatch.setenv("CHAINRET_CACHE_DIR", str(tmp_path))
    _scorer(CountingNLI()).p_entail(PAIRS)

    again = CountingNLI()
    np.testing.assert_allclose(_scorer(again).p_entail(PAIRS), [0.09, 0.09, 0.09])
    assert again.seen == []  # all from disk

    sweep = CountingNLI()
    new = [("a bird sang", "an animal sang")]
    _scorer(sweep, read_cache=False).p_entail(PAIRS[:2] + new)
    assert len(sweep.seen) == 3  # nothing read, everything scored

    later = CountingNLI()
    _scorer(later).p_entail(new)
    assert later.seen == []  # the sweep's new score was written


def test_scores_are_kept_per_model(tmp_path, monkeypatch):
    monkeypatch.setenv("CHAINRET_CACHE_DIR", str(tmp_path))
    _scorer(CountingNLI("model-a")).p_entail(PAIRS)
    other = CountingNLI("model-b")
    _scorer(other).p_entail(PAIRS)
    assert len(other.seen) == 2


def test_a_damaged_shard_is_recomputed_not_fatal(tmp_path, monkeypatch):
    monkeypatch.setenv("CHAINRET_CACHE_DIR", str(tmp_path))
    _scorer(CountingNLI()).p_entail(PAIRS)
    shards = list((tmp_path / "nli").rglob("*.npz"))
    assert shards
    for sh in shards:
        sh.write_bytes(b"not an npz")
    model = CountingNLI()
    np.testing.assert_allclose(_scorer(model).p_entail(PAIRS), [0.09, 0.09, 0.09])
    assert len(model.seen) == 2


def test_no_cache_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("CHAINRET_CACHE_DIR", str(tmp_path))
    _scorer(CountingNLI(), use_cache=False).p_entail(PAIRS)
    assert not list(tmp_path.rglob("*.npz"))
