"""Retrieval over a question's candidates and the bridge candidates of an anchor paragraph."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from chainret.research.verification.decompose import (
    _same_entity,
    _strip_accents,
    _title_variants,
    norm_name,
)
from chainret.research.verification.iterative.lexicon import BM25_WEIGHT, CUE_BONUS, PRIOR, TYPE_BONUS, _FUNCTION, _MONTHS, _NOT_PERSON
from chainret.research.verification.iterative.data import BridgeChoice, Candidate, Embed
from chainret.research.verification.iterative.tokens import _cap_spans, _tokens


class CandidateIndex:
    """Embedding cosine fused with BM25 over one question's candidates."""

    def __init__(self, cands: list[Candidate], embed: Embed, pvecs: np.ndarray | None = None) -> None:
        from rank_bm25 import BM25Plus

        from chainret.research.qa.signals import tokenize

        self.cands = cands
        self.embed = embed
        self.pvecs = pvecs if pvecs is not None else embed([c.passage for c in cands])
        self._tok = tokenize
        self.bm25 = BM25Plus([tokenize(c.passage) or ["<empty>"] for c in cands])

    def scores(self, queries: Sequence[str]) -> np.ndarray:
        """(len(queries), len(cands)) fused scores."""
        qv = self.embed(list(queries))
        cos = qv @ self.pvecs.T
        out = np.empty_like(cos)
        for i, q in enumerate(queries):
            b = np.asarray(self.bm25.get_scores(self._tok(q)), dtype=float)
            out[i] = cos[i] + BM25_WEIGHT * (b / b.max() if b.max() > 0 else b)
        return out

    @staticmethod
    def best(row: np.ndarray, exclude: set[int]) -> tuple[int, float]:
        order = np.argsort(-row, kind="mergesort")
        for i in order:
            if int(i) not in exclude:
                return int(i), float(row[i])
        return int(order[0]), float(row[order[0]])


# ----------------------------------------------------------------------------- bridges


def bridge_candidates(anchor: Candidate, cands: list[Candidate], answer_type: str, relation_words: Sequence[str],
                      exclude: Sequence[str], question: str = "") -> list[BridgeChoice]:
    """Names the anchor offers as hop k's answer, with a prior (how found + near the relation words).

    Never a name the question (as filled so far) already contains, an earlier bridge, a month, or a
    value of the wrong type; a lone capitalised word opening a sentence or used as an adjective
    ("Later", "American actor") is no name.
    """
    skip = {norm_name(x) for x in exclude if norm_name(x)}
    q_norm = norm_name(question)
    text = anchor.text
    low = _strip_accents(text.lower())
    cue_pos = [m.start() for w in relation_words for m in re.finditer(rf"\b{re.escape(w[:5])}", low)] if relation_words else []
    out: dict[str, BridgeChoice] = {}

    def add(name: str, how: str, pos: int) -> None:
        key = norm_name(name)
        if not key or any(key == s or _same_entity(key, s) for s in skip) or f" {key} " in f" {q_norm} ":
            return
        if not _type_ok(name, answer_type) or key in _MONTHS:
            return
        near = bool(pos >= 0 and cue_pos and min(abs(pos - c) for c in cue_pos) <= 60)
        prior = PRIOR[how] + (CUE_BONUS if near else 0.0)
        if answer_type == "person" and (set(key.split()) & _NOT_PERSON or "," in name or any(c.isdigit() for c in name)):
            return  # "Fenwick, Oregon", "Lantern (1990 film)" name no person
        if how == "name" and answer_type == "person":
            prior += TYPE_BONUS if len(key.split()) >= 2 else -TYPE_BONUS
        if key not in out or out[key].prior < prior:
            out[key] = BridgeChoice(name, how, prior)

    norm_text = " " + _norm_text(text) + " "
    for c in cands:
        if c.idx == anchor.idx or not norm_name(c.title):
            continue
        variant = next((v for v in _title_variants(c.title) if f" {v} " in norm_text), None)
        if variant is not None:
            add(_display_title(c.title), "title", low.find(variant.split()[0]))
    add(anchor.title if answer_type == "place" else _display_title(anchor.title), "anchor-title", -1)
    toks = _tokens(text)
    for a, b in _cap_spans(toks):
        name = text[toks[a].start : toks[b - 1].end]
        if b - a == 1 and (a == 0 or toks[a - 1].text in {".", "!", "?", ";", ":"} or (
                b < len(toks) and toks[b].text.isalpha() and toks[b].text[0].islower() and toks[b].low not in _FUNCTION)):
            continue  # "Later, ...", "American actor"
        if len(name) >= 3 or name.isupper():
            add(name, "name", toks[a].start)
    if answer_type in {"time", "number"}:
        pat = r"\b(?:\d{1,2} )?(?:" + "|".join(_MONTHS) + r")?(?: \d{1,2},)? ?\d{3,4}\b" if answer_type == "time" else r"\b\d[\d,.]*\b"
        for m in re.finditer(pat, text, re.IGNORECASE):
            add(m.group(0).strip(), "value", m.start())
    return list(out.values())


def _names(c: Candidate, name: str) -> bool:
    key = norm_name(name)
    return bool(key) and (f" {key} " in f" {norm_name(c.title)} " or f" {key} " in f" {_norm_text(c.text)} ")


def _norm_text(text: str) -> str:
    """``norm_name`` for running text: parentheses are words there ("(born 1929 in Fenwick)"), not a title's gloss."""
    return norm_name(text.replace("(", " ").replace(")", " "))


def _display_title(title: str) -> str:
    """"Lantern (Mara Ellison song)" is named "Lantern" in a question."""
    return re.sub(r"\s*\([^)]*\)\s*", " ", title).strip() or title


def _type_ok(name: str, answer_type: str) -> bool:
    numeric = bool(re.fullmatch(r"[\d\s,.%\-–]+|(?:\d{1,2} )?[A-Za-z]+ \d{1,2},? \d{4}|\d{1,2} [A-Za-z]+ \d{4}", name.strip()))
    if answer_type in {"time", "number"}:
        return numeric or answer_type == "number"
    return not numeric
