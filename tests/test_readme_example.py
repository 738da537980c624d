"""README's first example is real output: the Backstage example imported with its history, asked as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _example() -> tuple[str, list[str]]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```\n\$ (chainret ask [^\n]+)\n(.*?)\n\.\.\.\n```", readme, re.S)
    assert block is not None, "README's first example block is gone"
    return block.group(1), block.group(2).splitlines()


def test_the_readme_example_prints_what_it_shows(tmp_path):
    command, shown = _example()
    repo, out = tmp_path / "acme-repo", tmp_path / "acme-catalog"
    subprocess.run([sys.executable, str(ROOT / "examples/backstage/make_history.py"), str(repo)], check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "chainret", "catalog", "history", str(repo), "--format", "backstage", "--format",
                    "codeowners", "--world", "acme", "--out", str(out)], check=True, capture_output=True)
    args = command.split()[1:]
    args[args.index("acme-catalog")] = str(out)
    request = re.search(r'"([^"]+)"', command)
    assert request is not None
    args = ["ask", request.group(1), *args[args.index("--catalog"):]]
    got = subprocess.run([sys.executable, "-m", "chainret", *args], capture_output=True, text=True, cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    assert got.stdout.splitlines()[: len(shown)] == shown
