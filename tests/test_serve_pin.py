"""``chainret serve --pin`` (``chainret.server.affinity``): each worker's threads on one CPU, a different one
per worker while CPUs last, and the answers unchanged.

The pinning runs in child processes only: pinning the test runner would slow every later test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from benchmarks.harness.local_server import LocalServer
from test_serve import AUDITOR, FIXTURES, _stable, _tokens_file

from chainret.pipeline.ask import ask
from chainret.server.limits import DEFAULT_CEILING
from chainret.catalog.load import load_world

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this system")
CPUS = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_setaffinity") else []

_PIN = (
    "import json, os, sys, threading\n"
    "from chainret.server.affinity import pin_this_process\n"
    "early = threading.Thread(target=threading.Event().wait, daemon=True); early.start()  # started before the pin\n"
    "cpu = pin_this_process(sys.argv[1])\n"
    "late = []\n"
    "t = threading.Thread(target=lambda: late.append(sorted(os.sched_getaffinity(0)))); t.start(); t.join()\n"
    "print(json.dumps({'cpu': cpu, 'main': sorted(os.sched_getaffinity(0)), 'early': sorted(os.sched_getaffinity(early.native_id)),"
    " 'late': late[0]}), flush=True)\n"
    "sys.stdin.read()  # hold the CPU's lock until the test lets go\n"
)


def _pinned(group: str) -> tuple[subprocess.Popen[str], dict[str, object]]:
    proc = subprocess.Popen([sys.executable, "-c", _PIN, group], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, json.loads(proc.stdout.readline())


def test_every_thread_of_a_process_lands_on_its_cpu_and_workers_never_share_one() -> None:
    group = f"test.{os.getpid()}"
    procs = []
    try:
        seen = []
        for _ in range(len(CPUS) + 1):  # one more process than CPUs
            proc, got = _pinned(group)
            procs.append(proc)
            seen.append(got)
        for got in seen[:-1]:
            assert got["main"] == got["early"] == got["late"] == [got["cpu"]]  # threads from before and after the pin
        assert sorted(g["cpu"] for g in seen[:-1]) == CPUS  # one each, none shared
        assert seen[-1]["cpu"] is None and seen[-1]["main"] == CPUS  # none left: left to the scheduler
        procs[0].communicate("")  # a worker that ends frees its CPU for the next
        proc, got = _pinned(group)
        procs.append(proc)
        assert got["cpu"] == seen[0]["cpu"]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.communicate("")


def _allowed(pid: int) -> set[str]:
    """Cpus_allowed_list of every thread of a process."""
    out = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        for line in Path(f"/proc/{pid}/task/{task}/status").read_text().splitlines():
            if line.startswith("Cpus_allowed_list:"):
                out.add(line.split(":", 1)[1].strip())
    return out


def _pinned_cpus(pids: list[int]) -> list[str]:
    """The CPU of each process whose every thread is allowed one CPU only."""
    return [next(iter(a)) for a in map(_allowed, pids) if len(a) == 1 and next(iter(a)).isdigit()]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_pinned_server_answers_as_before_with_each_worker_on_one_cpu(tmp_path: Path, workers: int) -> None:
    cat = load_world(FIXTURES / "seed").catalog
    tokens = _tokens_file(tmp_path / "tokens.json")
    args = ["--catalog", str(FIXTURES / "seed"), "--tokens", str(tokens), "--rate", "0", "--pin", "--threads", "2", "--workers", str(workers)]
    with LocalServer(args, log=tmp_path / "server.log") as srv, httpx.Client(base_url=srv.url, headers={"Authorization": f"Bearer {AUDITOR}"}) as c:
        for _ in range(4):
            data = c.post("/ask", json={"request": "Which contact serves PR-84?"}).json()
            assert _stable(data["trace"]) == _stable(ask("Which contact serves PR-84?", cat, principal="auditor", ceiling=DEFAULT_CEILING))
        assert srv.proc is not None
        if workers == 1:
            servers = [srv.proc.pid]
        else:  # uvicorn's workers are the supervisor's children (a pinned child is a worker; others are helpers)
            servers = [int(p) for p in subprocess.run(["pgrep", "-P", str(srv.proc.pid)], capture_output=True, text=True).stdout.split()]
        pinned = _pinned_cpus(servers)
        deadline = time.monotonic() + 30  # a worker that served none of the four asks may still be starting
        while len(pinned) < min(workers, len(CPUS)) and time.monotonic() < deadline:
            time.sleep(0.1)
            pinned = _pinned_cpus(servers)
        assert len(pinned) == min(workers, len(CPUS)), [_allowed(p) for p in servers]  # every thread of a worker on its CPU
        assert len(set(pinned)) == len(pinned)  # no two workers on one
    assert "one CPU each (--pin)" in (tmp_path / "server.log").read_text()
