"""Backstage descriptors -> a catalog: the issue's questions across 1-3 hops, quoted lines, hostile trees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from records_world import EXAMPLE, cli, imported, path_of, quoted_lines_hold, valid, verified

from chainret.pipeline.ask import ask
from chainret.authoring.header import SourceInvalid
from chainret.sources import backstage as bs
from chainret.sources.backstage import Ref, parse_ref
from chainret.sources.records import import_snapshot, read_snapshot

ARTIST = "component:acme:default.artist-lookup"


@pytest.fixture(scope="module")
def acme(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("acme") / "catalog.yaml"
    imported(EXAMPLE / "records", out, ["backstage"])
    return out


@pytest.mark.parametrize(("request_text", "path"), [
    ("Who owns artist-lookup?", [ARTIST, "group:acme:default.team-b"]),
    ("Which system is artist-lookup part of?", [ARTIST, "system:acme:default.artist-engagement-portal"]),
    ("Which group owns the system that artist-lookup belongs to?",
     [ARTIST, "system:acme:default.artist-engagement-portal", "group:acme:default.team-a"]),
    ("What is the parent group of the team that owns artist-lookup?",
     [ARTIST, "group:acme:default.team-b", "group:acme:default.engineering"]),
    ("Who is on the team that owns artist-lookup?", [ARTIST, "group:acme:default.team-b", "user:acme:default.nigel.manning"]),
    ("Who is on the team that owns the system that artist-lookup belongs to?",
     [ARTIST, "system:acme:default.artist-engagement-portal", "group:acme:default.team-a", "user:acme:default.breanna.davison"]),
    ("Who owns Playback Order?", ["component:acme:default.playback-order", "user:acme:default.nigel.manning"]),  # a User owner
    ("Who owns component:default/artist-lookup?", [ARTIST, "group:acme:default.team-b"]),  # the full reference
    ("Which domain is the system of artist-lookup in?",
     [ARTIST, "system:acme:default.artist-engagement-portal", "domain:acme:default.artists"]),
    ("Who is on team-b?", ["group:acme:default.team-b", "user:acme:default.nigel.manning"]),  # from a Group
    ("Which team is nigel.manning on?", ["user:acme:default.nigel.manning", "group:acme:default.team-b"]),  # from a User
    ("What is the parent group of team-b?", ["group:acme:default.team-b", "group:acme:default.engineering"]),
    ("Who owns artist-api?", ["api:acme:default.artist-api", "group:acme:default.team-a"]),  # an API
])
def test_the_issues_questions_answer_with_verifiable_traces(acme: Path, request_text: str, path: list[str]) -> None:
    assert path_of(request_text, acme) == path
    assert verified(ask(request_text, acme), acme) == "verified"


def test_the_imported_tree_validates_and_every_relation_quotes_its_line(acme: Path) -> None:
    from chainret.catalog.load import load_catalog

    valid(acme.parent)
    cat = load_catalog(acme)
    files = {p.relative_to(EXAMPLE / "records").as_posix(): p.read_text(encoding="utf-8")
             for p in (EXAMPLE / "records").rglob("*.yaml")}
    assert quoted_lines_hold(cat, files) == len(cat.relations) > 40
    # both directions of every Backstage relation, and the Location's targets were followed (glob included)
    assert {d.document for d in cat.documents} == set(files)
    preds = {r.predicate for r in cat.relations}
    assert {"owned_by", "owner_of", "part_of", "has_part", "child_of", "parent_of", "member_of", "has_member",
            "provides_api", "api_provided_by", "consumes_api", "api_consumed_by", "depends_on", "dependency_of",
            "in_domain", "domain_has"} <= preds
    team_b = cat.entities_by_id["group:acme:default.team-b"]
    assert team_b.name == "Team B" and {"group:default/team-b", "group:team-b", "team-b"} <= set(team_b.aliases)


def test_domain_and_range_are_the_kinds_backstage_allows(acme: Path) -> None:
    from chainret.catalog.load import load_catalog

    cat = load_catalog(acme)
    assert {e.type for e in cat.entities} == {"component", "api", "resource", "system", "domain", "group", "user", "location"}
    preds = cat.predicates_by_name
    # the example has no Template: a kind no entity has is left out of the unions
    assert (preds["owned_by"].domain, preds["owned_by"].range) == ("component|api|resource|system|domain", "group|user")
    assert (preds["owner_of"].domain, preds["owner_of"].range) == ("group|user", "component|api|resource|system|domain")
    assert (preds["part_of"].domain, preds["part_of"].range) == ("component|api|resource", "system")
    assert (preds["member_of"].domain, preds["member_of"].range) == ("user", "group")
    assert (preds["child_of"].domain, preds["child_of"].range) == ("group", "group")
    assert (preds["in_domain"].domain, preds["in_domain"].range) == ("system", "domain")
    pats = {p.name: p for p in cat.patterns}
    assert pats["component_owner"].start_type == "component" and "who owns {component}" in pats["component_owner"].phrasings
    assert {"api_owner", "system_owner", "domain_owner", "resource_owner"} <= set(pats)
    assert "group_owner" not in pats and "user_owner" not in pats  # Backstage groups and users have no owner
    assert pats["component_system_owner_members"].hops == ["part_of", "owned_by", "has_member"]
    assert pats["group_parent"].hops == ["child_of"] and pats["user_groups"].hops == ["member_of"]
    # a relation whose subject is not of the domain's kinds is a type defect, as with one type
    from chainret.catalog.defects import relation_defects
    from chainret.core.codes import DefectCode

    rel = next(r for r in cat.relations if r.predicate == "owned_by")
    wrong = rel.model_copy(update={"subject": "group:acme:default.team-a"})
    assert DefectCode.DOMAIN_MISMATCH in relation_defects(cat, wrong)
    assert DefectCode.DOMAIN_MISMATCH not in relation_defects(cat, rel)


@pytest.mark.parametrize("request_text", ["Who owns group:default/team-a?", "Who owns team-a?", "Which system is team-a part of?"])
def test_a_request_for_an_entity_of_the_wrong_kind_is_refused_naming_its_kind(acme: Path, request_text: str) -> None:
    trace = ask(request_text, acme)
    reason = trace.model_dump(mode="json")["reason"]
    assert trace.outcome == "refused" and reason["code"] == "unknown_entity"
    assert "it names group:acme:default.team-a: a group, which no pattern of this phrasing starts at" in reason["message"]
    assert "component" in reason["message"] and "api" in reason["message"]
    assert verified(trace, acme) == "verified"


def test_the_compiled_store_answers_and_refuses_by_kind_as_the_file_does(acme: Path, tmp_path: Path) -> None:
    db = tmp_path / "acme.db"
    assert cli("catalog", "compile", str(acme), "--out", str(db), cwd=tmp_path).returncode == 0
    for text in ("Who owns artist-lookup?", "Who is on the team that owns the system that artist-lookup belongs to?",
                 "What is the parent group of team-b?", "Who owns Playback Order?"):
        assert path_of(text, db) == path_of(text, acme)
    for text in ("Who owns team-a?", "Who owns group:default/team-a?"):
        file_reason, db_reason = (ask(text, c).model_dump(mode="json")["reason"] for c in (acme, db))
        assert db_reason["code"] == file_reason["code"] == "unknown_entity" and db_reason["message"] == file_reason["message"]


def test_a_component_and_an_api_of_one_name_are_ambiguous_unqualified(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"catalog-info.yaml": "\n---\n".join([
        GROUP, _doc("Component", "lookup", "  owner: team-a\n"), _doc("API", "lookup", "  owner: team-a\n")])})
    out = tmp_path / "cat.yaml"
    imported(root, out, ["backstage"])
    reason = ask("Who owns lookup?", out).model_dump(mode="json")["reason"]
    assert reason["code"] == "ambiguous_alias"
    assert {c["id"] for c in reason["details"]["candidates"]} == {"component:acme:default.lookup", "api:acme:default.lookup"}
    assert path_of("Who owns api:lookup?", out) == ["api:acme:default.lookup", "group:acme:default.team-a"]
    assert path_of("Who owns component:default/lookup?", out) == ["component:acme:default.lookup", "group:acme:default.team-a"]


def test_a_reference_of_a_kind_the_field_does_not_allow_states_no_relation(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"catalog-info.yaml": "\n---\n".join([
        GROUP, _doc("Component", "other", "  owner: team-a\n"),
        _doc("Component", "svc", "  owner: component:other\n  system: group:team-a\n  dependsOn: [api:x, component:other]\n")])})
    snap = read_snapshot(root, ["backstage"], "acme")
    wrong = [(w.code, w.location) for w in snap.warnings]
    assert wrong == [("wrong_kind", "line 24"), ("wrong_kind", "line 25"), ("wrong_kind", "line 26")], snap.warnings
    assert "component:default/other, a Component, but it must be a Group or User" in str(snap.warnings[0])
    assert "api:default/x, an API, but it must be a Component or Resource" in str(snap.warnings[2])
    cat = import_snapshot(snap, tmp_path / "cat.yaml", world="acme").catalog
    svc = "component:acme:default.svc"
    assert [(r.predicate, r.object) for r in cat.relations if r.subject == svc] == [("depends_on", "component:acme:default.other")]
    assert "(a Component, not a Group or User: no relation)" in cat.documents[0].text


def test_reference_rules() -> None:
    assert parse_ref("team-a", "group", "ops") == Ref("group", "ops", "team-a")  # the referrer's namespace
    assert parse_ref("User:default/Jane.Doe", "group", "ops") == Ref("user", "default", "jane.doe")  # case-insensitive
    assert parse_ref("resource:artists-db", None, "default") == Ref("resource", "default", "artists-db")
    assert "no default kind" in str(parse_ref("artists-db", None, "default"))  # dependsOn needs a kind
    assert "not a valid Backstage name" in str(parse_ref("group:a--b", None, "default"))


def _tree(tmp: Path, files: dict[str, str]) -> Path:
    root = tmp / "tree"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _doc(kind: str, name: str, spec: str = "", meta: str = "") -> str:
    return f"apiVersion: backstage.io/v1alpha1\nkind: {kind}\nmetadata:\n  name: {name}\n{meta}spec:\n  type: x\n{spec}"


GROUP = _doc("Group", "team-a")


def test_skipped_documents_and_dangling_references_are_reported_by_line_and_the_rest_imports(tmp_path: Path) -> None:
    (tmp_path / "secret.yaml").write_text(_doc("Group", "outsider"), encoding="utf-8")
    root = _tree(tmp_path, {"catalog-info.yaml": "\n---\n".join([
        GROUP,
        _doc("Component", "svc", "  owner: team-a\n  system: ghost\n"),
        "apiVersion: backstage.io/v1alpha1\nmetadata:\n  name: no-kind\n",
        _doc("Widget", "gizmo", "  owner: team-a\n"),
        "apiVersion: backstage.io/v1alpha1\nkind: Location\nmetadata:\n  name: loc\nspec:\n  targets:\n"
        "    - ../secret.yaml\n    - https://example.com/catalog-info.yaml\n    - /etc/passwd\n"])})
    snap = read_snapshot(root, ["backstage"], "acme")
    assert snap.errors == []
    found = {(w.code, w.location) for w in snap.warnings}
    assert ("dangling_reference", "line 16") in found  # system: ghost
    assert ("missing_field", "line 19") in found  # the document without kind (from its first line)
    assert ("unknown_kind", "line 25") in found  # the line of its kind (the document starts on line 24)
    assert {("location_outside_tree", "line 39"), ("remote_location", "line 40"), ("location_outside_tree", "line 41")} <= found
    assert all(str(root / "catalog-info.yaml") in str(w) for w in snap.warnings)
    out = tmp_path / "cat.yaml"
    result = import_snapshot(snap, out, world="acme")
    cat = result.catalog
    # The reference to a system no descriptor defines states its relation (as Backstage keeps it): the
    # file's document does not depend on whether another file defines the system.
    assert {r.predicate for r in cat.relations} == {"owned_by", "owner_of", "part_of", "has_part"}
    ghost = cat.entities_by_id["system:acme:default.ghost"]
    assert (ghost.name, ghost.aliases) == ("ghost", ["system:default/ghost", "system:ghost", "default/ghost"])
    assert "widget:acme:default.gizmo" in cat.entities_by_id  # kept, spec not read
    assert "outsider" not in json.dumps(cat.model_dump(mode="json"))
    assert "REL component:acme:default.svc | part_of | system:acme:default.ghost" in cat.documents[0].text
    with pytest.raises(SourceInvalid, match="dangling_reference"):
        import_snapshot(snap, out, world="acme", strict=True)


@pytest.mark.parametrize(("files", "code", "where"), [
    ({"catalog-info.yaml": GROUP + "\n---\nkind: [unclosed\n"}, "syntax_error", "line 10"),
    ({"catalog-info.yaml": GROUP, "b/catalog-info.yaml": GROUP.replace("team-a", "Team-A")}, "duplicate_entity", "line 1"),
    ({"catalog-info.yaml": "\n---\n".join([_doc("Group", "a", "  parent: b\n"), _doc("Group", "b", "  parent: a\n")])},
     "parent_cycle", "line"),
])
def test_bad_trees_are_errors_naming_file_and_line(tmp_path: Path, files: dict[str, str], code: str, where: str) -> None:
    root = _tree(tmp_path, files)
    snap = read_snapshot(root, ["backstage"], "acme")
    assert [e.code for e in snap.errors] == [code]
    assert snap.errors[0].location.startswith(where) and "catalog-info.yaml" in snap.errors[0].file
    with pytest.raises(SourceInvalid, match=code):
        import_snapshot(snap, tmp_path / "out.yaml", world="acme")


def test_a_huge_file_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bs, "MAX_DESCRIPTOR_BYTES", 1000)
    root = _tree(tmp_path, {"catalog-info.yaml": GROUP + "\n# " + "x" * 2000 + "\n", "other.yaml": "x: " + "y" * 2000})
    snap = read_snapshot(root, ["backstage"], "acme")
    assert [e.code for e in snap.errors] == ["file_too_large"]  # the descriptor: an error, nothing imported
    assert [(w.code, Path(w.file).name) for w in snap.warnings] == [("file_too_large", "other.yaml")]  # not inspected


def test_homonyms_stay_two_entities_and_an_unqualified_request_is_ambiguous(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"catalog-info.yaml": "\n---\n".join([
        GROUP, _doc("Component", "lookup", "  owner: team-a\n"), _doc("API", "lookup", "  owner: team-a\n"),
        _doc("Component", "lookup", "  owner: group:default/team-a\n", "  namespace: ops\n")])})
    out = tmp_path / "cat.yaml"
    cat = imported(root, out, ["backstage"])
    assert {"component:acme:default.lookup", "api:acme:default.lookup", "component:acme:ops.lookup"} <= set(cat.entities_by_id)
    refused = ask("Who owns lookup?", out)
    assert refused.outcome == "refused" and refused.model_dump(mode="json")["reason"]["code"] == "ambiguous_alias"
    assert path_of("Who owns component:ops/lookup?", out) == ["component:acme:ops.lookup", "group:acme:default.team-a"]


def test_the_cli_imports_and_refuses_cleanly(tmp_path: Path) -> None:
    ok = cli("catalog", "import", str(EXAMPLE / "records"), "--format", "backstage", "--format", "codeowners",
             "--world", "acme", "--out", "cat", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert cli("validate", "cat", cwd=tmp_path).returncode == 0
    again = cli("catalog", "import", str(EXAMPLE / "records"), "--format", "backstage", "--format", "codeowners",
                "--world", "acme", "--out", "cat", cwd=tmp_path)
    assert "unchanged" in again.stdout and "no record changed" in again.stdout
    bad = _tree(tmp_path, {"catalog-info.yaml": "kind: Group\nmetadata: [\n"})
    refused = cli("catalog", "import", str(bad), "--format", "backstage", "--out", "bad", cwd=tmp_path)
    assert refused.returncode == 2 and "catalog-info.yaml:3" in refused.stderr and "syntax_error" in refused.stderr
    assert not (tmp_path / "bad").exists()  # nothing half-written


def test_the_users_header_adds_aliases_visibility_and_prose_records_beside_them(tmp_path: Path) -> None:
    out = tmp_path / "cat.yaml"
    cat = imported(EXAMPLE / "records", out, ["backstage"], src=EXAMPLE / "extra")
    valid(tmp_path)
    assert "AL-1" in cat.entities_by_id[ARTIST].aliases and "artist-lookup" in cat.entities_by_id[ARTIST].aliases
    rota = path_of("Who is on call for AL-1?", out)  # a Backstage clause hop, then a prose hop
    assert rota == [ARTIST, "group:acme:default.team-b", "user:acme:default.nigel.manning"]
    hidden = ask("Who is on the team that owns artist-lookup?", out)  # memberships: restricted to hr
    assert hidden.outcome != "accepted_path"
    seen = ask("Who is on the team that owns artist-lookup?", out, principal="hr")
    assert seen.path_ids == [ARTIST, "group:acme:default.team-b", "user:acme:default.nigel.manning"]
    assert verified(seen, out) == "verified"


def test_a_location_link_out_of_the_tree_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.yaml").write_text(_doc("Group", "outsider"), encoding="utf-8")
    root = _tree(tmp_path, {"catalog-info.yaml": "apiVersion: backstage.io/v1alpha1\nkind: Location\nmetadata:\n  name: loc\n"
                                                 "spec:\n  targets: [./linked/secret.yaml, ./linked/*.yaml]\n"})
    (root / "linked").symlink_to(tmp_path / "outside")
    (root / "also.yaml").symlink_to(tmp_path / "outside" / "secret.yaml")  # a file link: not read either
    snap = read_snapshot(root, ["backstage"], "acme")
    assert [w.code for w in snap.warnings] == ["location_outside_tree", "location_outside_tree"]
    assert not any("outsider" in text for text in snap.documents.values())


def test_a_json_catalog_is_streamed_byte_for_byte_as_the_serialiser_writes_it_and_a_rerun_writes_nothing(tmp_path: Path) -> None:
    from chainret.catalog.load import load_catalog
    from chainret.catalog.models import CATALOG_FORMAT
    from chainret.sources.records import write_import

    out = tmp_path / "cat.json"
    result = import_snapshot(read_snapshot(EXAMPLE / "records", ["backstage", "codeowners"], "acme"), out, world="acme",
                             src=EXAMPLE / "extra")
    assert write_import(result, "import (test)") == [out]
    body = result.catalog.model_dump_json(exclude_defaults=True, indent=1)
    assert out.read_text(encoding="utf-8") == '{\n "format": "' + CATALOG_FORMAT + '",' + body[1:] + "\n"
    assert load_catalog(out).digest() == result.catalog.digest()
    again = import_snapshot(read_snapshot(EXAMPLE / "records", ["backstage", "codeowners"], "acme"), out, world="acme",
                            src=EXAMPLE / "extra")
    before = out.stat().st_mtime_ns
    assert write_import(again, "import (test)") == [] and out.stat().st_mtime_ns == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cat.json"]  # no temporary file left


def test_a_kind_a_later_import_no_longer_has_stays_declared_and_the_earlier_view_answers(tmp_path: Path) -> None:
    with_api = {"catalog-info.yaml": "\n---\n".join([GROUP, _doc("API", "lookup-api", "  owner: team-a\n")])}
    root = _tree(tmp_path, with_api)
    out = tmp_path / "cat.yaml"
    imported(root, out, ["backstage"])
    old = ask("Who owns lookup-api?", out)
    assert old.path_ids == ["api:acme:default.lookup-api", "group:acme:default.team-a"]
    (root / "catalog-info.yaml").write_text(GROUP, encoding="utf-8")  # the API is gone
    cat = imported(root, out, ["backstage"])
    valid(out)
    assert cat.predicates_by_name["owned_by"].domain == "api"  # still: the earlier version's relation
    assert "api_owner" in {p.name for p in cat.patterns}
    assert path_of("Who owns lookup-api?", out, view="v1") == old.path_ids
    assert verified(old, out) in ("verified", "evidence_intact")
    assert ask("Who owns lookup-api?", out).outcome != "accepted_path"  # not in the current view


def test_a_catalog_imported_before_kinds_were_types_takes_no_new_versions(tmp_path: Path) -> None:
    from chainret.authoring.build import build
    from chainret.core.errors import UsageError
    from chainret.sources.records import write_import

    src = tmp_path / "src"
    src.mkdir()
    (src / "chainret.yaml").write_text(
        "format: chainret-source/1\nworld: acme\nentities:\n"
        "  - {id: entity:acme:component.default.svc, name: svc}\n  - {id: entity:acme:group.default.team-a, name: team-a}\n"
        "predicates:\n  - {name: owned_by, domain: entity, range: entity, cardinality: functional}\n", encoding="utf-8")
    (src / "old.md").write_text("REL entity:acme:component.default.svc | owned_by | entity:acme:group.default.team-a\n",
                                encoding="utf-8")
    out = tmp_path / "cat.yaml"
    write_import(build(src, out), "build (test)")
    root = _tree(tmp_path, {"catalog-info.yaml": "\n---\n".join([GROUP, _doc("Component", "svc", "  owner: team-a\n")])})
    before = out.read_bytes()
    with pytest.raises(UsageError, match="imported before Backstage entities were typed by kind"):
        import_snapshot(read_snapshot(root, ["backstage"], "acme"), out, world="acme")
    assert out.read_bytes() == before
