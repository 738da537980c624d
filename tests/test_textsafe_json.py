"""``json_safe`` and ``visible``: every unsafe character escaped, and text without one returned as it is
(issue 24: text is checked by ``str.isprintable`` in C before any pattern is compiled or run)."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from chainret.core.textsafe import _UNSAFE_CLASS, _esc, has_unsafe, json_safe, unsafe_pattern, visible
from chainret.trace.model import Trace

# The rule as it was first written: the unsafe class, newline, tab and CR excepted (layout outside strings).
_REFERENCE = re.compile(f"(?![\t\n\r])[{_UNSAFE_CLASS}]")


def _reference(text: str) -> str:
    return _REFERENCE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def test_every_unsafe_character_is_one_isprintable_refuses() -> None:
    """The fast paths' premise: text ``isprintable`` accepts holds no unsafe character (JSON's: newlines set aside)."""
    unsafe = [chr(c) for c in range(0x110000) if unsafe_pattern().fullmatch(chr(c))]
    assert len(unsafe) > 90 and "\u202e" in unsafe and "\x85" in unsafe and "\n" in unsafe
    assert [repr(ch) for ch in unsafe if ch.isprintable()] == []
    in_json = [ch for ch in unsafe if _REFERENCE.fullmatch(ch)]
    assert "\n" not in in_json and set(in_json) == set(unsafe) - {"\t", "\n", "\r"}


_near = st.characters(min_codepoint=0, max_codepoint=0x20) | st.sampled_from(
    ["\x7f", "\x85", "\x9f", "\u061c", "\u200b", "\u200f", "\u2028", "\u202e", "\u2060", "\u2066", "\u206f", "\ufeff",
     "\ufffa", "\u00ad", "\ue000", "é", "→", "😀", "\\", '"'])


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=_near | st.characters(codec="utf-8"), max_size=40))
def test_json_safe_escapes_what_the_pattern_escapes(text: str) -> None:
    assert json_safe(text) == _reference(text)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=_near | st.characters(codec="utf-8"), max_size=40))
def test_visible_and_has_unsafe_as_the_pattern_says(text: str) -> None:
    assert visible(text) == unsafe_pattern().sub(_esc, text)
    bare = text.replace("\n", "").replace("\t", "")
    assert has_unsafe(text) is (unsafe_pattern().search(bare) is not None)
    assert has_unsafe(text, allow_newlines=False) is (unsafe_pattern().search(text) is not None)


def test_a_trace_with_bidi_and_c1_characters_is_escaped_and_reads_back() -> None:
    trace = Trace(request="who serves PR-84\u202e\u2066 \x85 → é", outcome="no_pattern")
    text = json_safe(trace.to_json())
    assert "\\u202e" in text and "\\u2066" in text and "\\u0085" in text and "→ é" in text
    assert json.loads(text)["request"] == trace.request
    plain = Trace(request="who serves PR-84 → é", outcome="no_pattern").to_json()
    assert json_safe(plain) is plain
