"""A predicate's domain or range may be a union of entity types (``component|api``): Backstage's
``spec.owner`` is a Group or a User. One type reads as before; each type of a union is checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from chainret.authoring.build import build
from chainret.authoring.header import SourceInvalid
from chainret.catalog.models import Predicate, type_union
from chainret.catalog.checks import check_catalog

HEADER = """format: chainret-source/1
world: w
entities:
  - {id: component:w:svc, name: svc}
  - {id: api:w:lookup, name: lookup}
  - {id: group:w:team, name: team}
  - {id: user:w:ann, name: ann}
predicates:
  - {name: owned_by, domain: component|api, range: group|user, cardinality: functional}
  - {name: child_of, domain: group, range: group}
patterns:
"""


def _src(tmp: Path, rels: str, extra: str = "", patterns: str = "") -> Path:
    src = tmp / "src"
    src.mkdir(exist_ok=True)
    (src / "chainret.yaml").write_text(HEADER.replace("predicates:\n", "predicates:\n" + extra) + (patterns or
                                       "  - {name: owner, start_type: component, hops: [owned_by], phrasings: ['who owns {component}']}\n"),
                                       encoding="utf-8")
    (src / "records.md").write_text(rels, encoding="utf-8")
    return src


def test_type_union_reads_one_type_as_before() -> None:
    assert type_union("group") == ("group",) and type_union("group|user") == ("group", "user")
    p = Predicate(name="owned_by", domain="component|api", range="group")
    assert p.domain_types == ("component", "api") and p.range_types == ("group",)


def test_each_type_of_a_union_is_allowed_and_no_other(tmp_path: Path) -> None:
    ok = "REL component:w:svc | owned_by | group:w:team\n\nREL api:w:lookup | owned_by | user:w:ann\n"
    result = build(_src(tmp_path, ok), tmp_path / "cat.yaml")
    assert len(result.catalog.relations) == 2
    with pytest.raises(SourceInvalid, match="'owned_by' starts at a component\\|api, but group:w:team is a group"):
        build(_src(tmp_path, ok + "\nREL group:w:team | owned_by | user:w:ann\n"), tmp_path / "cat2.yaml")


def test_a_union_naming_an_undeclared_type_is_an_error(tmp_path: Path) -> None:
    src = _src(tmp_path, "REL component:w:svc | owned_by | group:w:team\n",
               extra="  - {name: part_of, domain: component|resorce, range: group}\n")
    with pytest.raises(SourceInvalid, match="found 'resorce'"):
        build(src, tmp_path / "cat.yaml")


def test_a_pattern_hop_must_start_at_a_type_the_chain_reaches(tmp_path: Path) -> None:
    rels = "REL component:w:svc | owned_by | group:w:team\n"
    good = "  - {name: parent, start_type: component, hops: [owned_by, child_of], phrasings: ['parent of the owner of {component}']}\n"
    cat = build(_src(tmp_path, rels, patterns=good), tmp_path / "cat.yaml", check=False).catalog
    assert not [i for i in check_catalog(cat, "x") if i.code == "pattern_type_mismatch"]  # group|user, then from groups
    bad = "  - {name: twice, start_type: component, hops: [owned_by, owned_by], phrasings: ['owner of the owner of {component}']}\n"
    cat = build(_src(tmp_path, rels, patterns=bad), tmp_path / "cat2.yaml", check=False).catalog
    found = [i.message for i in check_catalog(cat, "x") if i.code == "pattern_type_mismatch"]
    assert found == ["hop 'owned_by' starts at type 'component|api', but the chain reaches type 'group|user' here"]
