"""Snippets: spans point back into the paragraph, long sentences are windowed, costs are real tokens."""

import numpy as np

from chainret.research.qa.datasets import passage
from chainret.research.qa.example import Example, Paragraph
from chainret.research.packing.candidates import cut_pieces, prepare
from chainret.research.packing.tokens import count_tokens


def words(text):  # a whitespace counter for fast, exact checks
    return [len(t.split()) for t in text]


def para(idx, sentences, gold=False):
    return Paragraph(idx=idx, ref=f"q#p{idx}", title=f"T{idx}", sentences=sentences, is_gold=gold)


def test_spans_point_into_the_passage_and_the_title_joins_the_first_snippet():
    p = para(0, [" First one. ", "Second sentence here.", "", "Third."])
    pieces = cut_pieces([p], words)
    assert [x.text for x in pieces] == ["T0. First one.", "Second sentence here.", "Third."]
    for x in pieces:
        a, b = x.span
        assert passage(p)[a:b] == x.text and x.doc_id == "q#p0"


def test_long_sentences_are_cut_into_windows_within_the_cap():
    long = " ".join(f"w{i}" for i in range(25))
    p = para(1, ["Short.", long])
    pieces = cut_pieces([p], words, max_tokens=10)
    assert [x.cost for x in pieces] == [2, 10, 10, 5]
    assert all(passage(p)[x.span[0] : x.span[1]] == x.text for x in pieces)
    assert " ".join(x.text for x in pieces[1:]) == long


def test_costs_use_the_embedders_wordpiece_tokenizer():
    # lower-cased WordPiece: "." is its own token, "Derrickson" -> derrick ##son; no [CLS]/[SEP]
    assert count_tokens(["Ed Wood was an American filmmaker.", "Scott Derrickson"]) == [7, 3]


def test_prepare_keeps_top_k_paragraphs_and_builds_shared_context():
    ex = Example(
        id="q", dataset="hotpotqa", question="Which filmmaker directed Plan 9?", answers=["Ed Wood"],
        paragraphs=[para(0, ["Plan 9 was directed by Ed Wood."], gold=True), para(1, ["Unrelated text."]),
                    para(2, ["A filmmaker makes films."], gold=True)],
    )
    [pq] = prepare([ex], [[0.9, 0.1, 0.5]], k=2, count=words, embed=None)
    assert pq.retrieved == [0, 2]
    assert {c.doc_id for c in pq.candidates} == {"q#p0", "q#p2"}
    assert pq.context.sim.shape == (2, 2) and np.allclose(np.diag(pq.context.sim), 1)
    assert pq.context.gold_docs == {"q#p0", "q#p2"}
    assert all(0 <= c.relevance <= 1 for c in pq.candidates)
    assert pq.candidates[0].relevance > 0  # shares "plan", "9", "directed" with the query
