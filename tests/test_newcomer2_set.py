"""The second newcomer set (examples/newcomer2), the frozen test half: well-formed, and never quoted by a rule.

No score is asserted (docs/results/newcomer2.md reports it). These tests check that no string under
chainret/ quotes one of its questions (case and spacing aside: a rule that did would be tuning on the
test half), that the question file parses with its times in words only (no view; ``asked_on`` set),
that every expected ID names an entity the import of its history really has (so a typo in an
expected set is caught), and that the restricted contractors file stays restricted. Each guard has a
negative control beside it.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from pydantic import ValidationError

from chainret.catalog.load import load_catalog
from support.newcomer import commit_log, load_scorer
from support.quotes import chainret_strings, norm, quoted

ROOT = Path(__file__).resolve().parents[1]


ns = load_scorer()
EXAMPLE = ns.Example(ROOT / "examples" / "newcomer2")


@pytest.fixture(scope="module")
def questions():  # type: ignore[no-untyped-def]
    return ns.load_questions(EXAMPLE.questions)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the repository, its imported catalog file), built once for the module."""
    tmp = tmp_path_factory.mktemp("newcomer2")
    catalog_file = ns.build_catalog(tmp, EXAMPLE)
    return tmp / "repo", catalog_file


def test_no_string_in_chainret_quotes_a_newcomer2_question(questions) -> None:  # type: ignore[no-untyped-def]
    assert quoted([q.question for q in questions.questions], chainret_strings(ROOT / "chainret")) == []


def test_the_quote_check_finds_a_quoted_newcomer2_question(questions) -> None:  # type: ignore[no-untyped-def]
    # negative control: a rule string quoting a question (other case and spacing) is found; a phrasing is not
    q = questions.questions[0].question
    assert quoted([q], [norm(f"PHRASES = ['{q.upper()}  ']")]) == [q]
    assert quoted([q], ["who owns {component}"]) == []
    assert quoted(["who owns x"], ["who owns", "x"]) == []  # the strings are searched apart, never across two


def test_question_file_is_well_formed(questions) -> None:  # type: ignore[no-untyped-def]
    kinds = Counter(q.kind for q in questions.questions)
    assert questions.world == "newcomer2"
    assert len(questions.questions) >= 90
    assert set(kinds) == set(ns.KINDS)
    assert kinds["must_refuse"] >= 16 and kinds["as_of"] >= 14
    assert questions.asked_on is not None  # relative phrases have a stated reference day
    assert all(q.view is None for q in questions.questions)  # times are in the words, never passed as a view
    assert EXAMPLE.page == ROOT / "docs" / "results" / "newcomer2.md"
    assert EXAMPLE.command.endswith("--example examples/newcomer2")


def test_a_set_with_asked_on_rejects_a_view() -> None:
    q = {"id": "a", "kind": "as_of", "question": "Who owned X in May?", "expected": ["x"]}
    with pytest.raises(ValidationError, match="no view"):
        ns.QuestionSet.model_validate({"world": "w", "asked_on": "2026-04-20", "questions": [{**q, "view": "2026-05-01"}]})
    # negative controls: the same question without a view loads, and a set without asked_on may keep views
    assert ns.QuestionSet.model_validate({"world": "w", "asked_on": "2026-04-20", "questions": [q]}).asked_on is not None
    assert ns.QuestionSet.model_validate({"world": "w", "questions": [{**q, "view": "2026-05-01"}]}).questions[0].view


def test_repository_has_a_dated_history(built: tuple[Path, Path]) -> None:
    repo, _ = built
    lines = commit_log(repo)
    assert len(lines) == 6 and len({line.split()[0] for line in lines}) == 6
    assert lines[0] == "2026-03-30 46ee479"  # fixed dates and authors: the same hashes on every machine


def test_every_expected_id_is_an_imported_entity(built: tuple[Path, Path], questions) -> None:  # type: ignore[no-untyped-def]
    _, catalog_file = built
    catalog = load_catalog(catalog_file)
    ids = {e.id for e in catalog.entities}
    assert len(catalog.views) == 6
    missing = [(q.id, i) for q in questions.questions for i in q.expected or () if i not in ids]
    assert missing == []
    # negative control: a misspelt expected ID is caught
    assert "group:newcomer2:default.bookings" not in ids


def test_contractors_file_is_restricted(built: tuple[Path, Path]) -> None:
    _, catalog_file = built
    catalog = load_catalog(catalog_file)
    restricted = {d.document for d in catalog.documents if d.visibility == "restricted"}
    assert restricted == {"org/contractors.yaml"}


def test_example_flag_names_the_folder_and_its_page() -> None:
    example, rest = ns.parse_example(["--example", "examples/newcomer2", "--check"])
    assert (example, rest) == (EXAMPLE, ["--check"])
    assert ns.parse_example(["--check"]) == (ns.DEFAULT, ["--check"])  # the default stays examples/newcomer
    assert ns.DEFAULT.page == ROOT / "docs" / "results" / "newcomer.md" and ns.DEFAULT.command == ns.COMMAND
    with pytest.raises(SystemExit, match="make_repo.py and questions.yaml"):
        ns.parse_example(["--example", "examples/backstage"])
