"""An unprojected ask's ``holds_restricted`` flag looks up only the documents its trace cites.

It once read every document row of the catalog on every ``ask(..., project=False)``: the cost grew with
the catalog, not the answer. These asks run on stores whose ``documents`` property raises, so a read of
every document fails the test; the flag must still be right both ways.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from chainret.catalog.cases import Overlay, Restriction
from chainret.catalog.load import load_world
from chainret.catalog.overlay import apply_overlay
from chainret.pipeline.ask import ask, cited_doc_refs
from chainret.store import compile_store, open_store
from chainret.store.memory import MemoryStore
from chainret.store.sql import SQLStore

ROOT = Path(__file__).resolve().parents[1]
REQUEST = "Which contact serves project PR-84?"
# The golden case restricted-second-hop: the contact registry readable by the auditor only.
RESTRICT = Overlay(restrict=[Restriction(document="registry/contacts.md@v1", principals=["auditor"])])


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """(catalog as shipped, the same with the contact registry restricted), in memory and compiled to SQLite."""
    base = load_world(ROOT / "catalogs" / "default.yaml").catalog
    out, opened = {}, []
    for name, cat in (("public", base), ("restricted", apply_overlay(base, RESTRICT))):
        db = tmp_path_factory.mktemp("holds") / f"{name}.db"
        compile_store(cat, db)
        opened.append(open_store(str(db)))
        out[name] = {"memory": MemoryStore(cat, f"{name}.yaml"), "sqlite": opened[-1]}
    yield out
    for s in opened:
        s.close()


def _no_full_read(monkeypatch):
    def boom(self):
        raise AssertionError("holds_restricted read every document of the catalog")

    for cls in (MemoryStore, SQLStore):
        monkeypatch.setattr(cls, "documents", property(boom))


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_the_flag_is_right_without_reading_every_document(stores, kind, monkeypatch):
    _no_full_read(monkeypatch)
    for principal in ("auditor", "public"):  # the auditor's path cites the registry; public's refusal names its unit
        cited = ask(REQUEST, stores["restricted"][kind], view="final", principal=principal, project=False)
        assert cited.meta.get("holds_restricted") is True, (principal, cited.to_json()[:600])
    public = ask(REQUEST, stores["public"][kind], view="final", principal="auditor", project=False)
    assert public.outcome == "accepted_path" and "holds_restricted" not in public.meta


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_control_the_raising_documents_property_is_what_the_old_check_read(stores, kind, monkeypatch):
    """Negative control: the guard above would catch a check that reads every document."""
    store = stores["public"][kind]
    _no_full_read(monkeypatch)
    with pytest.raises(AssertionError, match="every document"):
        list(store.documents)


def test_cited_refs_are_found_in_unit_refs_messages_and_path_words():
    text = '{"ref": "registry/teams/a.md@v2#u3", "message": "unit x/registry/b.md@v1. was cut (see c/d.md@v9)"}'
    got = cited_doc_refs(text)
    assert {"registry/teams/a.md@v2", "registry/b.md@v1", "c/d.md@v9"} <= got
    assert cited_doc_refs('{"request": "who serves PR-84?", "catalog": "/x/y.db"}') == set()
