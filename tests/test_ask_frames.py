"""Everyday sentence frames (``chainret.query.frames``): "who do I page about X", "someone to call about X",
"whichever team owns X", steps that point back ("then who is on call for that team"), everyday verbs ("runs",
"uses"). Each rewording is read by the whole interpreter and answered only when every rewording that reads
agrees; negative controls beside each rule (a catalog without the relation, a word the catalog uses otherwise,
two rewordings that disagree)."""

from __future__ import annotations

from pathlib import Path

import pytest
from records_world import imported

from chainret.pipeline.ask import ask
from chainret.query import frames
from chainret.query.frames import everyday_substitutions, frame_question, reworded, steps_rewording
from chainret.verify.replay import verify

DEFAULT = "catalogs/default.yaml"
LITERAL = "Which contact serves PR-84?"


@pytest.mark.parametrize(("words", "question"), [
    ("who do I get in touch with about PR-84?", "who is the contact for PR-84"),
    ("who should I talk to about PR-84", "who is the contact for PR-84"),
    ("someone to call about the Harbour programme?", "who is the contact for the Harbour programme"),
    ("who to contact regarding PR-85", "who is the contact for PR-85"),
    ("how do I reach the contact for PR-84", "who is the contact for PR-84"),
    ("who do I page about SVC-2?", "who is on call for SVC-2"),
    ("who should I page for Checkout", "who is on call for Checkout"),
    ("who gets paged for Billing", "who is on call for Billing"),
    ("who carries the pager for the Ledger service", "who is on call for the Ledger service"),
    ("whose is cart-api", "who owns cart-api"),
    ("Who works in the Platform Team?", "who is in the Platform Team"),
    ("Who code-owned db/init.sql on 2025-11-20", "who are the code owners of db/init.sql on 2025-11-20"),
    ("Which teams are part of Engineering?", "Which teams are under Engineering"),
    ("which people are on the teams under Engineering?", "who is on the teams under Engineering"),
    ("What users are in team-web", "who is in team-web"),
])
def test_sentence_frames_stand_for_one_question(words: str, question: str) -> None:
    assert frame_question(words) == question


@pytest.mark.parametrize("words", ["who do I contact", "who is the contact for PR-84", "who do I page",
                                   "Which components are part of Storefront?",  # a system's parts: no group under it
                                   "who owned db/init.sql",  # ownership, not code ownership
                                   "which people are responsible for PR-84"])  # "which people" asks "who" only before in / on
def test_words_that_are_no_frame_are_left_alone(words: str) -> None:
    assert frame_question(words) is None


@pytest.mark.parametrize(("words", "question"), [
    ("find the team that owns cart-api, then who is on call for that team", "who is on call for the team that owns cart-api"),
    ("find E-7's instrument, then the group that calibrates it", "who is the group that calibrates E-7's instrument"),
    ("find E-7's instrument, then its calibrating group, then that group's site",
     "who is the site of the calibrating group of E-7's instrument"),
    ("find the team that owns AL-1, then its parent group", "who is the parent group of the team that owns AL-1"),
])
def test_steps_that_point_back_are_one_question(words: str, question: str) -> None:
    assert steps_rewording(words) == question


@pytest.mark.parametrize("words", [
    "find the team that owns cart-api, then who is on call",  # the step names no earlier result
    "find the team that owns cart-api, then its owner's team for it",  # two references: which one?
    "who owns cart-api",
])
def test_steps_without_one_reference_back_are_no_steps(words: str) -> None:
    assert steps_rewording(words) is None


def test_an_everyday_verb_stands_for_the_one_catalog_verb_listed_for_it() -> None:
    owners = {"owns": {"owned_by"}, "operates": {"operated_by"}}
    assert everyday_substitutions({"owns"})["runs"] == "owns"
    assert everyday_substitutions({"operates"})["runs"] == "operates"
    # negative controls: both listed verbs in the catalog (runs: operates or owns?), or the word itself used otherwise
    assert "runs" not in everyday_substitutions({"owns", "operates"}, owners)
    assert "uses" not in everyday_substitutions({"consumes", "uses"}, {"consumes": {"api_consumed_by"}, "uses": {"uses"}})
    # a word the catalog declares beside the same relation's verb is put as that verb (the phrasings read it)
    assert everyday_substitutions({"owns", "maintains"}, {"owns": {"owned_by"}, "maintains": {"owned_by"}})["maintains"] == "owns"


def test_contractions_typed_without_apostrophes_and_everyday_verbs_of_providing() -> None:
    from chainret.core.words import apostrophes

    assert apostrophes("which teams dont own anything, whos on X") == "which teams don't own anything, who's on X"
    assert apostrophes("the dont-panic service, Cant, wont, its") == "the dont-panic service, Cant, wont, its"  # names, words
    subs = everyday_substitutions({"provides", "provide", "provided", "providing"})
    assert subs["exposes"] == "provides" and subs["offer"] == "provide" and subs["implements"] == "provides"
    # negative control: a catalog with both "provides" and "supplies" has no one word for "offers"
    assert "offers" not in everyday_substitutions({"provides", "provide", "supplies", "supply"})


def test_words_of_a_name_are_never_reworded() -> None:
    vocab = {"owns", "component", "consumes"}
    assert reworded("Who uses checkout-service?", vocab) == ["Who consumes checkout-service?"]
    assert reworded("Who owns the Schedule Service?", vocab) == []  # capitalised: a name's word, not the type noun


@pytest.mark.parametrize("words", [
    "who do I get in touch with about PR-84?", "who is the contact of the organisation that runs PR-84?",
    "find the org that operates PR-84, then who is the contact for that org", "someone to call about PR-84",
])
def test_a_reworded_request_answers_as_the_literal_one_and_replays(words: str) -> None:
    literal, trace = ask(LITERAL, DEFAULT), ask(words, DEFAULT)
    assert trace.outcome == "accepted_path" and trace.path_ids == literal.path_ids
    interp = trace.interpretation
    assert interp is not None and (interp.reading or "").endswith("reworded")
    assert [m.target for m in interp.match if m.how == "reworded"]  # the question it was read as, recorded
    assert verify(trace, DEFAULT).ok


@pytest.mark.parametrize("words", [
    "who do I page about PR-84?",  # the catalog has no on-call relation: the frame reads as nothing
    "who do I get in touch with about PR-84 and PR-85?",  # says more than one question
    "which team runs PR-84",  # "runs" is "operates" here, and an org is no team
])
def test_a_frame_the_catalog_cannot_read_stays_refused(words: str) -> None:
    trace = ask(words, DEFAULT)
    assert trace.outcome != "accepted_path" and trace.interpretation is None


def test_rewordings_that_disagree_are_refused_never_picked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative control of the agreement rule: two rewordings reading two start entities refuse; one alone answers."""
    monkeypatch.setattr(frames, "reworded", lambda request, *_: [LITERAL, "Which contact serves PR-85?"])
    trace = ask("zz qq", DEFAULT)
    assert trace.outcome == "refused" and trace.reason is not None and trace.reason.code == "ambiguous_reading"
    monkeypatch.setattr(frames, "reworded", lambda request, *_: [LITERAL])
    assert ask("zz qq", DEFAULT).path_ids == ask(LITERAL, DEFAULT).path_ids


def test_a_step_naming_another_noun_is_no_reference_back() -> None:
    assert steps_rewording("find the team that owns cart-api, then who is on call for that service") is None
    assert steps_rewording("find E-7's instrument, then the weather's site") is None


def test_a_reworded_chain_over_a_set_gets_the_searches_its_fan_out_needs(tmp_path: Path) -> None:
    """"use" put as "consume", then read as a nested chain: each consumer's owner is searched, as for the words the
    phrasings have (the fan-out budget follows the nested reading whatever rewording came first)."""
    def doc(kind: str, name: str, spec: str = "") -> str:
        return f"apiVersion: backstage.io/v1alpha1\nkind: {kind}\nmetadata:\n  name: {name}\nspec:\n  type: x\n{spec}"

    root = tmp_path / "tree"
    root.mkdir()
    (root / "all.yaml").write_text("\n---\n".join([
        doc("Group", "team-a"), doc("Group", "team-b"), doc("API", "orders", "  owner: team-a\n"),
        doc("Component", "web", "  owner: team-a\n  consumesApis: [orders]\n"),
        doc("Component", "shop", "  owner: team-b\n  consumesApis: [orders]\n"),
    ]), encoding="utf-8")
    imported(root, tmp_path / "cat.yaml", ["backstage"])
    said = ask("Which teams own the components that consume orders?", tmp_path / "cat.yaml")
    reworded_ = ask("Which teams own the components that use orders?", tmp_path / "cat.yaml")
    assert said.completeness is not None and said.completeness.complete
    assert reworded_.interpretation is not None and reworded_.interpretation.reading == "nested+reworded"
    assert reworded_.completeness is not None and reworded_.completeness.complete
    assert {a.id for a in reworded_.answers or []} == {a.id for a in said.answers or []} == {
        "group:acme:default.team-a", "group:acme:default.team-b"}


def test_a_passive_question_is_its_active_one_where_the_catalog_has_the_verb() -> None:
    from chainret.query.frames import passive_question

    vocab = {"consumes", "owns", "supplies"}
    assert passive_question("Which APIs are consumed by web-shop?", vocab) == "Which APIs does web-shop consume"
    assert passive_question("which parts were supplied by Acme", vocab) == "which parts does Acme supply"
    assert passive_question("which components are owned by team-a", vocab) == "which components does team-a own"
    # negative controls: a verb the catalog has no present of, and no passive at all
    assert passive_question("which APIs are deprecated by web-shop", vocab) is None
    assert passive_question("which APIs does web-shop consume", vocab) is None


def test_sub_teams_are_subgroups_only_where_the_catalog_says_subgroups() -> None:
    assert everyday_substitutions({"subgroups"})["sub-teams"] == "subgroups"
    assert "sub-teams" not in everyday_substitutions({"teams"})  # negative control: no subgroups word to stand for
