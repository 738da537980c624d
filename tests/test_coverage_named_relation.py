"""A coverage ask whose lacking noun names the relation and a type at once (issue 44): "which components have no team"
asks for no owner, or for no owner that is a team. The two readings differ where a component is owned by a person;
there the ask is refused (an unsure reading refuses), and where they agree it is answered. Controls beside each rule:
a type whose rows agree is answered, a verb's object noun ("own no components") still narrows, and a reader who may not
read the descriptor of the person-owned component gets the answer of the catalog without it."""

from __future__ import annotations

from pathlib import Path

import pytest
from records_world import answer_names, imported

from chainret.catalog.load import load_catalog
from chainret.catalog.readable import reader_catalog
from chainret.pipeline.ask import ask


def _doc(kind: str, name: str, spec: str = "") -> str:
    return f"apiVersion: backstage.io/v1alpha1\nkind: {kind}\nmetadata:\n  name: {name}\nspec:\n  type: service\n{spec}"


PUBLIC = [_doc("Group", "web", "  children: []\n  members: [ana]\n"), _doc("User", "ana", "  memberOf: [web]\n"),
          _doc("Component", "shop", "  owner: web\n"), _doc("Component", "lonely"),
          _doc("API", "shop-api", "  owner: web\n"), _doc("API", "draft-api")]
# a component a person owns, in a descriptor only hr may read
INTERNAL = [_doc("Component", "blog", "  owner: user:ana\n")]
HEADER = ("format: chainret-source/1\nworld: acme\ndocuments:\n"
          "  - path: backstage/internal/catalog-info.yaml\n    visibility: restricted\n    principals: [hr]\n")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("named")
    for rel, docs in {"tree/catalog-info.yaml": PUBLIC, "tree/internal/catalog-info.yaml": INTERNAL}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("\n---\n".join(docs), encoding="utf-8")
    (root / "src").mkdir()
    (root / "src" / "chainret.yaml").write_text(HEADER, encoding="utf-8")
    imported(root / "tree", root / "cat.yaml", ["backstage"], src=root / "src")
    return root / "cat.yaml"


def test_no_team_is_refused_where_no_owner_and_no_owning_team_differ(world: Path) -> None:
    trace = ask("which components have no team", world, principal="hr")  # blog: owned, by a person, not a team
    assert trace.outcome != "accepted_path"
    assert answer_names("which components have no owner", world) == {"default.lonely"}  # the strict ask stays read


def test_no_team_is_answered_where_the_readings_agree(world: Path) -> None:
    assert answer_names("which apis have no team", world) == {"default.draft-api"}  # no API is owned by a person
    # the reader who may not read blog's descriptor knows no person-owned component: the readings agree for them
    assert answer_names("which components have no team", world) == {"default.lonely"}


def test_a_verbs_object_noun_still_narrows(world: Path) -> None:
    """The control: "own no components" says its type with the verb, not as the relation's name."""
    trace = ask("which teams own no apis", world)
    assert trace.outcome == "accepted_path" and trace.answers == []


def test_a_reader_who_may_not_read_a_descriptor_gets_the_answer_of_the_catalog_without_it(world: Path) -> None:
    cat = load_catalog(world)
    for principal in ("public", "hr"):
        reduced = reader_catalog(cat, principal)
        for words in ("which components have no team", "which apis have no team", "which components have no owner"):
            full, alone = ask(words, cat, principal=principal), ask(words, reduced, principal=principal)
            assert (full.outcome, full.answers, full.reason) == (alone.outcome, alone.answers, alone.reason), (principal, words)
