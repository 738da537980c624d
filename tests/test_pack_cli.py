"""`chainret bench pack` end to end on a two-question file (BM25 + lexical: no embedder needed)."""

import json

from typer.testing import CliRunner

from chainret.cli import app
from chainret.research.packing.reader import Reader, read_traces, score_traces

RECORDS = [
    {
        "_id": "q1",
        "question": "Which country was the director of Plan 9 from?",
        "answer": "United States",
        "supporting_facts": [["Plan 9", 0], ["Ed Wood", 0]],
        "context": [
            ["Plan 9", ["Plan 9 from Outer Space is a film directed by Ed Wood.", "It was released in 1957."]],
            ["Ed Wood", ["Ed Wood was a filmmaker from the United States.", "He made low-budget films."]],
            ["Paris", ["Paris is the capital of France.", "It has many museums."]],
        ],
        "type": "bridge",
        "level": "hard",
    },
    {
        "_id": "q2",
        "question": "Were Ed Wood and Tim Burton both directors?",
        "answer": "yes",
        "supporting_facts": [["Ed Wood", 0], ["Tim Burton", 0]],
        "context": [
            ["Ed Wood", ["Ed Wood was an American director."]],
            ["Tim Burton", ["Tim Burton is an American director and producer."]],
            ["Rome", ["Rome is in Italy."]],
        ],
        "type": "comparison",
        "level": "hard",
    },
]


def test_bench_pack_writes_summary_traces_and_plot(tmp_path):
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps(RECORDS))
    out = tmp_path / "run"
    res = CliRunner().invoke(
        app,
        ["bench", "pack", str(data), "--budgets", "10,30", "--seeds", "42,13", "--k", "2", "--signal", "bm25",
         "--similarity", "lexical", "--resamples", "50", "--out", str(out)],
    )
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["questions"] == 2 and summary["seeds_identical"] is True
    assert set(summary["pooled"]) == {f"{p}@{b}" for p in ["naive", "focused", "focused-seed", "mmr", "submodular", "oracle"] for b in (10, 30)}
    row = summary["pooled"]["submodular@30"]
    assert row["tokens_used"] <= 30 and row["aic_questions"] == 1  # the yes/no question is not applicable
    assert summary["pooled"]["oracle@30"]["answer_in_context"] == 1.0
    assert (out / "aic_vs_budget.png").stat().st_size > 1000
    traces = read_traces(out / "traces.jsonl")
    assert [t.question_id for t in traces] == ["q1", "q2"]
    packet = traces[0].packets["naive@30"]
    assert packet.cost <= 30 and packet.cost_unit == "tokens" and packet.diagnostics["recall@2"] == 1.0
    assert "recall@5" not in packet.diagnostics and set(summary["retrieval"]) >= {"recall@2", "all_gold@2"}  # --k 2 is labelled @2
    assert "recall@2" in res.output and "recall@5" not in res.output
    assert {p.doc_id for p in packet.items} <= {h.ref for h in traces[0].hops[0].hits}


def test_unknown_packer_is_a_usage_error(tmp_path):
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps(RECORDS))
    res = CliRunner().invoke(app, ["bench", "pack", str(data), "--packers", "naive,greedy", "--out", str(tmp_path / "o")])
    assert res.exit_code != 0
    assert "unknown packer(s) greedy" in str(res.exception) + res.output


class FirstWords:
    """A toy reader: answers with the context's words 6-7 (plumbing test only)."""

    name = "first-words"

    def answer(self, question: str, context: str) -> str:
        return " ".join(context.split()[6:8])


def test_reader_protocol_scores_packets(tmp_path):
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps(RECORDS[:1]))
    out = tmp_path / "run"
    CliRunner().invoke(app, ["bench", "pack", str(data), "--budget", "40", "--seeds", "1", "--k", "2", "--signal", "bm25",
                             "--similarity", "lexical", "--resamples", "20", "--out", str(out)])
    assert isinstance(FirstWords(), Reader)
    scores = score_traces(FirstWords(), read_traces(out / "traces.jsonl"), keys=["naive@40"])
    assert set(scores) == {"naive@40"} and scores["naive@40"]["n"] == 1
    assert 0.0 <= scores["naive@40"]["f1"] <= 1.0


def test_results_page_renders_from_a_run_summary(tmp_path):
    from benchmarks.harness.pack_report import render

    data = tmp_path / "tiny.json"
    data.write_text(json.dumps(RECORDS))
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["bench", "pack", str(data), "--budgets", "20,160", "--seeds", "42", "--k", "5",
                                   "--signal", "bm25", "--similarity", "lexical", "--resamples", "20", "--out", str(out)])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    summary["dataset"] = "musique"  # exercise a seed-comparison row
    page = render([("Tiny", summary)], 160)
    assert "| Tiny | 2 | bm25 | 1.000 | 0.506 | 1.000 | 0.184 | higher |" in page  # ours vs the seed's MuSiQue gate
    at2 = CliRunner().invoke(app, ["bench", "pack", str(data), "--budgets", "20,160", "--seeds", "42", "--k", "2", "--signal", "bm25",
                                   "--similarity", "lexical", "--resamples", "20", "--out", str(tmp_path / "run2")])
    assert at2.exit_code == 0, at2.output
    s2 = {**json.loads((tmp_path / "run2" / "summary.json").read_text()), "dataset": "musique"}
    assert "| Tiny | 2 | bm25 | 1.000 (@2) | – | 1.000 (@2) | – | – |" in render([("Tiny", s2)], 160)  # never set beside the seed's @5
    assert "| Tiny | submodular |" in page and "| Tiny | oracle |" in page
    assert "Why our figures differ" in page and "No reader" in page
