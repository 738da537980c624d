"""A new user's first hour, replayed end to end through the real entry point, output piped as a script sees it:
ask the default catalog, import a Backstage tree with its git history, follow the printed next step, ask as of a
date, diff two dates, pipe --json to a script, and open /ui. No step may print a traceback or wrap an ID."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from benchmarks.harness.local_server import LocalServer

ROOT = Path(__file__).resolve().parents[1]


def chainret(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "40", "HF_HUB_OFFLINE": "1"}  # a narrow terminal's width: piped output must not wrap
    got = subprocess.run([sys.executable, "-m", "chainret", *args], cwd=cwd, env=env, capture_output=True, text=True, input=stdin)
    assert "Traceback" not in got.stdout + got.stderr, got.stderr
    return got


@pytest.mark.slow  # ~15 s: an import with history and a server
def test_a_new_users_first_hour(tmp_path: Path) -> None:
    # 1. the README's first ask, on the default catalog
    first = chainret("ask", "Which contact serves PR-84?", "--catalog", str(ROOT / "catalogs/default.yaml"), cwd=tmp_path)
    assert first.returncode == 0 and "contact:final:field" in first.stdout
    assert re.search(r"trace written to \S+\.json$", first.stdout, re.M)  # the path on its own line, whole

    # 2. their own records: a Backstage tree with a git history, imported
    repo, out = tmp_path / "acme-repo", tmp_path / "acme-catalog"
    subprocess.run([sys.executable, str(ROOT / "examples/backstage/make_history.py"), str(repo)], check=True, capture_output=True)
    imported = chainret("catalog", "history", str(repo), "--format", "backstage", "--format", "codeowners", "--world", "acme",
                        "--out", str(out), cwd=tmp_path)
    assert imported.returncode == 0
    step = re.search(r"^\s*(chainret ask .+)$", imported.stdout, re.M)
    assert step is not None, imported.stdout  # the next step is printed

    # 3. ask as of a date, in their own words, and a set
    dated = chainret("ask", "Who owns artist-lookup?", "--catalog", str(out), "--view", "2026-02-01", cwd=tmp_path)
    assert dated.returncode == 0 and "answer" in dated.stdout
    members = chainret("ask", "Who is on team-a?", "--catalog", str(out), cwd=tmp_path)
    assert members.returncode == 0 and "completeness all 2" in " ".join(members.stdout.split())

    # 4. diff two dates (a date resolves as --view resolves it)
    diff = chainret("catalog", "diff", "2026-01-15", "2026-03-10", "--catalog", str(out), cwd=tmp_path)
    assert diff.returncode == 0 and diff.stdout.startswith("2026-01-15-"), diff.stderr
    changes = [line for line in diff.stdout.splitlines() if line.startswith(("+ ", "- "))]
    assert changes and all(line.endswith("]") for line in changes)  # each change whole on its line

    # 5. pipe --json to a script
    asked = chainret("ask", "Who is on team-a?", "--catalog", str(out), "--json", cwd=tmp_path)
    script = "import json,sys; d=json.load(sys.stdin); print(len(d['answers']), d['completeness']['complete'], d['answer']['name'])"
    parsed = subprocess.run([sys.executable, "-c", script], input=asked.stdout, capture_output=True, text=True)
    assert parsed.returncode == 0 and parsed.stdout.startswith("2 True "), parsed.stderr

    # 6. open /ui on their catalog
    with LocalServer(["--catalog", str(out)]).start().wait() as server:
        with urllib.request.urlopen(server.url + "/ui", timeout=10) as page:
            html = page.read().decode()
        assert page.status == 200 and "<form" in html
