"""The served catalog, reopened when its store changes: revocation reaches a running server.

A compiled store (``.db`` file, PostgreSQL) reports a ``generation()`` that changes on every
compile or update written to it; a YAML file or world directory is probed by the size and mtime
of its files. ``LiveCatalog.get()`` reads the probe at most once per ``interval_s`` (a stat and a
one-row query: cheap) and, when it changed, opens a fresh catalog object for the same spec and
swaps it in. So a request that starts ``interval_s`` or more after an update is answered from it.

Everything here runs on the service's one engine thread (``Service.submit``), between engine
calls: a request in flight keeps the object it started with, and the old object is closed only
after the swap, when no call holds it. A store that cannot be reopened (being replaced, the
database down) keeps the old object serving and is retried at the next interval.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chainret.catalog.models import Catalog
from chainret.store import catalog_path, is_store, resolve_catalog

log = logging.getLogger("chainret.server")
DEFAULT_INTERVAL_S = 1.0
_MAX_FILES = 20_000


def path_generation(path: Path) -> str:
    """A digest of (name, size, mtime) of a catalog file or of every file under a world directory."""
    h = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())[:_MAX_FILES]
    for p in files:
        try:
            st = p.stat()
        except OSError:
            continue
        h.update(f"{p}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


class LiveCatalog:
    """``current``: the catalog to answer from; ``get()`` swaps in a fresh one when the store changed."""

    def __init__(self, spec: Catalog | str | os.PathLike[str] | None, interval_s: float = DEFAULT_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.spec = spec
        self.interval_s = interval_s
        self.clock = clock
        self.current: Any = resolve_catalog(spec)
        self.swaps = 0
        self._generation = self._probe()
        self._checked = clock()

    @property
    def live(self) -> bool:
        """False for a catalog object handed in (nothing to reopen)."""
        return not isinstance(self.spec, Catalog) and not is_store(self.spec)

    def _probe(self) -> str | None:
        if not self.live:
            return None
        generation = getattr(self.current, "generation", None)
        if callable(generation):
            return str(generation())
        return path_generation(catalog_path(self.spec))  # type: ignore[arg-type]

    def get(self, *, force: bool = False) -> Any:
        """The catalog to answer from, after a generation check when ``interval_s`` passed (or ``force``)."""
        now = self.clock()
        if self.live and (force or now - self._checked >= self.interval_s):
            self._checked = now
            if self._probe() != self._generation:
                self._swap()
        return self.current

    def _swap(self) -> None:
        try:
            fresh = resolve_catalog(self.spec)
        except Exception as exc:  # noqa: BLE001 - keep serving the old object; retried next interval
            log.warning("the catalog changed but could not be reopened (%s); still serving the previous one",
                        type(exc).__name__)
            return
        old, self.current = self.current, fresh
        self._generation = self._probe()
        self.swaps += 1
        self._close(old)

    def close(self) -> None:
        self._close(self.current)

    @staticmethod
    def _close(obj: Any) -> None:
        close = getattr(obj, "close", None)
        if callable(close):
            try:
                close()
            except Exception as exc:  # noqa: BLE001 - closing an old store must not fail a request
                log.warning("closing the previous catalog failed (%s)", type(exc).__name__)
