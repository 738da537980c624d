"""The benchmarks' one timer: wall time beside CPU time (user + system), for this process and its children.

A CPU figure alone hides waiting and a wall figure alone hides the shared machine's load, so every page
prints both. ``Timer`` times a block of this process (the children it waited for included, from
``getrusage(RUSAGE_CHILDREN)``); ``run_timed`` times one command through a small middle process, because
a child forked straight from a large benchmark process would report that process's peak RSS as its own
(Linux keeps the high-water mark across ``exec``). Hand-written: the standard library has the counters but
no block timer that reads them together.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType


def _cpu(who: int) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


class Timer:
    """``with Timer() as t: ...``, then ``t.wall_s``, ``t.cpu_s`` (this process, user + system) and
    ``t.children_cpu_s`` (the children waited for inside the block)."""

    wall_s: float
    cpu_s: float
    children_cpu_s: float

    def __enter__(self) -> Timer:
        self._wall, self._cpu, self._children = time.perf_counter(), time.process_time(), _cpu(resource.RUSAGE_CHILDREN)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.wall_s = time.perf_counter() - self._wall
        self.cpu_s = time.process_time() - self._cpu
        self.children_cpu_s = _cpu(resource.RUSAGE_CHILDREN) - self._children


def self_cpu_s() -> float:
    """This process's CPU time so far (user + system, all its threads)."""
    return time.process_time()


def peak_rss_mb(children: bool = False) -> float:
    """The peak resident set of this process (or of its largest waited-for child), in MB."""
    return resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF).ru_maxrss / 1024


# The middle process: forks, execs the command, waits for it with wait4 and prints its own figures.
MIDDLE = (
    "import os, sys, time\n"
    "t = time.perf_counter(); pid = os.fork()\n"
    "if pid == 0:\n"
    "    os.execv(sys.argv[1], sys.argv[1:])\n"
    "_, st, ru = os.wait4(pid, 0)\n"
    "print(time.perf_counter() - t, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, os.waitstatus_to_exitcode(st))\n"
)


@dataclass(frozen=True)
class ChildRun:
    """One command's wall and CPU seconds, peak RSS (MB) and exit code, and what it printed."""

    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    exit_code: int
    stdout: str
    stderr: str


def run_timed(cmd: Sequence[str], *, env: Mapping[str, str] | None = None, cwd: str | Path | None = None) -> ChildRun:
    """Run ``cmd`` (its first item an executable path) under :data:`MIDDLE`; its figures are its own."""
    out = subprocess.run([sys.executable, "-c", MIDDLE, *cmd], cwd=cwd, env=dict(env) if env is not None else None,
                         capture_output=True, text=True, check=True)
    lines = out.stdout.rstrip("\n").rsplit("\n", 1)
    wall, cpu, maxrss, code = lines[-1].split()
    return ChildRun(float(wall), float(cpu), int(maxrss) / 1024, int(code), lines[0] if len(lines) > 1 else "", out.stderr)


def environ_without(*names: str) -> dict[str, str]:
    """``os.environ`` less ``names`` (e.g. ``PYTHONDONTWRITEBYTECODE``, which a cold run must not inherit)."""
    return {k: v for k, v in os.environ.items() if k not in names}
