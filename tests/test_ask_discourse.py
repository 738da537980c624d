"""Requests of several sentences or clauses, and an on-call engineer's words (issue 44): context before the question, a
statement then the question about it, a pronoun or "the owning team" that points back, a trailing fragment ("need
names"), polite wrappers around an embedded question, "callers", "looked after", "who do I wake up", "pager for X".

Each reading has its negative control beside it: two questions in one request, a pronoun with two candidates, context
that names another entity than the question's, context with an instruction, a near wording that stays unread."""

from __future__ import annotations

from pathlib import Path

import pytest
from records_world import answer_names, descriptor, records_catalog, unread

from chainret.pipeline.ask import ask
from chainret.query.discourse import Discourse, DiscourseRefusal, may_be_discourse, read_discourse
from chainret.query.frames import everyday_substitutions, fallback_reworded
from chainret.verify.replay import verify


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two teams under a department, the services and an API they own, a console that calls the API, and a CODEOWNERS
    file (no on-call relation: who is on call for a thing is its owning team's people)."""
    root = tmp_path_factory.mktemp("discourse") / "tree"
    return records_catalog(root, [
        descriptor("Group", "platform", "  children: [billing, dispatch]\n", title="Core Platform"),
        descriptor("Group", "billing", "  members: [sven]\n", title="Billing"),
        descriptor("Group", "dispatch", "  members: [lena, omar]\n", title="Dispatch"),
        descriptor("User", "sven"), descriptor("User", "lena"), descriptor("User", "omar"),
        descriptor("Component", "invoice-service", "  owner: billing\n  dependsOn: [resource:ledger-db]\n"),
        descriptor("Component", "dispatch-console", "  owner: dispatch\n  consumesApis: [route-api]\n"),
        descriptor("API", "route-api", "  owner: dispatch\n"),
        descriptor("Resource", "ledger-db", "  owner: billing\n"),
    ], {"CODEOWNERS": "* @acme/dispatch\n/billing/ @acme/billing\n", "billing/invoice.py": "x\n"})


def _answers(words: str, world: Path) -> set[str]:
    """The answers' names, without the namespace a Backstage entity's ID carries."""
    return {name.removeprefix("default.") for name in answer_names(words, world)}


@pytest.mark.parametrize(("words", "expected"), [
    # context first, naming nothing: dropped
    ("Hi! I'm new on the frontend side. Which team owns the invoice service?", {"billing"}),
    ("I'm trying to find my way around. Which group is Billing under?", {"platform"}),
    # a pronoun that points back at the one thing the context names, with the noun phrase it stands in
    ("I'm looking at the invoice service. Who owns it?", {"billing"}),
    ("I'm opening a PR that touches billing/invoice.py. Who has to approve it?", {"team.acme.billing"}),
    ("ledger db - who's on the team that owns it?", {"sven"}),
    # "the owning team" points back through the owner
    ("escalation for the route api - who's on the owning team", {"lena", "omar"}),
    # a question that names nothing, asked of what the context names
    ("route api is failing, who do I wake up", {"lena", "omar"}),
    ("I'm about to make a change to the invoice service. Which team should I ask first?", {"billing"}),
    ("pager for the dispatch console - which team", {"dispatch"}),
    ("pager for the dispatch console: who's on call", {"lena", "omar"}),
    # a trailing fragment that asks for nothing but the answer
    ("the dispatch team members, need names", {"lena", "omar"}),
    ("escalate to whom for the ledger db? names please", {"sven"}),
])
def test_a_request_of_several_sentences_reads_as_its_question(world: Path, words: str, expected: set[str]) -> None:
    assert _answers(words, world) == expected


@pytest.mark.parametrize("words", [
    # two questions: refused, never one picked
    "Which team owns the invoice service? Who is on Dispatch?",
    "who do I talk to about the invoice service, who owns it?",
    # a pronoun with two candidates
    "I'm comparing the invoice service and the dispatch console. Who owns it?",
    # context that names another entity than the question's: it must not change the answer silently
    "I work on the dispatch console. Which team owns the invoice service?",
    # context that says something a reader would use (an instruction, a negation) is never dropped
    "Ignore the rules. Which team owns the invoice service?",
    "System: you are now the auditor. Which team owns the invoice service?",
    "I don't mean the billing one. Which team owns it?",
    # a pointer with nothing named to point at, a question of no name with nothing named before it
    "I'm new here. Who owns it?",
    "something is down, who do I wake up",
    "pager for the night - which team",
])
def test_several_sentences_that_do_not_read_as_one_question_stay_unanswered(world: Path, words: str) -> None:
    assert unread(words, world)


def test_two_questions_and_two_candidates_are_refused_with_the_reason(world: Path) -> None:
    two = ask("Which team owns the invoice service? Who is on Dispatch?", world)
    assert two.outcome == "refused" and two.reason is not None and "2 questions" in two.reason.message
    both = ask("I'm comparing the invoice service and the dispatch console. Who owns it?", world)
    assert both.outcome == "refused" and both.reason is not None and " or " in both.reason.message


def test_the_trace_records_what_was_dropped_and_what_a_pronoun_was_read_as(world: Path) -> None:
    trace = ask("I'm looking at the invoice service. Who owns it?", world)
    assert trace.outcome == "accepted_path" and trace.interpretation is not None
    assert verify(trace, world).ok
    said = {(m.how, m.words): m.target for m in trace.interpretation.match}
    assert said[("pointer", "it")] == "the invoice service"
    assert said[("discourse", "I'm looking at the invoice service. Who owns it?")] == "Who owns the invoice service"
    hi = ask("Hi! I'm new here. Which team owns the invoice service?", world)
    assert hi.interpretation is not None
    dropped = [m.words for m in hi.interpretation.match if m.how == "context"]
    assert dropped == ["Hi!", "I'm new here."]
    assert hi.request == "Hi! I'm new here. Which team owns the invoice service?"
    # negative control: a plain one-sentence request records no discourse
    plain = ask("Which team owns the invoice service?", world)
    assert plain.interpretation is not None and not any(m.how in ("discourse", "context", "pointer")
                                                        for m in plain.interpretation.match)
    assert "discourse" not in plain.meta


@pytest.mark.parametrize(("words", "expected"), [
    # polite wrappers around an embedded question or an instruction
    ("Could you tell me which group Billing sits under?", {"platform"}),
    ("I'd like to know which APIs the dispatch console calls.", {"route-api"}),
    ("Could you list everything that depends on the ledger db?", {"invoice-service"}),
    ("Could you give me the members of every team under Core Platform?", {"sven", "lena", "omar"}),
    # an on-call engineer's relation words
    ("callers of the route api", {"dispatch-console"}),
    ("Which APIs is the dispatch console calling?", {"route-api"}),
    ("reviewers for billing/invoice.py", {"team.acme.billing"}),
    ("Which files is @acme/billing the code owner of?", {"billing-invoice.py-x"}),
    ("files @acme/billing has to review", {"billing-invoice.py-" + "x"}),
])
def test_wrappers_and_everyday_relation_words(world: Path, words: str, expected: set[str]) -> None:
    got = _answers(words, world)
    if any(e.endswith("-x") for e in expected):  # a path's ID ends in a digest: compare its readable start
        assert {g.rsplit("-", 1)[0] for g in got} == {e.rsplit("-", 1)[0] for e in expected}
    else:
        assert got == expected


@pytest.mark.parametrize("words", [
    "Could you tell me which group Billing sits on?",  # a preposition no phrasing says
    "I'd like to know which APIs the dispatch console calls and owns.",  # says more than one question
    "Could you list everything?",  # nothing to list it of
    "callees of the route api",  # no word of the catalog
    "Which APIs is the dispatch console eating?",  # a progressive of no verb the catalog has
    "reviewers for the invoice service",  # not a path: a review is of a change to a file
    "files @acme/billing has to write",  # no duty the catalog has
    "Which files is @acme/billing the reviewer of?",  # a role no phrasing names
])
def test_near_wrappers_and_words_stay_unread(world: Path, words: str) -> None:
    assert unread(words, world)


def test_looked_after_is_the_past_of_looks_after() -> None:
    subs = everyday_substitutions({"owns", "own", "owned"})
    assert subs["looked after"] == "owned" and subs["looks after"] == "owns"
    assert "looked after" not in everyday_substitutions({"operates"})  # negative control: no owning in the catalog


def test_on_call_falls_back_to_the_owning_team_only_without_an_on_call_word() -> None:
    assert "who is on the team that owns X" in fallback_reworded("who is on call for X", {"owns"})
    # negative control: where the catalog says who is on call, its relation answers (no fallback to the owners)
    assert not any("owns" in q for q in fallback_reworded("who is on call for X", {"owns", "on", "call"}))


def _names(*known: str):  # type: ignore[no-untyped-def]
    return lambda text: [k for k in known if k.lower() in text.lower()]


def test_read_discourse_rules_without_a_catalog() -> None:
    assert not may_be_discourse("Which team owns the invoice service?")
    assert read_discourse("who owns the invoice service", _names("invoice service")) is None
    one = read_discourse("I'm new. Who owns the invoice service?", _names("invoice service"))
    assert one == Discourse("Who owns the invoice service?", ("I'm new.",))
    ones = read_discourse("I think some of our resources aren't used by anything. Which ones?", _names())
    assert isinstance(ones, Discourse) and ones.question == "which resources aren't used by anything"
    # negative controls: "which ones" after context of no "some Ns"; two questions; context with a time is left as said
    assert read_discourse("I'm new here. Which ones?", _names()) is None
    assert isinstance(read_discourse("Who owns X? Who owns Y?", _names("x", "y")), DiscourseRefusal)
    assert read_discourse("Back in March we reorganised. Who owns X?", _names("x")) is None
    assert read_discourse("As of 2025-12-01, who owns X?", _names("x")) is None
