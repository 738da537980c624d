"""Non-interference of the Backstage importer: a public reader is shown nothing a restricted file says.

The promise (``chainret.catalog.readable``): what a viewer is shown equals what the same request
gives over the catalog with every document that viewer may not read deleted. For an import, the
differential form: import a tree with its restricted files and without them; every public answer,
suggestion, pattern list, view list, view description, catalog digest and revision token is the
same. Each guard has a negative control beside it: ``hr``, who may read the users file, is told
what it says (the display name, the e-mail).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from store_worlds import pg_url  # noqa: F401
from store_worlds import with_schema_10_rows

from chainret.pipeline.ask import answer, ask
from chainret.catalog.load import load_catalog
from chainret.server.auth import Identity
from chainret.server.service import AskIn, Service
from chainret.sources import backstage as bs
from chainret.sources.records import import_snapshot, read_snapshot, write_import

PUBLIC_FILES = {
    "catalog-info.yaml": """apiVersion: backstage.io/v1alpha1
kind: Component
metadata:
  name: svc
  title: Shop Service
spec:
  type: service
  owner: user:jane
  system: shop
---
apiVersion: backstage.io/v1alpha1
kind: System
metadata:
  name: shop
spec:
  owner: team-a
""",
    "org/groups.yaml": """apiVersion: backstage.io/v1alpha1
kind: Group
metadata:
  name: team-a
  title: Team A
spec:
  type: team
  children: []
""",
}
USERS = """apiVersion: backstage.io/v1alpha1
kind: User
metadata:
  name: jane
spec:
  profile:
    displayName: Jane Secret
    email: jane@example.com
  memberOf: [team-a]
"""
HEADER = """format: chainret-source/1
world: acme
documents:
  - path: backstage/org/users.yaml
    visibility: restricted
    principals: [hr]
"""
REQUESTS = [
    "Who owns svc?",
    "Who owns Shop Service?",
    "What does jane@example.com own?",  # the e-mail only the users file holds
    "What does Jane Secret own?",  # the display name only the users file holds
    "What does jane own?",
    "Which team is jane on?",
    "Who owns the system that svc belongs to?",
    "Who is the boss of svc?",  # matches no pattern: suggestions
]
JANE = "user:acme:default.jane"


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def _import(tree: Path, src: Path, out: Path) -> Path:
    snap = read_snapshot(tree, ["backstage"], "acme")
    write_import(import_snapshot(snap, out, world="acme", src=src), "import")
    return out / "catalog.yaml" if out.is_dir() else out


@pytest.fixture
def worlds(tmp_path: Path) -> tuple[Path, Path]:
    """(with the users file, without it): the same tree and header, imported into two catalogs."""
    src, plain = tmp_path / "src", tmp_path / "plain"  # (a header may not name a file the tree lacks)
    _write(src, {"chainret.yaml": HEADER})
    _write(plain, {"chainret.yaml": HEADER.partition("documents:")[0]})
    full, reduced = tmp_path / "full", tmp_path / "reduced"
    _write(full, {**PUBLIC_FILES, "org/users.yaml": USERS})
    _write(reduced, PUBLIC_FILES)
    return _import(full, src, tmp_path / "full.yaml"), _import(reduced, plain, tmp_path / "reduced.yaml")


def _shown(catalog: Path, request: str, principal: str = "public") -> dict[str, object]:
    trace = ask(request, catalog, principal=principal)
    data = trace.model_dump(mode="json")
    data["meta"] = {k: v for k, v in data["meta"].items() if k not in ("catalog", "ask_ms")}
    return data


def _served(catalog: Path, request: str, principal: str = "public") -> dict[str, object]:
    service = Service(str(catalog))
    got = service.ask(Identity(principal), AskIn(request=request)).model_dump(mode="json")
    got["trace"] = None  # compared by _shown (its meta names the catalog file)
    patterns = service.patterns(principal).model_dump(mode="json")
    return {"ask": got, "patterns": patterns}


@pytest.mark.parametrize("request_words", REQUESTS)
def test_public_answers_are_those_of_the_tree_without_its_restricted_files(worlds: tuple[Path, Path], request_words: str) -> None:
    full, reduced = worlds
    assert _shown(full, request_words) == _shown(reduced, request_words)
    assert _served(full, request_words) == _served(reduced, request_words)  # answers, suggestions, patterns, views, revision


def test_public_digest_revision_and_views_are_those_of_the_reduced_tree(worlds: tuple[Path, Path]) -> None:
    full, reduced = worlds
    a, b = Service(str(full)).patterns("public"), Service(str(reduced)).patterns("public")
    assert a.catalog_digest == b.catalog_digest and a.revision == b.revision
    assert [(v.name, v.description) for v in a.views] == [("v1", "built from 2 documents (2 new versions)")]
    assert a.views == b.views
    # negative control: hr reads the users file, so their catalog is another one, described in full
    hr = Service(str(full)).patterns("hr")
    assert hr.catalog_digest != a.catalog_digest
    assert [(v.name, v.description) for v in hr.views] == [("v1", "built from 3 documents (3 new versions)")]


def test_public_is_not_told_the_restricted_name_or_email_but_hr_is(worlds: tuple[Path, Path]) -> None:
    full, _ = worlds
    public = ask("What does jane@example.com own?", full)
    assert public.outcome != "accepted_path" and "Jane Secret" not in public.model_dump_json()
    owner = answer("Who owns svc?", full)
    assert owner.trace.path_ids[-1] == JANE and owner.names[JANE] == "jane"  # the public file's reference
    # negative control: hr is told both
    assert ask("What does jane@example.com own?", full, principal="hr").path_ids == [JANE, "component:acme:default.svc"]
    assert answer("Who owns svc?", full, principal="hr").names[JANE] == "Jane Secret"
    cat = load_catalog(full)
    assert cat.entities_by_id[JANE].name == "Jane Secret"  # the catalog holds it, with the file that says it
    assert {s.document for s in cat.entities_by_id[JANE].declared_in} == {"backstage/org/users.yaml", "backstage/catalog-info.yaml"}


def test_a_restricted_only_edit_changes_nothing_the_public_sees(worlds: tuple[Path, Path], tmp_path: Path) -> None:
    full, _ = worlds
    before = Service(str(full)).patterns("public")
    before_hr = Service(str(full)).patterns("hr")
    tree = tmp_path / "full"
    (tree / "org/users.yaml").write_text(USERS.replace("Jane Secret", "Jane Hidden"), encoding="utf-8")
    _import(tree, tmp_path / "src", tmp_path / "full.yaml")
    assert [v.name for v in load_catalog(full).views] == ["v1", "v2"]  # hr's new view
    after = Service(str(full)).patterns("public")
    assert after == before  # no new view, same digest, same revision token
    assert ask("Who owns svc?", full).meta["view"] == "v1"
    # negative control: hr sees the edit
    after_hr = Service(str(full)).patterns("hr")
    assert after_hr.catalog_digest != before_hr.catalog_digest and [v.name for v in after_hr.views] == ["v1", "v2"]
    assert after_hr.views[1].description == "built from 3 documents (1 new versions)"


def test_repeated_references_state_one_relation(tmp_path: Path) -> None:
    repeats = "".join("    - team-a\n" for _ in range(2000))
    _write(tmp_path / "t", {**PUBLIC_FILES, "catalog-info.yaml": PUBLIC_FILES["catalog-info.yaml"].replace(
        "  owner: team-a\n", "  owner: team-a\n  dependsOn: ['resource:db']\n")
        + "---\napiVersion: backstage.io/v1alpha1\nkind: Group\nmetadata:\n  name: team-b\nspec:\n  type: team\n  children:\n"
        + repeats})
    result = import_snapshot(read_snapshot(tmp_path / "t", ["backstage"], "acme"), tmp_path / "c.yaml", world="acme")
    parent = [r for r in result.catalog.relations if r.predicate in ("parent_of", "child_of")]
    assert len(parent) == 2  # one relation each way, not 2,000
    assert "(1999 more references to relations stated above: not repeated)" in result.catalog.documents[0].text \
        or any("1999 more references" in d.text for d in result.catalog.documents)
    # negative control: two distinct children state two relations each way
    _write(tmp_path / "u", {**PUBLIC_FILES, "org/groups.yaml": PUBLIC_FILES["org/groups.yaml"].replace(
        "  children: []\n", "  children: [team-b, team-c]\n")})
    result = import_snapshot(read_snapshot(tmp_path / "u", ["backstage"], "acme"), tmp_path / "d.yaml", world="acme")
    assert len([r for r in result.catalog.relations if r.predicate in ("parent_of", "child_of")]) == 4


def test_the_references_of_one_file_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bs, "MAX_DESCRIPTOR_REFERENCES", 3)
    many = PUBLIC_FILES["org/groups.yaml"].replace("  children: []\n", "  children: [a, b, c, d]\n")
    _write(tmp_path / "t", {"org/groups.yaml": many})
    snap = read_snapshot(tmp_path / "t", ["backstage"], "acme")
    assert [(e.code, e.location) for e in snap.errors] == [("too_many_references", "line 8")]
    assert "org/groups.yaml" in snap.errors[0].file
    # negative control: repeats of the limit's references are not more references
    shutil.rmtree(tmp_path / "t")
    _write(tmp_path / "t", {"org/groups.yaml": many.replace("[a, b, c, d]", "[a, b, c, a, b, c, a]")})
    assert read_snapshot(tmp_path / "t", ["backstage"], "acme").errors == []


# -- the same differential over compiled stores (SQLite, PostgreSQL with row-level security) ---------------
# A store keeps each label's declaring document (``chainret.store.schema.entity_rows``): a public reader of
# the store of the full tree is shown what the store of the reduced tree shows, name for name.
STORE_KINDS = ("sqlite", "stream", "postgres")  # stream: a SQLite store compiled record by record from the file


def _compiled(catalog: Path, kind: str, tmp: Path, server: str) -> str:
    """``catalog`` compiled into a new store of ``kind``; its location (a file, or a URL with a fresh schema)."""
    from store_worlds import new_schema_url

    from chainret.store import compile_store

    from chainret.store.stream import catalog_file

    out = new_schema_url(server) if kind == "postgres" else str(tmp / f"{catalog.stem}-{kind}.db")
    source = catalog_file(catalog) if kind == "stream" else None
    compile_store(source if source is not None else load_catalog(catalog), out)
    return out


@pytest.fixture
def stored_worlds(worlds: tuple[Path, Path], tmp_path: Path, request: pytest.FixtureRequest) -> dict[str, tuple[str, str]]:
    """{store kind: (store of the full tree, store of the reduced tree)}."""
    pg = request.getfixturevalue("pg_url")
    return {kind: (_compiled(worlds[0], kind, tmp_path, pg), _compiled(worlds[1], kind, tmp_path, pg)) for kind in STORE_KINDS}


def _public_view_of(store: str, requests: list[str]) -> dict[str, object]:
    """Everything public is shown of a store: each request's trace and served answer (suggestions, names),
    the pattern and view lists with their descriptions, the digest and the revision token."""
    from chainret.pipeline.ownership import coverage

    service = Service(store)
    shown: dict[str, object] = {"patterns": service.patterns("public").model_dump(mode="json"),
                                "coverage": coverage(store).model_dump(mode="json")}
    for words in requests:
        trace = ask(words, store).model_dump(mode="json")
        trace["meta"] = {k: v for k, v in trace["meta"].items() if k not in ("catalog", "ask_ms")}
        if "log" in trace["meta"]:  # the log's origin names its store by a random id; its tree and proofs must agree
            origin = trace["meta"]["log"]["origin"].split("/")
            trace["meta"]["log"]["origin"] = "/".join(origin[:2] + origin[3:])
        got = service.ask(Identity("public"), AskIn(request=words)).model_dump(mode="json")
        got["trace"] = None
        shown[words] = {"trace": trace, "served": got}
    return shown


@pytest.mark.parametrize("kind", STORE_KINDS)
def test_public_over_a_store_is_shown_what_the_reduced_trees_store_shows(stored_worlds, kind: str) -> None:
    full, reduced = stored_worlds[kind]
    assert _public_view_of(full, REQUESTS) == _public_view_of(reduced, REQUESTS)
    # negative control: hr reads the users file over the same store, and is told its name and e-mail
    assert ask("What does jane@example.com own?", full, principal="hr").path_ids == [JANE, "component:acme:default.svc"]
    assert answer("Who owns svc?", full, principal="hr").names[JANE] == "Jane Secret"
    assert answer("Who owns svc?", full).names[JANE] == "jane"


@pytest.mark.parametrize("kind", STORE_KINDS)
def test_stores_answer_as_the_catalog_in_memory(worlds: tuple[Path, Path], stored_worlds, kind: str) -> None:
    """Store parity for names: public and hr over the store = over the catalog file."""
    full = stored_worlds[kind][0]
    for principal in ("public", "hr"):
        for words in REQUESTS:
            a = _shown(worlds[0], words, principal)
            b = ask(words, full, principal=principal, proofs=False).model_dump(mode="json")  # (a file keeps no log)
            b["meta"] = {k: v for k, v in b["meta"].items() if k not in ("catalog", "ask_ms")}
            assert a == b, (principal, words)
        from chainret.pipeline.ownership import coverage

        assert coverage(full, principal=principal) == coverage(worlds[0], principal=principal)
        from chainret.pipeline.ask import catalog_graph

        def names(catalog: str | Path, who: str) -> list[tuple[str, object]]:
            return sorted((n, d.get("name")) for n, d in catalog_graph(catalog, principal=who).nodes(data=True))

        assert names(full, principal) == names(worlds[0], principal)


def test_the_store_guard_is_what_hides_the_names(stored_worlds, monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative control: with the label condition switched off, public over the full tree's store resolves the
    e-mail only the restricted users file holds, and the differential above fails."""
    from chainret.store.sql import SQLStore

    full, reduced = stored_worlds["sqlite"]
    monkeypatch.setattr(SQLStore, "label_condition", lambda self, col, principal, within=None: ("", ()))
    monkeypatch.setattr(SQLStore, "hides_names", lambda self, reader: False)
    leaked = ask("What does jane@example.com own?", full)
    assert leaked.outcome == "accepted_path"
    assert _public_view_of(full, REQUESTS[2:3]) != _public_view_of(reduced, REQUESTS[2:3])


def test_a_public_login_reads_no_restricted_label_from_postgres(worlds: tuple[Path, Path], stored_worlds, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch, pg_url: str) -> None:  # noqa: F811
    """Row-level security, not Python: a login granted ``public`` selects every row of every table of the store
    and finds neither the display name nor the e-mail only the restricted users file declares; a login granted
    ``hr`` finds both (control); so does the public login of a store compiled without the label policy."""
    import psycopg

    from chainret.store import postgres
    from chainret.store.postgres import grant_login, split_url

    def found(url: str, principal: str, login: str) -> set[str]:
        grant_login(url, principal, login, password="pw-" + login)
        conninfo, schema = split_url(url)
        with psycopg.connect(conninfo, user=login, password="pw-" + login, autocommit=True) as conn:
            tables = [r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", (schema,))]
            text = " ".join(str(row) for t in tables for row in conn.execute(f"SELECT * FROM {schema}.{t}"))
        return {s for s in ("Jane Secret", "jane@example.com") if s in text}

    full = stored_worlds["postgres"][0]
    assert found(full, "public", "t_names_public") == set()
    assert found(full, "hr", "t_names_hr") == {"Jane Secret", "jane@example.com"}
    monkeypatch.setattr(postgres, "LABEL_TABLES", ())
    unguarded = _compiled(worlds[0], "postgres", tmp_path, pg_url)
    assert found(unguarded, "public", "t_names_unguarded") == {"Jane Secret", "jane@example.com"}


# -- view names: a view only a restricted change made leaves no gap in the numbering public is shown ---------
def _history(tmp_path: Path, with_restricted: bool) -> Path:
    """Import v1, then (full tree only) a restricted-only edit, then a public edit: the catalog file."""
    src = tmp_path / ("src" if with_restricted else "plain")
    _write(src, {"chainret.yaml": HEADER if with_restricted else HEADER.partition("documents:")[0]})
    tree = tmp_path / ("tree-full" if with_restricted else "tree-reduced")
    _write(tree, {**PUBLIC_FILES, **({"org/users.yaml": USERS} if with_restricted else {})})
    out = tmp_path / ("hist-full.yaml" if with_restricted else "hist-reduced.yaml")
    _import(tree, src, out)
    if with_restricted:
        (tree / "org/users.yaml").write_text(USERS.replace("Jane Secret", "Jane Hidden"), encoding="utf-8")
        _import(tree, src, out)
    (tree / "org/groups.yaml").write_text(PUBLIC_FILES["org/groups.yaml"].replace("Team A", "Team Alpha"), encoding="utf-8")
    return _import(tree, src, out)


@pytest.mark.parametrize("kind", ["memory", *STORE_KINDS])
def test_public_is_shown_the_view_names_of_the_reduced_tree(tmp_path: Path, kind: str, request: pytest.FixtureRequest) -> None:
    files = _history(tmp_path, True), _history(tmp_path, False)
    assert [v.name for v in load_catalog(files[0]).views] == ["v1", "v2", "v3"]  # v2: hr's edit only
    assert [v.name for v in load_catalog(files[1]).views] == ["v1", "v2"]
    full, reduced = str(files[0]), str(files[1])
    if kind != "memory":
        pg = request.getfixturevalue("pg_url") if kind == "postgres" else ""
        full, reduced = _compiled(files[0], kind, tmp_path, pg), _compiled(files[1], kind, tmp_path, pg)
    a, b = _public_view_of(full, REQUESTS[:2]), _public_view_of(reduced, REQUESTS[:2])
    assert [v["name"] for v in a["patterns"]["views"]] == ["v1", "v2"]  # not v1, v3
    assert a == b
    trace = ask("Who owns svc?", full, view="v1")
    assert trace.meta["view"] == "v1" and ask("Who owns svc?", full).meta["view"] == "v2"
    from chainret.verify.replay import verify

    assert verify(ask("Who owns svc?", full), full).ok  # the trace names the view as public was shown it
    # negative control: hr was shown every view, by the catalog's names
    assert [v.name for v in Service(full).patterns("hr").views] == ["v1", "v2", "v3"]
    assert ask("Who owns svc?", full, principal="hr").meta["view"] == "v3"


def test_the_view_numbering_guard_is_what_closes_the_gap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative control: named as the catalog names them (the renaming off), public is shown v1, v3."""
    from chainret.catalog import readable

    full, reduced = _history(tmp_path, True), _history(tmp_path, False)
    monkeypatch.setattr(readable, "_built_names", lambda names: list(names) if names != ["v1", "v2", "v3"] else ["x"])
    shown = [v.name for v in Service(str(full)).patterns("public").views]
    assert shown == ["v1", "v3"] != [v.name for v in Service(str(reduced)).patterns("public").views]


def test_a_store_of_schema_5_is_still_read(worlds: tuple[Path, Path], tmp_path: Path) -> None:
    """A store compiled before name sources (schema 5: no ``names.doc_id``, ``name_sources``, ``label_readers``)
    answers as before, every label everyone's (recompile it to hide them)."""
    import sqlite3

    db = _compiled(worlds[0], "sqlite", tmp_path, "")
    with sqlite3.connect(db) as conn:
        with_schema_10_rows(conn)  # (the label rows and postings of schema 10)
        conn.execute("CREATE TABLE names5 AS SELECT n.key, e.type, n.entity_ord, n.fold, n.digits, n.flen "
                     "FROM names n JOIN entities e ON e.ord = n.entity_ord")  # (schema 9 leaves a row's type to its entity's)
        conn.execute("DROP TABLE names")
        conn.execute("ALTER TABLE names5 RENAME TO names")
        conn.execute("DROP TABLE name_sources")
        conn.execute("DROP TABLE label_readers")
        conn.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    conn.close()
    assert ask("Who owns svc?", db).path_ids == ["component:acme:default.svc", JANE]
    assert ask("What does jane@example.com own?", db, principal="hr").outcome == "accepted_path"
    # (a store of schema 5 also kept no declared relation words, nouns and verbs: recompiled, it reads them)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_an_update_rewrites_the_labels_a_reimport_added(worlds: tuple[Path, Path], tmp_path: Path, kind: str,
                                                        request: pytest.FixtureRequest) -> None:
    """``compile --update`` after a re-import that adds a name source to a stored entity (hr's users file renames
    Jane): the store answers as the catalog file, for public (who is told neither name) and hr (told both)."""
    from chainret.store import update_store

    full = worlds[0]
    store = _compiled(full, kind, tmp_path, request.getfixturevalue("pg_url") if kind == "postgres" else "")
    tree = tmp_path / "full"
    (tree / "org/users.yaml").write_text(USERS.replace("Jane Secret", "Jane Hidden"), encoding="utf-8")
    _import(tree, tmp_path / "src", full)
    update_store(load_catalog(full), store)
    for principal in ("public", "hr"):
        for words in ("What does Jane Hidden own?", "What does Jane Secret own?", "Who owns svc?"):
            a, b = _shown(full, words, principal), ask(words, store, principal=principal, proofs=False).model_dump(mode="json")
            for t in (a, b):  # (a store's revision counts its writes: this one was compiled, then updated)
                t["meta"] = {k: v for k, v in t["meta"].items() if k not in ("catalog", "ask_ms", "revision")}
            assert a == b, (principal, words)
    assert ask("What does Jane Hidden own?", store, principal="hr").outcome == "accepted_path"  # the new label, stored
    assert ask("What does Jane Hidden own?", store).outcome != "accepted_path"
