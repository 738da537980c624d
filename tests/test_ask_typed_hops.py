"""A noun said in the middle of a chain keeps the hop to its types (issue 44): "which systems are Online Services'
components in" is what the team owns, of the components only, then their systems; where the team also owns an API in
another system, that system is no answer. The interpretation says so (``hop_types``), the engine keeps the paths
through the noun's types only, and the trace verifies. Each rule has a negative control beside it: a near wording that
stays unread, or a world where the answer differs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from records_world import answer_names, descriptor, records_catalog, unread

from chainret.pipeline.ask import ask
from chainret.query.nested import agreement_variants, lone_head
from chainret.verify.replay import verify

D = "default."


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A team ("Online Services") that owns a component, an API and a resource, each in a system of its own, the
    component and the resource each depending on a resource; another team owning a component only."""
    return records_catalog(tmp_path_factory.mktemp("typed") / "tree", [
        descriptor("Group", "platform", title="Online Services"),
        descriptor("Group", "tools", title="Build Tools"),
        descriptor("System", "online", "  owner: tools\n"),
        descriptor("System", "gateway", "  owner: tools\n"),
        descriptor("System", "storage", "  owner: tools\n"),
        descriptor("Component", "matchmaker", "  owner: platform\n  system: online\n  dependsOn: [resource:match-db]\n"),
        descriptor("API", "match-api", "  owner: platform\n  system: gateway\n"),
        descriptor("Resource", "profile-db", "  owner: platform\n  system: storage\n  dependsOn: [resource:backup-store]\n"),
        descriptor("Resource", "match-db", "  owner: tools\n"),
        descriptor("Resource", "backup-store", "  owner: tools\n"),
        descriptor("Component", "launcher", "  owner: tools\n  system: gateway\n  consumesApis: [match-api]\n"),
    ])


@pytest.mark.parametrize(("words", "expected"), [
    # the systems of the team's components: not the API's system, nor the resource's
    ("which systems are online services' components in", {D + "online"}),
    ("what systems are online services' components in", {D + "online"}),  # "what" for "which" before a head noun
    ("which system is online services's components part of", {D + "online"}),
    # what the team's components depend on: not what its resource depends on
    ("what do online services' components depend on", {D + "match-db"}),
    ("what resources do online services' components depend on", {D + "match-db"}),
    # the same noun over another type: what the team's resources depend on
    ("what do online services' resources depend on", {D + "backup-store"}),
    ("which systems are online services' apis in", {D + "gateway"}),
])
def test_a_noun_mid_chain_keeps_the_hop_to_its_types(world: Path, words: str, expected: set[str]) -> None:
    assert answer_names(words, world) == expected


def test_the_interpretation_says_which_hop_is_typed_and_the_trace_verifies(world: Path) -> None:
    trace = ask("which systems are online services' components in", world)
    assert trace.interpretation is not None and trace.interpretation.hop_types == [["component"], []]
    assert trace.interpretation.predicates == ["owner_of", "part_of"]
    assert verify(trace, world).ok
    assert json.loads(trace.to_json())["interpretation"]["hop_types"] == [["component"], []]


def test_a_hop_whose_next_relation_takes_only_the_nouns_type_is_not_typed(world: Path) -> None:
    """"which apis do X's components consume": only a component consumes, so the hop says nothing more (and a reading
    typed and one not typed are one reading, never two that disagree)."""
    trace = ask("which apis do online services' components consume", world)
    assert trace.outcome != "accepted_path" or not trace.interpretation or not trace.interpretation.hop_types
    literal = ask("which system is matchmaker part of", world)
    assert literal.interpretation is not None and "hop_types" not in json.loads(literal.to_json())["interpretation"]


@pytest.mark.parametrize("words", [
    "which systems are online services' core components in",  # a word more in the head's part of the phrase
    "what provides call components that online services owns",  # a verb before the head noun, then a clause
    "which systems are online services' widgets in",  # a head noun of no type of the catalog
])
def test_a_head_noun_said_with_other_words_is_not_typed(world: Path, words: str) -> None:
    assert unread(words, world)


def test_lone_head() -> None:
    assert lone_head("Client Tech's components") and lone_head("the APIs that X owns") and lone_head("components X owns")
    assert not lone_head("Client Tech's core components") and not lone_head("call APIs that X owns")
    assert not lone_head("matchmaker")  # a name: no head noun at all


def test_the_head_noun_agrees_with_its_verb() -> None:
    vocab = {"is", "in", "system"}
    assert "which system is X's components in" in agreement_variants("which systems are X's components in", vocab)
    assert agreement_variants("which system is X in", vocab) == []  # already the phrasings' number


def test_without_the_rule_the_mixed_hop_is_refused(world: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The negative control: with no noun said alone, the hop over what the team owns (three types) is not taken."""
    from chainret.query import nested as nested_mod

    monkeypatch.setattr(nested_mod, "lone_head", lambda slot: False)
    assert unread("which systems are online services' components in", world)


def test_without_the_engine_keeping_the_typed_paths_the_answer_would_be_wider(world: Path, monkeypatch: pytest.MonkeyPatch
                                                                               ) -> None:
    """The negative control of the engine's part: every path kept, the API's and the resource's systems come too."""
    from chainret.pipeline import ask as ask_mod

    monkeypatch.setattr(ask_mod, "typed_paths", lambda paths, interp, cv: paths)
    trace = ask("which systems are online services' components in", world)
    assert {a.id.rpartition(".")[2] for a in trace.answers or []} == {"online", "gateway", "storage"}
