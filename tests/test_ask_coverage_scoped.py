"""Coverage asks said of part of the catalog (issue 44): *unowned components in system S*, *anything in S with no owner*,
*which of G's APIs have no consumers*, *sub-teams of G that have no members*, *teams under G with no people in them*,
and *empty systems*. The ask without its scope is read by the coverage grammars, the scope (a noun phrase of the ask's
own type noun) by the interpreter; the rows are the ask's rows in the scope, each citing the relations that put it
there. Each rule has a negative control beside it: a row outside the scope left out, a near wording that stays unread,
or the rule switched off."""

from __future__ import annotations

from pathlib import Path

import pytest
from records_world import answer_names, descriptor, records_catalog, unread, user

from chainret.pipeline.ask import ask
from chainret.query import gaps as gaps_mod

D = "default."


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A department with two teams under it (one nobody is on), a sub-team nobody is on under the other, two systems with
    an unowned component each, an unowned component in no system, an empty system, and APIs of two teams, some never
    consumed."""
    return records_catalog(tmp_path_factory.mktemp("scoped") / "tree", [
        descriptor("Group", "ops", "  children: [netops, plant]\n  members: [ana]\n", title="Operations"),
        descriptor("Group", "netops", "  parent: ops\n  children: [scada]\n  members: [ana]\n", title="Network Ops"),
        descriptor("Group", "plant", "  parent: ops\n", title="Plant Team"),
        descriptor("Group", "scada", "  parent: netops\n", title="SCADA Working Group"),
        descriptor("Group", "billing", "  members: [bo]\n", title="Billing"),
        user("ana", "Ana Lima"), user("bo", "Bo Berg"),
        descriptor("System", "meters", "  owner: ops\n", title="Smart Meter Network"),
        descriptor("System", "plantsys", "  owner: plant\n", title="Plant Control"),
        descriptor("System", "spare", "  owner: ops\n", title="Spare Capacity"),
        descriptor("Component", "collector", "  owner: netops\n  system: meters\n  consumesApis: [reads-api]\n"),
        descriptor("Component", "updater", "  system: meters\n"),
        descriptor("Component", "doser", "  system: plantsys\n"),
        descriptor("Component", "portal", ""),
        descriptor("API", "reads-api", "  owner: billing\n  system: meters\n"),
        descriptor("API", "paper-api", "  owner: billing\n"),
        descriptor("API", "alerts-api", "  owner: netops\n"),
    ])


@pytest.mark.parametrize(("words", "expected"), [
    # the ask's rows in the scope only (each world has one such row outside it)
    ("unowned components in the plant control system", {D + "doser"}),
    # never "the components in S" with the adjective dropped: the owned one is left out
    ("unowned components in the smart meter network", {D + "updater"}),
    ("which components in the smart meter network have no owner", {D + "updater"}),
    ("anything in the smart meter network with no owner", {D + "updater"}),
    ("which of billing's apis have no consumers", {D + "paper-api"}),
    ("which of network ops's apis does nobody use", {D + "alerts-api"}),
    ("sub-teams of operations that have no members", {D + "plant"}),
    ("teams under network ops with no people in them", {D + "scada"}),
    # the adjective before its noun: a system with nothing in it
    ("are there any empty systems", {D + "spare"}),
])
def test_a_coverage_ask_of_part_of_the_catalog_keeps_its_rows_in_that_part(world: Path, words: str, expected: set[str]) -> None:
    assert answer_names(words, world) == expected


def test_the_rows_cite_the_relations_that_put_them_in_the_scope(world: Path) -> None:
    trace = ask("unowned components in the plant control system", world)
    section = trace.meta["coverage"]
    assert section["kind"] == "within" and section["scope"]["predicates"] == ["has_part"]
    assert section["ask"]["kind"] == "no_owner"
    (row,) = section["rows"]
    assert any("plantsys" in c["text"] for c in row["cites"])  # the component's "system:" line


@pytest.mark.parametrize("words", [
    "unowned components in the weather",  # the scope names nothing
    "which teams own nothing in the smart meter network",  # the scope's noun ("nothing") is not what the rows are
    "unowned components in the plant control system and the portal",  # a word more than the scope reads
])
def test_a_scope_that_reads_as_no_set_of_the_rows_is_unread(world: Path, words: str) -> None:
    assert unread(words, world)


def test_without_the_rule_a_scoped_ask_is_unread(world: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The negative control: the ask said with its scope reads as nothing else."""
    monkeypatch.setattr(gaps_mod, "read_scoped_request", lambda request: [])
    assert unread("unowned components in the plant control system", world)
    assert answer_names("unowned components", world) == {D + "updater", D + "doser", D + "portal"}  # the ask without it
