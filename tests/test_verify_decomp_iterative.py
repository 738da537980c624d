"""Iterative no-LLM decomposition (issue 16): templates, bridges by join evidence, no gold read, traces.

Fast: the rule tests need no model; the chain tests use a bag-of-words embedder; one test runs the
real embedder on two MuSiQue questions, one runs ``chainret bench later-hop --decomposer iterative``
on two questions (NLI included).
"""

from __future__ import annotations

import hashlib
import json
import os
import re

import numpy as np
import pytest

from chainret.research.nli.model import default_model_path
from benchmarks.harness.paths import absent
from chainret.research.verification.iterative import (
    Candidate,
    IterativeDecomposer,
    candidates_of,
    next_subquestion,
)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
MODEL_DIR = default_model_path()
needs_model = pytest.mark.skipif(not (MODEL_DIR / "config.json").exists(), reason=f"chainret's NLI model not present at {MODEL_DIR}")
needs_data = pytest.mark.skipif(bool(absent("musique")), reason=absent("musique") or "present")


def bow_embed(texts):
    """Deterministic bag-of-words vectors (hashed, unit norm): enough to rank paragraphs by shared words."""
    out = np.zeros((len(texts), 512), dtype=np.float32)
    for i, t in enumerate(texts):
        for w in re.findall(r"[a-z0-9]+", t.lower()):
            if len(w) > 2:
                out[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % 512] += 1.0
        out[i] /= max(np.linalg.norm(out[i]), 1e-9)
    return out


@pytest.mark.parametrize(
    ("question", "names", "expected"),
    [
        # synthetic questions: no MuSiQue question is quoted in code or tests (test_verify_decomp_split.py)
        ("Who owns the record label of the Paper Lanterns performer?", ["Paper Lanterns"],
         "the Paper Lanterns performer"),
        ("Who owns the record label of Dana Whitfield?", ["Dana Whitfield"], "the record label of Dana Whitfield"),
        ("What county is Tomas Verhoef's birthplace a part of?", [], "Tomas Verhoef's birthplace"),
        ("What is the enrollment at the school that owns The Harbor Gazette?", ["The Harbor Gazette"],
         "the school that owns The Harbor Gazette"),
        # nested: the innermost (rightmost) descriptor comes first; the clause runs to its verb
        (("What county is the town that shares a border with the state capital of the state where Ida Merrow was "
          "born located in?"), ["Ida Merrow"], "the state where Ida Merrow was born"),
        ("Who is the employer of the person Hallett's constant was named after?", ["Hallett's constant"],
         "the person Hallett's constant was named after"),
        # issue 27's generalisations, each a grammatical shape rather than one phrasing:
        ("When did Anna Lindqvist's birthplace become a city?", [], "Anna Lindqvist's birthplace"),  # head ends at its noun
        ("Who became the mayor of Anna Lindqvist's original country?", [], "Anna Lindqvist's original country"),
        ("When does the new season of the Carolina Rangers' league start?", [], "Carolina Rangers' league"),  # plural 's
        ("Who is the spouse of the child of Peter Quist?", [], "the child of Peter Quist"),  # kin nouns
        ("What college did the Walk on By cast member attend?", [], "the Walk on By cast member"),  # title with glue
        ("Who founded the Acme executive who resigned in 1999?", [], "the Acme executive who resigned in 1999"),
        ("Where was the person featured on the Hollis Bay stamp born?", [], "the person featured on the Hollis Bay"),
        ("When did the man who drained the marsh and built the dam die?", [], "the man who drained the marsh and built the dam"),
        ("Who is the owner of the Mary Ann's Diner building?", [], "the owner of the Mary Ann's Diner"),
        ("Which club is the highest goal scorer in Lorn League a member of?", [], "the highest goal scorer in Lorn League"),
        ("What team is the player with the most goals in Lorn League history on?", [],
         "the player with the most goals in Lorn League"),
        ("Who is the child of the lead actor of the 1931 film Harbor Nights?", [], "the lead actor of the 1931 film Harbor Nights"),
        ("Who was mayor of the area where Dunmore is located?", [], "the area where Dunmore is located"),  # area: a place here
        ("When was the comet that puzzled early astronomers identified as a periodic one?", [],
         "the comet that puzzled early astronomers"),  # an inverted question's participle ends the clause
    ],
)
def test_descriptor_rules_find_the_innermost_unknown(question, names, expected):
    found = next_subquestion(question, names)
    assert found is not None
    assert found[1] == expected


@pytest.mark.parametrize(
    "question",
    [
        "Who owns Warner Bros. Records?",  # nothing left to decompose
        "Who is the president of International Olympic Committee?",  # the descriptor is what is asked
        "What is the name of the famous bridge in Venice?",
        "What is the source of Orange River?",  # an attribute, the last hop itself, never a bridge
    ],
)
def test_no_descriptor_when_the_question_is_already_one_hop(question):
    assert next_subquestion(question, ["Orange River", "Venice"]) is None


CHAIN = [
    Candidate(0, "Lonely Harbor (album)",
              "Rick Dorsey produced Lonely Harbor, the third studio album by Mara Ellison, with Jo Pruitt."),
    Candidate(1, "Mara Ellison", "Mara Ellison is an American singer. Ellison was born in Fenwick, Oregon."),
    Candidate(2, "Fenwick, Oregon", "Fenwick is a census-designated place in Lane County, Oregon."),
    Candidate(3, "Los Angeles", "Los Angeles is the largest city in California."),
    Candidate(4, "Harbor (1990 film)", "Harbor is a 1990 American romantic fantasy film."),
]


def test_iterative_chain_fills_each_hop_with_the_previous_bridge():
    dec = IterativeDecomposer(bow_embed).decompose("Where was the performer of Lonely Harbor born?", CHAIN)
    assert [s.anchor for s in dec.steps] == [0]
    assert dec.steps[0].bridge == "Mara Ellison"
    assert dec.final_question == "Where was Mara Ellison born?"
    assert dec.final_template == "Where was #1 born?"
    assert dec.steps[0].subquestion == "Who is the performer of Lonely Harbor?"


def test_bridge_is_chosen_by_join_evidence_not_by_position():
    # "Rick Dorsey" is the anchor's first name, but no other paragraph names him: the chain cannot go on
    # through him. "Mara Ellison" is named by a paragraph her filled next sub-question retrieves.
    dec = IterativeDecomposer(bow_embed).decompose("What county is the birthplace of the performer of Lonely Harbor in?",
                                                   CHAIN)
    assert [s.bridge for s in dec.steps][:2] == ["Mara Ellison", "Fenwick, Oregon"]
    alts = {a["name"]: a for a in dec.steps[0].alternatives}
    assert "Rick Dorsey" in alts
    assert alts["Rick Dorsey"]["prior"] + alts["Rick Dorsey"]["evidence"] < alts["Mara Ellison"]["prior"] + alts["Mara Ellison"]["evidence"]
    assert dec.steps[1].anchor == 1  # the hop-2 anchor is the paragraph that joined on the bridge
    assert dec.final_question.startswith("What county is Fenwick")


def test_2wiki_relation_slots_are_the_templates():
    cands = [
        Candidate(0, "Inception", "Inception is a 2010 science fiction film directed by Christopher Nolan."),
        Candidate(1, "Christopher Nolan", "Christopher Nolan is a film director. He was born in London."),
        Candidate(2, "Memento", "Memento is a film by Christopher Nolan."),
    ]
    dec = IterativeDecomposer(bow_embed).decompose("Where was the director of film Inception born?", cands, dataset="2wiki")
    assert dec.mode == "2wiki-relations"
    assert dec.steps[0].bridge == "Christopher Nolan"
    assert dec.final_question == "Where was Christopher Nolan born?"


def _strip_gold(ex):
    paragraphs = [p.model_copy(update={"is_gold": False, "supporting_sentences": None}) for p in ex.paragraphs]
    return ex.model_copy(update={"decomposition": None, "answers": [], "evidences": None, "paragraphs": paragraphs, "meta": {}})


def test_no_gold_field_reaches_the_decomposer_fast():
    """The same invariance with the bag-of-words embedder (no model) on the bundled MuSiQue sample."""
    from chainret.research.qa.datasets import load_examples

    if absent("musique"):
        pytest.skip("benchmark data not present")
    for ex in load_examples("musique", n=6, seed=11).examples:
        dec = IterativeDecomposer(bow_embed)
        assert dec.decompose(ex.question, candidates_of(ex)).to_dict() == dec.decompose(
            ex.question, candidates_of(_strip_gold(ex))).to_dict()


# slow: the real embedder costs ~8 s CPU with the embedding cache cold (a fresh clone, as in CI) and under 0.1 s
# warm, so the fast run's cost depended on what ran before; the invariance itself is held in the fast run by
# test_no_gold_field_reaches_the_decomposer_fast (the same stripping, bag-of-words embedder, six questions)
@pytest.mark.slow
@needs_data
def test_no_gold_field_reaches_the_decomposer():
    """Real embedder, two MuSiQue questions: stripping decomposition, answers and gold flags changes nothing."""
    from chainret.research.qa.datasets import load_examples
    from chainret.pipeline.embed import embed_texts

    examples = load_examples("musique", n=2, seed=5).examples
    dec = IterativeDecomposer(lambda t: embed_texts(list(t)))
    for ex in examples:
        assert ex.decomposition and any(p.is_gold for p in ex.paragraphs)
        full = dec.decompose(ex.question, candidates_of(ex)).to_dict()
        bare = dec.decompose(ex.question, candidates_of(_strip_gold(ex))).to_dict()
        assert full == bare
        assert full["steps"], ex.question


@pytest.mark.slow
@needs_model
@needs_data
def test_later_hop_cli_iterative_records_every_hop(tmp_path, monkeypatch):
    """``chainret bench later-hop --decomposer iterative``: embeds only the sampled questions; traces keep each hop."""
    from typer.testing import CliRunner

    import chainret.pipeline.embed as embed_mod
    from chainret.cli import app

    seen: list[str] = []
    real = embed_mod.embed_texts

    def counting(texts, *a, **k):
        seen.extend(texts)
        return real(texts, *a, **k)

    monkeypatch.setattr(embed_mod, "embed_texts", counting)
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["bench", "later-hop", "musique", "--n", "2", "--out", str(out), "--decomposer", "iterative",
                                   "--resamples", "20"])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert "iterative" in summary["sources"] and summary["decomposers"] == ["iterative"]
    assert summary["iterative_decomposer"]["questions"] == 2
    traces = [json.loads(line) for line in (out / "traces.jsonl").read_text().splitlines()]
    paragraphs = {p for t in traces for h in t["hops"] for hit in h["hits"] for p in [hit["ref"]]}
    assert len(traces) == 2
    for t in traces:
        steps = [h for h in t["hops"] if h["branch"] == "iterative"]
        assert steps and all(h["subquery"] and h["bridge"] and len(h["hits"]) == 1 for h in steps)
        kinds = {v["hypothesis_kind"] for v in t["hops"][-1]["verifications"]}
        assert "iterative" in kinds
    # only the two sampled questions (and their paragraphs, and the decomposer's own queries) were embedded
    questions = {t["request"] for t in traces}
    assert sum(1 for s in seen if s in questions) >= 2
    assert len(paragraphs) == 40
    assert len(seen) < 400


def test_chain_break_names_the_first_wrong_hop_and_its_anchor():
    from chainret.research.verification.laterhop import chain_break

    ev = {"steps": 2, "gold_bridges": 2, "bridge_correct": [True, False], "anchor_is_gold_hop": [True, False]}
    assert chain_break(ev) == "hop 2: anchor wrong"
    ev = {"steps": 2, "gold_bridges": 2, "bridge_correct": [False, True], "anchor_is_gold_hop": [True, True]}
    assert chain_break(ev) == "hop 1: bridge wrong (anchor right)"
    ev = {"steps": 1, "gold_bridges": 2, "bridge_correct": [True], "anchor_is_gold_hop": [True]}
    assert chain_break(ev) == "fewer hops than gold (bridges so far right)"
    ev = {"steps": 0, "gold_bridges": 1, "bridge_correct": [], "anchor_is_gold_hop": []}
    assert chain_break(ev).startswith("no descriptor")
    ev = {"steps": 1, "gold_bridges": 1, "bridge_correct": [True], "anchor_is_gold_hop": [False]}
    assert chain_break(ev) == "every bridge right"


def test_a_bridge_inside_the_named_title_is_not_excluded():
    """The question names "Alder Creek Township"; the candidate's full title also holds the bridge county."""
    cands = [
        Candidate(0, "Alder Creek Township, Pell County, North Dakota",
                  "Alder Creek Township is a township in Pell County, North Dakota, United States. The 2000 Census "
                  "counted 150 people."),
        Candidate(1, "Pell County Courthouse", "The Pell County Courthouse in Dunmore is the seat of Pell County."),
        Candidate(2, "Census", "A census is the procedure of acquiring information about a population."),
    ]
    dec = IterativeDecomposer(bow_embed).decompose("What is the seat of the county where Alder Creek Township is located?", cands)
    assert dec.steps[0].bridge == "Pell County"
    assert dec.final_question == "What is the seat of Pell County?"
