"""MCP over stdio where every request is answered, even one the SDK cannot parse.

The SDK's stdio transport decodes stdin with ``errors="replace"`` (invalid UTF-8 silently becomes
U+FFFD) and, when a line does not parse as a JSON-RPC message (a lone surrogate such as
``"\\ud800"``, which its JSON parser refuses; nesting too deep; not JSON), hands the server an
exception that nobody answers: the client waits forever. ``serve_stdio`` reads stdin itself,
strictly as UTF-8, and answers such a line with a JSON-RPC error carrying the request's ``id``
(``null`` when the id cannot be read, as JSON-RPC says), through the transport's own writer so
replies never interleave. A notification (no ``id``) gets no reply, as JSON-RPC says.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from typing import Any, BinaryIO

import anyio

PARSE_ERROR, INVALID_REQUEST = -32700, -32600
MAX_LINE = 4 * 1024 * 1024


def _request_id(text: str | None) -> tuple[bool, int | str | None]:
    """(is a request, its id if usable): from Python's lenient parser, which accepts lone surrogates."""
    if text is None:
        return True, None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return True, None
    if not isinstance(data, dict):
        return True, None
    if "id" not in data:
        return "method" not in data, None  # a notification is never answered
    rid = data["id"]
    if isinstance(rid, bool) or not isinstance(rid, (int, str)):
        return True, None
    if isinstance(rid, str):
        try:
            rid.encode("utf-8")
        except UnicodeEncodeError:
            return True, None
    return True, rid


def refusal(raw: bytes) -> dict[str, Any] | None:
    """The JSON-RPC error for a line the SDK cannot parse (None: the line is fine, or is a notification)."""
    import mcp_types as types

    try:
        text: str | None = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None:
        try:
            types.jsonrpc_message_adapter.validate_json(text, by_name=False)
            return None
        except Exception:  # noqa: BLE001 - whatever the SDK's parser refuses, it would not answer
            pass
    answer, rid = _request_id(text)
    if not answer:
        return None
    if text is None:
        code, message = PARSE_ERROR, "the message is not valid UTF-8"
    elif not _parses(text):
        code, message = PARSE_ERROR, "the message is not JSON (or nests too deep)"
    else:
        code, message = INVALID_REQUEST, "the message holds invalid Unicode (e.g. a lone surrogate \\ud800) or is not a JSON-RPC request"
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


class _CheckedLines:
    """The lines of ``stream`` the SDK can parse; the others are answered through ``reply``."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.reply: Any = None  # the transport's write stream, set once it exists

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        from mcp.shared.message import SessionMessage
        import mcp_types as types

        while True:
            raw = await anyio.to_thread.run_sync(self.stream.readline, MAX_LINE, abandon_on_cancel=True)
            if not raw:
                return
            if not raw.strip():
                continue
            error = refusal(raw)
            if error is None:
                yield raw.decode("utf-8")
            elif self.reply is not None:
                await self.reply.send(SessionMessage(types.JSONRPCError.model_validate(error)))


async def serve_stdio(server: Any, stdin: BinaryIO | None = None) -> None:
    """Run an ``MCPServer`` over stdio (``server.run("stdio")``, answering unparseable lines too)."""
    from mcp.server.stdio import stdio_server

    lines = _CheckedLines(stdin or sys.stdin.buffer)
    async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
        lines.reply = write_stream
        low = server._lowlevel_server  # what MCPServer.run_stdio_async runs, over our stdin
        await low.run(read_stream, write_stream, low.create_initialization_options())
