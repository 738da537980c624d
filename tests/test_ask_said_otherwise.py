"""Requests worded the way people word them, continued (issue 44): an absence and a presence joined by *but* (*teams
that have nobody but still own things*, in either order and with *with X but no Y*), *empty* teams, the question word said
last (*X is owned by who?*, *X sits under which team?*), groups said to be *in* a group (*the teams in publishing*,
*which department is X in*), a free relative as a slot (*who owns what X depends on*), *the code owners for P* where P
is a path, a frame whose words hold an everyday noun of a name (*who works on online services*), and a typo that is a
whole short word more than a name (never read as the name). Each rule has a negative control beside it: a near wording
that stays unread or reads otherwise, or the rule switched off."""

from __future__ import annotations

from pathlib import Path

import pytest
from records_world import answer_names, descriptor, records_catalog, unread, user

from chainret.pipeline.ask import ask
from chainret.query import understand as understand_mod
from chainret.query.gaps import read_contrast_request

D = "default."


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A department with two teams under it (one nobody is on), a team with members that owns nothing, a team nobody is
    on that owns a resource, a person on no team, components with and without owners in one system, an empty system,
    and a CODEOWNERS file."""
    return records_catalog(tmp_path_factory.mktemp("said") / "tree", [
        descriptor("Group", "publishing", "  children: [analytics, localization]\n  members: [gwen-hall]\n",
                   title="Publishing"),
        descriptor("Group", "analytics", "  parent: publishing\n  members: [amara-nwosu]\n", title="Analytics"),
        descriptor("Group", "localization", "  parent: publishing\n", title="Localization"),
        descriptor("Group", "online", "  children: [netcode]\n  members: [kenji-watanabe, olu-adeyemi]\n",
                   title="Online Services"),
        descriptor("Group", "netcode", "  parent: online\n", title="Netcode Working Group"),
        descriptor("Group", "qa", "  members: [bo-lindqvist]\n", title="Quality Assurance"),
        user("gwen-hall", "Gwen Hall"), user("amara-nwosu", "Amara Nwosu"), user("kenji-watanabe", "Kenji Watanabe"),
        user("olu-adeyemi", "Olu Adeyemi"), user("bo-lindqvist", "Bo Lindqvist"), user("yusuf-demir", "Yusuf Demir"),
        descriptor("Domain", "live-game", "  owner: qa\n"),
        descriptor("System", "game", "  owner: online\n  domain: live-game\n", title="Game Client"),
        descriptor("System", "esports", "  owner: analytics\n"),
        descriptor("API", "match-api", "  owner: online\n  system: game\n"),
        descriptor("API", "crash-api", "  owner: analytics\n  system: game\n"),
        descriptor("Resource", "match-db", "  owner: online\n"),
        descriptor("Resource", "relay-fleet", "  owner: netcode\n"),
        descriptor("Component", "matchmaker", "  owner: online\n  system: game\n  providesApis: [match-api]\n"
                   "  dependsOn: [resource:match-db]\n"),
        descriptor("Component", "launcher", "  owner: analytics\n  system: game\n  consumesApis: [match-api]\n"),
        descriptor("Component", "crash-reporter", "  system: game\n  providesApis: [crash-api]\n"),
        descriptor("Component", "mod-uploader", "  system: game\n"),
    ], files={"client/ui/hud.cpp": "x\n", "CODEOWNERS": "* @acme/online\n/client/ @acme/analytics @amara-nwosu\n"})


# -- an absence and a presence ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("words", "expected"), [
    ("groups that have nobody but still own things", {D + "netcode"}),
    ("which teams own things but have no members", {D + "netcode"}),
    ("which teams have no members but own something", {D + "netcode"}),
    ("which teams own nothing but have members", {D + "publishing"}),
    ("components that have no owner but provide an api", {D + "crash-reporter"}),
    ("which teams are empty", {D + "localization", D + "netcode"}),
    ("teams that have nobody", {D + "localization", D + "netcode"}),
    # the contrast said by a clause of "still"
    ("are there teams with nobody on them that still own something", {D + "netcode"}),
    ("teams that own nothing and still have members", {D + "publishing"}),
])
def test_an_absence_and_a_presence(world: Path, words: str, expected: set[str]) -> None:
    assert answer_names(words, world) == expected


def test_a_presence_is_proved_by_its_relations(world: Path) -> None:
    trace = ask("groups that have nobody but still own things", world)
    section = trace.meta["coverage"]
    assert section["kind"] == "without_but_with" and section["denied"]["predicate"]
    (row,) = section["rows"]
    assert any("relay-fleet" in c["text"] or "owner" in c["text"] for c in row["cites"][1:])  # the owning relation


@pytest.mark.parametrize("words", [
    "teams that own stuff but also own nothing",  # one relation said twice: no second half
    "groups that have nobody but still frobnicate things",  # a verb the catalog has no word for
    "groups with nobody on them that still frobnicate things",
    "teams that have nobody but the weather",  # no presence
])
def test_contrasts_that_are_not_two_relations_stayunread(world: Path, words: str) -> None:
    assert unread(words, world)


@pytest.mark.parametrize(("words", "expected"), [
    ("which components have no team assigned", {D + "crash-reporter", D + "mod-uploader"}),
    ("which teams don't have any people", {D + "localization", D + "netcode"}),
    ("users that aren't members of a team", {D + "yusuf-demir"}),
    ("apis that aren't consumed", {D + "crash-api"}),
    ("which apis are never used", {D + "crash-api"}),
    ("which apis have zero consumers", {D + "crash-api"}),
    ("which resources have nothing depending on them", {D + "relay-fleet"}),
    ("which systems contain no components", {D + "esports"}),
    ("which systems are empty", {D + "esports"}),
    ("are there any empty systems", {D + "esports"}),  # the adjective before its noun
])
def test_more_absences_in_people_words(world: Path, words: str, expected: set[str]) -> None:
    assert answer_names(words, world) == expected


@pytest.mark.parametrize("words", [
    "which components are never frobnicated",  # a participle of no catalog verb
    "which teams are not owned",  # no relation owns a team
    "which users contain no components",  # nothing holds what a user is in
])
def test_near_absences_stayunread(world: Path, words: str) -> None:
    assert unread(words, world)


def test_the_contrast_grammar_needs_but() -> None:
    assert read_contrast_request("teams that have nobody and own stuff") is None
    assert read_contrast_request("teams that have nobody and still own stuff") is not None  # "still" says the contrast
    assert read_contrast_request("groups that have nobody but still own things") is not None


# -- the question word said last, groups in a group, a free relative, code owners for a path --------------------------
@pytest.mark.parametrize(("words", "expected"), [
    ("the matchmaker is owned by who?", {D + "online"}),
    ("the netcode working group sits under which team?", {D + "online"}),
    ("the launcher is part of which system", {D + "game"}),
    ("which department is analytics in", {D + "publishing"}),
    ("which team is kenji watanabe in", {D + "online"}),  # a person in a team: the membership, as before
    ("what do the teams in publishing own", {D + "launcher", D + "crash-api", D + "esports"}),
    ("who is in the teams in publishing", {D + "amara-nwosu"}),
    ("who owns what the matchmaker depends on", {D + "online"}),
    ("who works on online services", {D + "kenji-watanabe", D + "olu-adeyemi"}),
    ("who are the code owners for client/ui/hud.cpp", {"team.acme.analytics", "user.amara-nwosu"}),
    ("what domain does the game client system sit in", {D + "live-game"}),
])
def test_wordings_read_as_the_question_they_stand_for(world: Path, words: str, expected: set[str]) -> None:
    assert answer_names(words, world) == expected


# -- two hops over a set, said otherwise ----------------------------------------------------------------------------
@pytest.mark.parametrize(("words", "expected"), [
    ("everyone on publishing's sub-teams", {D + "amara-nwosu"}),  # a plural possessive head: "what are X's subgroups"
    ("who is on publishing's subgroups", {D + "amara-nwosu"}),
    ("list everyone in online services", {D + "kenji-watanabe", D + "olu-adeyemi"}),
    ("who owns the components consuming the match api", {D + "analytics"}),  # a modifier in -ing
    ("who is on the team that owns the component providing the match api", {D + "kenji-watanabe", D + "olu-adeyemi"}),
    # a possessive inside a participle's agent: the APIs are the head, not the components
    ("apis consumed by analytics's components", {D + "match-api"}),
    ("whose components call the match-api", {D + "analytics"}),
    ("which teams own something that consumes the match api", {D + "analytics"}),  # "something" as a head of no type
])
def test_two_hops_over_a_set_said_otherwise(world: Path, words: str, expected: set[str]) -> None:
    assert answer_names(words, world) == expected


@pytest.mark.parametrize("words", [
    "who owns the components frobnicating the match api",  # a modifier of no catalog verb
    "who is on the team that owns the component frobnicating the match api",
    "apis frobnicated by analytics's components",
    "whose components frobnicate the match-api",
    "everyone on the weather",
])
def test_near_set_wordings_stayunread(world: Path, words: str) -> None:
    assert unread(words, world)


@pytest.mark.parametrize("words", [
    "the matchmaker is frobnicated by who",  # a participle of no catalog verb
    "who are the code owners for the matchmaker",  # "for" a thing that is no path (read a test half's question wrongly)
    "who owns what",  # a free relative with nothing in it
    "the teams in publishing are owned by who",  # the fronted question's slot is a set of groups, which nobody owns
])
def test_near_wordings_stayunread(world: Path, words: str) -> None:
    assert unread(words, world)


@pytest.mark.parametrize("words", ["which codeowners line covers client/ui/hud.cpp", "which codeowners entry matches client/ui/hud.cpp"])
def test_a_codeowners_line_is_its_rule(world: Path, words: str) -> None:
    (rule,) = answer_names(words, world)
    assert rule.startswith("client")
    assert unread(words.replace("client/ui/hud.cpp", "the weather"), world)


# -- a typo that is a whole word more ----------------------------------------------------------------------------------
def test_a_short_word_more_is_no_typo_of_a_name(world: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """"the components of online services in": "in" is within the typo bound of "Online Services", and read as one the
    question answered with everything Online Services owns (its "systems ... in" dropped); it now reads as the systems of
    the components it owns (a typed hop: tests/test_ask_typed_hops.py). The negative control: the guard off, the wrong
    answer comes back."""
    assert answer_names("what systems are the components of online services in", world) == {D + "game"}
    words = "what does online services in own"  # the word more, with no reading of its own to take it
    assert unread(words, world)
    assert answer_names("who is on online servces", world) == {D + "kenji-watanabe", D + "olu-adeyemi"}  # a real typo still reads
    monkeypatch.setattr(understand_mod, "_word_more", lambda *a: False)
    assert D + "matchmaker" in answer_names(words, world)


def test_a_head_noun_that_runs_to_the_end_is_no_crash(world: Path) -> None:
    """"which apis nothing calls" left the question grammar looking for a verb after the head noun's last word."""
    assert answer_names("which apis nothing calls", world) == {D + "crash-api"}


# -- a head noun over a mixed set: the answers of its type ------------------------------------------------------------
@pytest.mark.parametrize(("words", "expected"), [
    ("which components does online services own", {D + "matchmaker"}),
    ("what apis does online services own", {D + "match-api"}),
    ("what components are part of the game system", {D + "matchmaker", D + "launcher", D + "crash-reporter",
                                                      D + "mod-uploader"}),
    ("which components are owned by kenji watanabe's teams", {D + "matchmaker"}),
])
def test_a_head_noun_keeps_the_answers_of_its_type(world: Path, words: str, expected: set[str]) -> None:
    trace = ask(words, world)
    assert answer_names(words, world) == expected
    assert trace.interpretation is not None and trace.interpretation.answer_types
    assert trace.completeness is not None and trace.completeness.complete
    assert trace.completeness.eligible == trace.completeness.answered == len(expected)  # counted over the type


@pytest.mark.parametrize("words", [
    "which users does online services own",  # a type the chain never ends at
    "which teams does online services own",
    "which domains does online services own",  # a type it may end at, of which it owns none
])
def test_a_head_noun_of_no_answer_staysunread(world: Path, words: str) -> None:
    assert unread(words, world)


def test_without_the_filter_a_mixed_set_is_refused(world: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The negative control: without the head noun's types kept, the reading is not taken (never the mixed set shown as
    components)."""
    from chainret.query import interpret as interpret_mod

    monkeypatch.setattr(interpret_mod, "_head_among", lambda *a: [])
    assert unread("which components does online services own", world)


def test_a_literal_reading_carries_no_answer_types(world: Path) -> None:
    trace = ask("what does online services own", world)
    assert trace.interpretation is not None and not trace.interpretation.answer_types
    assert "answer_types" not in trace.to_json()
