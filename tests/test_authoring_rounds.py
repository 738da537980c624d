"""Changing a prose-backed fact in as few build rounds as it takes (issue 23, friction 9), walked as a
user would: write records, build, edit one sentence, build again (``chainret catalog build``).

- an edited sentence that still names both ends is found: one round, with a note;
- a changed fact names the relation to change and the case it leaves stale in the same round;
- a quote may be left out (the sentence naming both ends is the support);
- one header serves every snapshot: a declared document a snapshot lacks is reported absent, not an error.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from chainret.catalog.load import load_catalog
from chainret.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "400"})
    assert "Traceback" not in result.output
    return result.exit_code, " ".join(result.output.split())


@pytest.fixture
def world(tmp_path: Path) -> Path:
    code, out = run("catalog", "init", str(tmp_path / "w"))
    assert code == 0, out
    return tmp_path / "w"


def build(world: Path) -> tuple[int, str]:
    return run("catalog", "build", str(world / "source"), "--out", str(world))


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def answer(world: Path, request: str = "Who is on call for Atlas?") -> str:
    code, out = run("ask", request, "--catalog", str(world), "--json")
    assert code == 0, out
    return json.loads(out)["answer"]["id"] if isinstance(json.loads(out).get("answer"), dict) else out


def platform_quote(world: Path) -> str:
    cat = load_catalog(world / "catalog.yaml")
    (rel,) = [r for r in cat.relations if r.subject == "team:starter:platform" and r.predicate == "on_call"
              and r.support.doc_ref in cat.current_view.documents]
    return rel.support.quote


def test_editing_the_sentence_of_a_fact_is_one_build(world: Path) -> None:
    rota = world / "source" / "rota" / "on-call.md"
    edit(rota, "This week Ana Silva is on call for the Platform team.", "Ana Silva is on call for the Platform team through Sunday.")
    code, out = build(world)  # the header still quotes the old sentence
    assert code == 0, out
    assert "the quote no longer occurs in rota/on-call.md; the fact's words are still at line 3" in out
    assert "'Ana Silva is on call for the Platform team through Sunday.'" in out and "[stale_quote]" in out
    assert platform_quote(world) == "Ana Silva is on call for the Platform team through Sunday."
    assert "person:starter:ana" in answer(world)
    code, out = run("validate", str(world))
    assert code == 0, out
    code, out = run("validate", str(world / "source"), "--info")  # the source folder: valid, and the stale quote said
    assert code == 0 and "info stale_quote" in out and "through Sunday" in out, out


def test_a_stale_quote_picks_the_sentence_clearly_closest_to_it(world: Path) -> None:
    rota = world / "source" / "rota" / "on-call.md"
    edit(rota, "This week Ana Silva is on call for the Platform team.",
         "This week Ana Silva is on call for the Platform team, as planned.\n\nAna Silva joined the Platform team in 2024.")
    code, out = build(world)
    assert code == 0 and "[stale_quote]" in out, out
    assert platform_quote(world) == "This week Ana Silva is on call for the Platform team, as planned."


def test_a_changed_fact_names_the_relation_and_the_stale_case_in_one_round(world: Path) -> None:
    rota, header = world / "source" / "rota" / "on-call.md", world / "source" / "chainret.yaml"
    edit(rota, "This week Ana Silva is on call", "This week Ben Okafor is on call")
    code, out = build(world)
    assert code == 2 and "nothing was written" in out
    assert "relations[0]" in out and "no sentence there names both team:starter:platform" in out
    assert "which names Ben Okafor (person:starter:ben) where the relation has Ana Silva" in out
    assert "set object: person:starter:ben in the header" in out
    # the case it leaves stale, in the same round, and why
    assert "cases[0] (id atlas-on-call)" in out and "no eligible relation from team:starter:platform to person:starter:ana" in out
    assert "header relations[0], which says it, did not build" in out
    # one header edit for both, then the build goes through
    edit(header, "    object: person:starter:ana\n    document: rota/on-call.md", "    object: person:starter:ben\n    document: rota/on-call.md")
    edit(header, "team:starter:platform, person:starter:ana]", "team:starter:platform, person:starter:ben]")
    code, out = build(world)
    assert code == 0, out
    assert "person:starter:ben" in answer(world)
    code, out = run("eval", str(world))
    assert code == 0, out


def test_a_quote_may_be_left_out(world: Path) -> None:
    header, rota = world / "source" / "chainret.yaml", world / "source" / "rota" / "on-call.md"
    edit(header, "    quote: This week Ana Silva is on call for the Platform team.\n", "")
    code, out = build(world)
    assert code == 0, out
    assert "note:" not in out  # the sentence naming both ends is the support: nothing stale
    edit(rota, "This week Ana Silva is on call for the Platform team.", "From Monday, Ana Silva covers the Platform team.")
    code, out = build(world)
    assert code == 0 and "[stale_quote]" not in out, out
    assert platform_quote(world) == "From Monday, Ana Silva covers the Platform team."


def test_a_sentence_that_denies_the_fact_is_not_taken(world: Path) -> None:
    rota = world / "source" / "rota" / "on-call.md"
    edit(rota, "This week Ana Silva is on call for the Platform team.", "Ana Silva is no longer on call for the Platform team.")
    code, out = build(world)
    assert code == 2, out
    assert "deny something" in out and "'Ana Silva is no longer on call for the Platform team.'" in out


def test_several_sentences_naming_both_ends_are_listed(world: Path) -> None:
    header, rota = world / "source" / "chainret.yaml", world / "source" / "rota" / "on-call.md"
    edit(header, "    quote: This week Ana Silva is on call for the Platform team.\n", "")
    rota.write_text(rota.read_text(encoding="utf-8") + "\nLast month Ana Silva led the Platform team.\n", encoding="utf-8")
    code, out = build(world)
    assert code == 2, out
    assert "2 sentences of rota/on-call.md name both ends: line 3, column 1" in out and "add occurrence: N" in out


def test_one_header_serves_every_snapshot(world: Path) -> None:
    """The header declares a document this snapshot lacks (a later month's): reported absent, not an
    error; its relation and the case that needs it wait for the snapshot that has it."""
    header = world / "source" / "chainret.yaml"
    data = yaml.safe_load(header.read_text(encoding="utf-8"))
    data["documents"].append({"path": "rota/holidays.md", "title": "Holiday cover"})
    data["entities"] += [{"id": "project:starter:comet", "name": "Comet"}, {"id": "team:starter:security", "name": "Security team"}]
    data["relations"].append({"subject": "team:starter:security", "predicate": "on_call", "object": "person:starter:ana",
                              "document": "rota/holidays.md"})
    data["cases"].append({"id": "comet-on-call", "request": "Who is on call for Comet?", "group": "positive",
                          "expect": {"outcome": "accepted_path",
                                     "path": ["project:starter:comet", "team:starter:security", "person:starter:ana"]}})
    header.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    code, out = build(world)
    assert code == 0, out
    assert "rota/holidays.md is absent from this snapshot" in out and "[absent_document]" in out
    assert "case comet-on-call left out: its step project:starter:comet -> team:starter:security names project:starter:comet" in out
    assert "(2 cases)" in out
    # the next snapshot has the file: the same header builds it, with no note
    (world / "source" / "rota" / "holidays.md").write_text(
        "# Holiday cover\n\nREL project:starter:comet | owned_by | team:starter:security\n\n"
        "Over the holidays Ana Silva is on call for the Security team.\n", encoding="utf-8")
    code, out = build(world)
    assert code == 0, out
    assert "absent" not in out and "(3 cases)" in out
    code, out = run("eval", str(world))
    assert code == 0, out


def test_a_misspelt_document_path_is_still_an_error(world: Path) -> None:
    header = world / "source" / "chainret.yaml"
    edit(header, "    document: rota/on-call.md\n    quote: This week", "    document: rota/oncall.md\n    quote: This week")
    code, out = build(world)
    assert code == 2 and "no text document 'rota/oncall.md' in the folder (did you mean 'rota/on-call.md'?)" in out, out


def test_refresh_writes_the_found_sentence_into_the_header(world: Path) -> None:
    """``--refresh``: the edited sentence goes into the header's quote, every other line kept; the next build has no note."""
    header, rota = world / "source" / "chainret.yaml", world / "source" / "rota" / "on-call.md"
    before = header.read_text(encoding="utf-8")
    edit(rota, "This week Ana Silva is on call for the Platform team.", 'Ana Silva: on call for the "Platform team" this week.')
    code, out = run("catalog", "build", str(world / "source"), "--out", str(world), "--check", "--refresh")
    assert code == 1 and f"stale: {header}" in out  # --check writes nothing, the header included
    assert header.read_text(encoding="utf-8") == before
    code, out = run("catalog", "build", str(world / "source"), "--out", str(world), "--refresh")
    assert code == 0 and f"refreshed 1 quote(s) in {header}" in out, out
    after = header.read_text(encoding="utf-8")
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b]
    assert changed == [("    quote: This week Ana Silva is on call for the Platform team.",
                        '    quote: "Ana Silva: on call for the \\"Platform team\\" this week."')]
    code, out = build(world)
    assert code == 0 and "note:" not in out and "unchanged" in out, out
