"""NLI signals' Verification records land on the bench trace hop they name."""

from chainret.research.bench.run import _with_verifications
from chainret.trace.model import Hit, Hop, Trace, Verification


class _KeepsRecords:
    def __init__(self, records):
        self._records = records

    def verification_records(self, qid):
        return self._records.get(qid, [])


def _trace(qid: str) -> Trace:
    hop = Hop(index=1, kind="retrieval", subquery="Who directed Inception?", hits=[Hit(ref=f"{qid}#p0", rank=1, score=0.9)])
    return Trace(request="Who directed Inception?", kind="bench", question_id=qid, hops=[hop], outcome="retrieved")


def test_records_attach_to_their_question_and_hop_only():
    rec = Verification(
        hop=1,
        question="Who directed Inception?",
        hypothesis="a person directed Inception.",
        hypothesis_kind="slot",
        premise_refs=["q1#p0"],
        p_entail=0.83,
        model="chainret/nli-minilm-l6",
    )
    out = _with_verifications([_trace("q1"), _trace("q2")], {"bm25": object(), "nli-slot": _KeepsRecords({"q1": [rec]})})
    assert out[0].hops[0].verifications == [rec]
    assert out[1].hops[0].verifications == []
    assert Trace.from_json(out[0].to_json()).hops[0].verifications[0].p_entail == 0.83


def test_no_nli_signal_leaves_traces_unchanged():
    traces = [_trace("q1")]
    assert _with_verifications(traces, {"bm25": object()}) is traces
