"""The entailment signals s_ent (seed 000, III-B): slot and oracle, one score per paragraph.

    s_ent(q, c) = P(entail | premise = c, hypothesis = H(q))          (slot: deployable)
    s_ent*(q, c) = P(entail | premise = c, hypothesis = H(q, gold))   (oracle: an upper bound)

Registered in ``chainret.research.qa.signals.SIGNALS`` as ``nli-slot`` / ``nli-oracle``; the premise is
the same ``"<title>. <text>"`` passage the other signals score. Each call also keeps the
``Verification`` records (hypothesis, premise ref, P(entail), model id) per question, for the
run's traces: ``verification_records(qid)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainret.research.qa.datasets import passage
from chainret.research.qa.example import Example
from chainret.trace.model import Hop, Trace, Verification
from chainret.research.verification.hypothesis import hypothesis
from chainret.research.verification.scorer import EntailmentScorer, Progress, get_scorer


class _NLISignal:
    name = "nli"
    kind = "slot"

    def __init__(
        self,
        nli_model: str | None = None,
        batch_size: int = 32,
        progress: Progress | None = None,
        scorer: EntailmentScorer | None = None,
        **_: Any,
    ) -> None:
        self.scorer = scorer or get_scorer(nli_model, batch_size=batch_size)
        self.progress = progress
        self.records: dict[str, list[Verification]] = {}

    @property
    def model_id(self) -> str:
        return self.scorer.model_id

    def hypothesis_for(self, ex: Example) -> str:
        return hypothesis(ex.question, ex.answer if self.kind == "oracle" else None)

    def score(self, examples: list[Example]) -> list[np.ndarray]:
        pairs: list[tuple[str, str]] = []
        spans = []
        hyps = []
        for ex in examples:
            h = self.hypothesis_for(ex)
            hyps.append(h)
            start = len(pairs)
            pairs.extend((passage(p), h) for p in ex.paragraphs)
            spans.append((start, len(pairs)))
        probs = self.scorer.p_entail(pairs, progress=self.progress)
        out = []
        mid = self.model_id
        for ex, h, (a, b) in zip(examples, hyps, spans):
            scores = probs[a:b]
            out.append(scores)
            self.records[ex.id] = [
                Verification(
                    hop=1,
                    question=ex.question,
                    hypothesis=h,
                    hypothesis_kind=self.kind,
                    premise_refs=[p.ref],
                    p_entail=float(s),
                    model=mid,
                )
                for p, s in zip(ex.paragraphs, scores)
            ]
        return out

    def verification_records(self, qid: str) -> list[Verification]:
        return list(self.records.get(qid, []))


class NLISlotSignal(_NLISignal):
    """Deployable: the answer slot left underspecified ("a person directed Inception.")."""

    name = "nli-slot"
    kind = "slot"


class NLIOracleSignal(_NLISignal):
    """Upper bound: the slot filled with the gold answer ("Christopher Nolan directed Inception.")."""

    name = "nli-oracle"
    kind = "oracle"


def attach_verifications(trace: Trace, records: list[Verification]) -> Trace:
    """A copy of ``trace`` with ``records`` added to the hop they name (hops are created if missing)."""
    hops = {h.index: h for h in trace.hops}
    for r in records:
        hop = hops.get(r.hop) or Hop(index=r.hop, kind="retrieval", subquery=r.question)
        hops[r.hop] = hop.model_copy(update={"verifications": [*hop.verifications, r]})
    return trace.model_copy(update={"hops": [hops[i] for i in sorted(hops)]})
