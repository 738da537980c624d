"""Two writers at once on one store: ``--update`` racing ``--replace`` (the lost-update probe of issue 21).

Shared by ``tests/test_trust_identity.py`` (SQLite), ``tests/test_trust_postgres.py`` (PostgreSQL)
and ``benchmarks/trust.py`` (the trust page's figures).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from chainret.store import compile_store, open_store, update_store
from chainret.store.base import StoreError


@dataclass
class Race:
    """How one race ended: each writer's result (counts, or the StoreError) in finishing order, and the final store."""

    finished: list[tuple[str, object, float]]  # (writer, result, time.monotonic() at return)
    final_digest: str

    @property
    def last(self) -> tuple[str, object]:
        name, result, _ = self.finished[-1]
        return name, result

    @property
    def gap_s(self) -> float:
        """Seconds between the two writers' returns."""
        return self.finished[-1][2] - self.finished[0][2]

    @property
    def refused(self) -> int:
        return sum(isinstance(r, StoreError) for _, r, _ in self.finished)


def race_update_replace(v1: Any, v2: Any, out: Any, trial: int) -> Race:
    """Compile ``v1`` at ``out``, then update it to ``v2`` while replacing it with ``v1``; even trials start the replace first."""
    compile_store(v1, out, replace=True)
    finished: list[tuple[str, object, float]] = []

    def go(name: str, fn: Any) -> None:
        try:
            result: object = fn()
        except StoreError as exc:
            result = exc
        finished.append((name, result, time.monotonic()))

    threads = [threading.Thread(target=go, args=("update", lambda: update_store(v2, out))),
               threading.Thread(target=go, args=("replace", lambda: compile_store(v1, out, replace=True)))]
    for t in threads if trial % 2 else list(reversed(threads)):
        t.start()
    for t in threads:
        t.join()
    store = open_store(out)
    try:
        return Race(finished, store.digest())
    finally:
        store.close()
