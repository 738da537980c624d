"""Answer-in-context on tricky normalisation, and the per-packet diagnostics."""

import pytest

from chainret.pack import Candidate
from chainret.research.packing.diagnostics import answer_in_context, diagnose, make_packet, retrieval_diagnostics


@pytest.mark.parametrize(
    "answers, context, expected",
    [
        (["The Beatles"], "songs by beatles, recorded in 1963", True),  # article dropped on both sides
        (["Beatles"], "The Beatles' first album", True),  # possessive punctuation removed
        (["U.S."], "born in the us in 1950", True),  # dots removed
        (["Gerry Anderson's"], "created by Gerry Andersons studio", True),
        (["1,000"], "about 1000 people", True),
        (["New York"], "new-york city", False),  # the hyphen joins the words: not the span "new york"
        (["York"], "Yorkshire pudding", False),  # token span, not substring
        (["Paris", "City of Light"], "known as the city of light", True),  # any alias
        (["an apple"], "A   APPLE!", True),  # case, articles, whitespace
        (["Ed Wood"], "Wood, Ed", False),  # order matters: contiguous span
    ],
)
def test_answer_in_context_normalisation(answers, context, expected):
    assert answer_in_context(answers, context) is expected


@pytest.mark.parametrize("answers", [["yes"], ["No"], ["no."], ["YES"]])
def test_yes_no_answers_are_not_applicable_even_when_the_word_occurs(answers):
    assert answer_in_context(answers, "no, yes, the answer is yes and no") is None


def test_empty_answer_is_not_applicable():
    assert answer_in_context([""], "anything") is None


def cands():
    return [
        Candidate("g1:s0", "Ed Wood was an American filmmaker.", 8, "g1", (0, 34), 0.9),
        Candidate("x:s0", "A distractor sentence here.", 5, "x", (0, 27), 0.8),
        Candidate("g2:s0", "Scott Derrickson is a director.", 7, "g2", (0, 31), 0.7),
    ]


def test_diagnose_counts_coverage_density_and_tokens():
    retr = {"recall@5": 1.0, "all_gold@5": True, "answer_in_retrieved": True}
    d = diagnose(cands(), [0, 1], answers=["American"], gold_docs=["g1", "g2"], retrieval=retr)
    assert d["answer_in_context"] is True
    assert d["gold_doc_coverage"] == 0.5
    assert d["all_gold_in_reader"] is False
    assert d["gold_token_density"] == pytest.approx(8 / 13)
    assert d["tokens_used"] == 13
    assert d["recall@5"] == 1.0
    d2 = diagnose(cands(), [2, 0], answers=["American"], gold_docs=["g1", "g2"], retrieval=retr)
    assert d2["all_gold_in_reader"] is True and d2["gold_token_density"] == 1.0


def test_retrieval_diagnostics_score_the_retrieved_set():
    r = retrieval_diagnostics([0.9, 0.1, 0.8, 0.7], [1, 2], "text with the answer", ["answer"], k=2)
    assert r == {"recall@2": 0.5, "all_gold@2": False, "answer_in_retrieved": True}


def test_packet_records_items_cost_and_text_in_order():
    p = make_packet("submodular", cands(), [2, 0], 160, None, {"tokens_used": 15})
    assert [i.ref for i in p.items] == ["g2:s0", "g1:s0"]
    assert p.cost == 15 and p.cost_unit == "tokens"
    assert p.text == "Scott Derrickson is a director.\nEd Wood was an American filmmaker."
    assert p.items[0].span == (0, 31)
