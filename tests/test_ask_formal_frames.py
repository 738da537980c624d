"""Two frames of formal English read as constructions (issue 44): the preposition said before its question word ("To which
system does X belong", "Of which team is X a member", "Under which group does X sit", read as the question with its
preposition at the end), and a request to identify a noun phrase ("Please identify the members of X", "Could you
identify the people on the team responsible for X", read as the noun phrase). Each has a negative control beside it: a
near wording that stays unread (a preposition the verb does not take, a noun phrase that names nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest
from records_world import answer_names, descriptor, records_catalog, unread, user

from chainret.query.frames import preposition_fronted, without_leading_frame

D = "default."


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A department with a team under it, two people on the team, a system with a component the team owns."""
    return records_catalog(tmp_path_factory.mktemp("formal-frames") / "tree", [
        descriptor("Group", "clinical", "  children: [imaging]\n", title="Clinical Systems"),
        descriptor("Group", "imaging", "  parent: clinical\n  members: [amira, tom]\n", title="Imaging Team"),
        user("amira", "Amira Saleh"), user("tom", "Tom Becker"),
        descriptor("System", "archive", "  owner: imaging\n", title="Imaging Archive"),
        descriptor("Component", "viewer", "  owner: imaging\n  system: archive\n", title="Imaging Viewer"),
    ])


def test_the_preposition_said_first_is_put_at_the_end() -> None:
    assert preposition_fronted("To which system does the viewer belong?") == "which system does the viewer belong to"
    assert preposition_fronted("Of whom is Amira a colleague") == "who is Amira a colleague of"
    assert preposition_fronted("which system does the viewer belong to") is None  # (already at the end)


@pytest.mark.parametrize(("words", "expected"), [
    ("To which system does the Imaging Viewer belong?", {D + "archive"}),
    ("Of which team is Amira Saleh a member?", {D + "imaging"}),
    ("Please identify the members of the Imaging Team.", {D + "amira", D + "tom"}),
    ("Could you identify the people on the team responsible for the Imaging Viewer?", {D + "amira", D + "tom"}),
])
def test_a_formal_frame_reads_as_its_question(world: Path, words: str, expected: set[str]) -> None:
    assert answer_names(words, world) == expected


@pytest.mark.parametrize("words", [
    "Of which system does the Imaging Viewer belong?",  # "belong of": the verb does not take that preposition
    "Please identify the members of the weather.",  # the noun phrase names nothing
    "Please identify",
])
def test_a_near_miss_of_a_formal_frame_stays_unread(world: Path, words: str) -> None:
    assert unread(words, world)


def test_only_a_listed_frame_is_taken_off() -> None:
    assert without_leading_frame("could you identify the members of X?") == "the members of X"
    assert without_leading_frame("the members of X") is None
    assert without_leading_frame("identify") is None  # (nothing after it)
