"""Child processes that import chainret from a checkout other than this one (``--src``).

A measuring process never edits ``sys.path``: the checkout measured goes on the child's ``PYTHONPATH``,
and the child runs with ``-P`` so its working folder (or script folder) is not put before it. An editable
install's finder comes after the path entries, so it does not answer for the checkout named. A child
that also imports ``benchmarks`` (``python -m benchmarks.X --measure``) gets this repository's package
from ``.cache/harness-path/`` (a folder holding only a link to ``benchmarks/``), placed before the
checkout so a checkout's own ``benchmarks/`` never stands in for the harness, and this repository's
``chainret`` never stands in for the checkout's.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HARNESS_PATH = REPO / ".cache" / "harness-path"


def python(*args: str) -> list[str]:
    """``python -P ARGS``: the child's ``sys.path`` starts with ``PYTHONPATH``, not its working folder."""
    return [sys.executable, "-P", *args]


def _benchmarks_only() -> Path:
    """``.cache/harness-path``, holding one link, ``benchmarks`` -> this repository's package (made on first use;
    a link left by a moved checkout is replaced; two benchmarks making it at once both succeed)."""
    link, target = HARNESS_PATH / "benchmarks", REPO / "benchmarks"
    if link.is_symlink() and link.resolve() != target.resolve():
        link.unlink()
    if not link.is_symlink():
        HARNESS_PATH.mkdir(parents=True, exist_ok=True)
        try:
            link.symlink_to(target, target_is_directory=True)
        except FileExistsError:
            pass
    return HARNESS_PATH


def child_env(src: str | Path | None = None, *, benchmarks: bool = False,
              base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (the environment) with ``PYTHONPATH`` naming the checkout ``src`` (this repository when None),
    preceded by this repository's ``benchmarks`` package alone when ``benchmarks``."""
    parts = [str(_benchmarks_only())] if benchmarks else []
    parts.append(str(Path(src).resolve()) if src else str(REPO))
    return {**(base if base is not None else os.environ), "PYTHONPATH": os.pathsep.join(parts)}
