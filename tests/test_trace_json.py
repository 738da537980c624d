"""``Trace.to_json`` writes what ``json.dumps`` writes, byte for byte, whether orjson writes it or the
module's own encoder does (issue 24: the standard library encodes an indented document in pure Python),
and the ask path's inlined packet first-fit chooses what the ``naive`` packer chooses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chainret.core.stablejson as stablejson
from chainret.pack.base import Candidate
from chainret.pack.registry import get_packer
from chainret.pipeline.packet import PACKET_SEPARATOR, pack_items
from chainret.core.stablejson import float_plan, plain_dump, stable_json
from chainret.core.stablejson import round_floats as _round
from chainret.trace.model import Budget, Hit, Hop, Packet, PacketItem, Refusal, Trace, Verification

ROOT = Path(__file__).resolve().parents[1]


def _reference(data: object) -> str:
    return json.dumps(_round(data), sort_keys=True, indent=2, ensure_ascii=False)


def test_golden_traces_encode_as_json_dumps() -> None:
    paths = sorted((ROOT / "traces").rglob("*.json"))
    assert paths
    for p in paths:
        trace = Trace.from_json(p.read_text(encoding="utf-8"))
        assert trace.to_json() == _reference(trace.model_dump(mode="json")), p


_scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
            | st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",))))
_keys = st.text(max_size=5) | st.integers() | st.floats(allow_nan=False) | st.booleans() | st.none()
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                       | st.dictionaries(st.text(max_size=5), inner, max_size=4), max_leaves=25)


def test_golden_traces_are_written_by_orjson(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path is the one taken: an ordinary trace never needs the module's own encoder."""

    def refuse(data: object) -> str:
        raise AssertionError("an ordinary trace fell back to stable_json")

    monkeypatch.setattr(stablejson, "stable_json", refuse)
    monkeypatch.setattr(stablejson, "_written", stablejson._FIRST)  # past a process's first documents (``_written``)
    for p in sorted((ROOT / "traces").rglob("*.json"))[:40]:
        trace = Trace.from_json(p.read_text(encoding="utf-8"))
        assert trace.to_json() == _reference(trace.model_dump(mode="json")), p


def test_a_process_that_writes_two_traces_does_not_load_orjson() -> None:
    """A CLI ask writes one trace, or two with ``--json``: ``stable_json`` writes them, and orjson (7.2M
    instructions to load) is not loaded; the third trace loads it, and the three texts are the same bytes."""
    code = (
        "import sys; from chainret.trace.model import Trace\n"
        "t = Trace(request='PR-84 → é', outcome='no_pattern', meta={'ask_ms': 0.123456789})\n"
        "a = t.to_json(); b = t.to_json(); two = 'orjson' in sys.modules; c = t.to_json()\n"
        "print(two, 'orjson' in sys.modules, a == b == c)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.stdout.split() == ["False", "True", "True"]


def test_traces_are_written_from_their_models_without_model_dump(monkeypatch: pytest.MonkeyPatch) -> None:
    """``direct_json``: orjson reads the models themselves, no ``model_dump``, and writes what ``json.dumps`` writes of
    the rounded dump, for every golden trace and every fixture case's trace as the engine builds it
    (``model_construct``: enum members, tuples, the set fields left out, unrounded scores)."""
    from chainret.evaluate.cases import evaluate_cases

    traces = [Trace.from_json(p.read_text(encoding="utf-8")) for p in sorted((ROOT / "traces").rglob("*.json"))]
    traces += [r.trace for r in evaluate_cases([ROOT / "fixtures"], root=ROOT)]
    expected = [_reference(t.model_dump(mode="json")) for t in traces]

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a trace was dumped by pydantic")

    monkeypatch.setattr(Trace, "model_dump", refuse)
    monkeypatch.setattr(stablejson, "_written", stablejson._FIRST)
    assert len(traces) > 40
    for trace, text in zip(traces, expected, strict=True):
        assert stablejson.direct_json(trace) == text == trace.to_json(), trace.request


def test_direct_json_applies_serializers_and_rounds_floats(monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative controls of the test above: without ``Trace``'s serializer in the walk the set fields are written
    (``"answers": null``), and without the hit's float fields walked its score is written unrounded."""
    trace = Trace(request="x", outcome="retrieved", hops=[Hop(index=1, subquery="q", hits=[Hit(ref="r", rank=1, score=1 / 3)])])
    reference = _reference(trace.model_dump(mode="json"))
    assert stablejson.direct_json(trace) == reference and '"score": 0.333333' in reference
    count, walked, wrap = stablejson._direct[Trace]  # type: ignore[misc]
    monkeypatch.setitem(stablejson._direct, Trace, (count, walked, None))
    assert '"answers": null' in (stablejson.direct_json(trace) or "")
    monkeypatch.setitem(stablejson._direct, Trace, (count, walked, wrap))
    hit_count, _, hit_wrap = stablejson._direct[Hit]  # type: ignore[misc]
    monkeypatch.setitem(stablejson._direct, Hit, (hit_count, (), hit_wrap))
    assert '"score": 0.3333333333333333' in (stablejson.direct_json(trace) or "")


def test_free_form_values_orjson_would_write_otherwise_go_to_pydantic(monkeypatch: pytest.MonkeyPatch) -> None:
    """A set, a date, bytes or an integer key in free-form data: ``direct_json`` declines (None), and ``to_json``
    writes pydantic's dump of them, as before. Negative control: plain values are written directly."""
    from datetime import date

    monkeypatch.setattr(stablejson, "_written", stablejson._FIRST)
    for odd in ({"b", "a"}, date(2024, 1, 2), b"x", {1: "one"}):
        trace = Trace(request="x", outcome="no_pattern", meta={"odd": [odd]})
        assert stablejson.direct_json(trace) is None, odd
        assert trace.to_json() == _reference(trace.model_dump(mode="json"))
    plain = Trace(request="x", outcome="no_pattern", meta={"odd": [["a", 1, None, True, 0.5]]})
    assert stablejson.direct_json(plain) == _reference(plain.model_dump(mode="json"))


def _same_dump(trace: Trace) -> None:
    """``plain_dump`` gives what ``model_dump(mode="json")`` gives, value for value and as JSON text (1 and True
    are equal in Python, not in JSON), or declines (None) where the trace holds a non-finite float (pydantic writes
    one as a float in a float field and as None in free-form data)."""
    plain, dumped = plain_dump(trace), trace.model_dump(mode="json")
    if plain is None:
        assert any(w in repr(trace) for w in ("inf", "nan")), trace
        return
    assert plain == dumped and stable_json(plain) == stable_json(dumped)


def test_plain_dump_is_model_dump_for_the_engines_traces() -> None:
    """Every fixture case's trace as the engine builds it (``model_construct``: enum members, tuples, nested
    models, the set fields left out), and every golden trace as read back (validated)."""
    from chainret.evaluate.cases import evaluate_cases

    results = evaluate_cases([ROOT / "fixtures"], root=ROOT)
    assert len(results) > 20
    for r in results:
        assert plain_dump(r.trace) is not None, r.case.id
        _same_dump(r.trace)
    for p in sorted((ROOT / "traces").rglob("*.json")):
        _same_dump(Trace.from_json(p.read_text(encoding="utf-8")))


def test_plain_dump_applies_each_models_serializer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative control of the test above: without ``Trace``'s own serializer (which leaves out the set fields of
    a chain with no many-valued hop) the walk writes ``answers: null`` and no longer equals ``model_dump``."""
    trace = Trace(request="x", outcome="no_pattern")
    assert plain_dump(trace) == trace.model_dump(mode="json") and "answers" not in trace.model_dump(mode="json")
    monkeypatch.setitem(stablejson._specs, Trace, (tuple(Trace.model_fields), None))
    assert plain_dump(trace)["answers"] is None  # type: ignore[index]
    assert plain_dump(trace) != trace.model_dump(mode="json")


def test_the_float_plan_finds_every_float_of_a_trace() -> None:
    """Read from the models: a float field, or free-form data, of any model a trace holds is rounded."""
    plan = float_plan(Trace)
    hop = plan["hops"][1][1]
    assert hop["hits"] == ("list", ("model", {"score": "f", "scores": ("dict", "f")}))
    assert hop["verifications"] == ("list", ("model", {"p_entail": "f"}))
    assert hop["refusal"] == ("model", {"details": ("dict", "any")}) == plan["reason"]
    assert plan["meta"] == ("dict", "any") and plan["packet"] == ("model", {"diagnostics": ("dict", "any")})
    assert plan["packets"] == ("dict", plan["packet"])
    assert plan["interpretation"] == ("model", {"match": ("list", ("model", {"similarity": "f"}))})  # a synonym's
    assert set(plan) == {"hops", "reason", "meta", "packet", "packets", "interpretation"}  # nothing else holds a float
    assert float_plan(Budget) == {}


_floats = st.floats(allow_nan=True, allow_infinity=True) | st.floats(-1e-3, 1e-3) | st.sampled_from([5e-05, -1e-07, 1e16, 0.0, -0.0])
_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_data = st.dictionaries(st.text(max_size=6), st.recursive(
    _floats | st.integers() | st.none() | st.booleans() | _text,
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=12), max_size=4)
_hits = st.lists(st.builds(Hit, ref=_text, rank=st.integers(1, 9), score=_floats,
                           scores=st.dictionaries(st.text(max_size=4), _floats, max_size=2)), max_size=3)
_traces = st.builds(
    Trace, request=_text, outcome=st.just("retrieved"), meta=_data,
    hops=st.lists(st.builds(Hop, index=st.integers(1, 3), subquery=_text, hits=_hits, verifications=st.lists(st.builds(
        Verification, hop=st.integers(1, 3), question=_text, hypothesis=_text, hypothesis_kind=_text,
        premise_refs=st.lists(_text, max_size=2), p_entail=_floats, model=_text), max_size=1),
        refusal=st.none() | st.builds(Refusal, code=st.just("dead_end"), message=_text, details=_data)), max_size=2),
    packet=st.none() | st.builds(Packet, packer=_text, cost_unit=st.just("chars"), budget=st.integers(0, 99), diagnostics=_data),
)


@settings(max_examples=300, deadline=None)
@given(_traces)
def test_plain_dump_equals_model_dump_of_any_trace(trace: Trace) -> None:
    _same_dump(trace)


@settings(max_examples=300, deadline=None)
@given(_traces)
def test_to_json_equals_json_dumps_of_any_trace(trace: Trace) -> None:
    """Floats of every size (below 1e-4, non-finite), big integers, tuples and any text in every field that
    holds them: orjson's text or the fallback's, the same bytes as ``json.dumps`` of the rounded dump."""
    stablejson._written = max(stablejson._written, stablejson._FIRST)  # (past a process's first documents: orjson's turn)
    assert trace.to_json() == _reference(trace.model_dump(mode="json"))


def test_a_lone_surrogate_is_written_as_json_writes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stablejson, "_written", stablejson._FIRST)  # orjson's turn: it refuses the surrogate, the fallback writes it
    trace = Trace(request="PR-84 \ud800", outcome="no_pattern", meta={"big": 2**80})
    assert trace.to_json() == _reference(trace.model_dump(mode="json"))
    assert '"PR-84 \ud800"' in trace.to_json()


def test_other_dumps_keep_their_floats_whole() -> None:
    """Only ``to_json`` rounds: ``model_dump`` (the server's response, the research harnesses) keeps the score."""
    hit = Hit(ref="r", rank=1, score=1 / 3, scores={"bm25": 2 / 3})
    assert hit.model_dump(mode="json")["score"] == 1 / 3 and hit.model_dump()["scores"]["bm25"] == 2 / 3
    assert json.loads(hit.model_dump_json())["score"] == 1 / 3
    assert Trace(request="x", outcome="no_pattern", meta={"f": 1 / 7}).model_dump(mode="json")["meta"]["f"] == 1 / 7


@settings(max_examples=300, deadline=None)
@given(_values)
def test_stable_json_equals_json_dumps(value: object) -> None:
    assert stable_json(value) == _reference(value)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(_keys, _scalars, max_size=1))
def test_stable_json_keys_as_json(value: dict[object, object]) -> None:
    assert stable_json(value) == _reference(value)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=60), max_size=8), st.integers(1, 200), st.integers(1, 6))
def test_packet_first_fit_is_the_naive_packer(texts: list[str], chars: int, units: int) -> None:
    items = [PacketItem(ref=f"d@v#u{i}", text=t, cost=len(t)) for i, t in enumerate(texts)]
    budget = Budget(packet_chars=chars, packet_units=units)
    sep = len(PACKET_SEPARATOR)
    cands = [Candidate(ref=i.ref, text=i.text, cost=len(i.text) + sep, relevance=1.0) for i in items]
    chosen = get_packer("naive").pack(cands, chars + sep, max_items=units)
    assert pack_items(items, budget).items == [items[i] for i in chosen]
