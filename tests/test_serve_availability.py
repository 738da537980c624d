"""Availability: slow clients are cut off within the bound, forwarded headers do not dodge the rate limit.

Real uvicorn sockets on 127.0.0.1 (``benchmarks.harness.availability``: bounded loops over raw sockets). The
bounds here are short (1 s) so the tests are quick; the defaults (10 s) are ``Limits``'. Each guard
has a twin that switches it off (uvicorn's own h11 protocol, an unbounded body, uvicorn's default
trust of forwarded headers from 127.0.0.1) and requires the probe to catch it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
from fastapi.testclient import TestClient  # noqa: E402
from uvicorn.protocols.http.h11_impl import H11Protocol  # noqa: E402
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol  # noqa: E402

from chainret.server.app import create_app  # noqa: E402
from chainret.server.auth import Authenticator, TokenFile  # noqa: E402
from chainret.server.limits import Limits  # noqa: E402
from chainret.server.protocol import protocol_factory  # noqa: E402
from chainret.server.service import Service  # noqa: E402
from chainret.server.protocol_httptools import HEAD_BYTES  # noqa: E402
from benchmarks.harness.availability import ThreadServer, forwarded_bypasses, half_sent, long_head, slow_body, slow_headers  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "fixtures" / "seed"
BOUND, GRACE = 1.0, 2.0
HTTP = ["httptools", "h11"]  # both parsers chainret serve may run (--http), each with the same bounds
UNGUARDED = {"httptools": HttpToolsProtocol, "h11": H11Protocol}  # uvicorn's own protocols


@pytest.fixture(scope="module")
def service() -> Any:
    svc = Service(str(SEED))
    yield svc
    svc.close()


def _app(service: Service, **limits: Any) -> Any:
    return create_app(service, Authenticator(), Limits(**{"rate": 0, "header_timeout_s": BOUND, "body_timeout_s": BOUND, **limits}))


@pytest.mark.slow
@pytest.mark.parametrize("http", HTTP)
@pytest.mark.parametrize("guard", [True, False])
def test_slow_headers_and_half_sent_request_lines_are_cut_off(service: Service, guard: bool, http: str) -> None:
    protocol = protocol_factory(BOUND, http) if guard else UNGUARDED[http]
    with ThreadServer(_app(service), http=protocol, timeout_keep_alive=1) as server:
        still_slow = slow_headers(server.port, n=4, interval=0.25, bound=BOUND + GRACE)
        still_half = half_sent(server.port, n=40, bound=BOUND + GRACE)
    if guard:
        assert (still_slow, still_half) == (0, 0)
    else:  # uvicorn alone: every one of them is still connected
        assert (still_slow, still_half) == (4, 40)


@pytest.mark.slow
@pytest.mark.parametrize("guard", [True, False])
def test_a_slow_body_is_cut_off(service: Service, guard: bool) -> None:
    app = _app(service, body_timeout_s=BOUND if guard else 1000.0, timeout_s=1000.0)
    with ThreadServer(app, http=protocol_factory(BOUND)) as server:
        still = slow_body(server.port, n=3, interval=0.25, bound=BOUND + GRACE)
        declared_too_big = slow_body(server.port, n=3, interval=0.25, bound=GRACE, length=10**6)
    assert still == (0 if guard else 3)
    assert declared_too_big == 0  # answered 413 before its body: closed, not left reading a trickle


@pytest.mark.parametrize("http", HTTP)
def test_a_request_head_that_never_ends_is_refused_at_the_bound(service: Service, http: str) -> None:
    # h11 refuses a head over 16 KiB itself; llhttp keeps every header, so BoundedHttpToolsProtocol counts them
    with ThreadServer(_app(service), http=protocol_factory(30.0, http)) as server:
        sent, answer = long_head(server.port)
    assert sent is not None, "a 1 MiB request head was still being read"
    assert sent <= HEAD_BYTES + 256 * 1024 and answer.startswith(b"HTTP/1.1 400 ")


def test_uvicorns_own_httptools_protocol_reads_a_head_without_end(service: Service) -> None:
    # the twin: what the bound above guards against
    with ThreadServer(_app(service), http=HttpToolsProtocol) as server:
        assert long_head(server.port, limit=256 * 1024) == (None, b"")


@pytest.mark.parametrize("http", HTTP)
def test_a_large_body_sent_with_its_head_and_pipelined_requests_are_answered(service: Service, http: str) -> None:
    import json
    import re
    import socket

    # the head is small; the read it arrives in is not: the bound counts heads, not reads
    body = json.dumps({"request": "Which contact serves PR-84?", "pad": "x" * 40_000}).encode()
    post = (b"POST /ask HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)) + body
    get = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    with ThreadServer(_app(service), http=protocol_factory(30.0, http)) as server:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
            s.sendall(post + get + get)
            data = b""
            while data.count(b"HTTP/1.1 ") < 3:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
    statuses = re.findall(rb"HTTP/1\.1 (\d{3}) ", data)
    assert statuses[0] in (b"200", b"422") and statuses[1:] == [b"200", b"200"], data[:300]


@pytest.mark.parametrize("http", HTTP)
def test_the_timeout_answers_are_json_408(service: Service, http: str) -> None:
    import socket

    with ThreadServer(_app(service), http=protocol_factory(0.5, http)) as server:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            head = s.recv(65536)
        assert head.startswith(b"HTTP/1.1 408 ") and b'"header_timeout"' in head
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
            s.sendall(b"POST /ask HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{")
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        assert data.startswith(b"HTTP/1.1 408 ") and b'"body_timeout"' in data


@pytest.mark.parametrize("guard", [True, False])
def test_a_fresh_forwarded_for_per_request_does_not_dodge_the_rate_limit(service: Service, guard: bool) -> None:
    app = create_app(service, Authenticator(), Limits(rate=0.001, burst=5))
    proxy = {"proxy_headers": False, "forwarded_allow_ips": ""} if guard else {}  # {}: uvicorn's defaults
    with ThreadServer(app, http=protocol_factory(), **proxy) as server:
        bypasses = forwarded_bypasses(server.url, n=30, burst=5)
    assert bypasses == 0 if guard else bypasses == 25


def test_forwarded_for_from_a_named_proxy_is_the_client(service: Service) -> None:
    app = create_app(service, Authenticator(), Limits(rate=0.001, burst=5))
    with ThreadServer(app, http=protocol_factory(), proxy_headers=True, forwarded_allow_ips="127.0.0.1") as server:
        assert forwarded_bypasses(server.url, n=10, burst=5) == 5  # ten clients behind the proxy: none limited


@pytest.mark.parametrize("header", ["X-Forwarded-User", "Authorization"])
def test_a_duplicated_identity_header_is_refused(header: str) -> None:
    # its own Service: leaving TestClient runs the app's shutdown, which closes the service (the module's shared
    # one would then refuse every later test's requests, as it did under pytest -p random_order)
    service = Service(str(SEED))
    users = TokenFile(users=[{"user": "alice@example.org", "principal": "auditor"}, {"user": "bob", "principal": "public"}])
    app = create_app(service, Authenticator(users, trust_header="X-Forwarded-User"), Limits(rate=0))
    value = ("bob", "alice@example.org") if header == "X-Forwarded-User" else ("Bearer a", "Bearer b")
    with TestClient(app) as client:
        r = client.get("/patterns", headers=[(header, value[0]), (header, value[1])])
        assert r.status_code == 400 and r.json()["error"]["code"] == "duplicate_identity_header"
        if header == "X-Forwarded-User":
            assert client.get("/patterns", headers=[(header, value[1])]).status_code == 200
