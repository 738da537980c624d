""""Who works on X", said of a thing rather than a team: the people of the team that owns X (``frames._FALLBACK_FRAMES``).

Asked only where the words read as nothing as said: "who works on Search" (a team) is its members, read first. Negative
controls: a past tense with no date is not read as now, a person is not worked on, and a thing with no owner has no
such people."""

from __future__ import annotations

from pathlib import Path

import pytest
from records_world import answer_names, descriptor, records_catalog, unread, user


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return records_catalog(tmp_path_factory.mktemp("works") / "tree", [
        descriptor("Group", "search-team", "  members: [alice, chen]\n", title="Search"),
        descriptor("Group", "mobile", "  members: [dana]\n", title="Mobile Squad"),
        user("alice", "Alice Moreau"), user("chen", "Chen Wei"), user("dana", "Dana Petrov"),
        descriptor("Component", "reader-app", "  owner: mobile\n", title="Reader App"),
        descriptor("Component", "legacy-export"),
        descriptor("API", "search-api", "  owner: search-team\n"),
    ], {"CODEOWNERS": "* @acme/mobile\n"})


@pytest.mark.parametrize(("words", "expected"), [
    ("who works on the reader app", {"default.dana"}),
    ("which people work on the search api", {"default.alice", "default.chen"}),
    ("who is working on the search api", {"default.alice", "default.chen"}),
    ("who works on Search", {"default.alice", "default.chen"}),  # a team: its members, as said
])
def test_who_works_on_a_thing_is_its_owning_teams_people(words: str, expected: set[str], world: Path) -> None:
    assert answer_names(words, world) == expected


@pytest.mark.parametrize("words", [
    "who worked on the reader app",  # a past with no date: not read as now
    "who works on Alice Moreau",  # a person is not owned
    "who works on legacy-export",  # no owner: no team, no people
])
def test_negative_control_no_owning_team_no_answer(words: str, world: Path) -> None:
    assert unread(words, world)
