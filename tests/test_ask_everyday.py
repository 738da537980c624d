"""Requests worded the way people word them (issue 44/45): a group named by its kind (*the integrations team*, *which
department*), everyday frames (*who needs to review a change to P*, *code owners for P*, *members of X*, *list the
teams under X*, *which teams sit under X*, *the parent team of X*, *what is X in charge of*, *who do I ask about X*),
everyday verbs (*looks after*, *call*), *the people on X*, a relative clause without *that*, and time words (*last September*, *late June 2025*, *last quarter*). Each rule
has its negative control beside it: a near wording that stays unread, or a request that must stay refused."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from records_world import descriptor, imported

from chainret.pipeline.ask import ask
from chainret.query.frames import everyday_substitutions, frame_question, progressive, reworded
from chainret.query.when import read_time
from chainret.verify.replay import verify


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A department with two teams (one titled otherwise than its name), their members and what they own, and
    a CODEOWNERS file whose paths have everyday words in them (``service.py``)."""
    root = tmp_path_factory.mktemp("everyday") / "tree"
    (root / "src").mkdir(parents=True)
    (root / "src" / "service.py").write_text("x\n", encoding="utf-8")
    (root / "CODEOWNERS").write_text("* @acme/core\n/src/ @acme/integrations @ann\n", encoding="utf-8")
    (root / "catalog-info.yaml").write_text("\n---\n".join([
        descriptor("Group", "clinical", "  children: [integrations, core]\n", title="Clinical Systems"),
        descriptor("Group", "integrations", "  members: [ann, bo]\n", title="Interfaces & Integrations"),
        descriptor("Group", "core", "  members: [cy]\n"),
        descriptor("User", "ann"), descriptor("User", "bo"), descriptor("User", "cy"),
        descriptor("API", "orders-api", "  owner: integrations\n"),
        descriptor("Component", "gateway", "  owner: integrations\n  consumesApis: [orders-api]\n"),
        descriptor("Component", "portal", "  owner: core\n  providesApis: [orders-api]\n"),
    ]), encoding="utf-8")
    out = root.parent / "cat.yaml"
    imported(root, out, ["backstage", "codeowners"])
    return out


def _ids(words: str, catalog: Path) -> list[str]:
    trace = ask(words, catalog)
    assert trace.outcome == "accepted_path", (words, trace.outcome, trace.reason)
    return sorted({a.id for a in trace.answers} if trace.answers else {(trace.path_ids or [""])[-1]})


G = "group:acme:default."
CODE_OWNERS = ["codeowner:acme:team.acme.integrations", "codeowner:acme:user.ann"]  # of src/service.py


@pytest.mark.parametrize(("words", "expected"), [
    # a group named with its kind's word ("team", "department"), as a slot and as the answer's head noun
    ("Who is on the integrations team?", ["user:acme:default.ann", "user:acme:default.bo"]),
    ("Which department is Interfaces & Integrations under?", [G + "clinical"]),
    # everyday frames
    ("members of the integrations team", ["user:acme:default.ann", "user:acme:default.bo"]),
    ("list the teams under Clinical Systems", [G + "core", G + "integrations"]),
    ("Which teams sit under Clinical Systems?", [G + "core", G + "integrations"]),
    ("What's the parent team of core?", [G + "clinical"]),
    ("What is the integrations team in charge of?", ["api:acme:default.orders-api", "component:acme:default.gateway"]),
    ("which team looks after the gateway", [G + "integrations"]),
    ("what APIs does the gateway call?", ["api:acme:default.orders-api"]),
    # code owners: a path's everyday word ("service") is part of the path, never reworded
    ("code owners for src/service.py", ["codeowner:acme:team.acme.integrations", "codeowner:acme:user.ann"]),
    ("Who needs to review a change to src/service.py?", ["codeowner:acme:team.acme.integrations", "codeowner:acme:user.ann"]),
    ("who are the people on the integrations team", ["user:acme:default.ann", "user:acme:default.bo"]),
    ("which team does the portal belong to", [G + "core"]),  # no membership of the portal: its owner
    ("which team does ann belong to", [G + "integrations"]),  # a membership, as before
    # a relative clause without its "that"
    ("Who owns the APIs the gateway consumes?", [G + "integrations"]),
    # "who do I ask about X": a contact where the catalog has one; here it has none, so the owner
    ("Who do I talk to about the portal?", [G + "core"]),
    ("who do I bug about the portal?", [G + "core"]),  # workplace slang for getting in touch
    # contractions typed without the apostrophe, and "'s" as "is" after a question's head noun
    ("whos the owner of the gateway these days?", [G + "integrations"]),
    ("what team's cy on now?", [G + "core"]),
    # a change to a path, said as the change's clause or named after the path; a path reviewed; "code owners for"
    ("who can approve a PR that touches src/service.py?", CODE_OWNERS),
    ("who has to review src/service.py changes?", CODE_OWNERS),
    ("who reviews src/service.py", CODE_OWNERS),
    ("who code-owns src/service.py", CODE_OWNERS),
    ("who needs to sign off on changes to src/service.py", CODE_OWNERS),
    # "list everything X owns", "which teams does X have under it", the progressive, "serves" as "provides"
    ("list everything the integrations team owns", ["api:acme:default.orders-api", "component:acme:default.gateway"]),
    ("show me all the stuff owned by the integrations team", ["api:acme:default.orders-api", "component:acme:default.gateway"]),
    ("which teams does Clinical Systems have under it", [G + "core", G + "integrations"]),
    ("who is using orders-api", ["component:acme:default.gateway"]),
])
def test_everyday_wordings_answer_as_the_question_they_stand_for(world: Path, words: str, expected: list[str]) -> None:
    assert _ids(words, world) == expected


def test_the_person_on_call_is_who_is_on_call() -> None:
    assert frame_question("the person on call for the team responsible for cart-api") == (
        "who is on call for the team responsible for cart-api")
    assert frame_question("the person who owns cart-api") is None


def test_a_reworded_everyday_request_replays(world: Path) -> None:
    trace = ask("Who do I talk to about the portal?", world)
    assert trace.interpretation is not None and (trace.interpretation.reading or "").endswith("reworded")
    assert verify(trace, world).ok


@pytest.mark.parametrize("words", [
    "Who is on the integrations planet?",  # no type's word: the slot names nothing
    "who reviewed src/service.py",  # the past without time words: not read as the present
    "who reviews the portal",  # no path: a component has no code owners
    "who can approve a PR that touches src/service.py and src",
    "list everything the integrations team owns and the portal",
    "which teams does Clinical Systems have",  # no "under it": members? what it owns?
    "who is leading orders-api",  # a verb the catalog has no word for
    "who do I bug",
    "list the team under Clinical Systems",  # "list the <noun>s": one noun is no list
    "What is the integrations team in charge?",  # no "of": no ownership asked
    "which team looks after the gateway and the portal",  # says more than one question
    "code owners for src/service.py and src",
    "Which departments sit beside Clinical Systems?",  # "beside" is no place under
    "Who is the manager of the integrations team?",  # no manager relation: "manager" is no people's type word
    "Who is ann's manager?",  # nor a group's kind word ("department"), which a synonym by meaning never reaches
    "who are the people near the integrations team",
    "which team does the portal belong to and why",
])
def test_near_wordings_stay_unanswered(world: Path, words: str) -> None:
    assert ask(words, world).outcome != "accepted_path"


def test_who_do_i_ask_is_a_contact_first_then_an_owner() -> None:
    """The owner is asked only when no contact question reads: in a catalog with contacts the frame's answer is the
    contact, as before (negative control of the fallback order)."""
    assert frame_question("who do I ask about PR-84") == "who is the contact for PR-84"
    assert frame_question("who do I ask about PR-84", fallback=True) == "who owns PR-84"
    literal = ask("Which contact serves PR-84?", "catalogs/default.yaml")
    assert ask("who do I ask about PR-84", "catalogs/default.yaml").path_ids == literal.path_ids


def test_everyday_verb_phrases_stand_for_owns_only_where_the_catalog_owns() -> None:
    assert everyday_substitutions({"owns"})["looks after"] == "owns"
    assert everyday_substitutions({"consumes"})["calls"] == "consumes"
    # negative controls: no owning verb, or "calls" the catalog's own word
    assert "looks after" not in everyday_substitutions({"operates"})
    assert "calls" not in everyday_substitutions({"consumes", "calls"}, {"calls": {"called_by"}, "consumes": {"consumed_by"}})
    assert reworded("who owns src/service.py", {"component", "owns"}) == []  # a path's word: never the type noun


TODAY = date(2026, 5, 18)


@pytest.mark.parametrize(("words", "phrase", "day", "rest"), [
    ("Who owned the portal last September?", "last September", date(2025, 9, 30), "Who owned the portal?"),
    ("Who owned the portal last may?", "last may", date(2025, 5, 31), "Who owned the portal?"),
    ("what teams was ann on in late June 2025", "in late June 2025", date(2025, 6, 30), "what teams was ann on"),
    ("what teams was ann on in early June 2025", "in early June 2025", date(2025, 6, 1), "what teams was ann on"),
    ("who owned X in mid-March 2026", "in mid-March 2026", date(2026, 3, 16), "who owned X"),
    # the quarter before this one; "on" before relative words is the request's ("on X"), no time preposition
    ("Which team was ann on last quarter?", "last quarter", date(2026, 3, 31), "Which team was ann on?"),
    ("Which team was ann on last month?", "last month", date(2026, 4, 30), "Which team was ann on?"),
    ("Who owned X as of last month?", "as of last month", date(2026, 4, 30), "Who owned X?"),
])
def test_time_words_people_use(words: str, phrase: str, day: date, rest: str) -> None:
    when = read_time(words, TODAY)
    assert when is not None and (when.words, when.day, when.rest) == (phrase, day, rest)


@pytest.mark.parametrize("words", [
    "Who owns the late-night job?",  # "late" inside a name
    "Who owns the last may release?",  # "the last": an adjective, no time
    "Who owns the late June report?",  # a part of a month without a time preposition
])
def test_words_that_look_like_time_but_are_none(words: str) -> None:
    assert read_time(words, TODAY) is None


def test_a_rule_that_covers_a_path_is_the_rule_that_governs_it(world: Path) -> None:
    rule = _ids("which codeowners rule governs src/service.py", world)
    assert _ids("which CODEOWNERS rule covers src/service.py?", world) == rule
    assert _ids("which rule applies to src/service.py", world) == rule
    assert everyday_substitutions({"governs"})["covers"] == "governs"
    # negative controls: no rule relation in the catalog, or "covers" the catalog's own word
    assert "covers" not in everyday_substitutions({"owns"})
    assert "covers" not in everyday_substitutions({"governs", "covers"}, {"covers": {"covers"}, "governs": {"governs"}})


def test_serves_is_no_everyday_word_for_provides() -> None:
    """"serves" is left as said: a service serves teams, routes and regions as well as an API's callers, so it is not
    read as "provides" (the negative control: "supplies", an everyday word of one catalog verb, still is)."""
    assert "serves" not in everyday_substitutions({"provides"})
    assert everyday_substitutions({"supplies"}).get("provides") == "supplies"
    literal = ask("Which contact serves PR-84?", "catalogs/default.yaml")
    assert literal.interpretation is not None and literal.interpretation.reading is None


@pytest.mark.parametrize(("words", "question"), [
    ("who is using orders-api", "who uses orders-api"),
    ("which components are calling orders-api", "which components call orders-api"),
    ("who's running the portal", "who runs the portal"),
])
def test_the_present_progressive_is_the_simple_present(words: str, question: str) -> None:
    assert progressive(words, {"uses", "call", "runs"}) == question


@pytest.mark.parametrize(("words", "question"), [
    # the object asked about: the subject between "is/are" and the -ing form, "do"/"does" as the subject agrees
    ("which APIs is the courier app calling", "which APIs does the courier app call"),
    ("what are the workers using", "what do the workers use"),
    ("which apis is web-shop consuming?", "which apis does web-shop consume"),
    # an everyday phrase: the verb with its particle
    ("which team is looking after the courier app", "which team looks after the courier app"),
    ("which team is the courier app looking after", "which team does the courier app look after"),
])
def test_the_progressive_of_an_object_question_is_the_simple_present(words: str, question: str) -> None:
    assert progressive(words, {"uses", "call", "use", "consume"}) == question


def test_a_progressive_object_question_the_catalog_has_no_word_for_stays_as_said() -> None:
    assert progressive("which team is ann joining", {"uses", "call"}) is None  # "join": no word of the catalog
    assert progressive("which team is looking into the outage", {"uses"}) is None  # "looks into": no phrase of it
    assert progressive("which apis is the courier app", {"call"}) is None  # no -ing form


def test_a_progressive_verb_the_catalog_has_no_word_for_stays_as_said() -> None:
    assert progressive("who is leading orders-api", {"uses", "leads"} - {"leads"}) is None
    assert progressive("who is ann's manager", {"uses"}) is None  # no -ing: no progressive
