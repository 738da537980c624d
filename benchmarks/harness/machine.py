"""How fast and how busy this machine is right now: figures the speed pages print beside their own.

The shared machine's speed moves from day to day by more than the changes the pages measure (the
same commit's warm 1M ask took 0.36 ms CPU one day and 0.79 ms the next), so a CPU time read alone
says little across days. ``pace_ns()`` is the CPU time of one step of a fixed pure-Python workload
(calls, dict and list work, a small sum), the median of several rounds: a page's times divided by
its pace compare across days far better than the times do. ``docs/results/instructions.md`` counts
instructions instead, which no machine moves. ``load_average()`` is the 1/5/15-minute load the pages
print before and after a run (the machine is shared), ``Load`` both ends of a run.
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass, field


def _step(d: dict[str, int], xs: list[int], i: int) -> int:
    d["k"] = i
    xs.append(d["k"])
    if len(xs) > 64:
        xs.clear()
    return sum(range(20)) + len(xs)


def pace_ns(rounds: int = 7, steps: int = 20_000) -> float:
    """CPU nanoseconds per step of the reference workload (median of ``rounds`` rounds)."""
    d: dict[str, int] = {}
    xs: list[int] = []
    times = []
    for _ in range(rounds):
        t = time.process_time_ns()
        for i in range(steps):
            _step(d, xs, i)
        times.append((time.process_time_ns() - t) / steps)
    return statistics.median(times)


def load_average() -> tuple[float, float, float]:
    """The 1, 5 and 15-minute load averages (runnable processes; this machine has ``os.cpu_count()`` cores)."""
    return os.getloadavg()


def load_text(load: tuple[float, ...] | None = None, sep: str = " / ") -> str:
    """``load`` (now, when None) as the pages print it: ``0.98 / 0.76 / 0.77``."""
    return sep.join(f"{x:.2f}" for x in (load if load is not None else load_average()))


@dataclass
class Load:
    """The load average at both ends of a run: ``with Load() as load: ...``, then ``load.before``, ``load.after``."""

    before: tuple[float, float, float] = field(default_factory=load_average)
    after: tuple[float, float, float] | None = None

    def __enter__(self) -> Load:
        self.before = load_average()
        return self

    def __exit__(self, *exc: object) -> None:
        self.after = load_average()

    def line(self) -> str:
        after = f", after {load_text(self.after)}" if self.after is not None else ""
        return f"load average before {load_text(self.before)}{after} ({os.cpu_count()} shared cores)"


def pace_line(pace: float | None = None) -> str:
    """One sentence for a page: the pace (measured now, when None) and what it is for."""
    return (f"Machine pace {pace_ns() if pace is None else pace:.0f} ns CPU per step of `benchmarks/harness/machine.py`'s reference loop "
            "(lower is faster; compare a page's times across days by it)")


if __name__ == "__main__":
    import argparse
    import sys

    argparse.ArgumentParser(prog="python -m benchmarks.harness.machine",
                            description="Measure and print this machine's pace (the reference loop).").parse_args(sys.argv[1:])
    print(pace_line())
