"""Kind words (issue 44): a Backstage entity's spec.type is kept as the unit that declares it, and "services",
"websites", "libraries", "databases", "buckets" read as the entities of that kind (``chainret.query.kinds``,
``chainret.pipeline.kinds``), or refuse.

Every guard has its control beside it: the same ask of the type noun ("components") gives the superset the kind
word must not; a catalog whose descriptors declare no kind answers "services" as every component, as before kinds
were kept; a kind a reader may not read is not known to them, and is to a reader who may.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from records_world import imported
from store_worlds import close_stores, pg_url, same_in_every_store, three_stores  # noqa: F401

from chainret.catalog.readable import reader_catalog
from chainret.pipeline.ask import ask
from chainret.sources import backstage as bs
from chainret.verify.replay import verify

W = "component:acme:default."


def _doc(kind: str, name: str, spec: str) -> str:
    return f"apiVersion: backstage.io/v1alpha1\nkind: {kind}\nmetadata:\n  name: {name}\nspec:\n{spec}"


def comp(name: str, kind: str | None, owner: str | None = None, deps: tuple[str, ...] = ()) -> str:
    spec = (f"  type: {kind}\n" if kind else "") + "  lifecycle: production\n" + (f"  owner: {owner}\n" if owner else "")
    spec += "  dependsOn:\n" + "".join(f"    - {d}\n" for d in deps) if deps else ""
    return _doc("Component", name, spec)


def res(name: str, kind: str, owner: str | None = None) -> str:
    return _doc("Resource", name, f"  type: {kind}\n" + (f"  owner: {owner}\n" if owner else ""))


def group(name: str, members: tuple[str, ...] = ()) -> str:
    return _doc("Group", name, "  type: team\n  children: []\n" + ("  members:\n" + "".join(f"    - {m}\n" for m in members)
                                                                  if members else ""))


def user(name: str) -> str:
    return _doc("User", name, "  memberOf: []\n")


def world(root: Path, files: dict[str, list[str]], out: Path, src: Path | None = None) -> Path:
    """A records tree of these descriptor files, imported (again, where ``out`` exists: a new view)."""
    for rel, docs in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("\n---\n".join(docs), encoding="utf-8")
    imported(root, out, ["backstage"], src=src)
    return out


MIXED = [
    comp("checkout", "website", "team-a", ("component:payments", "component:ledger-lib", "resource:orders-db")),
    comp("payments", "service", "team-a", ("component:ledger-lib",)),
    comp("ledger-lib", "library", "team-b"),
    comp("search", "service", "team-b"),
    comp("orphan-svc", "service"), comp("orphan-site", "website"), comp("orphan-lib", "library"),
    comp("svc", "website", "team-b"),  # a name that is a kind word
    res("orders-db", "database", "team-a"), res("assets", "s3-bucket", "team-b"), res("cache", "database"),
    res("ledger-db", "database", "team-b"), res("spare", "s3-bucket"),
    group("team-a", ("alice",)), group("team-b", ("bob",)), user("alice"), user("bob"),
    comp("billing", "service", "team-c"), group("team-c"),  # a team that owns services only
]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("kinds")
    return world(tmp / "tree", {"catalog-info.yaml": MIXED}, tmp / "cat.yaml")


def names(request: str, catalog: Path | object, **kw: object) -> set[str]:
    """The accepted answers' last ID parts (verified where the catalog is a file)."""
    trace = ask(request, catalog, **kw)  # type: ignore[arg-type]
    assert trace.outcome == "accepted_path", (request, trace.outcome, trace.reason)
    if isinstance(catalog, Path):
        assert verify(trace, catalog).ok
    ids = {a.id for a in trace.answers} if trace.answers else {(trace.path_ids or [""])[-1]}
    return {i.rpartition(".")[2] for i in ids}


def refusal(request: str, catalog: Path | object, **kw: object) -> str:
    trace = ask(request, catalog, **kw)  # type: ignore[arg-type]
    assert trace.outcome != "accepted_path", (request, trace.answers)
    assert trace.reason is not None
    return trace.reason.message


# -- the importer ------------------------------------------------------------------------------------------------------
def test_the_importer_quotes_the_type_line_and_states_it_and_warns_of_a_type_that_is_no_string(tmp_path: Path) -> None:
    (tmp_path / "catalog-info.yaml").write_text("\n---\n".join([
        comp("site", "website", "team-a"), _doc("Component", "odd", "  type: [a, b]\n  owner: team-a\n"),
        comp("bare", None, "team-a"), group("team-a")]), encoding="utf-8")
    tree = bs.read_tree(tmp_path)
    warned = [w for w in tree.warnings if "spec.type" in w.message]
    at = tree.files["catalog-info.yaml"].split("\n").index("  type: [a, b]") + 1
    assert [(w.code, Path(w.file).name, w.location) for w in warned] == [("invalid_value", "catalog-info.yaml", f"line {at}")]
    assert "component:default/odd" in warned[0].message
    doc = bs.render_file("catalog-info.yaml", tree.files["catalog-info.yaml"], tree.descriptors,
                         bs.entity_records(tree, "acme"), "acme", [], tmp_path)
    said = {bs.declared_ref(p): bs.declared_type(p) for p in doc.split("\n\n") if bs.declared_ref(p)}
    assert said["component:default/site"] == ("website", "line 6: `type: website`")
    assert said["group:default/team-a"][0] == "team"
    # controls: a type that is no string, and no type at all, declare no kind
    assert said["component:default/odd"] is None and said["component:default/bare"] is None
    # a title cannot forge the statement: it is on the paragraph's head line
    assert bs.declared_type("Entity Component component:default/x (Its type (spec.type) is website.): f document 1, "
                            "lines 1-3.") is None


# -- asks over a world of several kinds ----------------------------------------------------------------------------
@pytest.mark.parametrize(("request_text", "expected", "superset"), [
    # coverage lists: the kind word's rows only; the type noun (the control) lists every kind
    ("which websites have no owner", {"orphan-site"}, "which components have no owner"),
    ("libs nobody owns", {"orphan-lib"}, "components nobody owns"),
    ("which databases have no owner", {"cache"}, "which resources have no owner"),
    # set answers: a many-valued hop's end entities
    ("which websites does team-a own", {"checkout"}, "which components does team-a own"),
    ("which libraries does team-b own", {"ledger-lib"}, "which components does team-b own"),
    ("which buckets does team-b own", {"assets"}, "which resources does team-b own"),
    ("which libraries does checkout depend on", {"ledger-lib"}, "which components does checkout depend on"),
    # over a set reached through another (alice's teams, then what they own)
    ("which websites does alice's team own", {"checkout"}, "which components does alice's team own"),
])
def test_a_kind_word_keeps_the_entities_of_its_kind(mixed: Path, request_text: str, expected: set[str],
                                                     superset: str) -> None:
    assert names(request_text, mixed) == expected
    assert names(superset, mixed) > expected  # the control: the type noun's answer holds other kinds too


@pytest.mark.parametrize(("request_text", "superset"), [
    ("which services have no owner", "which components have no owner"),
    ("which services does team-a own", "which components does team-a own"),
    ("which services does checkout depend on", "which components does checkout depend on"),
    ("which svcs does team-b own", "which components does team-b own"),  # (svc is also a website's name: here a kind)
    ("who owns the services that checkout depends on", "who owns the components that checkout depends on"),
])
def test_services_where_its_two_readings_differ_is_refused(mixed: Path, request_text: str, superset: str) -> None:
    """"Services" is said of every component as often as of the kind service: where the answer holds components of
    another kind the two readings differ, and the ask is refused, naming them, never answered either way."""
    message = refusal(request_text, mixed)
    assert "may mean every component or only the components of the kind service" in message
    assert len(names(superset, mixed)) > 1  # the answer that "every component" would give


def test_services_where_its_two_readings_agree_is_answered(mixed: Path) -> None:
    """The control: team-c owns services only, so both readings give billing."""
    assert names("which services does team-c own", mixed) == names("which components does team-c own", mixed) == {"billing"}


def test_the_filter_is_stated_in_the_trace_with_the_units_that_declare_each_kind(mixed: Path) -> None:
    trace = ask("which websites does team-a own", mixed)
    (record,) = trace.meta["kinds"]
    assert (record["word"], record["type"], record["kind"], record["said_of"]) == ("websites", "component", "website", "answers")
    assert [(r["id"], r["kind"]) for r in record["dropped"]] == [(W + "payments", "service")]
    assert record["dropped"][0]["cite"]["text"].startswith("line ") and "type: service" in record["dropped"][0]["cite"]["text"]
    assert [r["id"] for r in record["kept"]] == [W + "checkout"]
    cat = ask("which components does team-a own", mixed)
    assert "kinds" not in cat.meta  # the control: no kind word, no filter
    rows = ask("which websites have no owner", mixed).meta["coverage"]["rows"]
    assert rows[0]["cites"][-1]["text"].startswith("line ") and "type: website" in rows[0]["cites"][-1]["text"]


def test_a_kind_word_after_a_name_describes_it_and_never_narrows_the_name(mixed: Path) -> None:
    # checkout is a website: "the checkout service" still names it (the name says which entity)
    assert names("who owns the checkout service", mixed) == {"team-a"}
    trace = ask("who owns the checkout service", mixed)
    assert trace.meta["kinds"][0]["said_of"] == "start" and trace.meta["kinds"][0]["start"]["kind"] == "website"
    # a head noun of the type beside it: the name's kind word filters nothing
    assert names("which components does the payments service depend on", mixed) == {"ledger-lib"}
    assert names("what does the checkout website depend on", mixed) == {"payments", "ledger-lib", "orders-db"}
    # a kind word that is a name the reader knows is the name: svc is a website, and "who owns svc" names it
    assert names("who owns svc", mixed) == {"team-b"} and "kinds" not in ask("who owns svc", mixed).meta
    assert "may mean every component" in refusal("which svcs does team-b own", mixed)  # the control: the word as a kind


@pytest.mark.parametrize(("request_text", "said"), [
    ("which apps have no owner", "none is app"),  # a kind no entity declares
    ("which apps does team-a own", "none is app"),
    ("which services depend on libraries", "two kinds of component"),
])
def test_a_kind_the_view_does_not_hold_or_two_kinds_of_one_type_refuse(mixed: Path, request_text: str, said: str) -> None:
    assert said in refusal(request_text, mixed)


def test_a_kind_word_inside_a_composed_reading_keeps_its_kind_on_the_hop_it_types(mixed: Path) -> None:
    # "the libraries that checkout depends on" is a set inside the question: payments (a service), ledger-lib (a library)
    # read with the libraries' hop typed: the owners of the library only
    assert names("who owns the libraries that checkout depends on", mixed) == {"team-b"}
    assert names("who owns the components that checkout depends on", mixed) == {"team-a", "team-b"}  # the control


def test_a_head_noun_of_the_type_types_the_answers_and_the_kind_word_after_a_name_describes_the_name(mixed: Path) -> None:
    # "website" describes checkout; "which component" asks for its components of every kind (a library too)
    assert names("which component does the checkout website depend on", mixed) == {"payments", "ledger-lib"}
    # the control: said as the head noun, "websites" keeps the websites (checkout depends on none)
    assert "no path reaches an entity of the kind" in refusal("which websites does checkout depend on", mixed)
    # and a second kind of the type in one request is refused, not read as one of them
    assert "two kinds of component" in refusal("which services does the checkout website depend on", mixed)


def test_a_catalog_that_declares_no_kind_answers_as_before(tmp_path: Path) -> None:
    untyped = [comp("checkout", None, "team-a"), comp("payments", None, "team-a"), comp("orphan", None), group("team-a")]
    cat = world(tmp_path / "tree", {"catalog-info.yaml": untyped}, tmp_path / "cat.yaml")
    assert names("which services have no owner", cat) == {"orphan"}  # services: every component
    assert names("which components have no owner", cat) == {"orphan"}
    assert "kinds" not in ask("which services have no owner", cat).meta
    # a word for one kind only stays unread where no kind is declared: "websites" is not every component
    assert ask("which websites have no owner", cat).outcome != "accepted_path"


# -- history: a kind that changed between commits is read as of the view asked about -------------------------------
def test_a_kind_is_read_as_of_the_view_asked_about(tmp_path: Path) -> None:
    root, out = tmp_path / "tree", tmp_path / "cat.yaml"
    first = [comp("portal", "library", "team-a"), comp("api-gw", "service", "team-a"), group("team-a")]
    world(root, {"catalog-info.yaml": first}, out)
    later = [comp("portal", "website", "team-a"), comp("api-gw", "service", "team-a"), group("team-a")]
    world(root, {"catalog-info.yaml": later}, out)
    assert names("which websites does team-a own", out) == {"portal"}
    assert names("which libraries does team-a own", out, view="v1") == {"portal"}
    # controls: the other view's kind
    assert "none is website" in refusal("which websites does team-a own", out, view="v1")
    assert "none is library" in refusal("which libraries does team-a own", out)


# -- who may know a kind: the reader's view, the reduced catalog, and every store -----------------------------------
RESTRICTED_HEADER = ("format: chainret-source/1\nworld: acme\ndocuments:\n  - path: backstage/internal/catalog-info.yaml\n"
                     "    visibility: restricted\n    principals: [hr]\n")


@pytest.fixture(scope="module")
def restricted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("restricted")
    (tmp / "src").mkdir()
    (tmp / "src" / "chainret.yaml").write_text(RESTRICTED_HEADER, encoding="utf-8")
    files = {"catalog-info.yaml": [comp("shop", "service", "team-a"), comp("lone", "service"), group("team-a")],
             "internal/catalog-info.yaml": [comp("intranet", "website", "team-a"), comp("draft", "website")]}
    return world(tmp / "tree", files, tmp / "cat.yaml", src=tmp / "src")


ASKS = ("which websites does team-a own", "which services does team-a own", "which websites have no owner",
        "which services have no owner", "who owns the shop service")


def test_a_kind_only_a_restricted_descriptor_declares_is_not_known_to_a_public_reader(restricted: Path) -> None:
    trace = ask("which websites does team-a own", restricted)
    assert trace.outcome == "refused" and trace.reason is not None and "intranet" not in trace.reason.message
    assert trace.reason.details["declared_kinds"] == ["service"]  # the public descriptors' kinds only
    assert names("which websites does team-a own", restricted, principal="hr") == {"intranet"}  # the control
    assert names("which websites have no owner", restricted, principal="hr") == {"draft"}
    assert names("which services have no owner", restricted) == {"lone"}


def test_the_reduced_catalog_and_every_store_answer_a_kind_word_alike(restricted: Path, tmp_path: Path,
                                                                        pg_url: str) -> None:  # noqa: F811
    from chainret.catalog.load import load_catalog

    cat = load_catalog(restricted)
    stores = three_stores(cat, tmp_path, pg_url)
    try:
        for principal in ("public", "hr"):
            reduced = reader_catalog(cat, principal)
            for words in ASKS:
                full = ask(words, cat, principal=principal)
                alone = ask(words, reduced, principal=principal)
                assert (full.outcome, full.answers, full.reason, full.meta.get("kinds")) == \
                    (alone.outcome, alone.answers, alone.reason, alone.meta.get("kinds")), (principal, words)
                same_in_every_store(stores, words, principal=principal)
    finally:
        close_stores(stores)


# -- "services" said of something the answers are not: answered only where its two readings agree --------------------
def api(name: str) -> str:
    return _doc("API", name, "  type: openapi\n  lifecycle: production\n  owner: team-x\n  definition: x\n")


def provider(name: str, kind: str, owner: str, provides: tuple[str, ...] = (), deps: tuple[str, ...] = ()) -> str:
    spec = f"  type: {kind}\n  lifecycle: production\n  owner: {owner}\n"
    spec += "  providesApis:\n" + "".join(f"    - {a}\n" for a in provides) if provides else ""
    spec += "  dependsOn:\n" + "".join(f"    - {d}\n" for d in deps) if deps else ""
    return _doc("Component", name, spec)


AGREE = [
    api("a-served"), api("a-none"), api("a-both"),
    provider("svc-1", "service", "team-x", ("a-served",)), provider("svc-2", "service", "team-x", ("a-both",)),
    provider("lib-1", "library", "team-x", ("a-both",)),
    provider("portal", "website", "team-y", deps=("component:svc-1", "component:lib-1")),
    provider("kiosk", "website", "team-y", deps=("component:svc-2", "component:lib-2")),
    provider("lib-2", "library", "team-z"),
    group("team-x"), group("team-y"), group("team-z"),
]
# the control world: one API that a library alone provides ("no service" lists it, "no component" does not)
DIFFER = [*AGREE, api("a-lib"), provider("lib-3", "library", "team-x", ("a-lib",))]


@pytest.fixture(scope="module")
def provided(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("provided")
    return (world(tmp / "agree", {"catalog-info.yaml": AGREE}, tmp / "agree.yaml"),
            world(tmp / "differ", {"catalog-info.yaml": DIFFER}, tmp / "differ.yaml"))


@pytest.mark.parametrize("request_text", ["which apis does no service provide", "is there an api that no service provides",
                                          "apis that no service provides"])
def test_services_as_the_object_of_an_absence_is_answered_where_both_readings_agree(
        provided: tuple[Path, Path], request_text: str) -> None:
    agree, differ = provided
    assert names(request_text, agree) == names(request_text.replace("service", "component"), agree) == {"a-none"}
    record = ask(request_text, agree).meta["kinds"][0]
    assert (record["said_of"], record["readings_agree"]) == ("objects", True)
    # the control: a-lib is provided by a library only, so "no service" and "no component" are two lists
    assert "not of those components themselves" in refusal(request_text, differ)
    assert names(request_text.replace("service", "component"), differ) == {"a-none"}


def test_services_inside_a_composed_reading_is_answered_where_both_readings_agree(provided: tuple[Path, Path]) -> None:
    agree, _ = provided
    # portal depends on svc-1 (a service) and lib-1 (a library), both team-x's: either reading gives team-x
    assert names("who owns the services that portal depends on", agree) == {"team-x"}
    assert names("who owns the components that portal depends on", agree) == {"team-x"}
    # the control: kiosk's library is team-z's, so "every component" adds team-z and the ask is refused
    # (kiosk is a website: the word is said of the set inside the request, never of kiosk's name)
    assert "types no hop" in refusal("who owns the services that kiosk depends on", agree)
    assert names("who owns the components that kiosk depends on", agree) == {"team-x", "team-z"}
    # the providers of a-both: svc-2 and lib-1, both team-x's
    assert names("who owns the services that provide a-both", agree) == {"team-x"}
    # the control: what depends on svc-1 is portal, a website: "services" keeps none of it, "components" gives team-y
    assert "types no hop" in refusal("who owns the services that depend on svc-1", agree)
    assert names("who owns the components that depend on svc-1", agree) == {"team-y"}


def test_every_store_reads_both_readings_alike(provided: tuple[Path, Path], tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    """The agreement of a loose word's two readings is read from the view's relations: memory, SQLite and PostgreSQL
    give one trace, an answer where they agree and a refusal where they differ."""
    from chainret.catalog.load import load_catalog

    for catalog in provided:
        stores = three_stores(load_catalog(catalog), tmp_path / catalog.stem, pg_url)
        try:
            for words in ("which apis does no service provide", "who owns the services that portal depends on",
                          "who owns the services that kiosk depends on"):
                same_in_every_store(stores, words)
        finally:
            close_stores(stores)
