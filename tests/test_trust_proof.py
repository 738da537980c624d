"""A proof that needs no trusted store: every hop's quote is re-checked against the step it supports.

The attack (issue 21): one relation row of a compiled ``.db`` gets another object ID while its
compile-time defect flags still say "valid". The engine must not advance over it, and ``trace
verify`` must flag a trace that claims it, even when verified against that same tampered store.
Each guard is also switched off once, to show the test can fail.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from chainret.pipeline.ask import ask
from chainret.catalog.load import load_world
from chainret.engine.hops import HopWorld
from chainret.verify.replay import statement_differences, verify
from chainret.catalog.statement import states
from chainret.store import compile_store, open_store
from chainret.trace.model import Trace

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "fixtures" / "seed"
REQUEST = "Which contact serves PR-84?"


@pytest.fixture()
def stores(tmp_path):
    good = tmp_path / "good.db"
    compile_store(load_world(SEED).catalog, good)
    forged = tmp_path / "forged.db"
    forged.write_bytes(good.read_bytes())
    con = sqlite3.connect(forged)
    # (its object as an entity ordinal: the store's ``relation_rows``, read through the view ``relations``)
    assert con.execute("UPDATE relation_rows SET o = (SELECT ord FROM entities WHERE id = 'contact:final:field') WHERE id = 'rel-2'").rowcount == 1
    assert con.execute("SELECT object FROM relations WHERE id = 'rel-2'").fetchone() == ("contact:final:field",)
    con.commit()
    con.close()
    return good, forged


def _ask(db: Path) -> Trace:
    store = open_store(db)
    try:
        return ask(REQUEST, store, view="final", principal="public", viewer="public")
    finally:
        store.close()


def _unguarded(monkeypatch) -> None:
    monkeypatch.setattr(HopWorld, "_checked", lambda self, rels: rels)


def test_a_tampered_store_row_never_advances_a_hop(stores):
    good, forged = stores
    ok = _ask(good)
    assert ok.outcome == "accepted_path" and ok.hops[-1].bridge == "contact:final:desk"
    bad = _ask(forged)
    assert bad.outcome != "accepted_path"
    rejected = bad.hops[-1].refusal.details["rejected"]
    assert {"relation": "rel-2", "unit": bad.hops[-1].hits[0].ref, "why": "clause_mismatch"} in rejected or any(
        r["relation"] == "rel-2" and r["why"] == "clause_mismatch" for r in rejected
    )


def test_without_the_engine_guard_the_tampered_store_answers_the_forged_contact(stores, monkeypatch):
    _unguarded(monkeypatch)
    bad = _ask(stores[1])
    assert bad.outcome == "accepted_path" and bad.hops[-1].bridge == "contact:final:field"
    assert "contact:final:desk" in bad.hops[-1].anchor.quote  # the quote says otherwise


def test_verify_flags_the_forged_trace_even_against_the_tampered_store(stores, monkeypatch, tmp_path):
    good, forged = stores
    _unguarded(monkeypatch)  # the trace an unguarded engine wrote over the tampered store
    trace = _ask(forged)
    path = tmp_path / "forged_trace.json"
    path.write_text(trace.to_json())
    monkeypatch.undo()
    found = statement_differences(trace, open_store(forged))
    assert [d.field for d in found] == ["hops[1].anchor.quote"]
    assert "contact:final:desk" in found[0].message and "contact:final:field" in found[0].message
    # Even with the engine guard off, so that the replay reproduces the forged trace, verify fails on the quote alone.
    _unguarded(monkeypatch)
    result = verify(Trace.model_validate_json(path.read_text()), forged)
    assert result.status == "mismatch"
    assert any(d.field == "hops[1].anchor.quote" for d in result.differences)


def test_every_golden_trace_states_its_steps():
    for path in sorted((ROOT / "traces").glob("*/*.json")):
        trace = Trace.model_validate_json(path.read_text())
        world = json.loads(path.read_text())["meta"].get("cases_file") or ""
        cat = load_world(ROOT / Path(world).parent if world else SEED).catalog
        assert statement_differences(trace, cat) == [], path


class _E:
    def __init__(self, id, name, aliases=()):
        self.id, self.name, self.aliases = id, name, list(aliases)


def test_prose_statement_says_which_name_it_found():
    ents = {"svc:a": _E("svc:a", "Cart API", ["cart"]), "team:b": _E("team:b", "Payments Team")}
    st = states("prose", "The payments team runs the cart service.", "svc:a", "owned_by", "team:b", ents.get)
    assert st.ok and st.named == {"subject": "alias 'cart'", "object": "name 'Payments Team'"}
    st = states("prose", "The payments team runs it.", "svc:a", "owned_by", "team:b", ents.get)
    assert not st.ok and st.code == "prose_mismatch" and "subject 'svc:a'" in st.message
    assert not states("clause", "REL svc:a | owned_by | team:c", "svc:a", "owned_by", "team:b", ents.get).ok
    assert states("clause", "REL svc:a | owned_by | team:b", "svc:a", "owned_by", None, ents.get).ok
