"""Request interpretation: match the request's words against declared phrasing templates.

A catalog relation pattern (e.g. ``contact_for_project``: start type ``project``, hops
``[operated_by, contact]``) lists phrasings with one typed slot, such as
``"which contact serves {project}"`` or ``"who is the contact for project {project:project}"``.
Matching is case- and punctuation-insensitive: both sides are split into word tokens
(``chainret.core.words.REQUEST_WORD``: IDs and aliases such as ``PR-84`` stay whole) and compared token
by token; the slot takes one or more request tokens. The words that filled the slot are kept exactly as the requester wrote them.

Tolerated, each as a reading tried after the plain one (the caller resolves readings in order):

* typographic apostrophes and hyphens (``PR‑84``, ``PR-7’s``) read as their ASCII forms;
* a possessive for a template's ``the <noun> of {slot}``: "Who certifies G-7's supplier?" reads
  as "who certifies the supplier of {part}" with slot ``G-7``. A possessive the templates do not
  express ("Which contact serves PR-7's supplier?" against "which contact serves {project}") is no
  match: the slot never swallows "X's <noun>", so such a request gets ``no_pattern`` (and phrasing
  suggestions), not an answer about X;
* trailing filler words after the slot (``today``, ``now``, ``currently``, ``please``, ``right
  now``, ...; ``chainret.core.words.FILLERS``, which the tolerant readings drop too): "Which contact serves PR-84 today?" also reads with slot ``PR-84``
  (``Match.ignored`` names the words dropped). Other trailing words stay in the slot, so a request
  that says more than a template is never answered as if it said less;
* punctuation glued between a template word and the slot ("serves:PR-84") when no plain reading
  matches;
* another article in a template's words, or none ("which files is X the code owner of" for "which files is
  {codeowner} a code owner of", "which files is X code owner of"), when no other reading matches, or when the
  slot another reading took ends in "a", which may end a name ("Plan A") or begin the template's words: "a", "an"
  and "the" say nothing a relation turns on; the articles next to the slot go with the template's words, so the
  slot is the name alone (two readings whose slots both name something are refused by the caller as ambiguous).

A phrasing must hold its slot as a word of its own (``phrasing_problem``); ``chainret validate``
reports one that does not, and matching skips it rather than failing at ask time.

This module is table-driven and does no I/O; resolving the slot text to a canonical ID is the
caller's job (it needs the view).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import NamedTuple

from chainret.core.words import FILLERS, REQUEST_WORD, ascii_marks

_SLOT = re.compile(r"^\{(\w+)(?::(\w+))?\}$")
_SLOT_ANYWHERE = re.compile(r"\{[^{}]*\}")
_EDGE_PUNCT = ".,;:!?\"'()"
_POSSESSIVE = re.compile(r"^(.+)'s$", re.IGNORECASE)
_DETERMINERS = ("the", "a", "an")
_GLUE = r"^([A-Za-z]+)[:/.]([0-9A-Za-z].*)$"  # (compiled by ``re`` when a request first matches no phrasing)


class PatternSpec(NamedTuple):
    """What the matcher needs from a catalog pattern."""

    name: str
    start_type: str
    predicates: tuple[str, ...]
    phrasings: tuple[str, ...]


class Match(NamedTuple):
    """A phrasing that matched: the pattern, the slot name/type and the slot's original words."""

    pattern: PatternSpec
    phrasing: str
    slot: str
    slot_type: str
    slot_text: str
    literal_tokens: int  # how many template words matched literally (more = more specific)
    ignored: tuple[str, ...] = ()  # trailing filler words this reading dropped
    reading: str = "plain"  # plain | filler | possessive | glued | articles


def words(text: str) -> list[str]:
    """Word tokens with their original spelling (punctuation between words dropped; typographic
    apostrophes and hyphens as ASCII)."""
    return REQUEST_WORD.findall(ascii_marks(text))


class PhrasingError(ValueError):
    """A phrasing template that cannot be matched (no slot, several slots, a slot glued to a word)."""


@lru_cache(maxsize=4096)
def _parsed(phrasing: str, default_type: str) -> tuple[list[str], int, str, str]:
    parts = phrasing.split()
    lits: list[str] = []
    slot_at, slot, slot_type = -1, "", default_type
    for part in parts:
        m = _SLOT.match(part.strip(_EDGE_PUNCT))
        if m:
            if slot_at >= 0:
                raise PhrasingError(f"phrasing {phrasing!r} has more than one slot")
            slot_at, slot, slot_type = len(lits), m.group(1), m.group(2) or (default_type or m.group(1))
            continue
        if _SLOT_ANYWHERE.search(part):
            raise PhrasingError(
                f"phrasing {phrasing!r}: the slot in {part!r} is glued to other characters; write it as a word "
                "of its own, with spaces around it (punctuation such as '?' or ',' may touch it)"
            )
        lits.extend(w.lower() for w in words(part))
    if slot_at < 0:
        raise PhrasingError(f"phrasing {phrasing!r} has no {{slot}}")
    if not lits:
        raise PhrasingError(f"phrasing {phrasing!r} has no words besides its slot, so it would match any request")
    return lits, slot_at, slot, slot_type


def phrasing_problem(phrasing: str, start_type: str = "") -> str | None:
    """Why ``ask`` could not use this phrasing (None: usable). The rule ``chainret validate`` applies."""
    try:
        _parsed(phrasing, start_type)
    except PhrasingError as exc:
        from chainret.core.textsafe import clip, visible

        return clip(visible(str(exc)), 300)
    return None


def _possessive_variant(lits: list[str], at: int) -> tuple[list[str], list[str]] | None:
    """For ``... [the] <noun words> of {slot} ...``: (words before, noun words) of the ``X's noun`` form."""
    before = lits[:at]
    if len(before) < 2 or before[-1] != "of":
        return None
    head = before[:-1]
    for k in range(1, min(4, len(head)) + 1):  # the nearest determiner within four words
        if head[-k] in _DETERMINERS:
            nouns = head[len(head) - k + 1 :]
            return (head[:-k], nouns) if nouns else None
    return head[:-1], head[-1:]


_FILLER_LAST = frozenset(f[-1] for f in FILLERS)


def _strip_fillers(low: list[str]) -> int:
    """How many trailing tokens are filler words (0 when none)."""
    n = 0
    while True:
        if len(low) - n < 2 or low[len(low) - n - 1] not in _FILLER_LAST:
            return n  # no filler can end here (one needs a word before it): the loop below would find none
        for f in FILLERS:
            if len(low) - n > len(f) and tuple(low[len(low) - n - len(f) : len(low) - n]) == f:
                n += len(f)
                break
        else:
            return n


def _slot_ok(slot_words: list[str]) -> bool:
    """A slot never swallows ``X's <more words>`` (a relation of X that the template does not say), nor ends with
    "the" or "an", which begin a template's words ("what is X the code owner of"), never end a name ("Plan A" may)."""
    return not any(_POSSESSIVE.match(w) for w in slot_words[:-1]) and slot_words[-1].lower() not in ("the", "an")


def _slot_text(slot_words: list[str]) -> str:
    text = " ".join(slot_words)
    m = _POSSESSIVE.match(slot_words[-1]) if slot_words else None
    if m and len(slot_words) == 1:
        return m.group(1)
    return text


def _match_tokens(toks: list[str], low: list[str], patterns: Iterable[PatternSpec], reading: str,
                  ignored: tuple[str, ...] = ()) -> list[Match]:
    """The matches of the tokens ``toks`` (``low``: the same, lower-cased)."""
    found: list[Match] = []
    for pat, phrasing, (before, after, slot, slot_type, n_lits, possessive) in _compiled_phrasings(patterns):
        nb = len(before)
        n_slot = len(low) - n_lits
        if n_slot >= 1 and low[:nb] == before and low[nb + n_slot :] == after:
            slot_words = toks[nb : nb + n_slot]
            if _slot_ok(slot_words):
                found.append(Match(pat, phrasing, slot, slot_type, _slot_text(slot_words), n_lits, ignored, reading))
        if possessive is None:
            continue
        pre, tail = possessive
        n_slot = len(low) - len(pre) - len(tail)
        if n_slot < 1 or low[: len(pre)] != pre or low[len(pre) + n_slot :] != tail:
            continue
        slot_words = toks[len(pre) : len(pre) + n_slot]
        m = _POSSESSIVE.match(slot_words[-1])
        if m is None or not _slot_ok(slot_words):
            continue
        text = " ".join([*slot_words[:-1], m.group(1)])
        found.append(Match(pat, phrasing, slot, slot_type, text, n_lits, ignored, "possessive"))
    return found


def _compiled_phrasings(patterns: Iterable[PatternSpec]) -> Iterator[tuple[PatternSpec, str, _Compiled]]:
    """Each pattern's phrasings, compiled (``_compiled``); one that does not compile is skipped: `chainret validate`
    reports it, and an ask never fails on it with a traceback."""
    for pat in patterns:
        for phrasing in pat.phrasings:
            try:
                yield pat, phrasing, _compiled(phrasing, pat.start_type)
            except PhrasingError:
                continue


_Compiled = tuple[list[str], list[str], str, str, int, "tuple[list[str], list[str]] | None"]


@lru_cache(maxsize=4096)
def _compiled(phrasing: str, default_type: str) -> _Compiled:
    """A phrasing as ``_match_tokens`` compares it, worked out once: its words before and after the slot, the
    slot's name and type, its word count, and the ``X's noun`` form's words before the slot and after it (None
    when it has none). The lists are shared between calls: read, never changed."""
    lits, at, slot, slot_type = _parsed(phrasing, default_type)
    after = lits[at:]
    variant = _possessive_variant(lits, at)
    return lits[:at], after, slot, slot_type, len(lits), None if variant is None else (variant[0], variant[1] + after)


def match_request(request: str, patterns: Iterable[PatternSpec]) -> list[Match]:
    """Every (pattern, phrasing) whose template covers the whole request, most specific first.

    Readings, in this order within one specificity: the plain one, then the one without trailing
    filler words; readings with punctuation glued between a template word and the slot only when
    nothing else matched.
    """
    patterns = list(patterns)
    toks = words(request)
    low = [t.lower() for t in toks]
    found = _match_tokens(toks, low, patterns, "plain")
    n = _strip_fillers(low)
    if n:
        found += _match_tokens(toks[:-n], low[:-n], patterns, "filler", tuple(toks[-n:]))
    if not found:
        glued = _unglue(toks, patterns)
        if glued != toks:
            found = _match_tokens(glued, [t.lower() for t in glued], patterns, "glued")
    if not found:
        found = _match_articles(toks, low, patterns)
    elif any(m.slot_text.lower().endswith(" a") for m in found):  # "what is X a code owner of": "X a" is a name or not
        found += [m for m in _match_articles(toks, low, patterns) if all(m.slot_text != f.slot_text for f in found)]
    if len(found) > 1:
        found.sort(key=_specific_first)
    return found


_READING_ORDER = {"plain": 0, "possessive": 0, "filler": 1, "glued": 2, "articles": 3}


def _bare(words_: Sequence[str]) -> list[str]:
    return [w for w in words_ if w not in _DETERMINERS]


def _match_articles(toks: list[str], low: list[str], patterns: Iterable[PatternSpec]) -> list[Match]:
    """The matches whose template words equal the request's once every article is left out of both (the module
    docstring). The request's words before the slot are the shortest run that reads as the template's, with the
    articles after it; those after the slot the shortest run, with the articles before it: the slot is what is left,
    never an article alone nor empty."""
    found: list[Match] = []
    for pat, phrasing, (before, after, slot, slot_type, n_lits, _) in _compiled_phrasings(patterns):
        want_b, want_a = _bare(before), _bare(after)
        nb = _run_end(low, want_b)
        na = _run_end(low[::-1], want_a[::-1])
        if nb is None or na is None or nb + na >= len(low):
            continue
        slot_words = toks[nb : len(low) - na]
        if not _bare([w.lower() for w in slot_words]) or not _slot_ok(slot_words):
            continue
        found.append(Match(pat, phrasing, slot, slot_type, _slot_text(slot_words), n_lits, (), "articles"))
    return found


def _run_end(low: Sequence[str], want: list[str]) -> int | None:
    """How many of ``low``'s first words read as ``want`` with articles among them and after them, or None (none
    where ``want`` is empty: an article at the request's edge is the slot's, "who owns Plan A")."""
    if not want:
        return 0
    i = k = 0
    while k < len(want):
        if i < len(low) and low[i] in _DETERMINERS:
            i += 1
            continue
        if i >= len(low) or low[i] != want[k]:
            return None
        i, k = i + 1, k + 1
    while i < len(low) and low[i] in _DETERMINERS:
        i += 1
    return i


def _specific_first(m: Match) -> tuple[int, int, str, str]:
    return (-m.literal_tokens, _READING_ORDER[m.reading], m.pattern.name, m.phrasing)


def _unglue(toks: list[str], patterns: Sequence[PatternSpec]) -> list[str]:
    """Split ``serves:PR-84`` into ``serves`` ``PR-84`` where the left part is a template word."""
    vocab: set[str] = set()
    for pat in patterns:
        for phrasing in pat.phrasings:
            try:
                vocab.update(_parsed(phrasing, pat.start_type)[0])
            except PhrasingError:
                continue
    out: list[str] = []
    for t in toks:
        m = re.match(_GLUE, t)
        if m and m.group(1).lower() in vocab:
            out.extend([m.group(1), m.group(2)])
        else:
            out.append(t)
    return out


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


def parsed_phrasings(patterns: Iterable[PatternSpec]) -> Iterator[tuple[PatternSpec, str, list[str], int, str]]:
    """Each usable phrasing of ``patterns`` as (pattern, phrasing, its words, where the slot is, the slot's type);
    a phrasing that cannot be matched is left out (``chainret validate`` reports it)."""
    for pat in patterns:
        for phrasing in pat.phrasings:
            try:
                lits, at, _, slot_type = _parsed(phrasing, pat.start_type)
            except PhrasingError:
                continue
            yield pat, phrasing, lits, at, slot_type


def suggest_phrasings(request: str, patterns: Iterable[PatternSpec], n: int = 3) -> list[tuple[str, str]]:
    """The ``n`` usable phrasings closest to the request's words: (pattern name, phrasing)."""
    from difflib import SequenceMatcher  # only for a request that matched nothing: not imported on the ask path

    req = [w.lower() for w in words(request)]
    scored: list[tuple[float, str, str]] = []
    for pat, phrasing, lits, at, _ in parsed_phrasings(patterns):
        tmpl = [*lits[:at], "\x00slot", *lits[at:]]
        sm = SequenceMatcher(None, req, tmpl, autojunk=False)
        scored.append((sm.ratio(), pat.name, phrasing))
    scored.sort(key=lambda s: (-s[0], s[1], s[2]))
    return [(name, phrasing) for _, name, phrasing in scored[:n]]
