"""How fast this machine runs Python right now: a figure the speed pages print beside their own.

The shared machine's speed moves from day to day by more than the changes the pages measure (the
same commit's warm 1M ask took 0.36 ms CPU one day and 0.79 ms the next), so a CPU time read alone
says little across days. ``pace_ns()`` is the CPU time of one step of a fixed pure-Python workload
(calls, dict and list work, a small sum), the median of several rounds: a page's times divided by
its pace compare across days far better than the times do. ``docs/results/instructions.md`` counts
instructions instead, which no machine moves.
"""

from __future__ import annotations

import statistics
import time


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


def pace_line() -> str:
    """One sentence for a page: the pace and what it is for."""
    return (f"Machine pace {pace_ns():.0f} ns CPU per step of `benchmarks/machine.py`'s reference loop "
            "(lower is faster; compare a page's times across days by it)")


if __name__ == "__main__":
    print(pace_line())
