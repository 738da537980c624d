"""`chainret serve`: real server processes on 127.0.0.1, driven by httpx.

One server per fixture world and one per case overlay (started in parallel, once per session),
plus an "edge" server with a trusted identity header, a low rate limit and small limits. Every
fixture case is asked with a public token and an auditor token and compared with the library's
projected trace for each principal; no public response may carry a byte of text public may not read.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from chainret.pipeline.ask import answer, ask
from chainret.catalog.load import apply_overlay, load_world
from chainret.catalog.readable import reader_digest
from chainret.server.auth import hash_token
from chainret.server.limits import DEFAULT_CEILING
from benchmarks.harness.local_server import LocalServer, hidden_strings
from chainret.trace.model import Budget, Trace

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
AUDITOR, PUBLIC, BURST = "auditor-token-3f9c", "public-token-81aa", "burst-token-77e0"


def _cases() -> list[tuple[str, Any, Any]]:
    out = []
    for wdir in sorted(p for p in FIXTURES.iterdir() if (p / "cases.yaml").is_file()):
        world = load_world(wdir)
        for case in world.cases:
            out.append((wdir.name, world, case))
    return out


CASES = _cases()


def _tokens_file(path: Path, **extra: Any) -> Path:
    data = {
        "format": "chainret-tokens/1",
        "tokens": [
            {"name": "audit", "sha256": hash_token(AUDITOR), "principal": "auditor", "viewers": ["public"]},
            {"name": "pub", "sha256": hash_token(PUBLIC), "principal": "public"},
            {"name": "burst", "sha256": hash_token(BURST), "principal": "public"},
        ],
        **extra,
    }
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _server_key(world_name: str, case: Any) -> str:
    return f"{world_name}-{case.id}" if case.overlay is not None else world_name


@pytest.fixture(scope="session")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """key -> (LocalServer, Catalog): each world, each overlay case's catalog, and the edge server."""
    tmp = tmp_path_factory.mktemp("serve")
    tokens = _tokens_file(tmp / "tokens.json")
    catalogs: dict[str, Any] = {}
    for world_name, world, case in CASES:
        key = _server_key(world_name, case)
        if key not in catalogs:
            catalogs[key] = apply_overlay(world.catalog, case.overlay, label=case.id)
    started: dict[str, Any] = {}
    for key, cat in catalogs.items():
        path = tmp / f"{key}.json"
        path.write_text(json.dumps(cat.model_dump(mode="json")), encoding="utf-8")
        started[key] = (LocalServer(["--catalog", str(path), "--tokens", str(tokens), "--rate", "0"], log=tmp / f"{key}.log").start(), cat)
    edge_tokens = _tokens_file(tmp / "edge-tokens.yaml", users=[{"user": "alice@example.org", "principal": "auditor"}])
    edge_cat = load_world(FIXTURES / "seed").catalog
    edge = LocalServer(
        ["--catalog", str(FIXTURES / "seed"), "--tokens", str(edge_tokens), "--trust-header", "X-Forwarded-User",
         "--rate", "0.5", "--burst", "12", "--max-body-bytes", "4096", "--max-rows-per-hop", "5", "--max-hops", "3"],
        log=tmp / "edge.log",
    ).start()
    started["edge"] = (edge, edge_cat)
    try:
        for srv, _ in started.values():
            srv.wait()
        yield started
    finally:
        for srv, _ in started.values():
            srv.stop()


def _client(base: str, token: str | None = None, **headers: str) -> httpx.Client:
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.Client(base_url=base, headers=headers, timeout=30)


def _stable(trace: Trace | dict[str, Any]) -> dict[str, Any]:
    t = Trace.model_validate(trace) if isinstance(trace, dict) else trace
    d = t.model_dump(mode="json")
    d["meta"].pop("ask_ms", None)
    return d


def _ask_body(case: Any, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"request": case.request, **extra}
    if case.view is not None:
        body["view"] = case.view
    if case.budget is not None:
        body["budget"] = case.budget.model_dump(exclude_unset=True)
    return body


# -- every fixture case: the token decides what comes back ----------------------------------------------
@pytest.mark.parametrize("world_name,world,case", CASES, ids=[f"{w}/{c.id}" for w, _, c in CASES])
def test_public_token_never_gets_what_the_auditor_token_gets(servers: Any, world_name: str, world: Any, case: Any) -> None:
    srv, cat = servers[_server_key(world_name, case)]
    body = _ask_body(case)
    got: dict[str, dict[str, Any]] = {}
    for principal, token in (("auditor", AUDITOR), ("public", PUBLIC), ("public", None)):
        with _client(srv.url, token) as c:
            r = c.post("/ask", json=body)
        assert r.status_code == 200, r.text
        data = r.json()
        assert data["principal"] == principal and data["viewer"] == principal
        lib = ask(case.request, cat, view=case.view, principal=principal, budget=case.budget, viewer=principal,
                  ceiling=DEFAULT_CEILING)
        assert _stable(data["trace"]) == _stable(lib), f"{principal} response differs from the library's projection"
        assert data["outcome"] == lib.outcome
        if lib.outcome == "accepted_path":
            assert data["answer"] == {"id": lib.path_ids[-1], "name": cat.entities_by_id[lib.path_ids[-1]].name}
            assert [n["id"] for n in data["path"]] == lib.path_ids
        else:
            assert data["answer"] is None and data["path"] == []
        got[principal if token is not None else "anonymous"] = data
        if principal == "public":
            for secret in hidden_strings(cat, "public"):
                assert secret not in r.text, f"public response carries {secret[:60]!r}"
    assert got["anonymous"]["trace"]["outcome"] == got["public"]["trace"]["outcome"]
    # A public token cannot widen its viewer, and an identity header it sends is not authorization.
    with _client(srv.url, PUBLIC, **{"X-Forwarded-User": "auditor"}) as c:
        r = c.post("/ask", json=_ask_body(case, viewer="auditor"))
        assert r.status_code == 403 and r.json()["error"]["code"] == "viewer_not_allowed"
        r = c.post("/ask", json=body)
        assert r.json()["principal"] == "public" and _stable(r.json()["trace"]) == _stable(got["public"]["trace"])


def test_auditor_token_may_ask_for_the_narrower_public_view(servers: Any) -> None:
    srv, cat = servers["supply"]
    with _client(srv.url, AUDITOR) as c:
        data = c.post("/ask", json={"request": "Which lab certifies the supplier of V-12?", "viewer": "public"}).json()
    lib = ask("Which lab certifies the supplier of V-12?", cat, principal="auditor", viewer="public", ceiling=DEFAULT_CEILING)
    assert data["principal"] == "auditor" and data["viewer"] == "public"
    assert _stable(data["trace"]) == _stable(lib)
    assert not any(x in json.dumps(data) for x in hidden_strings(cat, "public"))  # what public may see, no more
    with _client(srv.url, AUDITOR) as c:  # the leak check can fail: the auditor's own view carries such strings
        own = c.post("/ask", json={"request": "Which lab certifies the supplier of V-12?"}).text
    assert any(secret in own for secret in hidden_strings(cat, "public"))


# -- authentication -------------------------------------------------------------------------------------
@pytest.mark.parametrize("auth", ["Bearer wrong-token", "Bearer", "Basic dXNlcjpwYXNz", "auditor", f"Bearer {AUDITOR}x"])
def test_a_bad_credential_is_401_never_a_downgrade(servers: Any, auth: str) -> None:
    srv, _ = servers["seed"]
    with _client(srv.url, Authorization=auth) as c:
        for r in (c.post("/ask", json={"request": "Which contact serves PR-84?"}), c.get("/patterns"),
                  c.post("/trace/verify", json={"request": "x", "outcome": "no_pattern"})):
            assert r.status_code == 401, r.text
            assert r.json()["error"]["code"] in ("invalid_token", "bad_authorization")
            assert "WWW-Authenticate" in r.headers


def test_trusted_header_only_when_configured(servers: Any) -> None:
    srv, cat = servers["edge"]
    req = {"request": "Which contact serves PR-84?", "view": "final"}
    with _client(srv.url, **{"X-Forwarded-User": "alice@example.org"}) as c:
        data = c.post("/ask", json=req).json()
    assert data["principal"] == "auditor"
    assert _stable(data["trace"]) == _stable(ask(req["request"], cat, view="final", principal="auditor", ceiling=DEFAULT_CEILING))
    with _client(srv.url, **{"X-Forwarded-User": "mallory"}) as c:
        r = c.post("/ask", json=req)
    assert r.status_code == 401 and r.json()["error"]["code"] == "unknown_user"
    with _client(srv.url, PUBLIC, **{"X-Forwarded-User": "alice@example.org"}) as c:
        r = c.post("/ask", json=req)
    assert r.status_code == 400 and r.json()["error"]["code"] == "conflicting_credentials"


def test_the_principal_is_never_taken_from_the_body(servers: Any) -> None:
    srv, _ = servers["seed"]
    with _client(srv.url, PUBLIC) as c:
        r = c.post("/ask", json={"request": "Which contact serves PR-84?", "principal": "auditor"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "principal_not_accepted"


# -- endpoints --------------------------------------------------------------------------------------------
def test_healthz_patterns_and_openapi(servers: Any) -> None:
    srv, cat = servers["lab"]
    with _client(srv.url) as c:
        h = c.get("/healthz").json()
        assert h == {"status": "ok", "world": cat.world, "version": h["version"]}  # no digest: it moves with hidden text
        p = c.get("/patterns").json()
        assert p["catalog_digest"] == reader_digest(cat, "public")
        assert [x["name"] for x in p["patterns"]] == [x.name for x in cat.patterns]
        assert p["patterns"][0]["phrasings"] == cat.patterns[0].phrasings
        assert [v["name"] for v in p["views"] if v["current"]] == [cat.current_view.name]
        spec = c.get("/openapi.json").json()
        assert {"/ask", "/patterns", "/trace/verify", "/healthz"} <= set(spec["paths"])
        assert "HTTPBearer" in json.dumps(spec["components"]["securitySchemes"])
        assert "principal" not in spec["components"]["schemas"]["AskIn"]["properties"]
        assert c.get("/docs").status_code == 200


def test_a_request_that_matches_no_phrasing_gets_the_closest_phrasings(servers: Any) -> None:
    srv, cat = servers["lab"]
    with _client(srv.url) as c:
        missed = c.post("/ask", json={"request": "what does the Optics group calibrate lately"}).json()
        answered = c.post("/ask", json={"request": "Which site calibrates the instrument used by E-7?"}).json()
        listed = {(x["name"], ph) for x in c.get("/patterns").json()["patterns"] for ph in x["phrasings"]}
    assert missed["outcome"] == "no_pattern" and answered["outcome"] == "accepted_path"
    got = [(x["pattern"], x["phrasing"]) for x in missed["suggestions"]]
    assert got == answer("what does the Optics group calibrate lately", cat).suggestions and len(got) == 3
    assert set(got) <= listed  # only phrasings every caller may list
    assert answered["suggestions"] == []


def test_trace_verify(servers: Any) -> None:
    from chainret.verify.replay import verify

    srv, cat = servers["supply"]
    secret_doc = next(d for d in cat.documents if not d.readable_by("public"))
    req = {"request": "Which lab certifies the supplier of V-12?"}
    with _client(srv.url, AUDITOR) as audit, _client(srv.url, PUBLIC) as pub:
        trace = audit.post("/ask", json=req).json()["trace"]
        ok = audit.post("/trace/verify", json=trace).json()
        assert ok == {"status": "verified", "ok": True, "catalog_changed": False, "differences": [],
                      "revision": trace["meta"]["revision"]}
        # another principal's trace is not replayed for this token
        r = pub.post("/trace/verify", json=trace)
        assert r.status_code == 403 and r.json()["error"]["code"] == "trace_principal_mismatch"
        # a tampered trace is reported; a case file named in its meta is not read
        public_trace = pub.post("/ask", json=req).json()["trace"]
        tampered = json.loads(json.dumps(public_trace))
        tampered["outcome"] = "accepted_path" if tampered["outcome"] != "accepted_path" else "partial_evidence"
        tampered["meta"].update(cases_file="/etc/passwd", case="backtrack")
        out = pub.post("/trace/verify", json=tampered).json()
        assert out["status"] == "mismatch" and "replay" in {d["kind"] for d in out["differences"]}
        # a forged citation of a document public may not read (or of none at all) gets one uniform
        # message and nothing of the document: the library alone would quote its text back
        forged = json.loads(json.dumps(public_trace))
        hop = next(h for h in forged["hops"] if h["anchor"] is not None)
        hop["anchor"].update(source=secret_doc.source, document=secret_doc.document, version=secret_doc.version,
                             unit_ref=f"{secret_doc.ref}#u1", digest=secret_doc.digest, span=[0, len(secret_doc.text)], quote="?")
        assert any(x in json.dumps(verify(Trace.model_validate(forged), cat).model_dump()) for x in hidden_strings(cat, "public"))
        r = pub.post("/trace/verify", json=forged)
        out = r.json()
        assert out["status"] == "mismatch" and [d["kind"] for d in out["differences"]] == ["evidence"]
        assert out["differences"][0]["message"] == "cites a document version that public may not read"
        assert not any(x in r.text for x in hidden_strings(cat, "public")) and secret_doc.digest not in r.text
        hop["anchor"].update(source="nowhere", unit_ref="nowhere/x.md@v9#u1")
        assert pub.post("/trace/verify", json=forged).json()["differences"] == out["differences"]
        r = pub.post("/trace/verify", json={**public_trace, "budget": {**public_trace["budget"], "rows_per_hop": 500}})
        assert r.status_code == 400 and r.json()["error"]["code"] == "budget_exceeds_limit"


# -- limits -------------------------------------------------------------------------------------------------
def test_budget_ceilings(servers: Any) -> None:
    srv, cat = servers["edge"]  # --max-rows-per-hop 5 --max-hops 3
    with _client(srv.url, PUBLIC) as c:
        for over in ({"rows_per_hop": 6}, {"max_hops": 4}, {"max_rows": 41}, {"packet_chars": 10**6}):
            r = c.post("/ask", json={"request": "Which contact serves PR-84?", "budget": over})
            assert r.status_code == 400 and r.json()["error"]["code"] == "budget_exceeds_limit", over
        data = c.post("/ask", json={"request": "Which contact serves PR-84?", "budget": {"rows_per_hop": 5}}).json()
    assert data["trace"]["budget"]["rows_per_hop"] == 5
    assert _stable(data["trace"]) == _stable(ask("Which contact serves PR-84?", cat, budget=Budget(rows_per_hop=5)))


def test_malformed_and_oversized_requests_get_json_errors(servers: Any) -> None:
    srv, _ = servers["edge"]  # --max-body-bytes 4096
    with _client(srv.url, AUDITOR) as c:
        cases = [
            (c.post("/ask", content=b'{"request": "Which', headers={"Content-Type": "application/json"}), 400, "bad_json"),
            (c.post("/ask", json={"request": 42}), 422, "invalid_request"),
            (c.post("/ask", content=b'{"request": "x"}', headers={"Content-Type": "text/plain"}), 422, "invalid_request"),
            (c.post("/ask", json=["Which contact serves PR-84?"]), 422, "invalid_request"),
            (c.post("/ask", json={"request": ""}), 422, "invalid_request"),
            (c.post("/ask", json={"request": "x", "budget": {"rows_per_hop": 0}}), 422, "invalid_request"),
            (c.post("/ask", json={"request": "x" * 5000}), 413, "body_too_large"),
            (c.post("/ask", content=iter([b'{"request": "', b"x" * 3000, b"x" * 3000, b'"}']),
                    headers={"Content-Type": "application/json"}), 413, "body_too_large"),
            (c.post("/trace/verify", content=b"[1, 2", headers={"Content-Type": "application/json"}), 400, "bad_json"),
            (c.get("/nowhere"), 404, "not_found"),
            (c.get("/ask"), 405, "method_not_allowed"),
        ]
    for r, status, code in cases:
        assert r.status_code == status, (code, r.text)
        assert r.headers["content-type"].startswith("application/json")
        assert r.json()["error"]["code"] == code


def test_rate_limit_per_token(servers: Any) -> None:
    srv, _ = servers["edge"]  # --rate 0.5 --burst 12
    with _client(srv.url, BURST) as c:
        codes = [c.get("/patterns").status_code for _ in range(14)]
        assert codes[:12] == [200] * 12 and codes[-1] == 429
        r = c.get("/patterns")
        assert r.json()["error"]["code"] == "rate_limited" and int(r.headers["Retry-After"]) >= 1
    with _client(srv.url, AUDITOR) as other:  # another token has its own bucket
        assert other.get("/patterns").status_code == 200


def test_worker_processes_answer_like_one(tmp_path: Path) -> None:
    cat = load_world(FIXTURES / "seed").catalog
    tokens = _tokens_file(tmp_path / "tokens.json")
    with LocalServer(["--catalog", str(FIXTURES / "seed"), "--tokens", str(tokens), "--workers", "2", "--rate", "0"],
                     log=tmp_path / "server.log") as srv, _client(srv.url, AUDITOR) as c:
        for view in ("final", "revised", "final", "revised"):
            data = c.post("/ask", json={"request": "Which contact serves PR-84?", "view": view}).json()
            assert _stable(data["trace"]) == _stable(ask("Which contact serves PR-84?", cat, view=view, principal="auditor", ceiling=DEFAULT_CEILING))
        assert c.post("/ask", headers={"Authorization": "Bearer nope"}, json={"request": "x"}).status_code == 401


def test_serving_a_compiled_store(tmp_path: Path) -> None:
    """The same answers from a compiled SQLite store (runs once the store package is merged)."""
    store = pytest.importorskip("chainret.store")
    world = load_world(FIXTURES / "seed")
    db = tmp_path / "seed.db"
    store.compile_store(world.catalog, db)
    tokens = _tokens_file(tmp_path / "tokens.json")
    with LocalServer(["--catalog", str(db), "--tokens", str(tokens), "--rate", "0"], log=tmp_path / "server.log") as srv:
        for principal, token in (("public", PUBLIC), ("auditor", AUDITOR)):
            with _client(srv.url, token) as c:
                for case in [c_ for c_ in world.cases if c_.overlay is None]:
                    data = c.post("/ask", json=_ask_body(case)).json()
                    lib = ask(case.request, world.catalog, view=case.view, principal=principal, budget=case.budget,
                              ceiling=DEFAULT_CEILING)
                    got, want = _stable(data["trace"]), _stable(lib)
                    got["meta"].pop("catalog", None), want["meta"].pop("catalog", None)
                    assert "log" in got["meta"] or not any(h["anchor"] for h in got["hops"])  # the store's log proofs
                    got["meta"].pop("log", None)
                    assert got == want, (principal, case.id)
                    assert c.post("/trace/verify", json=data["trace"]).json()["ok"], (principal, case.id)


def test_bad_limits_are_a_usage_error() -> None:
    r = _serve("--catalog", str(FIXTURES / "seed"), "--timeout", "0")
    assert r.returncode == 2 and "timeout_s" in r.stderr and "Traceback" not in r.stderr


# -- start-up ------------------------------------------------------------------------------------------------
def _serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "chainret", "serve", *args], capture_output=True, text=True, timeout=60)


def test_token_file_problems_stop_the_server_with_a_message(tmp_path: Path) -> None:
    plain = tmp_path / "plain.yaml"
    plain.write_text("tokens:\n- name: ops\n  token: hunter2\n  principal: auditor\n", encoding="utf-8")
    r = _serve("--catalog", str(FIXTURES / "seed"), "--tokens", str(plain))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "plain.yaml" in r.stderr and "tokens.0 (ops)" in r.stderr and "sha256" in r.stderr
    assert "hunter2" not in r.stderr
    wider = _tokens_file(tmp_path / "wider.json")
    data = json.loads(wider.read_text())
    data["tokens"][1]["viewers"] = ["auditor"]  # a public token that would see auditor-only details
    wider.write_text(json.dumps(data))
    r = _serve("--catalog", str(FIXTURES / "seed"), "--tokens", str(wider))
    assert r.returncode == 2 and "narrower" in r.stderr and "tokens (pub)" in r.stderr


def test_hash_token_matches_the_file_format() -> None:
    r = subprocess.run([sys.executable, "-m", "chainret", "serve", "--hash-token"], input="s3cret\n",
                       capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == hash_token("s3cret")
    assert r.stdout.strip().startswith("sha256:") and len(r.stdout.strip()) == 71
    r = _serve("--new-token", "auditor")
    token = r.stdout.splitlines()[0].rsplit(" ", 1)[1]
    assert f"sha256: {hash_token(token)}" in r.stdout and "principal: auditor" in r.stdout
