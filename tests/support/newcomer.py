"""The newcomer scorer (``benchmarks.newcomer_score``) loaded for the tests of both newcomer sets."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def load_scorer() -> ModuleType:
    """The scorer module (``python -m benchmarks.newcomer_score``)."""
    return importlib.import_module("benchmarks.newcomer_score")


def commit_log(repo: Path) -> list[str]:
    """``<committer date> <short hash>`` of each commit of a built example repository, newest first."""
    import subprocess

    log = subprocess.run(["git", "-C", str(repo), "log", "--format=%cs %h"], capture_output=True, text=True, check=True)
    return log.stdout.split("\n")[:-1]
