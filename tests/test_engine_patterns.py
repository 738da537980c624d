"""Request interpretation: templates with a typed slot, case/punctuation-insensitive, original words kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from chainret.pipeline.ask import interpret
from chainret.catalog.load import load_world
from chainret.catalog.views import open_view
from chainret.catalog.patterns import PatternSpec, best_matches, match_request, words

ROOT = Path(__file__).resolve().parents[1]
P = PatternSpec("contact_for_project", "project", ("operated_by", "contact"),
                ("which contact serves {project}", "which contact serves project {project}"))


@pytest.mark.parametrize("request_text", ["Which contact serves PR-84?", "which CONTACT serves   pr-84", "Which contact serves: PR-84!"])
def test_case_and_punctuation_insensitive_slot_keeps_original_words(request_text):
    (m,) = best_matches(match_request(request_text, [P]))
    assert m.slot == "project" and m.slot_type == "project"
    assert m.slot_text.lower() == "pr-84" and m.slot_text in request_text


def test_more_specific_phrasing_wins():
    ms = best_matches(match_request("Which contact serves project PR-84?", [P]))
    assert [m.phrasing for m in ms] == ["which contact serves project {project}"] and ms[0].slot_text == "PR-84"


def test_no_match_and_empty_slot():
    assert match_request("How often is the registry audited?", [P]) == []
    assert match_request("Which contact serves?", [P]) == []


def test_words_keep_ids_whole():
    assert words("REL org:final:north | contact, PR-84.") == ["REL", "org:final:north", "contact", "PR-84"]


def test_phrasing_must_have_one_slot():
    # an unusable phrasing is skipped at ask time (validate reports it: tests/test_robust_patterns.py)
    assert match_request("no slot here", [PatternSpec("bad", "project", ("p",), ("no slot here",))]) == []


SEED = load_world(ROOT / "fixtures" / "seed").catalog


def test_interpretation_resolves_alias_in_view():
    r = interpret("Which contact serves PR-84?", open_view(SEED, "final"))
    i = r.interpretation
    assert (i.pattern, i.slot_text, i.start_id, i.view, i.principal) == ("contact_for_project", "PR-84", "project:final:main", "final", "public")
    assert i.predicates == ["operated_by", "contact"]


def test_canonical_id_and_display_name_resolve_too():
    cv = open_view(SEED, "final")
    assert interpret("Which contact serves project:final:main?", cv).interpretation.start_id == "project:final:main"
    assert interpret("Which contact serves Main programme?", cv).interpretation.start_id == "project:final:main"


def test_unknown_entity_and_wrong_type():
    cv = open_view(SEED, "final")
    r = interpret("Which contact serves PR-99?", cv)
    assert r.outcome == "refused" and r.reason.code == "unknown_entity"
    r = interpret("Which contact serves Rowan?", cv)  # two orgs, but the slot wants a project
    assert r.reason.code == "unknown_entity" and r.reason.details["other_types"] == ["org:final:north", "org:final:south"]


def test_no_pattern():
    r = interpret("What checksum rule applies to registry exports?", open_view(SEED, "final"))
    assert r.outcome == "no_pattern" and r.reason.message == "no relation pattern applies to this request"
