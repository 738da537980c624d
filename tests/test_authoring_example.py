"""examples/service-registry: the generated files are fresh, and the README's walk works as written."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from chainret.authoring.diff import diff_views
from chainret.catalog import load_world
from chainret.cli import app

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "service-registry"
runner = CliRunner()


def run(*args: str) -> str:
    result = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def owner_path(catalog: Path, *view: str, request: str = "Who is on call for cart-api?") -> list[str]:
    out = run("ask", request, "--catalog", str(catalog), "--json", "--no-trace", *view)
    trace = json.loads(out)
    assert trace["outcome"] == "accepted_path"
    return trace["path_ids"]


def test_generated_files_are_fresh() -> None:
    proc = subprocess.run([sys.executable, str(EXAMPLE / "generate.py"), "--check"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_readme_walk(tmp_path: Path) -> None:
    records, catalog = tmp_path / "my-records", tmp_path / "my-catalog"
    shutil.copytree(EXAMPLE / "records", records)
    jan, feb = EXAMPLE / "exports" / "ownership-2026-01.csv", EXAMPLE / "exports" / "ownership-2026-02.csv"
    common = ("--src", str(records), "--document", "cmdb/ownership.md", "--out", str(catalog))
    assert "213 rows" in run("catalog", "import", str(jan), *common, "--view", "2026-01")
    world = load_world(catalog)
    counts = {t: sum(e.type == t for e in world.catalog.entities) for t in ("service", "team", "person")}
    assert counts == {"service": 221, "team": 24, "person": 60} and len(world.catalog.documents) == 286
    assert owner_path(catalog)[1] == "team:services:checkout"
    # the header's own words for the two relations (verbs: maintains; nouns: pager), a keyword request
    assert owner_path(catalog, request="who maintains cart-api")[1] == "team:services:checkout"
    assert owner_path(catalog, request="cart-api pager") == owner_path(catalog)
    trace = tmp_path / "january.json"
    run("ask", "Who is on call for cart-api?", "--catalog", str(catalog), "--trace-out", str(trace))

    out = run("catalog", "import", str(feb), *common, "--view", "2026-02")
    assert "new view 2026-02 (current)" in " ".join(out.split())
    world = load_world(catalog)
    assert [v.name for v in world.catalog.views] == ["2026-01", "2026-02"] and len(world.catalog.documents) == 287
    assert owner_path(catalog)[1] == "team:services:ml-platform"
    assert owner_path(catalog, "--view", "2026-01")[1] == "team:services:checkout"
    d = diff_views(world.catalog, "2026-01", "2026-02")
    assert (len(d.changed), len(d.removed), len(d.added)) == (15, 2, 0)
    run("trace", "verify", str(trace))  # exit 0: January's evidence is intact
    run("validate", str(catalog))
    run("eval", str(catalog))
