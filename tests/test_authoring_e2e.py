"""The new-user flow through the real CLI (``python -m chainret``) in a temporary folder.

init -> edit a source file -> build -> validate -> ask (accepted path) -> change one assignment ->
build again -> the new view answers the new path, ``--view`` on the old one answers the old path,
and a trace written before the change still verifies. No digest or span is typed anywhere.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def chainret(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CHAINRET_TRACE_DIR": str(cwd / "traces"), "COLUMNS": "200",
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.run([sys.executable, "-m", "chainret", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def answer(cwd: Path, *args: str) -> list[str]:
    proc = chainret("ask", "Who is on call for Atlas?", "--catalog", "w", "--json", "--no-trace", *args, cwd=cwd)
    trace = json.loads(proc.stdout)
    assert trace["outcome"] == "accepted_path", proc.stdout
    return trace["path_ids"]


def test_new_user_flow(tmp_path: Path) -> None:
    ok = chainret("catalog", "init", "w", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    src = tmp_path / "w" / "source"
    assert chainret("validate", "w", cwd=tmp_path).returncode == 0  # out of the box

    # edit a source file: a third project, owned by the Platform team
    header = src / "chainret.yaml"
    header.write_text(header.read_text(encoding="utf-8").replace(
        "entities:\n", "entities:\n  - id: project:starter:comet\n    name: Comet\n    aliases: [PRJ-3]\n", 1), encoding="utf-8")
    projects = src / "registry" / "projects.md"
    projects.write_text(projects.read_text(encoding="utf-8")
                        + "\nComet (PRJ-3) is the data pipeline. The Platform team owns it.\n"
                          "REL project:starter:comet | owned_by | team:starter:platform\n", encoding="utf-8")
    built = chainret("catalog", "build", "w/source", "--out", "w", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    assert "new view v2 (current)" in " ".join(built.stdout.split())
    assert chainret("validate", "w", cwd=tmp_path).returncode == 0
    comet = chainret("ask", "Who is on call for PRJ-3?", "--catalog", "w", "--json", "--no-trace", cwd=tmp_path)
    assert json.loads(comet.stdout)["path_ids"] == ["project:starter:comet", "team:starter:platform", "person:starter:ana"]
    before = tmp_path / "before.json"
    asked = chainret("ask", "Who is on call for Atlas?", "--catalog", "w", "--trace-out", str(before), cwd=tmp_path)
    assert asked.returncode == 0, asked.stderr
    assert json.loads(before.read_text(encoding="utf-8"))["path_ids"] == [
        "project:starter:atlas", "team:starter:platform", "person:starter:ana"]

    # change one assignment: Atlas moves to the Payments team (and the case follows it)
    projects.write_text(projects.read_text(encoding="utf-8").replace(
        "Atlas (PRJ-1) is the customer portal. It is owned by the Platform team.\n"
        "REL project:starter:atlas | owned_by | team:starter:platform",
        "Atlas (PRJ-1) is the customer portal. It is owned by the Payments team.\n"
        "REL project:starter:atlas | owned_by | team:starter:payments"), encoding="utf-8")
    header.write_text(header.read_text(encoding="utf-8").replace(
        "path: [project:starter:atlas, team:starter:platform, person:starter:ana]",
        "path: [project:starter:atlas, team:starter:payments, person:starter:ben]"), encoding="utf-8")
    again = chainret("catalog", "build", "w/source", "--out", "w", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "new view v3 (current)" in " ".join(again.stdout.split())
    assert chainret("validate", "w", cwd=tmp_path).returncode == 0
    assert chainret("eval", "w", cwd=tmp_path).returncode == 0

    assert answer(tmp_path) == ["project:starter:atlas", "team:starter:payments", "person:starter:ben"]
    assert answer(tmp_path, "--view", "v2") == ["project:starter:atlas", "team:starter:platform", "person:starter:ana"]
    verified = chainret("trace", "verify", str(before), cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "evidence intact" in " ".join(verified.stdout.split())  # the catalog changed, not what the trace cites

    diff = chainret("catalog", "diff", "v2", "v3", "--catalog", "w", "--json", cwd=tmp_path)
    changed = json.loads(diff.stdout)["relations"]["changed"]
    assert [(c["before"]["object"], c["after"]["object"]) for c in changed] == [("team:starter:platform", "team:starter:payments")]

    # nothing a person wrote holds a digest or a span
    for f in src.rglob("*"):
        if f.is_file():
            text = f.read_text(encoding="utf-8")
            assert "sha256:" not in text and "span:" not in text and "digest:" not in text, f
