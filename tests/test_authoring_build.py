"""chainret.authoring: stable IDs, versions and views, tables, diff, lock, and the prose fixture world."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from chainret.pipeline.ask import ask
from chainret.authoring.build import build
from chainret.authoring.diff import diff_views
from chainret.authoring.header import read_header
from chainret.authoring.lock import lock
from chainret.authoring.output import catalog_data, render, write_build
from chainret.authoring.starter import init
from chainret.authoring.tables import read_table, render_table
from chainret.catalog import load_catalog, load_world, open_view
from chainret.catalog.defects import relation_defects
from chainret.evaluate.validate import validate_paths
from chainret.cli import app

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "fixtures" / "records"
runner = CliRunner()


@pytest.fixture
def world(tmp_path: Path) -> Path:
    init(tmp_path / "w")
    return tmp_path / "w"


def rebuild(world: Path, **kw):
    result = build(world / "source", world, **kw)
    write_build(result, world / "source")
    return result


def test_relation_ids_come_from_content_not_file_order(world: Path, tmp_path: Path) -> None:
    first = build(world / "source", tmp_path / "a", fresh=True).catalog
    assert build(world / "source", tmp_path / "b", fresh=True).catalog.digest() == first.digest()
    extra = world / "source" / "aaa" / "first.md"  # sorts before every other file
    extra.parent.mkdir()
    extra.write_text("# First\n\nREL project:starter:beacon | owned_by | team:starter:payments\n", encoding="utf-8")
    second = build(world / "source", tmp_path / "c", fresh=True).catalog
    assert {r.id for r in first.relations} < {r.id for r in second.relations}
    assert len(second.relations) == len(first.relations) + 1


def test_versions_and_views(world: Path) -> None:
    v1 = load_catalog(world / "catalog.yaml")
    assert [v.name for v in v1.views] == ["v1"]
    same = rebuild(world)
    assert same.new_view is None and not same.changed  # nothing changed: same bytes, no new view
    rota = world / "source" / "rota" / "on-call.md"
    rota.write_text(rota.read_text(encoding="utf-8") + "\nThe rota changes on Mondays.\n", encoding="utf-8")
    (world / "source" / "handbook" / "escalation.md").unlink()
    result = rebuild(world, view="week-2")
    assert result.new_view == "week-2" and result.new_versions == ["rota/on-call.md@v2"]
    assert result.kept_versions == ["registry/projects.md@v1"] and result.dropped == ["handbook/escalation.md@v1"]
    v2 = load_catalog(world / "catalog.yaml")
    assert v2.views[0] == v1.views[0]  # the earlier view is kept as it was
    assert v2.current_view.name == "week-2"
    assert set(v1.relations_by_id) <= set(v2.relations_by_id)  # earlier records kept
    old = open_view(v2, "v1")
    assert all(old.relation_status(r).eligible for r in v1.relations)
    new = open_view(v2)
    on_call = [r for r in v2.relations if r.predicate == "on_call"]
    assert sorted(new.relation_status(r).reasons[0] if new.relation_status(r).reasons else "ok" for r in on_call) == [
        "ok", "ok", "superseded", "superseded"]
    assert all(r.support.kind == "prose" for r in on_call)
    with pytest.raises(Exception, match="already exists"):
        rota.write_text(rota.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
        build(world / "source", world, view="v1")


def test_import_is_deterministic_and_versioned(world: Path, tmp_path: Path) -> None:
    header = read_header(world / "source" / "chainret.yaml")
    rows = ["subject,predicate,object,text", "Atlas,owned_by,Platform team,Atlas is the portal.",
            "PRJ-2,owned_by,team:starter:payments,", "project:starter:atlas,on_call,Ana Silva,"]
    table = tmp_path / "owners.csv"
    table.write_text("\n".join(rows[:3]) + "\n", encoding="utf-8")
    text = render_table(read_table(table, header), title="Owners")
    shuffled = tmp_path / "shuffled.csv"
    shuffled.write_text("\n".join([rows[0], rows[2], rows[1]]) + "\n", encoding="utf-8")
    assert render_table(read_table(shuffled, header), title="Owners") == text
    assert "Atlas is the portal.\nREL project:starter:atlas | owned_by | team:starter:platform\n" in text
    src = str(world / "source")
    assert runner.invoke(app, ["catalog", "import", str(table), "--src", src, "--document", "registry/owners.md",
                               "--title", "Owners", "--out", str(world)]).exit_code == 0
    cat = load_catalog(world / "catalog.yaml")
    assert cat.current_view.name == "v2" and "registry/owners.md@v1" in cat.current_view.documents
    assert runner.invoke(app, ["catalog", "import", str(shuffled), "--src", src, "--document", "registry/owners.md",
                               "--title", "Owners", "--out", str(world)]).exit_code == 0
    assert load_catalog(world / "catalog.yaml").digest() == cat.digest()  # same rows: same version, no new view
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("\n".join([rows[0], rows[3]]) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["catalog", "import", str(wrong), "--src", src, "--document", "registry/owners.md"])
    assert result.exit_code == 2 and "project:starter:atlas is a project, but 'on_call' needs a team" in " ".join(result.output.split())


def test_diff_lists_added_removed_changed(world: Path) -> None:
    projects = world / "source" / "registry" / "projects.md"
    text = projects.read_text(encoding="utf-8")
    text = text.replace("REL project:starter:atlas | owned_by | team:starter:platform",
                        "REL project:starter:atlas | owned_by | team:starter:payments")
    text = text.replace("REL project:starter:beacon | owned_by | team:starter:payments\n", "")
    projects.write_text(text, encoding="utf-8")
    header = world / "source" / "chainret.yaml"
    header.write_text(header.read_text(encoding="utf-8").replace(
        "team:starter:platform, person:starter:ana]", "team:starter:payments, person:starter:ben]"), encoding="utf-8")
    rebuild(world)
    d = diff_views(load_catalog(world / "catalog.yaml"), "v1", "v2")
    assert [(a.object, b.object) for a, b in d.changed] == [("team:starter:platform", "team:starter:payments")]
    assert [(r.subject, r.support.doc_ref) for r in d.removed] == [("project:starter:beacon", "registry/projects.md@v1")]
    assert d.added == [] and d.documents_changed == [("registry/projects.md@v1", "registry/projects.md@v2")]
    back = diff_views(load_catalog(world / "catalog.yaml"), "v2", "v1")
    assert [r.subject for r in back.added] == ["project:starter:beacon"]


def test_lock_recomputes_and_refuses_changed_text(world: Path) -> None:
    cat = load_catalog(world / "catalog.yaml")
    data = catalog_data(cat)
    doc = next(d for d in data["documents"] if d["document"] == "projects.md")
    doc["text"] = "# Project registry (edited by hand)\n" + doc["text"].split("\n", 1)[1]
    rel = next(r for r in data["relations"] if r["support"]["document"] == "projects.md")
    rota = next(r for r in data["relations"] if r["support"]["document"] == "on-call.md")
    rota["support"]["span"] = [0, len(rota["support"]["quote"])]
    del rota["support"]["digest"]
    (world / "catalog.yaml").write_text(render(data, ".yaml", ""), encoding="utf-8")
    report = lock(load_catalog(world / "catalog.yaml"))
    assert report.refused and "registry/projects.md@v1: its text changed under 2 relation(s)" in report.refused[0]
    assert any(c.startswith(f"{rota['id']}: span [0, ") for c in report.changes)
    assert any(c.startswith(f"{rota['id']}: support digest None -> sha256:") for c in report.changes)
    code = runner.invoke(app, ["catalog", "lock", str(world / "catalog.yaml")]).exit_code
    assert code == 1  # refused document left as it is; the rest written
    assert not relation_defects(load_catalog(world / "catalog.yaml"), load_catalog(world / "catalog.yaml").relations_by_id[rota["id"]])
    forced = runner.invoke(app, ["catalog", "lock", str(world / "catalog.yaml"), "--force"])
    assert forced.exit_code == 0, forced.output
    locked = load_catalog(world / "catalog.yaml")
    assert not [r.id for r in locked.relations if relation_defects(locked, r)]
    assert rel["id"] in locked.relations_by_id
    again = runner.invoke(app, ["catalog", "lock", str(world / "catalog.yaml")])
    assert again.exit_code == 0 and "already locked" in again.output


def test_records_fixture_is_fresh_and_valid() -> None:
    result = runner.invoke(app, ["catalog", "build", str(RECORDS / "source"), "--out", str(RECORDS), "--check"])
    assert result.exit_code == 0, result.output
    (report,) = validate_paths([RECORDS])
    assert report.valid and report.counts["invalid_relations"] == 1
    assert [i.code for i in report.issues if i.severity != "info"] == []


def test_prose_and_clause_support_reach_the_trace() -> None:
    world = load_world(RECORDS)
    kinds = {}
    for request in ("Who is on call for Search?", "Who is on call for Checkout?", "Who is on call for SVC-3?"):
        trace = ask(request, world.catalog, project=False)
        assert trace.outcome == "accepted_path"
        kinds[request] = [h.anchor.support_kind for h in trace.hops if h.anchor]
    assert list(kinds.values()) == [["clause", "clause"], ["clause", "prose"], ["prose", "prose"]]
    refused = ask("Who is on call for Billing?", world.catalog, project=False)
    assert refused.outcome == "partial_evidence" and refused.reason.code == "no_supported_relation"
    assert [r["why"] for r in refused.reason.details["rejected"]] == ["prose_mismatch"]
    control = next(r for r in world.catalog.relations if r.expect_invalid)
    assert relation_defects(world.catalog, control) == ("prose_mismatch",)


def test_control_marked_but_valid_is_an_error(tmp_path: Path) -> None:
    copy = tmp_path / "records"
    shutil.copytree(RECORDS, copy, ignore=shutil.ignore_patterns("source"))
    text = (copy / "catalog.yaml").read_text(encoding="utf-8")
    (copy / "catalog.yaml").write_text(text.replace("expect_invalid:\n  - prose_mismatch", "expect_invalid:\n  - invalid_digest"),
                                       encoding="utf-8")
    (report,) = validate_paths([copy])
    codes = sorted(i.code for i in report.issues if i.severity == "error")
    assert not report.valid and codes == ["expectation_inconsistent", "prose_mismatch"]


def test_prose_mention_is_whole_word_and_case_insensitive(world: Path) -> None:
    cat = load_catalog(world / "catalog.yaml")
    rel = next(r for r in cat.relations if r.support.kind == "prose")
    from chainret.catalog.models import mentions

    ana = cat.entities_by_id["person:starter:ana"]
    assert mentions("ANA  SILVA is here", ana) and mentions("ask person:starter:ana.", ana)
    assert not mentions("Banana Silvas", ana)
    assert rel.support.quote in cat.documents_by_ref[rel.support.doc_ref].text


def test_validate_a_source_folder(world: Path) -> None:
    (report,) = validate_paths([world / "source"])
    assert report.valid and report.counts["relations"] == 4 and report.counts["cases"] == 2
    projects = world / "source" / "registry" / "projects.md"
    projects.write_text(projects.read_text(encoding="utf-8").replace("team:starter:payments\n", "team:starter:paymnts\n"),
                        encoding="utf-8")
    result = runner.invoke(app, ["validate", str(world / "source")], env={"COLUMNS": "300"})
    flat = " ".join(result.output.split())
    assert result.exit_code == 1 and f"{projects}: line 11: unknown object 'team:starter:paymnts'" in flat


def test_tricky_text_round_trips(world: Path, tmp_path: Path) -> None:
    odd = world / "source" / "notes" / "odd.md"
    odd.parent.mkdir()
    odd.write_text("# Odd\n\ntrailing  \n\ttab\nNEL\x85here \x1b[31m ESC \u202e bidi\n\nREL project:starter:atlas | owned_by | team:starter:platform\n",
                   encoding="utf-8")
    result = rebuild(world)
    loaded = load_catalog(world / "catalog.yaml")
    assert loaded.digest() == result.catalog.digest()
    assert not [r.id for r in loaded.relations if relation_defects(loaded, r)]


def test_import_does_not_overwrite_a_hand_written_document(world: Path, tmp_path: Path) -> None:
    table = tmp_path / "t.csv"
    table.write_text("subject,predicate,object\nAtlas,owned_by,Platform team\n", encoding="utf-8")
    args = ["catalog", "import", str(table), "--src", str(world / "source"), "--document", "registry/projects.md"]
    refused = runner.invoke(app, args)
    assert refused.exit_code == 2 and "was not written by catalog import" in " ".join(refused.output.split())
    ok = runner.invoke(app, [*args[:-1], "registry/owners.md"])
    assert ok.exit_code == 0 and runner.invoke(app, [*args[:-1], "registry/owners.md"]).exit_code == 0  # re-import is fine


def test_trace_verify_fails_when_cited_evidence_changes(world: Path, tmp_path: Path) -> None:
    from chainret.verify.replay import verify
    from chainret.trace.model import read_trace, write_trace

    trace_file = tmp_path / "t.json"
    write_trace(ask("Who is on call for Atlas?", world), trace_file)
    (world / "source" / "handbook" / "escalation.md").write_text("# Escalation handbook\n\nCall the lead.\n", encoding="utf-8")
    rebuild(world)  # an uncited document changed: the trace's evidence is intact
    assert verify(read_trace(trace_file), trace_path=trace_file).status == "evidence_intact"
    catalog = world / "catalog.yaml"  # now edit the cited registry text by hand, under its relations
    catalog.write_text(catalog.read_text(encoding="utf-8").replace("It is owned by the Platform team.", "It is owned by the Platfrom team."),
                       encoding="utf-8")
    result = verify(read_trace(trace_file), trace_path=trace_file)
    assert result.status == "mismatch" and any(d.kind == "evidence" for d in result.differences)
