"""Where the tests and benchmarks find the repository and the benchmark data (no default inside chainret).

chainret itself reads benchmark data only from ``--data-dir`` or ``$CHAINRET_DATA_DIR``; the tests and
benchmarks pass the shared folder beside the repository (``../shared/data``) through the variable, unless
the caller set it already.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = REPO.parent / "shared" / "data"
SEED_WORLD = REPO / "fixtures" / "seed"  # the shipped seed world the fuzz cases and the update tests start from


def data_dir() -> Path:
    """``$CHAINRET_DATA_DIR`` when set, else ``../shared/data`` beside the repository (may be absent)."""
    env = os.environ.get("CHAINRET_DATA_DIR")
    return Path(env) if env else SHARED_DATA


def use_data_dir() -> Path:
    """Set ``$CHAINRET_DATA_DIR`` to :func:`data_dir` (for chainret and its subprocesses) and return it."""
    path = data_dir()
    os.environ["CHAINRET_DATA_DIR"] = str(path)
    return path


def absent(sub: str = "") -> str:
    """The skip reason when the data folder (or its ``sub`` folder) is absent, else the empty string."""
    path = data_dir() / sub if sub else data_dir()
    if path.is_dir():
        return ""
    return f"benchmark data folder {path} absent (set CHAINRET_DATA_DIR or put the data in ../shared/data beside the repo)"
