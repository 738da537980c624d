"""Training-data selection: licences and the README's "do not train on" list."""

import pytest

from chainret.core.errors import DataError, UsageError
from chainret.research.nli import data
from conftest import needs_nli_data


def test_default_selection_is_redistributable_and_clean():
    for name in data.DEFAULT_TRAIN:
        src = data.TRAIN_SOURCES[name]
        assert src.redistributable, name
        assert src.dataset not in {"sick", "taxinli", "anli_dev"}
        assert (src.dataset, src.split) not in data.DO_NOT_TRAIN


def test_do_not_train_sources_are_refused(monkeypatch):
    monkeypatch.setitem(data.TRAIN_SOURCES, "ling_val", data.Source("lingfeatured_nli", "val", "x"))
    with pytest.raises(UsageError, match="must not be trained on"):
        data.resolve_train_sets(["lingfeatured", "ling_val"])
    with pytest.raises(UsageError, match="unknown training set"):
        data.resolve_train_sets(["mnli_train"])


@pytest.mark.slow  # ~5 s: reads the whole NLI pool
@needs_nli_data
def test_pool_shares_no_pair_with_eval_sets_and_drops_news():
    pairs, record = data.load_train()
    assert len(pairs) > 100_000
    assert {r["name"] for r in record} == set(data.DEFAULT_TRAIN)
    assert not any(p.source.startswith(("sick", "taxinli", "anli")) for p in pairs)
    assert all("news" not in p.source for p in pairs)
    train = {(p.premise, p.hypothesis) for p in pairs}
    for name in data.EVAL_SETS:
        overlap = [p for p in data.load_eval(name) if (p.premise, p.hypothesis) in train]
        assert not overlap, (name, overlap[:2])


@needs_nli_data
def test_eval_limit_is_a_fixed_sample():
    a = data.load_eval("conjnli_dev", limit=50)
    b = data.load_eval("conjnli_dev", limit=50)
    assert len(a) == 50 and a == b
    assert {p.label for p in a} <= {0, 1, 2}


def test_missing_data_dir_is_a_clear_error(tmp_path):
    with pytest.raises(DataError, match="validate_nli.py"):
        data.nli_data_dir(tmp_path)


def test_there_is_no_default_nli_data_dir(monkeypatch):
    monkeypatch.delenv("CHAINRET_DATA_DIR", raising=False)
    with pytest.raises(UsageError, match="--data-dir .*CHAINRET_DATA_DIR"):
        data.nli_data_dir()
