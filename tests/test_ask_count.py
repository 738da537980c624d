"""A count ask ("how many people are on growth", ``chainret.query.count``) is the size of the set its question asks
for, answered by the same path: the number first, the members it counts and their completeness beside it. The
property: every lead of the closed list, before each set question, reads as that question and answers its set's size;
the controls: a world where the set differs gives the other number, a budget that cuts the members still counts the
whole set ("N (K shown)"), a lead outside the list ("how much", "how often") and a count of something no set answers
stay unread, and a request that is not a count carries no number."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from records_world import cli, descriptor, records_catalog, user

from chainret.cli import plain
from chainret.pipeline.ask import answer, ask
from chainret.query.count import read_count
from chainret.render.answers import count_words
from chainret.trace.model import Budget

A = "acme:default."
LEADS = ("how many", "How many", "how many of the", "what is the number of", "what's the number of", "the number of",
         "number of", "count the", "could you tell me how many", "please tell me how many")
QUESTIONS = {  # the set question after the lead, and its size in the world below (growth: ana, bo, cy)
    "people are on growth?": 3,
    "teams is Bo on?": 2,
    "components does platform own?": 2,
    "components have no owner?": 1,
    "teams have no members?": 0,
}


def _world(root: Path, *, members: list[str]) -> Path:
    people = [user("ana", "Ana Lima", ["platform"]), user("bo", "Bo Chen", ["platform", "growth"])]
    people += [user(m, m.title(), ["growth"]) for m in members if m != "bo"]
    return records_catalog(root, [
        descriptor("Group", "platform"), descriptor("Group", "growth"), *people,
        descriptor("Component", "gateway", "  owner: platform\n"), descriptor("Component", "pager", "  owner: platform\n"),
        descriptor("Component", "metrics-lib"),
    ])


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _world(tmp_path_factory.mktemp("count") / "records", members=["bo", "cy", "dee"])


@pytest.fixture(scope="module")
def smaller(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _world(tmp_path_factory.mktemp("smaller") / "records", members=["bo"])


def test_every_lead_before_every_set_question_reads_as_that_question() -> None:
    for lead, question in itertools.product(LEADS, QUESTIONS):
        got = read_count(f"{lead} {question}")
        assert got is not None and got.question.rstrip("?") == f"which {question}".rstrip("?"), (lead, question)


@pytest.mark.parametrize("question", list(QUESTIONS))
def test_the_count_is_the_size_of_the_set_its_question_answers(world: Path, question: str) -> None:
    counted = ask(f"how many {question}", world)
    listed = ask(f"which {question}", world)
    assert counted.outcome == listed.outcome == "accepted_path"
    assert [a.id for a in counted.answers or []] == [a.id for a in listed.answers or []]
    assert count_words(counted) == str(QUESTIONS[question]) and count_words(listed) is None
    assert counted.meta["count"] == {"lead": "how many", "question": f"which {question}"}


def test_a_world_where_the_set_differs_gives_the_other_number(smaller: Path) -> None:
    """Negative control: growth has one member here (bo), so the same words count 1, not 3."""
    assert count_words(ask("how many people are on growth?", smaller)) == "1"


def test_a_budget_that_cuts_the_members_still_counts_the_whole_set(world: Path) -> None:
    cut = ask("how many people are on growth?", world, budget=Budget(rows_per_hop=1, set_rows_per_hop=1))
    assert cut.completeness is not None and not cut.completeness.complete
    assert count_words(cut) == f"3 ({cut.completeness.answered} shown)"


@pytest.mark.parametrize("words", [
    "how much does platform own?", "how often is Bo on growth?", "how many times did platform own gateway?",
    "how many people are on growth and platform?", "which people are on growth?",
])
def test_words_that_are_no_count_of_an_answered_set_carry_no_number(world: Path, words: str) -> None:
    trace = ask(words, world)
    assert count_words(trace) is None
    if not words.startswith("which"):
        assert trace.outcome != "accepted_path", (words, trace.outcome)


def test_every_surface_shows_the_number_first(world: Path, tmp_path: Path) -> None:
    got = answer("how many people are on growth?", world)
    lines = plain.plain_text(plain.trace_items(got.trace, names=got.names), 100).splitlines()  # type: ignore[union-attr]
    assert lines[0].split() == ["count", "3"] and lines[1].startswith("answers") and lines[4] == "completeness all 3"
    quiet = cli("ask", "how many people are on growth?", "--catalog", str(world), "--no-trace", "-q", cwd=tmp_path)
    assert quiet.returncode == 0 and quiet.stdout == "3\n"
    data = json.loads(cli("ask", "how many people are on growth?", "--catalog", str(world), "--no-trace", "--json",
                          cwd=tmp_path).stdout)
    assert data["count"] == "3" and len(data["answers"]) == 3
    plain_ask = json.loads(cli("ask", "which people are on growth?", "--catalog", str(world), "--no-trace", "--json",
                               cwd=tmp_path).stdout)
    assert "count" not in plain_ask  # the control: no count asked, no count shown

    from chainret.render.html import answer_block, extras_for

    assert '<div class="big" id="count">3</div>' in answer_block(got.trace, extras_for(got.trace, world))


def test_http_ask_returns_the_count(world: Path) -> None:
    from fastapi.testclient import TestClient

    from chainret.server.app import create_app
    from chainret.server.auth import Authenticator
    from chainret.server.limits import Limits
    from chainret.server.service import Service

    out: dict[str, Any] = {}
    with TestClient(create_app(Service(str(world)), Authenticator(), Limits(rate=0))) as client:
        for words in ("how many people are on growth?", "which people are on growth?"):
            out[words] = client.post("/ask", json={"request": words}).json()
    counted, listed = out["how many people are on growth?"], out["which people are on growth?"]
    assert counted["count"] == "3" and counted["message"].startswith("3: ") and len(counted["answers"]) == 3
    assert listed["count"] is None and not listed["message"].startswith("3: ")


def test_the_trace_of_a_count_replays(world: Path) -> None:
    from chainret.verify.replay import verify

    trace = ask("how many people are on growth?", world)
    assert verify(trace, world).ok
