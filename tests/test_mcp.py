"""`chainret mcp`: a real MCP client session from the SDK, spawning `python -m chainret mcp` over stdio."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from chainret.pipeline.ask import ask
from chainret.server.limits import DEFAULT_CEILING
from chainret.catalog.load import load_world

pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SUPPLY = ROOT / "fixtures" / "supply"
REQUEST = "Which lab certifies the supplier of V-12?"


def _session_results(principal: str, calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, list[Any]]:
    """List the tools and make ``calls`` in one stdio session; returns (tools, results)."""
    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "chainret", "mcp", "--catalog", str(SUPPLY), "--principal", principal,
                                      "--max-rows-per-hop", "5"],
        env=env, cwd=str(ROOT),
    )

    async def go() -> tuple[Any, list[Any]]:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                results = []
                for name, args in calls:
                    if name == "verify_trace" and args == {}:  # verify the first call's (an ask) trace
                        args = {"trace": results[0].structured_content["trace"]}
                    results.append(await session.call_tool(name, args))
                return tools, results

    return anyio.run(go)


def _without_timing(trace: dict[str, Any]) -> dict[str, Any]:
    return {**trace, "meta": {k: v for k, v in trace["meta"].items() if k != "ask_ms"}}


@pytest.mark.parametrize("principal", ["public", "auditor"])
def test_mcp_tools_answer_as_the_configured_principal(principal: str) -> None:
    cat = load_world(SUPPLY).catalog
    tools, (asked, patterns, verified, over, empty) = _session_results(principal, [
        ("ask", {"request": REQUEST}),
        ("list_patterns", {}),
        ("verify_trace", {}),
        ("ask", {"request": REQUEST, "budget": {"rows_per_hop": 6}}),
        ("ask", {"request": ""}),
    ])
    by_name = {t.name: t for t in tools.tools}
    assert set(by_name) == {"ask", "list_patterns", "verify_trace"}
    ask_schema = by_name["ask"].input_schema
    assert ask_schema["required"] == ["request"] and ask_schema["properties"]["request"]["type"] == "string"
    assert "principal" not in ask_schema["properties"] and "viewer" not in ask_schema["properties"]
    assert "trace" in by_name["verify_trace"].input_schema["required"]

    lib = ask(REQUEST, cat, principal=principal, ceiling=DEFAULT_CEILING)  # the server runs under its ceiling
    out = asked.structured_content
    assert not asked.is_error and out["principal"] == principal and out["outcome"] == lib.outcome
    assert _without_timing(out["trace"]) == _without_timing(lib.model_dump(mode="json"))
    if lib.outcome == "accepted_path":
        assert out["answer"]["id"] == lib.path_ids[-1]
    assert [p["name"] for p in patterns.structured_content["patterns"]] == [p.name for p in cat.patterns]
    assert verified.structured_content == {"status": "verified", "ok": True, "catalog_changed": False, "differences": [],
                                           "revision": out["trace"]["meta"]["revision"]}
    assert out["revision"] == out["trace"]["meta"]["revision"] == patterns.structured_content["revision"]
    assert over.is_error and "budget_exceeds_limit" in over.content[0].text
    assert empty.is_error


def test_mcp_public_and_auditor_differ_as_the_library_says() -> None:
    cat = load_world(SUPPLY).catalog
    assert ask(REQUEST, cat, principal="public").path_ids != ask(REQUEST, cat, principal="auditor").path_ids
