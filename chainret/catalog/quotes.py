"""Where a quote occurs in a text: offsets and 1-based lines (shared by validation and authoring)."""

from __future__ import annotations


def line_of(text: str, offset: int) -> int:
    """1-based line number of a character offset."""
    return text.count("\n", 0, offset) + 1


def line_col(text: str, offset: int) -> str:
    """``line 9, column 12`` (both 1-based): two places on one line stay apart."""
    return f"line {line_of(text, offset)}, column {offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def occurrences(text: str, quote: str) -> list[int]:
    """Start offsets of every occurrence of ``quote`` in ``text`` (overlaps included)."""
    out, i = [], text.find(quote) if quote else -1
    while i >= 0:
        out.append(i)
        i = text.find(quote, i + 1)
    return out


def where_quote_occurs(text: str, quote: str) -> str:
    """``the quote occurs at [a, b) (line n)``, or that it occurs nowhere in this text."""
    found = occurrences(text, quote)
    if not found:
        return "the quote does not occur anywhere in this document version"
    at = ", ".join(f"[{s}, {s + len(quote)}] (line {line_of(text, s)})" for s in found[:5])
    more = f" and {len(found) - 5} more" if len(found) > 5 else ""
    return f"the quote occurs at {at}{more}"
