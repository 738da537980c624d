"""Hostile JSON for the served endpoints: every field path of a real trace, every JSON type.

``field_paths(value)`` lists every path into a JSON value (dict keys and list indexes), the root
included; ``mutate(value, path, new)`` returns a copy with the value at ``path`` replaced (``DELETE``
removes it). ``KINDS`` are the replacement values (null, bools, ints, a huge int, floats, NaN,
strings, a lone surrogate, lists, objects, deep nesting). ``encode`` writes a payload the way a
hostile client may: Python's ``json.dumps`` escapes a lone surrogate as ``\\ud800`` and writes
``NaN``, both of which a JSON parser on the other side may accept.

``http_failures(client, payloads)`` posts each payload to ``/trace/verify`` and returns the ones
answered 5xx or without a JSON error body; ``mcp_failures(server, calls)`` makes MCP tool calls
through the SDK's in-memory client and returns the ones that crashed (the SDK's bare
``Error executing tool NAME``, which it gives only for an unexpected exception) or raised.
"""

from __future__ import annotations

import copy
import os
import json
import random
from collections.abc import Iterable, Iterator
from typing import Any

DELETE = object()
Path = tuple[Any, ...]


def _nest(depth: int, leaf: Any = 0, kind: str = "list") -> Any:
    value = leaf
    for _ in range(depth):
        value = [value] if kind == "list" else {"a": value}
    return value


class Deep:
    """Nesting too deep for ``json.dumps``: ``encode`` writes it as ``n`` nested lists."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __repr__(self) -> str:
        return f"Deep({self.n})"

    def value(self) -> Any:
        return _nest(self.n)


KINDS: list[Any] = [
    None, True, False, 0, -1, 2**31, 2**63 + 1, 10**300, -(10**300), 0.5, -1e308, float("nan"), float("inf"),
    "", "x", "public", "auditor", "\ud800", "\udfff x", "a" * 5000, "\x00\x1b[31m", "../../etc/passwd",
    [], [None], ["public"], [1, "a", {}], {}, {"a": 1}, {"view": "final"}, {"": None},
    _nest(100), _nest(100, kind="dict"), Deep(5000),
]


def field_paths(value: Any, prefix: Path = ()) -> Iterator[Path]:
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from field_paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from field_paths(v, (*prefix, i))


def mutate(value: Any, path: Path, new: Any) -> Any:
    if not path:
        return new
    out = copy.deepcopy(value)  # the base trace: shallow enough to copy; ``new`` is shared, not copied
    parent = out
    for key in path[:-1]:
        parent = parent[key]
    if new is DELETE:
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return out


def mutations(trace: dict[str, Any], *, wrap: bool = False) -> Iterator[tuple[str, Any]]:
    """(label, payload) for every field path x every kind, plus each key deleted and an extra key per object."""
    base = {"trace": trace} if wrap else trace
    prefix: Path = ("trace",) if wrap else ()
    for path in field_paths(trace):
        full = (*prefix, *path)
        for i, kind in enumerate(KINDS):
            yield f"{'.'.join(map(str, path)) or '<root>'}={i}", mutate(base, full, kind)
        if path:
            yield f"{'.'.join(map(str, path))}=<deleted>", mutate(base, full, DELETE)
        inner = copy.deepcopy(base)
        target = inner
        for key in full:
            target = target[key]
        if isinstance(target, dict):
            target["\ud800"] = 1
            yield f"{'.'.join(map(str, path)) or '<root>'}+<surrogate key>", inner


def sample(items: Iterable[tuple[str, Any]], n: int, seed: int) -> list[tuple[str, Any]]:
    pool = list(items)
    rng = random.Random(seed)
    return pool if n >= len(pool) else rng.sample(pool, n)


def encode(payload: Any) -> bytes:
    deep: dict[str, int] = {}

    def placeholder(o: Any) -> str:
        if not isinstance(o, Deep):
            raise TypeError(type(o).__name__)
        deep[f'"@@deep{o.n}@@"'] = o.n
        return f"@@deep{o.n}@@"

    text = json.dumps(payload, default=placeholder)  # ensure_ascii: a surrogate travels as \ud800
    for mark, n in deep.items():
        text = text.replace(mark, "[" * n + "0" + "]" * n)
    return text.encode("ascii")


def plain(payload: Any) -> Any:
    """``payload`` with every ``Deep`` replaced by its nested lists (for in-process calls)."""
    if isinstance(payload, Deep):
        return payload.value()
    if isinstance(payload, dict):
        return {k: plain(v) for k, v in payload.items()}
    if isinstance(payload, list):
        return [plain(v) for v in payload]
    return payload


def is_error_body(body: bytes) -> bool:
    try:
        data = json.loads(body)
    except ValueError:
        return False
    err = data.get("error") if isinstance(data, dict) else None
    return isinstance(err, dict) and isinstance(err.get("code"), str) and bool(err.get("message"))


def http_failures(client: Any, payloads: Iterable[tuple[str, Any]], path: str = "/trace/verify") -> list[str]:
    """Labels of payloads answered 5xx, or 4xx without a JSON error body (``client``: a sync httpx-like client)."""
    bad = []
    for label, payload in payloads:
        r = client.post(path, content=encode(payload), headers={"content-type": "application/json"})
        if r.status_code >= 500 or (r.status_code >= 400 and not is_error_body(r.content)):
            bad.append(f"{label}: {r.status_code} {r.text[:120]}")
    return bad


async def mcp_failures(server: Any, calls: Iterable[tuple[str, str, dict[str, Any]]]) -> list[str]:
    """Labels of (label, tool, arguments) calls that crashed in the tool or raised in the client."""
    from mcp import Client

    bad = []
    async with Client(server) as client:
        for label, tool, args in calls:
            try:
                result = await client.call_tool(tool, args)
            except Exception as exc:  # noqa: BLE001 - any exception is the finding
                bad.append(f"{label}: raised {exc.__class__.__name__}")
                continue
            text = result.content[0].text if result.content else ""
            if result.is_error and (text.strip() == f"Error executing tool {tool}" or not text):
                bad.append(f"{label}: crashed ({text[:80]})")
    return bad


SURROGATE_CALLS = [  # MCP tools/call lines a JSON parser may accept but no UTF-8 writer can echo
    '{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"ask","arguments":{"request":"Which lab certifies \\ud800?"}}}',
    '{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"ask","arguments":{"request":"x","view":"\\udc00"}}}',
    '{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"verify_trace","arguments":{"trace":{"request":"x","outcome":"refused","meta":{"a":"\\ud800"}}}}}',
    '{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"ask\\ud800","arguments":{}}}',
    '{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"ask","arguments":{"request":"x"}}} trailing',
    '{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"ask","arguments":{"request":' + "[" * 3000 + "]" * 3000 + "}}}",
]


def stdio_exchange(cmd: list[str], lines: list[str], timeout: float = 20.0, **popen: Any) -> list[str | None]:
    """Initialize an MCP stdio server, send each line (``ID`` -> a fresh id), read one reply each.

    Returns each reply line, or None where nothing came within ``timeout`` seconds; bounded, never
    blocks longer. The process is killed afterwards (only it).
    """
    import select
    import subprocess

    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, **popen)
    assert proc.stdin is not None and proc.stdout is not None
    buf = b""

    def send(text: str) -> None:
        assert proc.stdin is not None
        proc.stdin.write(text.encode("ascii") + b"\n")
        proc.stdin.flush()

    def recv(wait: float) -> str | None:
        nonlocal buf
        import time

        deadline = time.monotonic() + wait
        while b"\n" not in buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([proc.stdout], [], [], left)[0]:
                return None
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                return None
            buf += chunk
        line, _, buf = buf.partition(b"\n")
        return line.decode("utf-8", "replace")

    try:
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "hostile", "version": "1"}}}))
        if recv(60) is None:
            raise RuntimeError("the MCP server did not answer initialize")
        send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        replies = []
        for i, line in enumerate(lines, start=2):
            send(line.replace("ID", str(i)))
            replies.append(recv(timeout))
        return replies
    finally:
        proc.kill()
        proc.wait()
