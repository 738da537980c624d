"""Entities with no owner: the refusal says so (not "unknown"), the importer warns, and
``chainret catalog coverage`` lists every gap with its proof, over what the principal may read only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from store_worlds import new_schema_url, pg_url  # noqa: F401

from chainret.pipeline.ownership import coverage
from chainret.catalog.load import load_catalog
from chainret.store import compile_store
from chainret.pipeline.ask import ask
from chainret.sources.records import read_snapshot
from records_world import cli, descriptor, imported


# public.yaml: an owned component, its group (with a member), the user, and an ownerless component;
# secret.yaml (readable by the auditor only): an ownerless component of its own.
PUBLIC = "\n---\n".join([
    descriptor("Group", "team-a", "  members: [ann]\n"),
    descriptor("User", "ann"),
    descriptor("Component", "owned-svc", "  owner: team-a\n"),
    descriptor("Component", "orphan-svc"),
])
SECRET = descriptor("Component", "hidden-svc")
HEADER = """format: chainret-source/1
world: acme
documents:
  - path: backstage/secret.yaml
    visibility: restricted
    principals: [auditor]
"""


@pytest.fixture(scope="module")
def acme(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("coverage")
    root, src = tmp / "tree", tmp / "src"
    root.mkdir()
    src.mkdir()
    (root / "public.yaml").write_text(PUBLIC, encoding="utf-8")
    (root / "secret.yaml").write_text(SECRET, encoding="utf-8")
    (src / "chainret.yaml").write_text(HEADER, encoding="utf-8")
    out = tmp / "cat.yaml"
    imported(root, out, ["backstage"], src=src)
    return out


def test_a_component_without_an_owner_is_refused_as_having_no_owner_citing_its_descriptor(acme: Path) -> None:
    trace = ask("Who owns orphan-svc?", acme)
    assert trace.outcome == "refused" and trace.reason is not None
    assert trace.reason.code == "unrelated_entity"
    assert "has no owner in view" in trace.reason.message
    (cite,) = trace.reason.details["declared_by"]
    assert cite["document"].startswith("backstage/public.yaml@") and cite["unit"].startswith(cite["document"] + "#")
    assert cite["text"].startswith("Entity Component component:default/orphan-svc") and "document 4, lines" in cite["text"]
    # negative controls: words no descriptor declares stay unknown; an owned component answers
    assert ask("Who owns nowhere-svc?", acme).reason.code == "unknown_entity"  # type: ignore[union-attr]
    assert ask("Who owns owned-svc?", acme).outcome == "accepted_path"


def test_an_entity_only_a_restricted_descriptor_declares_stays_unknown_to_who_may_not_read_it(acme: Path) -> None:
    public = ask("Who owns hidden-svc?", acme)
    assert public.reason is not None and public.reason.code == "unknown_entity"
    assert "component:acme:default.hidden-svc" not in json.dumps(public.model_dump(mode="json"))
    auditor = ask("Who owns hidden-svc?", acme, principal="auditor")
    assert auditor.reason is not None and auditor.reason.code == "unrelated_entity"
    assert auditor.reason.details["declared_by"][0]["document"].startswith("backstage/secret.yaml@")


def test_the_importer_warns_of_a_component_without_an_owner_by_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "catalog-info.yaml").write_text(PUBLIC, encoding="utf-8")
    snap = read_snapshot(tmp_path, ["backstage"], "acme")
    missing = [w for w in snap.warnings if w.code == "missing_owner"]
    assert len(missing) == 1  # orphan-svc only: the owned component, the group and the user are not warned of
    (w,) = missing
    assert w.file.endswith("catalog-info.yaml") and "component:default/orphan-svc" in w.message
    orphan_name_line = PUBLIC.split("\n").index("  name: orphan-svc") + 1
    assert w.location == f"line {orphan_name_line}"


def test_coverage_lists_the_gaps_with_proof_over_what_the_principal_may_read(acme: Path) -> None:
    public = coverage(acme)
    assert [g.id for g in public.no_owner] == ["component:acme:default.orphan-svc"]
    assert public.no_owner[0].cites[0]["text"].startswith("Entity Component component:default/orphan-svc")
    assert not public.groups_without_members and not public.undeclared_owners  # team-a has ann; ann is declared
    assert "hidden-svc" not in public.model_dump_json()  # the restricted descriptor was deleted first
    auditor = coverage(acme, principal="auditor")  # negative control: who may read it sees it
    assert [g.id for g in auditor.no_owner] == ["component:acme:default.hidden-svc", "component:acme:default.orphan-svc"]


def test_coverage_reports_an_undeclared_owner_and_a_group_without_members(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    (root / "catalog-info.yaml").write_text("\n---\n".join([
        descriptor("Group", "lonely"), descriptor("Component", "a", "  owner: ghost-team\n"), descriptor("Component", "b", "  owner: lonely\n"),
    ]), encoding="utf-8")
    out = tmp_path / "cat.yaml"
    imported(root, out, ["backstage"])
    report = coverage(out)
    assert [g.id for g in report.undeclared_owners] == ["group:acme:default.ghost-team"]
    (cite,) = report.undeclared_owners[0].cites
    assert cite["text"].endswith("`owner: ghost-team`") and report.undeclared_owners[0].referenced_by == ["component:acme:default.a"]
    assert [g.id for g in report.groups_without_members] == ["group:acme:default.lonely"]
    assert not report.no_owner


def test_coverage_lists_a_codeowners_rule_without_owners(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("a\n", encoding="utf-8")
    (root / "CODEOWNERS").write_text("* @acme/core\n/docs/\n", encoding="utf-8")
    out = tmp_path / "cat.yaml"
    imported(root, out, ["codeowners"])
    rules = coverage(out).rules_without_owners
    assert [g.cites[0]["text"] for g in rules] == ["line 2: `/docs/`"]  # not line 1, which has an owner


def test_a_rule_without_owners_is_answered_with_the_rules_entity_not_its_unit(tmp_path: Path) -> None:
    # A coverage row names its entity, as every other row does: an ask's answer is the rule's ID (the one the
    # importer gave it), never the paragraph's unit ref; a rule in a section keeps its section in the ID.
    root = tmp_path / "tree"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("a\n", encoding="utf-8")
    (root / "CODEOWNERS").write_text("* @acme/core\n/docs/\n[Vendored]\n/vendor/\n/lib/ @acme/core\n", encoding="utf-8")
    out = tmp_path / "cat.yaml"
    imported(root, out, ["codeowners"])
    catalog = load_catalog(out)
    rules = {e.id: e.name for e in catalog.entities if e.type == "rule"}
    rows = coverage(out).rules_without_owners
    assert [(g.id, g.name) for g in rows] == [(i, n) for i, n in rules.items() if n in ("/docs/", "[Vendored] /vendor/")]
    trace = ask("Which CODEOWNERS rules have no owners?", out)
    assert sorted(a.id for a in trace.answers or []) == sorted(g.id for g in rows)
    # negative control: the rules with owners (`*`, `[Vendored] /lib/`) are no row
    assert not {g.id for g in rows} & {i for i, n in rules.items() if n in ("*", "[Vendored] /lib/")}


def test_the_coverage_command_exits_1_on_gaps_0_without_and_prints_json(acme: Path, tmp_path: Path) -> None:
    proc = cli("catalog", "coverage", "--catalog", str(acme), "--json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert data["gaps"] == 1 and data["principal"] == "public" and data["no_owner"][0]["id"] == "component:acme:default.orphan-svc"
    text = cli("catalog", "coverage", "--catalog", str(acme), "--as", "auditor", cwd=tmp_path)
    assert text.returncode == 1 and "hidden-svc" in text.stdout and "lines" in text.stdout
    root = tmp_path / "full"
    root.mkdir()
    (root / "catalog-info.yaml").write_text("\n---\n".join(PUBLIC.split("\n---\n")[:3]), encoding="utf-8")
    full = tmp_path / "full.yaml"
    imported(root, full, ["backstage"])
    ok = cli("catalog", "coverage", "--catalog", str(full), cwd=tmp_path)
    assert ok.returncode == 0, ok.stdout
    assert cli("catalog", "coverage", "--catalog", str(full), "--view", "nope", cwd=tmp_path).returncode == 2


def test_a_coverage_ask_answers_from_the_report_over_what_the_principal_may_read(acme: Path) -> None:
    from chainret.verify.replay import verify

    public = ask("Which components have no owner?", acme)
    assert public.outcome == "accepted_path" and public.route == "coverage"
    assert [a.id for a in public.answers or []] == ["component:acme:default.orphan-svc"]  # not hidden-svc
    assert [r["id"] for r in public.meta["coverage"]["rows"]] == [g.id for g in coverage(acme).no_owner]  # the same function
    (item,) = public.packet.items  # type: ignore[union-attr]  # the row's proof: unit, document version, span, quote
    assert item.ref.startswith("backstage/public.yaml@") and item.text.startswith("Entity Component component:default/orphan-svc")
    assert item.span is not None and item.doc_id is not None
    assert verify(public, acme).ok
    auditor = ask("Which components have no owner?", acme, principal="auditor")
    assert {a.id for a in auditor.answers or []} == {"component:acme:default.orphan-svc", "component:acme:default.hidden-svc"}
    assert "hidden-svc" not in public.to_json()


@pytest.mark.parametrize(("words", "section"), [
    ("Which components have no owner?", "no_owner"), ("unowned components", "no_owner"),
    ("Which APIs are unowned?", "no_owner"), ("unowned files", "rules_without_owners"),
    ("owners that resolve to nothing", "undeclared_owners"), ("Which teams have no members?", "groups_without_members"),
    ("groups with no members", "groups_without_members"),
    # relative clauses, "lack"/"missing"/"don't have", "ownerless"/"orphaned", wider leads
    ("components that have no owner", "no_owner"), ("Which components lack an owner?", "no_owner"),
    ("Which components are missing an owner?", "no_owner"), ("Is there any component with no owner?", "no_owner"),
    ("Do we have any APIs that don't have an owner?", "no_owner"), ("List every component that is unowned", "no_owner"),
    ("ownerless components", "no_owner"), ("orphaned systems", "no_owner"), ("Which of our components have no owner?", "no_owner"),
    ("Which teams lack members?", "groups_without_members"), ("files that don't have a code owner", "rules_without_owners"),
    ("which teams nobody is on?", "groups_without_members"), ("Are there any groups that no one is in?", "groups_without_members"),
    ("are there teams with nobody on them?", "groups_without_members"), ("groups with no one in it", "groups_without_members"),
    # no type noun; zero; CODEOWNERS entries and lines; owners that do not exist in the catalog
    ("what has no owner?", "no_owner"), ("is there anything without an owner?", "no_owner"),
    ("teams with zero members", "groups_without_members"), ("teams that have nobody in them", "groups_without_members"),
    ("which CODEOWNERS entries have no owners?", "rules_without_owners"), ("CODEOWNERS lines without owners", "rules_without_owners"),
    ("which codeowners rules don't list anyone?", "rules_without_owners"),
    ("which owners don't exist in the catalog?", "undeclared_owners"),
    # typed without apostrophes, fillers ("rn", "actually"), where the things are kept said after the subject
    ("which components dont have an owner", "no_owner"), ("anything in the catalog with no owner?", "no_owner"),
    ("teams with no people in them rn", "groups_without_members"), ("codeowners entries with nobody on them", "rules_without_owners"),
    ("owners in backstage that point at a team that doesnt exist", "undeclared_owners"),
    ("what's owned by a team that isn't set up in backstage", "owned_by_undeclared"),
    # a reference said to be broken: of the owner ref itself, or of what names it
    ("which owner refs are broken", "undeclared_owners"), ("broken owner references", "undeclared_owners"),
    ("dangling owner refs?", "undeclared_owners"),
    ("Which components point at an owner that doesn't exist?", "owned_by_undeclared"),
    ("components with a broken owner ref", "owned_by_undeclared"),
])
def test_coverage_asks_in_everyday_words(words: str, section: str) -> None:
    from chainret.query.gaps import read_gap_request

    gap = read_gap_request(words)
    assert gap is not None and gap.kind == section


@pytest.mark.parametrize("words", [
    "Which components have no owner and use the orders API?",  # says more than a coverage ask
    "Which components have an owner?", "Who owns orphan-svc?", "Which users are on a team?",
    "Which components are missing docs?", "Which components lack an owner and a system?",  # another lack; says more
    "which teams nobody is on or owns?",
    "Which components are owned by a team that is in the catalog?",  # an owner that is declared: no gap
    "are there teams with somebody on them?", "what's owned by a team that is in Backstage?",
    "what has an owner?", "which codeowners rules list anyone?", "which owners exist in the catalog?",
    "which components do have an owner", "owners in backstage that point at a team that exists",
    # a reference that is fine, or a component said to be broken, is no coverage ask
    "which owner refs are fine", "which components point at an owner", "which components point at an owner that exists",
    "which components are broken", "which components have a broken build",
])
def test_words_that_are_no_coverage_ask_are_not_read_as_one(acme: Path, words: str) -> None:
    from chainret.query.gaps import read_gap_request

    assert read_gap_request(words) is None
    assert ask(words, acme).route != "coverage"
@pytest.mark.parametrize(("words", "public", "predicate"), [
    ("Which users aren't on any team?", [], "member_of"),  # ann is on team-a
    ("Which groups are not under any group?", ["group:acme:default.team-a"], "child_of"),
    ("Which components don't depend on any component?", ["component:acme:default.orphan-svc",
                                                          "component:acme:default.owned-svc"], "depends_on"),
    # everyday wordings: "is anyone" for the people, a relative clause, "anything", "listed", "at all"
    ("Is anyone not on a team?", [], "member_of"),
    ("components that don't depend on any component?", ["component:acme:default.orphan-svc",
                                                        "component:acme:default.owned-svc"], "depends_on"),
    ("Which components have no dependencies listed?", ["component:acme:default.orphan-svc",
                                                       "component:acme:default.owned-svc"], "depends_on"),
    ("which teams don't own anything at all?", [], "owner_of"),
    # "nobody" / "nothing" without "does": the verb as said
    ("any components nothing depends on?", ["component:acme:default.orphan-svc", "component:acme:default.owned-svc"],
     "dependency_of"),
    ("Which teams own no components?", [], "owner_of"),
    # "who" and a bare noun for the people; a verb and "nothing"
    ("who isn't on any team?", [], "member_of"), ("people not on any team", [], "member_of"),
    ("components that depend on nothing", ["component:acme:default.orphan-svc", "component:acme:default.owned-svc"], "depends_on"),
    # the progressive, the past (a time said is read before), "a single", typed without apostrophes
    ("components nothing is depending on", ["component:acme:default.orphan-svc", "component:acme:default.owned-svc"],
     "dependency_of"),
    ("who wasnt on a team", [], "member_of"), ("teams that don't own a single component", [], "owner_of"),
])
def test_a_coverage_ask_about_any_relation_reads_it_by_the_catalogs_phrasings(acme: Path, words: str, public: list[str],
                                                                               predicate: str) -> None:
    from chainret.verify.replay import verify

    trace = ask(words, acme)
    assert trace.outcome == "accepted_path" and trace.route == "coverage"
    assert [a.id for a in trace.answers or []] == public and trace.meta["coverage"]["predicate"] == predicate
    assert verify(trace, acme).ok
    auditor = ask(words, acme, principal="auditor")  # hidden-svc's descriptor is readable by the auditor only
    assert ("component:acme:default.hidden-svc" in {a.id for a in auditor.answers or []}) == (predicate in ("depends_on", "dependency_of"))
    assert "hidden-svc" not in trace.to_json()


def test_an_entity_related_only_by_the_inverse_relation_is_not_listed(tmp_path: Path) -> None:
    """A Group's spec.members says who is on it (has_member, and member_of inverted): the user is on a team."""
    root = tmp_path / "tree"
    root.mkdir()
    (root / "org.yaml").write_text("\n---\n".join([descriptor("Group", "team-b", "  members: [bo]\n"), descriptor("User", "bo"),
                                                    descriptor("User", "cy")]), encoding="utf-8")
    cat = imported(root, tmp_path / "cat.yaml", ["backstage"])
    one_way = cat.model_copy(update={"relations": [r for r in cat.relations if r.predicate != "member_of"]})
    trace = ask("Which users are not on any team?", one_way)
    assert [a.id for a in trace.answers or []] == ["user:acme:default.cy"]
    # the negative control: has_member no longer described as member_of's inverse, bo is listed too
    plain = one_way.model_copy(update={"predicates": [p.model_copy(update={"description": ""}) if p.name == "has_member" else p
                                                      for p in one_way.predicates]})
    assert [a.id for a in ask("Which users are not on any team?", plain).answers or []] == [
        "user:acme:default.bo", "user:acme:default.cy"]


@pytest.mark.parametrize("words", [
    "Which users aren't on any team or group?",  # says more than one relation
    "Which frobs are not on any team?",  # no such type
    "Which users aren't on any planet?",  # the positive question reads as nothing
    "Is anyone on a team?", "which teams own anything at all?",  # no absence said
    "Is anyone not on a team or a group?",
    "any components everything depends on?", "which teams own no users?",  # no absence; a type "own" never reaches
    "who is on any team?", "components that depend on something", "components everything is depending on",
])
def test_words_that_are_no_relation_coverage_ask_stay_unanswered(acme: Path, words: str) -> None:
    assert ask(words, acme).route != "coverage"


# -- the same refusals and reports over compiled stores (store parity: memory, SQLite, PostgreSQL) ------------
STORE_REQUESTS = ["Who owns orphan-svc?", "Who owns hidden-svc?", "Who owns nowhere-svc?", "Who owns owned-svc?",
                  "Which components have no owner?", "Which groups are not under any group?",
                  "Which components don't depend on any component?"]


@pytest.fixture(scope="module")
def acme_stores(acme: Path, pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:  # noqa: F811
    """{store: location}: the catalog file, compiled to SQLite and into a fresh PostgreSQL schema."""
    cat = load_catalog(acme)
    db, url = str(tmp_path_factory.mktemp("coverage-stores") / "acme.db"), new_schema_url(pg_url)
    compile_store(cat, db)
    compile_store(cat, url)
    return {"memory": str(acme), "sqlite": db, "postgres": url}


def _seen(store: str, request: str, principal: str) -> dict[str, object]:
    data = ask(request, store, principal=principal, proofs=False).model_dump(mode="json")  # (a SQLite store adds its log proofs)
    data["meta"] = {k: v for k, v in data["meta"].items() if k not in ("catalog", "ask_ms")}
    return data


@pytest.mark.parametrize("principal", ["public", "auditor"])
def test_no_owner_refusals_and_coverage_are_the_same_in_every_store(acme_stores: dict[str, str], principal: str) -> None:
    for request in STORE_REQUESTS:
        traces = {name: _seen(store, request, principal) for name, store in acme_stores.items()}
        assert traces["sqlite"] == traces["memory"] == traces["postgres"], request
    reports = {name: coverage(store, principal=principal).model_dump(mode="json") for name, store in acme_stores.items()}
    assert reports["sqlite"] == reports["memory"] == reports["postgres"]
    expected = ["component:acme:default.orphan-svc"] if principal == "public" else [
        "component:acme:default.hidden-svc", "component:acme:default.orphan-svc"]
    assert [g["id"] for g in reports["sqlite"]["no_owner"]] == expected


def test_a_store_without_its_declarations_says_unknown_negative_control(acme_stores: dict[str, str],
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch the store's declarations off: the refusal falls back to ``unknown_entity`` and the report loses the gap,
    so the parity test above fails (the guard is what makes them agree)."""
    from chainret.store.sqlview import SQLView

    monkeypatch.setattr(SQLView, "declared_entities", lambda self, text=None, type_=None: [])
    reason = ask("Who owns orphan-svc?", acme_stores["sqlite"]).reason
    assert reason is not None and reason.code == "unknown_entity"
    assert coverage(acme_stores["sqlite"]).no_owner == []


def _tree(tmp_path: Path) -> Path:
    """A top group and a sub-team, both without members; a component owned by an undeclared team, one by a declared;
    a system holding a component of no owner, and one holding an owned component."""
    root = tmp_path / "tree"
    root.mkdir()
    (root / "catalog-info.yaml").write_text("\n---\n".join([
        descriptor("Group", "top"), descriptor("Group", "sub", "  parent: top\n"), descriptor("Component", "a", "  owner: ghost-team\n"),
        descriptor("Component", "b", "  owner: top\n  system: sys2\n"), descriptor("Resource", "r", "  owner: sub\n"),
        descriptor("Component", "c", "  system: sys1\n"), descriptor("System", "sys1", "  owner: top\n"), descriptor("System", "sys2", "  owner: top\n"),
    ]), encoding="utf-8")
    out = tmp_path / "cat.yaml"
    imported(root, out, ["backstage"])
    return out


def test_sub_teams_nobody_is_on_are_the_groups_without_members_under_another_group(tmp_path: Path) -> None:
    from chainret.verify.replay import verify

    cat = _tree(tmp_path)
    trace = ask("are there any sub-teams nobody is on?", cat)
    assert trace.route == "coverage" and [a.id for a in trace.answers or []] == ["group:acme:default.sub"]
    assert verify(trace, cat).ok
    # negative control: the same ask of every team lists the top group too (the filter is what leaves it out)
    assert {a.id for a in ask("are there any teams nobody is on?", cat).answers or []} == {
        "group:acme:default.sub", "group:acme:default.top"}


@pytest.mark.parametrize(("words", "expected"), [
    ("Which components are owned by a team that isn't in the catalog?", ["component:acme:default.a"]),
    ("components whose owner does not exist", ["component:acme:default.a"]),
    ("Which entities have an owner that is not declared?", ["component:acme:default.a"]),
    ("Which resources are owned by a team that isn't in the catalog?", []),  # the type noun is kept: r's owner is declared
    ("what's owned by a team that isn't in Backstage?", ["component:acme:default.a"]),  # no type noun: every type
    ("components owned by a team that doesn't exist", ["component:acme:default.a"]),
    ("Which resources are owned by teams that aren't defined anywhere?", []),
    ("Which components point at an owner that doesn't exist?", ["component:acme:default.a"]),
    ("resources with a broken owner ref", []),  # the negative control: r's owner is declared
])
def test_entities_owned_by_an_undeclared_owner(tmp_path: Path, words: str, expected: list[str]) -> None:
    from chainret.query.gaps import read_gap_request
    from chainret.verify.replay import verify

    gap = read_gap_request(words)
    assert gap is not None and gap.kind == "owned_by_undeclared"
    cat = _tree(tmp_path)
    trace = ask(words, cat)
    assert trace.route == "coverage" and [a.id for a in trace.answers or []] == expected
    assert verify(trace, cat).ok


def test_what_holds_an_entity_of_no_owner(tmp_path: Path) -> None:
    from chainret.query.gaps import GapRequest, read_gap_request
    from chainret.verify.replay import verify

    cat = _tree(tmp_path)
    trace = ask("Which systems have a component with no owner?", cat)
    assert trace.route == "coverage" and [a.id for a in trace.answers or []] == ["system:acme:default.sys1"]
    assert verify(trace, cat).ok
    assert read_gap_request("systems that contain an unowned component") == GapRequest("no_owner", ("component",), False, ("system",))
    # negative controls: no predicate goes from a component to a domain (unread, not guessed); an owned component
    assert ask("Which domains have a component with no owner?", cat).route != "coverage"
    assert read_gap_request("Which systems have a component with an owner?") is None


@pytest.mark.parametrize(("words", "expected"), [
    ("Which teams own no components?", ["group:acme:default.sub"]),  # sub owns a resource only
    ("which teams don't own any components?", ["group:acme:default.sub"]),
    ("which teams don't own anything?", []),  # both own something
    ("are there teams with nobody on them?", ["group:acme:default.sub", "group:acme:default.top"]),
])
def test_what_an_entity_lacks_may_be_of_one_type(tmp_path: Path, words: str, expected: list[str]) -> None:
    from chainret.verify.replay import verify

    cat = _tree(tmp_path)
    trace = ask(words, cat)
    assert trace.route == "coverage" and [a.id for a in trace.answers or []] == expected
    assert verify(trace, cat).ok


def test_the_object_type_is_what_lists_a_team_that_owns_other_things_negative_control(tmp_path: Path,
                                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch the object type off: "teams that own no components" would be the teams that own nothing at all (none
    here), a smaller set shown as the whole answer."""
    from chainret.pipeline import ownership

    monkeypatch.setattr(ownership, "_object_types", lambda noun, predicate, cv: set())
    assert [a.id for a in ask("Which teams own no components?", _tree(tmp_path)).answers or []] == []


def test_a_name_the_viewer_may_not_know_is_looked_up_by_the_name_index_not_by_every_entity(acme: Path, tmp_path: Path) -> None:
    """``declared_entities(text)`` (every request naming something the viewer may not know) reads the names named
    ``text`` and checks those, never every entity of the store: driven by ``entities`` it cost 0.65 s an ask at 1M
    relations. The plan's full scans are read from SQLite's EXPLAIN QUERY PLAN; the negative control, the whole
    declared list (``text`` None, a coverage report's read), scans ``entities`` and is seen to."""
    from chainret.store import open_store
    from chainret.store.sqlview import SQLView

    db = tmp_path / "acme.db"
    compile_store(load_catalog(acme), str(db))
    store = open_store(db)
    seen: list[tuple[str, list[object]]] = []
    rows = store.db.rows

    def spy(sql: str, params=(), *rest, **kw):  # type: ignore[no-untyped-def]
        seen.append((sql, list(params)))
        return rows(sql, params, *rest, **kw)

    store.db.rows = spy  # type: ignore[method-assign]
    view = store.view(None, "public")
    assert isinstance(view, SQLView)

    def scans(call) -> list[str]:  # type: ignore[no-untyped-def]
        seen.clear()
        call()
        sql, params = next((s, p) for s, p in seen if "name_sources" in s)
        plan = store.db.conn.execute("EXPLAIN QUERY PLAN " + sql, params).fetchall()
        return [str(r[-1]) for r in plan if str(r[-1]).startswith("SCAN")]

    # (A plan names a view's table by the view's own alias: schema 13's ``entities`` is a view over ``entity_rows``,
    # so a scan of it reads "SCAN r". The named lookup scans nothing at all.)
    assert [e.id for e in view.declared_entities("orphan-svc")] == ["component:acme:default.orphan-svc"]
    assert scans(lambda: view.declared_entities("orphan-svc")) == []
    assert scans(lambda: view.declared_entities())  # negative control: the whole list scans the entities


@pytest.mark.parametrize("restricted", [False, True])
def test_coverage_lists_the_files_without_a_code_owner_in_every_store(tmp_path: Path, restricted: bool) -> None:
    """A file whose last matching rule names no owner, and a file no rule matches, are files without a code owner,
    each with the line that shows it; a file a rule with owners governs is not (the control). Over a CODEOWNERS file
    the reader may not read, none is listed; the memory catalog and its SQLite store agree."""
    root = tmp_path / "tree"
    for name in ("src/app.py", "docs/a.md", "tools/run.sh"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n", encoding="utf-8")
    (root / "CODEOWNERS").write_text("/src/ @acme/app\n/docs/ @acme/docs\n/docs/\n", encoding="utf-8")
    src = tmp_path / "src"
    src.mkdir()
    (src / "chainret.yaml").write_text("format: chainret-source/1\nworld: acme\ndocuments:\n  - path: codeowners/CODEOWNERS\n"
                                       "    visibility: restricted\n    principals: [auditor]\n" if restricted else
                                       "format: chainret-source/1\nworld: acme\n", encoding="utf-8")
    out = tmp_path / "cat.yaml"
    imported(root, out, ["codeowners"], src=src)
    db = str(tmp_path / "cat.db")
    compile_store(load_catalog(out), db)
    reports = {name: coverage(where).model_dump(mode="json") for name, where in (("memory", out), ("sqlite", db))}
    assert reports["memory"] == reports["sqlite"]
    rows = reports["memory"]["files_without_owners"]
    if restricted:
        assert rows == [] and coverage(out, principal="auditor").files_without_owners
        return
    ids = {g["name"]: g["id"] for g in rows}
    assert {g["name"]: g["cites"][0]["text"] for g in rows} == {  # (not src/app.py: /src/ names an owner)
        "docs/a.md": "line 3: `/docs/`",
        "tools/run.sh": f"file tools/run.sh ({ids['tools/run.sh']}): no rule matches it",
        "CODEOWNERS": f"file CODEOWNERS ({ids['CODEOWNERS']}): no rule matches it"}
