"""``trace verify`` checks the identity a trace claims against catalog files too, and its revision everywhere.

Before: against a YAML or JSON catalog any unknown ``catalog_digest`` was "catalog changed, this
trace's evidence intact" (exit 0), and ``meta.revision`` was never compared, so a forged one was
"verified" against every kind of catalog. Now a catalog file's earlier identities are rebuilt from
its views (a writer only appends them), a claimed identity that is none of those is a difference
naming ``catalog_digest``, and the revision must be the one the catalog showed that viewer at the
claimed identity. Beside each forgery, the true trace (and an old trace of a grown catalog) still holds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from chainret.pipeline.ask import ask
from chainret.authoring.build import build
from chainret.authoring.output import write_build
from chainret.authoring.starter import init
from chainret.catalog.load import load_world
from chainret.cli import app
from chainret.verify.replay import verify
from chainret.store import compile_store
from chainret.trace.model import Trace, write_trace

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "fixtures" / "seed"
REQUEST = "Which contact serves PR-84?"
FORGED_DIGEST = "sha256:" + "0" * 64


def _edited(trace: Trace, **fields: object) -> Trace:
    data = json.loads(trace.to_json())
    for key, value in fields.items():
        if key.startswith("meta."):
            data["meta"][key[5:]] = value
        else:
            data[key] = value
    return Trace.model_validate(data)


@pytest.fixture(params=["yaml", "json", "sqlite"])
def catalog(request, tmp_path) -> str:
    """The seed world as its YAML file, as a JSON file, and compiled into a SQLite store."""
    cat = load_world(SEED).catalog
    if request.param == "yaml":
        return str(SEED)
    if request.param == "json":
        out = tmp_path / "catalog.json"
        out.write_text(cat.model_dump_json(), encoding="utf-8")
        return str(out)
    compile_store(cat, tmp_path / "seed.db")
    return str(tmp_path / "seed.db")


@pytest.mark.parametrize("viewer", ["public", "auditor", None])
def test_a_true_trace_with_its_revision_is_verified(catalog, viewer):
    """Negative control: the revision an ask records is the one verify expects, projected or not."""
    trace = ask(REQUEST, catalog, view="final", principal=viewer or "auditor", project=viewer is not None)
    assert "revision" in trace.meta
    result = verify(trace, catalog)
    assert result.status == "verified" and result.differences == [], result


def test_a_forged_digest_is_a_difference_naming_catalog_digest(catalog):
    forged = _edited(ask(REQUEST, catalog, view="final"), catalog_digest=FORGED_DIGEST)
    result = verify(forged, catalog)
    assert result.status == "mismatch" and [d.field for d in result.differences] == ["catalog_digest"], result


@pytest.mark.parametrize("change", ["number", "digest", "shape"])
def test_a_forged_revision_is_a_difference_naming_meta_revision(catalog, change):
    trace = ask(REQUEST, catalog, view="final")
    number, _, tail = trace.meta["revision"].partition(".")
    forged_revision = {"number": f"{int(number) + 1}.{tail}", "digest": f"{number}.{'0' * len(tail)}", "shape": "latest"}[change]
    result = verify(_edited(trace, **{"meta.revision": forged_revision}), catalog)
    assert result.status == "mismatch" and [d.field for d in result.differences] == ["meta.revision"], result
    assert "expected" in result.differences[0].message


def test_the_cli_exits_1_on_a_forged_digest_of_a_yaml_catalog(tmp_path):
    trace_file = tmp_path / "t.json"
    write_trace(_edited(ask(REQUEST, str(SEED), view="final"), catalog_digest=FORGED_DIGEST), trace_file)
    result = CliRunner().invoke(app, ["trace", "verify", str(trace_file), "--catalog", str(SEED), "--json"])
    got = json.loads(result.output)
    assert result.exit_code == 1 and got["status"] == "mismatch", result.output
    assert got["differences"][0]["field"] == "catalog_digest"


# -- a catalog file that grew: its earlier identities are rebuilt from its views ---------------------------
@pytest.fixture()
def grown(tmp_path) -> tuple[Path, Trace, Trace]:
    """A built catalog, a trace asked (projected and as an audit) at its first view, then a second view added."""
    world = tmp_path / "w"
    init(world)
    public = ask("Who is on call for Atlas?", world)
    audit = ask("Who is on call for Atlas?", world, principal="public", project=False)
    (world / "source" / "handbook" / "escalation.md").write_text("# Escalation handbook\n\nCall the lead.\n", encoding="utf-8")
    result = build(world / "source", world)
    write_build(result, world / "source")
    assert result.new_view == "v2"
    return world, public, audit


def test_a_trace_made_before_the_catalog_gained_a_view_is_evidence_intact(grown):
    """Negative control: the old identity is the file's as it was at view v1, so the catalog really changed."""
    world, public, audit = grown
    for trace in (public, audit):
        result = verify(trace, world)
        assert result.status == "evidence_intact" and result.differences == [], result


def test_a_forged_digest_or_revision_of_an_old_trace_of_a_grown_catalog_is_a_difference(grown):
    world, public, audit = grown
    assert [d.field for d in verify(_edited(public, catalog_digest=FORGED_DIGEST), world).differences] == ["catalog_digest"]
    assert [d.field for d in verify(_edited(public, **{"meta.revision": "2" + public.meta["revision"][1:]}), world).differences] == [
        "meta.revision"]
    assert [d.field for d in verify(_edited(audit, catalog_digest=FORGED_DIGEST), world).differences] == ["catalog_digest"]
