"""``trace verify`` checks the identity a trace claims: relabelled traces and forged digests are differences.

The attack (issue 21): a trace whose ``catalog_digest`` is forged, or whose ``meta.viewer`` says
``auditor`` while its content is the public projection, verified as "evidence intact". Now a
compiled store records every identity it showed each viewer class (one row per class per compile
and update), and verify accepts a changed identity only when the catalog really had it for that
viewer. Concurrent writers are also here: a second writer waits for the lock or is refused, never
both succeed with one's rows lost.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchmarks.harness.races import race_update_replace
from test_store_cli import versions

from chainret.pipeline.ask import ask
from chainret.catalog.load import load_world
from chainret.verify.replay import verify
from chainret.store import compile_store, open_store, update_store
from chainret.store.base import StoreError, revision_number
from chainret.trace.model import Trace

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "fixtures" / "seed"
REQUEST = "Which contact serves PR-84?"


def _relabel(trace: Trace, **meta) -> Trace:
    data = json.loads(trace.to_json())
    data["meta"].update(meta)
    return Trace.model_validate(data)


@pytest.fixture()
def db(tmp_path):
    out = tmp_path / "seed.db"
    compile_store(load_world(SEED).catalog, out)
    return out


@pytest.mark.parametrize("where", ["yaml", "sqlite"])
def test_a_public_trace_relabelled_as_the_auditors_is_a_difference(where, db):
    catalog = str(SEED) if where == "yaml" else str(db)
    public = ask(REQUEST, catalog, view="final", principal="public")
    assert verify(public, catalog).status == "verified"
    forged = _relabel(public, viewer="auditor", principal="auditor")
    result = verify(forged, catalog)
    assert result.status == "mismatch", result
    assert result.differences[0].field in ("meta.viewer", "catalog_digest") or result.differences[0].kind == "replay"


@pytest.mark.parametrize("where", ["yaml", "sqlite"])
def test_the_identity_check_alone_catches_a_relabelled_viewer(where, db):
    """Even where a replay could not tell them apart, the public identity is not one the auditor was shown."""
    from chainret.verify.replay import identity_differences

    catalog = load_world(SEED).catalog if where == "yaml" else open_store(db)
    public = ask(REQUEST, catalog, view="final", principal="public")
    forged = _relabel(public, viewer="auditor", principal="auditor")
    assert [d.field for d in identity_differences(forged, catalog, "auditor")] == ["meta.viewer"]
    assert identity_differences(public, catalog, "public") == []
    audit = ask(REQUEST, catalog, view="final", principal="auditor", project=False)
    assert [d.field for d in identity_differences(_relabel(audit, projected=True, viewer="public"), catalog, "public")] == ["meta.viewer"]


def test_a_forged_digest_is_an_identity_the_store_never_had(db):
    public = ask(REQUEST, str(db), view="final")
    forged = public.model_copy(update={"catalog_digest": "sha256:" + "0" * 64})
    result = verify(forged, str(db))
    assert result.status == "mismatch" and result.differences[0].field == "catalog_digest"
    assert "not an identity this store ever had" in result.differences[0].message


def test_a_catalog_file_refuses_an_identity_it_never_had():
    """A YAML file keeps no history of identities: one that is neither current nor an earlier view's is a difference."""
    public = ask(REQUEST, str(SEED), view="final")
    forged = public.model_copy(update={"catalog_digest": "sha256:" + "0" * 64})
    result = verify(forged, str(SEED))
    assert result.status == "mismatch" and [d.field for d in result.differences] == ["catalog_digest"], result


def test_an_earlier_identity_of_this_viewer_after_an_update_is_evidence_intact(tmp_path):
    v1, v2 = versions()
    out = tmp_path / "live.db"
    compile_store(v1, out)
    old = ask(REQUEST, str(out), view="final", principal="public")
    rev1 = old.meta["revision"]
    update_store(v2, out)
    store = open_store(out)
    assert verify(old, store).status == "evidence_intact"
    new = ask(REQUEST, store, view="final", principal="public")
    assert revision_number(new.meta["revision"]) == revision_number(rev1) + 1
    # An identity this store had, but for the audit trail rather than a projection: a difference.
    relabelled = old.model_copy(update={"catalog_digest": v1.digest()})
    assert verify(relabelled, store).status == "mismatch"


def test_revision_tokens_are_parsed_strictly():
    assert revision_number("3.abcdef0123456789") == 3
    for bad in ("", "3", "x.ab", "3.", "3.XYZ", "-1.ab", "1.ab" + "0" * 100):
        with pytest.raises(ValueError):
            revision_number(bad)


# -- no lost update --------------------------------------------------------------------------------------
def test_an_update_racing_a_replace_never_reports_rows_that_are_gone(tmp_path):
    """Update and replace serialise on the store's lock: an update that finished last has its rows in the final store.

    Without the lock the replace renames its file over the store while the update is still writing
    to the old one: the update reports success, finishes last, and its rows are in no store.
    """
    v1, v2 = versions()
    out = tmp_path / "race.db"
    for trial in range(4):
        race = race_update_replace(v1, v2, out, trial)
        last, result = race.last
        final = race.final_digest
        if last == "update" and isinstance(result, dict):
            assert final == v2.digest(), f"trial {trial}: the update reported success last, but its rows are gone"
        elif last == "replace":
            assert final == v1.digest()


def test_a_second_writer_is_refused_with_a_message_while_the_lock_is_held(tmp_path, monkeypatch):
    from chainret.store import sqlite as sq

    v1, _ = versions()
    out = tmp_path / "held.db"
    compile_store(v1, out)
    with sq.write_lock(out):
        monkeypatch.setattr(sq, "LOCK_WAIT_S", 0.2)
        with pytest.raises(StoreError, match="another chainret command is writing"):
            compile_store(v1, out, replace=True)
    compile_store(v1, out, replace=True)  # released: the next writer goes through


@pytest.mark.parametrize("name", ["a#b.db", "q?x.db", "pct%41.db", "sp ace.db", "ünï.db"])
def test_odd_file_names_are_plain_file_names(tmp_path, name, monkeypatch):
    monkeypatch.chdir(tmp_path)
    compile_store(load_world(SEED).catalog, tmp_path / name)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == [name]
    assert ask(REQUEST, name).outcome == "accepted_path"
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == [name]
