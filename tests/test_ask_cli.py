"""`chainret ask / eval / graph / trace show|verify` through the real CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import networkx as nx
import pytest
from typer.testing import CliRunner

from chainret.cli import app, main
from chainret.trace.model import read_trace

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def run(*args, env=None):
    return runner.invoke(app, list(args), env=env)


def test_ask_default_catalog_prints_summary_and_writes_trace(tmp_path):
    r = run("ask", "Which contact serves PR-84?", env={"CHAINRET_TRACE_DIR": str(tmp_path), "COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    for part in ("request", "interpreted", "project:final:main", "hops", "path", "packet", "107 chars", "accepted_path", "trace written to"):
        assert part in r.output
    files = list(tmp_path.glob("*.json"))
    assert len(files) == 1 and read_trace(files[0]).outcome == "accepted_path"


def test_ask_json_view_and_budget_flags(tmp_path):
    out = tmp_path / "t.json"
    r = run("ask", "Which contact serves project PR-84?", "--view", "final", "--json", "--trace-out", str(out), "--rows-per-hop", "2")
    assert r.exit_code == 0, r.output
    t = json.loads(r.output)
    assert t["path_ids"] == ["project:final:main", "org:final:north", "contact:final:desk"]
    assert t["budget"]["rows_per_hop"] == 2 and t["budget"]["max_rows"] == 4 and t["rows_used"] <= 4
    # the trace file is the printed JSON less what --json adds: `answer`, and each set member's name and named path
    assert t.pop("answer") == {"id": "contact:final:desk", "name": "Rowan service desk"}
    assert [(a.pop("name"), a.pop("path")[-1]["id"]) for a in t["answers"]] == [("Rowan service desk", "contact:final:desk")]
    assert read_trace(out).to_json() == json.dumps(t, indent=2, sort_keys=True, ensure_ascii=False)


def test_ask_as_auditor_sees_failed_hop(tmp_path):
    world = tmp_path / "w"
    shutil.copytree(ROOT / "fixtures" / "seed", world)
    text = (world / "catalog.yaml").read_text()
    # make the final contact registry auditor-only (same effect as the restricted-second-hop overlay)
    marker = "  title: Contact registry (final)\n"
    assert marker in text
    text = text.replace(marker, marker + "  visibility: restricted\n  principals:\n  - auditor\n", 1)
    (world / "catalog.yaml").write_text(text)
    args = ["ask", "Which contact serves PR-84?", "--catalog", str(world), "--view", "final", "--json", "--no-trace"]
    pub = json.loads(run(*args).output)
    aud = json.loads(run(*args, "--as", "auditor").output)
    assert pub["outcome"] == aud["outcome"] == "partial_evidence"
    assert "contacts.md@v1" not in json.dumps(pub)
    assert aud["hops"][1]["refusal"]["details"]["withheld"][0]["unit"] == "registry/contacts.md@v1#u3"


def test_ask_refusals_exit_1_and_list_candidates(capsys):
    r = run("ask", "Which site calibrates the instrument used by Tide study?", "--catalog", str(ROOT / "fixtures" / "lab"), "--no-trace")
    assert r.exit_code == 1 and "names 2 experiment entities" in r.output
    assert r.output.count("candidate ") == 2
    r = run("ask", "Which contact serves Rowan?", "--no-trace")
    assert r.exit_code == 1 and "not a known project" in r.output


def test_ask_no_pattern_and_labelled_text_route():
    r = run("ask", "How often is the registry audited?", "--no-trace", "--json")
    assert r.exit_code == 1 and json.loads(r.output)["outcome"] == "no_pattern"  # exit 1: not answered
    t = json.loads(run("ask", "How often is the registry audited?", "--no-trace", "--json", "--text-route").output)
    assert t["outcome"] == "no_pattern" and t["accepted_path"] is None
    (name, packet), = t["packets"].items()
    assert name.startswith("text:") and packet["diagnostics"]["supported_chain"] is False
    assert "NOT a supported chain" in t["meta"]["text_route"]["label"]


def test_bad_budget_flag_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["ask", "Which contact serves PR-84?", "--rows-per-hop", "0", "--no-trace"])
    assert exc.value.code == 2
    assert "rows_per_hop" in capsys.readouterr().err


def test_missing_catalog_is_a_clean_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["ask", "Which contact serves PR-84?", "--catalog", "/nonexistent/cat.yaml", "--no-trace"])
    assert exc.value.code == 2 and "does not exist" in capsys.readouterr().err


def test_eval_fixtures_totals_and_exit_code(tmp_path):
    r = run("eval", str(ROOT / "fixtures"), env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "final: positive accepted 3/3 · unsupported complete paths 0/7" in r.output
    j = json.loads(run("eval", str(ROOT / "fixtures" / "seed"), "--json").output)
    assert j["totals"]["positive_accepted"] == [3, 3] and len(j["cases"]) == 16
    # a world whose expectation is wrong makes eval fail
    bad = tmp_path / "bad"
    shutil.copytree(ROOT / "fixtures" / "seed", bad)
    cases = (bad / "cases.yaml").read_text().replace("packet_chars: 106", "packet_chars: 105", 1)
    (bad / "cases.yaml").write_text(cases)
    r = run("eval", str(bad), env={"COLUMNS": "200"})
    assert r.exit_code == 1 and "FAIL" in r.output


def test_eval_no_backtrack_still_follows_every_member_of_a_many_valued_hop():
    """``supplied_by`` is many-valued: its hop follows every supplier as a member of the set (not as a
    backtracking alternative), so --no-backtrack still reaches the path through the second supplier."""
    j = json.loads(run("eval", str(ROOT / "fixtures" / "supply"), "--json", "--no-backtrack").output)
    row = next(c for c in j["cases"] if c["case"] == "backtrack")
    assert row["accepted_path"] is True


def test_no_backtrack_misses_a_path_behind_a_functional_dead_end():
    """Negative control: where the hop is not many-valued, --no-backtrack tries one bridge only."""
    from engine_rels import rel

    from chainret.engine.hops import HopWorld, run_chain
    from chainret.engine.reader import RelationList
    from chainret.engine.search import LexicalIndex
    from chainret.trace.model import Budget

    units = [("d@v1#u1", "REL a:w:x | p | b:w:1"), ("d@v1#u2", "REL a:w:x | p | b:w:2"), ("d@v1#u3", "REL b:w:2 | q | c:w:z")]
    rels = [rel("r1", "a:w:x", "p", "b:w:1", "d@v1#u1"), rel("r2", "a:w:x", "p", "b:w:2", "d@v1#u2"), rel("r3", "b:w:2", "q", "c:w:z", "d@v1#u3")]
    world = HopWorld(RelationList(LexicalIndex(units), rels))
    room = Budget(max_searches=3, max_rows=9)  # the default scales with the hops: no search left to backtrack
    assert run_chain(world, "a:w:x", ["p", "q"], room, backtrack=False)[1] is None
    assert run_chain(world, "a:w:x", ["p", "q"], room, backtrack=True)[1] is not None


def test_trace_show_and_mermaid():
    golden = ROOT / "traces" / "supply" / "backtrack.json"
    r = run("trace", "show", str(golden), env={"COLUMNS": "200"})
    assert r.exit_code == 0 and "reuses the search of branch 0" in r.output and "accepted path" in r.output
    m = run("trace", "show", str(golden), "--mermaid").output
    assert m.startswith("flowchart TD") and "branch 0.1" in m


def test_trace_verify_matches_then_detects_changes(tmp_path):
    world = tmp_path / "w"
    shutil.copytree(ROOT / "fixtures" / "seed", world)
    out = tmp_path / "t.json"
    assert run("ask", "Which contact serves PR-84?", "--catalog", str(world / "catalog.yaml"), "--view", "final", "--trace-out", str(out)).exit_code == 0
    assert run("trace", "verify", str(out)).exit_code == 0
    # remove the contact registry from the final view: digest, eligibility and outcome all change
    text = (world / "catalog.yaml").read_text()
    text = text.replace("  title: Contact registry (final)\n", "  title: Contact registry (final)\n  visibility: removed\n", 1)
    (world / "catalog.yaml").write_text(text)
    r = run("trace", "verify", str(out), "--json")
    assert r.exit_code == 1
    got = json.loads(r.output)
    assert got["status"] == "mismatch" and got["catalog_changed"]
    assert {"replay", "catalog"} <= {d["kind"] for d in got["differences"]}


def test_trace_verify_after_an_unrelated_hand_edit_reports_only_the_identity(tmp_path):
    """A hand edit leaves no earlier view to rebuild the old identity from: only ``catalog_digest`` differs."""
    world = tmp_path / "w"
    shutil.copytree(ROOT / "fixtures" / "seed", world)
    out = tmp_path / "t.json"
    assert run("ask", "Which contact serves PR-84?", "--catalog", str(world / "catalog.yaml"), "--trace-out", str(out)).exit_code == 0
    text = (world / "catalog.yaml").read_text()
    (world / "catalog.yaml").write_text(text.replace("description: northern regional office", "description: edited office", 1))
    r = run("trace", "verify", str(out), "--json")
    got = json.loads(r.output)
    assert r.exit_code == 1 and got["status"] == "mismatch" and got["catalog_changed"], r.output
    assert [(d["kind"], d["field"]) for d in got["differences"]] == [("catalog", "catalog_digest")], r.output


def test_trace_verify_golden_case():
    assert run("trace", "verify", str(ROOT / "traces" / "final" / "restricted-second-hop.json")).exit_code == 0


def test_graph_mermaid_and_graphml(tmp_path):
    m = run("graph", "--catalog", str(ROOT / "fixtures" / "seed"), "--view", "final").output
    assert m.startswith("flowchart LR") and "operated_by · rel-1" in m and "-.->" in m
    out = tmp_path / "g.graphml"
    assert run("graph", "--catalog", str(ROOT / "fixtures" / "seed"), "--format", "graphml", "--out", str(out)).exit_code == 0
    g = nx.read_graphml(out, force_multigraph=True)
    assert ("project:final:main", "org:final:north", "rel-1") in g.edges(keys=True)


def _dated_catalog(tmp_path: Path) -> Path:
    """The default catalog with its two views named by day (as a history's views are), written to a file."""
    text = (ROOT / "catalogs" / "default.yaml").read_text(encoding="utf-8")
    text = text.replace("\n- name: final\n", "\n- name: '2025-11-01'\n").replace("\n- name: revised\n", "\n- name: '2026-03-15'\n")
    path = tmp_path / "dated.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("today", "view", "answer"), [
    ("2026-01-15", "2025-11-01", "contact:final:desk"),  # last month: December 2025, the first view
    ("2026-12-06", "2026-03-15", "contact:final:field"),  # the negative control: another today reads another view
])
def test_ask_today_flag_is_the_day_relative_words_count_from(tmp_path, capsys, today, view, answer):
    cat = _dated_catalog(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["ask", "Which contact serves PR-84 last month?", "--catalog", str(cat), "--today", today, "--json", "--no-trace"])
    assert exc.value.code == 0
    t = json.loads(capsys.readouterr().out)
    assert t["meta"]["today"] == today and t["meta"]["view"] == view and t["path_ids"][-1] == answer
    r = run("ask", "Which contact serves PR-84 last month?", "--catalog", str(cat), f"--today={today}", "--json", "--no-trace")
    assert r.exit_code == 0 and json.loads(r.output)["meta"]["today"] == today  # typer reads it the same


@pytest.mark.parametrize("day", ["2026-02-30", "06/12/2026", "20261206", "yesterday"])
def test_a_mistyped_today_is_a_usage_error_naming_the_flag(capsys, day):
    with pytest.raises(SystemExit) as exc:
        main(["ask", "Which contact serves PR-84?", "--today", day, "--no-trace"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "--today" in err and day in err and "Traceback" not in err
