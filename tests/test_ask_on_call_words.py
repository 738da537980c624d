"""A word of being on call is never read by meaning as another relation's word (``chainret.query.frames.ON_CALL_WORDS``).

Found trying chainret as a new user on records of one's own: in a catalog with no on-call relation, "what is the
on-call rotation for search" was read, by the synonym layer, as "what does the search team own", and the team's
components were shown as the rota. The records hold no rota: the request must be refused. Beside it, the negative
control: "who is on call for X" still reads as X's owning team's people, where the catalog says nobody is on call."""

from __future__ import annotations

from pathlib import Path

import pytest
from records_world import answer_names, descriptor, records_catalog, unread, user


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One team owning a service, a website, an API and a database; no on-call relation."""
    return records_catalog(tmp_path_factory.mktemp("oncall") / "tree", [
        descriptor("Group", "search-team", "  members: [alice, chen]\n", title="Search"),
        user("alice", "Alice Moreau"), user("chen", "Chen Wei"),
        descriptor("Component", "search-service", "  owner: search-team\n  dependsOn: [resource:books-db]\n"),
        descriptor("Component", "web", "  owner: search-team\n  consumesApis: [search-api]\n"),
        descriptor("API", "search-api", "  owner: search-team\n"),
        descriptor("Resource", "books-db", "  owner: search-team\n"),
    ], {"CODEOWNERS": "* @acme/search-team\n"})


@pytest.mark.parametrize("words", [
    "what is the on-call rotation for search",
    "what is the on-call rotation for Search",
    "what's the rota for the search team",
    "the escalation path for search",
])
def test_a_rota_is_not_what_a_team_owns(words: str, world: Path) -> None:
    assert unread(words, world)


@pytest.mark.parametrize(("words", "expected"), [
    ("who is on call for search-service", {"default.alice", "default.chen"}),
    ("what does the search team own", {"default.search-service", "default.web", "default.search-api", "default.books-db"}),
])
def test_negative_control_on_call_and_ownership_still_read(words: str, expected: set[str], world: Path) -> None:
    assert answer_names(words, world) == expected
