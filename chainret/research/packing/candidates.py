"""Per-question packing inputs: source-grounded snippets, their costs, relevance and similarities.

A snippet is one sentence of a retrieved paragraph (a sentence longer than ``MAX_SNIPPET_TOKENS``
is cut into consecutive word windows that fit). The paragraph is read as ``"<title>. <text>"`` (the
issue-4 ``passage`` convention), so its first snippet carries the title, as a reader needs to know
who "he" is; the reader pays for exactly the text it sees. Each snippet keeps its paragraph ref as
``doc_id`` and its character span inside that passage text, so every packed token traces back.

Relevance (shared by every packer, the ``Rel`` term included) is lexical by default, as in the
seed: r_i = IDF-weighted share of the query's content terms found in the snippet (IDF over the
question's own paragraphs); snippet similarity is then the Jaccard overlap of content terms.
With an embedder (``--similarity embedding``), r_i = ½·lexical + ½·max(0, cos(E(query), E(i))) and
sim(i, j) = max(0, cos(E(i), E(j))) with all-MiniLM-L6-v2. Either way the similarity matrix is
computed once per question and reused by every packer and budget (``PackContext.sim``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from chainret.research.qa.datasets import passage
from chainret.research.qa.example import Example, Paragraph
from chainret.pack.base import Candidate, PackContext
from chainret.research.packing.text import content_terms

MAX_SNIPPET_TOKENS = 64
_WORDS = re.compile(r"\S+")

Counter = Callable[[Sequence[str]], list[int]]
Embedder = Callable[[Sequence[str]], np.ndarray]  # unit-normalised rows


@dataclass
class Piece:
    """A snippet before relevance is known."""

    ref: str
    text: str
    doc_id: str
    span: tuple[int, int]
    cost: int = 0


@dataclass
class PreparedQuestion:
    """Everything the packers and diagnostics need for one question, built once."""

    example: Example
    scores: list[float]  # retrieval score of every paragraph
    retrieved: list[int]  # paragraph idx of the top-k, best first
    candidates: list[Candidate]
    context: PackContext

    @property
    def gold_docs(self) -> list[str]:
        return [p.ref for p in self.example.paragraphs if p.is_gold]


def sentence_spans(p: Paragraph) -> list[tuple[int, int]]:
    """Character spans of the sentences inside ``passage(p)``; the title prefix joins the first one."""
    prefix = len(passage(p)) - len(p.text)
    spans, pos = [], prefix
    for s in p.sentences:
        s = s.strip()
        if not s:
            continue
        spans.append((pos, pos + len(s)))
        pos += len(s) + 1
    if spans and prefix:
        spans[0] = (0, spans[0][1])
    return spans


def cut_pieces(paragraphs: Sequence[Paragraph], count: Counter, max_tokens: int = MAX_SNIPPET_TOKENS) -> list[Piece]:
    """Sentences of ``paragraphs`` as pieces with token costs; over-long ones cut into word windows."""
    pieces: list[Piece] = []
    for p in paragraphs:
        text = passage(p)
        for k, (a, b) in enumerate(sentence_spans(p)):
            pieces.append(Piece(f"{p.ref}:s{k}", text[a:b], p.ref, (a, b)))
    costs = count([x.text for x in pieces])
    out: list[Piece] = []
    for piece, c in zip(pieces, costs):
        if c <= max_tokens:
            piece.cost = c
            out.append(piece)
        else:
            out.extend(_windows(piece, count, max_tokens))
    return out


def _windows(piece: Piece, count: Counter, max_tokens: int) -> list[Piece]:
    words = [(m.start(), m.end()) for m in _WORDS.finditer(piece.text)]
    wcost = count([piece.text[a:b] for a, b in words])
    out: list[Piece] = []
    start = 0
    while start < len(words):
        end, total = start, 0
        while end < len(words) and (total + wcost[end] <= max_tokens or end == start):
            total += wcost[end]
            end += 1
        a, b = words[start][0], words[end - 1][1]
        base = piece.span[0]
        out.append(Piece(f"{piece.ref}w{len(out)}", piece.text[a:b], piece.doc_id, (base + a, base + b)))
        start = end
    # Word counts ignore merges across word boundaries; recount the joined windows exactly.
    for w, c in zip(out, count([w.text for w in out])):
        w.cost = c
    return out


def idf_table(example: Example) -> dict[str, float]:
    """IDF of content terms over the question's own paragraphs: log(1 + N / (1 + df))."""
    n = len(example.paragraphs)
    df: dict[str, int] = {}
    for p in example.paragraphs:
        for t in content_terms(f"{p.title}. {p.text}"):
            df[t] = df.get(t, 0) + 1
    return {t: math.log(1 + n / (1 + d)) for t, d in df.items()}


def lexical_relevance(query_terms: frozenset[str], terms: frozenset[str], idf: dict[str, float]) -> float:
    default = max(idf.values(), default=1.0)
    total = sum(idf.get(t, default) for t in query_terms)
    if total <= 0:
        return 0.0
    return sum(idf.get(t, default) for t in query_terms & terms) / total


def prepare_question(
    example: Example,
    scores: Sequence[float],
    pieces: Sequence[Piece],
    q_vec: np.ndarray | None,
    piece_vecs: np.ndarray | None,
    k: int,
) -> PreparedQuestion:
    """Assemble candidates (with relevance) and the shared context for one question."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:k]
    q_terms = content_terms(example.question)
    terms = [content_terms(x.text) for x in pieces]
    idf = idf_table(example)
    lex = np.array([lexical_relevance(q_terms, t, idf) for t in terms])
    if q_vec is not None and piece_vecs is not None and len(pieces):
        dense = np.clip(piece_vecs @ q_vec, 0.0, None)
        rel = 0.5 * lex + 0.5 * dense
        sim = np.clip(piece_vecs @ piece_vecs.T, 0.0, 1.0)
        np.fill_diagonal(sim, 1.0)
    else:
        from chainret.research.packing.packers import lexical_similarity

        rel = lex
        sim = lexical_similarity(terms)
    cands = [
        Candidate(ref=x.ref, text=x.text, cost=x.cost, doc_id=x.doc_id, span=x.span, relevance=float(r))
        for x, r in zip(pieces, rel)
    ]
    ctx = PackContext(
        query=example.question,
        query_terms=q_terms,
        terms=terms,
        sim=sim,
        gold_answers=list(example.answers),
        gold_docs=frozenset(p.ref for p in example.paragraphs if p.is_gold),
    )
    return PreparedQuestion(example, [float(s) for s in scores], order, cands, ctx)


def prepare(
    examples: Sequence[Example],
    scores: Sequence[Sequence[float]],
    *,
    k: int = 5,
    count: Counter,
    embed: Embedder | None,
    max_tokens: int = MAX_SNIPPET_TOKENS,
) -> list[PreparedQuestion]:
    """Cut, cost and embed the top-``k`` paragraphs of every question (one batched embed call)."""
    all_pieces: list[list[Piece]] = []
    for ex, sc in zip(examples, scores):
        top = sorted(range(len(sc)), key=lambda i: (-sc[i], i))[:k]
        all_pieces.append(cut_pieces([ex.paragraphs[i] for i in sorted(top)], count, max_tokens))
    vecs = None
    if embed is not None:
        texts = [ex.question for ex in examples] + [x.text for ps in all_pieces for x in ps]
        vecs = np.asarray(embed(texts), dtype=float)
    out: list[PreparedQuestion] = []
    offset = len(examples)
    for qi, (ex, sc, ps) in enumerate(zip(examples, scores, all_pieces)):
        q_vec = vecs[qi] if vecs is not None else None
        p_vecs = vecs[offset : offset + len(ps)] if vecs is not None else None
        offset += len(ps)
        out.append(prepare_question(ex, sc, ps, q_vec, p_vecs, k))
    return out
