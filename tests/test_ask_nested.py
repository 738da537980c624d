"""A slot said as a request of its own ("the teams under Engineering", "Alice's teams", "the APIs that web-shop
consumes") composes the inner pattern's hops with the outer pattern's, and the engine answers the chain over
the inner set; a chain said as steps reads as its possessive question. Negative controls: an inner answer of
another type than the slot, a slot that is no request, readings that disagree, steps that are no steps."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from chainret.catalog.load import load_catalog
from chainret.pipeline.ask import ask
from chainret.query import nested as nested_mod
from chainret.query.nested import Inner, agreement_variants, inner_questions, steps_question
from chainret.store import resolve_catalog
from chainret.store.base import CatalogReader
from chainret.verify.replay import verify

ROOT = Path(__file__).resolve().parents[1]
U = "user:newcomer:default."


@pytest.fixture(scope="module")
def newcomer(tmp_path_factory: pytest.TempPathFactory) -> CatalogReader:
    """The newcomer example's imported history (its newest view answers)."""
    spec = importlib.util.spec_from_file_location("newcomer_score_nested", ROOT / "benchmarks" / "newcomer_score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return resolve_catalog(str(module.build_catalog(tmp_path_factory.mktemp("nested"))))


def _answers(trace) -> set[str]:  # noqa: ANN001
    return {a.id for a in trace.answers or ()} or ({trace.path_ids[-1]} if trace.path_ids else set())


@pytest.mark.parametrize(("words", "chain", "expected"), [
    ("Who is in the teams under Engineering?", ["parent_of", "has_member"],
     {U + n for n in ("alice", "bob", "carol", "dave", "erin", "frank")}),
    ("What do Alice's teams own?", ["member_of", "owner_of"],
     {"api:newcomer:default.payments-api", "component:newcomer:default.checkout-service", "component:newcomer:default.search",
      "component:newcomer:default.web-shop", "system:newcomer:default.storefront"}),
    ("Who owns the APIs that web-shop consumes?", ["consumes_api", "owned_by"],
     {"group:newcomer:default.team-platform", "group:newcomer:default.team-payments"}),
])
def test_a_slot_said_as_a_request_composes_the_chain(newcomer: CatalogReader, words: str, chain: list[str], expected: set[str]) -> None:
    trace = ask(words, newcomer)
    assert trace.outcome == "accepted_path" and trace.interpretation is not None
    assert trace.interpretation.reading == "nested" and trace.interpretation.predicates == chain
    assert _answers(trace) == expected and trace.completeness is not None and trace.completeness.complete
    parts = {m.part for m in trace.interpretation.match}
    assert {"pattern", "inner", "entity"} <= parts  # the trace shows the outer phrasing and the inner question
    assert verify(trace, newcomer).ok


def test_a_groups_kind_word_reads_the_declared_pattern_without_nesting(newcomer: CatalogReader) -> None:
    """"team" is a group's word (``lexicon.TYPE_WORDS``): "the team responsible for X" is the owner, composed into the
    declared pattern's own chain (it was read as a nested request before "team" was a group's word), same answers."""
    trace = ask("Who is on the team responsible for checkout-service?", newcomer)
    assert trace.interpretation is not None and trace.interpretation.predicates == ["owned_by", "has_member"]
    assert _answers(trace) == {U + "alice", U + "carol"} and verify(trace, newcomer).ok


@pytest.mark.parametrize("words", [
    "Who is on the APIs that web-shop consumes?",  # the inner answer (APIs) is no group: no member hop from it
    "What do Alice's pets own?",  # "pets" names no relation of Alice
    "Who owns the APIs that nobody-here consumes?",  # the inner entity is unknown
])
def test_a_slot_whose_inner_request_does_not_fit_is_not_answered(newcomer: CatalogReader, words: str) -> None:
    assert ask(words, newcomer).outcome != "accepted_path"


def test_inner_readings_that_disagree_are_refused(newcomer: CatalogReader, monkeypatch: pytest.MonkeyPatch) -> None:
    real = nested_mod.nested_readings

    def two(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - the real readings, and one more that differs
        found = real(*args, **kwargs)
        if not found:  # (an inner question's own slot: nothing to add)
            return found
        # (child_of: a chain member_of then has_member would go back over its inverse, a reading never taken)
        other = found[0].interpretation.model_copy(update={"predicates": ["child_of"]})
        return [*found, Inner(found[0].question, found[0].slot_words, found[0].outer_phrasing, found[0].outer_pattern, other)]

    words = "Who is in the teams under Engineering?"
    monkeypatch.setattr(nested_mod, "nested_readings", two)
    trace = ask(words, newcomer)
    assert trace.outcome == "refused" and trace.reason is not None and trace.reason.code == "ambiguous_reading"
    monkeypatch.setattr(nested_mod, "nested_readings", real)  # the control: one reading answers
    assert ask(words, newcomer).outcome == "accepted_path"


def test_inner_questions_and_agreement() -> None:
    assert inner_questions("the teams under Engineering")[0] == "which teams are under Engineering"
    assert "which teams is Alice in" in inner_questions("Alice's teams")
    assert "which API does order-service provide" in inner_questions("the API that order-service provides")
    assert inner_questions("web-shop") == [] and inner_questions("the web-shop") == []  # a name is no request
    vocab = {"owns", "own", "does", "depends"}
    assert agreement_variants("Which teams own X?", vocab) == ["Which team owns X?"]
    assert agreement_variants("What do X own?", vocab) == ["What does X own?"]
    assert agreement_variants("Which team owns X?", vocab) == []  # already the phrasings' number


def test_a_chain_said_as_steps_reads_as_its_possessive_question() -> None:
    cat = load_catalog("catalogs/default.yaml")
    assert steps_question("Find PR-84's operator, then its contact.") == "who is PR-84's operator's contact"
    trace = ask("Find PR-84's operator, then that operator's contact", cat)
    assert trace.outcome == "accepted_path" and trace.interpretation is not None and trace.interpretation.reading == "steps"
    assert trace.path_ids == ["project:final:main", "org:final:south", "contact:final:field"]
    assert verify(trace, cat).ok
    for words in ("Find PR-84's operator, then delete the catalog", "Find PR-84's operator, then the weather's contact"):
        assert ask(words, cat).outcome != "accepted_path"  # a step that does not name the previous result


def test_past_tense_variants_that_follow_one_chain_agree(newcomer: CatalogReader) -> None:
    """"owned" read as "owns" (a declared two-hop pattern) and as "own" (the same hops composed) mean the same."""
    trace = ask("Who was on the team that owned order-service on 2025-11-20?", newcomer)
    assert trace.outcome == "accepted_path" and trace.interpretation is not None
    assert trace.interpretation.predicates == ["owned_by", "has_member"] and trace.meta["view"].startswith("2025-11-03")
    assert _answers(trace) == {U + "alice", U + "bob"}


C = "component:newcomer:default."


@pytest.mark.parametrize(("words", "chain", "expected"), [
    # a relative clause that leaves its preposition at the end, without its "that"
    ("Who owns the resources that order-service depends on?", ["depends_on", "owned_by"], {"group:newcomer:default.team-platform"}),
    # a passive question over a slot said as a request
    ("Which APIs are consumed by components that team-web owns?", ["owner_of", "consumes_api"],
     {"api:newcomer:default.orders-api", "api:newcomer:default.payments-api"}),
    # a relation noun of its own after "of", in another spelling ("sub-teams": subgroups), as a bare noun phrase
    ("members of the sub-teams of Engineering", ["parent_of", "has_member"],
     {U + n for n in ("alice", "bob", "carol", "dave", "erin", "frank")}),
    # a head noun the chain's answers may be more than: read only where every answer is of the noun's type
    ("Which components depend on shop-db?", ["dependency_of"], {C + "order-service", C + "checkout-service"}),
    # a past participle and its agent after the head noun: "APIs owned by X" (the APIs X owns)
    ("Which components consume APIs owned by team-payments?", ["owner_of", "api_consumed_by"], {C + "web-shop"}),
    ("Who consumes APIs owned by team-platform?", ["owner_of", "api_consumed_by"],
     {C + "web-shop", C + "checkout-service", C + "legacy-reports"}),
    # a relative clause without its "that": "the components team-web owns"
    ("Which APIs are consumed by the components team-web owns?", ["owner_of", "consumes_api"],
     {"api:newcomer:default.orders-api", "api:newcomer:default.payments-api"}),
    # a possessive of what its owner owns: "team-web's components"
    ("What APIs do team-web's components consume?", ["owner_of", "consumes_api"],
     {"api:newcomer:default.orders-api", "api:newcomer:default.payments-api"}),
    ("Which APIs do the components of team-web consume?", ["owner_of", "consumes_api"],
     {"api:newcomer:default.orders-api", "api:newcomer:default.payments-api"}),
    # "stuff" as a head noun of no type, and "which people" as "who"
    ("Who owns the stuff that depends on shop-db?", ["dependency_of", "owned_by"],
     {"group:newcomer:default.team-payments", "group:newcomer:default.team-platform"}),
    ("Which people are on the teams under Engineering?", ["parent_of", "has_member"],
     {U + n for n in ("alice", "bob", "carol", "dave", "erin", "frank")}),
])
def test_everyday_two_hop_and_set_wordings(newcomer: CatalogReader, words: str, chain: list[str], expected: set[str]) -> None:
    trace = ask(words, newcomer)
    assert trace.outcome == "accepted_path" and trace.interpretation is not None, trace.reason
    assert trace.interpretation.predicates == chain
    assert _answers(trace) == expected and trace.completeness is not None and trace.completeness.complete
    assert verify(trace, newcomer).ok


@pytest.mark.parametrize("words", [
    "Who owns the components that order-service depends on?",  # order-service depends on a resource only: no component's owner
    "Which resources depend on shop-db?",  # the things that depend on shop-db are components
    "Which weather depends on shop-db?",  # a head noun that names no type is no head to drop
])
def test_a_head_noun_narrower_than_the_answers_is_refused_not_a_subset(newcomer: CatalogReader, words: str) -> None:
    """Negative controls: a reading that drops its head noun is taken only where the view's answers are all of its
    type; where they are not (or none is), the request is refused rather than answered with other things."""
    assert ask(words, newcomer).outcome != "accepted_path"


def test_a_head_noun_over_a_mixed_set_is_answered_with_its_type_only(newcomer: CatalogReader) -> None:
    """team-platform owns an API and a resource too: "which components are owned by team-platform" was refused (never
    all it owns); now the answers are what it owns of the components (``interpretation.answer_types``), counted so."""
    trace = ask("Which components are owned by team-platform?", newcomer)
    assert trace.outcome == "accepted_path" and trace.interpretation is not None
    assert trace.interpretation.answer_types == ["component"]
    assert _answers(trace) == {C + "order-service"}
    assert trace.completeness is not None and trace.completeness.complete and trace.completeness.eligible == 1
    assert verify(trace, newcomer).ok


def test_the_head_check_is_what_refuses_a_mixed_answer(newcomer: CatalogReader, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the check switched off, the narrower head noun would be answered with everything the chain gives."""
    from chainret.query import interpret as interpret_mod

    monkeypatch.setattr(interpret_mod, "_head_holds", lambda *a, **k: True)
    trace = ask("Who owns the components that order-service depends on?", newcomer)
    assert trace.outcome == "accepted_path"  # (the resource's owner, shown as if it owned a component)


def test_slot_heads_and_headless_questions() -> None:
    assert nested_mod.slot_head("the resources that X depends on") == "resources"
    assert nested_mod.slot_head("Alice's teams") == "teams" and nested_mod.slot_head("web-shop") is None
    assert "what does X depend on" in inner_questions("the resources that X depends on")
    assert "what are the subgroups of X" in inner_questions("the subgroups of X")
    assert nested_mod.headless("which components depend on X") == ("components", ["what depend on X", "what depends on X"])
    assert nested_mod.headless("which is X") is None and nested_mod.headless("what does X own") is None


@pytest.mark.parametrize(("words", "chain"), [
    ("Which teams are part of Engineering?", ["parent_of"]),
    ("Who code-owned db/migrations/001_init.sql?", ["governed_by", "code_owned_by"]),
    ("who ownes checkout-service?", ["owned_by"]),  # a verb's -s misspelt
])
def test_everyday_frames_read_over_the_newcomers_records(newcomer: CatalogReader, words: str, chain: list[str]) -> None:
    trace = ask(words, newcomer)
    assert trace.outcome == "accepted_path" and trace.interpretation is not None, trace.reason
    assert trace.interpretation.predicates == chain and verify(trace, newcomer).ok
    # negative control: the same frame over a system, which has no groups under it, is not read
    assert ask("Which teams are part of Storefront?", newcomer).outcome != "accepted_path"


@pytest.mark.parametrize(("words", "chain", "expected"), [
    ("Alice's teams?", ["member_of"], None),
    ("the APIs that web-shop consumes", ["consumes_api"], {"api:newcomer:default.orders-api", "api:newcomer:default.payments-api"}),
])
def test_a_bare_noun_phrase_reads_as_the_question_it_stands_for(newcomer: CatalogReader, words: str, chain: list[str],
                                                               expected: set[str] | None) -> None:
    trace = ask(words, newcomer)
    assert trace.outcome == "accepted_path" and trace.interpretation is not None, trace.reason
    assert trace.interpretation.predicates == chain and verify(trace, newcomer).ok
    if expected is not None:
        assert _answers(trace) == expected


def test_a_bare_noun_phrase_keeps_its_head_noun(newcomer: CatalogReader) -> None:
    """Negative control: team-platform owns a component, an API and a resource, so "the components that team-platform
    owns" is never answered with all three: only with the component (its head noun's type, ``answer_types``)."""
    trace = ask("the components that team-platform owns", newcomer)
    assert trace.outcome == "accepted_path" and _answers(trace) == {C + "order-service"}
    assert trace.interpretation is not None and trace.interpretation.answer_types == ["component"]
    assert len(_answers(ask("what does team-platform own", newcomer))) == 4  # the question without the noun: all of them


# -- reduced clauses and possessives of ownership (issue 44) ------------------------------------------------
@pytest.mark.parametrize("words", [
    "Who consumes components owned by team-platform?",  # team-platform owns an API and a resource too: no components only
    "Which APIs are consumed by the systems team-web owns?",  # what team-web owns is not all systems
    "What APIs do team-web's systems consume?",  # the same, said as a possessive
    "Which APIs do the systems of team-web consume?",  # and with "of"
    "Who is on the stuff that web-shop consumes?",  # the inner answers are APIs: no members
    "Which people are on the weather?",  # the frame reads, the words name nothing
])
def test_a_reduced_clause_or_possessive_that_does_not_fit_is_not_answered(newcomer: CatalogReader, words: str) -> None:
    """Negative controls: the new noun phrases keep the head-noun check and the slot's type."""
    assert ask(words, newcomer).outcome != "accepted_path"


def test_the_head_check_is_what_refuses_a_participle_of_the_wrong_noun(newcomer: CatalogReader,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the check switched off, "components owned by team-platform" would stand for all it owns (its API's
    consumers answered as if a component's)."""
    from chainret.query import interpret as interpret_mod

    monkeypatch.setattr(interpret_mod, "_head_holds", lambda *a, **k: True)
    assert ask("Who consumes components owned by team-platform?", newcomer).outcome == "accepted_path"


def test_participles_reduced_relatives_and_possessives_as_inner_questions() -> None:
    heads = frozenset({"apis", "components", "teams"})
    assert "which APIs does data services own" in inner_questions("APIs owned by data services", heads)
    assert "what does data services own" in inner_questions("APIs owned by data services", heads)
    assert nested_mod.slot_head("APIs owned by data services") == "apis"
    assert inner_questions("the components HPC Ops owns", heads)[0] == "which components does HPC Ops own"
    assert nested_mod.slot_head("the components HPC Ops owns") == "components"
    assert "what does team-web own" in inner_questions("team-web's components", heads)
    # negative controls: a head noun the catalog does not ask with, a name of several words, no agent after "by"
    assert inner_questions("the weather HPC Ops owns", heads) == []
    assert inner_questions("the teams Data Services", heads) == [] and nested_mod.slot_head("the teams Data Services") is None
    assert inner_questions("APIs owned by", heads) == []
    assert inner_questions("the components HPC Ops owns") == []  # a clause without "that" only after a known head noun


def test_a_question_that_drops_a_relation_noun_is_not_read_for_it(newcomer: CatalogReader) -> None:
    """A possessive may say what its owner owns ("team-web's components": what does team-web own), but a relation noun
    dropped is never read so ("engineering's subgroups" is not "what does engineering own"); a type noun dropped is
    checked by the head check, a generic one ("stuff") stands for anything. Negative control beside each."""
    from chainret.query.interpret import _head_said

    cv = newcomer.view(None)
    assert not _head_said("subgroups", "what does engineering own", cv)
    assert _head_said("subgroups", "what are the subgroups of engineering", cv)  # the noun kept
    assert _head_said("components", "what does team-web own", cv)  # a type: the head check decides
    assert _head_said("stuff", "what calls orders-api", cv)
    assert ask("What APIs do engineering's subgroups consume?", newcomer).outcome != "accepted_path"


def test_a_relative_clause_inside_a_modifier_belongs_to_its_own_noun(newcomer: CatalogReader) -> None:
    """"members of the team that owns X": the clause is the team's, the phrase's head is "members" (it was read as
    "who owns X", the team shown as if its members)."""
    assert nested_mod.slot_head("members of the team that owns web-shop") == "members"
    assert "who owns web-shop" not in inner_questions("members of the team that owns web-shop")
    trace = ask("members of the team that owns web-shop", newcomer)
    assert trace.outcome == "accepted_path" and trace.interpretation is not None
    assert trace.interpretation.predicates == ["owned_by", "has_member"] and _answers(trace) == {U + "alice", U + "bob"}
    # negative control: a clause right after its head noun is still the head's
    assert nested_mod.slot_head("the team that owns web-shop") == "team"


def test_a_relative_clause_after_a_participles_by_belongs_to_the_agent(newcomer: CatalogReader) -> None:
    """"APIs consumed by the components that team-web owns": the clause is the agent's, the phrase's head is "APIs"
    (it was read as "components", and the bare phrase was left unread); the phrase answers as its full question does."""
    assert nested_mod.slot_head("APIs consumed by the components that team-web owns") == "apis"
    full = ask("which APIs are consumed by the components that team-web owns", newcomer)
    bare = ask("APIs consumed by the components that team-web owns", newcomer)
    assert full.outcome == bare.outcome == "accepted_path" and _answers(bare) == _answers(full) != set()
    assert verify(bare, newcomer).ok
    # negative controls: a clause right after its head noun is still the head's; an agent that names nothing
    assert nested_mod.slot_head("the components that team-web owns") == "components"
    assert ask("APIs consumed by the weather that team-web owns", newcomer).outcome != "accepted_path"


def test_a_chain_that_returns_over_its_start_is_read_where_the_head_noun_leaves_the_start_out(newcomer: CatalogReader) -> None:
    """"which APIs does the team that owns order-service own": owner, then what it owns, back over order-service; the
    engine never enters order-service twice, which a list of APIs never holds anyway. The answers are team-platform's
    APIs, as the question by its name gives."""
    trace = ask("which APIs does the team that owns order-service own", newcomer)
    assert trace.outcome == "accepted_path" and verify(trace, newcomer).ok
    assert _answers(trace) == _answers(ask("which APIs does team-platform own", newcomer)) != set()
    # negative controls: where the start could be an answer (a component, or anything), the chain is not taken
    assert ask("which components does the team that owns order-service own", newcomer).outcome != "accepted_path"
    assert ask("what does the team that owns order-service own", newcomer).outcome != "accepted_path"
