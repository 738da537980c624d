"""Kind words said as modifiers of a hop's set (issue 44): "dbs owned by team-a", "which APIs do the apps owned by team-a
call" (the first hop's end kept to the kind), "which queues do team-a's workers use", "buckets team-b's services depend
on"; nested sets said with a relation noun ("which teams own the callers of the pay-api") or a gerund ("teams owning
anything that depends on the jobs queue"); an event dated by a time phrase ("before the migration in May").

Every reading has its control beside it: the type noun's ask gives the superset the kind word must not; a kind word
the catalog declares no entity of, or a kind the middle set holds none of, is not answered; a kind word inside a display
name ("the Sites Team") is a name's word; a reader who may not read a descriptor gets the answer of the catalog with that
document deleted.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from test_ask_kinds import RESTRICTED_HEADER, names, world

from chainret.catalog.load import load_catalog
from chainret.catalog.readable import reader_catalog
from chainret.pipeline.ask import ask
from chainret.query.when import read_time


def _doc(kind: str, name: str, spec: str, title: str = "") -> str:
    meta = f"  name: {name}\n" + (f"  title: {title}\n" if title else "")
    return f"apiVersion: backstage.io/v1alpha1\nkind: {kind}\nmetadata:\n{meta}spec:\n{spec}"


def part(name: str, kind: str, owner: str, consumes: tuple[str, ...] = (), deps: tuple[str, ...] = ()) -> str:
    spec = f"  type: {kind}\n  lifecycle: production\n  owner: {owner}\n"
    spec += "  consumesApis:\n" + "".join(f"    - {a}\n" for a in consumes) if consumes else ""
    spec += "  dependsOn:\n" + "".join(f"    - {d}\n" for d in deps) if deps else ""
    return _doc("Component", name, spec)


def api(name: str, owner: str) -> str:
    return _doc("API", name, f"  type: openapi\n  lifecycle: production\n  owner: {owner}\n  definition: x\n")


def store(name: str, kind: str, owner: str) -> str:
    return _doc("Resource", name, f"  type: {kind}\n  owner: {owner}\n")


def team(name: str, members: tuple[str, ...], title: str = "") -> str:
    return _doc("Group", name, "  type: team\n  children: []\n  members:\n" + "".join(f"    - {m}\n" for m in members),
                title)


def person(name: str) -> str:
    return _doc("User", name, "  memberOf: []\n")


DEPOT = [
    part("phone", "mobile-app", "team-a", consumes=("cart-api", "search-api")),
    part("web", "website", "team-a", consumes=("cart-api", "pay-api")),
    part("sync", "worker", "team-a", deps=("resource:jobs", "resource:orders-db")),
    part("billing", "service", "team-b", consumes=("pay-api",), deps=("resource:invoices",)),
    part("ledger", "service", "team-b", deps=("resource:ledger-db",)),
    part("docs", "website", "team-b"),
    part("pager", "service", "sites-team", consumes=("search-api",)),
    api("cart-api", "team-a"), api("search-api", "team-c"), api("pay-api", "team-b"), api("idle-api", "team-c"),
    store("jobs", "queue", "team-a"), store("orders-db", "database", "team-a"), store("invoices", "s3-bucket", "team-b"),
    store("ledger-db", "database", "team-b"), store("events", "queue", "team-c"),
    team("team-a", ("alice",)), team("team-b", ("bob", "cleo")), team("team-c", ("dan",)),
    team("sites-team", ("erin",), title="Sites Team"),
    person("alice"), person("bob"), person("cleo"), person("dan"), person("erin"),
]


@pytest.fixture(scope="module")
def depot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("depot")
    return world(tmp / "tree", {"catalog-info.yaml": DEPOT}, tmp / "cat.yaml")


def unanswered(request: str, catalog: Path) -> bool:
    return ask(request, catalog).outcome != "accepted_path"


@pytest.mark.parametrize(("request_text", "expected", "control", "superset"), [
    # a bare noun phrase headed by a kind word (a short form of a declared kind): the type noun's ask gives more
    ("dbs owned by team-a", {"orders-db"}, "resources owned by team-a", {"jobs", "orders-db"}),
    ("queues owned by team-a", {"jobs"}, "resources owned by team-a", {"jobs", "orders-db"}),
    ("sites owned by team-b", {"docs"}, "components owned by team-b", {"billing", "ledger", "docs"}),
    # the kind word of a middle set: the first hop's end kept to the kind, then followed
    ("Which APIs do the apps owned by team-a call?", {"cart-api", "search-api"},
     "Which APIs do the components owned by team-a call?", {"cart-api", "search-api", "pay-api"}),
    ("Which APIs do the websites owned by team-a call?", {"cart-api", "pay-api"},
     "Which APIs do the components owned by team-a call?", {"cart-api", "search-api", "pay-api"}),
    # "use" of a resource: what the workers depend on, the kind word kept on the answers
    ("Which queues do team-a's workers use?", {"jobs"}, "Which resources do team-a's workers use?", {"jobs", "orders-db"}),
    # a contact clause with a plural subject: "services" (loose) answered where its two readings agree (docs, the other
    # kind of team-b's components, depends on nothing)
    ("buckets team-b's services depend on", {"invoices"}, "resources team-b's components depend on",
     {"invoices", "ledger-db"}),
])
def test_a_kind_word_keeps_the_set_it_names(depot: Path, request_text: str, expected: set[str], control: str,
                                            superset: set[str]) -> None:
    assert names(request_text, depot) == expected
    trace = ask(request_text, depot)
    assert trace.completeness is not None and trace.completeness.complete  # stated over the kept set
    assert trace.meta.get("kinds")
    assert names(control, depot) == superset  # the control: the type noun keeps every entity of the type


def test_a_kind_word_the_catalog_or_the_middle_set_does_not_hold_is_not_answered(depot: Path) -> None:
    # no component declares the kind library: "libs" is refused, naming the kinds the view holds
    trace = ask("Which APIs do the libs owned by team-a call?", depot)
    assert trace.outcome == "refused" and trace.reason is not None and "library" in trace.reason.message
    # team-b owns no worker: no path reaches an entity of the kind (never team-b's components' APIs)
    trace = ask("Which APIs do the workers owned by team-b call?", depot)
    assert trace.outcome != "accepted_path" and not trace.answers
    # the control: the same words of a kind team-b holds
    assert names("Which APIs do the services owned by team-b call?", depot) == {"pay-api"}


def test_a_kind_word_inside_a_display_name_is_the_name(depot: Path) -> None:
    """"the Sites Team" is a team's name: its "Sites" keeps no websites (pager, a service, is followed)."""
    assert names("Which APIs do the components owned by the Sites Team call?", depot) == {"search-api"}
    trace = ask("Which APIs do the components owned by the Sites Team call?", depot)
    assert not trace.meta.get("kinds")
    # the control: "sites" said as a word of its own is the kind, and sites-team owns no website
    assert unanswered("Which APIs do the sites owned by the Sites Team call?", depot)


def test_use_of_a_resource_reads_as_depends_and_of_an_api_as_consumes(depot: Path) -> None:
    assert names("which resources does sync use", depot) == {"jobs", "orders-db"}
    assert names("which APIs does phone use", depot) == {"cart-api", "search-api"}  # the control: consumes first
    assert unanswered("which teams does sync use", depot)  # a type neither relation reaches: unread


@pytest.mark.parametrize(("request_text", "expected"), [
    ("which teams own the callers of the pay-api", {"team-a", "team-b"}),
    ("who owns the consumers of the search-api", {"team-a", "sites-team"}),
    ("Who's in the teams that own the pay-api's callers?", {"alice", "bob", "cleo"}),
    ("teams owning anything that depends on the jobs queue", {"team-a"}),
])
def test_a_nested_set_said_with_a_relation_noun_or_a_gerund(depot: Path, request_text: str, expected: set[str]) -> None:
    assert names(request_text, depot) == expected
    trace = ask(request_text, depot)
    assert trace.completeness is not None and trace.completeness.complete


def test_a_nested_set_of_no_relation_noun_or_no_member_is_not_answered(depot: Path) -> None:
    assert unanswered("which teams own the fans of the pay-api", depot)  # "fans": no relation's noun
    assert unanswered("which teams own the callers of the idle-api", depot)  # nobody calls it: no answer given
    assert unanswered("teams owing anything that depends on the jobs queue", depot)  # no verb


# -- a time phrase dating an event: "before the migration in May" ------------------------------------------------------
TODAY = dt.date(2026, 11, 2)


@pytest.mark.parametrize(("request_text", "day", "rest"), [
    ("Who was on Dispatch before the migration in May?", dt.date(2026, 4, 30), "Who was on Dispatch?"),
    ("who was on dispatch before the big reorg in May", dt.date(2026, 4, 30), "who was on dispatch"),
    ("Who was on Dispatch after the reorg in March?", dt.date(2026, 3, 31), "Who was on Dispatch?"),
    ("who owned X prior to the move on 2026-05-18", dt.date(2026, 5, 17), "who owned X"),
])
def test_an_event_dated_by_a_time_phrase_asks_before_or_after_it(request_text: str, day: dt.date, rest: str) -> None:
    said = read_time(request_text, TODAY)
    assert said is not None and (said.day, said.rest) == (day, rest)
    assert said.aside


@pytest.mark.parametrize(("request_text", "kept"), [
    ("Who was on Dispatch before the Payments team in May?", "before the Payments team"),  # a name, no event
    ("who was on the team before the payments team in May", "before the payments team"),  # no event noun
])
def test_words_before_a_time_phrase_that_name_no_event_are_left_in_the_request(request_text: str, kept: str) -> None:
    said = read_time(request_text, TODAY)
    assert said is not None and said.day == dt.date(2026, 5, 31) and kept in said.rest and not said.aside


# -- a reader who may not read a descriptor -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hidden(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mobile app team-a owns that only hr may read, calling the pay-api: a public reader's apps are phone alone."""
    tmp = tmp_path_factory.mktemp("hidden")
    (tmp / "src").mkdir()
    (tmp / "src" / "chainret.yaml").write_text(RESTRICTED_HEADER, encoding="utf-8")
    files = {"catalog-info.yaml": DEPOT,
             "internal/catalog-info.yaml": [part("intranet", "mobile-app", "team-a", consumes=("pay-api",))]}
    return world(tmp / "tree", files, tmp / "cat.yaml", src=tmp / "src")


LEAKS = ("Which APIs do the apps owned by team-a call?", "which teams own the callers of the pay-api",
         "Which queues do team-a's workers use?")


def test_a_middle_set_never_follows_an_entity_the_reader_may_not_read(hidden: Path) -> None:
    assert names(LEAKS[0], hidden) == {"cart-api", "search-api"}
    assert "intranet" not in ask(LEAKS[0], hidden).to_json()
    assert names(LEAKS[0], hidden, principal="hr") == {"cart-api", "search-api", "pay-api"}  # the control
    cat = load_catalog(hidden)
    for principal in ("public", "hr"):
        reduced = reader_catalog(cat, principal)  # the catalog with the documents the reader may not read deleted
        for words in LEAKS:
            full, alone = ask(words, cat, principal=principal), ask(words, reduced, principal=principal)
            assert (full.outcome, full.answers, full.reason, full.completeness, full.meta.get("kinds")) == \
                (alone.outcome, alone.answers, alone.reason, alone.completeness, alone.meta.get("kinds")), (principal, words)


def test_a_kind_word_in_a_name_said_in_lower_case_is_the_name(depot: Path) -> None:
    """"the sites team" in lower case: "sites" and "team" are two words of the Sites Team's name, one after the other."""
    assert names("Which APIs do the components owned by the sites team call?", depot) == {"search-api"}
    # the control: "sites" before a word that is no next word of a name is the kind
    assert names("Which APIs do the sites owned by team-a call?", depot) == {"cart-api", "pay-api"}
