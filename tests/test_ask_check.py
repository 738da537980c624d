"""A yes/no ask ("is Bo on growth", "does sre own gateway", ``chainret.query.check``) is decided by the answers of the
question that asks for it ("who is on growth", "who owns gateway"): yes where the entity is one of them (its own path
is the proof), no only where they are complete (a set's every readable value, or a single-valued relation's one),
not known where the budget showed a part of the set without it. The controls: an entity of a kind the question never
answers, an unknown name, a statement, and a budget cut (never a no) stay unread or not known; a world where the
membership differs gives the other answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from records_world import cli, descriptor, records_catalog, user

from chainret.cli import plain
from chainret.pipeline.ask import answer, ask
from chainret.render.answers import check_words
from chainret.trace.model import Budget
from chainret.verify.replay import verify

A = "acme:default."


def _world(root: Path, *, growth: list[str]) -> Path:
    names = ["ana", "bo", "cy", "dee"]
    people = [user(n, n.title(), ["platform", *(["growth"] if n in growth else []), *(["sre"] if n == "cy" else [])]) for n in names]
    return records_catalog(root, [
        descriptor("Group", "platform"), descriptor("Group", "growth"), descriptor("Group", "sre"), *people,
        descriptor("Component", "gateway", "  owner: platform\n"), descriptor("Component", "pager", "  owner: growth\n"),
    ])


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _world(tmp_path_factory.mktemp("check") / "records", growth=["bo", "cy", "dee"])


@pytest.fixture(scope="module")
def other(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _world(tmp_path_factory.mktemp("other") / "records", growth=["ana"])


def _holds(words: str, catalog: Path, **kw: Any) -> object:
    trace = ask(words, catalog, **kw)
    assert trace.outcome == "accepted_path", (words, trace.outcome, trace.reason)
    assert verify(trace, catalog).ok
    return trace.meta["check"]["holds"]


@pytest.mark.parametrize(("words", "holds"), [
    ("is Bo on growth?", True), ("Is bo a member of growth?", True), ("is Ana on growth?", False),
    ("does growth own pager?", True), ("does sre own gateway?", False),  # owned_by is single-valued: its one value
    ("does platform own gateway", True), ("is Cy on the team that owns gateway?", True),
    ("is Ana on the team that owns pager?", False),
])
def test_yes_is_an_answer_and_no_a_complete_answer_without_it(world: Path, words: str, holds: bool) -> None:
    assert _holds(words, world) is holds


def test_a_world_where_the_membership_differs_gives_the_other_answer(other: Path) -> None:
    """Negative control: growth is ana alone here."""
    assert _holds("is Bo on growth?", other) is False and _holds("is Ana on growth?", other) is True


def test_a_budget_that_cuts_the_set_without_it_is_not_known_never_no(world: Path) -> None:
    cut = Budget(rows_per_hop=1, set_rows_per_hop=1)
    shown = ask("who is on growth?", world, budget=cut)
    assert shown.completeness is not None and not shown.completeness.complete
    missing = next(n for n in ("bo", "cy", "dee") if f"user:{A}{n}" not in {a.id for a in shown.answers or []})
    assert _holds(f"is {missing} on growth?", world, budget=cut) is None


@pytest.mark.parametrize("words", [
    "is gateway on growth?",  # a component: "who is on growth" answers people
    "is Zed on growth?",  # nobody by that name
    "Bo is on growth",  # a statement, not a question
    "is Bo on growth or sre?", "is Bo not on growth?",  # words the question does not read
])
def test_words_that_name_no_answerable_entity_are_not_read(world: Path, words: str) -> None:
    trace = ask(words, world)
    assert trace.outcome != "accepted_path" and "check" not in trace.meta


def test_every_surface_says_yes_or_no_first(world: Path, tmp_path: Path) -> None:
    got = answer("does sre own gateway?", world)
    assert check_words(got.trace, got.names) == (
        "no", f'sre (group:{A}sre) is not one of the answers to "who owns gateway", which are complete')
    lines = plain.plain_text(plain.trace_items(got.trace, names=got.names), 40).splitlines()  # type: ignore[union-attr]
    assert lines[0].startswith("check        no — ") and lines[1].startswith("answer ")
    for words, said in (("is Bo on growth?", "yes"), ("does sre own gateway?", "no")):
        quiet = cli("ask", words, "--catalog", str(world), "--no-trace", "-q", cwd=tmp_path)
        assert quiet.returncode == 0 and quiet.stdout == f"{said}\n"
    data = json.loads(cli("ask", "is Bo on growth?", "--catalog", str(world), "--no-trace", "--json", cwd=tmp_path).stdout)
    assert data["check"]["answer"] == "yes" and data["meta"]["check"]["entity"] == f"user:{A}bo"
    plain_ask = json.loads(cli("ask", "who is on growth?", "--catalog", str(world), "--no-trace", "--json", cwd=tmp_path).stdout)
    assert "check" not in plain_ask  # the control: no yes/no asked, none shown

    from chainret.render.html import answer_block, extras_for

    assert '<div class="big" id="check">no</div>' in answer_block(got.trace, extras_for(got.trace, world))


def test_http_ask_returns_the_check(world: Path) -> None:
    from fastapi.testclient import TestClient

    from chainret.server.app import create_app
    from chainret.server.auth import Authenticator
    from chainret.server.limits import Limits
    from chainret.server.service import Service

    with TestClient(create_app(Service(str(world)), Authenticator(), Limits(rate=0))) as client:
        yes = client.post("/ask", json={"request": "is Bo on growth?"}).json()
        plain_ask = client.post("/ask", json={"request": "who is on growth?"}).json()
    assert yes["check"] == "yes" and yes["message"].startswith("yes: ") and len(yes["answers"]) == 3
    assert plain_ask["check"] is None


@pytest.fixture(scope="module")
def some(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Ana on platform, Eve on no team; platform owns gateway, idle owns nothing."""
    ana = user("ana", "Ana", ["platform"])
    return records_catalog(tmp_path_factory.mktemp("some") / "records", [
        descriptor("Group", "platform"), descriptor("Group", "idle"), ana, user("eve", "Eve"),
        descriptor("Component", "gateway", "  owner: platform\n"),
    ])


@pytest.mark.parametrize(("words", "expected"), [
    ("is Ana on any team?", {f"group:{A}platform"}), ("is ana a member of a team", {f"group:{A}platform"}),
    ("does platform own a component?", {f"component:{A}gateway"}),
    ("does platform own any components", {f"component:{A}gateway"}),
])
def test_an_existential_ask_is_yes_with_the_answers_of_its_question(some: Path, words: str, expected: set[str]) -> None:
    got = answer(words, some)
    assert got.trace.outcome == "accepted_path" and {a.id for a in got.trace.answers or []} == expected
    assert got.trace.meta["check"]["exists"] is True and got.trace.meta["check"]["holds"] is True
    assert verify(got.trace, some).ok and check_words(got.trace, got.names)[0] == "yes"  # type: ignore[index]


@pytest.mark.parametrize("words", [
    "is Eve on any team?",  # the control: on no team, and an empty answer is never read as no
    "does idle own a component?",
    "is Ana on any weather?",  # a noun the catalog has no relation to
    "is Zed on any team?",
])
def test_an_existential_ask_without_answers_is_not_answered(some: Path, words: str) -> None:
    trace = ask(words, some)
    assert trace.outcome != "accepted_path"
