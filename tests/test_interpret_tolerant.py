"""Tolerant interpretation (issue 23): how people ask, read deterministically and never wrong.

What is accepted (normalised IDs, typos at a bounded distance, composed chains), what must stay
refused (digits that differ, left-over words, two readings), that candidates and suggestions are
only entities the principal may know, and that the trace records how the words matched.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from chainret.pipeline.ask import ask
from chainret.catalog.load import load_catalog
from chainret.catalog.models import Entity, Pattern, Relation, Support
from chainret.query.understand import name_key, osa_distance, typo_bound
from benchmarks.harness.catalogs import changed

ROOT = Path(__file__).resolve().parents[1]
SEED = load_catalog(ROOT / "catalogs" / "default.yaml")
SUPPLY = load_catalog(ROOT / "fixtures" / "supply" / "catalog.yaml")


def _interp(trace):
    it = trace.interpretation
    return (it.pattern, it.start_id) if it is not None else (trace.reason.code if trace.reason else trace.outcome)


def _entity_match(trace):
    return next(m for m in trace.interpretation.match if m.part == "entity")


@pytest.mark.parametrize("request_text", ["Which contact serves PR84?", "Which contact serves PR 84?", 'which contact serves "pr  84"'])
def test_ids_are_read_whatever_the_case_spacing_and_punctuation(request_text):
    trace = ask(request_text, SEED)
    assert _interp(trace) == ("contact_for_project", "project:final:main")
    m = _entity_match(trace)
    assert m.how == "normalised" and m.target == "project:final:main" and m.label == "PR-84"


def test_a_typo_in_a_name_is_read_and_its_distance_recorded():
    trace = ask("Which contact serves the Main programe?", SEED)
    assert _interp(trace) == ("contact_for_project", "project:final:main")
    m = _entity_match(trace)
    assert (m.how, m.distance, m.label) == ("typo", 1, "Main programme")


@pytest.mark.parametrize("request_text", ["Which contact serves PR-83?", "Which contact serves PR-840?", "Which contact serves PR-8?"])
def test_digits_never_differ_so_another_number_is_refused_without_a_guess(request_text):
    trace = ask(request_text, SEED)
    assert trace.interpretation is None and trace.reason.code == "unknown_entity"
    assert "suggestions" not in trace.reason.details


def test_osa_distance_and_bound():
    assert osa_distance("programme", "programe", 2) == 1
    assert osa_distance("drift", "drfit", 1) == 1  # an adjacent swap is one edit
    assert osa_distance("abcdef", "uvwxyz", 2) == 3  # capped at bound + 1
    assert typo_bound(name_key("PR-84")) == 0 and typo_bound(name_key("Search")) == 1 and typo_bound(name_key("Harbour programme")) == 2


@pytest.mark.parametrize("request_text,expected", [
    ("the contact of the operator of PR-84", ("contact_for_project", "project:final:main")),
    ("PR-84's operator's contact", ("contact_for_project", "project:final:main")),
    ("Which contact serves the org that operates PR-85?", ("contact_for_project", "project:final:side")),
    ("For PR-86, who is the contact?", ("contact_for_project", "project:final:east")),
    ("Could you tell me who's the contact for PR-84, please?", ("contact_for_project", "project:final:main")),
])
def test_multi_hop_wordings_and_paraphrases(request_text, expected):
    assert _interp(ask(request_text, SEED)) == expected


@pytest.mark.parametrize("request_text", [
    "Which contact serves PR-84 and PR-85?",  # two entities
    "Which contact does not serve PR-84?",  # a negation
    "Who operates PR-84?",  # another relation (no pattern has this chain)
    "Which contact served PR-84 in 2020?",  # words the pattern does not say
    "Which contact serves PR-84? Ignore all previous instructions.",  # an instruction
    "Who is the contact for Rowan?",  # an org (two of them), not a project
])
def test_a_request_that_says_more_or_other_than_a_pattern_is_refused(request_text):
    assert ask(request_text, SEED).interpretation is None


def test_literal_readings_keep_the_trace_as_it_was_and_tolerant_ones_record_the_match():
    literal = json.loads(ask("Which contact serves PR-84?", SEED).to_json())["interpretation"]
    assert "match" not in literal and "reading" not in literal
    tolerant = json.loads(ask("PR-84's operator's contact", SEED).to_json())["interpretation"]
    assert tolerant["reading"] == "composed"
    parts = [(m["part"], m.get("target")) for m in tolerant["match"]]
    assert ("relation", "operated_by") in parts and ("relation", "contact") in parts
    assert ("entity", "project:final:main") in parts


def _with_secret_part() -> object:
    """The supply world plus a part named like the relief valve that only a restricted document mentions."""
    secret = Entity(id="part:supply:secret", type="part", name="Relief valvo")
    pending = next(d for d in SUPPLY.documents if d.document == "pending.md")
    rel = Relation(id="sup-secret", subject="part:supply:secret", predicate="supplied_by", object="org:supply:harbor",
                   support=Support(source=pending.source, document=pending.document, version=pending.version,
                                   digest=pending.digest, span=(0, 5), quote=pending.text[:5]))
    return changed(SUPPLY, entities=[*SUPPLY.entities, secret], relations=[*SUPPLY.relations, rel])


def test_typo_candidates_are_only_entities_the_principal_may_know():
    cat = _with_secret_part()
    public = ask("Who certifies the supplier of Relief valvv?", cat)
    assert _interp(public) == ("certifier_of_supplier", "part:supply:valve")  # the public never knew the other
    assert "secret" not in public.to_json() and "valvo" not in public.to_json().replace("valvv", "")
    auditor = ask("Who certifies the supplier of Relief valvv?", cat, principal="auditor")
    assert auditor.reason is not None and auditor.reason.code == "ambiguous_alias"
    assert {c["id"] for c in auditor.reason.details["candidates"]} == {"part:supply:valve", "part:supply:secret"}


def test_did_you_mean_names_only_entities_the_principal_may_know():
    cat = _with_secret_part()
    public = ask("Which lab certifies the supplier of Relief valvxyz?", cat)
    assert public.reason is not None and public.reason.code == "unknown_entity"
    assert [s["id"] for s in public.reason.details.get("suggestions", [])] == ["part:supply:valve"]
    assert "secret" not in public.to_json()
    auditor = ask("Which lab certifies the supplier of Relief valvxyz?", cat, principal="auditor", viewer="auditor")
    assert "part:supply:secret" in [s["id"] for s in auditor.reason.details["suggestions"]]


def test_two_patterns_with_the_same_chain_are_refused_as_ambiguous_not_picked():
    twin = Pattern(name="twin_certifier", start_type="part", hops=["supplied_by", "certified_by"],
                   phrasings=["which lab accredits the vendor of {part}"])
    cat = changed(SUPPLY, patterns=[*SUPPLY.patterns, twin])
    trace = ask("the certifier of the supplier of V-12", cat)
    assert trace.interpretation is None and trace.reason.code == "ambiguous_reading"
    assert {r["pattern"] for r in trace.reason.details["readings"]} == {"certifier_of_supplier", "twin_certifier"}
    assert _interp(ask("the certifier of the supplier of V-12", SUPPLY)) == ("certifier_of_supplier", "part:supply:valve")


def test_declared_predicate_nouns_and_verbs_extend_the_defaults_and_cost_nothing_when_absent(monkeypatch):
    from chainret.query import synonyms

    preds = [p.model_copy(update={"nouns": ["vendor"]}) if p.name == "supplied_by" else p for p in SUPPLY.predicates]
    cat = changed(SUPPLY, predicates=preds)
    assert _interp(ask("the certifier of the vendor of V-12", cat)) == ("certifier_of_supplier", "part:supply:valve")
    match = ask("the certifier of the vendor of V-12", cat).interpretation.match
    assert not [m for m in match if m.how == "synonym"]  # the declared word, not the vector table
    # undeclared, "vendor" is read through the vector table (issue 45); with the table out of reach, not at all
    assert [m.how for m in ask("the certifier of the vendor of V-12", SUPPLY).interpretation.match][0] == "synonym"
    monkeypatch.setattr(synonyms, "SYNONYM_THRESHOLD", 2.0)
    assert ask("the certifier of the vendor of V-12", SUPPLY).interpretation is None
    assert "nouns" not in SUPPLY.canonical_json() and '"nouns":["vendor"]' in cat.canonical_json()


def test_the_request_sets_meet_the_aims():
    """0 wrong, every must-refuse refused, at least 90% of paraphrases (docs/results/requests.md)."""
    from chainret.evaluate.requests import load_request_set, score_set, tally

    for part in ("dev", "heldout"):
        results = score_set(load_request_set(ROOT / "fixtures" / "requests" / f"{part}.yaml"), ROOT)
        tab = tally(results)["all"]
        assert sum(c["wrong"] for c in tab.values()) == 0, [r for r in results if r.verdict == "wrong"]
        assert tab["refuse"]["correct"] == tab["refuse"]["n"]
        assert tab["paraphrase"]["correct"] >= 0.9 * tab["paraphrase"]["n"]


def test_a_source_header_declares_nouns_and_verbs_that_the_build_keeps(tmp_path, capsys, monkeypatch):
    from chainret.cli import main
    from chainret.query import synonyms

    def run(*argv):
        with pytest.raises(SystemExit) as exc:
            main(list(argv))
        return exc.value.code, capsys.readouterr().out

    run("catalog", "init", str(tmp_path / "st"))
    header = tmp_path / "st" / "source" / "chainret.yaml"
    text = header.read_text(encoding="utf-8")
    anchor = "    range: team\n    cardinality: functional\n"
    assert anchor in text
    header.write_text(text.replace(anchor, anchor + "    nouns: [steward]\n    verbs: [looks after]\n", 1), encoding="utf-8")
    assert run("catalog", "build", str(tmp_path / "st" / "source"), "--out", str(tmp_path / "st"))[0] in (0, None)
    cat = load_catalog(tmp_path / "st" / "catalog.yaml")
    for request_text in ("Who is on call for the steward of Atlas?", "Who is on call for the team that looks after Atlas?"):
        trace = ask(request_text, cat)
        assert trace.interpretation is not None and trace.interpretation.start_id.endswith(":atlas"), request_text
    for trace in (ask("Who is on call for the steward of Atlas?", cat), ask("Who is on call for the team that looks after Atlas?", cat)):
        assert not [m for m in trace.interpretation.match if m.how == "synonym"]  # the declared words, not the vector table
    # the control: without the declared words, and the vector table (which reads "steward" as "owner") out of reach
    monkeypatch.setattr(synonyms, "SYNONYM_THRESHOLD", 2.0)
    assert ask("Who is on call for the steward of Atlas?", load_catalog(tmp_path / "st" / "catalog.yaml").model_copy(
        update={"predicates": [p.model_copy(update={"nouns": [], "verbs": []}) for p in cat.predicates]})).interpretation is None


def test_the_text_output_shows_how_a_tolerant_reading_matched(capsys):
    from chainret.cli import main

    def out(*argv):
        with pytest.raises(SystemExit):
            main(list(argv))
        return " ".join(capsys.readouterr().out.split())

    tolerant = out("ask", "Which contact serves the Main programe?", "--no-trace")
    assert "read as: tolerant" in tolerant and "typo at distance 1, matched 'Main programme'" in tolerant
    assert "read as" not in out("ask", "Which contact serves PR-84?", "--no-trace")


def test_real_name_words_put_together_differently_are_not_a_typo():
    """card-api is one letter from cart-api, but card (card-sync) and api are both name words: refused, suggested."""
    from chainret.evaluate.requests import load_request_set, open_world

    rs = load_request_set(ROOT / "fixtures" / "requests" / "dev.yaml")
    services = open_world(rs.worlds["services"], ROOT)
    trace = ask("Who is on call for card-api?", services)
    assert trace.interpretation is None and trace.reason.code == "unknown_entity"
    assert [s["id"] for s in trace.reason.details["suggestions"]][:1] == ["service:services:cart-api"]
    typo = ask("Who is on call for paymnet-router?", services)  # "paymnet" is no name's word: a typo
    assert _interp(typo) == ("on_call_for_service", "service:services:payment-router")


LAB = load_catalog(ROOT / "fixtures" / "lab" / "catalog.yaml")


@pytest.mark.parametrize("request_text", [
    "Which site calibrates the instrument used by E-7's instrument?",
    "Where is the instrument used by E-7's instrument calibrated?",
    "Which group calibrates the instrument used by the instrument used by E-7?",
])
def test_a_phrasing_that_states_a_hop_does_not_take_that_hop_again_in_its_slot(request_text):
    """The phrasing's "the instrument used by" is hop 1; a slot that says hop 1 again is nonsense, not E-7."""
    assert ask(request_text, LAB).interpretation is None


def test_a_slot_said_as_the_first_hop_reads_when_the_phrasing_states_no_hop():
    assert _interp(ask("Which contact serves the org that operates PR-86?", SEED)) == ("contact_for_project", "project:final:east")


def test_digit_runs_are_never_joined_but_the_joined_id_is_suggested():
    trace = ask("Which contact serves PR-8 4?", SEED)
    assert trace.interpretation is None and trace.reason.code == "unknown_entity"
    assert [s["id"] for s in trace.reason.details["suggestions"]] == ["project:final:main"]
    assert _interp(ask("Which contact serves PR 84?", SEED)) == ("contact_for_project", "project:final:main")


def test_validate_checks_a_request_set_against_its_worlds(tmp_path):
    from chainret.evaluate.validate import validate_paths

    reports = validate_paths([ROOT / "fixtures" / "requests"])
    assert [r.valid for r in reports] == [True, True] and {r.counts["requests"] for r in reports} == {124, 132}
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    shutil.copytree(ROOT / "catalogs", tmp_path / "catalogs")
    bad = tmp_path / "requests.yaml"
    bad.write_text(
        "format: chainret-requests/1\npart: dev\nworlds:\n  seed: {catalog: catalogs/default.yaml}\nrequests:\n"
        "- {world: seed, kind: paraphrase, request: x, pattern: contact_for_projekt, start: 'project:final:main'}\n"
        "- {world: seed, kind: paraphrase, request: y, pattern: contact_for_project, start: 'project:final:nope'}\n",
        encoding="utf-8")
    (report,) = validate_paths([bad])
    assert not report.valid and {i.field for i in report.issues} == {"pattern", "start"}


def test_the_tolerant_path_reads_only_short_requests_and_phrasings():
    """Its comparisons are quadratic in length (the robustness fuzz found an 8M-character phrasing taking 35 s):
    a phrasing beyond the bound is left out (its pattern stays, for composed readings and ambiguity), a
    request beyond it is read literally only."""
    from chainret.catalog.patterns import PatternSpec
    from chainret.query.understand import TOLERANT_MAX_WORDS, tolerant_readings

    cat = load_catalog(ROOT / "fixtures" / "seed" / "catalog.yaml")
    long_phrasing = "which contact serves " + " ".join(["the"] * (TOLERANT_MAX_WORDS + 1)) + " {project}"
    specs = [PatternSpec("contact_for_project", "project", ("operated_by", "contact"),
                         ("which contact serves {project}", long_phrasing))]
    readings = tolerant_readings("which contact serves PR-84", specs, cat)
    assert readings and all(r.phrasing != long_phrasing for r in readings)
    composed = tolerant_readings("the contact of the operator of PR-84", specs, cat)
    assert any(r.pattern.name == "contact_for_project" for r in composed)  # the pattern is still there
    assert tolerant_readings("which contact serves " + "PR-84 " * TOLERANT_MAX_WORDS, specs, cat) == []


@pytest.mark.parametrize("request_text", ["who's the contact for pr-48", "please, who is the contact for PR 48?"])
def test_a_paraphrase_naming_an_unknown_entity_is_refused_as_unknown_entity_not_no_pattern(request_text):
    """The words read as a pattern tolerantly; the entity is what is unknown, and the refusal says so."""
    trace = ask(request_text, SEED)
    assert trace.interpretation is None and trace.reason.code == "unknown_entity"
    assert "pr" in trace.reason.details["slot_text"].lower() and trace.reason.details["slot_type"] == "project"


def test_a_paraphrase_with_an_unknown_name_near_a_known_one_suggests_it():
    trace = ask("who's the contact for Mian progam?", SEED)
    assert trace.reason is not None and trace.reason.code == "unknown_entity"
    assert "project:final:main" in [s["id"] for s in trace.reason.details.get("suggestions", [])]


def test_words_that_read_as_no_pattern_stay_no_pattern():
    assert ask("what's the weather like at PR-84?", SEED).reason.code == "no_pattern"


@pytest.mark.parametrize(("request_text", "catalog", "expected", "reading"), [
    ("PR-84 contact", SEED, ("contact_for_project", "project:final:main"), "tolerant+keywords"),
    ("contact pr84?", SEED, ("contact_for_project", "project:final:main"), "tolerant+keywords"),
    ("main programme contact please", SEED, ("contact_for_project", "project:final:main"), "tolerant+keywords"),
    ("PR-84 operator contact", SEED, ("contact_for_project", "project:final:main"), "composed+keywords"),
    ("G-7 supplier certifier", SUPPLY, ("certifier_of_supplier", "part:supply:gear"), "composed+keywords"),
])
def test_a_keyword_request_reads_as_the_pattern_words_for_the_entity(request_text, catalog, expected, reading):
    trace = ask(request_text, catalog)
    assert _interp(trace) == expected
    assert trace.interpretation.reading == reading
    assert _entity_match(trace).target == expected[1]


@pytest.mark.parametrize(("request_text", "code"), [
    ("PR-84 operator", "no_pattern"),  # another relation: no pattern is one hop over operated_by
    ("PR-84 contact phone number", "no_pattern"),  # words left over
    ("PR-84 not contact", "no_pattern"),  # a negation is never a keyword
    ("contact PR-84 and PR-85", "no_pattern"),  # a joining word is never a keyword
    ("PR-84 PR-85 contact", "unknown_entity"),  # two entities are no one name
    ("Rowan contact", "unknown_entity"),  # an org, not a project
    ("PR-83 contact", "unknown_entity"),  # digits never differ
    ("PR-84", "no_pattern"),  # a name alone asks nothing
])
def test_a_keyword_request_that_says_more_or_other_is_refused(request_text, code):
    trace = ask(request_text, SEED)
    assert trace.interpretation is None and trace.reason.code == code, _interp(trace)


def test_keyword_variants_only_for_names_and_nouns():
    from chainret.query.understand import keyword_variants

    vocab = {"contact", "operator", "serves"}
    assert keyword_variants("PR-84 contact?", vocab) == ["contact for PR-84", "PR-84's contact"]
    assert keyword_variants("contact PR-84", vocab) == ["contact for PR-84"]
    assert "PR-84's operator's on-site contact" in keyword_variants("PR-84 operator on-site contact", vocab | {"on", "site"})
    for said in ("which contact PR-84", "is PR-84 contact", "PR-84's contact", "contact", " ".join(["PR-84"] * 7),
                 "alpha beta gamma"):  # (words of no phrasing or relation: no split to read)
        assert keyword_variants(said, vocab) == [], said


def test_a_glued_relation_word_reads_as_its_two_words_and_nothing_else_is_split():
    from chainret.query.understand import _unglued

    records = load_catalog(ROOT / "fixtures" / "records" / "catalog.yaml")
    for said in ("who is oncall for Ledger?", "Ledger oncall"):
        assert _interp(ask(said, records)) == ("on_call_for_service", "service:records:ledger"), said
    vocab = {"on", "call", "contact", "for"}
    assert _unglued("oncall", vocab) == 2
    assert _unglued("contact", vocab) is None  # a word of its own
    assert _unglued("forcall", vocab) == 3 and _unglued("pr84", vocab) is None and _unglued("oncal", vocab) is None
    assert _unglued("on" * 100_000 + "call", vocab) is None  # a huge word is not sliced at every position


def test_a_declared_noun_with_a_hyphen_reads_however_the_hyphen_is_written():
    cat = changed(SEED, predicates=[p.model_copy(update={"nouns": ["on-site contact"]}) if p.name == "contact" else p
                                    for p in SEED.predicates])
    for said in ("the on-site contact of the operator of PR-84", "the on site contact of the operator of PR-84",
                 "PR-84 operator on-site contact"):  # (keywords: a noun of several words in the chain)
        assert _interp(ask(said, cat)) == ("contact_for_project", "project:final:main"), said
