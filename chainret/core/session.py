"""A session owns the caches one process (or one test) keeps between requests.

Catalogs are frozen, so a view of a catalog, the BM25 index built for a view and what one reader
may read of it (``chainret.catalog.readable``) never go stale; building them is the expensive part
of a first request. (A catalog's digest is computed once by the catalog itself.) Those results live in a
``Session``: the CLI creates one per command, the server one per process, a test its own, and
``default_session()`` serves library calls that pass none. A session is thread-safe (one lock
around each lookup and insert; building happens outside it, so two threads may build the same
entry once each), bounded (least recently used entries go first) and clearable.

A hit must be for the same catalog object: keys hold digests, values hold the catalog they were
built for, and an ``id()`` is never trusted on its own.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, Protocol, TypeVar, cast

T = TypeVar("T")


class BoundedCache(OrderedDict[Hashable, tuple[object, object]]):
    """An LRU mapping that holds at most ``limit`` entries (the session evicts on insert).

    Each value is ``(owner, built)``: the object the entry was built for, and what was built.
    """

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit


class Session:
    """Bounded, thread-safe caches: views, hop worlds and reader facts.

    ``size`` bounds each cache; ``readers`` (readable documents, known entities and the reduced
    catalog, per catalog and reader) holds four times as many, since one request needs several.
    """

    def __init__(self, size: int = 16) -> None:
        self.size = size
        self._lock = threading.Lock()
        self.views = BoundedCache(size)
        self.worlds = BoundedCache(size)
        self.readers = BoundedCache(size * 4)

    def memo(self, cache: BoundedCache, key: Hashable, owner: object, build: Callable[[], T]) -> T:
        """``cache[key]`` if it was built for this very ``owner`` object, else ``build()`` kept there.

        A key names what was built (``("docs", ...)``, ``(digest, view, principal)``), so a hit is what
        ``build`` returns for that key: the one place a cached value gets its type back.
        """
        with self._lock:
            hit = cache.get(key)
            if hit is not None and hit[0] is owner:
                cache.move_to_end(key)
                return cast(T, hit[1])
        value = build()  # outside the lock: a slow build does not hold up other lookups
        with self._lock:
            cache[key] = (owner, value)
            cache.move_to_end(key)
            while len(cache) > cache.limit:
                cache.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self.views.clear()
            self.worlds.clear()
            self.readers.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self.views) + len(self.worlds) + len(self.readers)


_DEFAULT = Session()


def default_session() -> Session:
    """The session of library calls that pass none."""
    return _DEFAULT


class ProcessMemo(Generic[T]):
    """One expensive load per key per process (a model, an on-disk cache), thread-safe and clearable.

    Unlike a ``Session`` these are not tied to a catalog: a loaded model serves every request. The
    build runs under the memo's lock, so two threads never load the same model twice.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._items: dict[str, T] = {}
        _MEMOS.append(self)

    def get(self, key: str, build: Callable[[], T]) -> T:
        with self._lock:
            if key not in self._items:
                self._items[key] = build()
            return self._items[key]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


class _Clearable(Protocol):
    def clear(self) -> None: ...


_MEMOS: list[_Clearable] = []


def clear_process_memos() -> None:
    """Forget every loaded model and open embedding cache (the next use loads them again)."""
    for memo in _MEMOS:
        memo.clear()
