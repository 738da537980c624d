"""docs/cli.md is every command's --help as the code has it now (like `cog --check`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "cli_reference.py"


def test_the_cli_reference_is_fresh(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, f"{r.stdout}{r.stderr}docs/cli.md is stale: run python benchmarks/cli_reference.py"


def test_the_reference_lists_every_visible_command() -> None:
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import cli_reference
    finally:
        sys.path.remove(str(SCRIPT.parent))
    page = cli_reference.page()
    for path in ("chainret ask", "chainret trace verify", "chainret catalog build", "chainret bench run", "chainret nli eval"):
        assert f"## `{path}`" in page
    assert "Usage: chainret trace verify [OPTIONS]" in page  # the usage line names the whole command path
