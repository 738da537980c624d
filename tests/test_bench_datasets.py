"""Adapters on slices of the real files (each layout), the full data dir when present, and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chainret.research.qa.datasets import load_examples, load_squad, read_records
from benchmarks.harness.paths import absent, data_dir
from chainret.core.errors import DataError, UsageError

SLICES = Path(__file__).parent / "data" / "bench"
DATA = data_dir()
needs_data = pytest.mark.skipif(bool(absent("vws-splits")), reason=absent("vws-splits") or "present")


@pytest.mark.parametrize(
    "name, layout, dataset, n",
    [
        ("hotpot_lines.json", "lines", "hotpotqa", 2),
        ("hotpot_array.json", "array", "hotpotqa", 2),
        ("2wiki_columns.json", "columns", "2wiki", 2),
        ("2wiki_lines.json", "lines", "2wiki", 1),
        ("musique_lines.json", "lines", "musique", 1),
        ("musique_array.json", "array", "musique", 1),
        ("vws_hotpotqa.jsonl", "lines", "hotpotqa", 2),
        ("vws_2wiki.jsonl", "lines", "2wiki", 2),
    ],
)
def test_each_layout_is_sniffed_by_content(name: str, layout: str, dataset: str, n: int) -> None:
    assert read_records(SLICES / name)[0] == layout
    res = load_examples(str(SLICES / name))
    assert [e.dataset for e in res.examples] == [dataset] * n
    assert res.ids == [e.id for e in res.examples]
    for ex in res.examples:
        assert ex.gold_indices, ex.id
        assert [p.idx for p in ex.paragraphs] == list(range(len(ex.paragraphs)))
        assert all(p.ref == f"{dataset}:{ex.id}#p{p.idx}" for p in ex.paragraphs)


def test_hotpot_original_fields() -> None:
    ex = load_examples(str(SLICES / "hotpot_array.json")).examples[0]
    assert ex.id == "5a8b57f25542995d1e6f1371"
    assert ex.answers == ["yes"] and ex.qtype == "comparison" and ex.hops == 2
    gold = {p.title: p.supporting_sentences for p in ex.paragraphs if p.is_gold}
    assert gold == {"Scott Derrickson": [0], "Ed Wood": [0]}


def test_2wiki_columns_and_evidences() -> None:
    ex = load_examples(str(SLICES / "2wiki_columns.json")).examples[0]
    assert ex.id == "100c512a0bde11eba7f7acde48001122"
    assert [(e.subject, e.relation, e.object) for e in ex.evidences or []] == [
        ("Charles James Mathew", "father", "Sir James Charles Mathew"),
        ("Sir James Charles Mathew", "place of burial", "Cork"),
    ]
    assert ex.hops == 2


def test_2wiki_record_without_context_is_counted_not_dropped() -> None:
    res = load_examples(str(SLICES / "2wiki_lines.json"))
    assert len(res.examples) == 1
    assert [s.kind for s in res.skipped] == ["excluded"]
    assert ":2" in res.skipped[0].source


def test_musique_decomposition() -> None:
    ex = load_examples(str(SLICES / "musique_lines.json")).examples[0]
    assert ex.hops == len(ex.decomposition or []) == 2
    assert ex.decomposition[1].question.startswith("#1")
    assert {d.paragraph_idx for d in ex.decomposition} == set(ex.gold_indices)
    arr = load_examples(str(SLICES / "musique_array.json")).examples[0]
    assert arr.hops == 3 and arr.qtype.startswith("3hop")
    assert all(d.paragraph_idx is not None and arr.paragraphs[d.paragraph_idx].is_gold for d in arr.decomposition)


def test_vws_text_keeps_title_once() -> None:
    from chainret.research.qa.datasets import passage

    ex = load_examples(str(SLICES / "vws_hotpotqa.jsonl")).examples[0]
    raw = json.loads((SLICES / "vws_hotpotqa.jsonl").read_text().splitlines()[0])
    p0 = ex.paragraphs[0]
    assert not p0.text.startswith(p0.title + ".")
    assert " ".join(passage(p0).split()) == " ".join(raw["paragraphs"][0]["text"].split())


def test_squad_control_is_deterministic_with_same_article_distractors() -> None:
    a = load_squad(SLICES / "squad_small.json", n=5, seed=3)
    b = load_squad(SLICES / "squad_small.json", n=5, seed=3)
    assert [e.model_dump() for e in a] == [e.model_dump() for e in b]
    for ex in a:
        assert len(ex.paragraphs) == 10 and len(ex.gold_indices) == 1
        gold = ex.paragraphs[ex.gold_indices[0]]
        assert any(ans in gold.text for ans in ex.answers)
        assert len({p.text for p in ex.paragraphs}) == 10
    c = load_squad(SLICES / "squad_small.json", n=5, seed=4)
    assert [e.id for e in c] != [e.id for e in a] or [e.gold_indices for e in c] != [e.gold_indices for e in a]


# ----------------------------------------------------------------------------- malformed input


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def _hotpot_lines(n: int = 3) -> list[dict]:
    return [json.loads(line) for line in (SLICES / "hotpot_lines.json").read_text().splitlines()][:n]


def test_missing_field_names_file_line_and_field(tmp_path: Path) -> None:
    recs = _hotpot_lines()
    del recs[1]["question"]
    p = _write(tmp_path, "bad.json", "".join(json.dumps(r) + "\n" for r in recs))
    with pytest.raises(DataError) as err:
        load_examples(str(p))
    msg = str(err.value)
    assert f"{p}:2" in msg and "'question'" in msg and "--lenient" in msg
    res = load_examples(str(p), lenient=True)
    assert len(res.examples) == 1 and len(res.skipped) == 1 and res.skipped[0].kind == "malformed"


def test_wrong_type_and_bad_json_line(tmp_path: Path) -> None:
    recs = _hotpot_lines()
    recs[0]["supporting_facts"][0] = ["Title only"]
    p = _write(tmp_path, "bad.json", "".join(json.dumps(r) + "\n" for r in recs))
    with pytest.raises(DataError, match=r"bad\.json:1.*supporting_facts\[0\]"):
        load_examples(str(p))
    q = _write(tmp_path, "broken.json", json.dumps(recs[1]) + "\n{not json\n")
    with pytest.raises(DataError, match=r"broken\.json:2: invalid JSON"):
        load_examples(str(q))


def test_array_record_and_musique_field_errors(tmp_path: Path) -> None:
    arr = json.loads((SLICES / "musique_array.json").read_text())
    arr[0]["question_decomposition"][1]["paragraph_support_idx"] = 99
    p = _write(tmp_path, "mu.json", json.dumps(arr))
    with pytest.raises(DataError, match=r"mu\.json: record 0: question_decomposition\[1\].*paragraph_support_idx"):
        load_examples(str(p))


def test_gold_title_absent_from_context(tmp_path: Path) -> None:
    recs = _hotpot_lines(1)
    recs[0]["supporting_facts"].append(["No Such Page", 0])
    p = _write(tmp_path, "t.json", json.dumps(recs))
    with pytest.raises(DataError, match="No Such Page"):
        load_examples(str(p))


def test_unknown_dataset_and_split() -> None:
    with pytest.raises(UsageError, match="valid: hotpotqa"):
        load_examples("hotpot")
    with pytest.raises(UsageError, match="dev"):
        load_examples("hotpotqa", split="train")


def test_missing_data_dir_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="CHAINRET_DATA_DIR"):
        load_examples("musique", data_dir=tmp_path)


def test_there_is_no_default_data_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --data-dir or $CHAINRET_DATA_DIR chainret refuses, instead of reading a folder outside the repo."""
    monkeypatch.delenv("CHAINRET_DATA_DIR", raising=False)
    with pytest.raises(UsageError, match="--data-dir .*CHAINRET_DATA_DIR"):
        load_examples("musique")


# ----------------------------------------------------------------------------- the real data dir


@needs_data
@pytest.mark.parametrize(
    "dataset, n, excluded, golds_mean",
    [
        ("hotpotqa", 300, 0, 2.0),
        ("hotpotqa-vws", 500, 0, 2.0),
        ("hotpotqa-vws-calib", 200, 0, 2.0),
        ("2wiki", 657, 36, None),
        ("2wiki-vws", 500, 0, 2.476),
        ("musique", 292, 0, None),
        ("squad", 300, 0, 1.0),
    ],
)
def test_full_counts(dataset: str, n: int, excluded: int, golds_mean: float | None) -> None:
    res = load_examples(dataset)
    assert len(res.examples) == n == len(set(res.ids))
    assert sum(s.kind == "excluded" for s in res.skipped) == excluded
    assert not [s for s in res.skipped if s.kind == "malformed"]
    if golds_mean is not None:
        assert sum(len(e.gold_indices) for e in res.examples) / n == pytest.approx(golds_mean)


@needs_data
def test_vws_types_filled_and_sampling_deterministic() -> None:
    ex = load_examples("hotpotqa-vws").examples
    assert {e.qtype for e in ex} == {"bridge", "comparison"}
    a = load_examples("2wiki-vws", n=25, seed=1337).ids
    assert a == load_examples("2wiki-vws", n=25, seed=1337).ids
    assert a != load_examples("2wiki-vws", n=25, seed=7).ids
    full = load_examples("2wiki-vws").ids
    assert [i for i in full if i in set(a)] == a  # file order kept
