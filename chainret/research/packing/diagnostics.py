"""Reader-independent diagnostics of one packed context (the seed's §3.1, computed on the packet).

The metric functions come from ``chainret.research.qa.metrics``; this module only assembles them per
packet and adds the yes/no rule: a yes/no answer is not a span of the evidence, so
answer-in-context is *not applicable* (``None``) for it and such questions are left out of its
mean (their count is reported), rather than scored by whether the word "no" happens to occur.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainret.research.qa import metrics
from chainret.pack.base import Candidate
from chainret.trace.model import Packet, PacketItem

SEPARATOR = "\n"


def answer_in_context(answers: Sequence[str], context: str) -> bool | None:
    """True/False for span answers; None for yes/no answers or when there is no gold answer."""
    if not any(a.strip() for a in answers) or metrics.is_yes_no(answers):
        return None
    return metrics.answer_in_context(answers, context)


def packet_text(candidates: Sequence[Candidate], selection: Sequence[int]) -> str:
    return SEPARATOR.join(candidates[i].text for i in selection)


def diagnose(
    candidates: Sequence[Candidate],
    selection: Sequence[int],
    *,
    answers: Sequence[str],
    gold_docs: Sequence[str],
    retrieval: dict[str, Any],
) -> dict[str, Any]:
    """The per-packet figures; ``retrieval`` carries the question-level recall@5 etc. unchanged."""
    chosen = [candidates[i] for i in selection]
    docs = [c.doc_id or "" for c in chosen]
    gold = set(gold_docs)
    return {
        "answer_in_context": answer_in_context(answers, packet_text(candidates, selection)),
        "gold_doc_coverage": metrics.gold_doc_coverage(docs, list(gold)),
        "all_gold_in_reader": metrics.all_gold_in_reader(docs, list(gold)),
        "gold_token_density": metrics.gold_token_density([c.cost for c in chosen], [d in gold for d in docs]),
        "tokens_used": sum(c.cost for c in chosen),
        "items": len(chosen),
        "documents": len(set(docs)),
        **retrieval,
    }


def retrieval_diagnostics(
    scores: Sequence[float], gold_idx: Sequence[int], retrieved_text: str, answers: Sequence[str], k: int = 5
) -> dict[str, Any]:
    """Question-level figures of the retrieved set (before packing)."""
    top = set(metrics.top_k(scores, k))
    return {
        f"recall@{k}": metrics.recall_at_k(scores, gold_idx, k),
        f"all_gold@{k}": bool(gold_idx) and set(gold_idx) <= top,
        "answer_in_retrieved": answer_in_context(answers, retrieved_text),
    }


def make_packet(
    packer: str,
    candidates: Sequence[Candidate],
    selection: Sequence[int],
    budget: int,
    max_items: int | None,
    diagnostics: dict[str, Any],
) -> Packet:
    items = [
        PacketItem(ref=c.ref, text=c.text, cost=c.cost, doc_id=c.doc_id, span=c.span)
        for c in (candidates[i] for i in selection)
    ]
    return Packet(
        packer=packer,
        cost_unit="tokens",
        budget=budget,
        max_items=max_items,
        separator=SEPARATOR,
        items=items,
        cost=sum(x.cost for x in items),
        text=packet_text(candidates, selection),
        diagnostics=diagnostics,
    )
