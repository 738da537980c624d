"""The word rules have one home (chainret.core.words): the token variants share one list of joiners, and the
phrasing matcher and the tolerant readings drop the same filler words (tests/test_one_home.py: no other module
types them again)."""

from __future__ import annotations

import pytest

from chainret.catalog.names import label_words, name_key
from chainret.catalog.patterns import PatternSpec, match_request, words
from chainret.core import words as rules
from chainret.engine.search import tokenize
from chainret.query.gaps import read_gap_request
from chainret.query.understand import prepare

CONTACT = PatternSpec("contact", "project", ("operated_by", "contact"), ("which contact serves {project}",))
VOCAB = {"which", "contact", "serves"}


def test_search_tokens_are_lower_case_and_keep_ids_whole():
    text = "Who is PR-84's contact? See type:world:name in registry/projects.md@v2#u3."
    assert tokenize(text) == ["pr-84", "s", "contact", "see", "type:world:name", "registry/projects.md@v2#u3"]


def test_request_words_keep_case_and_the_possessive():
    assert words("Who is PR-84's contact? See type:world:name.") == ["Who", "is", "PR-84's", "contact", "See",
                                                                      "type:world:name"]


def test_name_words_split_at_every_joiner():
    assert label_words("Cart-API v2.1") == ["cart", "api", "v2", "1"]
    assert name_key("PR 84") == name_key("pr-84") == name_key("PR84") == "pr84"


@pytest.mark.parametrize("joiner", list(rules.JOINERS))
def test_every_joiner_joins_in_search_and_in_requests(joiner):
    assert rules.SEARCH_TOKEN.findall(f"a{joiner}1") == [f"a{joiner}1"]
    assert rules.REQUEST_WORD.findall(f"A{joiner}1") == [f"A{joiner}1"]
    assert rules.PLAIN_WORD.findall(f"a{joiner}1") == ["a", "1"]
    # a joiner with no letter or digit after it ends the word: "PR-84." is PR-84
    assert rules.SEARCH_TOKEN.findall(f"a{joiner} b") == ["a", "b"]


@pytest.mark.parametrize("other", ["+", ",", "!", "(", "'"])
def test_other_punctuation_splits_search_tokens(other):  # the negative control of the joiner test
    assert rules.SEARCH_TOKEN.findall(f"a{other}1") == ["a", "1"]
    if other != rules.APOSTROPHE:
        assert rules.REQUEST_WORD.findall(f"A{other}1") == ["A", "1"]


@pytest.mark.parametrize("filler", rules.FILLERS, ids=" ".join)
def test_the_matcher_and_the_tolerant_readings_drop_the_same_fillers(filler):
    said = " ".join(filler)
    matches = match_request(f"which contact serves PR-84 {said}", [CONTACT])
    assert [(m.slot_text, m.ignored) for m in matches if m.reading == "filler"] == [("PR-84", filler)]
    prepared = prepare(f"which contact serves PR-84 {said}", VOCAB)
    assert prepared is not None and prepared.low == ["which", "contact", "serves", "pr-84"]
    assert prepared.ignored == [said]


def test_a_word_that_is_no_filler_stays():  # the negative control of the filler test
    matches = match_request("which contact serves PR-84 tomorrow", [CONTACT])
    assert [m.slot_text for m in matches] == ["PR-84 tomorrow"]
    prepared = prepare("which contact serves PR-84 tomorrow", VOCAB)
    assert prepared is not None and prepared.low[-1] == "tomorrow" and prepared.ignored == []


@pytest.mark.parametrize("typed", ["owners that don\u2019t resolve", "owners that don't resolve", "owners that do not resolve"])
def test_a_typographic_apostrophe_reads_as_ascii_before_contractions(typed):
    gap = read_gap_request(typed)  # "don\u2019t" was left unexpanded when the mark was read after "n't"
    assert gap is not None and gap.kind == "undeclared_owners"


def test_typographic_marks_read_as_ascii_in_request_words():
    assert words("Who serves PR\u201184? PR\u22127\u2019s contact") == ["Who", "serves", "PR-84", "PR-7's", "contact"]
    assert rules.ascii_marks("plain ascii") == "plain ascii"
