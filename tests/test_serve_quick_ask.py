"""``POST /ask``'s quick route (``chainret.server.app.QuickAsk``) answers byte for byte as FastAPI's route.

Two apps over one service: the app as served, and the same app with the quick route taken out, so
every request reaches FastAPI's ``/ask`` route. Each request of the mix (every fixture case's request
with and without its view and budget, as the auditor, as public, as the auditor asking for the
public viewer, with a bad token, and bodies FastAPI refuses) must get the same status, content type
and body from both (the trace's timing set aside), and the quick route must have answered every
well-formed one itself.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from chainret.catalog.load import load_world
from chainret.server.app import QuickAsk, create_app
from chainret.server.auth import Authenticator, hash_token, load_token_file
from chainret.server.limits import Limits
from chainret.server.service import Service

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "fixtures" / "seed"
AUDITOR, PUBLIC = "auditor-token-3f9c", "public-token-81aa"
_TIMING = re.compile(rb'"ask_ms":\s*[-0-9.eE+]+')


@pytest.fixture(scope="module")
def apps(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tokens = tmp_path_factory.mktemp("quick") / "tokens.json"
    tokens.write_text(json.dumps({"format": "chainret-tokens/1", "tokens": [
        {"name": "audit", "sha256": hash_token(AUDITOR), "principal": "auditor", "viewers": ["public"]},
        {"name": "pub", "sha256": hash_token(PUBLIC), "principal": "public"},
    ]}), encoding="utf-8")
    auth = Authenticator(load_token_file(str(tokens)))
    service = Service(str(SEED), Limits(rate=0), auth)
    quick_app, full_app = create_app(service, auth), create_app(service, auth)
    quick = next(e for r in quick_app.router.routes if isinstance(e := getattr(r, "endpoint", None), QuickAsk))
    full_app.router.routes = [r for r in full_app.router.routes if not isinstance(getattr(r, "endpoint", None), QuickAsk)]
    answered: list[int] = []
    inner = quick.ask

    async def counting(who: Any, body: Any) -> Any:
        answered.append(1)
        return await inner(who, body)

    quick.ask = counting
    with TestClient(quick_app) as q, TestClient(full_app) as f:
        yield q, f, answered
    service.close()


def _requests() -> list[tuple[dict[str, str], bytes, bool]]:
    """(headers, body, well-formed) for the mix."""
    out: list[tuple[dict[str, str], bytes, bool]] = []
    json_type = {"content-type": "application/json"}
    for case in load_world(SEED).cases:
        bodies = [{"request": case.request}]
        extra: dict[str, Any] = {}
        if case.view is not None:
            extra["view"] = case.view
        if case.budget is not None:
            extra["budget"] = case.budget.model_dump(exclude_unset=True)
        if extra:
            bodies.append({"request": case.request, **extra})
        for body in bodies:
            raw = json.dumps(body).encode()
            out.append(({**json_type, "authorization": f"Bearer {AUDITOR}"}, raw, True))
            out.append(({**json_type, "authorization": f"Bearer {PUBLIC}"}, raw, True))
            out.append(({**json_type}, raw, True))  # no token: public
            out.append(({**json_type, "authorization": f"Bearer {AUDITOR}"}, json.dumps({**body, "viewer": "public"}).encode(), True))
            out.append(({**json_type, "authorization": f"Bearer {PUBLIC}"}, json.dumps({**body, "viewer": "auditor"}).encode(), True))
            out.append(({**json_type, "authorization": "Bearer not-a-token"}, raw, True))  # well-formed, refused 401
    request = json.dumps({"request": "Which contact serves PR-84?"}).encode()
    out += [
        ({"content-type": "application/json; charset=utf-8"}, request, True),
        ({"content-type": "text/plain"}, request, False),
        ({}, request, False),
        ({"content-type": "application/merge+json"}, request, False),
        ({"content-type": "application/json"}, b"", False),
        ({"content-type": "application/json"}, b"{not json", False),
        ({"content-type": "application/json"}, b"[" * 5000 + b"]" * 5000, False),
        ({"content-type": "application/json"}, b"\xff\xfe", False),
        ({"content-type": "application/json"}, b'["Which contact serves PR-84?"]', False),
        ({"content-type": "application/json"}, json.dumps({"request": "x", "principal": "auditor"}).encode(), False),
        ({"content-type": "application/json"}, json.dumps({"request": ""}).encode(), False),
        ({"content-type": "application/json"}, json.dumps({"request": "x", "budget": {"rows_per_hop": "many"}}).encode(), False),
        ({"content-type": "application/json"}, json.dumps({"request": "x", "budget": {"rows_per_hop": 10**6}}).encode(), True),
        ({"content-type": "application/json"}, json.dumps({"request": "x" * 5000}).encode(), True),
        ({"content-type": "application/json"}, json.dumps({"request": "Which contact serves PR-84?", "view": "nope"}).encode(), True),
        ({"content-type": "application/json"}, json.dumps({"request": "Which contact serves PR-84?", "min_revision": "9.zz"}).encode(), True),
    ]
    return out


def _answer(client: TestClient, headers: dict[str, str], body: bytes) -> tuple[int, str | None, bytes]:
    r = client.post("/ask", content=body, headers=headers)
    return r.status_code, r.headers.get("content-type"), _TIMING.sub(b'"ask_ms":0', r.content)


def test_the_quick_route_answers_as_fastapis_route(apps: Any) -> None:
    quick, full, answered = apps
    mix = _requests()
    statuses = []
    for headers, body, well_formed in mix:
        before = len(answered)
        got, want = _answer(quick, headers, body), _answer(full, headers, body)
        assert got == want, (headers, body[:120], got[:2], got[2][:300], want[2][:300])
        statuses.append(got[0])
        authenticated = headers.get("authorization") != "Bearer not-a-token"
        assert (len(answered) > before) == (well_formed and authenticated), (headers, body[:120])
    assert statuses.count(200) >= 40 and {401, 403, 422}.issubset(statuses)  # answers, refusals and errors all compared


def test_a_get_on_ask_is_still_405(apps: Any) -> None:
    quick, full, _ = apps
    got, want = quick.get("/ask"), full.get("/ask")
    assert (got.status_code, got.content, got.headers.get("allow")) == (want.status_code, want.content, want.headers.get("allow"))
    assert got.status_code == 405
