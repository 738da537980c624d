"""The in-memory store's caches: a hit is for the same catalog object, they clear, and threads share them safely."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import chainret.store.memory as memory
from chainret.ask import ask
from chainret.catalog.load import load_catalog
from chainret.catalog.models import Catalog

SEED = Path(__file__).resolve().parents[1] / "fixtures" / "seed" / "catalog.yaml"
REQUEST = "Which contact serves project PR-84?"


def test_a_world_hit_is_for_the_same_catalog_object() -> None:
    memory.clear_caches()
    a = load_catalog(SEED)
    b = Catalog.model_validate(a.model_dump())  # equal content, equal digest, another object
    assert a is not b and memory.catalog_digest(a) == memory.catalog_digest(b)
    wa = memory.hop_world(memory.cached_view(a, None, "public"))
    assert memory.hop_world(memory.cached_view(a, None, "public")) is wa
    assert memory.hop_world(memory.cached_view(b, None, "public")) is not wa


def test_clear_caches_forgets_everything() -> None:
    cat = load_catalog(SEED)
    memory.hop_world(memory.cached_view(cat, None, "public"))
    assert memory._WORLDS and memory._VIEWS and memory._DIGESTS
    memory.clear_caches()
    assert not memory._WORLDS and not memory._VIEWS and not memory._DIGESTS


def test_concurrent_requests_agree() -> None:
    memory.clear_caches()
    cat = load_catalog(SEED)
    want = ask(REQUEST, catalog=cat).model_dump(exclude={"meta"})
    memory.clear_caches()
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: ask(REQUEST, catalog=cat).model_dump(exclude={"meta"}), range(32)))
    assert all(g == want for g in got)
