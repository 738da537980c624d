"""``chainret serve --pin``: each worker process on a CPU of its own.

A request crosses threads twice: the event loop hands it to an engine thread and the engine thread hands
the answer back. When the two threads sit on different CPUs each crossing wakes the other CPU, which on a
virtual machine is dear: on this repository's 2-vCPU machine a bare hand-off between two threads cost
62 µs of CPU across CPUs and 10 µs on one, and pinning a one-worker server at 1M relations took its CPU
per request from 1.16 to 0.86 ms (``benchmarks/serve_load.py`` measures both). So ``--pin`` puts every
thread of a worker on one CPU, a different one per worker while there are CPUs the process may use
(``os.sched_getaffinity``); workers beyond that are left to the scheduler. It is a choice, not the default:
it gives up spreading one worker's engine threads over CPUs (``--threads`` above 1 then share one), and
on a machine whose CPUs are busy with other work the scheduler can no longer move a worker off a busy one.

Workers claim CPUs by binding a Unix socket in Linux's abstract namespace, one name per (server, CPU),
held for the worker's life: two workers never take the same CPU, a restarted worker takes the one its
predecessor freed, and nothing is left on disk however a worker ends (the kernel frees the name).
Hand-written: the standard library has the pieces (``os.sched_setaffinity``, ``socket``), and no
well-kept package does this one step.
"""

from __future__ import annotations

import os
import socket

_held: list[socket.socket] = []  # the claim on this process's CPU, held for its life


def pin_this_process(group: str) -> int | None:
    """Pin every thread of this process (and the threads it starts later) to the first CPU it may use that no
    other process of ``group`` (one server's workers) holds; the CPU, or None (none free, or no affinity here)."""
    if not hasattr(os, "sched_setaffinity") or not hasattr(socket, "AF_UNIX"):
        return None
    for cpu in sorted(os.sched_getaffinity(0)):
        claim = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            claim.bind(f"\0chainret-serve-{group}-cpu{cpu}")  # (abstract: no file; freed when the process ends)
        except OSError:
            claim.close()
            continue
        _held.append(claim)
        for task in _threads():
            try:
                os.sched_setaffinity(task, {cpu})
            except OSError:  # a thread that ended meanwhile
                continue
        return cpu
    return None


def _threads() -> list[int]:
    """This process's thread ids (Linux: /proc/self/task); just the process where that is not readable."""
    try:
        return [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        return [0]
