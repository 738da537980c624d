"""python -m benchmarks.warm_ab: each side's runs import chainret from the checkout named, not from this repository.

The first comparisons of issue 24's stop 42 ran the same code twice: ``store_bench`` put this repository first
on ``sys.path``, so a checkout named on ``PYTHONPATH`` was never imported. The script must say which one ran.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_each_side_runs_its_own_checkout(tmp_path: Path) -> None:
    db = tmp_path / "200.db"
    built = subprocess.run([sys.executable, "-m", "benchmarks.bench_world", "--relations", "200",
                            "--out", str(tmp_path / "200.json"), "--db", str(db)], cwd=ROOT, capture_output=True, text=True,
                           timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    other = tmp_path / "other"
    shutil.copytree(ROOT / "chainret", other / "chainret", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    done = subprocess.run([sys.executable, "-m", "benchmarks.warm_ab", "--store", str(db), "--relations", "200", "--a", str(ROOT),
                           "--b", str(other), "--pairs", "1", "--warm", "20", "--asks", "30"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    pair = json.loads(lines[0])
    assert pair["a"]["chainret"] == str(ROOT / "chainret")
    assert pair["b"]["chainret"] == str(other / "chainret")
    assert pair["a"]["asks"] == pair["b"]["asks"] == 30
    assert pair["a"]["cpu_p50_ms"] > 0 and pair["b"]["cpu_p50_ms"] > 0
    assert "median of CPU (B - A) over 1 pairs" in lines[-1] and "wall" in lines[-1]
