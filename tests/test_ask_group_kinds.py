"""Group kinds: "departments" read against the kind a Group descriptor declares (spec.type), as "websites" and
"libraries" are read against a Component's (``chainret.query.frames.KIND_NOUNS``, ``chainret.query.kinds``);
"teams" keeps reading as every group.

Why: an organisation's records often hold departments above their teams, each a Group, and people ask about
them by that word ("which departments have no members", "what department is the routing team in"), which read
as nothing before. "Teams" was tried as a kind word too and taken back: every blind writer of the development
halves said it of every group ("which teams have no members" expecting a department whose people are on its
sub-teams; "which team is X in" of a group of another kind), so the word keeps its old reading.

Every guard has its control beside it: the type noun ("groups") gives the superset "departments" must not; a world
whose groups declare no kind leaves "departments" unread; "teams" lists the department too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from records_world import imported

from chainret.pipeline.ask import ask
from chainret.verify.replay import verify


def _doc(kind: str, name: str, spec: str) -> str:
    return f"apiVersion: backstage.io/v1alpha1\nkind: {kind}\nmetadata:\n  name: {name}\nspec:\n{spec}"


def group(name: str, kind: str | None, parent: str | None = None, children: tuple[str, ...] = ()) -> str:
    spec = (f"  type: {kind}\n" if kind else "") + (f"  parent: {parent}\n" if parent else "")
    return _doc("Group", name, spec + "  children: [" + ", ".join(children) + "]\n")


def user(name: str, *teams: str) -> str:
    return _doc("User", name, "  memberOf: [" + ", ".join(teams) + "]\n")


def comp(name: str, owner: str) -> str:
    return _doc("Component", name, f"  type: service\n  lifecycle: production\n  owner: {owner}\n")


def org(kinds: tuple[str | None, str | None]) -> list[str]:
    """A department (``kinds[0]``) over two teams (``kinds[1]``), one of them empty; people on the other."""
    dept, team = kinds
    return [group("ops", dept, children=("routing", "fleet")), group("routing", team, "ops"), group("fleet", team, "ops"),
            group("billing", team), user("ana", "routing"), user("ben", "routing", "billing"), comp("planner", "routing")]


def world(tmp: Path, kinds: tuple[str | None, str | None]) -> Path:
    (tmp / "tree").mkdir(parents=True)
    (tmp / "tree" / "catalog-info.yaml").write_text("\n---\n".join(org(kinds)), encoding="utf-8")
    imported(tmp / "tree", tmp / "cat.yaml", ["backstage"])
    return tmp / "cat.yaml"


@pytest.fixture(scope="module")
def typed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return world(tmp_path_factory.mktemp("typed"), ("department", "team"))


def names(request: str, catalog: Path) -> set[str]:
    trace = ask(request, catalog)
    assert trace.outcome == "accepted_path", (request, trace.outcome, trace.reason)
    assert verify(trace, catalog).ok
    ids = {a.id for a in trace.answers} if trace.answers else {(trace.path_ids or [""])[-1]}
    return {i.rpartition(".")[2] for i in ids if i}


def refused(request: str, catalog: Path) -> str:
    trace = ask(request, catalog)
    assert trace.outcome != "accepted_path", (request, trace.answers)
    assert trace.reason is not None
    return trace.reason.message


@pytest.mark.parametrize("request_text", ["which teams have no members?", "list the empty teams", "teams with nobody on them"])
def test_teams_still_mean_every_group(typed: Path, request_text: str) -> None:
    assert names(request_text, typed) == {"ops", "fleet"}  # the department with them: as every blind writer meant it


def test_departments_read_as_the_groups_of_that_kind(typed: Path) -> None:
    assert names("which departments have no members?", typed) == {"ops"}
    assert names("which groups have no members?", typed) == {"ops", "fleet"}  # the control: the type noun's superset
    assert names("which department is routing in?", typed) == {"ops"}


def test_teams_answer_where_both_readings_agree(typed: Path) -> None:
    assert names("which teams is ben on?", typed) == {"routing", "billing"}  # both of the kind team
    assert names("who is on the team that owns planner?", typed) == {"ana", "ben"}
    assert names("which teams are under ops?", typed) == {"routing", "fleet"}


def test_a_world_without_departments_refuses_departments(tmp_path: Path) -> None:
    cat = world(tmp_path, ("team", "team"))  # every group is a team: no department to name
    assert "department" in refused("which departments have no members?", cat)
    assert names("which teams have no members?", cat) == {"ops", "fleet"}


def test_groups_that_declare_no_kind_leave_departments_unread(tmp_path: Path) -> None:
    cat = world(tmp_path, (None, None))  # as before kinds were kept
    refused("which departments have no members?", cat)  # the records cannot tell a department from a team
