"""``--view NAME`` of ``catalog build`` / ``catalog import`` is checked before anything is built or written.

Before: a name with a space or markup built the whole catalog and then failed as a pydantic
``ValidationError`` traceback. Now it is a usage error (exit 2) that quotes ``View.name``'s pattern,
and nothing is written; a valid name still builds (the negative control).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from chainret.authoring.build import check_view_name
from chainret.authoring.starter import init
from chainret.catalog.load import load_catalog
from chainret.catalog.models import View
from chainret.cli import app

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "examples" / "backstage" / "records"
BAD = ["a b", "<b>x</b>", "", "v1\n", "x/y", "[bold]v[/bold]"]
runner = CliRunner()


@pytest.fixture()
def world(tmp_path: Path) -> Path:
    init(tmp_path / "w")
    (tmp_path / "w" / "source" / "handbook" / "escalation.md").write_text("# Escalation\n\nCall the lead.\n", encoding="utf-8")
    return tmp_path / "w"


def _refused(args: list[str], name: str) -> str:
    result = runner.invoke(app, [*args, "--view", name])
    flat = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "is not a view name" in flat and View.model_fields["name"].metadata[0].pattern in flat, flat
    return flat


@pytest.mark.parametrize("name", BAD)
def test_catalog_build_refuses_a_bad_view_name_and_writes_nothing(world: Path, name: str) -> None:
    before = (world / "catalog.yaml").read_bytes()
    _refused(["catalog", "build", str(world / "source"), "--out", str(world)], name)
    assert (world / "catalog.yaml").read_bytes() == before


def test_catalog_build_with_a_valid_view_name_adds_that_view(world: Path) -> None:
    result = runner.invoke(app, ["catalog", "build", str(world / "source"), "--out", str(world), "--view", "release-2026.03_a"])
    assert result.exit_code == 0, result.output
    assert load_catalog(world / "catalog.yaml").views[-1].name == "release-2026.03_a"


def test_catalog_import_of_a_table_refuses_a_bad_view_name_and_writes_nothing(world: Path, tmp_path: Path) -> None:
    table = tmp_path / "owners.csv"
    table.write_text("subject,predicate,object\nAtlas,owned_by,Platform team\n", encoding="utf-8")
    args = ["catalog", "import", str(table), "--src", str(world / "source"), "--document", "registry/owners.md", "--out", str(world)]
    _refused(args, "a b")
    assert not (world / "source" / "registry" / "owners.md").exists()
    ok = runner.invoke(app, [*args, "--view", "owners-1"])
    assert ok.exit_code == 0 and load_catalog(world / "catalog.yaml").views[-1].name == "owners-1", ok.output


def test_catalog_import_of_records_refuses_a_bad_view_name(tmp_path: Path) -> None:
    out = tmp_path / "cat.yaml"
    _refused(["catalog", "import", str(RECORDS), "--format", "backstage", "--world", "acme", "--out", str(out)], "<b>x</b>")
    assert not out.exists()


def test_the_rule_is_the_models() -> None:
    """One home: a name the model accepts passes, and each refused one is one the model refuses."""
    assert check_view_name("2026-03-01") == "2026-03-01"
    for name in BAD:
        with pytest.raises(ValueError):
            View(name=name, documents=[])
