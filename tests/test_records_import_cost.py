"""What the records import does more cheaply gives what it gave before (``benchmarks/records_scale.py``).

- the streamed ``catalog.json`` (``catalog_json``: chunks of records cut from the catalog's own
  dump) is the whole catalog's dump, byte for byte, whatever the chunk sizes;
- ``check_catalog`` finds each record's defects once and asks each view only its own reasons: it
  says what the per-view ``relation_status`` / ``eligible_relations`` reference says, on every
  catalog of the repository (controls, restricted documents, several views, contradictions);
- ``contradictions`` groups by a stable sort: it equals the dict grouping it replaced;
- a descriptor's mapping is read in one pass (``_mapping``): the node ``_get`` finds, and the
  first repeated key;
- a header entity becomes the catalog's ``Entity`` unchecked, equal to its validated copy, and the
  build lets the header's own records go before it makes the relations.
"""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import chainret.authoring.build as build_module
from chainret.authoring.header import HeaderEntity
from chainret.catalog.checks import check_catalog, relation_issues
from chainret.catalog.functional import contradictions
from chainret.catalog.issues import Issue
from chainret.catalog.load import load_catalog
from chainret.catalog.models import CATALOG_FORMAT, Catalog, Entity, NameSource, functional_names
from chainret.catalog.views import VIEW_CODES, open_view
from chainret.sources import backstage as bs
from chainret.sources import records
from chainret.sources.records import catalog_json, import_snapshot, read_snapshot
from tests.records_world import descriptor

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = sorted([*ROOT.glob("fixtures/*/catalog.yaml"), *ROOT.glob("catalogs/*.yaml")])


def _tree(root: Path) -> Path:
    """A small tree with the shapes a large one has: a group named by many files, users, systems, a Location."""
    (root / "org").mkdir(parents=True)
    (root / "org" / "groups.yaml").write_text("---\n".join(
        [descriptor("Group", "team-a", "  children: []\n", title="Team A"),
         descriptor("Group", "team-b", "  parent: team-a\n  children: []\n")]), encoding="utf-8")
    (root / "org" / "users.yaml").write_text("---\n".join(
        descriptor("User", f"user-{u}", f"  memberOf: [team-{'ab'[u % 2]}]\n") for u in range(5)), encoding="utf-8")
    for r in range(4):
        (root / f"repo-{r}").mkdir()
        (root / f"repo-{r}" / "catalog-info.yaml").write_text("---\n".join(
            descriptor("Component", f"svc-{r}-{c}", f"  owner: team-{'ab'[c % 2]}\n  system: sys-{r % 2}\n  lifecycle: production\n")
            for c in range(3)), encoding="utf-8")
    (root / "systems.yaml").write_text("---\n".join(
        descriptor("System", f"sys-{s}", "  owner: team-a\n") for s in range(2)), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def small_import(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    tmp = tmp_path_factory.mktemp("cost")
    snap = read_snapshot(_tree(tmp / "tree"), ["backstage"], "acme")
    assert not snap.errors and snap.records == 7
    return import_snapshot(snap, tmp / "out" / "catalog.json", world="acme").catalog


def _whole_dump(cat: Catalog) -> str:
    """``catalog_json``'s contract: ``model_dump_json(exclude_defaults=True, indent=1)``, ``format`` first."""
    return '{\n "format": "' + CATALOG_FORMAT + '",\n' + cat.model_dump_json(exclude_defaults=True, indent=1)[2:] + "\n"


@pytest.mark.parametrize(("chunk", "chunk_chars"), [(1, 1), (2, 1 << 18), (3, 700), (100, 1 << 18)])
def test_streamed_catalog_is_the_whole_dump(small_import: Catalog, monkeypatch: pytest.MonkeyPatch,
                                           chunk: int, chunk_chars: int) -> None:
    monkeypatch.setattr(records, "CHUNK", chunk)
    monkeypatch.setattr(records, "CHUNK_CHARS", chunk_chars)
    streamed = "".join(catalog_json(small_import))
    assert streamed == _whole_dump(small_import)
    assert Catalog.model_validate_json(streamed) == small_import


def test_streamed_catalog_comparison_sees_a_layout_slip(small_import: Catalog) -> None:
    """Negative control: the records dumped alone, one indent short of the catalog's, are told apart."""
    slipped = "".join(catalog_json(small_import)).replace("\n   ", "\n  ", 1)
    assert slipped != _whole_dump(small_import)


def _reference_check(catalog: Catalog, file: str) -> list[Issue]:
    """``check_catalog``'s relation and view findings as written before: each relation's defects found
    by ``relation_issues`` and again by each view's ``relation_status``."""
    issues: list[Issue] = []
    for i, rel in enumerate(catalog.relations):
        issues.extend(relation_issues(catalog, rel, f"relations[{i}] (id {rel.id})", file))
    principals = sorted({"public", *(p for d in catalog.documents for p in d.principals)})
    for view in catalog.views:
        public = open_view(catalog, view.name, "public")
        for i, rel in enumerate(catalog.relations):
            status = public.relation_status(rel)
            shown = [r for r in status.reasons if r in VIEW_CODES and r != "not_current"]
            if shown and status.valid:
                issues.append(Issue("ineligible", "info", file, f"relations[{i}] (id {rel.id})", "",
                                    f"ineligible in view {view.name!r} for public: {', '.join(shown)}"))
        for principal in principals:
            cv = public if principal == "public" else open_view(catalog, view.name, principal)
            for (subject, predicate), rels in contradictions(cv.eligible_relations(), functional_names(catalog.predicates)).items():
                ids = ", ".join(f"{r.id} -> {r.object}" for r in rels)
                issues.append(Issue("contradiction", "warning", file, f"view {cv.view_name} (principal {cv.principal})", "",
                                    f"functional predicate {predicate!r} has {len(rels)} current objects for {subject}: {ids}"))
    return issues


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.parent.name + "/" + p.name)
def test_check_catalog_says_what_the_per_view_statuses_say(path: Path) -> None:
    catalog = load_catalog(path)
    found = check_catalog(catalog, str(path))
    reference = _reference_check(catalog, str(path))
    mine = [i for i in found if i.location.startswith("relations[") or i.code == "contradiction"]
    assert mine == reference


def test_the_repository_catalogs_exercise_the_view_checks() -> None:
    """Negative control of the differential test above: its catalogs do have controls, several views
    or principals and ineligible records, so a check that dropped them would differ."""
    codes = {i.code for path in CATALOGS for i in _reference_check(load_catalog(path), str(path))}
    assert {"expected_invalid", "ineligible"} <= codes, codes
    assert any(len(load_catalog(p).views) > 1 for p in CATALOGS)
    assert any(d.visibility != "public" for p in CATALOGS for d in load_catalog(p).documents)


class _A:
    def __init__(self, i: int, subject: str, predicate: str, obj: str) -> None:
        self.id, self.subject, self.predicate, self.object = f"r{i}", subject, predicate, obj


def _reference_contradictions(assignments: list[_A], functional: frozenset[str]) -> dict[tuple[str, str], list[_A]]:
    groups: dict[tuple[str, str], list[_A]] = {}
    for a in assignments:
        if a.predicate in functional:
            groups.setdefault((a.subject, a.predicate), []).append(a)
    return {key: rels for key, rels in sorted(groups.items()) if len({a.object for a in rels}) > 1}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from(["p", "q", "r"]), st.sampled_from("xyz")), max_size=30),
       st.frozensets(st.sampled_from(["p", "q", "r"])))
def test_contradictions_group_as_the_dict_did(triples: list[tuple[str, str, str]], functional: frozenset[str]) -> None:
    assignments = [_A(i, *t) for i, t in enumerate(triples)]
    got = contradictions(assignments, functional)
    want = _reference_contradictions(assignments, functional)
    assert [(k, [a.id for a in v]) for k, v in got.items()] == [(k, [a.id for a in v]) for k, v in want.items()]


def test_contradictions_keep_each_group_in_the_order_given() -> None:
    """Negative control: a group whose order differs from its objects' order, which an unstable or
    object-keyed sort would reorder (the property above compares IDs in order)."""
    assignments = [_A(0, "a", "p", "z"), _A(1, "b", "p", "x"), _A(2, "a", "p", "x")]
    assert [a.id for a in contradictions(assignments, frozenset({"p"}))[("a", "p")]] == ["r0", "r2"]


def _first_repeat(node: yaml.MappingNode) -> tuple[str, int] | None:
    seen: set[str] = set()
    for k, _ in node.value:
        if isinstance(k, yaml.ScalarNode):
            if k.value in seen:
                return k.value, k.start_mark.line + 1
            seen.add(k.value)
    return None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["kind", "name", "spec", "owner", "'1'", "1", "true"]), max_size=8))
def test_a_mapping_is_read_in_one_pass_as_get_reads_it(keys: list[str]) -> None:
    text = "".join(f"{k}: v{i}\n" for i, k in enumerate(keys)) or "{}\n"
    node = yaml.compose(text, Loader=bs._Loader)
    values, repeat = bs._mapping(node)
    for k in {*keys, "absent", "1", "true"}:
        assert values.get(k) is bs._get(node, k)
    assert repeat == _first_repeat(node)
    assert bs._mapping(yaml.compose("[a, b]\n", Loader=bs._Loader)) == ({}, None)


def test_a_repeated_key_skips_the_descriptor_at_its_line(tmp_path: Path) -> None:
    """Negative control of the one-pass read: the repeat in ``metadata`` is still found, at its line."""
    (tmp_path / "catalog-info.yaml").write_text(
        "apiVersion: backstage.io/v1alpha1\nkind: Component\nmetadata:\n  name: a\n  name: b\nspec:\n  owner: x\n", encoding="utf-8")
    tree = bs.read_tree(tmp_path)
    assert not tree.descriptors
    assert [(w.code, w.location) for w in tree.warnings] == [("duplicate_key", "line 5")]


def test_a_header_entity_becomes_the_validated_entity() -> None:
    source = NameSource(document="backstage/org/a.yaml", name="Team A", aliases=["team-a"])
    for he in (HeaderEntity(id="group:acme:default.team-a", name="Team A", aliases=["team-a"], declared_in=[source]),
               HeaderEntity(id="component:acme:x", name="x")):
        got, want = he.entity(), Entity(**he.model_dump())
        assert type(got) is Entity and got == want and got.model_fields_set == want.model_fields_set
        assert got.model_dump_json(exclude_defaults=True) == want.model_dump_json(exclude_defaults=True)


def test_the_build_lets_the_header_entities_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When the relations are made, no header entity of the import is alive (the catalog's entities are
    their own records); negative control: a caller that keeps the header keeps them."""
    snap = read_snapshot(_tree(tmp_path / "tree"), ["backstage"], "acme")
    alive: list[int] = []
    refs: list[weakref.ref[HeaderEntity]] = []
    made = HeaderEntity.__init__

    def tracked(self: HeaderEntity, /, **data: object) -> None:
        made(self, **data)
        refs.append(weakref.ref(self))

    assemble = build_module._assemble

    def counting(*args: object, **kw: object) -> object:
        gc.collect()
        alive.append(sum(r() is not None for r in refs))
        return assemble(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(HeaderEntity, "__init__", tracked)
    monkeypatch.setattr(build_module, "_assemble", counting)
    import_snapshot(snap, tmp_path / "out" / "catalog.json", world="acme")
    assert refs and alive == [0]

    kept, _ = records.merged_header(snap, "acme", None)
    (tmp_path / "empty").mkdir()
    build_module.build(tmp_path / "empty", tmp_path / "out2" / "catalog.json", overrides=snap.documents, parsed=kept)
    assert alive[-1] == len(kept.entities) > 0


def test_records_sharing_a_fields_set_copy_apart(small_import: Catalog) -> None:
    """The import's records share one fields-set each kind: ``model_copy(update=...)`` adds to its copy's only."""
    rel, ent = small_import.relations[0], small_import.entities[0]
    before = set(rel.model_fields_set), set(ent.model_fields_set)
    assert rel.model_copy(update={"note": "n"}).note == "n" and ent.model_copy(update={"description": "d"}).description == "d"
    assert (set(rel.model_fields_set), set(ent.model_fields_set)) == before
    assert small_import.relations[1].model_fields_set == before[0]
