"""A YAML catalog that loaded is remembered as JSON and read back instead of parsed (issue 24), and the
remembered parse is exactly the parse: every fixture world and the default catalog load to the same
Catalog (same digest) from the cache as from YAML; a tampered, foreign or group-writable cache file is
never read; values JSON cannot give back exactly (dates, bytes) are never remembered; a cache folder
that cannot be written only means no cache.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chainret.catalog import parse
from chainret.catalog.load import default_catalog_path, load_catalog, load_world

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = [default_catalog_path(), *sorted((ROOT / "fixtures").glob("*/catalog.yaml"))]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "chainret" / "parsed"


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.parent.name)
def test_a_remembered_parse_loads_the_same_catalog(cache, path: Path) -> None:
    fresh = load_world(path).catalog  # parses the YAML and remembers it (the parse, and the checked catalog)
    files = sorted(cache.glob("*.json"))
    assert [f.name.endswith(".checked.json") for f in files] == [True, False]
    assert all(oct(f.stat().st_mode & 0o777) == "0o600" for f in files)
    raw = parse.read_text(path)
    assert parse._recall(parse._cache_key(raw)) == parse.parse_yaml(raw, str(path))
    again = load_world(path).catalog  # from the cache: the checked catalog
    assert again == fresh and again.digest() == fresh.digest()
    files[0].unlink()
    again = load_world(path).catalog  # from the remembered parse, validated
    assert again == fresh and again.digest() == fresh.digest()
    assert load_catalog(path).digest() == fresh.digest()


def test_the_cache_is_read_only_when_it_is_this_users_own(cache) -> None:
    path = default_catalog_path()
    load_world(path)
    key = parse._cache_key(parse.read_text(path))
    file = cache / f"{key}.json"
    assert parse._recall(key) is not None
    file.chmod(0o620)  # group-writable: someone else could have written it
    assert parse._recall(key) is None
    file.chmod(0o600)
    doc = json.loads(file.read_text())
    doc["key"] = "0" * 64  # a file renamed onto another key
    file.write_text(json.dumps(doc))
    assert parse._recall(key) is None
    file.write_text("{not json")
    assert parse._recall(key) is None
    assert load_world(path).catalog.digest() == load_world(path).catalog.digest()  # parsed again, rewritten


@pytest.mark.parametrize("odd", ["deep", "too_deep_for_a_catalog", "not_utf8", "data_not_a_mapping", "empty"])
def test_an_odd_cache_entry_means_an_ordinary_parse_which_replaces_it(cache, odd: str) -> None:
    """An entry nested past Python's stack raised RecursionError from the cache read; now every odd entry is ignored."""
    path = default_catalog_path()
    fresh = load_world(path).catalog
    key = parse._cache_key(parse.read_text(path))
    (cache / f"{key}.checked.json").unlink()  # (this test is the parse's: the checked catalog would answer first)
    file = cache / f"{key}.json"
    head = f'{{"format": "{parse._CACHE_FORMAT}", "key": "{key}", "data": '
    body = {
        "deep": head + '{"x": ' + "[" * 200_000 + "]" * 200_000 + "}}",
        "too_deep_for_a_catalog": head + '{"x": ' + "[" * (parse.MAX_DEPTH + 5) + "]" * (parse.MAX_DEPTH + 5) + "}}",
        "not_utf8": head + '{"x": "\xff"}}',
        "data_not_a_mapping": head + "[]}",
        "empty": "",
    }[odd]
    file.write_bytes(body.encode("latin-1"))
    file.chmod(0o600)
    assert parse._recall(key) is None
    assert load_world(path).catalog.digest() == fresh.digest()  # parsed again
    assert parse._recall(key) == parse.parse_yaml(parse.read_text(path), str(path))  # and the entry replaced
    assert parse._recall_checked(key) == fresh  # and the checked catalog remembered again


def test_a_good_cache_entry_is_used_without_parsing_the_yaml(cache, monkeypatch) -> None:
    """Negative control: a sound entry is read back, and the YAML reader is not run."""
    path = default_catalog_path()
    fresh = load_world(path).catalog
    (cache / f"{parse._cache_key(parse.read_text(path))}.checked.json").unlink()
    monkeypatch.setattr(parse, "parse_yaml", lambda raw, name: pytest.fail("the remembered parse was not used"))
    assert load_world(path).catalog.digest() == fresh.digest()


def test_values_json_cannot_give_back_are_not_remembered() -> None:
    assert parse._json_exact({"a": [1, 2.5, None, True, "x"]}) is not None
    for odd in ({"d": __import__("datetime").date(2024, 1, 1)}, {"b": b"x"}, {1: "int key"}, {"n": float("nan")},
                {"s": {1, 2}}):
        assert parse._json_exact(odd) is None


def test_an_unwritable_cache_folder_is_no_cache(tmp_path, monkeypatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    cat = load_world(default_catalog_path()).catalog
    assert cat.world and blocker.read_text() == "not a folder"


def test_a_warm_cache_keeps_yaml_off_the_ask_path(tmp_path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    probe = ("import sys\nfrom chainret.cli import main\n"
             "try:\n    main(['ask', 'Which contact serves PR-84?', '--no-trace'])\nexcept SystemExit:\n    pass\n"
             "sys.stderr.write('@@' + ' '.join(sys.modules))")
    first, second = (subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=ROOT)
                     for _ in range(2))
    assert first.stdout == second.stdout and "Rowan field office" in first.stdout
    assert "yaml" in first.stderr.rsplit("@@", 1)[1].split()  # the first ask parsed the YAML
    assert "yaml" not in second.stderr.rsplit("@@", 1)[1].split()


# -- the remembered checked catalog (read back without validation: issue 47) -------------------------------------
def _checked_file(cache: Path, path: Path) -> Path:
    return cache / f"{parse._cache_key(parse.read_text(path))}.checked.json"


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.parent.name)
def test_a_checked_catalog_is_the_validated_one_and_skips_validation(cache, path: Path, monkeypatch) -> None:
    """Every fixture world and the default catalog: the catalog rebuilt from its remembered dump equals the
    validated one, record for record and digest for digest (and, with CHAINRET_CHECK_TRUSTED on in the suite,
    each record it builds unchecked equals what validation gives). Negative control: it is read back without
    validating anything (the validator would fail here), and the digest is the remembered one."""
    import chainret.catalog.load as load

    fresh = load_world(path).catalog
    assert _checked_file(cache, path).is_file()
    monkeypatch.setattr(load, "catalog_from_data", lambda *a: pytest.fail("the checked catalog was validated again"))
    again = load_world(path).catalog
    assert again == fresh and again is not fresh and again.digest() == fresh.digest()
    assert again.model_dump() == fresh.model_dump()
    assert [type(r.support.span) for r in again.relations] == [tuple] * len(fresh.relations)


@pytest.mark.parametrize("odd", ["other_code", "other_key", "group_writable", "does_not_rebuild", "not_json"])
def test_a_checked_catalog_of_other_code_or_odd_is_ignored_and_replaced(cache, odd: str) -> None:
    """An entry written under other code (the catalog models' files changed), renamed from another key, writable
    by others, whose data does not rebuild, or not JSON is not trusted: the catalog is validated again and the entry
    rewritten. Negative control: the untouched entry is trusted (``_recall_checked`` answers the catalog)."""
    path = default_catalog_path()
    fresh = load_world(path).catalog
    key = parse._cache_key(parse.read_text(path))
    file = _checked_file(cache, path)
    assert parse._recall_checked(key) == fresh
    doc = json.loads(file.read_text())
    if odd == "other_code":
        doc["code"][0][1] += 1
    elif odd == "other_key":
        doc["key"] = "0" * 64
    elif odd == "does_not_rebuild":
        doc["data"]["relations"][0]["support"] = "not a support"
    file.write_text("{not json" if odd == "not_json" else json.dumps(doc))
    file.chmod(0o620 if odd == "group_writable" else 0o600)
    assert parse._recall_checked(key) is None
    assert load_world(path).catalog == fresh
    assert parse._recall_checked(key) == fresh  # rewritten
