"""The word rules: how text splits into words, and which request words are filler. Each rule has one home here.

Every reader of words builds on one run of ASCII letters and digits and one list of joining punctuation
(``JOINERS``). The variants differ on purpose, and each says why:

* ``SEARCH_TOKEN`` (``chainret.engine.search.tokenize``: the in-memory index, the compiled stores' index and
  every query): applied to lower-cased text. A run joins on ``JOINERS`` when a letter or digit follows, so
  an alias (``PR-84``), a canonical ID (``type:world:name``) and a unit ref (``registry/projects.md@v2#u3``)
  are one token each and a hop's exact-ID subquery matches that ID, never its parts; a sentence's closing
  ``.`` or ``?`` is no part of a token. Changing it changes every index, score and golden trace.
* ``REQUEST_WORD`` (``chainret.catalog.patterns.words``: the phrasing matcher and the tolerant readings):
  the same joiners plus the apostrophe, case kept. The slot keeps the requester's spelling, and a
  possessive (``PR-7's``, ``who's``) stays one word for the possessive and contraction readings to take
  apart; search has no such readings, so it does not join on the apostrophe.
* ``PLAIN_WORD`` / ``NOT_PLAIN_WORD`` (name keys and label words in ``chainret.catalog.names``; the
  research layers' prose tokenizers): letters and digits only, no joiners, on text the caller lower-cases
  or case-folds. A name compared loosely must equal whatever punctuation the requester used (``PR 84``,
  ``pr84``, ``cart-api``), and benchmark prose is words, not IDs.

``ascii_marks`` reads typographic apostrophes and hyphens (``PR\u201184``, ``PR-7\u2019s``: what a phone or a
word processor types) as their ASCII forms, before any of the above reads a request.

``FILLERS`` is the one list of request words that add nothing a view or a pattern could use (``today`` is
the current view anyway; ``--view`` picks another). The phrasing matcher drops them after the slot, the
tolerant readings wherever they stand; both read this list, so a word is filler to both or to neither.
The question frames dropped only at a request's start (``chainret.query.understand.IGNORED_LEADING``)
are another rule: "tell me" is no filler in the middle of a request.
"""

from __future__ import annotations

import re

# The punctuation that joins letters and digits into one ID, alias or unit ref. ("-" stays first: in a
# character class it is then a literal hyphen.)
JOINERS = "-:_./@#"
APOSTROPHE = "'"


def _joined(run: str, joiners: str) -> re.Pattern[str]:
    """Runs of ``run`` characters, joined by one of ``joiners`` when another run follows."""
    return re.compile(rf"{run}+(?:[{joiners}]{run}+)*")


SEARCH_TOKEN = _joined("[0-9a-z]", JOINERS)
REQUEST_WORD = _joined("[0-9A-Za-z]", JOINERS + APOSTROPHE)
PLAIN_WORD = re.compile(r"[0-9a-z]+")
NOT_PLAIN_WORD = re.compile(r"[^0-9a-z]+")

# Typographic apostrophes and hyphens, each read as its ASCII form.
_TYPOGRAPHIC = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2010": "-", "\u2011": "-",
                              "\u2012": "-", "\u2013": "-", "\u2212": "-", "\ufe63": "-", "\uff0d": "-"})


def ascii_marks(text: str) -> str:
    """``text`` with typographic apostrophes and hyphens as ASCII ``'`` and ``-`` (unchanged when ASCII)."""
    return text if text.isascii() else text.translate(_TYPOGRAPHIC)  # (the marks are not ASCII)


# Longest first, so a matcher that tries them in order takes "right now" before "now".
FILLERS: tuple[tuple[str, ...], ...] = tuple(sorted((
    ("today",), ("now",), ("currently",), ("presently",), ("nowadays",), ("right", "now"), ("at", "the", "moment"),
    ("at", "present"), ("these", "days"), ("as", "of", "today"), ("as", "of", "now"), ("again",),
    ("please",), ("kindly",), ("for", "me"), ("thanks",), ("thank", "you"), ("thanks", "a", "lot"),
    ("many", "thanks"), ("cheers",),
), key=len, reverse=True))


# Fragments said after a request that ask for nothing but the answer itself, in the form every answer has ("payments
# team members, names only", "... just the names"): a request's discourse drops them (``chainret.query.discourse``).
TRAILING_FRAGMENTS: frozenset[tuple[str, ...]] = frozenset({
    ("need", "names"), ("names", "please"), ("names", "only"), ("just", "names"), ("just", "the", "names"),
    ("need", "the", "names"), ("names",), ("need", "a", "list"), ("a", "list", "please"), ("asap",), ("urgent",),
    ("thanks", "in", "advance"), ("ty",), ("thx",),
})


# Contractions typed without their apostrophe ("dont", "isnt", "whos"): none of them is an English word of its own
# ("cant", "wont" and "its" are, and are left alone).
_UNMARKED = {"dont": "don't", "doesnt": "doesn't", "didnt": "didn't", "isnt": "isn't", "arent": "aren't",
             "wasnt": "wasn't", "werent": "weren't", "hasnt": "hasn't", "havent": "haven't", "hadnt": "hadn't",
             "whos": "who's", "whats": "what's", "wheres": "where's"}
_UNMARKED_WORD = re.compile(r"(?<![\w'-])(" + "|".join(_UNMARKED) + r")(?![\w'-])", re.IGNORECASE)


def apostrophes(text: str) -> str:
    """``text`` with its contractions typed without the apostrophe written with it ("which teams dont own" ->
    "which teams don't own"); a word of a name (hyphenated, or inside a longer word) is left alone."""
    return _UNMARKED_WORD.sub(lambda m: _UNMARKED[m.group(1).lower()], text)


def ing_stems(stem: str) -> list[str]:
    """The base forms an -ing form's stem may have, each tried by its reader (the one that is no verb reads as nothing):
    "review" (reviewing), "approve" (approving), "run" (running)."""
    out = [stem, stem + "e"]
    if len(stem) > 2 and stem[-1] == stem[-2]:
        out.insert(0, stem[:-1])
    return out


def third_person(verb: str) -> str:
    """A verb's present third person singular, as a question puts it after "who" / "what" ("own" -> "owns", "rely" ->
    "relies", "do" -> "does", "have" -> "has"): one rule for every reader that turns a verb into the form the
    catalog's phrasings say."""
    low = verb.lower()
    if low == "have":
        return verb[:-2] + "s"
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(low) > 1 and low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"
