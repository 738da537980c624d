"""The blind halves written after the first: examples/newcomer2 (the frozen test half) and the development halves
newcomer3, newcomer4, newcomer5, newcomer6, newcomer7, newcomer8, newcomer9, newcomer10, newcomer11: well-formed, and never quoted by a rule.

No score is asserted (docs/results/newcomerN.md reports it). A rule that quoted one of the test half's questions
(case and spacing aside) would be tuning on it; a development half may be tuned on, but a rule that quoted one of its
questions would answer that question by rote and tell nothing about the next newcomer's wording, so no string under
chainret/ may quote a question of any of them. These tests also check that each question file
parses with its times in words only, that its repository's history is the same on every machine, that every
expected ID names an entity the import of its history really has (a typo in an expected set is caught), and that
its one restricted file stays restricted. Each guard has a negative control beside it. (examples/newcomer, the first
half, has a file of its own.)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import ValidationError

from chainret.catalog.load import load_catalog
from support.newcomer import commit_log, load_scorer
from support.quotes import chainret_strings, norm, quoted

ROOT = Path(__file__).resolve().parents[1]
ns = load_scorer()


@dataclass(frozen=True)
class Half:
    folder: str
    head: str  # ``<date> <short hash>`` of the newest commit: fixed dates and authors, the same on every machine
    restricted: str  # the one file its header restricts
    misspelt: str  # an ID one letter off a real one (the negative control of the expected-ID check)
    at_least: dict[str, int]  # questions of each kind it was written with at least
    questions: int = 88  # questions it was written with at least

    @property
    def example(self):  # type: ignore[no-untyped-def]
        return ns.Example(ROOT / "examples" / self.folder)


HALVES = [
    Half("newcomer2", "2026-03-30 46ee479", "org/contractors.yaml", "group:newcomer2:default.bookings",
         {"must_refuse": 16, "as_of": 14}, questions=90),
    Half("newcomer3", "2026-04-27 661a756", "org/locums.yaml", "group:newcomer3:default.integrationz", {"must_refuse": 13}),
    Half("newcomer4", "2026-05-04 87facd3", "org/contractors.yaml", "group:newcomer4:default.hpc-opps", {"must_refuse": 14}),
    # the two kinds the earlier sets are weakest on are the most numerous in newcomer5
    Half("newcomer5", "2026-06-08 c46b384", "org/vendors.yaml", "group:newcomer5:default.live-opps",
         {"coverage": 20, "two_hop_set": 18, "must_refuse": 14}),
    # written toward the test half's weakest kinds: coverage and two hops over sets (with a type word mid-chain)
    Half("newcomer6", "2026-07-06 92120c2", "org/consultants.yaml", "group:newcomer6:default.leak-respons",
         {"coverage": 25, "two_hop_set": 25, "must_refuse": 12}, questions=90),
    # the same two kinds again, in another author's words (an airline's crew scheduling)
    Half("newcomer7", "2026-08-03 fde2d2e", "org/secondees.yaml", "group:newcomer7:default.payroll-engg",
         {"coverage": 28, "two_hop_set": 25, "as_of": 13, "must_refuse": 18}, questions=110),
    # an auditor's formal wording, toward the same weakest kinds (coverage said many ways, two hops over sets)
    Half("newcomer8", "2026-08-03 6677c4b", "org/contractors.yaml", "group:newcomer8:default.imaging-opps",
         {"coverage": 30, "two_hop_set": 24, "as_of": 10, "must_refuse": 15}, questions=103),
    # a platform engineer's chat wording with kind words (services, websites, libraries, buckets), toward the same kinds
    Half("newcomer9", "2026-09-28 42cafce", "org/contractors.yaml", "group:newcomer9:default.chekout",
         {"coverage": 34, "two_hop_set": 24, "as_of": 11, "must_refuse": 14}, questions=108),
    # an on-call engineer's terse lines and a new developer's polite sentences, toward the same kinds (queues, apps, jobs)
    Half("newcomer10", "2026-10-12 1dbb780", "org/contractors.yaml", "group:newcomer10:default.dispatchh",
         {"coverage": 29, "two_hop_set": 27, "as_of": 11, "must_refuse": 17}, questions=115),
    # a security engineer's incident wording and a product lead's everyday English, toward the same kinds (secrets, squads)
    Half("newcomer11", "2026-11-16 e87679f", "org/contractors.yaml", "group:newcomer11:default.paymentz",
         {"coverage": 26, "two_hop_set": 24, "as_of": 12, "must_refuse": 16}, questions=110),
]
IDS = [h.folder for h in HALVES]


@pytest.fixture(scope="module", params=HALVES, ids=IDS)
def half(request: pytest.FixtureRequest) -> Half:
    return request.param


@pytest.fixture(scope="module")
def questions(half: Half):  # type: ignore[no-untyped-def]
    return ns.load_questions(half.example.questions)


@pytest.fixture(scope="module")
def built(half: Half, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the repository, its imported catalog file), built once for each half."""
    tmp = tmp_path_factory.mktemp(half.folder)
    catalog_file = ns.build_catalog(tmp, half.example)
    return tmp / "repo", catalog_file


def test_no_string_in_chainret_quotes_a_question(questions) -> None:  # type: ignore[no-untyped-def]
    assert quoted([q.question for q in questions.questions], chainret_strings(ROOT / "chainret")) == []


def test_the_quote_check_finds_a_quoted_question(questions) -> None:  # type: ignore[no-untyped-def]
    # negative control: a rule string quoting a question (other case and spacing) is found; a phrasing is not
    q = questions.questions[0].question
    assert quoted([q], [norm(f"PHRASES = ['{q.upper()}  ']")]) == [q]
    assert quoted([q], ["who owns {component}"]) == []
    assert quoted(["who owns x"], ["who owns", "x"]) == []  # the strings are searched apart, never across two


def test_question_file_is_well_formed(half: Half, questions) -> None:  # type: ignore[no-untyped-def]
    kinds = Counter(q.kind for q in questions.questions)
    assert questions.world == half.folder
    assert len(questions.questions) >= half.questions
    assert set(kinds) == set(ns.KINDS)
    assert all(kinds[k] >= n for k, n in half.at_least.items()), kinds
    assert questions.asked_on is not None  # relative phrases have a stated reference day
    assert all(q.view is None for q in questions.questions)  # times are in the words, never passed as a view
    assert half.example.page == ROOT / "docs" / "results" / f"{half.folder}.md"
    assert half.example.command.endswith(f"--example examples/{half.folder}")


def test_repository_has_a_dated_history(half: Half, built: tuple[Path, Path]) -> None:
    repo, _ = built
    lines = commit_log(repo)
    assert len(lines) == 6 and len({line.split()[0] for line in lines}) == 6
    assert lines[0] == half.head


def test_every_expected_id_is_an_imported_entity(half: Half, built: tuple[Path, Path], questions) -> None:  # type: ignore[no-untyped-def]
    _, catalog_file = built
    catalog = load_catalog(catalog_file)
    ids = {e.id for e in catalog.entities}
    assert len(catalog.views) == 6
    missing = [(q.id, i) for q in questions.questions for i in q.expected or () if i not in ids]
    assert missing == []
    assert half.misspelt not in ids  # negative control: a misspelt expected ID would be caught


def test_the_restricted_file_stays_restricted(half: Half, built: tuple[Path, Path]) -> None:
    _, catalog_file = built
    catalog = load_catalog(catalog_file)
    assert {d.document for d in catalog.documents if d.visibility == "restricted"} == {half.restricted}


def test_a_set_with_asked_on_rejects_a_view() -> None:
    q = {"id": "a", "kind": "as_of", "question": "Who owned X in May?", "expected": ["x"]}
    with pytest.raises(ValidationError, match="no view"):
        ns.QuestionSet.model_validate({"world": "w", "asked_on": "2026-04-20", "questions": [{**q, "view": "2026-05-01"}]})
    # negative controls: the same question without a view loads, and a set without asked_on may keep views
    assert ns.QuestionSet.model_validate({"world": "w", "asked_on": "2026-04-20", "questions": [q]}).asked_on is not None
    assert ns.QuestionSet.model_validate({"world": "w", "questions": [{**q, "view": "2026-05-01"}]}).questions[0].view


def test_example_flag_names_the_folder_and_its_page() -> None:
    assert ns.parse_example("examples/newcomer2") == HALVES[0].example
    assert ns.parse_example(None) == ns.DEFAULT  # the default stays examples/newcomer
    assert ns.DEFAULT.page == ROOT / "docs" / "results" / "newcomer.md" and ns.DEFAULT.command == ns.COMMAND
    with pytest.raises(SystemExit, match="make_repo.py and questions.yaml"):
        ns.parse_example("examples/backstage")
