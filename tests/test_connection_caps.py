"""Connections per client address and in all, for both servers (``chainret serve``, ``chainret mcp --http``).

Real uvicorn sockets on 127.0.0.1 (``benchmarks.harness.availability.ThreadServer``) with the bounded protocol and
small caps. Linux routes all of 127.0.0.0/8 to loopback, so a client socket bound to 127.0.0.2 is a
second client address. Each refusal has its control beside it: under the caps, and from another
address, connections are served.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
from chainret.server.app import create_app  # noqa: E402
from chainret.server.auth import Authenticator  # noqa: E402
from chainret.server.limits import Limits  # noqa: E402
from chainret.server.protocol import ConnectionCaps, protocol_factory  # noqa: E402
from chainret.server.service import Service  # noqa: E402
from benchmarks.harness.availability import ThreadServer, read_response  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "fixtures" / "seed"
PER_CLIENT, TOTAL = 3, 4


@pytest.fixture(scope="module")
def service() -> Iterator[Service]:
    svc = Service(str(SEED), Limits(rate=0))
    yield svc
    svc.close()


def _app(service: Service, which: str) -> Any:
    if which == "serve":
        return create_app(service, Authenticator(), service.limits)
    pytest.importorskip("mcp")
    from chainret.server.mcp_http import build_http_app

    return build_http_app(service, Authenticator())


class Conn:
    """One keep-alive client connection from ``source``; ``ask`` sends one request and reads its response."""

    def __init__(self, port: int, source: str = "127.0.0.1") -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.bind((source, 0))
        self.sock.connect(("127.0.0.1", port))
        self.port = port

    def ask(self) -> tuple[int, dict[str, str], bytes, bool]:
        """(status, headers, body, closed by the server after it)."""
        self.sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % self.port)
        status, headers, body = read_response(self.sock)
        closed = False
        if headers.get("connection") == "close":
            self.sock.settimeout(5)
            closed = self.sock.recv(1) == b""
        return status, headers, body, closed

    def close(self) -> None:
        self.sock.close()


def _status(port: int, source: str = "127.0.0.1") -> int:
    c = Conn(port, source)
    try:
        return c.ask()[0]
    finally:
        c.close()


@pytest.mark.parametrize("which,http", [("serve", "httptools"), ("serve", "h11"), ("mcp", "auto")])
def test_connections_past_the_caps_are_refused_with_retry_after_and_closed(service: Service, which: str, http: str) -> None:
    caps = ConnectionCaps(TOTAL, PER_CLIENT)
    with ThreadServer(_app(service, which), http=protocol_factory(30.0, http, caps)) as server:
        served = [Conn(server.port) for _ in range(PER_CLIENT)]
        ok = [c.ask()[0] for c in served]
        assert all(s not in (429, 503) for s in ok), ok  # under the cap: served (the MCP app answers /healthz 404)
        status, headers, body, closed = Conn(server.port).ask()
        assert (status, json.loads(body)["error"]["code"], headers.get("retry-after"), closed) == \
            (429, "too_many_connections", "1", True)
        other = Conn(server.port, "127.0.0.2")
        assert other.ask()[0] not in (429, 503)  # another address is still served
        status, headers, body, closed = Conn(server.port, "127.0.0.2").ask()
        assert (status, json.loads(body)["error"]["code"], headers.get("retry-after"), closed) == (503, "server_busy", "1", True)
        assert all(c.ask()[0] == ok[0] for c in served)  # the admitted connections are untouched
        served.pop().close()
        for _ in range(100):  # the server counts the close when its event loop sees it
            if _status(server.port) not in (429, 503):
                break
            time.sleep(0.05)
        else:
            pytest.fail("a closed connection's place was never given back")
        for c in [*served, other]:
            c.close()
    assert caps._count == 0 and not caps._open  # every admitted connection was released


def test_named_proxies_count_towards_the_total_only() -> None:
    caps = ConnectionCaps(6, 1, exempt="10.0.0.0/8, proxy.sock")
    assert [caps.admit("10.1.2.3") for _ in range(3)] == [None] * 3  # a named proxy: many clients behind it
    assert caps.admit("proxy.sock") is None
    assert caps.admit("192.0.2.1") is None
    assert caps.admit("192.0.2.1")[:2] == (429, "too_many_connections")  # type: ignore[index]
    assert caps.admit("10.1.2.3") is None
    assert caps.admit("10.1.2.3")[:2] == (503, "server_busy")  # type: ignore[index]
    caps.release("10.1.2.3")
    assert caps.admit("10.9.9.9") is None
    assert ConnectionCaps(2, 1, exempt="*").admit("anything") is None


def test_the_caps_are_cli_flags_of_both_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    import uvicorn
    from chainret.cli import app

    runs: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **kw: runs.append(kw))
    res = CliRunner().invoke(app, ["serve", "--catalog", str(SEED), "--max-connections", "7",
                                   "--max-connections-per-client", "2", "--forwarded-allow-ips", "10.0.0.1"])
    assert res.exit_code == 0, res.output
    caps = runs[-1]["http"].keywords["caps"]
    assert (caps.total, caps.per_client, caps._exempt("10.0.0.1"), caps._exempt("10.0.0.2")) == (7, 2, True, False)
    for cmd in (["serve"], ["mcp"]):
        res = CliRunner().invoke(app, [*cmd, "--max-connections", "0", "--catalog", str(SEED), *(["--http"] if cmd == ["mcp"] else [])])
        assert res.exit_code != 0 and "Traceback" not in res.output and "connections" in res.output
