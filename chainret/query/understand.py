"""Tolerant interpretation: the readings tried when a request is not a declared phrasing word for word.

Deterministic and table-driven (no model). ``chainret.query.interpret`` tries the literal readings of
``chainret.catalog.patterns`` first; only when none of them resolves does it ask this module, and it
accepts a tolerant reading only when every route that reads the request agrees on one pattern and
one entity. Every word of the request must be accounted for: matched to a phrasing, to a relation
word, to the entity, or dropped as one of a closed list of politeness, filler and question-frame
words (``IGNORED_LEADING``, ``FILLER_WORDS``). A word left over (``not``, ``except``, ``and``,
``in 2020``, an instruction) means no tolerant reading at all, so a request that says more than a
pattern is never answered as if it said less.

Routes, each producing (pattern, entity words, how):

* **canonical phrasing**: request and phrasing compared after the same rewriting: case,
  punctuation and quotes, contractions (``who's``), hyphenated template words (``on-call``),
  ``what`` for ``which``, ``who is``/``what is`` for each other, politeness and filler anywhere they
  are listed, a fronted topic (``PR-84: which contact serves it?``, ``For PR-84, who is the
  contact?``), and the tail of a phrasing said another way (``the instrument that E-9 uses`` for
  ``the instrument used by {experiment}``);
* **glued words**: a word of the catalog's phrasings or relations written together with the next
  (``oncall``) reads as the two, as ``pr84`` reads as PR-84;
* **keywords**: a request of names and nouns only, read as the pattern words "for" the entity words
  at every split (``PR-84 contact``, ``contact PR-84``, ``cart-api on-call``; ``keyword_variants``);
* **composed**: the chain said relation by relation, with each predicate's nouns and verbs
  (``chainret.query.lexicon``): ``the contact of the operator of PR-84``, ``PR-84's operator's contact``,
  ``which lab certifies the company that supplies G-7``. The chain must equal a pattern's hops.

Entity words are resolved by ``resolve_mention``: exact (ID, name, alias), normalised (case,
spacing, punctuation, a determiner or the slot's type word: ``pr84``, ``PR 84``, ``cart api``,
``the Billing service``), then a typo at bounded edit distance in letters only (digits never
differ, so ``PR-83`` is never ``PR-84``). Only entities the principal may know are candidates;
several within the bound are an ambiguity (refused with the candidates), never a pick.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import product
from typing import Any, NamedTuple

from chainret.query.lexicon import Lexicon, lexicon
from chainret.catalog.names import NameLookup, digits_of, label_words, name_key
from chainret.catalog.patterns import PatternSpec, PhrasingError, _parsed, words
from chainret.core.words import FILLERS, ascii_marks

# -- request words ---------------------------------------------------------------------------------
# Leading politeness and question frames, longest first (dropped only at the start of the request).
IGNORED_LEADING: tuple[tuple[str, ...], ...] = tuple(sorted((
    ("please",), ("kindly",), ("hi",), ("hello",), ("hey",), ("quick", "question"), ("excuse", "me"),
    ("tell", "me"), ("please", "tell", "me"), ("can", "you", "tell", "me"), ("could", "you", "tell", "me"),
    ("can", "you", "please", "tell", "me"), ("could", "you", "please", "tell", "me"), ("would", "you", "tell", "me"),
    ("do", "you", "know"), ("i", "want", "to", "know"), ("i", "need", "to", "know"), ("i'd", "like", "to", "know"),
    ("i", "would", "like", "to", "know"), ("show", "me"), ("give", "me"), ("find",), ("find", "me"), ("lookup",),
    ("look", "up"), ("quick", "one"), ("i", "need"), ("looking", "for"), ("i'm", "looking", "for"),
    ("i", "am", "looking", "for"),
    # a polite request around an instruction or a question: "could you list ...", "can you please give me ..."
    ("could", "you"), ("can", "you"), ("would", "you"), ("could", "you", "please"), ("can", "you", "please"),
    ("would", "you", "please"),
    # a request to identify what follows: "could you identify the people on ..." ("list" is a frame of its own, which
    # takes a plural: chainret.query.frames)
    ("identify",), ("please", "identify"), ("could", "you", "identify"), ("can", "you", "identify"),
), key=len, reverse=True))
# Words that add nothing a view or pattern could use, dropped wherever they stand as whole phrases.
FILLER_WORDS = FILLERS  # the one list, shared with the phrasing matcher (chainret.core.words)
_QWORDS = {"who", "what", "which", "where"}
_FILLER_SINGLE = frozenset(w for ph in (*FILLER_WORDS, *IGNORED_LEADING) for w in ph)
_CONTRACTIONS = {"who's": ("who", "is"), "what's": ("what", "is"), "where's": ("where", "is"), "which's": ("which", "is")}
# The words that point back at a fronted topic ("dana lee - which team is she on"): a thing's and a person's alike
_PRONOUNS = {"it", "this", "that", "them", "its", "he", "she", "him", "they", "his", "their"}
POSSESSIVE_PRONOUNS = frozenset({"its", "his", "their"})
_DEMONSTRATIVES = frozenset({"this", "that"})
# Verbs a question word's contraction may be followed by when typed in haste ("whos was on X", "whats does X own"):
# the verb said is the question's, and the contraction's "is" is dropped rather than read twice.
_SAID_VERB = frozenset({"is", "was", "were", "are", "does", "did", "do"})
_DETERMINERS = ("the", "a", "an")
# A noun that says only that a name names something ("the telemetry ingest thing"): dropped behind a name as the slot's
# type word is (a name that ends in it is matched whole first).
_GENERIC_TAIL = frozenset({"thing", "thingy", "thingie"})
# (a pattern, compiled by ``re`` when a tolerant reading first needs it: not on a literal ask's path)
_TOPIC = r"^\s*(?:(?:for|about|regarding|re)\s+)?(?P<topic>[^:,]+?)\s*(?::|,|\s[-\u2013\u2014]\s)\s*(?P<rest>.+)$"


def _strip_phrases(low: list[str], phrases: Sequence[tuple[str, ...]], anywhere: bool) -> tuple[list[int], list[str]]:
    """Indexes kept and words dropped, removing listed phrases (at the start only, or anywhere)."""
    keep: list[int] = []
    dropped: list[str] = []
    i = 0
    started = False
    while i < len(low):
        if anywhere or not started:
            for ph in phrases:
                if tuple(low[i : i + len(ph)]) == ph:
                    dropped.append(" ".join(ph))
                    i += len(ph)
                    break
            else:
                keep.append(i)
                started = True
                i += 1
            continue
        keep.append(i)
        i += 1
    return keep, dropped


class Prepared(NamedTuple):
    """The request's words after the rewriting every route shares."""

    toks: list[str]  # original spelling
    low: list[str]
    ignored: list[str]
    how: str = "canonical"


GLUED_MAX_CHARS = 40  # two template words run together; a longer "word" is never tried (each try slices it)


def _unglued(word: str, vocab: set[str]) -> int | None:
    """Where a word of letters not itself in ``vocab`` splits into two words that are (``oncall``: 2), else None."""
    if not 5 <= len(word) <= GLUED_MAX_CHARS or word in vocab or not word.isalpha():
        return None
    cuts = [i for i in range(2, len(word) - 1) if word[:i] in vocab and word[i:] in vocab]
    return cuts[0] if len(cuts) == 1 else None


def prepare(text: str, vocab: set[str]) -> Prepared | None:
    """Words with contractions expanded, template words unhyphenated or unglued, politeness and filler dropped."""
    raw = words(text)
    toks: list[str] = []
    for k, w in enumerate(raw):
        lw = w.lower()
        if lw in _CONTRACTIONS and k + 1 < len(raw) and raw[k + 1].lower() in _SAID_VERB:
            toks.append(_CONTRACTIONS[lw][0])  # "whos was on X": the verb is said after it, so the "'s" is none
        elif lw in _CONTRACTIONS:
            toks.extend(_CONTRACTIONS[lw])
        elif "-" in w and all(p.isalpha() and p.lower() in vocab for p in lw.split("-")):
            toks.extend(w.split("-"))
        elif (glued := _unglued(lw, vocab)) is not None:  # "oncall" for "on call", as "pr84" is PR-84
            toks.extend((w[: glued], w[glued:]))
        else:
            toks.append(w)
    low = [w.lower() for w in toks]
    keep, dropped = _strip_phrases(low, IGNORED_LEADING, anywhere=False)
    toks, low = [toks[i] for i in keep], [low[i] for i in keep]
    keep, dropped2 = _strip_phrases(low, FILLER_WORDS, anywhere=True)
    toks, low = [toks[i] for i in keep], [low[i] for i in keep]
    # An embedded question after "tell me" / "I'd like to know": "who the contact for PR-84 is".
    if dropped and low and low[0] in _QWORDS and len(low) > 2 and low[-1] == "is" and "is" not in low[1:-1]:
        toks = [toks[0], "is", *toks[1:-1]]
        low = [w.lower() for w in toks]
    if not toks:
        return None
    return Prepared(toks, low, dropped + dropped2)


def pointing_words(low: Sequence[str]) -> list[int]:
    """Where the lower-cased words point back at a topic or at what a sentence before named: a pronoun, where a
    personal one is said ("it", "them", "its") the personal ones only, so that the "that" of a relative clause ("who is
    on the team that owns it") is no second pointer; else "this" / "that" ("who runs that")."""
    said = [i for i, w in enumerate(low) if w in _PRONOUNS]
    personal = [i for i in said if low[i] not in _DEMONSTRATIVES]
    return personal or said


def topic_variants(text: str, pointed: bool = False) -> list[tuple[str, str]]:
    """A fronted topic rewritten into the request: (rewritten request, topic words). ``pointed``: only where one word of
    the request points back at the topic ("the matchmaker - which APIs does it call"), not the topic said after it."""
    m = re.match(_TOPIC, ascii_marks(text), re.IGNORECASE | re.DOTALL)
    if not m:
        return []
    topic, rest = m.group("topic").strip(), m.group("rest").strip()
    if not words(topic) or not words(rest):
        return []
    rest_words = words(rest)
    low = [w.lower() for w in rest_words]
    out: list[tuple[str, str]] = []
    pron = pointing_words(low)
    if len(pron) == 1:
        i = pron[0]
        sub = f"{topic}'s" if low[i] in POSSESSIVE_PRONOUNS else topic
        out.append((" ".join([*rest_words[:i], sub, *rest_words[i + 1 :]]), topic))
    elif not pron and not pointed:
        out.append((f"{rest.rstrip('?.! ')} for {topic}", topic))
    return out


# Keyword requests, a search box's habit: "PR-84 contact", "contact PR-84", "cart-api on call", "G-7 supplier
# certifier". Read as the words of a pattern "for" the entity words, or as the entity's chain of nouns
# ("G-7's supplier's certifier"), at every split of the request; the readings are then held to the same
# rules as any other (every word accounted for, one pattern and one entity across all readings, else a
# refusal), so a split never picks between meanings. Only requests of names and nouns: a question word,
# a verb of being or doing, a negation, a comparison or a joining word means the request says something
# the other routes read (or refuse), never a keyword list.
KEYWORDS_MAX_WORDS = 6  # (each split is read as a request: a longer list of words costs too much to try)
KEYWORD_CHAIN_GROUPED = 3  # a chain of up to this many words is tried grouped every way (2^(n-1) readings)
_NOT_KEYWORDS = frozenset({
    "who", "whom", "whose", "what", "which", "where", "when", "why", "how",
    "is", "are", "was", "were", "be", "been", "do", "does", "did", "can", "could", "should", "would", "will", "shall",
    "may", "might", "must", "has", "have", "had",
    "not", "no", "never", "none", "nor", "without", "except", "excluding", "other", "than", "more", "less", "most",
    "least", "only", "but", "and", "or", "of", "for", "at", "by", "in", "from", "to", "with", "about", "vs",
    "ignore", "pretend", "set", "show", "tell", "list", "all", "every", "each", "any",
})


def keyword_variants(text: str, vocab: set[str]) -> list[str]:
    """A keyword request rewritten at each split into "<pattern words> for <entity words>" (both ways round)
    and into the entity's possessive chain of the words after it. The pattern side of a split must be
    words of the catalog's phrasings and relations (``vocab``) or filler: a request of other words has no
    split worth reading, and costs nothing more."""
    ws = words(text)
    low = [w.lower() for w in ws]
    if not 2 <= len(ws) <= KEYWORDS_MAX_WORDS or _NOT_KEYWORDS.intersection(low) or any(w.endswith("'s") for w in low):
        return []
    known = [w in vocab or w in _FILLER_SINGLE or all(p in vocab for p in w.split("-")) or _unglued(w, vocab) is not None
             for w in low]
    out: list[str] = []
    for k in range(1, len(ws)):
        head, tail = " ".join(ws[:k]), " ".join(ws[k:])
        if all(known[k:]):
            out.append(f"{tail} for {head}")  # "PR-84 contact"
            out += [f"{head}'s {chain}" for chain in _noun_chains(ws[k:])]  # "G-7 supplier certifier"
        if all(known[:k]):
            out.append(f"{head} for {tail}")  # "contact PR-84"
    return list(dict.fromkeys(out))


def _noun_chains(ws: list[str]) -> list[str]:
    """The words as a possessive chain of nouns, each noun one word or several ("operator's on-call engineer"):
    every grouping for a short chain, one word a noun for a longer one."""
    if len(ws) > KEYWORD_CHAIN_GROUPED:
        return ["'s ".join(ws)]
    # between two words: the same noun goes on (" ") or the next noun begins ("'s ")
    return [ws[0] + "".join(sep + w for sep, w in zip(seps, ws[1:])) for seps in product((" ", "'s "), repeat=len(ws) - 1)]


# -- phrasings in canonical form ---------------------------------------------------------------------
def canonical_frame(low: list[str]) -> list[str]:
    """``what`` reads as ``which``; ``what is`` / ``which is`` as ``who is``."""
    out = list(low)
    if len(out) >= 2 and out[0] in ("what", "which") and out[1] == "is":
        out[0] = "who"
    elif out and out[0] == "what":
        out[0] = "which"
    return out



class Reading(NamedTuple):
    """One tolerant reading: the pattern, the words naming its start entity, and how it was read."""

    pattern: PatternSpec
    mention: tuple[str, ...]  # original spelling
    route: str  # "tolerant" (a phrasing) or "composed" (relation by relation)
    phrasing: str | None = None
    relations: tuple[tuple[str, str], ...] = ()  # (words, predicate) of a composed reading
    ignored: tuple[str, ...] = ()
    via: str = ""  # "topic" when a fronted topic was rewritten, "keywords" for a keyword request


def _template_parts(phrasing: str, start_type: str) -> tuple[list[str], list[str]] | None:
    try:
        lits, at, _, _ = _parsed(phrasing, start_type)
    except PhrasingError:
        return None
    return lits[:at], lits[at:]


def phrasing_readings(prep: Prepared, patterns: Sequence[PatternSpec], lex: Lexicon) -> list[Reading]:
    """The request against each phrasing in canonical form; the slot may be said as a noun phrase."""
    low = canonical_frame(prep.low)
    out: list[Reading] = []
    for pat in patterns:
        for phrasing in pat.phrasings:
            parts = _template_parts(phrasing, pat.start_type)
            if parts is None:
                continue
            before, after = canonical_frame(parts[0]) if parts[0] else [], parts[1]
            # A slot said as a chain that begins the hops ("the org that operates PR-86") is read only
            # when the phrasing's own words express no hop over the slot: "which site calibrates the
            # instrument used by E-7's instrument" must not read as the site for E-7.
            stated = any(lex.tail_chains(before[k:], pat.start_type) for k in range(len(before)))
            if after:  # a phrasing with words after its slot ("where is ... {experiment} calibrated")
                n = len(low) - len(before) - len(after)
                if n >= 1 and low[: len(before)] == before and low[len(before) + n :] == after:
                    out += _slot_readings(prep.toks[len(before) : len(before) + n], pat, phrasing, lex, prep, [], stated)
                continue
            # The phrasing's own tail, read as a chain over the slot, may be said another way:
            # "the instrument used by {experiment}" == "the instrument that E-9 uses".
            for k in range(len(before), -1, -1):
                if low[:k] != before[:k]:
                    continue
                tail_t = before[k:]
                chains_t = lex.tail_chains(tail_t, pat.start_type) if tail_t else [[]]
                if not chains_t:
                    continue
                for chain_t in chains_t:
                    for chain_r, mention, rels in lex.noun_phrase(prep.toks[k:], prep.low[k:]):
                        if chain_r == chain_t and mention:
                            out.append(Reading(pat, tuple(mention), "tolerant", phrasing, tuple(rels), tuple(prep.ignored)))
                        elif not chain_t and not stated and chain_r and mention and _prefix(chain_r, pat.predicates):
                            # "which contact serves the org that operates PR-86": the phrasing stated of the org
                            out.append(Reading(pat, tuple(mention), "composed", phrasing, tuple(rels), tuple(prep.ignored)))
    return out


def _prefix(chain: list[str], hops: Sequence[str]) -> bool:
    return 0 < len(chain) < len(hops) and list(hops[: len(chain)]) == chain


def _slot_readings(slot: list[str], pat: PatternSpec, phrasing: str, lex: Lexicon, prep: Prepared,
                   chain_t: list[str], stated: bool) -> list[Reading]:
    out = []
    for chain_r, mention, rels in lex.noun_phrase(slot, [w.lower() for w in slot]):
        if chain_r == chain_t and mention:
            out.append(Reading(pat, tuple(mention), "tolerant", phrasing, tuple(rels), tuple(prep.ignored)))
        elif not chain_t and not stated and mention and _prefix(chain_r, pat.predicates):
            out.append(Reading(pat, tuple(mention), "composed", phrasing, tuple(rels), tuple(prep.ignored)))
    return out


def composed_readings(prep: Prepared, patterns: Sequence[PatternSpec], lex: Lexicon) -> list[Reading]:
    """The chain said relation by relation; it must equal a pattern's hops exactly."""
    out = []
    for chain, mention, rels in lex.question(prep.toks, prep.low):
        for pat in patterns:
            if list(pat.predicates) == chain and mention:
                out.append(Reading(pat, tuple(mention), "composed", None, tuple(rels), tuple(prep.ignored)))
    return out


# The tolerant readings compare word sequences pairwise (prefixes of the request against prefixes and
# tails of each phrasing), so their cost grows with the square of the lengths. People's requests and
# phrasings are short; a request or phrasing of more words than this is read literally only, so a
# hostile catalog (an 8-million-character phrasing) or request cannot make interpretation hang.
TOLERANT_MAX_WORDS = 48


def _short(phrasing: str) -> bool:
    return len(phrasing.split(None, TOLERANT_MAX_WORDS)) <= TOLERANT_MAX_WORDS


def tolerant_readings(request: str, patterns: Sequence[PatternSpec], catalog: Any) -> list[Reading]:
    """Every tolerant reading of the request (not yet resolved: the caller resolves the mentions)."""
    if not _short(request):
        return []
    # a long phrasing is left out, never its pattern: the pattern still counts for composed readings and ambiguity
    patterns = [p if all(_short(ph) for ph in p.phrasings) else p._replace(phrasings=tuple(ph for ph in p.phrasings if _short(ph)))
                for p in patterns]
    lex = lexicon(catalog)
    vocab = lex.vocabulary(patterns)
    texts: list[tuple[str, str]] = [(request, "")] + [(t, "topic") for t, _ in topic_variants(request)]
    texts += [(t, "keywords") for t in keyword_variants(request, vocab)]
    out: list[Reading] = []
    for text, via in texts:
        prep = prepare(text, vocab)
        if prep is None:
            continue
        if prep.low[0] not in _QWORDS:  # a bare noun phrase ("contact for PR-84?") asks "who is ..."
            for frame in (["who", "is"], ["who", "is", "the"]):
                bare = Prepared([*frame, *prep.toks], [*frame, *prep.low], prep.ignored)
                out += [Reading(r.pattern, r.mention, r.route, r.phrasing, r.relations, r.ignored, via)
                        for r in phrasing_readings(bare, patterns, lex)]
        elif prep.low[0] in ("which", "what") and len(prep.low) > 2 and prep.low[1] not in ("is", "are"):
            # "which contact for PR-84" (and a fronted topic, "PR-84: which contact?") asks "who is the
            # contact for PR-84": the words after the question word must then read as a noun phrase.
            bare = Prepared(["who", "is", "the", *prep.toks[1:]], ["who", "is", "the", *prep.low[1:]], prep.ignored)
            out += [Reading(r.pattern, r.mention, r.route, r.phrasing, r.relations, r.ignored, via)
                    for r in phrasing_readings(bare, patterns, lex)]
        found = phrasing_readings(prep, patterns, lex) + composed_readings(prep, patterns, lex)
        out += [Reading(r.pattern, r.mention, r.route, r.phrasing, r.relations, r.ignored, via) for r in found]
    return out


# -- entity words ------------------------------------------------------------------------------------
_DIGITS = re.compile(r"[0-9]+")


def osa_distance(a: str, b: str, bound: int) -> int:
    """Optimal-string-alignment edit distance (adjacent swaps count 1); ``bound + 1`` once it exceeds ``bound``."""
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > bound:
            return bound + 1
        prev2, prev = prev, cur
    return prev[-1] if prev[-1] <= bound else bound + 1


def typo_bound(key: str) -> int:
    """How many letter edits a name of this length may carry: none under 5 characters, 1 up to 8, else 2."""
    letters = sum(c.isalpha() for c in key)
    return 0 if letters < 5 else 1 if letters <= 8 else 2


class Mention(NamedTuple):
    """The outcome of resolving entity words of one type."""

    words: str  # the words as the requester wrote them
    entities: list[Any]  # several: ambiguous; none: unknown
    how: str = "exact"  # exact | alias | name | normalised | typo
    label: str | None = None
    distance: int | None = None
    cleaned: str = ""


def _variants(text: str, type_words: set[str]) -> list[str]:
    """The words without determiners, quotes and the slot's type word in front or behind."""
    ws = words(text)
    low = [w.lower() for w in ws]
    while low and low[0] in _DETERMINERS:
        ws, low = ws[1:], low[1:]
    out = [" ".join(ws)]
    if len(low) > 1 and low[0] in type_words:
        out.append(" ".join(ws[1:]))
    if len(low) > 1 and (low[-1] in type_words or low[-1] in _GENERIC_TAIL):
        out.append(" ".join(ws[:-1]))
    return [v for v in dict.fromkeys(out) if v]


def _band(n: int, bound: int) -> tuple[int, int]:
    return n - bound, n + bound


def resolve_mention(text: str, type_: str, cv: Any, type_words: set[str]) -> Mention:
    """Entity words -> the entities of ``type_`` the principal may know (exact, normalised, then typo).

    Candidates come from the view's ``name_lookup()`` (``chainret.catalog.names``): only entities that share
    the key, or the digits and a key length within the bound, are compared."""
    variants = _variants(text, type_words)
    for v in variants:
        ents = cv.resolve(v, type=type_)
        if ents:
            how = "exact" if v == text else "normalised"
            return Mention(text, ents, how, v, cleaned=v)
    lookup = cv.name_lookup()
    for v in variants:
        key = name_key(v)
        if not key:
            continue
        runs = _DIGITS.findall(v)  # "PR 84" is PR-84, but "PR-8 4" is not: digit runs are never joined
        hits = {e.id: label for e in lookup.by_key(type_, key) for label in e.labels
                if name_key(label) == key and _DIGITS.findall(label) == runs}
        known = [(i, lab) for i, lab in hits.items() if cv.knows(i)]
        if known:
            return Mention(text, lookup.entities(sorted(i for i, _ in known)), "normalised",
                           known[0][1] if len(known) == 1 else None, cleaned=v)
    handles = _team_handles(text, type_, cv)
    if handles:
        return Mention(text, handles, "normalised", handles[0].name if len(handles) == 1 else None, cleaned=text)
    # A typo only when the words name nothing else exactly (of another type: say so instead).
    if any(cv.resolve(v) for v in variants):
        return Mention(text, [], "exact", cleaned=variants[0] if variants else text)
    for v in variants:
        key = name_key(v)
        bound = typo_bound(key)
        if bound == 0:
            continue
        digits = _DIGITS.findall(v)
        best: dict[str, tuple[int, str]] = {}
        for e in lookup.near(type_, digits_of(key), *_band(len(key), bound)):
            for label in e.labels:
                lk = name_key(label)
                if _DIGITS.findall(label) != digits:
                    continue
                d = osa_distance(key, lk, bound)
                if d <= bound and (e.id not in best or d < best[e.id][0]):
                    best[e.id] = (d, label)
        known_hits = sorted(((d, i, label) for i, (d, label) in best.items() if cv.knows(i) and not _word_more(v, label)),
                            key=lambda x: (x[0], x[1]))
        if known_hits and _all_name_words(v, type_, lookup, cv):
            continue  # "card-api" is made of real name words (card-sync, cart-api): another name, not a typo
        if len(known_hits) == 1:
            d, i, label = known_hits[0]
            return Mention(text, lookup.entities([i]), "typo", label, d, cleaned=v)
        if known_hits:
            return Mention(text, lookup.entities([x[1] for x in known_hits]), "typo", cleaned=v)
    return Mention(text, [], "exact", cleaned=variants[0] if variants else text)


# The words a GitHub team is called by after its slug: "the online-services team", "the online-services github team"
_TEAM_TAILS = (("github", "team"), ("gh", "team"), ("team",))


def _team_handles(text: str, type_: str, cv: Any) -> list[Any]:
    """The entities of ``type_`` the principal may know whose name is a GitHub team's handle ("@acme/online-services", as
    CODEOWNERS names it) ending in the words before a team word ("the online-services github team"); none for other
    words. Several (two organisations' teams of one slug) are an ambiguity, refused with them by the caller."""
    low = [w.lower() for w in words(text)]
    while low and low[0] in _DETERMINERS:
        low = low[1:]
    tail = next((t for t in _TEAM_TAILS if len(low) > len(t) and tuple(low[-len(t):]) == t), None)
    slug = label_words(" ".join(low[: -len(tail)])) if tail is not None else []
    if not slug:
        return []
    return sorted((e for e in cv.name_lookup().owners_of(type_, slug[0])
                   if e.type == type_ and e.name.startswith("@") and "/" in e.name
                   and label_words(e.name.rsplit("/", 1)[1]) == slug and cv.knows(e.id)), key=lambda e: e.id)


def _word_more(text: str, label: str) -> bool:
    """Whether ``text`` is ``label`` with one whole word more ("client tech in": Client Tech and "in"). Such words are
    within the typo bound only because the word is short, and the word is one the request says, no slip of a key:
    "what systems are the components of client tech in" must not read "in" into the name and drop the question's
    ending (it answered with what Client Tech owns)."""
    ws = label_words(text)
    want = name_key(label)
    return len(ws) > 1 and any(name_key(" ".join(ws[:i] + ws[i + 1 :])) == want for i in range(len(ws)))


def _all_name_words(text: str, type_: str, lookup: NameLookup, cv: Any) -> bool:
    """True when every word of ``text`` is a word of some known ``type_`` entity's name, alias or ID.

    A typo is a word no name has; words that all occur in names ("card" in card-sync, "api" in
    cart-api) put together differently name something else, so they are not corrected.
    """
    mine = set(label_words(text))
    if not mine:
        return False
    return all(lookup.has_word(type_, w, cv.knows) for w in mine)


def suggest_entities(text: str, type_: str | None, cv: Any, n: int = 3) -> list[Any]:
    """Entities the principal may know whose names are close to ``text`` (did you mean), closest first.

    A ratio of at least 0.75 needs the shorter key to be at least 0.6 of the longer one, so only
    keys of that length band (and the same digits) are compared."""
    import difflib

    key = name_key(text)
    if len(key) < 2:
        return []
    digits = _DIGITS.findall(key)
    scored: list[tuple[float, str]] = []
    lo, hi = (3 * len(key)) // 5 - 1, (5 * len(key)) // 3 + 1
    lookup = cv.name_lookup()
    for e in lookup.near(type_, digits_of(key), lo, hi):
        if type_ is not None and e.type != type_:
            continue
        best = 0.0
        for label in e.labels:
            lk = name_key(label)
            if _DIGITS.findall(lk) != digits:
                continue
            best = max(best, difflib.SequenceMatcher(None, key, lk, autojunk=False).ratio())
        if best >= 0.75:
            scored.append((best, e.id))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return lookup.entities([i for _, i in scored if cv.knows(i)][:n])


# More completions than this that the reader knows: none are listed ("Bob" of a thousand Bobs names nobody in
# particular), and no more are read. Whether there are is the reduced catalog's answer too: only entities the
# reader knows count.
COMPLETIONS_MOST = 200


def name_completions(text: str, type_: str, cv: Any, n: int = 8) -> list[Any]:
    """Entities of ``type_`` the principal may know whose display name begins with the words ``text`` and says more
    ("Bob" for "Bob Smith" and "Bob Jones"): a first name alone names none of them, so the refusal lists them (did
    you mean), never picks one. At most ``n``, by name; none for words that are a whole name or no name's start, or
    where more than ``COMPLETIONS_MOST`` names start so."""
    mine = label_words(text)
    if not mine or not all(w.isalpha() for w in mine):
        return []
    out: list[Any] = []
    for e in cv.name_lookup().owners_of(type_, mine[0]):  # (a name that starts with the words has the first)
        if e.type == type_ and len(words_ := label_words(e.name)) > len(mine) and words_[: len(mine)] == mine and cv.knows(e.id):
            out.append(e)
            if len(out) > COMPLETIONS_MOST:
                return []
    return sorted(out, key=lambda e: (e.name.casefold(), e.id))[:n]
