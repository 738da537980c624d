"""The newcomer question set (examples/newcomer) is well-formed and its scorer runs.

No score is asserted here: the score is what docs/results/newcomer.md reports. These tests check that
the repository builds with its dated history, that every expected ID names an entity the import
really has, that the question file's rules hold (with a rejected example beside each rule), and that
the scorer judges a right answer, a refusal and a miss as the page says it does.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import pytest
from pydantic import ValidationError

import benchmarks.newcomer_score as ns
from chainret.catalog.load import load_catalog

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the repository, its imported catalog file), built once for the module."""
    tmp = tmp_path_factory.mktemp("newcomer")
    catalog_file = ns.build_catalog(tmp)
    return tmp / "repo", catalog_file


def test_question_file_is_well_formed() -> None:
    qs = ns.load_questions()
    kinds = Counter(q.kind for q in qs.questions)
    assert qs.world == ns.WORLD
    assert len(qs.questions) >= 60
    assert set(kinds) == set(ns.KINDS)  # every kind is asked
    assert kinds["must_refuse"] >= 12
    assert all(q.view for q in qs.questions if q.kind == "as_of")


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ({"id": "x", "kind": "single", "question": "q", "expected": ["a"], "refuse": True}, "either expected"),
        ({"id": "x", "kind": "single", "question": "q"}, "either expected"),
        ({"id": "x", "kind": "must_refuse", "question": "q", "expected": ["a"]}, "must_refuse"),
        ({"id": "x", "kind": "set", "question": "q", "refuse": True}, "must_refuse"),
        ({"id": "x", "kind": "set", "question": "q", "expected": ["a", "a"]}, "distinct"),
        ({"id": "x", "kind": "sets", "question": "q", "expected": ["a"]}, "kind"),
        ({"id": "x", "kind": "set", "question": "q", "expected": ["a"], "answer": "a"}, "answer"),
    ],
)
def test_question_rules_reject_bad_entries(bad: dict[str, object], words: str) -> None:
    with pytest.raises(ValidationError, match=words):
        ns.Question.model_validate(bad)
    ok = {"id": "x", "kind": "set", "question": "q", "expected": ["a", "b"]}  # negative control: a good entry loads
    assert ns.Question.model_validate(ok).expected == ("a", "b")


def test_repeated_question_ids_are_rejected() -> None:
    q = {"id": "dup", "kind": "must_refuse", "question": "q", "refuse": True}
    with pytest.raises(ValidationError, match="dup"):
        ns.QuestionSet.model_validate({"world": "w", "questions": [q, q]})
    assert len(ns.QuestionSet.model_validate({"world": "w", "questions": [q, {**q, "id": "other"}]}).questions) == 2


def test_repository_has_a_dated_history(built: tuple[Path, Path]) -> None:
    repo, _ = built
    log = subprocess.run(["git", "-C", str(repo), "log", "--format=%cs %h"], capture_output=True, text=True, check=True)
    lines = log.stdout.split("\n")[:-1]
    assert len(lines) == 5 and len({line.split()[0] for line in lines}) == 5
    assert lines[0] == "2026-02-10 fe6b45a"  # fixed dates and authors: the same hashes on every machine


def test_every_expected_id_is_an_imported_entity(built: tuple[Path, Path]) -> None:
    _, catalog_file = built
    catalog = load_catalog(catalog_file)
    ids = {e.id for e in catalog.entities}
    assert len(catalog.views) == 4  # the code-only commit adds no view
    missing = [(q.id, i) for q in ns.load_questions().questions for i in q.expected or () if i not in ids]
    assert missing == []


def test_scorer_judges_right_refused_and_missed(built: tuple[Path, Path]) -> None:
    from chainret.store import resolve_catalog

    _, catalog_file = built
    catalog = resolve_catalog(str(catalog_file))
    team_web = "group:newcomer:default.team-web"
    right = ns.score(ns.Question(id="r", kind="single", question="Who owns web-shop?", expected=(team_web,)), catalog)
    assert (right.verdict, right.got) == ("right", (team_web,))
    other = ns.Question(id="w", kind="single", question="Who owns web-shop?", expected=("group:newcomer:default.engineering",))
    assert ns.score(other, catalog).verdict == "wrong"  # accepted, another set
    accepted = ns.Question(id="a", kind="must_refuse", question="Who owns web-shop?", refuse=True)
    assert ns.score(accepted, catalog).verdict == "wrong"  # accepted where it must refuse
    unknown = ns.Question(id="u", kind="must_refuse", question="Who owns billing-service?", refuse=True)
    assert ns.score(unknown, catalog).verdict == "right"
    missed = ns.score(ns.Question(id="m", kind="single", question="Who owns billing-service?", expected=(team_web,)), catalog)
    assert missed.verdict == "missed" and missed.why  # with the reason chainret gave
    early = ns.Question(id="e", kind="must_refuse", question="Who owns web-shop?", view="2025-10-01", refuse=True)
    assert "no commit on or before 2025-10-01" in ns.score(early, catalog).why  # before the first commit: an error, counted as a refusal


def test_page_lists_the_command_totals_and_every_miss() -> None:
    q = ns.Question(id="m1", kind="set", question="Who is on X?", expected=("user:newcomer:default.alice",))
    r = ns.Question(id="r1", kind="must_refuse", question="Who owns nothing?", refuse=True)
    text = ns.page([ns.Result(question=q, verdict="missed", why="no_pattern: because"),
                    ns.Result(question=r, verdict="right")])
    assert ns.COMMAND in text
    assert "| **all** | 2 | 1 | 0 | 0 | 1 |" in text
    assert "`m1`" in text and "no_pattern: because" in text and "`r1`" not in text
