"""Interpretation tolerates careless words without answering a different question (issue 11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chainret.query.interpret import interpret, pattern_specs
from chainret.catalog.load import load_world
from chainret.catalog.views import open_view
from chainret.catalog.patterns import (
    PatternSpec,
    best_matches,
    match_request,
    phrasing_problem,
    suggest_phrasings,
)

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = load_world(ROOT / "catalogs" / "default.yaml").catalog
SUPPLY = load_world(ROOT / "fixtures" / "supply").catalog


def start(request: str, cat=DEFAULT) -> str | None:
    r = interpret(request, open_view(cat, None, "public"))
    return r.interpretation.start_id if r.interpretation else r.reason.code


@pytest.mark.parametrize(
    "request_text",
    [
        "Which contact serves PR-84 today?",
        "Which contact serves PR-84 right now, please?",
        "Which contact serves PR-84?!",
        "Which contact serves (PR-84)?",
        "Which contact serves:PR-84?",
        "Which contact serves PR\u201184?",  # non-breaking hyphen
        "Which contact serves PR-84's?",
        "which contact serves project:final:main currently",
    ],
)
def test_trailing_fillers_and_glued_punctuation(request_text):
    assert start(request_text) == "project:final:main"


def test_possessive_reads_as_the_templates_of_form():
    # the supply catalog says "who certifies the supplier of {part}": "G-7's supplier" is that form
    assert start("Who certifies G-7's supplier?", SUPPLY) == "part:supply:gear"
    assert start("Which lab certifies V-12\u2019s supplier?", SUPPLY) == "part:supply:valve"  # typographic apostrophe


def test_possessive_the_templates_do_not_express_is_no_pattern_not_a_wrong_answer():
    # the default catalog has no supplier relation: "PR-7's supplier" must not be read as PR-7 (or PR-84)
    assert start("Which contact serves PR-7's supplier?") == "no_pattern"
    assert start("Which contact serves PR-84's supplier?") == "no_pattern"


def test_other_trailing_words_stay_in_the_slot():
    # "in 2020" is not a filler: answering as if it were not there would answer another question
    r = interpret("Which contact serves PR-84 in 2020?", open_view(DEFAULT, None, "public"))
    assert r.reason.code == "unknown_entity" and r.reason.details["slot_text"] == "PR-84 in 2020"


def test_filler_reading_is_recorded():
    p = PatternSpec("c", "project", ("a",), ("which contact serves {project}",))
    ms = match_request("Which contact serves PR-84 right now?", [p])
    assert [(m.slot_text, m.reading, m.ignored) for m in ms] == [("PR-84 right now", "plain", ()), ("PR-84", "filler", ("right", "now"))]


def test_suggestions_and_phrasing_rule():
    sugg = suggest_phrasings("Which contact serves PR-7's supplier?", pattern_specs(DEFAULT))
    assert sugg[0] == ("contact_for_project", "which contact serves {project}")
    for glued in ("which contact serves{project}", "{project}'s contact", "{project}"):
        assert phrasing_problem(glued, "project") is not None
        assert match_request("which contact serves PR-84", [PatternSpec("g", "project", ("a",), (glued,))]) == []
    assert phrasing_problem("which contact serves ({project})?", "project") is None


ARTICLES = [PatternSpec("files", "codeowner", ("code_owner_of",), ("which files is {codeowner} a code owner of",)),
            PatternSpec("rules", "codeowner", ("code_owner_of",), ("what is {codeowner} code owner of",)),
            PatternSpec("owner", "component", ("owned_by",), ("who owns {component}",))]


@pytest.mark.parametrize(("request_text", "pattern", "slot"), [
    ("Which files is @yuki the code owner of?", "files", "yuki"),  # "the" for the template's "a"
    ("which files is @yuki code owner of", "files", "yuki"),  # none
    ("what is @yuki the code owner of", "rules", "yuki"),  # one the template does not have
])
def test_another_article_or_none_reads_as_the_templates(request_text: str, pattern: str, slot: str) -> None:
    found = best_matches(match_request(request_text, ARTICLES))
    assert [(m.pattern.name, m.slot_text, m.reading) for m in found] == [(pattern, slot, "articles")]


def test_a_slot_ending_in_a_is_read_both_ways() -> None:
    found = best_matches(match_request("what is @yuki a code owner of", ARTICLES))  # "yuki a", or "yuki" and "a code owner"
    assert [(m.slot_text, m.reading) for m in found] == [("yuki a", "plain"), ("yuki", "articles")]


def test_articles_are_read_last_and_words_other_than_articles_still_count() -> None:
    plain = match_request("which files is @yuki a code owner of", ARTICLES)
    assert [(m.reading, m.slot_text) for m in plain] == [("plain", "yuki")]  # as written: no articles reading
    assert match_request("which files is @yuki the code reviewer of", ARTICLES) == []  # another word: no match
    assert match_request("what is @yuki the the", ARTICLES) == []  # the template's words are not all there
    # a slot keeps a name's last "a" ("Plan A") but never ends in "the" or "an", which begin the template's words
    assert [m.slot_text for m in match_request("who owns Plan A", ARTICLES)] == ["Plan A"]
    assert [m.reading for m in match_request("what is @yuki the code owner of", ARTICLES)] == ["articles"]
