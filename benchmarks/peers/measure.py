"""Two measures the timed run cannot take in its own process: each engine's peak memory, and where chainret's
warm ask spends its CPU.

* ``peak_rss``: one fresh child process an engine (``multiprocessing``, spawn: a new interpreter, nothing
  inherited), which reads the world's pickled export (chainret: its catalog), notes its RSS, loads the engine,
  then answers every request once. Linux's ``/proc/self/status`` ``VmHWM`` (the peak resident set) is read after
  the load; ``/proc/self/clear_refs`` (``5``) resets it to the current RSS, and it is read again after the asks.
  Reported: each peak less the RSS before the load (what the engine's library, data and caches added), so a
  process that holds the catalog or the export in memory does not count it. ``resource.getrusage``'s
  ``ru_maxrss`` cannot be reset, so it would give the load's peak twice.
* ``ask_split``: chainret's warm ask, CPU time (``time.process_time``) per phase, measured from outside chainret
  by wrapping the functions ``chainret.pipeline.ask`` calls (``interpret``, ``_run``: the hop engine,
  ``project_trace``: the projection, ``with_log``: log proofs) and ``Trace.to_json``, and by opening the store on
  a ``sqlite3`` connection whose cursors time each ``execute`` and each fetch (the SQL). Each phase's time
  excludes the SQL it ran; "other" is the ask less every phase (resolving the store, the read scope, the time
  words, the trace's assembly and revision). chainret has no timing hook of its own (``meta.ask_ms`` is the
  ask's wall total), and the wrappers add their own cost, so the shares are of the instrumented ask, whose total
  is shown beside the timed run's p50.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import pickle
import shutil
import sqlite3
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

PHASES = ("interpretation", "hop engine", "projection", "log proofs", "to_json")


def _status() -> dict[str, int]:
    with open("/proc/self/status", encoding="ascii") as f:
        return {k: int(v.split()[0]) * 1024 for k, v in (line.split(":", 1) for line in f) if k in ("VmRSS", "VmHWM")}


def _child(engine: str, payload: Path, chain: Any, asks: list[tuple[str, str]], budget: Any, out: Any) -> None:
    from benchmarks.peers import engines

    with open(payload, "rb") as f:
        data = pickle.load(f)
    folder = engines.scratch()
    peers = {c.name: c for c in (engines.SQLiteFloor, engines.DuckDBPeer, engines.LadybugPeer, engines.SpiceDBPeer)}
    e: Any = engines.Chainret(folder, budget) if engine == "chainret" else peers[engine](folder)
    before = _status()["VmRSS"]
    if engine == "chainret":
        e.load(data)
    else:
        e.load(data, chain)
    load_peak = _status()["VmHWM"]
    with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
        f.write("5")
    for text, principal in asks:
        e.answer(text, principal)
    ask_peak = _status()["VmHWM"]
    e.close()
    shutil.rmtree(folder, ignore_errors=True)
    out.put((load_peak - before, ask_peak - before))


def peak_rss(engine: str, payload: Path, chain: Any, asks: list[tuple[str, str]], budget: Any = None) -> tuple[int, int] | None:
    """(bytes added at the load's peak, bytes added at the asks' peak) of ``engine`` in a fresh process; None where
    the platform has no ``/proc/self/status`` (not Linux)."""
    if not Path("/proc/self/clear_refs").exists():
        return None
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    proc = ctx.Process(target=_child, args=(engine, payload, chain, asks, budget, out))
    proc.start()
    try:
        got = out.get(timeout=1800)
    finally:
        proc.join()
    return got


def write_payload(folder: Path, name: str, data: Any) -> Path:
    path = folder / f"{name}.pickle"
    with open(path, "wb") as f:
        pickle.dump(data, f, protocol=pickle.HIGHEST_PROTOCOL)
    return path


class _Clock:
    """Exclusive CPU time a phase: a phase's time less the phases (and SQL) it called."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = {}
        self.stack: list[list[Any]] = []  # [name, start, time of the phases called]

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        self.stack.append([name, time.process_time(), 0.0])
        try:
            yield
        finally:
            _, start, inner = self.stack.pop()
            spent = time.process_time() - start
            self.cpu[name] = self.cpu.get(name, 0.0) + spent - inner
            if self.stack:
                self.stack[-1][2] += spent

    def wrap(self, name: str, fn: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.phase(name):
                return fn(*args, **kwargs)

        return timed


CLOCK = _Clock()


class _TimedCursor(sqlite3.Cursor):
    def execute(self, *args: Any) -> Any:  # type: ignore[override]
        with CLOCK.phase("SQL"):
            return super().execute(*args)

    def executemany(self, *args: Any) -> Any:  # type: ignore[override]
        with CLOCK.phase("SQL"):
            return super().executemany(*args)

    def fetchone(self) -> Any:
        with CLOCK.phase("SQL"):
            return super().fetchone()

    def fetchmany(self, *args: Any) -> Any:
        with CLOCK.phase("SQL"):
            return super().fetchmany(*args)

    def fetchall(self) -> Any:
        with CLOCK.phase("SQL"):
            return super().fetchall()

    def __next__(self) -> Any:
        with CLOCK.phase("SQL"):
            return super().__next__()


class _TimedConnection(sqlite3.Connection):
    """``Connection.execute`` makes its cursor in C (not through ``cursor()``), so it is replaced here too."""

    def cursor(self, factory: Any = _TimedCursor) -> Any:  # type: ignore[override]
        return super().cursor(factory)

    def execute(self, *args: Any) -> Any:  # type: ignore[override]
        return self.cursor().execute(*args)

    def executemany(self, *args: Any) -> Any:  # type: ignore[override]
        return self.cursor().executemany(*args)


@contextlib.contextmanager
def _patched(obj: Any, attr: str, value: Any) -> Iterator[None]:
    old = getattr(obj, attr)
    setattr(obj, attr, value)
    try:
        yield
    finally:
        setattr(obj, attr, old)


def ask_split(store_path: Path, requests: list[Any], budget: Any = None) -> dict[str, Any]:
    """Mean CPU ms per ask of each phase (``SQL``, ``PHASES``, ``other``, ``total``) and the instrumented ask's p50, over
    ``requests`` asked on a store opened on timed connections (after one untimed ask a principal)."""
    import chainret.pipeline.ask as ask_mod
    from chainret.store import open_store
    from chainret.trace.model import Trace

    real_connect = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> Any:
        return real_connect(*args, factory=_TimedConnection, **kwargs)

    with _patched(sqlite3, "connect", connect):  # (the store opens its connection here; one thread, one connection)
        store = open_store(str(store_path))
    with contextlib.ExitStack() as stack:
        stack.callback(store.close)
        for attr, name in (("interpret", "interpretation"), ("_run", "hop engine"), ("project_trace", "projection"),
                           ("with_log", "log proofs")):
            stack.enter_context(_patched(ask_mod, attr, CLOCK.wrap(name, getattr(ask_mod, attr))))
        stack.enter_context(_patched(Trace, "to_json", CLOCK.wrap("to_json", Trace.to_json)))
        for principal in ("public", "auditor"):
            first = next(r for r in requests if r.principal == principal)
            ask_mod.ask(first.text, store, principal=principal, budget=budget).to_json()
        per: dict[str, list[float]] = {k: [] for k in ("SQL", *PHASES, "other", "total")}
        t: Any = None
        for r in requests:
            CLOCK.cpu = {}
            with CLOCK.phase("other"):
                t = ask_mod.ask(r.text, store, principal=r.principal, budget=budget)
                t.to_json()
            total = sum(CLOCK.cpu.values())
            for k in per:
                per[k].append((total if k == "total" else CLOCK.cpu.get(k, 0.0)) * 1e3)
    n = len(requests)
    return {"asks": n, "log": "log" in t.meta, "mean_ms": {k: sum(v) / n for k, v in per.items()}, "total_p50_ms": statistics.median(per["total"])}
