"""A coverage ask read by its parts (issue 44, ``chainret.query.lacks``): [lead] [subject] [lack] [tail], each from its
own closed list, so every combination reads, not only the sentences someone wrote down. The property: the cross product
of several leads, subject phrasings, lack phrasings and tails reads as one coverage section; the controls beside it:
near misses that say more or something else (a lack phrase with a clause added, another relation, a positive without
"every", a kind of component the records do not keep) stay unread or read as another section, and a world where the
answer differs gives the other answer."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from records_world import answer_names, descriptor, records_catalog, unread, user

from chainret.pipeline.ask import ask
from chainret.query.gaps import read_absence_request, read_gap_request
from chainret.query.lacks import reframe

D = "default."

LEADS = ("", "which", "list all", "show me the", "are there any", "could you tell me which", "please identify",
         "i need a list of", "find")
TAILS = ("", "in the catalog", "right now", "at the moment", "please", "yet", "thanks", "at all")
OWNED_SUBJECTS = ("components", "services", "svcs")
OWNER_LACKS = ("have no owner", "without an owner", "with no owner", "lacking an owner", "missing an owner",
               "that nobody owns", "that no team owns", "not owned by anyone", "that don't have an owner",
               "that have zero owners", "that are not assigned to any team", "that do not have a single owner",
               "nobody owns", "that are unowned", "that have no owning team", "that belong to no team")
GROUP_SUBJECTS = ("teams", "squads", "groups")
MEMBER_LACKS = ("have no members", "with nobody on them", "that nobody is on", "without any members",
                "that don't have anyone in them", "that have zero people", "that are empty", "with no one in them")
PEOPLE_SUBJECTS = ("users", "people", "engineers", "folks")
TEAM_LACKS = ("not on any team", "that are in no team", "without a team", "that don't belong to any team",
              "that have no team", "who aren't part of a team")


def _phrasings(subjects: tuple[str, ...], lacks: tuple[str, ...]) -> list[str]:
    return [" ".join(w for w in (lead, s, lack, tail) if w)
            for lead, s, lack, tail in itertools.product(LEADS, subjects, lacks, TAILS)]


def test_every_combination_of_the_parts_reads_as_the_one_section() -> None:
    owner = {read_gap_request(w) for w in _phrasings(OWNED_SUBJECTS, OWNER_LACKS)}
    assert len(owner) == 1 and next(iter(owner)).kind == "no_owner"
    assert next(iter(owner)).types == ("component",)
    members = {read_gap_request(w) for w in _phrasings(GROUP_SUBJECTS, MEMBER_LACKS)}
    assert {m.kind if m else None for m in members} == {"groups_without_members"}
    people = {read_absence_request(w) for w in _phrasings(PEOPLE_SUBJECTS, TEAM_LACKS)}
    assert people == {read_absence_request("which people are not on any team")} and None not in people


@pytest.mark.parametrize("words", [
    # the question about every member: its answer is those for which it does not hold
    "does every component have an owner", "do all services have owners", "are all components owned",
    "is every svc owned by a team",
])
def test_a_question_about_every_member_reads_as_the_lack_it_denies(words: str) -> None:
    assert reframe(words) == "components have no owner"


@pytest.mark.parametrize("words", [
    "which components have no owner and use the billing api",  # says more than the lack
    "which components have no owner except the portal",
    "which components have no owner or no system",
    "does every component have an owner and a system",
    "which components have an owner",  # a positive without "every" asks for those that have one
    "which teams have members",
    "which people are on a team",
    "which components have no owner in 2020 or later",
])
def test_a_near_miss_reads_as_no_coverage_section(words: str) -> None:
    assert reframe(words) not in {"components have no owner", "teams have no members", "people not on any team"}
    assert read_gap_request(words) is None and read_absence_request(words) is None


def test_another_relation_is_not_read_as_the_owner_section() -> None:
    assert reframe("which services have no system") == "components that have no system"
    assert read_gap_request("which services have no system") is None  # the relation grammar's, not the owner report's


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two teams (one nobody is on), two people (one on no team), three components (one unowned, one of a team), and an
    API nobody consumes."""
    return records_catalog(tmp_path_factory.mktemp("parts") / "tree", [
        descriptor("Group", "core", "  members: [ana]\n", title="Core"),
        descriptor("Group", "ghost", "", title="Ghost Squad"),
        user("ana", "Ana Lima"), user("bo", "Bo Berg"),
        descriptor("Component", "api-gw", "  owner: core\n  consumesApis: [reads-api]\n"),
        descriptor("Component", "worker", "  owner: ghost\n"),
        descriptor("Component", "updater", ""),
        descriptor("API", "reads-api", "  owner: core\n"),
        descriptor("API", "paper-api", "  owner: core\n"),
    ])


@pytest.mark.parametrize(("words", "expected"), [
    ("could you tell me which svcs are missing an owner right now", {D + "updater"}),
    ("does every component have an owner", {D + "updater"}),
    ("are there any services that nobody owns yet", {D + "updater"}),
    ("please identify squads with nobody on them, thanks", {D + "ghost"}),
    ("does every team have members", {D + "ghost"}),
    ("which engineers don't belong to any team", {D + "bo"}),
    ("is everyone on a team", {D + "bo"}),
    ("which apis are consumed by nobody", {D + "paper-api"}),
    ("do all apis have consumers", {D + "paper-api"}),
    ("which services have zero dependencies", {D + "api-gw", D + "worker", D + "updater"}),
])
def test_the_parts_read_on_a_world_give_the_section_rows(world: Path, words: str, expected: set[str]) -> None:
    assert answer_names(words, world) == expected


def test_the_rows_differ_where_the_world_does(world: Path) -> None:
    # the owner section and the members section of one world: the same parts, another lack, another answer
    assert answer_names("svcs without an owner", world) != answer_names("squads without any members", world)
    trace = ask("could you tell me which svcs are missing an owner right now", world)
    assert trace.meta["coverage"]["kind"] == "no_owner"


@pytest.mark.parametrize("words", [
    "which services have no owner and consume the reads api",
    "does every component have an owner and a system",
    # a noun the catalog has no type for (the relation grammar reads any noun; the catalog refuses it): a kind of
    # component the records do not keep, and no kind at all
    "which websites have no owner", "which libraries have no owner", "which repos have no owner",
])
def test_a_near_miss_on_the_world_stays_unread(world: Path, words: str) -> None:
    assert unread(words, world)


def _code_world(root: Path, catch_all: bool) -> Path:
    """One team, a rule of no owners over vendor/, and (or not) a catch-all rule before it: without one, docs/c.md is
    matched by no rule."""
    rules = ("* @acme/core\n" if catch_all else "/src/ @acme/core\n") + "/vendor/\n"
    return records_catalog(root / "tree", [descriptor("Group", "core", "  members: [ana]\n"), user("ana", "Ana Lima")],
                           files={"CODEOWNERS": rules, "src/a.py": "x\n", "vendor/b.py": "x\n", "docs/c.md": "x\n"})


def test_the_files_of_no_owner_are_the_files_not_the_rules(tmp_path: Path) -> None:
    """"which files have no owner" answers the files (under a rule of no owner, or matched by none); "which rules have
    no owners" the rules (the control: the same world, the other noun)."""
    covered = _code_world(tmp_path / "all", catch_all=True)
    files = answer_names("which files have no owner", covered)
    assert [n.rpartition("-")[0] for n in files] == ["vendor-b.py"] and answer_names("unowned paths", covered) == files
    assert [n.rpartition("-")[0] for n in answer_names("which codeowners rules have no owners", covered)] == ["vendor"]
    # a folder is a rule's pattern: folders with no owner are the rules of none, not the files under them
    assert answer_names("which folders have no owner", covered) == answer_names("which codeowners rules have no owners", covered)
    partial = _code_world(tmp_path / "some", catch_all=False)
    files = {n.rpartition("-")[0] for n in answer_names("which files have no owner", partial)}
    assert {"vendor-b.py", "docs-c.md", "codeowners"} <= files and not any(f.startswith("src") for f in files)


@pytest.fixture(scope="module")
def formal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A team with people that owns things, one nobody is on that owns a component, one with people that owns nothing,
    a person on no team, an unowned component and API, a component owned by a team nobody declares, an API nobody
    provides or consumes, an empty system and a resource nothing depends on."""
    return records_catalog(tmp_path_factory.mktemp("formal") / "tree", [
        descriptor("Group", "core", "  members: [ana]\n", title="Core"),
        descriptor("Group", "ghost", "", title="Ghost Squad"),
        descriptor("Group", "idle", "  members: [cy]\n", title="Idle Team"),
        user("ana", "Ana Lima"), user("bo", "Bo Berg"), user("cy", "Cy Dunn"),
        descriptor("System", "plant", "  owner: core\n"), descriptor("System", "spare", "  owner: core\n"),
        descriptor("Resource", "db", "  owner: core\n"), descriptor("Resource", "archive", "  owner: core\n"),
        descriptor("Component", "api-gw", "  owner: core\n  system: plant\n  providesApis: [reads-api]\n  dependsOn: [resource:db]\n"),
        descriptor("Component", "worker", "  owner: ghost\n  system: plant\n  consumesApis: [reads-api]\n"),
        descriptor("Component", "fax", "  owner: vendor\n  system: plant\n  consumesApis: [reads-api]\n"),
        descriptor("Component", "updater", "  system: plant\n"),
        descriptor("API", "reads-api", "  owner: core\n"), descriptor("API", "paper-api", "  owner: core\n"),
        descriptor("API", "lonely-api", ""),
    ])


@pytest.mark.parametrize(("words", "expected"), [
    ("anything w/o an owner?", {D + "updater", D + "lonely-api"}),
    ("Which components lacked an owner?", {D + "updater"}),
    # two type nouns joined: the section of both
    ("show me the unowned components and apis", {D + "updater", D + "lonely-api"}),
    # a presence said with "with", the absence as a clause; "nonetheless" for "but still"; "but do not"
    ("is there a team with people on it that owns nothing", {D + "idle"}),
    ("Which teams with no members nonetheless own something?", {D + "ghost"}),
    ("Which teams have members but do not own any component?", {D + "idle"}),
    # "neither ... nor" without its relative pronoun
    ("Which components neither provide nor consume any API?", {D + "updater"}),
    # an owner as the records name it, and a component "assigned to" it
    ("Are there any owner references that point to a team which does not exist in the catalog?", {D + "vendor"}),
    ("Which components are assigned to an owner that is not defined in Backstage?", {D + "fax"}),
    # "interface" for API, and a question about each member with its quantifier as the determiner
    ("Which interfaces are not consumed by any component?", {D + "paper-api", D + "lonely-api"}),
    ("Is it the case that each interface is used by at least one component?", {D + "paper-api", D + "lonely-api"}),
    ("Which team owns the reads interface?", {D + "core"}),
    # a team has what it owns; the preposition fronted; "contain nothing"
    ("teams that haven't got any components?", {D + "idle"}),
    ("Please list the resources on which no component depends.", {D + "archive"}),
    ("Are there any systems that contain nothing?", {D + "spare"}),
    # people in two words, and placed on no team
    ("Which staff members do not belong to any team?", {D + "bo"}),
    ("Is there any person in the directory who has not been placed on a team?", {D + "bo"}),
    ("Could you tell me whether every system component has a designated owner?", {D + "updater"}),
])
def test_a_formal_or_clipped_wording_reads_by_its_parts(formal: Path, words: str, expected: set[str]) -> None:
    assert answer_names(words, formal) == expected


@pytest.mark.parametrize("words", [
    "show me the unowned components and the portal",  # the second noun names no type
    "anything w/o an owner and a system",
    "is there a team with people on it that owns the plant system",  # the clause is no absence
    "Which components neither provide",
    "Which team owns the reads interface engine",  # no such API
    "which teams with no members nonetheless",
])
def test_a_near_miss_of_those_wordings_stays_unread(formal: Path, words: str) -> None:
    assert unread(words, formal)


@pytest.fixture(scope="module")
def lacks_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four teams, one of each: with people that own something (core), with nobody that owns something (ghost), with
    people that own nothing (idle), with nobody that owns nothing (void); an API consumed and one that is not."""
    return records_catalog(tmp_path_factory.mktemp("both") / "tree", [
        descriptor("Group", "core", "  members: [ana]\n"), descriptor("Group", "ghost", ""),
        descriptor("Group", "idle", "  members: [cy]\n"), descriptor("Group", "void", ""),
        user("ana", "Ana Lima"), user("cy", "Cy Dunn"),
        descriptor("Component", "gw", "  owner: core\n  consumesApis: [reads-api]\n"),
        descriptor("Component", "worker", "  owner: ghost\n"),
        descriptor("API", "reads-api", "  owner: core\n"), descriptor("API", "paper-api", "  owner: core\n"),
    ])


@pytest.mark.parametrize("words", [
    "which groups have no members and own nothing", "which teams own nothing and have no members",
    "teams that have no members and own nothing", "are there any teams that have nobody on them and own nothing",
])
def test_two_lacks_joined_by_and_are_the_rows_of_both(lacks_world: Path, words: str) -> None:
    assert answer_names(words, lacks_world) == {D + "void"}
    # the controls: each half alone has another answer, so the rows are those of both, not of either
    assert answer_names("which teams have no members", lacks_world) == {D + "ghost", D + "void"}
    assert answer_names("which teams own nothing", lacks_world) == {D + "idle", D + "void"}


@pytest.mark.parametrize(("words", "expected"), [
    ("do all the apis have at least one consumer?", {D + "paper-api"}),
    ("is every api consumed by at least one component", {D + "paper-api"}),
    ("Does every team have at least one person on it?", {D + "ghost", D + "void"}),
    ("does every team have a person on it", {D + "ghost", D + "void"}),
])
def test_at_least_one_in_a_question_about_every_member_reads_as_the_lack(lacks_world: Path, words: str,
                                                                          expected: set[str]) -> None:
    assert answer_names(words, lacks_world) == expected


@pytest.mark.parametrize("words", [
    "which teams have no members and own the gw component",  # the second half is no lack
    "which teams have no members and core",
    "do all the apis have at least one consumer and the gw component",
])
def test_a_near_miss_of_a_joined_or_universal_lack_stays_unread(lacks_world: Path, words: str) -> None:
    assert unread(words, lacks_world)


def test_a_positive_without_every_is_not_read_as_its_lack(lacks_world: Path) -> None:
    # "which apis have at least one consumer" asks for those that have one: never the APIs of none
    trace = ask("which apis have at least one consumer", lacks_world)
    assert trace.outcome != "accepted_path" or {a.id.rpartition(":")[2] for a in trace.answers or []} != {D + "paper-api"}


@pytest.mark.parametrize("words", ["which componets have no owner", "compnents nobody owns", "are there any componnets without an owner"])
def test_a_long_subject_noun_one_letter_off_reads_as_the_noun(world: Path, words: str) -> None:
    assert answer_names(words, world) == {D + "updater"}


@pytest.mark.parametrize("words", [
    "which compartments have no owner",  # two edits from "components": another word
    "which tems have no members",  # a short word one edit from "teams": too short to be read as a slip
])
def test_a_word_further_off_or_shorter_is_no_subject_noun(world: Path, words: str) -> None:
    assert unread(words, world)
