"""Hostile MCP tool calls are tool errors with a message, and every request over stdio is answered.

In process (the SDK's in-memory client): every field path of a real trace mutated with every JSON
type, through ``verify_trace``, and hostile ``ask`` arguments; no call may crash (the SDK's bare
``Error executing tool NAME``). Over stdio (``python -m chainret mcp`` in a subprocess, raw
JSON-RPC lines, each read bounded by a timeout): a line with a lone surrogate, deep nesting or
trailing garbage is answered with a JSON-RPC error and later calls still are. Each has a guard-off
twin that switches the check off and requires the failure to show.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")
from chainret.server.mcp import build_server  # noqa: E402
from chainret.server.service import Service  # noqa: E402
from benchmarks.harness.hostile import KINDS, SURROGATE_CALLS, mcp_failures, mutations, plain, sample, stdio_exchange  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SUPPLY = ROOT / "fixtures" / "supply"
REQUEST = "Which lab certifies the supplier of V-12?"


@pytest.fixture(scope="module")
def server() -> Any:
    logging.getLogger("mcp").disabled = True  # the guard-off test crashes tools on purpose
    service = Service(str(SUPPLY))
    yield build_server(service, "public")
    service.close()
    logging.getLogger("mcp").disabled = False


@pytest.fixture(scope="module")
def trace(server: Any) -> dict[str, Any]:
    from mcp import Client

    async def go() -> Any:
        async with Client(server) as client:
            return await client.call_tool("ask", {"request": REQUEST})

    result = anyio.run(go)
    assert not result.is_error
    return dict(result.structured_content["trace"])


def _verify_calls(trace: dict[str, Any], n: int, seed: int) -> list[tuple[str, str, dict[str, Any]]]:
    """``n`` sampled mutations (none nested past the in-memory transport's own limits)."""
    picked = sample(mutations(trace), n, seed)
    return [(label, "verify_trace", {"trace": plain(payload)}) for label, payload in picked if not _too_deep(payload)]


def _too_deep(payload: Any) -> bool:
    """Nesting the in-memory transport cannot carry, or a lone surrogate its client cannot encode
    (the stdio tests below send those as raw JSON)."""
    try:
        json.dumps(payload, ensure_ascii=False).encode("utf-8")
    except (TypeError, UnicodeEncodeError):  # TypeError: a Deep
        return True
    return False


def test_hostile_traces_and_arguments_are_tool_errors_not_crashes(server: Any, trace: dict[str, Any]) -> None:
    calls = _verify_calls(trace, 400, seed=1)
    calls += [(f"ask request={i}", "ask", {"request": plain(k)}) for i, k in enumerate(KINDS) if not _too_deep(k)]
    calls += [(f"ask view={i}", "ask", {"request": REQUEST, "view": plain(k)}) for i, k in enumerate(KINDS) if not _too_deep(k)]
    calls += [(f"ask budget={i}", "ask", {"request": REQUEST, "budget": plain(k)}) for i, k in enumerate(KINDS) if not _too_deep(k)]
    assert len(calls) > 400
    assert anyio.run(mcp_failures, server, calls) == []


def test_the_mcp_check_fails_when_the_edge_checks_are_off(server: Any, trace: dict[str, Any],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import chainret.server.inputs as inputs

    calls = [(label, "verify_trace", {"trace": payload}) for label, payload in mutations(trace)
             if label.startswith("meta.view=") and isinstance(payload["meta"].get("view"), (list, dict))]
    assert calls and anyio.run(mcp_failures, server, calls) == []
    monkeypatch.setattr(inputs, "json_problem", lambda *a, **k: None)
    monkeypatch.setattr(inputs, "meta_problem", lambda *a, **k: None)
    assert len(anyio.run(mcp_failures, server, calls)) > 0


def _stdio_cmd(patch: str = "") -> list[str]:
    code = ("import runpy, sys\n" + patch + "sys.argv = ['chainret', 'mcp', '--catalog', sys.argv[1]]\n"
            "runpy.run_module('chainret', run_name='__main__', alter_sys=True)\n")
    return [sys.executable, "-c", code, str(SUPPLY)]


@pytest.mark.slow
def test_every_stdio_request_is_answered_even_with_a_lone_surrogate() -> None:
    ping = '{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"ask","arguments":{"request":"' + REQUEST + '"}}}'
    lines = [*SURROGATE_CALLS, "not json", ping]
    replies = stdio_exchange(_stdio_cmd(), lines, timeout=20, cwd=str(ROOT))
    assert None not in replies, list(zip(lines, replies))
    for line, reply in zip(lines[:-1], replies[:-1]):
        data = json.loads(reply)
        assert "error" in data and data["error"]["message"], (line[:80], reply)
    last = json.loads(replies[-1])
    assert last["id"] == len(lines) + 1 and last["result"]["isError"] is False


@pytest.mark.slow
def test_the_stdio_check_fails_when_lines_are_passed_to_the_sdk_unchecked() -> None:
    patch = "import chainret.server.mcp_stdio as m\nm.refusal = lambda raw: None\n"
    replies = stdio_exchange(_stdio_cmd(patch), SURROGATE_CALLS[:1], timeout=3, cwd=str(ROOT))
    assert replies == [None]
