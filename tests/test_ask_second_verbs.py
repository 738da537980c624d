"""An everyday verb read as its second catalog verb where the first reads as nothing (``chainret.query.frames.SECOND_VERBS``).

"use" is read as "consume" (what a caller does to an API: ``EVERYDAY_VERBS``). A thing that is no API is used by what
depends on it: "what uses the statements bucket", "everything that pulls in json-lib". The words with "depends on" put
in are read as a request of their own, so they answer only where the catalog says so. Negative controls beside each: an
API is still used by its consumers (never by what depends on it), a thing that nothing depends on is not given its
consumers, and a word that is a verb of the catalog is left as it is."""

from __future__ import annotations

from pathlib import Path

import pytest
from records_world import answer_names, descriptor, records_catalog, unread

from chainret.query.frames import second_verb


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database two components depend on, a library one depends on, an API a website calls."""
    return records_catalog(tmp_path_factory.mktemp("use") / "tree", [
        descriptor("Group", "search-team", "  members: [alice]\n", title="Search"),
        descriptor("Group", "platform", "  members: [chen]\n", title="Platform"),
        descriptor("User", "alice"), descriptor("User", "chen"),
        descriptor("Component", "search-service",
                   "  owner: search-team\n  providesApis: [search-api]\n  dependsOn: [resource:books-db, component:json-lib]\n"),
        descriptor("Component", "recs-worker", "  owner: platform\n  dependsOn: [resource:books-db]\n"),
        descriptor("Component", "web", "  owner: platform\n  consumesApis: [search-api]\n"),
        descriptor("Component", "json-lib", "  owner: platform\n"),
        descriptor("API", "search-api", "  owner: search-team\n"),
        descriptor("Resource", "books-db", "  owner: search-team\n"),
        descriptor("Resource", "spare-bucket", "  owner: platform\n"),
    ], {"CODEOWNERS": "* @acme/platform\n"})


@pytest.mark.parametrize(("words", "expected"), [
    ("what uses books-db", {"default.search-service", "default.recs-worker"}),
    ("which components use books-db", {"default.search-service", "default.recs-worker"}),
    ("what is using books-db", {"default.search-service", "default.recs-worker"}),
    ("everything that pulls in json-lib", {"default.search-service"}),
    ("which teams own the components that use books-db", {"default.search-team", "default.platform"}),
])
def test_what_uses_a_thing_is_what_depends_on_it(words: str, expected: set[str], world: Path) -> None:
    assert answer_names(words, world) == expected


@pytest.mark.parametrize(("words", "expected"), [
    # negative control: an API is used by its consumers, the first reading, never by what depends on it
    ("what uses the search api", {"default.web"}),
    ("which apis does web use", {"default.search-api"}),
])
def test_negative_control_an_api_is_used_by_its_consumers(words: str, expected: set[str], world: Path) -> None:
    assert answer_names(words, world) == expected


def test_negative_control_nothing_uses_a_thing_nothing_depends_on(world: Path) -> None:
    # "depends on" reads here, and says nothing depends on it: never an answer of another relation
    assert unread("what uses spare-bucket", world)
    assert unread("who uses the Search team", world)  # a group is neither called nor depended on


def test_the_words_put_hold_no_verb_of_the_table() -> None:
    assert second_verb("what uses X", {"depends", "on"}) == "what depends on X"
    assert second_verb("everything pulling in X", {"depends", "on"}) == "everything depending on X"
    # the catalog's own verb is left alone, and a catalog without "depends" gets nothing
    assert second_verb("what uses X", {"depends", "on", "uses"}) is None
    assert second_verb("what uses X", {"consumes"}) is None
    # a name's word is not a verb: "the use-case service", "the Used Cars site"
    assert second_verb("who owns the use-case service", {"depends"}) is None
    assert second_verb("who owns the Used Cars site", {"depends"}) is None
