"""Data is never interpreted: the one place where values from catalogs, requests and traces are
made safe to show.

Every string shown to a person or written where a terminal may read it goes through here:

* ``visible(s)``: control characters shown escaped: C0 (``\\x1b`` -> ``\\x1b``, newline -> ``\\n``),
  DEL, C1 (``\\x9b``), bidi overrides/isolates and other invisible format characters
  (``\\u202e``), line/paragraph separators. Printable text, accents and CJK pass unchanged.
* ``markup_safe(s)``: ``visible`` plus rich markup escaping (``[bold]``, ``[/]``, ``[link=...]``),
  for the rare place that must build a rich markup string. Rendering code prefers ``rich.text.Text``
  (never parsed as markup) built from ``visible`` values: see ``chainret.cli.render``.
* ``json_safe(text)``: JSON text with every such character ``\\u``-escaped (valid JSON: they can
  only occur inside strings).
* ``mermaid_label(s)``: a mermaid node/edge label (quotes, brackets, pipes, ``<``/``>``, ``#``,
  ``&`` and control characters as mermaid entity codes ``#NNN;``).
* ``short_repr(value, limit)``: a bounded ``repr`` that never builds the repr of a whole large or
  deeply shared value (a billion-laughs list, a 50 MB string).
* ``clip(s, limit)``: a string cut to ``limit`` characters with the number of characters left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

# C0 except nothing (newline and tab are escaped too: one value is one line), DEL, C1, and the
# invisible formatting characters that reorder or hide text: ALM, LRM/RLM, LRE..RLO, LRI..PDI,
# zero-width space/joiners, word joiner, BOM/ZWNBSP, line/paragraph separators, interlinear marks.
_UNSAFE_CLASS = (
    "\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
)

_UNSAFE = f"[{_UNSAFE_CLASS}]"
# In JSON text, newline/tab/CR outside strings are layout; inside strings json.dumps escapes all C0.
_UNSAFE_IN_JSON = "[{}]".format(_UNSAFE_CLASS.replace("\x00-\x1f", "\x00-\x08\x0b\x0c\x0e-\x1f"))
# Both are compiled on first use (``re`` keeps what it compiled): together 2 ms of a cold CLI ask, whose text
# is all printable, so needs neither. Every unsafe character is one ``str.isprintable`` refuses, so text it
# accepts is returned as it is, checked in C (``tests/test_textsafe_json.py`` checks every code point).


def unsafe_pattern() -> re.Pattern[str]:
    """The pattern of unsafe characters (newline and tab included)."""
    return re.compile(_UNSAFE)


_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _esc(m: re.Match[str]) -> str:
    ch = m.group(0)
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(value: object) -> str:
    """``str(value)`` with control and invisible formatting characters shown as escapes."""
    s = value if isinstance(value, str) else str(value)
    return s if s.isprintable() else unsafe_pattern().sub(_esc, s)


def has_unsafe(text: str, *, allow_newlines: bool = True) -> bool:
    """True when ``text`` holds a character a terminal could interpret (ESC, C1, bidi, ...)."""
    if allow_newlines:
        text = text.replace("\n", "").replace("\t", "")
    return not text.isprintable() and unsafe_pattern().search(text) is not None


def markup_safe(value: object) -> str:
    """``visible(value)`` escaped for rich markup (``[`` that could open a tag)."""
    from rich.markup import escape

    return escape(visible(value))


def json_safe(text: str) -> str:
    """JSON text with every unsafe character ``\\u``-escaped (json.dumps leaves C1/bidi raw).

    Text ``str.isprintable`` accepts (with its newlines) is returned as it is, checked in C (a written
    trace: 5 µs, where the pattern takes 40).
    """
    if text.replace("\n", "").isprintable():
        return text
    return re.compile(_UNSAFE_IN_JSON).sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


_MERMAID_SPECIAL = set('"<>&#[](){}|`\\')


def mermaid_label(value: object, limit: int = 200) -> str:
    """A label for ``["..."]`` / ``|"..."|``: quotes, brackets, pipes, ``<>&#`` and anything not
    printable (control, bidi, zero-width) as mermaid entity codes ``#NNN;``."""
    s = clip(value if isinstance(value, str) else str(value), limit)
    return "".join(f"#{ord(ch)};" if ch in _MERMAID_SPECIAL or not ch.isprintable() else ch for ch in s)


def clip(value: str, limit: int = 200) -> str:
    """``value`` cut to ``limit`` characters, saying how many were left out."""
    if len(value) <= limit:
        return value
    return f"{value[:limit]}… ({len(value) - limit} more characters)"


def short_repr(value: Any, limit: int = 80) -> str:
    """A ``repr`` of at most about ``limit`` characters, built without the whole value's repr."""
    r = _bounded(value, limit + 1, 0)
    if len(r) > limit:
        r = r[: max(limit - 3, 1)] + "..."
    return visible(r)


def _bounded(value: Any, budget: int, depth: int) -> str:
    if isinstance(value, str):
        return repr(value[:budget]) if len(value) > budget else repr(value)
    if isinstance(value, bytes):
        return repr(value[:budget])
    if isinstance(value, (int, float, bool)) or value is None:
        s = repr(value)
        return s if len(s) <= budget else s[:budget]
    if depth > 8:
        return "..."
    items: Iterator[Any]
    if isinstance(value, dict):
        open_, close, items = "{", "}", ((k, v) for k, v in value.items())
    elif isinstance(value, (list, tuple, set, frozenset)):
        open_, close, items = ("[", "]", iter(value)) if not isinstance(value, tuple) else ("(", ")", iter(value))
        if isinstance(value, (set, frozenset)):
            open_, close = "{", "}"
    else:
        s = object.__repr__(value) if len(type(value).__name__) > budget else f"<{type(value).__name__}>"
        return s[:budget]
    out = open_
    for item in items:
        if len(out) >= budget:
            out += "..."
            break
        if len(out) > 1:
            out += ", "
        if isinstance(value, dict):
            k, v = item
            out += _bounded(k, budget - len(out), depth + 1) + ": " + _bounded(v, budget - len(out), depth + 1)
        else:
            out += _bounded(item, budget - len(out), depth + 1)
    return out + close
