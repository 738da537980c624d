"""Lexical search: tokenizer, exact-ID ranking on tiny corpora, agreement with rank_bm25, view isolation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from chainret.engine.search import LexicalIndex, tokenize


def test_tokenizer_keeps_ids_aliases_and_refs_whole():
    text = "REL project:final:main | operated_by | org:final:north. See PR-84? registry/projects.md@v2#u3"
    assert tokenize(text) == [
        "rel",
        "project:final:main",
        "operated_by",
        "org:final:north",
        "see",
        "pr-84",
        "registry/projects.md@v2#u3",
    ]


def test_two_document_corpus_exact_id_ranks_where_okapi_scores_zero():
    units = [("d#u1", "REL org:final:north | contact | contact:final:desk"), ("d#u2", "Rowan operates things")]
    # The trap this module avoids: Okapi gives a term in exactly half the documents zero IDF.
    okapi = BM25Okapi([tokenize(t) for _, t in units])
    assert okapi.get_scores(["org:final:north"])[0] == 0.0
    hits = LexicalIndex(units).search("org:final:north", k=3)
    assert [h.ref for h in hits] == ["d#u1"]
    assert hits[0].rank == 1 and hits[0].score > 0


def test_id_in_both_documents_still_ranks_both():
    units = [("a", "org:final:north org:final:north"), ("b", "org:final:north and more words here")]
    hits = LexicalIndex(units).search(["org:final:north"], k=3)
    assert [h.ref for h in hits] == ["a", "b"]
    assert all(h.score > 0 for h in hits)


def test_id_parts_do_not_match_the_whole_id():
    idx = LexicalIndex([("a", "org final north"), ("b", "org:final:south")])
    assert idx.search(["org:final:north"], k=3) == []


def test_k_caps_rows_and_ties_break_by_unit_order():
    idx = LexicalIndex([(f"u{i}", "x:y:z") for i in range(5)])
    assert [h.ref for h in idx.search(["x:y:z"], k=3)] == ["u0", "u1", "u2"]
    assert idx.search(["x:y:z"], k=0) == []


def test_empty_index_returns_nothing():
    assert LexicalIndex([]).search("anything", k=3) == []


def test_duplicate_refs_rejected():
    with pytest.raises(ValueError, match="duplicate unit ref"):
        LexicalIndex([("a", "x"), ("a", "y")])


def test_restricted_unit_cannot_influence_public_ranks():
    public = [("p1", "org:final:north contact desk"), ("p2", "org:final:north org:final:north registry")]
    secret = [("s1", "org:final:north secret contact")]
    # Mixing the secret unit in would change the public ranks: that is why ask() indexes readable units only.
    a = LexicalIndex(public).search("org:final:north contact", k=3)
    full = LexicalIndex(public + secret).search("org:final:north contact", k=3)
    assert {h.ref for h in full} - {h.ref for h in a} == {"s1"}
    assert [h.score for h in full if h.ref != "s1"] != [h.score for h in a]  # IDF statistics shift too


words = st.sampled_from(["alpha", "beta", "org:w:a", "org:w:b", "pr-1", "gamma", "delta"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(words, min_size=1, max_size=8), min_size=1, max_size=8), st.lists(words, min_size=1, max_size=3))
def test_scores_agree_with_rank_bm25_on_matching_units(docs, query):
    units = [(f"u{i}", " ".join(d)) for i, d in enumerate(docs)]
    idx = LexicalIndex(units)
    ref_scores = idx.score_all(query)
    hits = idx.search(query, k=len(units))
    qset = set(query)
    matching = [i for i, d in enumerate(docs) if qset & set(d)]
    assert sorted(h.ref for h in hits) == sorted(f"u{i}" for i in matching)
    for h in hits:  # the same operations in the same order as rank_bm25: equal, not just close
        assert h.score == ref_scores[int(h.ref[1:])]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
