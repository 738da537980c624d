"""Group words: "teams" and "departments" read as every group, whatever kind (spec.type) a Group declares.

Why: "teams" was tried as a kind word (the groups that declare ``type: team``, as "websites" are the components
that declare ``type: website``, ``chainret.query.frames.KIND_NOUNS``) and taken back: every blind writer of the
development halves said it of every group ("which teams have no members" expecting a department whose people are
on its sub-teams; "which team is X in" of a group of another kind). "Department" is said of any group above
another ("which department is X under"), whatever kind it declares. A kind filter there would turn right answers
into refusals; these tests keep the words read as every group.

The control beside each: the type noun ("groups") gives the same answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from records_world import imported

from chainret.pipeline.ask import ask
from chainret.verify.replay import verify


def _doc(kind: str, name: str, spec: str) -> str:
    return f"apiVersion: backstage.io/v1alpha1\nkind: {kind}\nmetadata:\n  name: {name}\nspec:\n{spec}"


def group(name: str, kind: str, parent: str | None = None, children: tuple[str, ...] = ()) -> str:
    spec = f"  type: {kind}\n" + (f"  parent: {parent}\n" if parent else "")
    return _doc("Group", name, spec + "  children: [" + ", ".join(children) + "]\n")


def user(name: str, *teams: str) -> str:
    return _doc("User", name, "  memberOf: [" + ", ".join(teams) + "]\n")


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A department over two teams, one of them empty; a division with a team of its own; people on the teams."""
    tmp = tmp_path_factory.mktemp("groups")
    (tmp / "tree").mkdir()
    (tmp / "tree" / "catalog-info.yaml").write_text("\n---\n".join([
        group("ops", "department", children=("routing", "fleet")), group("routing", "team", "ops"),
        group("fleet", "team", "ops"), group("money", "division", children=("billing",)), group("billing", "team", "money"),
        user("ana", "routing"), user("ben", "routing", "billing")]), encoding="utf-8")
    imported(tmp / "tree", tmp / "cat.yaml", ["backstage"])
    return tmp / "cat.yaml"


def names(request: str, catalog: Path) -> set[str]:
    trace = ask(request, catalog)
    assert trace.outcome == "accepted_path", (request, trace.outcome, trace.reason)
    assert verify(trace, catalog).ok
    ids = {a.id for a in trace.answers} if trace.answers else {(trace.path_ids or [""])[-1]}
    return {i.rpartition(".")[2] for i in ids if i}


@pytest.mark.parametrize(("request_text", "control", "expected"), [
    ("which teams have no members?", "which groups have no members?", {"ops", "fleet", "money"}),
    ("which department is billing under?", "which group is billing under?", {"money"}),  # a division, said a department
    ("which teams is ben in?", "which groups is ben in?", {"routing", "billing"}),
])
def test_team_and_department_words_mean_every_group(org: Path, request_text: str, control: str, expected: set[str]) -> None:
    assert names(request_text, org) == expected
    assert names(control, org) == expected  # the control: the type noun
