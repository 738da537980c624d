"""python -m benchmarks.bench_world: the generated world and its store, from relative paths given in any folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks.harness.checkout import child_env
from chainret.store import resolve_catalog


def test_relative_out_and_db_are_read_from_the_callers_folder(tmp_path: Path) -> None:
    # The compile runs in the checkout (its chainret); the paths the user typed are relative to where they typed them.
    done = subprocess.run([sys.executable, "-m", "benchmarks.bench_world", "--relations", "200", "--out", "w/200.json",
                           "--db", "w/200.db"], cwd=tmp_path, env=child_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "w" / "200.json").stat().st_size > 0
    store = resolve_catalog(str(tmp_path / "w" / "200.db"))
    assert len(store.relations_by_id) == 200
