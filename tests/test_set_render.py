"""A set answer on every surface: every member (display name and ID), then whether that is all.

The Backstage example's team-a has two members (``has_member`` is many-valued); one member's display name is
markup with a bidi override, so every surface is also seen to show it escaped. ``--rows-per-hop 1`` returns
only the first member's unit: the set is a part, and each surface must say "1 of 2" and name the flag. A 1.0
trace (no ``answers``) shows as it always did: the negative control.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from records_world import HOSTILE_MEMBER, MEMBERS, SET_REQUEST, TEAM_A, cli, set_world

from chainret.cli import plain
from chainret.pipeline.ask import Answer, answer
from chainret.render.answers import completeness_words
from chainret.trace.model import Budget, read_trace

ROOT = Path(__file__).resolve().parents[1]
TRACE_10 = ROOT / "tests" / "data" / "traces-1.0" / "main-serves.json"
BREANNA, JANELLE = MEMBERS
SHOWN = {i: f"{plain.visible(n)} ({i})" for i, n in MEMBERS.items()}  # name (ID), bidi override shown escaped
CUT = "1 of 2 shown: hop 1: 1 more supported 'has_member' relation(s) of group:acme:default.team-a were not returned"
FLAG = "; --rows-per-hop would reach the rest"


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return set_world(tmp_path_factory.mktemp("set"))


@pytest.fixture(scope="module")
def whole(catalog: Path) -> Answer:
    got = answer(SET_REQUEST, catalog)
    assert got.trace.completeness is not None and got.trace.completeness.complete and len(got.trace.answers or []) == 2
    return got


@pytest.fixture(scope="module")
def cut(catalog: Path) -> Answer:
    got = answer(SET_REQUEST, catalog, budget=Budget(rows_per_hop=1))
    assert got.trace.completeness is not None and not got.trace.completeness.complete
    return got


def _summary(got: Answer, **kw: Any) -> list[str]:
    """The readable summary as the fast path writes it, held equal to what rich writes."""
    from chainret.cli.render import make_console, render_trace

    items = plain.trace_items(got.trace, names=got.names, **kw)
    text = plain.plain_text(items, 40)  # narrow: the hop table is records, which plain text writes too
    buf = io.StringIO()
    render_trace(got.trace, out=make_console(file=buf, width=40), names=got.names, **kw)
    assert text is not None and text == buf.getvalue()
    return text.splitlines()


# -- words -------------------------------------------------------------------------------------------------
def test_completeness_words_say_all_k_of_n_or_what_stopped_the_count(whole: Answer, cut: Answer) -> None:
    assert completeness_words(whole.trace.completeness) == "all 2"
    assert completeness_words(cut.trace.completeness).startswith(CUT) and completeness_words(cut.trace.completeness).endswith(FLAG)
    uncounted = cut.trace.completeness.model_copy(update={"eligible": None, "flags": ["--max-searches", "--max-rows"]})
    words = completeness_words(uncounted)
    assert words.startswith("1 found; the budget stopped") and words.endswith("; --max-searches or --max-rows would reach the rest")


# -- the CLI -----------------------------------------------------------------------------------------------
def test_the_summary_lists_every_member_then_all_n(whole: Answer) -> None:
    lines = _summary(whole)
    assert lines[:3] == [f"answers      {SHOWN[BREANNA]}", f"             {SHOWN[JANELLE]}", "completeness all 2"]
    assert lines[3].startswith(f"paths        {TEAM_A} → {BREANNA}") and lines[4].startswith(f"             {TEAM_A} → {JANELLE}")
    assert HOSTILE_MEMBER not in "\n".join(lines)  # the bidi override is shown escaped, never obeyed


def test_a_budget_cut_set_says_k_of_n_and_the_flag(cut: Answer) -> None:
    lines = _summary(cut)
    assert lines[0] == f"answer       {SHOWN[BREANNA]}"
    assert lines[1].startswith("completeness " + CUT) and lines[1].endswith(FLAG)
    assert not any(JANELLE in line for line in lines[:3])


def test_quiet_prints_one_member_per_line(whole: Answer, cut: Answer) -> None:
    assert _summary(whole, quiet=True) == [SHOWN[BREANNA], SHOWN[JANELLE]]
    assert _summary(cut, quiet=True) == [SHOWN[BREANNA]]


def test_a_10_trace_shows_as_it_always_did() -> None:
    """Negative control: no ``answers``, so one answer line, the path next, no completeness line."""
    trace = read_trace(TRACE_10)
    assert trace.answers is None and trace.outcome == "accepted_path"
    lines = _summary(Answer(trace, {}, []))
    assert lines[0].startswith("answer ") and lines[1].startswith("path ") and not any("completeness" in x for x in lines)
    from chainret.cli.ask_run import json_with_answer

    data = json.loads(json_with_answer(trace, {}))
    assert "answers" not in data and "completeness" not in data and data["answer"]["id"] == trace.path_ids[-1]


def test_trace_show_lists_every_member_with_its_completeness(whole: Answer, cut: Answer) -> None:
    from chainret.cli.render import make_console, trace_tree

    shown = {}
    for key, got in (("whole", whole), ("cut", cut)):
        buf = io.StringIO()
        make_console(file=buf, width=400).print(trace_tree(got.trace))
        shown[key] = buf.getvalue()
    assert "answers (2): all 2" in shown["whole"] and "answers (1): " + CUT in shown["cut"]
    assert all(f"{i}: {TEAM_A} → {i}" in shown["whole"] for i in MEMBERS) and f"{JANELLE}: " not in shown["cut"]


def test_the_cli_quiet_keeps_stdout_to_members_and_says_a_part_on_stderr(catalog: Path, tmp_path: Path) -> None:
    whole = cli("ask", SET_REQUEST, "--catalog", str(catalog), "--no-trace", "-q", cwd=tmp_path)
    assert whole.returncode == 0 and whole.stdout.splitlines() == [SHOWN[BREANNA], SHOWN[JANELLE]] and whole.stderr == ""
    part = cli("ask", SET_REQUEST, "--catalog", str(catalog), "--no-trace", "-q", "--rows-per-hop", "1", cwd=tmp_path)
    assert part.returncode == 0 and part.stdout.splitlines() == [SHOWN[BREANNA]]
    assert part.stderr.startswith("completeness: " + CUT) and part.stderr.rstrip("\n").endswith(FLAG)


def test_json_names_every_member_and_its_path_beside_answer(catalog: Path, tmp_path: Path) -> None:
    got = cli("ask", SET_REQUEST, "--catalog", str(catalog), "--no-trace", "--json", cwd=tmp_path)
    data = json.loads(got.stdout)
    assert data["answer"] == {"id": BREANNA, "name": "Breanna Davison"}  # the first member, for compatibility
    assert [(a["id"], a["name"]) for a in data["answers"]] == list(MEMBERS.items())
    assert data["answers"][1]["path"] == [{"id": TEAM_A, "name": "Team A"}, {"id": JANELLE, "name": HOSTILE_MEMBER}]
    assert data["answers"][1]["path_ids"] == [TEAM_A, JANELLE] and len(data["answers"][1]["relations"]) == 1
    assert data["completeness"] == {"complete": True, "answered": 2, "eligible": 2, "reasons": [], "flags": []}
    assert "\u202e" not in got.stdout  # the JSON escapes it
    part = json.loads(cli("ask", SET_REQUEST, "--catalog", str(catalog), "--no-trace", "--json", "--rows-per-hop", "1",
                          cwd=tmp_path).stdout)
    assert [a["id"] for a in part["answers"]] == [BREANNA]
    assert part["completeness"]["eligible"] == 2 and part["completeness"]["flags"] == ["--rows-per-hop"]


# -- HTTP /ask and MCP ask ---------------------------------------------------------------------------------
@pytest.fixture
def service(catalog: Path) -> Any:
    """One per test: the HTTP app closes its service when its client does."""
    from chainret.server.service import Service

    svc = Service(str(catalog))
    yield svc
    svc.close()


def _check_response(whole: dict[str, Any], part: dict[str, Any]) -> None:
    assert whole["answer"] == {"id": BREANNA, "name": "Breanna Davison"}
    assert [(a["id"], a["name"]) for a in whole["answers"]] == list(MEMBERS.items())
    assert whole["answers"][1]["path"] == [{"id": TEAM_A, "name": "Team A"}, {"id": JANELLE, "name": HOSTILE_MEMBER}]
    assert whole["completeness"]["complete"] is True and whole["completeness"]["eligible"] == 2
    assert whole["message"] == f"Breanna Davison ({BREANNA}), {HOSTILE_MEMBER} ({JANELLE}) — all 2"
    assert [a["id"] for a in part["answers"]] == [BREANNA] and part["completeness"]["flags"] == ["--rows-per-hop"]
    assert CUT in part["message"] and part["message"].endswith(FLAG)


def test_http_ask_returns_every_member_and_the_completeness(service: Any) -> None:
    from fastapi.testclient import TestClient

    from chainret.server.app import create_app
    from chainret.server.auth import Authenticator
    from chainret.server.limits import Limits

    with TestClient(create_app(service, Authenticator(), Limits(rate=0))) as client:
        whole = client.post("/ask", json={"request": SET_REQUEST})
        part = client.post("/ask", json={"request": SET_REQUEST, "budget": {"rows_per_hop": 1}})
        single = client.post("/ask", json={"request": "Who owns artist-lookup?"})  # owned_by is functional: no set
    assert whole.status_code == part.status_code == single.status_code == 200
    _check_response(whole.json(), part.json())
    assert single.json()["answers"] is None and single.json()["completeness"] is None and single.json()["answer"]


def test_mcp_ask_returns_every_member_and_the_completeness(service: Any) -> None:
    pytest.importorskip("mcp")
    import anyio
    from mcp import Client

    from chainret.server.mcp import build_server

    async def go() -> tuple[Any, Any]:
        async with Client(build_server(service, "public")) as client:
            return (await client.call_tool("ask", {"request": SET_REQUEST}),
                    await client.call_tool("ask", {"request": SET_REQUEST, "budget": {"rows_per_hop": 1}}))

    whole, part = anyio.run(go)
    assert not whole.is_error and not part.is_error
    _check_response(dict(whole.structured_content), dict(part.structured_content))


# -- HTML: /ui and trace show --html -----------------------------------------------------------------------
ESCAPED = "&lt;b onmouseover=&quot;alert(1)&quot;&gt;Janelle&lt;/b&gt;\\u202eDawe"


def _answer_box(got: Answer, catalog: Path) -> str:
    from chainret.render.html import extras_for, standalone_page

    page = standalone_page(got.trace, extras_for(got.trace, catalog))
    assert "<b onmouseover" not in page and "\u202e" not in page
    start = page.index('<div class="answer ')
    return page[start:page.index('<div class="graph">', start)]


def test_the_html_answer_box_shows_the_whole_set_and_all_n(whole: Answer, catalog: Path) -> None:
    box = _answer_box(whole, catalog)
    assert "2 answers found" in box and "Breanna Davison" in box and ESCAPED in box
    assert f'data-id="{BREANNA}"' in box and f'data-id="{JANELLE}"' in box
    assert 'class="completeness complete"' in box and "complete: all 2" in box
    from chainret.render.html import extras_for, svg_graph

    graph = svg_graph(whole.trace, extras_for(whole.trace, catalog))
    assert graph.count('class="node answer"') == 2  # both members are answers in the graph


def test_the_html_answer_box_of_a_part_says_k_of_n_and_the_flag(cut: Answer, catalog: Path) -> None:
    box = _answer_box(cut, catalog)
    assert "1 answer found (part of the set)" in box and 'class="answer accepted partial"' in box
    assert 'class="completeness partial"' in box and "not complete: " + CUT.replace("'", "&#x27;") in box
    assert FLAG in box and JANELLE not in box


def test_the_html_answer_box_of_a_10_trace_is_as_before() -> None:
    """Negative control: one answer, "answer found", no completeness."""
    from chainret.render.html import answer_block, Extras

    box = answer_block(read_trace(TRACE_10), Extras())
    assert ">answer found<" in box and "completeness" not in box and 'id="answers"' not in box
