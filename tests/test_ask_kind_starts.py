"""A kind word as the start of a request (issue 44): "which teams own the workers", "who is on the teams that own our
databases", "people on teams that own an s3 bucket", "the storefront websites", "the mobile app"
(``chainret.pipeline.startset``).

Every reading has its control beside it: the one entity's question gives the part of the answer it starts, a
near wording that names no kind or no container stays refused, a kind of two entities said as "the <kind>" is refused
naming them, a reader who may not read a descriptor neither follows nor counts its entity (the catalog with that
document deleted answers alike), and an entity of the type that declares no kind makes the answer incomplete.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from store_worlds import close_stores, pg_url, same_in_every_store, three_stores  # noqa: F401
from test_ask_kinds import RESTRICTED_HEADER, _doc, group, names, refusal, world

from chainret.catalog.load import load_catalog
from chainret.catalog.readable import reader_catalog
from chainret.pipeline.ask import ask


def part(name: str, kind: str | None, owner: str | None = None, system: str | None = None,
         consumes: tuple[str, ...] = ()) -> str:
    """A Component of a kind (none: no ``spec.type``), its owner, its system and the APIs it consumes."""
    spec = (f"  type: {kind}\n" if kind else "") + "  lifecycle: production\n" + (f"  owner: {owner}\n" if owner else "")
    spec += f"  system: {system}\n" if system else ""
    spec += "  consumesApis:\n" + "".join(f"    - {a}\n" for a in consumes) if consumes else ""
    return _doc("Component", name, spec)


def store(name: str, kind: str, owner: str | None = None) -> str:
    return _doc("Resource", name, f"  type: {kind}\n" + (f"  owner: {owner}\n" if owner else ""))


def api(name: str, owner: str) -> str:
    return _doc("API", name, f"  type: openapi\n  lifecycle: production\n  owner: {owner}\n  definition: x\n")


def system(name: str, owner: str) -> str:
    return _doc("System", name, f"  owner: {owner}\n")


def team(name: str, members: tuple[str, ...]) -> str:
    return group(name, members)


def person(name: str) -> str:
    return _doc("User", name, "  memberOf: []\n")


SHOP = [
    part("sync", "worker", "team-a", "shop"), part("scorer", "worker", "team-b", "pay"),
    part("web", "website", "team-a", "shop"), part("kiosk", "website", "team-c", "shop"),
    part("portal", "website", "team-b", "pay"), part("billing", "service", "team-c", "pay"),
    part("ui-kit", "library", "team-a", "shop"), part("money", "library", "team-b", "pay"),
    part("phone", "mobile-app", "team-b", "shop", consumes=("cart-api", "search-api")),
    api("cart-api", "team-a"), api("search-api", "team-c"),
    store("orders-db", "database", "team-a"), store("ledger-db", "database", "team-b"),
    store("images", "s3-bucket", "team-c"), store("archive", "s3-bucket"),
    system("shop", "team-a"), system("pay", "team-b"),
    team("team-a", ("alice",)), team("team-b", ("bob", "cleo")), team("team-c", ("dan",)),
    person("alice"), person("bob"), person("cleo"), person("dan"),
]


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("shop")
    return world(tmp / "tree", {"catalog-info.yaml": SHOP}, tmp / "cat.yaml")


@pytest.mark.parametrize(("request_text", "expected", "one", "its_part"), [
    # every entity of the kind, each followed; the control: one entity's own question gives its part of the answer
    ("which teams own the workers?", {"team-a", "team-b"}, "which team owns sync", {"team-a"}),
    ("which teams own each of our workers", {"team-a", "team-b"}, "which team owns scorer", {"team-b"}),
    ("who is on the teams that own our databases?", {"alice", "bob", "cleo"}, "who is on the team that owns ledger-db",
     {"bob", "cleo"}),
    ("which systems are our libraries in?", {"shop", "pay"}, "which system is money in", {"pay"}),
    # "an s3 bucket": a team that owns one (archive has no owner: it adds nothing, and takes nothing away)
    ("people on teams that own an s3 bucket", {"dan"}, "who is on the team that owns images", {"dan"}),
    ("which teams own databases", {"team-a", "team-b"}, "which team owns orders-db", {"team-a"}),
])
def test_a_kind_word_as_the_start_is_every_entity_of_the_kind(shop: Path, request_text: str, expected: set[str],
                                                               one: str, its_part: set[str]) -> None:
    assert names(request_text, shop) == expected
    assert names(one, shop) == its_part <= expected
    trace = ask(request_text, shop)
    assert trace.completeness is not None and trace.completeness.complete
    record = trace.meta["start_set"]
    assert record["every"] and all(m["cite"]["text"].startswith("line ") for m in record["members"])
    # each answer's path starts at its own entity of the kind
    starts = {a.path_ids[0].rpartition(".")[2] for a in trace.answers or ()}
    assert starts <= {m["id"].rpartition(".")[2] for m in record["members"]}


@pytest.mark.parametrize("request_text", ["which team owns every worker", "which teams own all of our workers",
                                          "which teams own all the workers", "who is on the team that owns all databases"])
def test_all_and_every_before_a_kind_word_are_not_read_as_each_one(shop: Path, request_text: str) -> None:
    """"which team owns every worker" may ask for a team that owns them all: the union of each one's owners would be
    another answer, so the words stay unread (the control: "each of our workers" above reads)."""
    assert ask(request_text, shop).outcome != "accepted_path"


def test_a_container_said_before_the_kind_word_keeps_its_entities(shop: Path) -> None:
    # the websites in shop: web (team-a) and kiosk (team-c); portal is in pay
    assert names("people on the teams that own the shop websites", shop) == {"alice", "dan"}
    assert names("people on the teams that own the websites", shop) == {"alice", "bob", "cleo", "dan"}  # the control
    # a word before the kind word that is neither the kind's nor a container's stays unread
    assert ask("people on the teams that own the old websites", shop).outcome != "accepted_path"
    assert ask("people on the teams that own the fancy shiny websites", shop).outcome != "accepted_path"


def test_the_kind_said_with_the_names_its_one_entity_and_refuses_where_there_are_two(shop: Path, tmp_path: Path) -> None:
    # one mobile app: "the mobile app" is app, in a reduced relative clause and with a time word alike
    assert names("who owns the apis the mobile app uses", shop) == {"team-a", "team-c"}
    assert names("which apis does the mobile app consume", shop) == {"cart-api", "search-api"}
    # the control: two workers, so "the worker" names neither
    assert "name the one asked about" in refusal("which team owns the worker", shop)
    assert "scorer" in refusal("which team owns the worker", shop)
    # and a second mobile app makes "the mobile app" two
    two = world(tmp_path / "tree", {"catalog-info.yaml": [*SHOP, part("tablet", "mobile-app", "team-c", "pay")]},
                tmp_path / "cat.yaml")
    message = refusal("which apis does the mobile app consume", two)
    assert "tablet" in message and "name the one asked about" in message


def test_services_as_the_start_stays_refused_where_its_two_readings_differ(shop: Path, tmp_path: Path) -> None:
    """"services" may mean every component: where other kinds are readable, the two starts differ (rule unchanged)."""
    assert "may mean every component" in refusal("which teams own the services", shop)
    # the control: a world whose every component is a service reads both ways alike, and answers
    only = [part("billing", "service", "team-a"), part("orders", "service", "team-b"),
            team("team-a", ("alice",)), team("team-b", ("bob",)), person("alice"), person("bob")]
    same = world(tmp_path / "tree", {"catalog-info.yaml": only}, tmp_path / "cat.yaml")
    assert names("which teams own the services", same) == {"team-a", "team-b"}


def test_an_entity_of_the_type_with_no_declared_kind_makes_the_answer_incomplete(tmp_path: Path) -> None:
    base = [part("sync", "worker", "team-a"), team("team-a", ("alice",)), team("team-b", ("bob",)), person("alice"),
            person("bob")]
    done = world(tmp_path / "done", {"catalog-info.yaml": base}, tmp_path / "done.yaml")
    trace = ask("which teams own the workers", done)
    assert trace.completeness is not None and trace.completeness.complete  # the control
    open_ = world(tmp_path / "open", {"catalog-info.yaml": [*base, part("mystery", None, "team-b")]}, tmp_path / "open.yaml")
    trace = ask("which teams own the workers", open_)
    assert trace.outcome == "accepted_path" and {a.id.rpartition(".")[2] for a in trace.answers or ()} == {"team-a"}
    assert trace.completeness is not None and not trace.completeness.complete
    assert any("mystery" in r and "declare no kind" in r for r in trace.completeness.reasons)


# -- who may read a kind's entities: the reader's view, the catalog with the document deleted, every store ----------
@pytest.fixture(scope="module")
def hidden(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A worker (and its team) only hr may read: a public reader follows the public worker alone."""
    tmp = tmp_path_factory.mktemp("hidden")
    (tmp / "src").mkdir()
    (tmp / "src" / "chainret.yaml").write_text(RESTRICTED_HEADER, encoding="utf-8")
    files = {"catalog-info.yaml": [part("sync", "worker", "team-a"), team("team-a", ("alice",)), person("alice"),
                                   part("site", "website", "team-a")],
             "internal/catalog-info.yaml": [part("payroll", "worker", "team-h"), team("team-h", ("hugo",)), person("hugo")]}
    return world(tmp / "tree", files, tmp / "cat.yaml", src=tmp / "src")


ASKS = ("which teams own the workers", "who is on the teams that own the workers", "which team owns the worker")


def test_a_start_set_never_counts_nor_follows_an_entity_the_reader_may_not_read(hidden: Path, tmp_path: Path,
                                                                                 pg_url: str) -> None:  # noqa: F811
    assert names("which teams own the workers", hidden) == {"team-a"}
    trace = ask("which teams own the workers", hidden)
    assert "payroll" not in trace.to_json() and "team-h" not in trace.to_json()
    assert trace.completeness is not None and trace.completeness.complete
    assert names("which team owns the worker", hidden) == {"team-a"}  # one worker the public may read
    # the control: hr reads both workers, so "the worker" is two, and "the workers" follows both
    assert names("which teams own the workers", hidden, principal="hr") == {"team-a", "team-h"}
    assert "payroll" in refusal("which team owns the worker", hidden, principal="hr")
    cat = load_catalog(hidden)
    stores = three_stores(cat, tmp_path, pg_url)
    try:
        for principal in ("public", "hr"):
            reduced = reader_catalog(cat, principal)  # the catalog with the documents the reader may not read deleted
            for words in ASKS:
                full = ask(words, cat, principal=principal)
                alone = ask(words, reduced, principal=principal)
                assert (full.outcome, full.answers, full.reason, full.completeness, full.meta.get("start_set")) == \
                    (alone.outcome, alone.answers, alone.reason, alone.completeness, alone.meta.get("start_set")), (principal, words)
                same_in_every_store(stores, words, principal=principal)
    finally:
        close_stores(stores)


# -- "has" as ownership where the catalog says "has" of members too -----------------------------------------------
def test_has_reads_as_owns_only_where_the_words_as_said_read_as_nothing(shop: Path) -> None:
    """The catalog says "has" of a team's members (``has_member``): "which team has sync" reads as nothing so, and
    sync is a component, so it is the team that owns it; a person a team has stays a member, never an owned thing."""
    assert names("which team has sync", shop) == names("which team owns sync", shop) == {"team-a"}
    assert names("which team has the cart-api", shop) == {"team-a"}
    # the control: the member reading of "has" is left as it reads (never read as "owns" bob, which reads as nothing)
    assert ask("which team owns bob", shop).outcome != "accepted_path"
    trace = ask("which team has bob", shop)
    assert trace.outcome != "accepted_path" or {a.id.rpartition(".")[2] for a in trace.answers or ()} <= {"team-b"}
