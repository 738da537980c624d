"""Constructions of requests read through the existing readers (issue 44): an everyday verb whose catalog verb is one
("what uses X": consumption, never provision, though "what consumes X" and "what provides X" are both phrasings), a
question word said last before filler words ("X is on which team these days?"). Each beside its negative control: a
world or a near wording where the answer differs, or that must stay unread."""

from __future__ import annotations

from pathlib import Path

import pytest
from records_world import answer_names, descriptor, records_catalog, unread, user

from chainret.query.nested import asked_noun

D = "default."


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two departments over three teams (Ann on two of them); a web front end that consumes the cart API, which the cart
    service provides, both depending on the orders database; the shop system with both, the cart API and an API
    nobody consumes, and another such API outside it; a CODEOWNERS file (its code owners are one more relation
    a verb may be near)."""
    return records_catalog(tmp_path_factory.mktemp("constructions") / "tree", [
        descriptor("Group", "commerce", "  children: [checkout, payments]\n"), descriptor("Group", "platform", "  children: [tools]\n"),
        descriptor("Group", "checkout", "  members: [ann, bo]\n"), descriptor("Group", "payments", "  members: [ann, cy]\n"),
        descriptor("Group", "tools", "  members: [dee]\n"),
        user("ann", "Ann Lee"), user("bo", "Bo Chan"), user("cy", "Cy Park"), user("dee", "Dee Roy"),
        descriptor("System", "shop", "  owner: commerce\n"),
        descriptor("API", "cart-api", "  owner: payments\n  system: shop\n"),
        descriptor("API", "loyalty-api", "  owner: payments\n  system: shop\n"), descriptor("API", "admin-api", "  owner: tools\n"),
        descriptor("Component", "web", "  owner: checkout\n  system: shop\n  consumesApis: [cart-api]\n"
                   "  dependsOn: [resource:orders-db]\n"),
        descriptor("Component", "cart-svc", "  owner: payments\n  system: shop\n  providesApis: [cart-api]\n"
                   "  dependsOn: [resource:orders-db]\n"),
        descriptor("Component", "linter", "  owner: tools\n"),
        descriptor("Resource", "orders-db", "  owner: payments\n"),
    ], {"CODEOWNERS": "* @acme/checkout\n/cart/ @acme/payments @ann\n", "cart/cart.py": "x\n"})


@pytest.mark.parametrize(("words", "expected"), [
    ("what uses the cart-api", {"web"}), ("what uses cart-api?", {"web"}), ("what calls cart-api", {"web"}),
    ("what is using cart-api", {"web"}),
    ("what provides cart-api", {"cart-svc"}),  # the control: the provider is another answer, asked in its own verb
])
def test_an_everyday_verb_reads_as_its_one_catalog_verb_only(world: Path, words: str, expected: set[str]) -> None:
    assert answer_names(words, world) == {D + e for e in expected}


def test_a_verb_of_a_phrasing_is_no_noun_it_asks_with() -> None:
    assert asked_noun(["what", "consumes"], 2) is None  # "what consumes {api}"
    assert asked_noun(["what", "depends", "on"], 3) is None  # "what depends on {component}"
    assert asked_noun(["which", "team", "owns"], 3) == "team"  # the controls: a noun, then its verb
    assert asked_noun(["which", "apis", "does", "consume"], 3) == "apis"  # "which apis does {component} consume"


@pytest.mark.parametrize(("words", "expected"), [
    ("Bo Chan is on which team these days?", {"checkout"}), ("bo chan is on which team now", {"checkout"}),
    ("Cy Park is on which team?", {"payments"}),
    ("cart-api is owned by who these days", {"payments"}),
])
def test_a_question_word_said_last_before_filler_words(world: Path, words: str, expected: set[str]) -> None:
    assert answer_names(words, world) == {D + e for e in expected}


@pytest.mark.parametrize("words", [
    "Bo Chan is on which team these days and why?",  # says more after the question word
    "Bo Chan is on which team these days or last year?",
])
def test_a_question_word_said_last_before_other_words_stays_unread(world: Path, words: str) -> None:
    assert unread(words, world)


@pytest.mark.parametrize(("words", "expected"), [
    # the groups several groups are in, asked of several: the parents of each (Ann's two teams are both in commerce)
    ("what departments are Ann Lee's teams in", {"commerce"}), ("which departments are Ann Lee's teams part of?", {"commerce"}),
    ("what departments are Dee Roy's teams in", {"platform"}),  # the control: another person, another department
    # "owners of" a noun phrase: who owns what it stands for
    ("owners of everything that depends on orders-db", {"checkout", "payments"}),
    ("owners of the things that use cart-api", {"checkout"}),
    # "whatever" and a verb: the things that do it
    ("apis provided by whatever depends on orders-db", {"cart-api"}),
    ("owners of whatever depends on orders-db", {"checkout", "payments"}),  # the control: another relation, another set
    ("who owns whichever api web consumes", {"payments"}),  # "whichever" and a noun with its clause stays "the N that"
])
def test_a_plural_frame_over_a_noun_phrase(world: Path, words: str, expected: set[str]) -> None:
    assert answer_names(words, world) == {D + e for e in expected}


@pytest.mark.parametrize("words", [
    "what departments are Ann Lee's teams in and out of",  # says more
    "owners of cart-api and web",  # two things: no one slot
    "which departments are in Ann Lee's teams",  # the groups under her teams: none, never her teams' parents
    "apis provided by whatever depends",  # no object: no clause
])
def test_a_plural_frame_that_says_more_stays_unread(world: Path, words: str) -> None:
    assert unread(words, world)


@pytest.mark.parametrize(("words", "expected"), [
    # a possessive of a container: the things in it ("the shop system's APIs": the APIs in the shop system)
    ("which of the shop system's apis have no consumers", {"loyalty-api"}),
    ("which apis have no consumers", {"loyalty-api", "admin-api"}),  # the control: the ask without its scope
])
def test_a_coverage_ask_scoped_by_a_possessive_of_a_container(world: Path, words: str, expected: set[str]) -> None:
    assert answer_names(words, world) == {D + e for e in expected}


@pytest.mark.parametrize(("words", "expected"), [
    ("which apis does payments have", {"cart-api", "loyalty-api"}),  # what a team has is what it owns
    ("what resources do payments have?", {"orders-db"}),
    ("which apis does tools have", {"admin-api"}),  # the control: another team, another answer
])
def test_what_a_group_has_is_what_it_owns(world: Path, words: str, expected: set[str]) -> None:
    assert answer_names(words, world) == {D + e for e in expected}


@pytest.mark.parametrize("words", [
    "which resources does web have",  # a component owns nothing: never its dependencies guessed
    "which apis does payments have to call",  # says more
])
def test_what_a_thing_has_stays_unread_where_it_owns_nothing(world: Path, words: str) -> None:
    assert unread(words, world)


@pytest.mark.parametrize(("words", "expected"), [
    # a container's possessive as a slot: the things in it, of the head noun's type
    ("who owns the shop system's components", {"checkout", "payments"}),
    ("who owns the shop system's apis", {"payments"}),  # the control: the APIs in it are another set
    # a noun phrase inside a noun phrase, one level deeper: the teams that own what a possessive or modifier names
    ("who is on the teams that own the shop system's components", {"ann", "bo", "cy"}),
    ("Who is on the teams that own the APIs in the shop system?", {"ann", "cy"}),  # the control: checkout owns no API
])
def test_a_noun_phrase_inside_a_noun_phrase(world: Path, words: str, expected: set[str]) -> None:
    assert answer_names(words, world) == {D + e for e in expected}


@pytest.mark.parametrize("words", [
    "who is on the teams that own the components of the blorp system",  # names nothing
    "who is on the teams that own the apis that the components in the shop system consume",  # three levels: refused
    "who is on the teams that own the shop system's components and more",  # says more
])
def test_a_noun_phrase_inside_one_that_reads_as_nothing_stays_unread(world: Path, words: str) -> None:
    assert unread(words, world)
