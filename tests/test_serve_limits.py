"""Server limits and authentication rules in-process (no server process): budget ceilings, rate
buckets, the request timeout, token-file parsing, viewer rules, light imports, the missing-extra message."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx
import pytest

from chainret.server.auth import Authenticator, Identity, TokenFile, TokenFileInvalid, hash_token, load_token_file, resolve_viewer
from chainret.server.errors import ApiError
from chainret.server.limits import DEFAULT_CEILING, BudgetIn, Limits, RateLimiter, clamp_budget
from chainret.trace.model import Budget

ROOT = Path(__file__).resolve().parents[1]


def _code(fn, *args, **kwargs) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    with pytest.raises(ApiError) as err:
        fn(*args, **kwargs)
    return err.value.status, err.value.code


def test_unset_budget_fields_keep_library_behaviour_within_the_ceiling() -> None:
    assert clamp_budget(None, DEFAULT_CEILING) == Budget()
    assert clamp_budget(None, DEFAULT_CEILING).model_fields_set == set()  # searches/rows still scale with hops
    b = clamp_budget(BudgetIn(rows_per_hop=10), DEFAULT_CEILING)
    assert b.model_fields_set == {"rows_per_hop"}  # 10 rows x up to 4 hops = 40 = the max_rows ceiling
    tight = Budget(rows_per_hop=5, max_searches=2, max_rows=8, max_hops=2, packet_units=2, packet_chars=300)
    b = clamp_budget(None, tight)
    assert (b.max_hops, b.packet_units, b.packet_chars) == (2, 2, 300)  # defaults above a ceiling are lowered
    assert not {"max_searches", "max_rows"} & b.model_fields_set  # 2 hops x 3 rows fit the ceilings: they still scale
    b = clamp_budget(BudgetIn(rows_per_hop=5), tight)
    assert b.max_rows == 8  # 5 rows x 2 searches would pass the max_rows ceiling: set to it explicitly
    assert _code(clamp_budget, BudgetIn(max_rows=9), tight) == (400, "budget_exceeds_limit")
    assert _code(clamp_budget, {"rows_per_hop": 6, "packet_chars": 301}, tight) == (400, "budget_exceeds_limit")


def test_rate_limiter_refills_and_keeps_buckets_apart() -> None:
    rl = RateLimiter(rate=2.0, burst=2, max_keys=3)
    rl.check("a", now=0.0)
    rl.check("a", now=0.0)
    err = pytest.raises(ApiError, rl.check, "a", now=0.0).value
    assert err.status == 429 and err.headers["Retry-After"] == "1"
    rl.check("b", now=0.0)
    rl.check("a", now=0.5)  # one token back after 1/rate seconds
    for k in "cde":
        rl.check(k, now=1.0)
    assert len(rl._buckets) == 3  # least recently used buckets are dropped
    RateLimiter(rate=0, burst=1).check("x")  # 0 = no limit


def test_authentication_rules() -> None:
    table = TokenFile.model_validate({
        "tokens": [{"name": "a", "sha256": hash_token("tok-a"), "principal": "auditor", "viewers": ["public"]}],
        "users": [{"user": "alice", "principal": "auditor"}],
    })
    auth = Authenticator(table)
    assert auth.authenticate(None).principal == "public"
    assert auth.authenticate("Bearer tok-a").principal == "auditor"
    assert auth.authenticate("bearer  tok-a ").principal == "auditor"
    assert _code(auth.authenticate, "Bearer tok-b") == (401, "invalid_token")
    assert _code(auth.authenticate, "Token tok-a") == (401, "bad_authorization")
    # the header is ignored unless configured, then it must name a listed user
    assert auth.authenticate(None, header_user="alice").principal == "public"
    trusting = Authenticator(table, trust_header="X-Forwarded-User")
    assert trusting.authenticate(None, header_user="alice").principal == "auditor"
    assert _code(trusting.authenticate, None, header_user="bob") == (401, "unknown_user")
    closed = Authenticator(TokenFile(anonymous=False))
    assert _code(closed.authenticate, None) == (401, "missing_credentials")
    me = Identity("auditor", frozenset({"public"}))
    assert resolve_viewer(me, None) == "auditor" and resolve_viewer(me, "public") == "public"
    assert _code(resolve_viewer, Identity("public"), "auditor") == (403, "viewer_not_allowed")


def test_token_file_errors_name_the_file_and_record(tmp_path: Path) -> None:
    f = tmp_path / "t.yaml"
    for text, expect in [
        ("tokens: [\n", "not valid YAML"),
        ("- a\n", "expected a mapping"),
        ("tokens:\n- name: x\n  sha256: abc\n  principal: p\n", "tokens.0.sha256 (x): sha256 must be 64 hex"),
        ("tokens:\n- name: x\n  sha256: " + "a" * 64 + "\n  principal: p\n  colour: red\n", "unknown field"),
        ("tokens:\n- {name: x, sha256: " + "a" * 64 + ", principal: p}\n- {name: x, sha256: " + "b" * 64 + ", principal: q}\n",
         "duplicate token name: x"),
    ]:
        f.write_text(text, encoding="utf-8")
        with pytest.raises(TokenFileInvalid) as err:
            load_token_file(f)
        assert str(f) in str(err.value) and expect in str(err.value), str(err.value)
    with pytest.raises(TokenFileInvalid, match="no such token file"):
        load_token_file(tmp_path / "missing.yaml")


def test_a_request_past_the_timeout_gets_504_and_abandoned_work_never_runs() -> None:
    from chainret.server.app import create_app
    from chainret.server.service import Service

    limits = Limits(timeout_s=0.3)
    service = Service(ROOT / "fixtures" / "seed", limits)
    slow = service.ask
    ran: list[str] = []

    def ask_slowly(identity, body):  # type: ignore[no-untyped-def]
        ran.append(body.request)
        time.sleep(1.0)
        return slow(identity, body)

    service.ask = ask_slowly  # type: ignore[method-assign]
    app = create_app(service, Authenticator(), limits)

    async def go() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        out: list[httpx.Response] = []
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:

            async def send(text: str, delay: float) -> None:
                await anyio.sleep(delay)
                out.append(await c.post("/ask", json={"request": text}))

            async with anyio.create_task_group() as tg:
                tg.start_soon(send, "first", 0.0)
                tg.start_soon(send, "second", 0.4)  # queued behind the first, abandoned while it waits
            await anyio.sleep(1.2)  # the first call finishes; the second's thread then gets the lock
        return out

    responses = anyio.run(go)
    assert [r.status_code for r in responses] == [504, 504]
    assert all(r.json()["error"]["code"] == "timeout" for r in responses)
    assert ran == ["first"]


def test_serving_stays_out_of_the_light_imports() -> None:
    probe = "import sys, chainret.cli, chainret.server.service\nprint([m for m in ('fastapi', 'uvicorn', 'mcp', 'starlette') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_serve_binds_loopback_by_default() -> None:
    from typer.main import get_command

    from chainret.cli import app

    serve = get_command(app).commands["serve"]  # type: ignore[attr-defined]
    assert next(p.default for p in serve.params if p.name == "host") == "127.0.0.1"


def test_missing_extra_is_a_message_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from chainret.cli import app
    from chainret.core.errors import MissingExtra

    monkeypatch.setitem(sys.modules, "uvicorn", None)  # find_spec() -> None: as if not installed
    res = CliRunner().invoke(app, ["serve", "--catalog", str(ROOT / "fixtures" / "seed")])
    assert res.exit_code == MissingExtra.exit_code and "Traceback" not in res.output  # the CLI's one error path
    assert "pip install 'chainret[serve]'" in " ".join(res.output.split())  # rich wraps at the runner's width
    monkeypatch.setitem(sys.modules, "mcp", None)
    res = CliRunner().invoke(app, ["mcp"])
    assert res.exit_code == MissingExtra.exit_code and "chainret[mcp]" in res.output


def test_an_unexpected_error_is_a_generic_json_500() -> None:
    from chainret.server.app import create_app
    from chainret.server.service import Service

    service = Service(ROOT / "fixtures" / "seed")

    def broken() -> None:
        raise RuntimeError("internal detail: registry/contacts.md@v1 says REL org:final:north | contact | …")

    service.patterns = broken  # type: ignore[method-assign,assignment]
    app = create_app(service, Authenticator())

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            return await c.get("/patterns")

    r = anyio.run(go)
    assert r.status_code == 500 and r.json() == {"error": {"code": "internal_error", "message": "the server could not answer this request"}}


def test_http_parser_choice_falls_back_to_h11_and_refuses_what_it_cannot_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from chainret.cli import app
    from chainret.core.errors import MissingExtra, UsageError
    from chainret.server.protocol import BoundedH11Protocol, protocol_class

    assert protocol_class("auto").implementation == "httptools"  # type: ignore[attr-defined]  # the serve extra installs it
    assert protocol_class("h11") is BoundedH11Protocol
    res = CliRunner().invoke(app, ["serve", "--http", "nginx", "--catalog", str(ROOT / "fixtures" / "seed")])
    assert res.exit_code == UsageError.exit_code and "choose one of auto, httptools, h11" in " ".join(res.output.split())
    monkeypatch.setitem(sys.modules, "chainret.server.protocol_httptools", None)  # as if httptools were not installed
    assert protocol_class("auto") is BoundedH11Protocol
    with pytest.raises(MissingExtra, match="chainret\\[serve\\]"):
        protocol_class("httptools")
