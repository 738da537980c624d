"""List and reverse questions of an imported Backstage + CODEOWNERS tree: every value, each from its YAML line.

Backstage states its relations in pairs (``ownedBy``/``ownerOf``, ``hasMember``/``memberOf``, ...); the
importer writes both clauses after the one quoted line that states them, so a reverse relation is as
source-backed as the forward one. The default patterns (``chainret.sources.records.PATTERNS``) ask them
in both directions; a many-valued hop answers the whole set (``Trace.answers``, ``Trace.completeness``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from records_world import EXAMPLE, imported, verified

from chainret.catalog.models import Catalog
from chainret.pipeline.ask import ask
from chainret.sources import backstage as bs
from chainret.sources.records import CODEOWNERS_PREDICATES


def _e(kind: str, name: str) -> str:
    return f"{kind}:acme:default.{name}"


TEAM_A, TEAM_B, ENG = _e("group", "team-a"), _e("group", "team-b"), _e("group", "engineering")
BREANNA, JANELLE, NIGEL = _e("user", "breanna.davison"), _e("user", "janelle.dawe"), _e("user", "nigel.manning")
ARTIST_API, LOOKUP, PLAYBACK = _e("api", "artist-api"), _e("component", "artist-lookup"), _e("component", "playback-order")
PORTAL, AUDIO, DB = _e("system", "artist-engagement-portal"), _e("system", "audio-playback"), _e("resource", "artists-db")


@pytest.fixture(scope="module")
def acme(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("acme") / "catalog.yaml"
    imported(EXAMPLE / "records", out, ["backstage", "codeowners"])
    return out


# (request, pattern, the whole answer set): every one complete at the default budget.
QUESTIONS = [
    ("What does engineering own?", "group_owned", {_e("domain", "artists")}),
    ("What does nigel.manning own?", "user_owned", {PLAYBACK}),  # a User owner: owner_of from the user
    # a team and a system are named in many units (every member's memberOf, every part's spec.system): the
    # hop's rows rank the units that hold its predicate first, so the whole set comes back at the default budget
    ("What does team-a own?", "group_owned", {ARTIST_API, DB, PORTAL}),
    ("What does team-b own?", "group_owned", {LOOKUP, AUDIO}),
    ("What is part of artist-engagement-portal?", "system_parts", {ARTIST_API, DB, LOOKUP}),
    ("Who is on team-a?", "group_members", {BREANNA, JANELLE}),
    ("Who are the members of team-a?", "group_members", {BREANNA, JANELLE}),
    ("Which teams is breanna.davison on?", "user_groups", {_e("group", "team-a")}),
    ("Which team is nigel.manning on?", "user_groups", {TEAM_B}),
    ("Who consumes artist-api?", "api_consumers", {PLAYBACK}),
    ("Which components consume artist-api?", "api_consumers", {PLAYBACK}),
    ("What provides artist-api?", "api_provider", {LOOKUP}),
    ("What does playback-order consume?", "component_consumed_apis", {ARTIST_API}),
    ("Which groups are under engineering?", "group_children", {TEAM_A, TEAM_B}),
    ("Which systems are in artists?", "domain_systems", {PORTAL, AUDIO}),
    ("What depends on artists-db?", "resource_dependents", {LOOKUP}),
    ("Who is on the team that owns artist-lookup?", "component_owner_members", {NIGEL}),  # owned_by, then has_member
    ("Who is on the team that owns artist-api?", "api_owner_members", {BREANNA, JANELLE}),
    ("Who are the code owners of org/users.yaml?", "path_owner", {"codeowner:acme:team.acme.team-a", "codeowner:acme:user.breanna"}),
]


@pytest.mark.parametrize(("request_text", "pattern", "expected"), QUESTIONS, ids=[q[0] for q in QUESTIONS])
def test_a_list_or_reverse_question_answers_the_whole_set(acme: Path, request_text: str, pattern: str, expected: set[str]) -> None:
    trace = ask(request_text, acme)
    assert trace.outcome == "accepted_path", (trace.outcome, trace.reason)
    assert trace.interpretation is not None and trace.interpretation.pattern == pattern
    assert trace.answers is not None and trace.completeness is not None
    assert {a.id for a in trace.answers} == expected and trace.completeness.complete
    assert verified(trace, acme) == "verified"


@pytest.mark.parametrize("request_text", [
    "Which apis does artist-lookup consume?",  # artist-lookup provides artist-api; it consumes none
    "What does breanna.davison own?",  # she owns nothing
    "Which groups are under team-a?",  # a leaf team
])
def test_a_relation_the_records_do_not_state_is_refused(acme: Path, request_text: str) -> None:
    trace = ask(request_text, acme)
    assert trace.outcome != "accepted_path" and not trace.answers and trace.reason is not None


def _quoted(cat: Catalog, rel_id: str) -> tuple[str, str]:
    """(document, quoted line) just before a relation's clause in its supporting unit."""
    rel = cat.relations_by_id[rel_id]
    unit = cat.supporting_unit(rel)
    assert unit is not None
    doc = cat.documents_by_ref[rel.support.doc_ref]
    quotes = re.findall(r"^line (\d+): `(.*)`$", doc.text[unit.start:rel.support.span[0]], re.MULTILINE)
    assert quotes, rel_id
    return rel.support.document, quotes[-1][0]


def test_each_reverse_relation_quotes_the_line_of_its_forward_relation(tmp_path: Path) -> None:
    cat = imported(EXAMPLE / "records", tmp_path / "catalog.yaml", ["backstage", "codeowners"])
    pairs = [(rel, inv) for fields in bs.FIELDS.values() for _, rel, inv in fields.values()]
    pairs += [("code_owned_by", "code_owner_of"), ("governed_by", "governs")]
    inverse = {a: b for rel, inv in pairs for a, b in ((rel, inv), (inv, rel))}
    by_triple = {(r.subject, r.predicate, r.object): r.id for r in cat.relations}
    assert {"owned_by", "owner_of", "member_of", "has_member", "child_of", "parent_of", "consumes_api", "api_consumed_by",
            "provides_api", "api_provided_by", "depends_on", "dependency_of", "part_of", "has_part", "code_owned_by",
            "code_owner_of", "governed_by", "governs"} <= {p for _, p, _ in by_triple}
    for (s, p, o), rid in by_triple.items():
        other = by_triple.get((o, inverse[p], s))
        assert other is not None, rid
        assert _quoted(cat, rid) == _quoted(cat, other), (rid, other)


def test_the_pairs_have_their_cardinalities() -> None:
    card = {name: spec[0] for name, spec in {**bs.PREDICATES, **CODEOWNERS_PREDICATES}.items()}
    assert [n for n, c in card.items() if c == "functional"] == ["owned_by", "part_of", "subcomponent_of", "in_domain", "child_of"]
    for fields in bs.FIELDS.values():
        for _, rel, inv in fields.values():
            assert card[rel] == "many" or card[inv] == "many", (rel, inv)  # one side of each pair is a set
