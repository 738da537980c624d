"""Catalog models: JSON round trips (hypothesis), unit derivation, clause parsing, frozen records."""

from __future__ import annotations

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chainret.catalog.cases import Case
from chainret.catalog.models import (
    Catalog,
    Entity,
    Pattern,
    Predicate,
    Relation,
    SourceDocument,
    Support,
    View,
    clause_text,
    derive_units,
    parse_clause,
    sha256_digest,
)

word = st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True)
texty = st.text(st.characters(blacklist_categories=("Cs",)), max_size=200)


@st.composite
def entities(draw, world: str | None = None) -> Entity:
    etype, name = draw(word), draw(word)
    w = world or draw(word)
    return Entity(id=f"{etype}:{w}:{name}", type=etype, name=draw(texty.filter(str.strip)),
                  aliases=draw(st.lists(texty, max_size=3)))


@st.composite
def documents(draw) -> SourceDocument:
    text = draw(texty)
    vis = draw(st.sampled_from(["public", "restricted", "removed"]))
    return SourceDocument(source=draw(word), document=draw(word) + ".md", version="v" + str(draw(st.integers(0, 9))),
                          text=text, digest=sha256_digest(text), visibility=vis,
                          principals=draw(st.lists(word, max_size=2)) if vis == "restricted" else [])


@st.composite
def relations(draw) -> Relation:
    s, p, o = draw(word), draw(word), draw(word)
    start = draw(st.integers(0, 500))
    return Relation(id="rel-" + draw(word), subject=f"a:w:{s}", predicate=p, object=f"b:w:{o}",
                    support=Support(source=draw(word), document="d.md", version="v1",
                                    digest=draw(st.one_of(st.none(), st.just(sha256_digest(s)))),
                                    span=(start, start + draw(st.integers(0, 80))), quote=clause_text(s, p, o)))


@st.composite
def catalogs(draw) -> Catalog:
    start = draw(word)
    return Catalog(
        world="w",
        entities=draw(st.lists(entities(world="w"), max_size=4)),
        predicates=[Predicate(name=draw(word), domain=start, range=draw(word),
                              cardinality=draw(st.sampled_from(["functional", "many"])))],
        documents=draw(st.lists(documents(), max_size=3)),
        relations=draw(st.lists(relations(), max_size=3)),
        views=[View(name=draw(word), order=draw(st.integers(0, 5)), current=draw(st.booleans()),
                    documents=["src/doc.md@v1"])],
        patterns=[Pattern(name=draw(word), start_type=start, hops=[draw(word)],
                          phrasings=[f"which thing serves {{{start}}}"])],
    )


@st.composite
def cases(draw) -> Case:
    outcome = draw(st.sampled_from(["accepted_path", "no_path", "no_pattern", "refused"]))
    anchors = draw(st.lists(st.one_of(st.none(), word), min_size=1, max_size=3))
    expect: dict = {"outcome": outcome}
    if outcome == "accepted_path":
        anchors = [a or "r" for a in anchors]
        expect |= {"relations": anchors, "bridges": ["x:w:" + a for a in anchors], "packet_chars": draw(st.integers(1, 900))}
    elif outcome == "no_path":
        expect |= {"failed_hop": draw(st.integers(1, 3)), "reason": "no_supported_relation",
                   "observed": draw(st.lists(st.booleans(), min_size=len(anchors), max_size=len(anchors)))}
    elif outcome == "refused":
        expect["reason"] = "ambiguous_alias"
    overlay = draw(st.one_of(st.none(), st.just({"remove": ["a/b.md@v1"],
                                                  "restrict": [{"document": "a/c.md@v2", "principals": ["auditor"]}]})))
    return Case.model_validate({
        "id": draw(word), "request": draw(texty.filter(str.strip)), "view": draw(st.one_of(st.none(), word)),
        "group": draw(st.sampled_from(["positive", "challenge", "other"])), "anchors": anchors,
        "budget": draw(st.one_of(st.none(), st.just({"max_searches": 3}))), "overlay": overlay, "expect": expect})


@settings(max_examples=60, deadline=None)
@given(st.one_of(entities(), documents(), relations()))
def test_records_round_trip_through_json(record) -> None:
    assert type(record).model_validate_json(record.model_dump_json()) == record


@settings(max_examples=30, deadline=None)
@given(catalogs())
def test_catalog_round_trips_with_stable_digest(cat: Catalog) -> None:
    again = Catalog.model_validate_json(cat.model_dump_json())
    assert again == cat and again.digest() == cat.digest()


@settings(max_examples=60, deadline=None)
@given(cases())
def test_cases_round_trip_through_json(case: Case) -> None:
    assert Case.model_validate_json(case.model_dump_json()) == case


@settings(max_examples=200, deadline=None)
@given(st.text(st.sampled_from("ab \n\r\t"), max_size=60))
def test_units_partition_the_non_blank_text(text: str) -> None:
    doc = SourceDocument(source="s", document="d", version="v1", text=text, digest=sha256_digest(text))
    units = derive_units(doc)
    covered = set()
    for u in units:
        assert text[u.start:u.end] == u.text and u.text and u.text[-1] not in "\r\n"
        assert all(line.strip() for line in u.text.splitlines())
        covered.update(range(u.start, u.end))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())
    assert [u.start for u in units] == sorted(u.start for u in units)


def test_clause_parsing_is_exact() -> None:
    assert parse_clause("REL a:w:x | p | b:w:y") == ("a:w:x", "p", "b:w:y")
    for bad in ("REL a:w:x | p", "REL a:w:x |  p | b:w:y", "rel a:w:x | p | b:w:y", "REL a:w:x | p | b:w:y\n"):
        assert parse_clause(bad) is None


def test_records_are_frozen_and_strict() -> None:
    ent = Entity(id="org:final:north", type="org", name="Rowan")
    with pytest.raises(pydantic.ValidationError):
        ent.name = "Other"  # type: ignore[misc]
    with pytest.raises(pydantic.ValidationError, match="does not match the ID prefix"):
        Entity(id="org:final:north", type="project", name="Rowan")
    with pytest.raises(pydantic.ValidationError, match="exactly one slot"):
        Pattern(name="p", start_type="project", hops=["x"], phrasings=["which contact serves {org}"])


def test_an_edited_copy_forgets_the_originals_lookups() -> None:
    """model_copy(update=...) must not answer from the original's cached lookups (they live in __dict__)."""
    from pathlib import Path

    from chainret.catalog.load import load_catalog

    cat = load_catalog(Path(__file__).parents[1] / "fixtures" / "seed" / "catalog.yaml")
    gone = cat.entities[0]
    assert gone.id in cat.entities_by_id and cat.name_lookup  # the lookups are built on the original
    before = cat.digest()
    edited = cat.model_copy(update={"entities": cat.entities[1:]})
    assert gone.id not in edited.entities_by_id
    assert edited.digest() != before
    assert cat.digest() == before and gone.id in cat.entities_by_id  # the original keeps its own
    same = cat.model_copy()
    assert same.digest() == before
