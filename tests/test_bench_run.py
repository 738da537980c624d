"""End to end: `chainret bench run` with the real embedder, traces, summary, report, errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmarks.harness.paths import absent
from chainret.cli import main
from chainret.trace.model import Trace

SLICES = Path(__file__).parent / "data" / "bench"
needs_data = pytest.mark.skipif(
    bool(absent("vws-splits")), reason=absent("vws-splits") or "present"
)


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty embedding cache, so the real model has to run."""
    d = tmp_path / "cache"
    monkeypatch.setenv("CHAINRET_CACHE_DIR", str(d))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    return d


def flat(text: str) -> str:
    """rich wraps long messages at the terminal width; compare with whitespace squashed."""
    return " ".join(text.split())


def run_cli(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


@pytest.mark.slow  # ~7 s: the real embedding model
def test_real_embedder_normalised_and_cached(fresh_cache: Path) -> None:
    from chainret.pipeline.embed import embed_texts

    texts = ["Who directed Inception?", "Inception is a 2010 film directed by Christopher Nolan.", "Cork is a city in Ireland."]
    v = embed_texts(texts)
    assert v.shape == (3, 384)
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2]  # the answer paragraph is closer than an unrelated one
    shards = list((fresh_cache / "emb" / "all-MiniLM-L6-v2").glob("*.npz"))
    assert len(shards) == 1
    again = embed_texts(texts[:2])  # served from the cache: no new shard
    assert np.allclose(again, v[:2]) and len(list(shards[0].parent.glob("*.npz"))) == 1


@needs_data
@pytest.mark.slow  # ~10 s alone; minutes when the 2 cores are shared
def test_bench_run_20_questions_end_to_end(tmp_path: Path, fresh_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert run_cli(["bench", "run", "hotpotqa-vws", "--n", "20", "--signals", "bm25,embedding", "--out", str(out), "--resamples", "200"]) == 0
    lines = (out / "traces.jsonl").read_text().splitlines()
    traces = [Trace.from_json(line) for line in lines]
    summary = json.loads((out / "summary.json").read_text())
    assert len(traces) == 20 == summary["n"] == len(summary["question_ids"])
    assert [t.question_id for t in traces] == summary["question_ids"]
    assert summary["models"] == {"embedding": "all-MiniLM-L6-v2"} and summary["seed"] == 1337
    for t in traces:
        assert t.kind == "bench" and t.dataset == "hotpotqa" and t.outcome == "retrieved"
        hits = t.hops[0].hits
        assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
        assert all(set(h.scores) == {"bm25", "embedding"} for h in hits)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        assert len(t.meta["gold_refs"]) == 2 and set(t.meta["gold_refs"]) <= {h.ref for h in hits}
    emb = summary["metrics"]["embedding"]["auc"]
    assert 0.6 < emb["overall"]["value"] <= 1.0  # MiniLM separates gold from distractors on HotpotQA
    assert emb["overall"]["low"] <= emb["overall"]["value"] <= emb["overall"]["high"]
    assert (out / "report.md").read_text().startswith("# Bench run: hotpotqa-vws")
    # the report recomputes nothing it cannot: re-render and plot from the run dir
    assert run_cli(["bench", "report", str(out), "--plot"]) == 0
    assert (out / "auc_by_type.png").stat().st_size > 1000
    assert list(fresh_cache.rglob("*.npz"))


def test_unknown_signal_lists_valid_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run_cli(["bench", "run", "hotpotqa", "--signals", "bm25,tfidf", "--out", str(tmp_path / "x")])
    err = flat(capsys.readouterr().err)
    assert code == 2 and "tfidf" in err and "bm25, embedding, nli-slot, nli-oracle" in err
    assert "Traceback" not in err


def test_unknown_selector_lists_valid_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run_cli(["bench", "run", "hotpotqa", "--selectors", "B1,B9", "--out", str(tmp_path / "x")])
    err = flat(capsys.readouterr().err)
    assert code == 2 and "B9" in err and "COND" in err


def test_malformed_file_then_lenient(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recs = [json.loads(x) for x in (SLICES / "hotpot_lines.json").read_text().splitlines()]
    del recs[0]["context"]
    bad = tmp_path / "bad.json"
    bad.write_text("".join(json.dumps(r) + "\n" for r in recs))
    code = run_cli(["bench", "run", str(bad), "--signals", "bm25", "--out", str(tmp_path / "r")])
    err = flat(capsys.readouterr().err)
    assert code == 2 and f"{bad}:1" in err and "'context'" in err and "Traceback" not in err
    code = run_cli(["bench", "run", str(bad), "--signals", "bm25", "--out", str(tmp_path / "r"), "--lenient", "--resamples", "50"])
    assert code == 0
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["n"] == 1 and len(summary["skipped"]) == 1 and summary["skipped"][0]["kind"] == "malformed"
    assert "skipped records: 1" in (tmp_path / "r" / "report.md").read_text()


def test_report_on_a_non_run_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["bench", "report", str(tmp_path)]) == 2
    assert "no summary.json" in flat(capsys.readouterr().err)


def test_bm25_run_does_not_import_torch(tmp_path: Path) -> None:
    import subprocess

    code = (
        "import sys; from chainret.cli import main\n"
        f"try: main(['bench','run',{str(SLICES / 'hotpot_array.json')!r},'--signals','bm25','--out',{str(tmp_path / 'b')!r},'--resamples','20'])\n"
        "except SystemExit as e: assert not e.code, e.code\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_selectors_land_in_summary_and_trace(tmp_path: Path) -> None:
    out = tmp_path / "sel"
    args = ["bench", "run", str(SLICES / "hotpot_array.json"), "--signals", "bm25", "--selectors", "B1,B2,B5", "--out", str(out), "--resamples", "20"]
    assert run_cli(args) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert list(summary["selector_summary"]) == ["B1", "B2", "B5"]
    assert summary["selector_summary"]["B5"]["gold_recall"] == 1.0
    t = Trace.from_json((out / "traces.jsonl").read_text().splitlines()[0])
    hop = t.hops[0]
    assert hop.selected == [h.ref for h in hop.hits[:5]]  # B1, the first selector: the top five by BM25
    assert set(t.meta["selectors"]["B5"]["kept"]) == set(t.meta["gold_refs"])


def test_parametrised_selector_names_accepted() -> None:
    from chainret.research.bench.run import parse_selectors

    assert parse_selectors("PC@0.3, B4:bm25,B1,B1") == ["PC@0.3", "B4:bm25", "B1"]


def test_embedding_cache_compacts_many_small_shards(tmp_path: Path) -> None:
    from chainret.pipeline.embed import COMPACT_ABOVE, EmbeddingCache

    writer = EmbeddingCache(tmp_path)
    for i in range(COMPACT_ABOVE + 2):
        writer.put_many([f"k{i}"], np.full((1, 4), float(i), dtype=np.float32))
    assert len(list(tmp_path.glob("*.npz"))) == COMPACT_ABOVE + 2
    reader = EmbeddingCache(tmp_path)
    assert reader.get("k5") is not None and float(reader.get("k5")[0]) == 5.0
    assert len(list(tmp_path.glob("*.npz"))) == 1
    again = EmbeddingCache(tmp_path)
    assert all(again.get(f"k{i}") is not None for i in range(COMPACT_ABOVE + 2))
