"""`chainret mcp --http`: the SDK's own streamable HTTP client against a real server process.

Beside it runs `chainret serve` on the same catalog and token file: every tool result must be what
the HTTP API gives the same token (the projected trace, the answer, the patterns), and the token
rules must be the API's (listed token -> its principal; unknown token -> 401; none -> public, or 401
when the token file says `anonymous: false`).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from chainret.server.auth import hash_token
from benchmarks.harness.availability import read_response
from benchmarks.harness.local_server import LocalServer

pytest.importorskip("mcp")
import httpx2  # noqa: E402 - the SDK's HTTP client library
from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SUPPLY = ROOT / "fixtures" / "supply"
REQUEST = "Which lab certifies the supplier of V-12?"
AUDITOR, PUBLIC = "mcp-auditor-token-19ac", "mcp-public-token-6e02"


class McpHttp(LocalServer):
    """``python -m chainret mcp --http`` on a free loopback port (``LocalServer``'s port, log and ``stop``)."""

    def start(self) -> McpHttp:
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        assert self.log is not None
        self._log_fh = open(self.log, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen([sys.executable, "-m", "chainret", "mcp", "--http", "--port", str(self.port), *self.args],
                                     stdout=self._log_fh, stderr=subprocess.STDOUT, env=dict(os.environ))
        return self

    def wait(self, timeout: float = 60.0) -> McpHttp:
        assert self.proc is not None and self.log is not None, "start() first"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"chainret mcp --http exited: {self.log.read_text(errors='replace')[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("chainret mcp --http did not start listening")


def _tokens(path: Path, anonymous: bool = True) -> Path:
    path.write_text(json.dumps({"format": "chainret-tokens/1", "anonymous": anonymous, "tokens": [
        {"name": "audit", "sha256": hash_token(AUDITOR), "principal": "auditor"},
        {"name": "pub", "sha256": hash_token(PUBLIC), "principal": "public"},
    ]}), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("mcp-http")
    tokens, closed = _tokens(tmp / "tokens.json"), _tokens(tmp / "closed.json", anonymous=False)
    common = ["--catalog", str(SUPPLY), "--max-rows-per-hop", "5"]
    api = LocalServer([*common, "--tokens", str(tokens), "--rate", "0"], log=tmp / "api.log").start()
    mcp_open = McpHttp([*common, "--tokens", str(tokens)], log=tmp / "mcp.log").start()
    mcp_closed = McpHttp([*common, "--tokens", str(closed)], log=tmp / "mcp-closed.log").start()
    try:
        api.wait()
        yield {"api": api, "mcp": mcp_open.wait(), "closed": mcp_closed.wait()}
    finally:
        api.stop()
        mcp_open.stop()
        mcp_closed.stop()


def _session(url: str, token: str | None, calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, list[Any]]:
    """List the tools and make ``calls`` with the SDK's streamable HTTP client, sending ``token``."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}

    async def go() -> tuple[Any, list[Any]]:
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http, \
                streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                tools = await session.list_tools()
                results = []
                for name, args in calls:
                    if name == "verify_trace" and args == {}:
                        args = {"trace": results[0].structured_content["trace"]}
                    results.append(await session.call_tool(name, args))
                return tools, results

    return anyio.run(go)


def _api(url: str, token: str | None, method: str, path: str, body: Any = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    r = httpx.request(method, url + path, json=body, headers=headers, timeout=60)
    assert r.status_code == 200, r.text
    return r.json()


def _without_timing(out: dict[str, Any]) -> dict[str, Any]:
    trace = out["trace"]
    return {**out, "trace": {**trace, "meta": {k: v for k, v in trace["meta"].items() if k != "ask_ms"}}}


@pytest.mark.parametrize("who", ["auditor", "public", "anonymous"])
def test_mcp_http_answers_as_the_token_like_the_http_api(servers: Any, who: str) -> None:
    token = {"auditor": AUDITOR, "public": PUBLIC, "anonymous": None}[who]
    tools, (asked, patterns, verified) = _session(servers["mcp"].url, token, [
        ("ask", {"request": REQUEST}), ("list_patterns", {}), ("verify_trace", {})])
    by_name = {t.name: t for t in tools.tools}
    assert set(by_name) == {"ask", "list_patterns", "verify_trace"}
    assert "principal" not in by_name["ask"].input_schema["properties"]
    api_url = servers["api"].url
    api = _api(api_url, token, "POST", "/ask", {"request": REQUEST})
    assert not asked.is_error and _without_timing(asked.structured_content) == _without_timing(api)
    assert asked.structured_content["principal"] == ("auditor" if who == "auditor" else "public")
    assert patterns.structured_content == _api(api_url, token, "GET", "/patterns")
    assert verified.structured_content["status"] == "verified" and verified.structured_content["differences"] == []
    assert verified.structured_content == _api(api_url, token, "POST", "/trace/verify", asked.structured_content["trace"])


def test_mcp_http_auditor_and_public_differ_as_the_api_says(servers: Any) -> None:
    _, (aud,) = _session(servers["mcp"].url, AUDITOR, [("ask", {"request": REQUEST})])
    _, (pub,) = _session(servers["mcp"].url, PUBLIC, [("ask", {"request": REQUEST})])
    assert aud.structured_content["path"] != pub.structured_content["path"]
    # a public caller cannot replay the auditor's trace: it ran for another principal
    _, (cross,) = _session(servers["mcp"].url, PUBLIC, [("verify_trace", {"trace": aud.structured_content["trace"]})])
    assert cross.is_error and "trace_principal_mismatch" in cross.content[0].text


def test_mcp_http_token_rules(servers: Any) -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    accept = {"Accept": "application/json, text/event-stream"}
    for url, headers, code in [
        (servers["mcp"].url, {"Authorization": "Bearer not-a-token"}, "invalid_token"),
        (servers["mcp"].url, {"Authorization": "Basic dXNlcjpwdw=="}, "bad_authorization"),
        (servers["closed"].url, {}, "missing_credentials"),
    ]:
        r = httpx.post(url, json=init, headers={**headers, **accept}, timeout=30)
        assert r.status_code == 401 and r.json()["error"]["code"] == code and "www-authenticate" in r.headers
    with pytest.raises(Exception):  # noqa: B017 - the SDK's client surfaces the 401 as an error
        _session(servers["mcp"].url, "not-a-token", [])
    _, (ok,) = _session(servers["closed"].url, PUBLIC, [("list_patterns", {})])
    assert not ok.is_error


def test_mcp_http_concurrent_callers_keep_their_own_principal(servers: Any) -> None:
    """Interleaved requests from an auditor and a public client: each answer is its own caller's."""
    url = servers["mcp"].url
    got: list[tuple[str, str]] = []

    async def client(token: str, expect: str) -> None:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http, \
                streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                for _ in range(6):
                    r = await session.call_tool("ask", {"request": REQUEST})
                    got.append((expect, r.structured_content["principal"]))

    async def go() -> None:
        async with anyio.create_task_group() as tg:
            for token, expect in [(AUDITOR, "auditor"), (PUBLIC, "public")] * 2:
                tg.start_soon(client, token, expect)

    anyio.run(go)
    assert len(got) == 24 and all(want == have for want, have in got)


# Bounds of `chainret mcp --http`, set small by its flags so each guard is reached in about a second.
STREAMS, STREAMS_PER_CLIENT = 3, 2
INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}).encode()


@pytest.fixture(scope="module")
def bounded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpHttp]:
    tmp = tmp_path_factory.mktemp("mcp-bounds")
    server = McpHttp(["--catalog", str(SUPPLY), "--tokens", str(_tokens(tmp / "tokens.json")), "--body-timeout", "1",
                      "--max-streams", str(STREAMS), "--max-streams-per-client", str(STREAMS_PER_CLIENT),
                      "--stream-idle-timeout", "1", "--max-connections-per-client", "20"], log=tmp / "mcp.log").start()
    try:
        yield server.wait()
    finally:
        server.stop()


def _request(port: int, line: str, headers: dict[str, str], body: bytes = b"", pause_after: int | None = None) -> socket.socket:
    """A connection that sent ``line``, its headers (Host added) and ``body``: whole, or its first ``pause_after``
    bytes, a short pause and the rest (an honest upload, slow but complete)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    head = "".join(f"{k}: {v}\r\n" for k, v in {"Host": f"127.0.0.1:{port}", **headers}.items())
    s.sendall(f"{line}\r\n{head}\r\n".encode() + body[:pause_after])
    if pause_after is not None:
        time.sleep(0.2)
        s.sendall(body[pause_after:])
    return s


def _post(port: int, body: bytes, declared: int | None = None, pause_after: int | None = None) -> socket.socket:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "Content-Length": str(len(body) if declared is None else declared)}
    return _request(port, "POST /mcp HTTP/1.1", headers, body, pause_after)


def test_mcp_http_a_body_that_stops_is_answered_408_and_an_honest_slow_one_is_served(bounded: McpHttp) -> None:
    with _post(bounded.port, b"{", declared=500) as s:  # 500 bytes declared, 1 sent
        status, headers, body = read_response(s, whole=True)  # whole: the server closes the connection after its answer
    assert (status, json.loads(body)["error"]["code"], headers.get("connection")) == (408, "body_timeout", "close")
    with _post(bounded.port, INIT, pause_after=10) as s:  # the control: slow but complete, within the bound
        status, _, body = read_response(s)
    assert status == 200 and json.loads(body)["result"]["serverInfo"]
    assert "Traceback" not in bounded.log.read_text(errors="replace")  # type: ignore[union-attr]


def _stream(port: int, token: str | None) -> tuple[socket.socket, int, dict[str, str], bytes]:
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    s = _request(port, "GET /mcp HTTP/1.1", {"Accept": "text/event-stream", **auth})
    status, headers, body = read_response(s)
    return s, status, headers, body


def test_mcp_http_event_streams_are_capped_per_client_and_in_all_and_idle_ones_end(bounded: McpHttp) -> None:
    opened = [_stream(bounded.port, AUDITOR) for _ in range(STREAMS_PER_CLIENT)]
    assert [(st, h.get("content-type", "").split(";")[0]) for _, st, h, _ in opened] == [(200, "text/event-stream")] * 2
    s, status, headers, body = _stream(bounded.port, AUDITOR)  # one more for the same token
    assert (status, json.loads(body)["error"]["code"], headers.get("retry-after")) == (429, "too_many_streams", "1")
    s.close()
    other = _stream(bounded.port, PUBLIC)  # the control: another client still gets one
    assert other[1] == 200
    s, status, headers, body = _stream(bounded.port, None)  # past the total
    assert (status, json.loads(body)["error"]["code"], headers.get("retry-after")) == (503, "too_many_streams", "1")
    s.close()
    for s, *_ in [*opened, other]:  # each stream ends on its own, idle (a whole chunked body, ended)
        rest = b""
        while not rest.endswith(b"0\r\n\r\n"):
            chunk = s.recv(65536)
            assert chunk, f"the stream was cut, not ended: {rest!r}"
            rest += chunk
    again = _stream(bounded.port, AUDITOR)  # the ended streams gave their places back
    assert again[1] == 200
    for s, *_ in [*opened, other, again]:
        s.close()
    assert "Traceback" not in bounded.log.read_text(errors="replace")  # type: ignore[union-attr]
