"""Every golden trace proves itself through `chainret trace verify`, from any working directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from chainret.cli import app
from chainret.verify.replay import first_difference, verify
from chainret.trace.model import read_trace

ROOT = Path(__file__).resolve().parents[1]
GOLDENS = sorted((ROOT / "traces").rglob("*.json"))


def test_there_are_goldens_of_every_world():
    assert {p.parent.name for p in GOLDENS} >= {"final", "lab", "supply"}


@pytest.mark.parametrize("path", GOLDENS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden_replays_through_the_cli_from_another_directory(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["trace", "verify", str(path), "--json"])
    got = json.loads(r.output)
    assert r.exit_code == 0 and got["status"] == "verified", r.output


def test_goldens_with_unreadable_content_say_so():
    for path in GOLDENS:
        t = read_trace(path)
        assert t.meta["projected"] is False and t.meta["viewer"] is None
    marked = [p.stem for p in GOLDENS if read_trace(p).meta.get("holds_restricted")]
    assert "restricted-second-hop" in marked and "auditor-first-branch" in marked


def test_a_forged_golden_names_the_first_differing_field():
    t = read_trace(ROOT / "traces" / "final" / "main-serves.json")
    hop = next(i for i, h in enumerate(t.hops) if h.anchor is not None)
    forged_anchor = t.hops[hop].anchor.model_copy(update={"span": (t.hops[hop].anchor.span[0] + 1, t.hops[hop].anchor.span[1] + 1)})
    hops = list(t.hops)
    hops[hop] = hops[hop].model_copy(update={"anchor": forged_anchor})
    res = verify(t.model_copy(update={"hops": hops}), trace_path=ROOT / "traces" / "final" / "main-serves.json")
    assert res.status == "mismatch"
    assert res.differences[0].kind == "evidence" and res.differences[0].field == f"hops[{hop}].anchor.quote"
    assert any(d.kind == "replay" and d.field == f"hops[{hop}].anchor.span[0]" for d in res.differences)


def test_first_difference_walks_dicts_and_lists_in_order():
    assert first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == ("a[1].b", 2, 3)
    assert first_difference({"a": [1]}, {"a": [1, 2]}) == ("a.length", 1, 2)
    assert first_difference({"a": 1}, {"b": 1}) == ("a", 1, "<absent>")
    assert first_difference({"x": 1.0}, {"x": 1.0}) is None


def test_verify_for_a_reader_never_quotes_a_document_it_may_not_read():
    from chainret.pipeline.ask import ask
    from chainret.catalog.cases import Overlay, Restriction
    from chainret.catalog.load import apply_overlay, load_world
    from chainret.verify.replay import evidence_differences

    contacts = "registry/contacts.md@v1"
    cat = apply_overlay(load_world(ROOT / "fixtures" / "seed").catalog, Overlay(restrict=[Restriction(document=contacts, principals=["auditor"])]))
    t = ask("Which contact serves PR-84?", cat, view="final", principal="auditor")
    hop = next(i for i, h in enumerate(t.hops) if h.anchor is not None and h.anchor.document == "contacts.md")
    a = t.hops[hop].anchor
    hops = list(t.hops)
    hops[hop] = hops[hop].model_copy(update={"anchor": a.model_copy(update={"span": (a.span[0] + 2, a.span[1] + 2)})})
    forged = t.model_copy(update={"hops": hops})
    secret = cat.documents_by_ref[contacts].text[a.span[0] + 2 : a.span[1] + 2].split("\n")[0]
    assert any(secret in d.message for d in evidence_differences(forged, cat))  # the local user is shown the text
    shown = evidence_differences(forged, cat, reader="public")
    assert shown and all(secret not in d.message and "sha256" not in d.message for d in shown)
