"""One home for the cross-record reference rules (issue 26): a bad record reads the same in a
source header and in a built catalog (``chainret.catalog.references``)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from chainret.authoring.header import SourceInvalid, read_header
from chainret.catalog.issues import CatalogFileInvalid
from chainret.catalog.load import catalog_from_data

RECORDS = {
    "world": "w",
    "entities": [{"id": "team:w:alpha", "type": "team", "name": "Alpha"},
                 {"id": "person:x:bea", "type": "person", "name": "Bea"},
                 {"id": "team:w:alpha", "type": "team", "name": "Alpha again"}],
    "predicates": [{"name": "on_call", "domain": "team", "range": "persn"}],
    "patterns": [{"name": "who", "start_type": "team", "hops": ["oncall"], "phrasings": ["who is on call for {team}"]}],
}


def _errors(issues: list) -> set[tuple[str, str, str, str]]:
    return {(i.code, i.location, i.field, i.message) for i in issues}


def test_a_bad_reference_reads_the_same_in_a_header_and_a_catalog(tmp_path: Path) -> None:
    header = tmp_path / "chainret.yaml"
    header.write_text(yaml.safe_dump({"format": "chainret-source/1", **RECORDS}, sort_keys=False), encoding="utf-8")
    with pytest.raises(SourceInvalid) as in_header:
        read_header(header)
    with pytest.raises(CatalogFileInvalid) as in_catalog:
        catalog_from_data(dict(RECORDS), "catalog.yaml")
    found = _errors(in_header.value.issues)
    assert found == _errors(in_catalog.value.issues)
    codes = sorted(code for code, *_ in found)
    assert codes == ["dangling_reference", "dangling_reference", "duplicate_id", "wrong_world"]
    messages = " | ".join(m for *_, m in found)
    assert "found 'oncall'; did you mean 'on_call'?" in messages  # the closest name, both ways
    assert "found 'persn'; did you mean 'person'?" in messages
    assert "expected an ID in world 'w' (type:w:name), found world 'x'" in messages
