"""Hostile JSON in any field of ``POST /trace/verify`` is a 4xx with a JSON error, never a 500.

A real trace (``/ask`` as public on the seed world) is mutated at every field path with every JSON
type (``benchmarks.harness.hostile``): a hypothesis property over (path, kind), both body shapes (bare and
``{"trace": ...}``), a guard-off test that switches the edge checks off and requires the property
to find the crash, and a few payloads over a real uvicorn socket on one keep-alive connection,
which must answer the next request instead of resetting.
"""

from __future__ import annotations

import json
import logging
import socket
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from chainret.server.app import ServeConfig, build  # noqa: E402
from chainret.server.limits import Limits  # noqa: E402
from benchmarks.harness.hostile import DELETE, KINDS, encode, field_paths, http_failures, is_error_body, mutate, mutations  # noqa: E402
from benchmarks.harness.local_server import LocalServer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "fixtures" / "seed"
REQUEST = "Which contact serves PR-84?"


@pytest.fixture(scope="module")
def client() -> Any:
    logging.getLogger("chainret.server").disabled = True  # the guard-off test logs tracebacks on purpose
    _, _, app = build(ServeConfig(catalog=str(SEED), limits=Limits(rate=0)))
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c
    logging.getLogger("chainret.server").disabled = False


@pytest.fixture(scope="module")
def trace(client: Any) -> dict[str, Any]:
    r = client.post("/ask", json={"request": REQUEST})
    assert r.status_code == 200 and r.json()["outcome"] == "accepted_path"
    return r.json()["trace"]


def test_both_body_shapes_verify(client: Any, trace: dict[str, Any]) -> None:
    for body in (trace, {"trace": trace}):
        r = client.post("/trace/verify", json=body)
        assert r.status_code == 200 and r.json()["status"] == "verified", r.text
    r = client.post("/trace/verify", json={"trace": trace, "extra": 1})  # neither shape: a trace lacks fields
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"


@pytest.mark.parametrize("key", ["view", "viewer", "principal", "projected", "backtrack", "catalog"])
@pytest.mark.parametrize("value", [[1], {"a": 1}, ["public"], 7])
def test_a_meta_key_of_the_wrong_type_is_422(client: Any, trace: dict[str, Any], key: str, value: Any) -> None:
    r = client.post("/trace/verify", json=mutate(trace, ("meta", key), value))
    assert r.status_code == 422, r.text
    err = r.json()["error"]
    assert err["code"] == "invalid_request" and err["message"].startswith(f"body: meta.{key}: Input should be a valid")


def test_invalid_unicode_and_non_json_numbers_are_4xx(client: Any, trace: dict[str, Any]) -> None:
    for body in (mutate(trace, ("request",), "x\ud800"), mutate(trace, ("meta", "note"), "\udfff"),
                 mutate(trace, ("meta", "ask_ms"), float("nan")), mutate(trace, ("hops", 0, "predicate"), "\ud800")):
        r = client.post("/trace/verify", content=encode(body), headers={"content-type": "application/json"})
        assert 400 <= r.status_code < 500 and is_error_body(r.content), r.text
    r = client.post("/ask", content=b'{"request": "Which contact serves \\ud800?"}', headers={"content-type": "application/json"})
    assert r.status_code == 422 and is_error_body(r.content)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_field_with_every_json_type_is_answered_below_500(client: Any, trace: dict[str, Any], data: Any) -> None:
    paths = list(field_paths(trace))
    path = data.draw(st.sampled_from(paths), label="path")
    kind = data.draw(st.sampled_from(range(len(KINDS))), label="kind")
    wrap = data.draw(st.booleans(), label="wrap")
    body = mutate({"trace": trace} if wrap else trace, (("trace",) if wrap else ()) + path, KINDS[kind])
    assert http_failures(client, [(f"{path}={kind}", body)]) == []


def test_the_property_catches_the_crash_when_the_edge_checks_are_off(client: Any, trace: dict[str, Any],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import chainret.server.inputs as inputs

    payloads = [m for m in mutations(trace) if m[0].startswith(("meta.view", "hops.0.predicate"))]
    assert http_failures(client, payloads) == []
    monkeypatch.setattr(inputs, "json_problem", lambda *a, **k: None)
    monkeypatch.setattr(inputs, "meta_problem", lambda *a, **k: None)
    assert len(http_failures(client, payloads)) > 0


def _raw_exchange(sock: socket.socket, body: bytes) -> tuple[int, bytes]:
    """One POST /trace/verify on an open keep-alive socket; (status, body). Bounded by the socket timeout."""
    sock.sendall(b"POST /trace/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed before the response headers")
        buf += chunk
    head, _, rest = buf.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed mid-body")
        rest += chunk
    return status, rest[:length]


@pytest.mark.slow
def test_hostile_bodies_over_a_real_socket_keep_the_connection(trace: dict[str, Any], tmp_path: Path) -> None:
    bodies = [encode(mutate(trace, ("meta", "view"), [1])), encode(mutate(trace, ("meta", "viewer"), {"a": 1})),
              encode(mutate(trace, ("request",), "\ud800")), b"[" * 5000 + b"]" * 5000, b'{"request": 1e999999}',
              b"\xff\xfe not utf-8", encode({"trace": mutate(trace, ("meta", "projected"), "yes")})]
    with LocalServer(["--catalog", str(SEED), "--rate", "0"], log=tmp_path / "serve.log") as server, \
            socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        for body in bodies:
            status, out = _raw_exchange(sock, body)
            assert 400 <= status < 500 and is_error_body(out), (status, out[:200])
        status, out = _raw_exchange(sock, json.dumps(trace).encode())  # the same connection still answers
        assert status == 200 and json.loads(out)["status"] == "verified"
    assert "Traceback" not in (tmp_path / "serve.log").read_text(errors="replace")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_ask_field_with_every_json_type_is_answered_below_500(client: Any, data: Any) -> None:
    body = {"request": REQUEST, "view": "final", "viewer": "public", "budget": {"rows_per_hop": 3, "max_hops": 2},
            "min_revision": "1.0"}
    path = data.draw(st.sampled_from(list(field_paths(body))), label="path")
    kind = data.draw(st.sampled_from(range(len(KINDS))), label="kind")
    assert http_failures(client, [(f"{path}={kind}", mutate(body, path, KINDS[kind]))], path="/ask") == []
    assert http_failures(client, [(f"{path}=<deleted>", mutate(body, path, DELETE) if path else {})], path="/ask") == []
