"""Caches belong to a Session: a hit is for the same catalog object, sessions do not share, they clear,
and threads share one safely."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import chainret.store.caches as memory
from chainret.pipeline.ask import ask
from chainret.catalog.load import load_catalog
from chainret.catalog.models import Catalog
from chainret.core.session import Session, default_session

SEED = Path(__file__).resolve().parents[1] / "fixtures" / "seed" / "catalog.yaml"
REQUEST = "Which contact serves project PR-84?"


def test_a_world_hit_is_for_the_same_catalog_object() -> None:
    s = Session()
    a = load_catalog(SEED)
    b = Catalog.model_validate(a.model_dump())  # equal content, equal digest, another object
    assert a is not b and memory.catalog_digest(a) == memory.catalog_digest(b)
    wa = memory.hop_world(memory.cached_view(a, None, "public", s), s)
    assert memory.hop_world(memory.cached_view(a, None, "public", s), s) is wa
    assert memory.hop_world(memory.cached_view(b, None, "public", s), s) is not wa


def test_sessions_do_not_share_and_clear_forgets_everything() -> None:
    cat = load_catalog(SEED)
    one, two = Session(), Session()
    ask(REQUEST, cat, session=one)
    assert one.worlds and one.views and len(two) == 0
    w = memory.hop_world(memory.cached_view(cat, None, "public", one), one)
    assert memory.hop_world(memory.cached_view(cat, None, "public", two), two) is not w
    one.clear()
    assert len(one) == 0
    memory.clear_caches()
    assert len(default_session()) == 0


def test_a_session_is_bounded() -> None:
    cat = load_catalog(SEED)
    s = Session(size=2)
    for view in ("final", "revised"):
        for principal in ("public", "auditor", "ops"):
            memory.hop_world(memory.cached_view(cat, view, principal, s), s)
    assert len(s.views) == 2 and len(s.worlds) == 2


def test_concurrent_requests_on_one_session_agree() -> None:
    cat = load_catalog(SEED)
    want = ask(REQUEST, catalog=cat, session=Session()).model_dump(exclude={"meta"})
    shared = Session()
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: ask(REQUEST, catalog=cat, session=shared).model_dump(exclude={"meta"}), range(32)))
    assert all(g == want for g in got)


def test_what_a_reader_may_read_is_cached_in_the_callers_session() -> None:
    cat = load_catalog(SEED)
    memory.clear_caches()
    mine = Session()
    trace = ask(REQUEST, cat, principal="auditor", viewer="public", session=mine)
    assert trace.meta["viewer"] == "public"
    kinds = {key[1] for key in mine.readers}
    assert {"docs", "entities", "catalog"} <= kinds, kinds
    assert len(default_session()) == 0  # nothing leaked into the default session
    mine.clear()
    assert not mine.readers


def test_a_process_memo_loads_once_under_concurrency_and_clears() -> None:
    import threading
    import time

    from chainret.core.session import ProcessMemo, clear_process_memos

    memo: ProcessMemo[object] = ProcessMemo()
    builds: list[int] = []

    def load() -> object:
        builds.append(threading.get_ident())
        time.sleep(0.01)  # a slow load: every thread arrives while it runs
        return object()

    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: memo.get("model", load), range(16)))
    assert len(builds) == 1 and all(g is got[0] for g in got)
    clear_process_memos()
    assert len(memo) == 0
    assert memo.get("model", load) is not got[0] and len(builds) == 2


def test_a_sessions_views_do_not_keep_it_alive() -> None:
    import gc
    import weakref

    cat = load_catalog(SEED)
    s = Session()
    ask(REQUEST, cat, session=s)
    assert s.views
    gone = weakref.ref(s)
    gc.disable()  # freed by reference counting alone: no cycle through the cached views
    try:
        del s
        assert gone() is None
    finally:
        gc.enable()
