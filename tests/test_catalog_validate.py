"""Validator and views on the fixture worlds: support checks, eligibility, contradictions, cases."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from chainret.catalog import apply_overlay, load_catalog, load_world, open_view
from chainret.catalog.cases import Overlay
from chainret.catalog.models import derive_units
from chainret.cli import app
from chainret.core.errors import UsageError

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


@pytest.fixture(scope="module")
def seed():
    return load_world(ROOT / "fixtures" / "seed")


def copy_seed(tmp_path: Path, edit=None) -> Path:
    """A copy of the seed world whose catalog has been edited by ``edit(data)``."""
    world = tmp_path / "seed"
    shutil.copytree(ROOT / "fixtures" / "seed", world)
    if edit is not None:
        data = yaml.safe_load((world / "catalog.yaml").read_text(encoding="utf-8"))
        edit(data)
        (world / "catalog.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return world


def issues_of(path: Path, *extra: str) -> tuple[int, list[dict]]:
    result = runner.invoke(app, ["validate", str(path), "--json", *extra])
    assert "Traceback" not in result.output
    report = json.loads(result.output)
    return result.exit_code, [i for r in report["reports"] for i in r["issues"]]


def test_fixture_worlds_and_default_catalog_validate() -> None:
    result = runner.invoke(app, ["validate", str(ROOT / "fixtures"), str(ROOT / "catalogs"), "--json"])
    assert result.exit_code == 0, result.output
    reports = {r["world"] + ":" + Path(r["target"]).parent.name: r for r in json.loads(result.output)["reports"]}
    seed = reports["final:seed"]
    assert seed["valid"] and seed["counts"]["relations"] == 9 and seed["counts"]["cases"] == 16
    assert seed["counts"]["invalid_relations"] == 3
    assert not [i for i in seed["issues"] if i["severity"] in ("error", "warning")]
    controls = sorted((i["location"], i["message"]) for i in seed["issues"] if i["code"] == "expected_invalid")
    assert [loc for loc, _ in controls] == ["relations[6] (id rel-7)", "relations[7] (id rel-8)", "relations[8] (id rel-9)"]
    assert "invalid as declared (invalid_digest)" in controls[1][1]
    assert reports["final:catalogs"]["valid"]
    sets = {"requests", "requests-2026-12"}  # the request sets (validated as request sets, not worlds)
    worlds = {r["world"] for r in reports.values() if Path(r["target"]).parent.name not in sets}
    assert worlds == {"final", "lab", "supply", "records"}
    assert {r["world"] for r in reports.values() if Path(r["target"]).parent.name == "requests"} == {"dev", "held-out"}
    assert {r["world"] for r in reports.values() if Path(r["target"]).parent.name == "requests-2026-12"} == {"dev-2026-12", "test-2026-12"}


def test_seed_cases_cover_the_design(seed) -> None:
    groups = [c.group for c in seed.cases]
    assert (groups.count("positive"), groups.count("challenge"), groups.count("other")) == (3, 7, 6)
    assert {c.challenge for c in seed.cases if c.group == "challenge"} == {
        "first_hop_missing", "second_hop_missing", "wrong_bridge", "shared_display_name",
        "restricted_second_hop", "contradictory_assignment", "misleading_mention"}
    displayed = [e.id for e in seed.catalog.entities if e.name == "Rowan"]
    assert displayed == ["org:final:north", "org:final:south"]


def test_default_catalog_is_the_seed_and_fixtures_are_fresh(seed) -> None:
    assert load_catalog(ROOT / "catalogs" / "default.yaml").digest() == seed.catalog.digest()
    assert seed.catalog.current_view.name == "revised"
    proc = subprocess.run([sys.executable, str(ROOT / "fixtures" / "build_worlds.py"), "--check"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_packet_clauses_reach_the_design_sizes(seed) -> None:
    rels = seed.catalog.relations_by_id
    sep = "\n\n"
    assert len(sep.join(rels[r].support.quote for r in ("rel-1", "rel-2"))) == 106
    assert len(sep.join(rels[r].support.quote for r in ("rel-3", "rel-4"))) == 107


def test_units_are_paragraphs_with_exact_offsets(seed) -> None:
    for doc in seed.catalog.documents:
        units = derive_units(doc)
        assert units, doc.ref
        for n, u in enumerate(units, 1):
            assert doc.text[u.start:u.end] == u.text and u.text.strip() == u.text
            assert u.ref == f"{doc.ref}#u{n}" and "\n\n" not in u.text
    unit = seed.catalog.supporting_unit(seed.catalog.relations_by_id["rel-3"])
    assert unit.ref == "registry/projects.md@v2#u3"


def test_eligibility_by_view_and_principal(seed) -> None:
    cat = seed.catalog
    final, revised = open_view(cat, "final"), open_view(cat)
    assert revised.view_name == "revised"
    assert final.relation_status("rel-1").eligible
    assert revised.relation_status("rel-1").reasons == ["superseded"]
    assert final.relation_status("rel-7").reasons == ["clause_mismatch"]
    assert final.relation_status("rel-8").reasons == ["invalid_digest"]
    assert [r.id for r in final.current_relations("project:final:main", "operated_by")] == ["rel-1"]
    assert [r.id for r in revised.current_relations("project:final:main", "operated_by")] == ["rel-3"]
    restricted = apply_overlay(cat, Overlay(restrict=[{"document": "registry/contacts.md@v1", "principals": ["auditor"]}]))
    assert open_view(restricted, "final").relation_status("rel-2").reasons == ["restricted"]
    assert open_view(restricted, "final", "auditor").relation_status("rel-2").eligible
    removed = apply_overlay(cat, Overlay(remove=["registry/contacts.md@v1"]))
    assert open_view(removed, "final", "auditor").relation_status("rel-2").reasons == ["removed"]


def test_restricted_text_never_in_public_units(seed) -> None:
    public = open_view(seed.catalog, "final")
    auditor = open_view(seed.catalog, "final", "auditor")
    assert not any("AUDIT-NOTE-7" in u.text for u in public.units())
    assert any("AUDIT-NOTE-7" in u.text for u in auditor.units())
    assert public.unit("audit/findings.md@v1#u2") is None


def test_resolve_aliases_and_shared_names(seed) -> None:
    view = open_view(seed.catalog)
    assert [e.id for e in view.resolve("PR-84")] == ["project:final:main"]
    assert [e.id for e in view.resolve("pr-84", type="project")] == ["project:final:main"]
    assert [e.id for e in view.resolve("Rowan")] == ["org:final:north", "org:final:south"]
    assert view.resolve("PR-84", type="org") == []
    assert [e.id for e in view.resolve("org:final:north")] == ["org:final:north"]
    with pytest.raises(UsageError, match="unknown view 'later'"):
        open_view(seed.catalog, "later")


def _relation(data: dict, rid: str) -> dict:
    return next(r for r in data["relations"] if r["id"] == rid)


def test_broken_digest_reported_with_location(tmp_path: Path) -> None:
    world = copy_seed(tmp_path, lambda d: _relation(d, "rel-6")["support"].update(digest="sha256:" + "0" * 64))
    code, issues = issues_of(world)
    assert code == 1  # an invalid relation is an error unless it declares itself a control (expect_invalid)
    hit = [i for i in issues if i["location"] == "relations[5] (id rel-6)"]
    assert [(i["code"], i["field"], i["severity"]) for i in hit] == [("invalid_digest", "support.digest", "error")]
    assert "expected sha256:" in hit[0]["message"] and "found sha256:000" in hit[0]["message"]
    assert not open_view(load_catalog(world), "final").relation_status("rel-6").eligible


def test_broken_bridge_makes_positive_cases_inconsistent(tmp_path: Path) -> None:
    world = copy_seed(tmp_path, lambda d: _relation(d, "rel-2")["support"].update(digest=None))
    code, issues = issues_of(world)
    assert code == 1
    errors = {(i["location"], i["field"]) for i in issues if i["severity"] == "error"}
    assert errors == {("relations[1] (id rel-2)", "support.digest"),
                      ("cases[0] (id main-serves)", "expect.relations.1"),
                      ("cases[1] (id main-contact-for)", "expect.relations.1")}
    (lost,) = [i for i in issues if i["location"] == "relations[1] (id rel-2)"]
    contacts = load_catalog(ROOT / "fixtures" / "seed").documents_by_ref["registry/contacts.md@v1"]
    assert lost["message"] == f"support digest is missing; the document version's digest is {contacts.digest}"


def test_changed_document_text_invalidates_its_relations(tmp_path: Path) -> None:
    def edit(d: dict) -> None:
        doc = next(x for x in d["documents"] if x["document"] == "contacts.md" and x["version"] == "v1")
        doc["text"] = doc["text"].replace("takes enquiries", "handles enquiries")
    _, issues = issues_of(copy_seed(tmp_path, edit))
    codes = {(i["code"], i["location"]) for i in issues}
    assert ("document_digest_mismatch", "documents[2] (ref registry/contacts.md@v1)") in codes
    assert ("invalid_digest", "relations[1] (id rel-2)") in codes


def test_mismatched_clause_reported_with_location(tmp_path: Path) -> None:
    world = copy_seed(tmp_path, lambda d: _relation(d, "rel-1").update(object="org:final:south"))
    _, issues = issues_of(world)
    (hit,) = [i for i in issues if i["location"] == "relations[0] (id rel-1)"]
    assert hit["code"] == "clause_mismatch"
    assert "object: declared 'org:final:south', clause has 'org:final:north'" in hit["message"]


def test_dangling_id_reported_with_location(tmp_path: Path) -> None:
    world = copy_seed(tmp_path, lambda d: _relation(d, "rel-2").update(subject="org:final:west"))
    result = runner.invoke(app, ["validate", str(world)])
    assert result.exit_code == 1
    flat = " ".join(result.output.split())
    assert "dangling_reference" in flat and "relations[1] (id rel-2) (line " in flat and ", field subject:" in flat
    assert "found 'org:final:west'" in flat and "Traceback" not in flat


def test_quote_changed_gives_span_mismatch(tmp_path: Path) -> None:
    world = copy_seed(tmp_path, lambda d: _relation(d, "rel-5")["support"].update(quote="REL project:final:side | operated_by | org:final:north"))
    _, issues = issues_of(world)
    hits = {i["code"]: i["message"] for i in issues if i["location"].endswith("(id rel-5)")}
    assert sorted(hits) == ["clause_mismatch", "span_mismatch"]
    assert "the quote does not occur anywhere in this document version" in hits["span_mismatch"]


def test_span_mismatch_says_where_the_quote_is(tmp_path: Path) -> None:
    seed = load_catalog(ROOT / "fixtures" / "seed")
    rel5 = seed.relations_by_id["rel-5"]
    start, end = rel5.support.span
    world = copy_seed(tmp_path, lambda d: _relation(d, "rel-5")["support"].update(span=[start - 3, end - 3]))
    _, issues = issues_of(world)
    (hit,) = [i for i in issues if i["location"].endswith("(id rel-5)")]
    text = seed.documents_by_ref["registry/projects.md@v1"].text
    line = text.count("\n", 0, start) + 1
    assert hit["code"] == "span_mismatch" and hit["severity"] == "error"
    assert f"the quote occurs at [{start}, {end}] (line {line})" in hit["message"]


def test_type_mismatch_and_contradiction(tmp_path: Path) -> None:
    def edit(d: dict) -> None:
        # the archived draft regains its digest: it becomes a valid, current opposing assignment
        arch = next(x for x in d["documents"] if x["source"] == "archive")
        _relation(d, "rel-8")["support"]["digest"] = arch["digest"]
        d["predicates"][1]["domain"] = "project"
    _, issues = issues_of(copy_seed(tmp_path, edit))
    contradictions = [i for i in issues if i["code"] == "contradiction"]
    # in revised, rel-8 agrees with rel-3 (both south): no contradiction there
    assert {i["location"] for i in contradictions} == {"view final (principal public)", "view final (principal auditor)"}
    assert any("rel-1 -> org:final:north" in i["message"] and "rel-8 -> org:final:south" in i["message"] for i in contradictions)
    assert {i["location"] for i in issues if i["code"] == "domain_mismatch"} == {
        "relations[1] (id rel-2)", "relations[3] (id rel-4)", "relations[6] (id rel-7)"}
    assert any(i["code"] == "pattern_type_mismatch" for i in issues)


def test_malformed_cases_are_errors(tmp_path: Path) -> None:
    world = copy_seed(tmp_path)
    cases = yaml.safe_load((world / "cases.yaml").read_text(encoding="utf-8"))
    cases["cases"][0]["view"] = "draft"
    cases["cases"][1]["expect"]["relations"] = cases["cases"][1]["anchors"] = ["rel-1", "rel-4"]
    cases["cases"][2]["expect"]["bridges"] = ["org:final:north", "contact:final:field"]
    cases["cases"][3]["overlay"] = {"remove": ["registry/projects.md@v9"]}
    cases["cases"][4]["anchors"] = ["rel-1", "rel-99"]
    (world / "cases.yaml").write_text(yaml.safe_dump(cases, sort_keys=False), encoding="utf-8")
    code, issues = issues_of(world)
    assert code == 1
    errors = {(i["location"], i["code"]) for i in issues if i["severity"] == "error"}
    assert errors == {
        ("cases[0] (id main-serves)", "dangling_reference"),
        ("cases[1] (id main-contact-for)", "expectation_inconsistent"),
        ("cases[2] (id revised-serves)", "expectation_inconsistent"),
        ("cases[3] (id first-hop-missing)", "dangling_reference"),
        ("cases[4] (id second-hop-missing)", "dangling_reference"),
    }


def test_overlay_adds_records_to_a_view(seed) -> None:
    case = next(c for c in seed.cases if c.id == "contradictory-assignment")
    world = apply_overlay(seed.catalog, case.overlay)
    view = open_view(world, "final")
    assert [r.id for r in view.current_relations("project:final:main", "operated_by")] == ["rel-1", "rel-10"]
    assert world.digest() != seed.catalog.digest()
    assert len(seed.catalog.relations) == 9  # the base world is untouched


def test_schema_command() -> None:
    result = runner.invoke(app, ["schema", "catalog"])
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["additionalProperties"] is False and "relations" in schema["properties"]
    assert "expect" in json.loads(runner.invoke(app, ["schema", "case"]).output)["properties"]
    bad = runner.invoke(app, ["schema", "world"])
    assert bad.exit_code == 2 and "unknown schema 'world'" in bad.output


def test_case_model_errors_stop_loading(tmp_path: Path) -> None:
    world = copy_seed(tmp_path)
    cases = yaml.safe_load((world / "cases.yaml").read_text(encoding="utf-8"))
    cases["cases"][1]["expect"]["relations"] = ["rel-1", "rel-4"]  # anchors still say rel-2
    (world / "cases.yaml").write_text(yaml.safe_dump(cases, sort_keys=False), encoding="utf-8")
    code, issues = issues_of(world)
    assert code == 1
    assert [(i["location"], i["code"]) for i in issues] == [("cases[1] (id main-contact-for)", "invalid_value")]
    assert "anchors must equal expect.relations" in issues[0]["message"]


# the process boundary, not the worlds: one small world for exit 0 (every world is validated in-process by
# test_fixture_worlds_and_default_catalog_validate, and `chainret validate fixtures catalogs` is a step of .ci/run)
@pytest.mark.parametrize(("args", "code"), [(["validate", "fixtures/seed"], 0), (["validate", "no/such"], 2)])
def test_console_entry_point_exit_codes(args: list[str], code: int) -> None:
    proc = subprocess.run([sys.executable, "-m", "chainret", *args], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_value_error_quotes_what_it_found_once(tmp_path: Path) -> None:
    """A rule whose message already ends with what it found is not followed by a second "; found";
    negative control: a type error (whose message does not quote the value) still gets one."""
    def edit(data: dict) -> None:
        data["entities"][0]["id"] = "Project-84"
        data["entities"][1]["name"] = 5

    code, issues = issues_of(copy_seed(tmp_path, edit))
    assert code == 1
    bad_id = next(i["message"] for i in issues if i["code"] == "invalid_value" and i["field"] == "id")
    assert bad_id.endswith("found 'Project-84'") and bad_id.count("found") == 1
    bad_name = next(i["message"] for i in issues if i["code"] == "wrong_type" and i["field"] == "name")
    assert bad_name.endswith("; found 5")
