"""``Trace.to_json``'s own encoder writes what ``json.dumps`` writes, byte for byte (issue 24: the standard
library encodes an indented document in pure Python), and the ask path's inlined packet first-fit chooses
what the ``naive`` packer chooses."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from chainret.pack.base import Candidate
from chainret.pack.registry import get_packer
from chainret.packet import PACKET_SEPARATOR, pack_items
from chainret.trace import Budget, PacketItem, Trace, _round, _stable_json

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


@settings(max_examples=300, deadline=None)
@given(_values)
def test_stable_json_equals_json_dumps(value: object) -> None:
    assert _stable_json(value) == _reference(value)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(_keys, _scalars, max_size=1))
def test_stable_json_keys_as_json(value: dict[object, object]) -> None:
    assert _stable_json(value) == _reference(value)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=60), max_size=8), st.integers(1, 200), st.integers(1, 6))
def test_packet_first_fit_is_the_naive_packer(texts: list[str], chars: int, units: int) -> None:
    items = [PacketItem(ref=f"d@v#u{i}", text=t, cost=len(t)) for i, t in enumerate(texts)]
    budget = Budget(packet_chars=chars, packet_units=units)
    sep = len(PACKET_SEPARATOR)
    cands = [Candidate(ref=i.ref, text=i.text, cost=len(i.text) + sep, relevance=1.0) for i in items]
    chosen = get_packer("naive").pack(cands, chars + sep, max_items=units)
    assert pack_items(items, budget).items == [items[i] for i in chosen]
