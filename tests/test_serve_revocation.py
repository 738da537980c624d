"""Revocation has a bound: a running server sees a store update without a restart.

A SQLite store compiled from the seed world is served; ``chainret catalog compile v2 --out S.db
--update`` appends a restricted version of the document the public answer cites
(``benchmarks.harness.revocation``). After the reload interval a public ask is refused, the auditor's is still
answered, and every response carries the per-viewer revision it was answered from; ``min_revision``
gets an answer at least that fresh or 409 ``catalog_behind``. Guard-off twins switch the
generation check off and require the probe to see the revoked document still shown.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from chainret.server.app import create_app  # noqa: E402
from chainret.server.auth import Authenticator, TokenFile, hash_token  # noqa: E402
from chainret.server.limits import Limits  # noqa: E402
from chainret.server.live import LiveCatalog  # noqa: E402
from chainret.server.service import Service  # noqa: E402
from chainret.store import compile_store, update_store  # noqa: E402
from chainret.store.base import revision_number  # noqa: E402
from benchmarks.harness.revocation import REQUEST, revoking_versions, watch_revocation  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
INTERVAL = 0.3
AUDITOR = "auditor-token-revocation"


def _no_check(self: LiveCatalog, *, force: bool = False) -> Any:
    return self.current  # the guard off: never look for an update


@pytest.fixture
def store(tmp_path: Path) -> tuple[Path, Path]:
    v1, v2 = revoking_versions()
    db = tmp_path / "s.db"
    compile_store(v1, db)
    v2_file = tmp_path / "v2.json"
    v2_file.write_text(v2.model_dump_json(), encoding="utf-8")
    return db, v2_file


def _client(spec: Path) -> Any:
    tokens = TokenFile(tokens=[{"name": "audit", "sha256": hash_token(AUDITOR), "principal": "auditor"}])
    service = Service(str(spec), Limits(rate=0, reload_interval_s=INTERVAL))
    return service, TestClient(create_app(service, Authenticator(tokens)))


def _update_cli(v2_file: Path, db: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "chainret", "catalog", "compile", str(v2_file), "--out", str(db), "--update"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("guard", [True, False])
def test_a_revoked_document_is_refused_to_public_after_the_bound(store: tuple[Path, Path], guard: bool,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    if not guard:
        monkeypatch.setattr(LiveCatalog, "get", _no_check)
    db, v2_file = store
    service, client = _client(db)
    auditor = {"Authorization": f"Bearer {AUDITOR}"}
    with client:
        before = client.post("/ask", json={"request": REQUEST}).json()
        audit_before = client.post("/ask", json={"request": REQUEST}, headers=auditor).json()
        assert before["outcome"] == "accepted_path" and audit_before["outcome"] == "accepted_path"
        assert before["revision"] == before["trace"]["meta"]["revision"]
        assert client.get("/patterns").json()["revision"] == before["revision"]
        _update_cli(v2_file, db)
        time.sleep(INTERVAL + 0.2)  # the bound
        after = client.post("/ask", json={"request": REQUEST}).json()
        audit_after = client.post("/ask", json={"request": REQUEST}, headers=auditor).json()
    service.close()
    if not guard:  # the server still answers from the snapshot it opened: the probe sees it
        assert after["outcome"] == "accepted_path" and after["revision"] == before["revision"]
        return
    assert after["outcome"] != "accepted_path" and "contact:seed" not in str(after["path"])
    assert audit_after["outcome"] == "accepted_path"
    assert revision_number(after["revision"]) > revision_number(before["revision"])
    assert after["revision"] != audit_after["revision"]  # per viewer


def test_min_revision_is_answered_at_least_that_fresh_or_409(store: tuple[Path, Path]) -> None:
    db, v2_file = store
    service, client = _client(db)
    with client:
        first = client.post("/ask", json={"request": REQUEST}).json()["revision"]
        ahead = f"{revision_number(first) + 1}.0"
        for r in (client.post("/ask", json={"request": REQUEST, "min_revision": ahead}),
                  client.get("/patterns", params={"min_revision": ahead})):
            assert r.status_code == 409 and r.json()["error"]["code"] == "catalog_behind", r.text
            assert first in r.json()["error"]["message"]
        for bad in ("latest", "1.", "-1.ab", "1.XYZ"):
            r = client.post("/ask", json={"request": REQUEST, "min_revision": bad})
            assert r.status_code == 400 and r.json()["error"]["code"] == "bad_revision", bad
        trace = client.post("/ask", json={"request": REQUEST}).json()["trace"]
        assert client.post("/trace/verify", json={"trace": trace, "min_revision": first}).status_code == 200
        update_store(revoking_versions()[1], db)
        # min_revision forces a check at once (no waiting for the interval): the update is there now
        r = client.post("/ask", json={"request": REQUEST, "min_revision": ahead})
        assert r.status_code == 200 and revision_number(r.json()["revision"]) >= revision_number(ahead)
        v = client.post("/trace/verify", json=trace, params={"min_revision": r.json()["revision"]})
        assert v.status_code == 200 and v.json()["revision"] == r.json()["revision"]
        assert v.json()["status"] == "evidence_intact"  # the trace names its view, which the update kept
    service.close()


def test_a_yaml_catalog_is_reloaded_when_its_file_changes(tmp_path: Path) -> None:
    v1, v2 = revoking_versions()
    path = tmp_path / "catalog.json"
    path.write_text(v1.model_dump_json(), encoding="utf-8")
    service, client = _client(path)
    with client:
        assert client.post("/ask", json={"request": REQUEST}).json()["outcome"] == "accepted_path"
        path.write_text(v2.model_dump_json(), encoding="utf-8")
        time.sleep(INTERVAL + 0.2)
        assert client.post("/ask", json={"request": REQUEST}).json()["outcome"] != "accepted_path"
    assert service.live.swaps == 1
    service.close()


def test_mcp_results_carry_the_revision_and_see_the_update(store: tuple[Path, Path]) -> None:
    pytest.importorskip("mcp")
    from mcp import Client

    from chainret.server.mcp import build_server

    db, _ = store
    service = Service(str(db), Limits(reload_interval_s=INTERVAL))
    server = build_server(service, "public")

    async def go() -> tuple[Any, Any, Any]:
        async with Client(server) as client:
            before = await client.call_tool("ask", {"request": REQUEST})
            update_store(revoking_versions()[1], db)
            behind = await client.call_tool("list_patterns", {"min_revision": "99.0"})
            await anyio.sleep(INTERVAL + 0.2)
            after = await client.call_tool("ask", {"request": REQUEST})
            return before, behind, after

    before, behind, after = anyio.run(go)
    service.close()
    assert before.structured_content["outcome"] == "accepted_path"
    assert behind.is_error and "catalog_behind" in behind.content[0].text
    assert after.structured_content["outcome"] != "accepted_path"
    assert revision_number(after.structured_content["revision"]) > revision_number(before.structured_content["revision"])


@pytest.mark.slow
@pytest.mark.parametrize("guard", [True, False])
def test_no_request_fails_while_the_store_is_updated_under_a_real_server(store: tuple[Path, Path], guard: bool,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks.harness.availability import ThreadServer

    from chainret.server.protocol import protocol_factory

    if not guard:
        monkeypatch.setattr(LiveCatalog, "get", _no_check)
    db, _ = store
    service = Service(str(db), Limits(rate=0, reload_interval_s=INTERVAL))
    with ThreadServer(create_app(service, Authenticator()), http=protocol_factory()) as server:
        seen = watch_revocation(server.url, lambda: update_store(revoking_versions()[1], db), bound=INTERVAL + 0.1)
    service.close()
    assert seen.failed == [] and seen.after_bound > 0
    if guard:
        assert seen.still_shown == 0 and seen.lag_s is not None and len(seen.revisions) == 2
    else:
        assert seen.still_shown == seen.after_bound
