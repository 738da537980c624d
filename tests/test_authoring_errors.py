"""Bad source input: one clear message naming file and line, exit 2 (an input problem: chainret.core.errors exit table), nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from chainret.authoring.starter import init
from chainret.cli import app

runner = CliRunner()


@pytest.fixture
def world(tmp_path: Path) -> Path:
    init(tmp_path / "w")
    return tmp_path / "w"


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "400"})
    assert "Traceback" not in result.output
    return result.exit_code, " ".join(result.output.split())


def build_fails(world: Path, *expected: str) -> str:
    """Build into a fresh folder and into the existing catalog: exit 2, the messages, nothing written."""
    before = {p: p.read_bytes() for p in world.glob("*.yaml")}
    fresh = world.parent / "fresh"
    for out in (fresh, world):
        code, out_text = run("catalog", "build", str(world / "source"), "--out", str(out))
        assert code == 2, out_text
        assert "nothing was written" in out_text
        for part in expected:
            assert part in out_text, out_text
    assert not fresh.exists() or not any(fresh.iterdir())
    assert {p: p.read_bytes() for p in world.glob("*.yaml")} == before
    assert not list(world.rglob("*.tmp"))
    return out_text


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_quote_not_found_names_the_nearest_passage(world: Path) -> None:
    """A quote whose fact's words are gone from the document (an end no longer named) is an error
    naming the nearest passage (a mistyped quote whose sentence still names both ends is found:
    tests/test_authoring_rounds.py)."""
    header = world / "source" / "chainret.yaml"
    edit(world / "source" / "rota" / "on-call.md", "This week Ana Silva is on call", "This week the team lead is on call")
    line = header.read_text(encoding="utf-8").splitlines().index("    quote: This week Ana Silva is on call for the Platform team.") + 1
    out = build_fails(world, f"{header}: relations[0] (line {line}), field quote:", "the quote no longer occurs in rota/on-call.md",
                      "no sentence there names both team:starter:platform",
                      "nearest passage (line 3): 'This week the team lead is on call for the Platform team.'")
    assert "[invalid_quote]" in out


def test_duplicate_quote_lists_every_position(world: Path) -> None:
    rota = world / "source" / "rota" / "on-call.md"
    rota.write_text(rota.read_text(encoding="utf-8") + "\nThis week Ana Silva is on call for the Platform team.\n", encoding="utf-8")
    build_fails(world, "the quote occurs 2 times in rota/on-call.md: at line 3, column 1 (offset 16); line 7, column 1",
                "add occurrence: N")


def test_duplicate_quote_on_one_line_names_the_columns(world: Path) -> None:
    """Two places on one line are told apart by their column (issue 23: not "line 3, line 3")."""
    rota = world / "source" / "rota" / "on-call.md"
    text = rota.read_text(encoding="utf-8")
    quote = "This week Ana Silva is on call for the Platform team."
    rota.write_text(text.replace(quote, f"{quote} {quote}", 1), encoding="utf-8")
    build_fails(world, "at line 3, column 1 (offset 16); line 3, column 55 (offset 70)")


def test_csv_with_a_missing_column(world: Path, tmp_path: Path) -> None:
    table = tmp_path / "owners.csv"
    table.write_text("subject,predicat,object\nAtlas,owned_by,Platform team\n", encoding="utf-8")
    code, out = run("catalog", "import", str(table), "--src", str(world / "source"), "--document", "registry/owners.md")
    assert code == 2
    assert f"{table}:1: missing column(s) predicate; found subject, predicat, object (did you mean 'predicat'?)" in out
    assert not (world / "source" / "registry" / "owners.md").exists()


def test_csv_with_an_unknown_entity(world: Path, tmp_path: Path) -> None:
    table = tmp_path / "owners.csv"
    table.write_text("subject,predicate,object,text\nAtlas,owned_by,Platform team,ok\nBeacon,owned_by,Paymnts team,typo\n",
                     encoding="utf-8")
    code, out = run("catalog", "import", str(table), "--src", str(world / "source"), "--document", "registry/owners.md",
                    "--out", str(world))
    assert code == 2
    assert f"{table}:3: unknown object 'Paymnts team': no team has this ID, name or alias (did you mean 'Payments team'?)" in out
    assert not (world / "source" / "registry" / "owners.md").exists()


def test_jsonl_with_an_unknown_entity(world: Path, tmp_path: Path) -> None:
    table = tmp_path / "owners.jsonl"
    table.write_text('{"subject": "PRJ-1", "predicate": "owned_by", "object": "team:starter:platform"}\n\n'
                     '{"subject": "project:starter:zeta", "predicate": "owned_by", "object": "team:starter:platform"}\n',
                     encoding="utf-8")
    code, out = run("catalog", "import", str(table), "--src", str(world / "source"), "--document", "registry/owners.md")
    assert code == 2 and f"{table}:3: unknown subject 'project:starter:zeta'" in out


def test_a_file_that_is_not_utf8(world: Path) -> None:
    bad = world / "source" / "handbook" / "legacy.txt"
    bad.write_bytes(b"first line\nsecond line caf" + b"\xe9\n")
    build_fails(world, f"{bad}:2: the file is not UTF-8 text (byte 0xe9)", "[not_utf8]")


def test_header_with_a_misspelt_key(world: Path) -> None:
    header = world / "source" / "chainret.yaml"
    edit(header, "predicates:\n", "predicats:\n")
    line = header.read_text(encoding="utf-8").splitlines().index("predicats:") + 1
    build_fails(world, f"{header}: document root (line {line})", "unknown field 'predicats'", "(did you mean 'predicates'?)")


def test_header_with_a_misspelt_predicate(world: Path) -> None:
    header = world / "source" / "chainret.yaml"
    edit(header, "hops: [owned_by, on_call]", "hops: [owned_by, oncall]")
    line = next(i for i, t in enumerate(header.read_text(encoding="utf-8").splitlines(), 1) if "hops:" in t)
    build_fails(world, f"patterns[0] (name on_call_for_project) (line {line}), field hops.1",
                "found 'oncall'; did you mean 'on_call'?")


def test_clause_line_with_an_unknown_entity_and_a_malformed_one(world: Path) -> None:
    projects = world / "source" / "registry" / "projects.md"
    edit(projects, "REL project:starter:beacon | owned_by | team:starter:payments",
         "REL project:starter:beacon | owned_by | team:starter:paymnts\n\nREL project:starter:atlas |owned_by| team:starter:platform")
    lines = projects.read_text(encoding="utf-8").splitlines()
    n = lines.index("REL project:starter:beacon | owned_by | team:starter:paymnts") + 1
    build_fails(world, f"{projects}:{n}: unknown object 'team:starter:paymnts'", "(did you mean 'team:starter:payments'?)",
                f"{projects}:{n + 2}: a clause line must read 'REL subject | predicate | object'", "2 problems")


def test_prose_quote_must_name_both_ends(world: Path) -> None:
    header = world / "source" / "chainret.yaml"
    edit(header, "    object: person:starter:ben\n", "    object: person:starter:ana\n")
    build_fails(world, "the quote does not mention the object person:starter:ana (by any of 'person:starter:ana', 'Ana Silva')")


def test_import_document_must_stay_inside_the_folder(world: Path, tmp_path: Path) -> None:
    table = tmp_path / "t.csv"
    table.write_text("subject,predicate,object\nAtlas,owned_by,Platform team\n", encoding="utf-8")
    code, out = run("catalog", "import", str(table), "--src", str(world / "source"), "--document", "../escape.md")
    assert code == 2 and "relative .md path inside the folder" in out


def test_header_with_a_key_written_twice(world: Path) -> None:
    header = world / "source" / "chainret.yaml"
    edit(header, "world: starter", "world: starter\nworld: other")
    build_fails(world, f"{header}:6: key 'world' appears twice in one mapping (first at line 5)", "[duplicate_key]")


def test_header_is_parsed_with_the_catalog_bounds(world: Path) -> None:
    """The header goes through the catalog's hardened parser (chainret.catalog.parse): aliases that
    expand without bound, nesting too deep, a syntax error with its column."""
    header = world / "source" / "chainret.yaml"
    levels = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    levels += [f"l{k}: &l{k} [{', '.join([f'*l{k - 1}'] * 9)}]" for k in range(1, 10)]
    text = header.read_text(encoding="utf-8")
    header.write_text(text + "\n".join(levels) + "\n", encoding="utf-8")
    build_fails(world, "[alias_expansion]")
    header.write_text(text + "deep: " + "[" * 70 + "]" * 70 + "\n", encoding="utf-8")
    build_fails(world, "[too_deep]")
    header.write_text(text.replace("world: starter", "world: [starter"), encoding="utf-8")
    build_fails(world, f"{header}:", "invalid YAML", "[syntax_error]")


def test_header_document_setting_for_a_missing_file(world: Path) -> None:
    header = world / "source" / "chainret.yaml"
    edit(header, "  - path: rota/on-call.md\n", "  - path: rota/oncall.md\n")
    line = header.read_text(encoding="utf-8").splitlines().index("  - path: rota/oncall.md") + 1
    build_fails(world, f"documents[0] (line {line}), field path: no text file 'rota/oncall.md'", "(did you mean 'rota/on-call.md'?)")
