"""Forged identities, revisions and proofs do not verify offline (docs/results/trust.md's offline rows).

Each forgery of ``benchmarks.harness.forgeries`` is made from real signed traces of a compiled store and checked with
the public key alone: it must fail, and fail the check that is its guard. Each guard is then switched off (the
function ``Forgery.switch_off`` names, replaced) and the same forgery no longer fails that check: the negative
control, showing this test fails when the guard is gone. ``RESIDUAL`` (what the key holder can claim consistently)
verifies, as docs/proof.md says it does; the test pins that too, so the page's residual row cannot silently change.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from benchmarks.harness.forgeries import FORGERIES, RESIDUAL, Forgery, Genuine, genuine_traces, verifies
from chainret.catalog.load import load_world
from chainret.store import compile_store

pytest.importorskip("cryptography")
pytest.importorskip("rfc8785")

REQUESTS = [(r, v, p) for r in ("Which contact serves PR-84?", "Which contact serves PR-86?")
            for v in ("final", "revised") for p in ("public", "auditor")]
PRINCIPALS = ("public", "auditor")
SEED = Path(__file__).resolve().parents[1] / "fixtures" / "seed"


@pytest.fixture(scope="module")
def genuine(tmp_path_factory: pytest.TempPathFactory) -> list[Genuine]:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    db = tmp_path_factory.mktemp("forge") / "store.db"
    compile_store(load_world(SEED).catalog, db)  # (the auditor's class has a log of its own: a foreign one to forge with)
    found = genuine_traces(str(db), Ed25519PrivateKey.generate(), REQUESTS, PRINCIPALS)
    assert len(found) == 6  # every trace with an anchored hop (PR-86 in the revised view has none)
    return found


def _made(forgery: Forgery, genuine: list[Genuine]) -> list[tuple[Genuine, dict]]:
    made = [(g, e) for g in genuine if (e := forgery.forge(g)) is not None]
    assert made, f"{forgery.name}: no trace could be forged so"
    return made


def test_the_genuine_traces_verify(genuine: list[Genuine]):
    for g in genuine:
        assert verifies(g.envelope, g.key.public_key()) == (True, [])


@pytest.mark.parametrize("forgery", FORGERIES, ids=[f.name for f in FORGERIES])
def test_a_forgery_fails_its_guard_and_passes_it_with_the_guard_off(forgery: Forgery, genuine: list[Genuine],
                                                                    monkeypatch: pytest.MonkeyPatch):
    made = _made(forgery, genuine)
    for g, envelope in made:
        ok, failed = verifies(envelope, g.key.public_key())
        assert not ok and forgery.guard in failed, (forgery.name, failed)
    module, attribute, replacement = forgery.switch_off
    monkeypatch.setattr(importlib.import_module(module), attribute, replacement)
    for g, envelope in made:  # the negative control: without the guard, that check lets the forgery through
        assert forgery.guard not in verifies(envelope, g.key.public_key())[1], forgery.name


@pytest.mark.parametrize("name", [r[0] for r in RESIDUAL])
def test_what_the_key_holder_claims_consistently_is_its_word(name: str, genuine: list[Genuine]):
    """docs/proof.md: the claims stay the key holder's word. A consistent forged digest or revision verifies; a
    consistent relabelled viewer verifies only where the trace's log also fits the new viewer (a public log fits
    a viewer no restricted document names, as far as an offline verifier knows)."""
    _, _, forge = next(r for r in RESIDUAL if r[0] == name)
    results = [(g, verifies(forge(g), g.key.public_key())) for g in genuine]
    if name != "residual_viewer":
        assert all(ok for _, (ok, _) in results)
        return
    for g, (ok, failed) in results:
        public_log = g.statement["predicate"]["trace"]["meta"]["log"]["origin"].endswith("/public")
        assert ok is public_log and (ok or failed == ["log.checkpoint"])


def test_the_forgeries_cover_the_brief():
    names = {f.name for f in FORGERIES}
    assert {"relabelled_viewer", "claimed_viewer", "claimed_digest", "claimed_revision", "other_tree_size", "swapped_leaf", "foreign_checkpoint",
            "other_bytes"} <= names
    assert Path(__file__).name == "test_trust_offline.py"  # (the page names this file)
