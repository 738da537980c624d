"""The complete empty set on every surface: a coverage ask whose whole view was read and in which nothing matched
("which teams have no members" where every team has one) is an answer, "none", with its completeness; never
"no answer", which reads as a refusal and exits 1. The negative controls: the same ask on a world where one team is
empty lists that team, and a request chainret cannot read still says "no answer" with its reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from records_world import cli, descriptor, records_catalog, user

from chainret.cli import plain
from chainret.pipeline.ask import Answer, answer
from chainret.render.answers import EMPTY_WORDS, is_empty_set, is_set

ASK = "which teams have no members?"
UNREAD = "which teams have no members and use the orders api?"


def _world(root: Path, *, empty_team: bool) -> Path:
    ana = user("ana", "Ana Lima", ["platform"])
    groups = [descriptor("Group", "platform", title="Platform Team")]
    if empty_team:
        groups.append(descriptor("Group", "growth", title="Growth Team"))
    return records_catalog(root, [*groups, ana])


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _world(tmp_path_factory.mktemp("full") / "records", empty_team=False)


@pytest.fixture(scope="module")
def gap(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _world(tmp_path_factory.mktemp("gap") / "records", empty_team=True)


def _lines(got: Answer, **kw: Any) -> list[str]:
    text = plain.plain_text(plain.trace_items(got.trace, names=got.names, **kw), 100)
    assert text is not None
    return text.splitlines()


def test_nothing_lacking_is_the_answer_none_shown_complete(full: Path) -> None:
    got = answer(ASK, full)
    assert is_empty_set(got.trace) and not is_set(got.trace)
    lines = _lines(got)
    assert lines[0].split() == ["answer", "none"] and lines[1] == f"completeness {EMPTY_WORDS}"
    assert not any(line.startswith("no answer") for line in lines)
    assert _lines(got, quiet=True) == ["none"]


def test_a_world_with_an_empty_team_lists_it(gap: Path) -> None:
    """Negative control: the same ask where one team has nobody answers that team, not "none"."""
    got = answer(ASK, gap)
    assert is_set(got.trace) and not is_empty_set(got.trace)
    assert [a.id for a in got.trace.answers or []] == ["group:acme:default.growth"]
    assert _lines(got, quiet=True) == ["Growth Team (group:acme:default.growth)"]


def test_an_unread_request_still_says_no_answer(full: Path) -> None:
    """Negative control: "none" is for a read ask whose view was checked, never for a request chainret did not read."""
    got = answer(UNREAD, full)
    assert got.trace.outcome != "accepted_path" and not is_empty_set(got.trace)
    assert _lines(got)[0].startswith("no answer")


def test_the_cli_exits_0_and_json_says_the_empty_set_is_complete(full: Path, gap: Path, tmp_path: Path) -> None:
    quiet = cli("ask", ASK, "--catalog", str(full), "--no-trace", "-q", cwd=tmp_path)
    assert quiet.returncode == 0 and quiet.stdout == "none\n" and quiet.stderr == ""
    data = json.loads(cli("ask", ASK, "--catalog", str(full), "--no-trace", "--json", cwd=tmp_path).stdout)
    assert data["answers"] == [] and data["answer"] is None
    assert data["completeness"] == {"complete": True, "answered": 0, "eligible": 0, "reasons": [], "flags": []}
    refused = cli("ask", UNREAD, "--catalog", str(full), "--no-trace", "-q", cwd=tmp_path)
    assert refused.returncode == 1 and refused.stdout.startswith("no answer: ")


def test_http_ask_returns_an_empty_list_with_its_completeness(full: Path, gap: Path) -> None:
    from fastapi.testclient import TestClient

    from chainret.server.app import create_app
    from chainret.server.auth import Authenticator
    from chainret.server.limits import Limits
    from chainret.server.service import Service

    got: dict[str, Any] = {}
    for key, catalog in (("full", full), ("gap", gap)):
        svc = Service(str(catalog))
        with TestClient(create_app(svc, Authenticator(), Limits(rate=0))) as client:
            got[key] = client.post("/ask", json={"request": ASK}).json()
            got[key + "-unread"] = client.post("/ask", json={"request": UNREAD}).json()
    assert got["full"]["answers"] == [] and got["full"]["completeness"]["complete"] is True
    assert got["full"]["message"] == EMPTY_WORDS
    assert [a["id"] for a in got["gap"]["answers"]] == ["group:acme:default.growth"]
    assert got["full-unread"]["answers"] is None and got["full-unread"]["completeness"] is None


def test_the_html_answer_box_says_none_and_complete(full: Path) -> None:
    from chainret.render.html import answer_block, extras_for

    got = answer(ASK, full)
    box = answer_block(got.trace, extras_for(got.trace, full))
    assert 'class="answer accepted"' in box and ">none<" in box and 'data-complete="true"' in box
    refused = answer(UNREAD, full)
    assert 'class="answer stopped"' in answer_block(refused.trace, extras_for(refused.trace, full))
