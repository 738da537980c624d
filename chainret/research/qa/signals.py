"""Per-paragraph relevance signals and their registry.

A signal scores every candidate paragraph of every example against its question:
``score(examples) -> list[np.ndarray]``, one array per example, aligned with
``example.paragraphs``. Higher means "more likely gold". The registry maps names to
``"module:Class"`` strings imported only when a signal is asked for, so the NLI
signals (issue 6, ``chainret.research.verification.signals``) cost nothing unless used.

Constructors take keyword options and ignore the ones they do not use, so one option
set (``embedder``, ``nli_model``, ``batch_size``, ``progress``) can be handed to all.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from chainret.research.qa.datasets import passage
from chainret.research.qa.example import Example
from chainret.core.errors import UsageError
from chainret.core.words import PLAIN_WORD
from chainret.engine.search import STOPWORDS as ENGINE_STOPWORDS

SIGNALS: dict[str, str] = {
    "bm25": "chainret.research.qa.signals:BM25Signal",
    "embedding": "chainret.research.qa.signals:EmbeddingSignal",
    "nli-slot": "chainret.research.verification.signals:NLISlotSignal",
    "nli-oracle": "chainret.research.verification.signals:NLIOracleSignal",
}

Progress = Callable[[int], None]  # called with the number of items just done


@runtime_checkable
class Signal(Protocol):
    name: str

    def score(self, examples: list[Example]) -> list[np.ndarray]: ...


def parse_names(text: str, valid: dict[str, Any] | list[str], what: str) -> list[str]:
    """"a,b" -> ["a", "b"], refusing unknown names with the list of valid ones."""
    names = [x.strip() for x in text.split(",") if x.strip()]
    if not names:
        raise UsageError(f"no {what} given; valid: {', '.join(valid)}")
    bad = [x for x in names if x not in valid]
    if bad:
        raise UsageError(f"unknown {what} {', '.join(map(repr, bad))}; valid: {', '.join(valid)}")
    return list(dict.fromkeys(names))


def get_signal(name: str, **options: Any) -> Signal:
    """Instantiate a registered signal by name (lazy import)."""
    if name not in SIGNALS:
        raise UsageError(f"unknown signal {name!r}; valid: {', '.join(SIGNALS)}")
    module, _, cls = SIGNALS[name].partition(":")
    try:
        obj = getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError) as exc:
        raise UsageError(f"signal {name!r} is registered as {SIGNALS[name]} but cannot be loaded: {exc}") from None
    return obj(**options)


# ----------------------------------------------------------------------------- BM25

# The engine's stop list (chainret.engine.search) plus the pronouns and question words benchmark questions add;
# each word is written once: the packing layer's content terms extend this list in turn.
STOPWORDS = ENGINE_STOPWORDS | frozenset("had he her his how she their them they when where why will".split())


def tokenize(text: str) -> list[str]:
    """Lower-case alphanumeric tokens without English function words."""
    return [t for t in PLAIN_WORD.findall(text.lower()) if t not in STOPWORDS]


class BM25Signal:
    """BM25 over each question's own candidates (no global index, as in seed 000's setup).

    BM25Plus, not BM25Okapi: with ten candidates a term in exactly half of them gets
    Okapi IDF 0 (rank-bm25 issues #29/#39), which would zero real matches.
    """

    name = "bm25"

    def __init__(self, progress: Progress | None = None, **_: Any) -> None:
        self.progress = progress

    def score(self, examples: list[Example]) -> list[np.ndarray]:
        from rank_bm25 import BM25Plus

        out = []
        for ex in examples:
            docs = [tokenize(passage(p)) or ["<empty>"] for p in ex.paragraphs]
            out.append(np.asarray(BM25Plus(docs).get_scores(tokenize(ex.question)), dtype=float))
            if self.progress:
                self.progress(1)
        return out


# ----------------------------------------------------------------------------- embedding


class EmbeddingSignal:
    """s_emb = (1 + cos(E(q), E(p))) / 2 with a sentence-transformers bi-encoder (seed 000, III-B)."""

    name = "embedding"

    def __init__(self, embedder: str | None = None, batch_size: int = 64, progress: Progress | None = None, **_: Any) -> None:
        self.embedder = embedder
        self.batch_size = batch_size
        self.progress = progress

    @property
    def model_id(self) -> str:
        from chainret.pipeline.embed import model_id

        return model_id(self.embedder)

    def score(self, examples: list[Example]) -> list[np.ndarray]:
        from chainret.pipeline.embed import embed_texts

        texts: list[str] = []
        spans = []
        for ex in examples:
            start = len(texts)
            texts.append(ex.question)
            texts.extend(passage(p) for p in ex.paragraphs)
            spans.append((start, len(texts)))
        vecs = embed_texts(texts, self.embedder, batch_size=self.batch_size, on_batch=self.progress)
        out = []
        for a, b in spans:
            q, ps = vecs[a], vecs[a + 1 : b]
            out.append((1.0 + ps @ q) / 2.0)
        return out
