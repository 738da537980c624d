"""Loader errors: every kind names file, record and field, with exit code and no traceback."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from chainret.catalog import CatalogFileInvalid, load_catalog, load_world
from chainret.cli import app
from chainret.core.errors import CatalogInvalid

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "fixtures" / "seed" / "catalog.yaml"
runner = CliRunner()


@pytest.fixture(scope="module")
def seed_data() -> dict:
    return yaml.safe_load(SEED.read_text(encoding="utf-8"))


def write(tmp_path: Path, data: dict, name: str = "catalog.yaml") -> Path:
    path = tmp_path / name
    if name.endswith(".json"):
        path.write_text(json.dumps(data), encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def rel_index(data: dict, rid: str) -> int:
    return next(i for i, r in enumerate(data["relations"]) if r["id"] == rid)


def mutate(seed_data: dict, fn) -> dict:
    data = copy.deepcopy(seed_data)
    fn(data)
    return data


def _set(path: list, value):
    def fn(data: dict) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return fn


CASES = {
    "unknown_field": (_set(["relations", 1, "weight"], 3), "relations[1] (id rel-2)", "unknown field 'weight'"),
    "wrong_type": (_set(["relations", 2, "support", "span"], "ten"), "relations[2] (id rel-3)", "found 'ten'"),
    "missing_field": (lambda d: d["entities"][0].pop("name"), "entities[0] (id project:final:main)", "required field is missing"),
    "invalid_value": (_set(["entities", 1, "id"], "Project-Side"), "entities[1] (id Project-Side)", "type:world:name"),
    "duplicate_id": (_set(["relations", 3, "id"], "rel-1"), "relations[3] (id rel-1)", "duplicate id 'rel-1'"),
    "dangling_reference": (_set(["relations", 0, "object"], "org:final:nowhere"), "relations[0] (id rel-1)", "found 'org:final:nowhere'"),
    "span_out_of_range": (_set(["relations", 0, "support", "span"], [10, 99999]), "relations[0] (id rel-1)", "within the document"),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_load_error_is_located(tmp_path: Path, seed_data: dict, code: str) -> None:
    fn, location, fragment = CASES[code]
    path = write(tmp_path, mutate(seed_data, fn))
    with pytest.raises(CatalogInvalid) as info:
        load_catalog(path)
    issues = info.value.issues
    assert [i.code for i in issues] == [code]
    assert issues[0].file == str(path)
    assert issues[0].location == location
    assert fragment in issues[0].message
    assert location in str(info.value)
    # the YAML line of the offending key (or of the record, for a missing field)
    line_text = path.read_text(encoding="utf-8").splitlines()[issues[0].line - 1]
    key = issues[0].field.split(".")[-1] if code != "missing_field" else "id"
    assert line_text.strip().lstrip("- ").startswith(key + ":"), (line_text, issues[0])


@pytest.mark.parametrize("code", sorted(CASES))
def test_validate_cli_reports_load_error(tmp_path: Path, seed_data: dict, code: str) -> None:
    fn, location, fragment = CASES[code]
    write(tmp_path, mutate(seed_data, fn))
    result = runner.invoke(app, ["validate", str(tmp_path), "--json"])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    report = json.loads(result.output)
    assert report["valid"] is False
    (issue,) = report["reports"][0]["issues"]
    assert (issue["code"], issue["location"]) == (code, location)
    assert fragment in issue["message"]


def test_unknown_field_lists_allowed_fields(tmp_path: Path, seed_data: dict) -> None:
    path = write(tmp_path, mutate(seed_data, _set(["relations", 0, "support", "page"], 4)))
    with pytest.raises(CatalogFileInvalid) as info:
        load_catalog(path)
    (issue,) = info.value.issues
    assert issue.field == "support.page"
    assert "allowed fields: source, document, version" in issue.message


def test_yaml_syntax_error_names_line(tmp_path: Path) -> None:
    path = tmp_path / "catalog.yaml"
    path.write_text("format: chainret-catalog/1\nworld: w\nentities:\n  - id: a:w:b\n    type: [a\n", encoding="utf-8")
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 1
    flat = " ".join(result.output.split())  # rich wraps at the terminal width
    assert "syntax_error" in flat and "line 6, column 1: invalid YAML" in flat
    assert "Traceback" not in result.output


def test_json_syntax_error_names_line(tmp_path: Path) -> None:
    path = tmp_path / "catalog.json"
    path.write_text('{"format": "chainret-catalog/1",\n "world": "w",\n "entities": [,]}', encoding="utf-8")
    with pytest.raises(CatalogFileInvalid) as info:
        load_catalog(path)
    (issue,) = info.value.issues
    assert issue.code == "syntax_error" and issue.location.startswith("line 3")


def test_json_catalog_loads_like_yaml(tmp_path: Path, seed_data: dict) -> None:
    path = write(tmp_path, seed_data, "catalog.json")
    assert load_catalog(path).digest() == load_catalog(SEED).digest()


def test_wrong_root_and_unknown_format(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("- 1\n- 2\n", encoding="utf-8")
    (tmp_path / "b.yaml").write_text("format: something/9\n", encoding="utf-8")
    result = runner.invoke(app, ["validate", str(tmp_path), "--json"])
    codes = [r["issues"][0]["code"] for r in json.loads(result.output)["reports"]]
    assert codes == ["wrong_type", "unknown_format"]
    assert result.exit_code == 1


def test_missing_path_is_usage_error() -> None:
    result = runner.invoke(app, ["validate", "no/such/dir"])
    assert result.exit_code == 2
    assert "no such file or directory" in result.output
    assert "Traceback" not in result.output


def test_several_problems_reported_together(tmp_path: Path, seed_data: dict) -> None:
    def fn(d: dict) -> None:
        d["relations"][0]["subject"] = "project:final:ghost"
        d["views"][0]["documents"].append("registry/nowhere.md@v1")
    with pytest.raises(CatalogFileInvalid) as info:
        load_catalog(write(tmp_path, mutate(seed_data, fn)))
    assert sorted((i.location, i.field) for i in info.value.issues) == [
        ("relations[0] (id rel-1)", "subject"),
        ("views[0] (name final)", "documents.6"),
    ]


def test_cases_file_errors_are_located(tmp_path: Path) -> None:
    seed_cases = yaml.safe_load((ROOT / "fixtures/seed/cases.yaml").read_text(encoding="utf-8"))
    seed_cases["catalog"] = str(SEED)
    seed_cases["cases"][3]["expect"]["reason"] = "bad_luck"
    path = write(tmp_path, seed_cases, "cases.yaml")
    with pytest.raises(CatalogFileInvalid) as info:
        load_world(tmp_path)
    (issue,) = info.value.issues
    assert issue.location == "cases[3] (id first-hop-missing)"
    assert "no_supported_relation" in issue.message and "bad_luck" in issue.message
    assert issue.file == str(path)
