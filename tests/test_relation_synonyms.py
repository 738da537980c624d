"""Everyday relation words a catalog did not declare (``chainret.query.lexicon`` ``NOUN_SYNONYMS`` /
``VERB_SYNONYMS``) and the bare ``which <noun> for X`` question (``PR-84: which contact?``).

A synonym is added only to the one predicate that has its key word: with two such predicates a
request using it stays refused, never read as one of them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from chainret.catalog.load import load_catalog
from chainret.catalog.models import Pattern, Predicate
from chainret.pipeline.ask import ask
from chainret.query.lexicon import Lexicon
from benchmarks.harness.catalogs import changed

ROOT = Path(__file__).resolve().parents[1]
SEED = load_catalog(ROOT / "catalogs" / "default.yaml")
RECORDS = load_catalog(ROOT / "fixtures" / "records" / "catalog.yaml")
# the records world with a one-hop owner pattern, so "responsible for" has a pattern to read as
OWNERS = changed(RECORDS, patterns=[*RECORDS.patterns, Pattern(
    name="owner_of_service", start_type="service", hops=["owned_by"], phrasings=["which team owns {service}"])])


def _got(request: str, catalog) -> tuple[str, str] | str:
    trace = ask(request, catalog, project=False)
    it = trace.interpretation
    return (it.pattern, it.start_id) if it is not None else str(trace.reason.code if trace.reason else trace.outcome)


@pytest.mark.parametrize("request_", [
    "who is the point of contact for PR-84",
    "contact person for PR-84",
    "PR-84: which contact?",
    "which contact for PR-84",
])
def test_contact_synonyms_and_bare_which(request_):
    assert _got(request_, SEED) == ("contact_for_project", "project:final:main")


@pytest.mark.parametrize("request_", [
    "which contact for PR-84 and PR-85",  # a word left over: no reading at all
    "PR-84: which contact not?",
    "who is the point of contact for PR-83",  # another entity's digits: never PR-84
])
def test_bare_which_and_synonyms_say_no_more_than_they_read(request_):
    assert _got(request_, SEED) != ("contact_for_project", "project:final:main")


@pytest.mark.parametrize("request_", [
    "which team is responsible for Checkout",
    "who is responsible for Checkout",
    "who maintains Checkout",
])
def test_owner_synonyms(request_):
    service = next(e.id for e in RECORDS.entities if e.name == "Checkout")
    assert _got(request_, OWNERS) == ("owner_of_service", service)


def test_owner_synonym_needs_an_owner_relation():
    # negative control: without the owner pattern the same words are refused, not read as the on-call chain
    assert _got("who is responsible for Checkout", RECORDS) == "no_pattern"


def _pred(name: str, domain: str, range_: str, **extra) -> Predicate:
    return Predicate(name=name, domain=domain, range=range_, cardinality="functional", **extra)


def test_a_synonym_goes_to_the_one_predicate_with_its_key_word():
    lex = Lexicon([_pred("owned_by", "service", "team"), _pred("contact", "org", "contact")])
    by = {pw.name: pw for pw in lex.preds}
    assert "is responsible for" in by["owned_by"].verbs and "maintains" in by["owned_by"].verbs
    assert ("point", "of", "contact") in by["contact"].nouns


def test_two_predicates_with_the_key_word_get_no_synonym():
    # owned_by and a declared "owns" on another predicate: "maintains" would read two ways, so neither has it
    lex = Lexicon([_pred("owned_by", "service", "team"), _pred("held_by", "asset", "team", verbs=["owns"])])
    assert not any("maintains" in pw.verbs or "is responsible for" in pw.verbs for pw in lex.preds)
    q = lex.question(["who", "maintains", "X"], ["who", "maintains", "x"])
    assert q == []


def test_a_synonym_declared_elsewhere_is_not_added():
    # the catalog gave "maintains" to another predicate: the table never adds it to owned_by as well
    lex = Lexicon([_pred("owned_by", "service", "team"), _pred("kept_by", "service", "team", verbs=["maintains"])])
    by = {pw.name: pw for pw in lex.preds}
    assert "maintains" not in by["owned_by"].verbs and "is responsible for" in by["owned_by"].verbs
