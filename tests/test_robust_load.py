"""Bounded catalog loading: no traceback, no hang, no blow-up for hostile files (issue 11)."""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from chainret.catalog.issues import CatalogFileInvalid
from chainret.catalog.load import (
    MAX_DEPTH,
    catalog_from_data,
    load_catalog,
    read_document,
)
from chainret.evaluate.validate import discover, validate_paths
from chainret.cli import app, main

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "fixtures" / "seed"
runner = CliRunner()


def issue_of(path: Path):
    with pytest.raises(CatalogFileInvalid) as info:
        read_document(path)
    (issue,) = info.value.issues
    return issue


def test_billion_laughs_is_refused_before_expansion(tmp_path):
    levels = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    levels += [f"l{k}: &l{k} [{', '.join([f'*l{k - 1}'] * 9)}]" for k in range(1, 10)]
    path = tmp_path / "catalog.yaml"
    path.write_text("format: chainret-catalog/1\nworld: w\n" + "\n".join(levels) + "\ndescription: *l9\n", encoding="utf-8")
    issue = issue_of(path)
    assert issue.code == "alias_expansion" and issue.line is not None and "aliases" in issue.message


def test_recursive_alias_and_few_aliases(tmp_path):
    path = tmp_path / "catalog.yaml"
    path.write_text("world: w\nx: &a [1, *a]\n", encoding="utf-8")
    assert issue_of(path).code == "recursive_alias"
    # a handful of ordinary aliases still load
    text = (SEED / "catalog.yaml").read_text(encoding="utf-8").replace("  - auditor\n", "  - &who auditor\n", 1)
    text = text.replace("description: 'The seed", "description: 'The seed", 1)
    path.write_text(text, encoding="utf-8")
    assert load_catalog(path).world == "final"


def test_duplicate_yaml_key_names_file_and_lines(tmp_path):
    text = (SEED / "catalog.yaml").read_text(encoding="utf-8")
    assert "  visibility: restricted\n" in text
    path = tmp_path / "catalog.yaml"
    path.write_text(text.replace("  visibility: restricted\n", "  visibility: restricted\n  visibility: public\n", 1), encoding="utf-8")
    issue = issue_of(path)
    second = next(i for i, line in enumerate(path.read_text().splitlines(), 1) if line == "  visibility: public")
    assert (issue.code, issue.file, issue.line) == ("duplicate_key", str(path), second)
    assert f"first at line {second - 1}" in issue.message and "'visibility'" in issue.message
    r = runner.invoke(app, ["validate", str(path)])
    assert r.exit_code == 1 and "duplicate_key" in r.output


def test_duplicate_json_key_names_line(tmp_path):
    path = tmp_path / "catalog.json"
    path.write_text('{"format": "chainret-catalog/1",\n "world": "w",\n "entities": [\n  {"id": "a:w:x", "id": "a:w:y"}]}', encoding="utf-8")
    issue = issue_of(path)
    assert issue.code == "duplicate_key" and issue.line == 4 and "'id'" in issue.message


@pytest.mark.parametrize(
    ("name", "text", "code"),
    [
        ("catalog.json", '{"world": "w", "description": ' + "[" * 100_000 + "]" * 100_000 + "}", "too_deep"),
        ("catalog.json", '{"world": "w", "description": ' + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "}", "too_deep"),
        ("catalog.yaml", "world: w\ndescription: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n", "too_deep"),
        ("catalog.yaml", "world: w\n" + "".join("  " * i + "k:\n" for i in range(200)), "too_deep"),
        ("catalog.yaml", "world: w\ndescription: " + "[" * 100_000 + "]" * 100_000 + "\n", "syntax_error"),
    ],
)
def test_deep_nesting_is_a_clear_error(tmp_path, name, text, code):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert issue_of(path).code == code


def test_non_utf8_and_special_files(tmp_path):
    path = tmp_path / "catalog.yaml"
    path.write_bytes(b"world: w\ndescription: caf\xe9\n")
    issue = issue_of(path)
    assert issue.code == "not_utf8" and issue.line == 2 and "0xe9" in issue.message
    assert issue_of(Path("/dev/null")).code == "not_a_regular_file"
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    got: list = []
    worker = threading.Thread(target=lambda: got.append(issue_of(fifo)), daemon=True)
    worker.start()
    worker.join(10)
    assert got and got[0].code == "not_a_regular_file" and "FIFO" in got[0].message  # and it never blocked


def cli(capsys, *argv: str) -> tuple[int, str]:
    """The real entry point (``main``): exit code and all output."""
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out = capsys.readouterr()
    return exc.value.code, out.out + out.err


def test_validate_and_ask_on_special_files_exit_cleanly(capsys):
    code, out = cli(capsys, "validate", "/dev/null")
    assert code == 1 and "not_a_regular_file" in out and "character device" in " ".join(out.split())
    code, out = cli(capsys, "ask", "Which contact serves PR-84?", "--catalog", "/dev/null", "--no-trace")
    assert code == 2 and "not_a_regular_file" in out and "Traceback" not in out


def test_error_messages_never_repr_a_whole_value():
    shared: list = ["x" * 1000]
    for _ in range(25):  # 2**25 references if expanded: repr() of it would never finish
        shared = [shared, shared]
    data = yaml.safe_load((SEED / "catalog.yaml").read_text(encoding="utf-8"))
    data["description"] = shared
    data["entities"][0]["name"] = "N" * 1_000_000
    data["entities"][0]["aliases"] = 5
    with pytest.raises(CatalogFileInvalid) as info:
        catalog_from_data(data, "big.yaml")
    assert all(len(i.message) <= 700 for i in info.value.issues)
    assert len(str(info.value)) < 5000


def test_symlink_loops_are_walked_once(tmp_path):
    world = tmp_path / "w"
    (world / "a" / "b").mkdir(parents=True)
    shutil.copy(SEED / "catalog.yaml", world / "a" / "b" / "one.yaml")
    for link, dest in ((world / "a" / "b" / "up", ".."), (world / "a" / "b" / "top", "../.."), (world / "self", ".")):
        os.symlink(dest, link)
    os.symlink("loop.yaml", world / "loop.yaml")  # a file symlink loop: reported, not followed
    files = discover(world)
    names = sorted(p.name for p in files)
    assert names == ["loop.yaml", "one.yaml"]
    reports = validate_paths([world])
    codes = {i.code for r in reports for i in r.issues if i.severity == "error"}
    assert codes == {"unreadable_file"}


def test_glued_phrasing_is_a_validate_error_and_never_crashes_ask(tmp_path):
    text = (SEED / "catalog.yaml").read_text(encoding="utf-8")
    text = text.replace("  - which contact serves {project}\n", "  - which contact serves{project}\n", 1)
    path = tmp_path / "catalog.yaml"
    path.write_text(text, encoding="utf-8")
    r = runner.invoke(app, ["validate", str(path), "--json"])
    issues = [i for rep in json.loads(r.output)["reports"] for i in rep["issues"] if i["code"] == "invalid_phrasing"]
    assert r.exit_code == 1 and len(issues) == 1 and issues[0]["field"] == "phrasings.0" and "glued" in issues[0]["message"]
    r = runner.invoke(app, ["ask", "Which contact serves project PR-84?", "--catalog", str(path), "--no-trace", "--view", "final"])
    assert r.exit_code == 0, r.output  # the other phrasings still match
    r = runner.invoke(app, ["ask", "Which contact serves PR-84?", "--catalog", str(path), "--no-trace", "--view", "final"])
    assert r.exit_code == 1 and "no_pattern" in r.output  # only the glued phrasing had this form: skipped, no ValueError
