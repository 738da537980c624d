"""The served catalog, reopened when its store changes: revocation reaches a running server.

A compiled store (``.db`` file, PostgreSQL) reports a ``generation()`` that changes on every
compile or update written to it; a YAML file or world directory is probed by the size and mtime
of its files. ``LiveCatalog.get()`` reads the probe at most once per ``interval_s`` (a stat and a
one-row query: cheap) and, when it changed, opens a fresh catalog object for the same spec and
swaps it in. So a request that starts ``interval_s`` or more after an update is answered from it.

Engine calls run on several threads at once (``Service``), so the check and the swap hold a lock,
and every object ``get()`` hands out is held (counted) by the calling thread until it calls
``release()``: a request in flight keeps the object it started with, and a swapped-out object is
closed only when the last call holding it releases it. A store that cannot be reopened (being
replaced, the database down) keeps the old object serving and is retried at the next interval.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chainret.catalog.models import Catalog
from chainret.core.session import Session
from chainret.store import catalog_path, resolve_catalog
from chainret.store.base import CatalogReader

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

    def __init__(self, spec: Catalog | CatalogReader | str | os.PathLike[str] | None, interval_s: float = DEFAULT_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic, session: Session | None = None) -> None:
        self.spec = spec
        self.session = session  # an in-memory catalog's caches (the service's)
        self.interval_s = interval_s
        self.clock = clock
        self.current: CatalogReader = resolve_catalog(spec, session)  # resolved once, at the edge, into the catalog reader
        self.swaps = 0
        self._generation = self._probe()
        self._checked = clock()
        self._lock = threading.Lock()  # the check and swap; the hold counts
        self._held: dict[int, list[Any]] = {}  # id(object) -> [object, calls holding it]
        self._retired: dict[int, Any] = {}  # swapped out, closed when no call holds them
        self._mine = threading.local()  # the objects this thread holds (released by ``release``)

    @property
    def live(self) -> bool:
        """False for a catalog object handed in (nothing to reopen): a path or URL (None: the default catalog) is."""
        return self.spec is None or isinstance(self.spec, (str, os.PathLike))

    def _probe(self) -> str | None:
        spec = self.spec
        if spec is not None and not isinstance(spec, (str, os.PathLike)):
            return None  # a catalog object handed in
        generation = getattr(self.current, "generation", None)
        if callable(generation):
            return str(generation())
        return path_generation(catalog_path(spec))

    def get(self, *, force: bool = False) -> CatalogReader:
        """The catalog to answer from, after a generation check when ``interval_s`` passed (or ``force``).

        The object is held by this thread until ``release()`` (it is not closed while held)."""
        with self._lock:
            now = self.clock()
            if self.live and (force or now - self._checked >= self.interval_s):
                self._checked = now
                if self._probe() != self._generation:
                    self._swap()
            cat = self.current
            entry = self._held.setdefault(id(cat), [cat, 0])
            entry[1] += 1
        mine = getattr(self._mine, "objects", None)
        if mine is None:
            mine = self._mine.objects = []
        mine.append(cat)
        return cat

    def release(self) -> None:
        """Release every object this thread was handed by ``get`` (the end of an engine call)."""
        mine = getattr(self._mine, "objects", None) or []
        self._mine.objects = []
        done = []
        with self._lock:
            for cat in mine:
                entry = self._held.get(id(cat))
                if entry is None:
                    continue
                entry[1] -= 1
                if entry[1] <= 0:
                    del self._held[id(cat)]
                    if self._retired.pop(id(cat), None) is not None:
                        done.append(cat)
        for cat in done:
            self._close(cat)

    def _swap(self) -> None:  # under self._lock
        try:
            fresh = resolve_catalog(self.spec, self.session)
        except Exception as exc:  # noqa: BLE001 - keep serving the old object; retried next interval
            log.warning("the catalog changed but could not be reopened (%s); still serving the previous one",
                        type(exc).__name__)
            return
        old, self.current = self.current, fresh
        self._generation = self._probe()
        self.swaps += 1
        if id(old) in self._held:
            self._retired[id(old)] = old  # closed by the last ``release`` of a call holding it
        else:
            self._close(old)

    def close(self) -> None:
        with self._lock:
            objects = [self.current, *self._retired.values()]
            self._retired.clear()
        for obj in objects:
            self._close(obj)

    @staticmethod
    def _close(obj: Any) -> None:
        close = getattr(obj, "close", None)
        if callable(close):
            try:
                close()
            except Exception as exc:  # noqa: BLE001 - closing an old store must not fail a request
                log.warning("closing the previous catalog failed (%s)", type(exc).__name__)
