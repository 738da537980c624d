"""Coverage asks in wordings of their own (issue 44): a dangling owner said many ways, a question about every member,
a lack said inside a container, an absence beside a presence with one copula, "neither N1 nor N2".

"components owned by a team that no longer exists", "owner refs that point nowhere", "what names an owner that isn't
declared anywhere": the entities whose owner reference resolves to no entity of the view (or the references), never the
entities that name no owner. "resources whose owner isn't declared anywhere" reads both ways (none declared, or the one
named declared nowhere): refused. "is every system owned by a team that still exists": the systems whose owner is
declared nowhere, answered only where no system names no owner (that one is not owned by a team that exists either).
"what's unowned in the tracking system": the unowned members of the system; "which APIs have no consumers in S" is not
read so (the place may be the consumers'). "which APIs are provided but never consumed", "APIs with neither a provider
nor a consumer". Each rule has its negative control beside it, and a reader who may not read a document gets the
answer of the catalog without it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from records_world import answer_names, imported, unread

from chainret.catalog.load import load_catalog
from chainret.catalog.readable import reader_catalog
from chainret.pipeline.ask import ask
from chainret.query import gaps as gaps_mod


def _doc(kind: str, name: str, spec: str = "") -> str:
    return f"apiVersion: backstage.io/v1alpha1\nkind: {kind}\nmetadata:\n  name: {name}\nspec:\n  type: service\n{spec}"


DESCRIPTORS = {
    "catalog-info.yaml": [
        _doc("Group", "platform", "  children: []\n"),
        _doc("System", "tracking", "  owner: platform\n"),
        _doc("System", "billing", "  owner: platform\n"),
        _doc("System", "legacy", "  owner: gone-team\n"),  # a team nobody declares
        _doc("Component", "tracker", "  owner: platform\n  system: tracking\n  providesApis: [track-api, rate-api]\n"),
        _doc("Component", "notifier", "  system: tracking\n  consumesApis: [track-api, maps-api]\n"),  # no owner
        _doc("Component", "invoicer", "  system: billing\n"),  # no owner
        _doc("Component", "printer", "  owner: gone-team\n  system: legacy\n"),
        _doc("Component", "refunds", "  owner: ghost-team\n  system: billing\n"),
        _doc("API", "track-api", "  owner: platform\n  system: tracking\n"),
        _doc("API", "rate-api", "  owner: platform\n  system: tracking\n"),  # provided, consumed by nothing
        _doc("API", "maps-api", "  owner: platform\n"),  # consumed, provided by nothing here
        _doc("API", "dock-api", "  owner: gone-team\n  system: legacy\n"),  # neither provided nor consumed
    ],
    # a team only hr may know: to everyone else, refunds names an owner that resolves to nothing
    "internal/catalog-info.yaml": [_doc("Group", "ghost-team", "  children: []\n")],
}
HEADER = ("format: chainret-source/1\nworld: acme\ndocuments:\n"
          "  - path: backstage/internal/catalog-info.yaml\n    visibility: restricted\n    principals: [hr]\n")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("wordings")
    for rel, docs in DESCRIPTORS.items():
        (root / "tree" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "tree" / rel).write_text("\n---\n".join(docs), encoding="utf-8")
    (root / "src").mkdir()
    (root / "src" / "chainret.yaml").write_text(HEADER, encoding="utf-8")
    imported(root / "tree", root / "cat.yaml", ["backstage"], src=root / "src")
    return root / "cat.yaml"


# -- a dangling owner, said many ways --------------------------------------------------------------------------------
@pytest.mark.parametrize("words", [
    "components owned by a team that no longer exists",
    "which components are owned by a group that has been deleted",
    "components owned by a team that doesn't exist anymore",
    "which components name an owner that isn't declared anywhere",
    "components whose owner ref points nowhere",
])
def test_a_dangling_owner_in_many_wordings_is_the_entities_whose_owner_resolves_to_nothing(world: Path, words: str) -> None:
    assert answer_names(words, world) == {"default.printer", "default.refunds"}
    # the control: the components that name no owner are another set
    assert answer_names("components with no owner", world) == {"default.notifier", "default.invoicer"}


def test_what_names_a_missing_owner_is_every_type_that_does(world: Path) -> None:
    assert answer_names("What names an owner that isn't declared anywhere?", world) == {
        "default.printer", "default.refunds", "default.legacy", "default.dock-api"}
    # the control: a presence of the owner is no lack ("an owner that is declared")
    assert unread("what names an owner that is declared", world)


@pytest.mark.parametrize("words", ["owner refs that point nowhere", "owner references that lead to nothing",
                                   "owners that no longer exist"])
def test_owner_refs_pointing_nowhere_are_the_references(world: Path, words: str) -> None:
    assert answer_names(words, world) == {"default.gone-team", "default.ghost-team"}
    assert unread("owner refs that point somewhere", world)  # the control: no lack said


def test_an_owner_not_declared_read_two_ways_is_refused(world: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    trace = ask("components whose owner isn't declared anywhere", world)
    assert trace.outcome == "refused" and trace.reason is not None and trace.reason.code == "ambiguous_reading"
    # each reading said on its own answers
    assert answer_names("components for which no owner is declared", world) == {"default.notifier", "default.invoicer"}
    assert answer_names("components owned by a team that isn't declared anywhere", world) == {"default.printer", "default.refunds"}
    # the control: the rule switched off, the reading tried first answers (the ownerless components: wrong here)
    monkeypatch.setattr(gaps_mod, "unsure_gap", lambda text: ())
    assert ask("components whose owner isn't declared anywhere", world).outcome == "accepted_path"


# -- a question about every member ------------------------------------------------------------------------------------
def test_every_member_owned_by_an_existing_team_is_answered_where_no_member_names_no_owner(world: Path) -> None:
    assert answer_names("Is every system owned by a team that still exists?", world) == {"default.legacy"}
    assert answer_names("does every api have an owner that exists", world) == {"default.dock-api"}
    # the control: two components name no owner, and they are not owned by a team that exists either: not answered
    assert unread("is every component owned by a team that still exists", world)


# -- a lack inside a container ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("words", ["what's unowned in the tracking system?", "is anything in tracking unowned",
                                   "is there anything nobody owns in the tracking system"])
def test_a_lack_in_a_container_is_its_members_that_lack(world: Path, words: str) -> None:
    assert answer_names(words, world) == {"default.notifier"}
    assert answer_names("what's unowned", world) == {"default.notifier", "default.invoicer"}  # the control: the whole view


def test_a_place_after_a_lack_of_another_relation_is_not_read_as_the_container(world: Path) -> None:
    # "no consumers in the tracking system" may be consumers in it: not read as the system's APIs
    assert unread("which apis have no consumers in the tracking system", world)


# -- a presence and an absence with one copula; neither N1 nor N2 --------------------------------------------------------
def test_provided_but_never_consumed(world: Path) -> None:
    assert answer_names("Which APIs are provided but never consumed?", world) == {"default.rate-api"}
    assert answer_names("which apis are consumed but not provided", world) == {"default.maps-api"}
    # the control: the absence alone keeps the APIs nothing provides
    assert answer_names("which apis are never consumed", world) == {"default.rate-api", "default.dock-api"}


@pytest.mark.parametrize("words", ["apis with neither a provider nor a consumer",
                                   "which apis have neither a provider nor a consumer"])
def test_neither_a_provider_nor_a_consumer(world: Path, words: str) -> None:
    assert answer_names(words, world) == {"default.dock-api"}
    assert answer_names("apis with no provider", world) == {"default.maps-api", "default.dock-api"}  # the control


# -- who may know ----------------------------------------------------------------------------------------------------
LEAK_ASKS = ("components owned by a team that no longer exists", "owner refs that point nowhere",
             "What names an owner that isn't declared anywhere?", "Is every system owned by a team that still exists?",
             "what's unowned in the billing system", "components whose owner isn't declared anywhere")


def test_a_reader_who_may_not_read_a_document_gets_the_answer_of_the_catalog_without_it(world: Path) -> None:
    cat = load_catalog(world)
    for principal in ("public", "hr"):
        reduced = reader_catalog(cat, principal)
        for words in LEAK_ASKS:
            full, alone = ask(words, cat, principal=principal), ask(words, reduced, principal=principal)
            assert (full.outcome, full.answers, full.reason) == (alone.outcome, alone.answers, alone.reason), (principal, words)
    # the control: hr knows ghost-team, so refunds' owner resolves for hr only
    assert {a.id.rpartition(".")[2] for a in ask("components owned by a team that no longer exists", cat, principal="hr").answers} == {"printer"}
    assert answer_names("components owned by a team that no longer exists", world) == {"default.printer", "default.refunds"}
