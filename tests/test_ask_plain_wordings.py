"""Requests that say a verb through a longer construction (issue 44), each read as the plain question it stands for:
the verb said through its noun (*has ownership of*, *makes use of*), a frame of record (*is recorded as belonging to*,
*the designated owner of*), a duty (*is responsible for reviewing*), a longer preposition (*is contained in*, *within
which domain does X fall*), an instruction to list before a noun phrase, frames said one inside the next (*sit within* a
department: *are under* it), a review asked for as a noun, what a thing needs (what it depends on), *hit* for calling an
API, a topic fronted before a question whose pronoun points back at it (*X - which team is he on*), a coverage ask led
by *who*, and a GitHub team called by its handle's last part (*the telehealth github team* for *@acme/telehealth*).
Each construction has a near wording beside it that must stay unread (a word the rule does not list), or the
rule switched off."""

from __future__ import annotations

from pathlib import Path

import pytest
from records_world import answer_names, descriptor, records_catalog, unread, user

from chainret.pipeline.ask import ask
from chainret.query import frames as frames_mod
from chainret.query import interpret as interpret_mod
from chainret.query.frames import plain_wordings
from chainret.query.lacks import reframe
from chainret.query.understand import topic_variants

D = "default."


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A department with two teams under it (one holds Leo's colleague Tom, one Ada and Tom), Leo on no team, a domain with
    a system that holds a component and an API, components that consume an API and depend on a resource, and a CODEOWNERS
    file whose rule names a team and a person."""
    return records_catalog(tmp_path_factory.mktemp("plain") / "tree", [
        descriptor("Group", "clinical", "  children: [records, telehealth]\n", title="Clinical Systems"),
        descriptor("Group", "records", "  parent: clinical\n  members: [ada-lovelace, tom-becker]\n", title="Revenue Cycle"),
        descriptor("Group", "telehealth", "  parent: clinical\n  members: [tom-becker]\n", title="Telehealth"),
        user("ada-lovelace", "Ada Lovelace"), user("tom-becker", "Tom Becker"), user("leo-grant", "Leo Grant"),
        descriptor("Domain", "care", "  owner: clinical\n"),
        descriptor("System", "billing", "  owner: records\n  domain: care\n", title="Patient Billing"),
        descriptor("API", "video-api", "  owner: telehealth\n", title="Video API"),
        descriptor("API", "claims-api", "  owner: records\n  system: billing\n"),
        descriptor("Resource", "store", "  owner: records\n"),
        descriptor("Component", "farm", "  owner: user:tom-becker\n  system: billing\n  dependsOn: [resource:store]\n"
                   "  providesApis: [claims-api]\n", title="Build Farm"),
        descriptor("Component", "builder", "  owner: telehealth\n  consumesApis: [video-api, claims-api]\n",
                   title="Roster Builder"),
    ], files={"lab/map.py": "x\n", "CODEOWNERS": "/lab/ @acme/telehealth @tom-becker\n"})


FILES = {"lab-map.py-5707e772"}  # (a path ID ends in a digest of the path)
CODE_OWNERS = {"team.acme.telehealth", "user.tom-becker"}


@pytest.mark.parametrize(("words", "expected"), [
    # the verb said through its noun
    ("Which team has ownership of the Video API?", {D + "telehealth"}),
    ("Which APIs does the Roster Builder make use of?", {D + "video-api", D + "claims-api"}),
    # a frame of record around the verb, an adjective of record before the relation noun
    ("Who is recorded as belonging to Revenue Cycle?", {D + "ada-lovelace", D + "tom-becker"}),
    ("Who is the designated owner of the Build Farm?", {D + "tom-becker"}),
    # a longer preposition; the preposition fronted before its question word
    ("What is contained in the Patient Billing system?", {D + "farm", D + "claims-api"}),
    ("Within which domain does the Patient Billing system fall?", {D + "care"}),
    # two frames, one inside the next: "sit within" is "are within", a group within a group is under it
    ("Which teams sit within the Clinical Systems department?", {D + "records", D + "telehealth"}),
    # an instruction to list before a noun phrase, with and without politeness
    ("Please list the members of the Revenue Cycle team.", {D + "ada-lovelace", D + "tom-becker"}),
    ("could you list the members of Telehealth", {D + "tom-becker"}),
    # a duty: the subject asked for, and the object
    ("Which code owner is responsible for reviewing changes to lab/map.py?", CODE_OWNERS),
    ("Which files is Tom Becker responsible for reviewing as a code owner?", FILES),
    # a review asked for as a noun (no contact asked about it)
    ("who do i ask for a review on lab/map.py", CODE_OWNERS),
    # what a thing needs, with and without its purpose
    ("what does the build farm need in order to run", {D + "store"}),
    ("what does the build farm need", {D + "store"}),
    # "hit" for calling an API, and a topic fronted with a pronoun pointing back at it
    ("roster builder - what apis does it hit", {D + "video-api", D + "claims-api"}),
    ("ada lovelace - which team is she on", {D + "records"}),
    ("tom becker: which teams is he on", {D + "records", D + "telehealth"}),
    # a coverage ask led by the question word
    ("who is on no team", {D + "leo-grant"}),
    # a GitHub team called by its handle's last part and a team word
    ("which files does the telehealth github team review", FILES),
    ("which files does the telehealth team review", FILES),
])
def test_a_longer_construction_reads_as_the_plain_question(world: Path, words: str, expected: set[str]) -> None:
    assert answer_names(words, world) == expected


@pytest.mark.parametrize("words", [
    "Which team has custody of the Video API?",  # "custody" is no noun of a listed verb
    "Which APIs does the Roster Builder make fun of?",
    "Who is recorded as leaving Revenue Cycle?",  # a verb the catalog does not have
    "Who is the former owner of the Build Farm?",  # "former" says another time, not a record of the owner
    "What is missing in the Patient Billing system?",
    "Within which domain does the Patient Billing system end?",  # no verb of sitting
    "Please list the ex-members of the Revenue Cycle team.",
    "Which code owner is responsible for deleting changes to lab/map.py?",  # no verb of the catalog
    "Which files is Tom Becker responsible for reviewing as a manager?",  # a role that is no code owner's
    "who do i ask for a refund on the weather",  # no path, no entity
    "what does the build farm need in order to be sold",  # no purpose listed
    "roster builder - what apis does it fix",  # "fix" is no verb for calling
    "ada lovelace - which team is bob on",  # the pronoun is not said: "bob" names nobody
    "who is on no system",  # no lack a person has
    "which files does the revenue cycle team review",  # a team of the catalog with no GitHub team in CODEOWNERS
    "which files does the telehealth github review",  # no team word after the handle's last part
])
def test_near_wordings_stay_unread(world: Path, words: str) -> None:
    assert unread(words, world)


def test_frames_one_inside_the_next_only_by_the_rule(world: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(frames_mod, "FRAMES_CHAINED", 1)  # the negative control: one frame only
    assert unread("Which teams sit within the Clinical Systems department?", world)


def test_the_plain_wordings() -> None:
    assert plain_wordings("Which team has ownership of X?") == ["Which team owns X"]
    assert plain_wordings("Who is recorded as belonging to X?") == ["Who is belonging to X"]
    assert "Which files does T review" in plain_wordings("Which files is T responsible for reviewing as a code owner?")
    assert plain_wordings("Which team owns X?") == []  # nothing said through a longer construction
    # a topic is put in only where a pronoun points back at it; the topic said after the question is another route's
    assert topic_variants("joe finch - which team is he on", pointed=True) == [("which team is joe finch on", "joe finch")]
    assert topic_variants("joe finch - which team is bob on", pointed=True) == []
    assert topic_variants("joe finch - which team is bob on") == [("which team is bob on for joe finch", "joe finch")]


def test_two_github_teams_of_one_slug_are_refused_with_both(tmp_path: Path) -> None:
    """"The web team" where CODEOWNERS names @acme/web and @other/web names neither: refused with both, never a pick;
    the full handle still reads (the negative control)."""
    cat = records_catalog(tmp_path / "tree", [descriptor("Group", "web")],
                          files={"a/x.py": "x\n", "b/y.py": "y\n", "CODEOWNERS": "/a/ @acme/web\n/b/ @other/web\n"})
    trace = ask("which files does the web team review", cat)
    assert trace.outcome == "refused" and trace.reason is not None and trace.reason.code == "ambiguous_alias"
    assert {c["id"].rpartition(":")[2] for c in trace.reason.details["candidates"]} == {"team.acme.web", "team.other.web"}
    assert {n.split("-")[0] for n in answer_names("which files does @other/web review", cat)} == {"b"}


def test_a_relative_clause_said_in_a_frame_reads_as_the_frame_does(world: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """"the teams that Tom Becker belongs to": the inner question "which teams does Tom Becker belong to" is a frame's
    ("which teams is Tom Becker in"), read inside a composed chain as at the top. Without the frame there, unread."""
    words = "Which APIs are owned by the teams that Tom Becker belongs to?"
    assert answer_names(words, world) == {D + "video-api", D + "claims-api"}
    monkeypatch.setattr(interpret_mod, "_inner", lambda question, cv, depth: interpret_mod.interpret(question, cv, depth=depth))
    assert unread(words, world)  # the negative control


def test_who_leads_a_coverage_ask_only_of_a_persons_lack() -> None:
    """"who is on no team" is the people on none; "who owns nothing" names no one type (teams own things too), so the
    question word is no subject there (the negative control), nor of a lack people never have."""
    assert reframe("who is on no team") == reframe("who is not on any team") == "people not on any team"
    assert reframe("who owns nothing") is None
    assert reframe("who has no owner") is None


@pytest.mark.parametrize(("words", "expected"), [
    ("list all the APIs Revenue Cycle owns", {D + "claims-api"}),
    ("list the systems Revenue Cycle owns", {D + "billing"}),
])
def test_an_instruction_to_list_keeps_the_head_noun_of_what_it_lists(world: Path, words: str, expected: set[str]) -> None:
    """The noun phrase after "list" types the answers: "list all the APIs X owns" is X's APIs, never all it owns (a
    frame read the words after the instruction as "what does X own" and answered everything)."""
    assert answer_names(words, world) == expected
    assert len(answer_names("what does Revenue Cycle own", world)) == 3  # the control: what the head noun narrows
