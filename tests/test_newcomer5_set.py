"""The fifth newcomer set (examples/newcomer5), a development half: well-formed, and never quoted by a rule.

No score is asserted (docs/results/newcomer5.md reports it). A development half may be tuned on, but a
rule that quoted one of its questions (case and spacing aside) would answer that question by rote and
tell nothing about the next newcomer's wording, so no string under chainret/ may quote one. These tests
also check that the question file parses with its times in words only, that every expected ID names an
entity the import of its history really has (a typo in an expected set is caught), and that the
restricted vendors file stays restricted. Each guard has a negative control beside it.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from chainret.catalog.load import load_catalog
from support.newcomer import commit_log, load_scorer
from support.quotes import chainret_strings, norm, quoted

ROOT = Path(__file__).resolve().parents[1]


ns = load_scorer()
EXAMPLE = ns.Example(ROOT / "examples" / "newcomer5")


@pytest.fixture(scope="module")
def questions():  # type: ignore[no-untyped-def]
    return ns.load_questions(EXAMPLE.questions)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the repository, its imported catalog file), built once for the module."""
    tmp = tmp_path_factory.mktemp("newcomer5")
    catalog_file = ns.build_catalog(tmp, EXAMPLE)
    return tmp / "repo", catalog_file


def test_no_string_in_chainret_quotes_a_newcomer5_question(questions) -> None:  # type: ignore[no-untyped-def]
    assert quoted([q.question for q in questions.questions], chainret_strings(ROOT / "chainret")) == []


def test_the_quote_check_finds_a_quoted_newcomer5_question(questions) -> None:  # type: ignore[no-untyped-def]
    # negative control: a rule string quoting a question (other case and spacing) is found; a phrasing is not
    q = questions.questions[0].question
    assert quoted([q], [norm(f"PHRASES = ['{q.upper()}  ']")]) == [q]
    assert quoted([q], ["who owns {component}"]) == []


def test_question_file_is_well_formed(questions) -> None:  # type: ignore[no-untyped-def]
    kinds = Counter(q.kind for q in questions.questions)
    assert questions.world == "newcomer5"
    assert len(questions.questions) >= 90
    assert set(kinds) == set(ns.KINDS)
    # the two kinds the earlier sets are weakest on are the most numerous here
    assert kinds["coverage"] >= 20 and kinds["two_hop_set"] >= 18 and kinds["must_refuse"] >= 14
    assert questions.asked_on is not None  # relative phrases have a stated reference day
    assert all(q.view is None for q in questions.questions)  # times are in the words, never passed as a view
    assert EXAMPLE.page == ROOT / "docs" / "results" / "newcomer5.md"
    assert EXAMPLE.command.endswith("--example examples/newcomer5")


def test_repository_has_a_dated_history(built: tuple[Path, Path]) -> None:
    repo, _ = built
    lines = commit_log(repo)
    assert len(lines) == 6 and len({line.split()[0] for line in lines}) == 6
    assert lines[0] == "2026-06-08 c46b384"  # fixed dates and authors: the same hashes on every machine


def test_every_expected_id_is_an_imported_entity(built: tuple[Path, Path], questions) -> None:  # type: ignore[no-untyped-def]
    _, catalog_file = built
    catalog = load_catalog(catalog_file)
    ids = {e.id for e in catalog.entities}
    assert len(catalog.views) == 6
    missing = [(q.id, i) for q in questions.questions for i in q.expected or () if i not in ids]
    assert missing == []
    # negative control: a misspelt expected ID is caught
    assert "group:newcomer5:default.live-opps" not in ids


def test_vendors_file_is_restricted(built: tuple[Path, Path]) -> None:
    _, catalog_file = built
    catalog = load_catalog(catalog_file)
    restricted = {d.document for d in catalog.documents if d.visibility == "restricted"}
    assert restricted == {"org/vendors.yaml"}
