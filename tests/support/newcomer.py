"""The newcomer scorer (benchmarks/newcomer_score.py) loaded for the tests of both newcomer sets."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def load_scorer() -> ModuleType:
    """The scorer module, loaded by path (benchmarks/ is no package), once per session."""
    if "newcomer_score" in sys.modules:
        return sys.modules["newcomer_score"]
    spec = importlib.util.spec_from_file_location("newcomer_score", ROOT / "benchmarks" / "newcomer_score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the models' annotations through the module
    spec.loader.exec_module(module)
    return module


def commit_log(repo: Path) -> list[str]:
    """``<committer date> <short hash>`` of each commit of a built example repository, newest first."""
    import subprocess

    log = subprocess.run(["git", "-C", str(repo), "log", "--format=%cs %h"], capture_output=True, text=True, check=True)
    return log.stdout.split("\n")[:-1]
