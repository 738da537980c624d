"""Issue 23's first-run frictions, each through the real entry point (exit code and output).

Frictions 3 and 5 (trace verify against PostgreSQL, POST /trace/verify body shapes) belong to
issue 21 and are tested there.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from chainret.cli import main

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = ROOT / "examples" / "service-registry"
ASK = "Which contact serves PR-84?"


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err


def flat(text: str) -> str:
    return " ".join(text.split())


def test_friction_1_an_error_listing_several_problems_keeps_one_problem_per_line(tmp_path, capsys):
    src = tmp_path / "records"
    shutil.copytree(REGISTRY / "records", src)
    table = tmp_path / "bad.csv"
    table.write_text("subject,predicate,object\nnope,owned_by,Nobody\nnope2,owned_by,Nobody2\n", encoding="utf-8")
    code, _, err = cli(capsys, "catalog", "import", str(table), "--src", str(src), "--document", "cmdb/o.md")
    assert code == 2
    assert "\\n" not in err  # no literal backslash-n
    lines = [ln for ln in err.splitlines() if "[unknown_entity]" in ln]
    assert len(lines) == 4  # each problem ends its own line


def test_friction_2_catalog_diff_without_catalog_says_it_opened_the_default(capsys):
    code, _, err = cli(capsys, "catalog", "diff", "2026-01", "2026-02")
    assert code == 2
    assert "default catalog" in flat(err) and "--catalog" in err


def test_friction_4_a_non_trace_json_gets_plain_words_and_an_ask_response_the_trace_hint(tmp_path, capsys):
    other = tmp_path / "other.json"
    other.write_text('{"a": 1}', encoding="utf-8")
    code, _, err = cli(capsys, "trace", "verify", str(other))
    assert code == 2 and "validation error" not in err and "pydantic" not in err and "not a chainret trace" in flat(err)
    trace_file = tmp_path / "t.json"
    cli(capsys, "ask", ASK, "--trace-out", str(trace_file))
    saved = tmp_path / "response.json"
    saved.write_text(json.dumps({"answer": "x", "trace": json.loads(trace_file.read_text(encoding="utf-8"))}), encoding="utf-8")
    code, _, err = cli(capsys, "trace", "verify", str(saved))
    assert code == 2 and '"trace"' in err and "pydantic" not in err


@pytest.mark.parametrize("argv,hint", [
    (["ask", ASK, "--principal", "nobdy", "--no-trace"], None),
    (["ask", ASK, "--principal", "AUDITOR", "--no-trace"], "'auditor'"),
    (["ask", ASK, "--as", "audtor", "--no-trace"], "'auditor'"),
    (["ask", ASK, "--view", "revisd", "--no-trace"], "'revised'"),
    (["graph", "--as", "Auditor"], "'auditor'"),
    (["graph", "--view", "finl"], "'final'"),
])
def test_friction_6_unknown_principals_and_views_are_usage_errors_with_did_you_mean(capsys, argv, hint):
    code, out, err = cli(capsys, *argv)
    assert code == 2 and "answer" not in out
    assert "unknown" in err
    if hint:
        assert f"did you mean {hint}" in flat(err)


def test_friction_6_a_known_principal_still_runs(capsys):
    code, out, _ = cli(capsys, "ask", ASK, "--principal", "auditor", "--no-trace")
    assert code == 0 and "Rowan field office" in out


def test_friction_7_a_table_or_a_source_folder_as_catalog_names_the_command_that_makes_one(capsys):
    code, _, err = cli(capsys, "ask", "Who is on call for cart-api?", "--catalog", str(REGISTRY / "exports" / "ownership-2026-01.csv"), "--no-trace")
    assert code == 2 and "catalog import" in flat(err) and "wrong_type" not in err
    code, _, err = cli(capsys, "ask", "Who is on call for cart-api?", "--catalog", str(REGISTRY / "records"), "--no-trace")
    assert code == 2 and "catalog build" in flat(err)


def test_friction_8_the_answer_line_comes_first_and_quiet_prints_the_answer_alone(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    code, out, _ = cli(capsys, "ask", ASK, "--no-trace")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("answer") and "Rowan field office" in lines[0]
    assert lines[1] == "completeness all 1"  # a set answer (contacts are many-valued): whether it is all
    assert lines[2].startswith("path")
    code, out, _ = cli(capsys, "ask", ASK, "--no-trace", "--quiet")
    assert code == 0 and out.splitlines() == ["Rowan field office (contact:final:field)"]  # the answer, unlabelled
    code, out, _ = cli(capsys, "ask", "Which contact serves PR-99?", "--no-trace", "-q")
    assert code == 1 and out.startswith("no answer") and "PR-99" in out and "request" not in out


def test_friction_8_a_typo_is_answered_and_an_unknown_entity_names_near_ones(capsys):
    code, out, _ = cli(capsys, "ask", "Which contact serves PR84?", "--no-trace", "-q")
    assert code == 0 and "Rowan field office" in out
    code, out, _ = cli(capsys, "ask", "Which contact serves the Main programmmmme?", "--no-trace", "-q")
    assert code == 1 and "did you mean project:final:main" in flat(out)


@pytest.mark.parametrize("compiled", [False, True])
def test_friction_10_graph_as_public_omits_what_only_a_restricted_document_holds(tmp_path, capsys, compiled):
    catalog = str(ROOT / "fixtures" / "supply" / "catalog.yaml")
    if compiled:
        db = str(tmp_path / "supply.db")
        cli(capsys, "catalog", "compile", catalog, "--out", db)
        catalog = db
    code, public, _ = cli(capsys, "graph", "--as", "public", "--catalog", catalog)
    assert code == 0 and "sup-4" in public  # a public relation
    assert "sup-5" not in public and "not readable" not in public  # held only by quality/pending.md (auditor)
    code, auditor, _ = cli(capsys, "graph", "--as", "auditor", "--catalog", catalog)
    assert code == 0 and "sup-5" in auditor


def test_friction_9_eval_on_a_catalog_folder_without_cases_checks_nothing_and_says_so(tmp_path, capsys):
    folder = tmp_path / "cat"
    folder.mkdir()
    shutil.copy(ROOT / "catalogs" / "default.yaml", folder / "catalog.yaml")
    code, out, err = cli(capsys, "eval", str(folder))
    assert code == 0 and "0/0" in out and "no cases" in out and not err
    code, _, err = cli(capsys, "eval", str(tmp_path / "nothing-here"))
    assert code == 2 and "does not exist" in flat(err)


def test_friction_10_top_level_help_shows_each_description_whole(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = cli(capsys, "--help")
    assert code == 0 and "..." not in out.split("Commands:", 1)[1]  # ("Usage: ... [ARGS]..." is click's)
    assert "or say why not." in flat(out) and "init, build, import" in flat(out)


@pytest.mark.parametrize("principal,viewers", [("auditor", "viewers: [public]"), ("public", "viewers: []")])
def test_friction_10_new_token_prints_the_entry_the_readme_shows(capsys, principal, viewers):
    code, out, _ = cli(capsys, "serve", "--new-token", principal)
    assert code == 0 and f"principal: {principal}" in out and viewers in out
    import yaml

    from chainret.server.auth import TokenFile

    entry = yaml.safe_load(out.split("`tokens:`):", 1)[1])
    TokenFile.model_validate({"tokens": entry})  # the printed entry is a valid token-file entry
    assert "viewers: [public]" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_did_you_mean_for_a_catalog_path(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, _, err = cli(capsys, "ask", ASK, "--catalog", "catalogs/defualt.yaml", "--no-trace")
    assert code == 2 and "did you mean 'catalogs/default.yaml'" in flat(err)
    code, _, err = cli(capsys, "graph", "--catalog", "fixtures/suply")
    assert code == 2 and "'fixtures/supply'" in flat(err)


def test_friction_6_mcp_refuses_an_unknown_principal_before_serving(capsys):
    pytest.importorskip("mcp")
    code, _, err = cli(capsys, "mcp", "--catalog", str(ROOT / "fixtures" / "supply" / "catalog.yaml"), "--principal", "Auditor")
    assert code == 2 and "did you mean 'auditor'" in flat(err)


def test_a_catalog_with_a_misspelt_reference_says_did_you_mean(tmp_path, capsys):
    text = (ROOT / "catalogs" / "default.yaml").read_text(encoding="utf-8")
    assert "  - operated_by\n" in text
    bad = tmp_path / "catalog.yaml"
    bad.write_text(text.replace("  - operated_by\n", "  - operated_bi\n", 1), encoding="utf-8")
    code, _, err = cli(capsys, "ask", ASK, "--catalog", str(bad), "--no-trace")
    assert code == 2 and "did you mean 'operated_by'" in flat(err)


def test_patterns_lists_the_words_each_relation_is_understood_by(capsys):
    code, out, _ = cli(capsys, "patterns", "--catalog", str(ROOT / "fixtures" / "supply" / "catalog.yaml"), "--json")
    words = json.loads(out)["relation_words"]
    assert code == 0 and "supplier" in words["supplied_by"] and "who certifies X" in words["certified_by"]
    code, out, _ = cli(capsys, "patterns", "--catalog", str(ROOT / "fixtures" / "supply" / "catalog.yaml"))
    assert code == 0 and "nouns:/verbs:" in out


def test_serve_warns_of_a_token_principal_no_document_names():
    from chainret.catalog.load import load_catalog
    from chainret.cli.serve_cmds import unknown_grants
    from chainret.server.auth import TokenFile
    from chainret.store import resolve_catalog

    cat = load_catalog(ROOT / "catalogs" / "default.yaml")
    file = TokenFile.model_validate({"tokens": [
        {"name": "a-1", "sha256": "sha256:" + "0" * 64, "principal": "auditr", "viewers": ["public"]},
        {"name": "b-1", "sha256": "sha256:" + "1" * 64, "principal": "auditor", "viewers": ["public"]},
    ]})
    (warning,) = unknown_grants(resolve_catalog(cat), file)  # the CLI hands it the served reader
    assert "token a-1" in warning and "did you mean 'auditor'" in warning


def test_a_shortened_cited_document_is_a_difference_not_a_load_error(tmp_path, capsys):
    """Friction 10: a hand edit that cuts a cited document short makes ``trace verify`` exit 1 and say why."""
    import yaml

    world = tmp_path / "seed"
    shutil.copytree(ROOT / "fixtures" / "seed", world)
    trace = tmp_path / "t.json"
    code, _, _ = cli(capsys, "ask", "Which contact serves PR-84?", "--catalog", str(world / "catalog.yaml"), "--view", "final",
                     "--trace-out", str(trace))
    assert code == 0
    cited = json.loads(trace.read_text())["hops"][-1]["anchor"]
    data = yaml.safe_load((world / "catalog.yaml").read_text())
    doc = next(d for d in data["documents"] if d["document"] == cited["document"] and d["version"] == cited["version"])
    doc["text"] = doc["text"][: cited["span"][0] // 2]
    (world / "catalog.yaml").write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    code, out, err = cli(capsys, "trace", "verify", str(trace))
    assert code == 1, out + err
    assert "shortened" in " ".join((out + err).split()) and "Traceback" not in out + err
