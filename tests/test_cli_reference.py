"""docs/cli.md is every command's --help as the code has it now (like `cog --check`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks import cli_reference
from benchmarks.harness.checkout import child_env


def test_the_cli_reference_is_fresh(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "benchmarks.cli_reference", "--check"], capture_output=True, text=True,
                       cwd=tmp_path, env=child_env())
    assert r.returncode == 0, f"{r.stdout}{r.stderr}docs/cli.md is stale: run python -m benchmarks.cli_reference"


def test_the_reference_lists_every_visible_command() -> None:
    page = cli_reference.page()
    for path in ("chainret ask", "chainret trace verify", "chainret catalog build", "chainret bench run", "chainret nli eval"):
        assert f"## `{path}`" in page
    assert "Usage: chainret trace verify [OPTIONS]" in page  # the usage line names the whole command path
