"""Request interpretation: match the request's words against declared phrasing templates.

A catalog relation pattern (e.g. ``contact_for_project``: start type ``project``, hops
``[operated_by, contact]``) lists phrasings with one typed slot, such as
``"which contact serves {project}"`` or ``"who is the contact for project {project:project}"``.
Matching is case- and punctuation-insensitive: both sides are split into word tokens (IDs and
aliases such as ``PR-84`` stay whole) and compared token by token; the slot takes one or more
request tokens. The words that filled the slot are kept exactly as the requester wrote them.

This module is table-driven and does no I/O; resolving the slot text to a canonical ID is the
caller's job (it needs the view).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# Request words with their original spelling; same joining punctuation as the search tokenizer.
_WORD = re.compile(r"[0-9A-Za-z]+(?:[-:_./@#'][0-9A-Za-z]+)*")
_SLOT = re.compile(r"^\{(\w+)(?::(\w+))?\}$")


@dataclass(frozen=True)
class PatternSpec:
    """What the matcher needs from a catalog pattern."""

    name: str
    start_type: str
    predicates: tuple[str, ...]
    phrasings: tuple[str, ...]


@dataclass(frozen=True)
class Match:
    """A phrasing that matched: the pattern, the slot name/type and the slot's original words."""

    pattern: PatternSpec
    phrasing: str
    slot: str
    slot_type: str
    slot_text: str
    literal_tokens: int  # how many template words matched literally (more = more specific)


def words(text: str) -> list[str]:
    """Word tokens with their original spelling (punctuation between words dropped)."""
    return _WORD.findall(text)


def _template(phrasing: str, default_type: str) -> tuple[list[str], int, str, str]:
    """Split a phrasing into lower-cased literal words with one slot position."""
    parts = phrasing.split()
    lits: list[str] = []
    slot_at, slot, slot_type = -1, "", default_type
    for part in parts:
        m = _SLOT.match(part.strip(".,;:!?\"'()"))
        if m:
            if slot_at >= 0:
                raise ValueError(f"phrasing {phrasing!r} has more than one slot")
            slot_at, slot, slot_type = len(lits), m.group(1), m.group(2) or (default_type or m.group(1))
            continue
        lits.extend(w.lower() for w in words(part))
    if slot_at < 0:
        raise ValueError(f"phrasing {phrasing!r} has no {{slot}}")
    return lits, slot_at, slot, slot_type


def match_request(request: str, patterns: Iterable[PatternSpec]) -> list[Match]:
    """Every (pattern, phrasing) whose template covers the whole request, most specific first."""
    toks = words(request)
    low = [t.lower() for t in toks]
    found: list[Match] = []
    for pat in patterns:
        for phrasing in pat.phrasings:
            lits, at, slot, slot_type = _template(phrasing, pat.start_type)
            before, after = lits[:at], lits[at:]
            n_slot = len(low) - len(lits)
            if n_slot < 1:
                continue
            if low[: len(before)] != before or low[len(before) + n_slot :] != after:
                continue
            slot_words = toks[len(before) : len(before) + n_slot]
            found.append(Match(pat, phrasing, slot, slot_type, " ".join(slot_words), len(lits)))
    found.sort(key=lambda m: (-m.literal_tokens, m.pattern.name, m.phrasing))
    return found


def best_matches(matches: Sequence[Match]) -> list[Match]:
    """The most specific matches, one per distinct (pattern, slot text) reading."""
    if not matches:
        return []
    top = matches[0].literal_tokens
    seen: dict[tuple[str, str], Match] = {}
    for m in matches:
        if m.literal_tokens == top:
            seen.setdefault((m.pattern.name, m.slot_text), m)
    return list(seen.values())
