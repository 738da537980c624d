"""A slot filled by a request of its own: "who owns the APIs that web-shop consumes", "what do Alice's teams own".

When the words of a phrasing's slot name no entity, they may describe one (or several) by a relation:
a relative clause ("the components that use the orders API", "the API that order-service provides"), a
modifier ("the team responsible for checkout-service", "the teams under Engineering") or a possessive
("Alice's teams"). Such a noun phrase is turned into the inner question it stands for ("which
components use the orders API", "which apis does order-service provide", "which teams are under
Engineering", "which teams is Alice in"), and that question is read by the whole interpreter (its
phrasings, its tolerant readings). An inner reading whose answer is of the slot's type feeds the
outer pattern: the composed chain is the inner pattern's hops, then the outer pattern's, from the inner
start entity; the engine runs it as any chain (a many-valued hop fans out to a set).

Deterministic and refusing when unsure: every reading of every inner question is tried, and the
composition is accepted only when all of them agree on one chain and one start entity; two that
differ are ``ambiguous_reading``. The interpretation records the composition (``reading``
``nested``; the outer phrasing and the inner question each as a ``WordMatch``), so the trace shows it.

Why a grammar of question frames rather than a parser: the frames are few and closed (a relative
pronoun, a possessive, a modifier after a head noun), every candidate must still be read by a declared
phrasing or the relation words of the catalog, and a dependency parser would bring a model onto the
ask path. Agreement and number ("which teams own", "what do ... own") are read as the phrasings' own
("which team owns", "what does ... own"): a question frame's number carries no relation.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from chainret.core.words import FILLERS, ascii_marks, ing_stems

from chainret.catalog.patterns import PatternSpec, parsed_phrasings, words

INNER_MAX = 24  # inner questions tried for one slot (each is interpreted once)
_DETERMINERS = ("the", "a", "an", "all", "any", "every", "each")
_RELATIVE = ("that", "which", "who", "whom")
# Words a modifier after a head noun begins with (a preposition, or an adjective that takes one).
_MODIFIERS = frozenset({"under", "in", "of", "for", "on", "at", "from", "with", "within", "inside", "behind", "below",
                        "above", "beneath", "responsible", "accountable", "owning", "using", "providing", "consuming"})
# Prepositions a relative clause may leave after its verb: "the resources that X depends on".
_STRANDED = frozenset({"on", "to", "from", "with", "of", "for", "in", "under", "by"})
# How a question frame's number is said in the phrasings: the verb after "do" / "are" / "have" in the singular.
_AGREE = {"do": "does", "are": "is", "have": "has", "were": "was"}
# The verb a possessive stands for where its owner holds things: "data services' APIs" are the APIs it owns (as
# "Alice's teams" are the teams she is on; every reading is tried, and two that both read are refused).
_POSSESSING = "own"


class Inner(NamedTuple):
    """One reading of a slot as an inner question."""

    question: str  # the inner question asked
    slot_words: str  # the slot's words as the request has them
    outer_phrasing: str
    outer_pattern: PatternSpec
    interpretation: Any  # the inner question's Interpretation


def _singular(word: str) -> str:
    low = word.lower()
    if low.endswith("ies") and len(low) > 4:
        return word[:-3] + "y"
    if low.endswith("s") and not low.endswith("ss") and len(low) > 3:
        return word[:-1]
    return word


def _base(verb: str) -> str:
    """``uses`` -> ``use``, ``provides`` -> ``provide``, ``belongs`` -> ``belong``, ``applies`` -> ``apply``."""
    low = verb.lower()
    if low.endswith("ies") and len(low) > 4:
        return verb[:-3] + "y"
    if low.endswith(("shes", "ches", "sses", "xes")):
        return verb[:-2]
    if low.endswith("s") and not low.endswith("ss"):
        return verb[:-1]
    return verb


def agreement_variants(text: str, vocab: set[str]) -> list[str]:
    """``text`` with its question frame in the phrasings' number: "which teams own X" -> "which team owns X",
    "what do X own" -> "what does X own", "what depend on X" -> "what depends on X" (only to words of ``vocab``)."""
    ws = text.split()
    if not ws:
        return []
    low = [w.lower().strip("?.!,") for w in ws]
    out: list[list[str]] = []
    new = list(ws)
    for i, w in enumerate(low[:3]):
        if w in _AGREE:
            new[i] = ws[i].lower().replace(w, _AGREE[w])
    if new != ws:
        out.append(new)
        if low[0] in ("which", "what") and len(ws) > 3 and low[2] in _AGREE and _singular(low[1]) != low[1]:
            out.append([ws[0], _singular(ws[1]), *new[2:]])  # "which systems are X in" -> "which system is X in"
    if low[0] in ("which", "what", "who") and len(ws) > 2:
        head = 1 if low[0] != "who" else 0
        verb = head + 1
        plural = head and _singular(low[head]) != low[head]
        if (plural or not head) and low[verb] not in _AGREE and low[verb] + "s" in vocab:
            cand = list(new)
            if head:
                cand[head] = _singular(ws[head])
            cand[verb] = ws[verb] + "s"
            out.append(cand)
    return [" ".join(v) for v in dict.fromkeys(tuple(v) for v in out)]


# The words a verb of a phrasing is followed by ("what depends on {x}", "what provides the system of {x}"), where a
# noun is followed by its verb ("which team owns {x}", "which apis does {x} consume").
_AFTER_VERB = frozenset({*_STRANDED, "the", "a", "an"})


def asked_noun(lits: Sequence[str], at: int) -> str | None:
    """The noun a phrasing asks with ("which team owns {x}": team; "which apis does {x} consume": apis), or None where
    the word after its question word is a verb: the slot follows it ("what provides {x}") or a preposition or an
    article does ("what depends on {x}"). A verb taken for a noun would let "what consumes X" be read as "what provides
    X" (two "nouns" asking for the same answer types), and a request that says "uses" read both ways."""
    if (at > 2 and len(lits) > 2 and lits[0] in ("which", "what") and lits[1] not in ("is", "are", "does", "do")
            and lits[2] not in _AFTER_VERB):
        return lits[1]
    return None


GENERIC_HEADS = frozenset({"thing", "things", "entity", "entities", "one", "ones", "item", "items", "stuff", "something",
                           "anything", "everything"})


def head_nouns(specs: Sequence[PatternSpec], types: Sequence[str], relation_nouns: Iterable[str] = ()
               ) -> frozenset[str]:
    """The nouns that may head a slot's noun phrase: the catalog's entity types, the nouns its phrasings ask
    with ("which team owns", "which apis does") and its relations' own nouns of one word ("the callers of the route
    api": its consumers), singular and plural, and a few generic ones ("things")."""
    nouns = {t.lower() for t in types} | set(relation_nouns)
    for _, _, lits, at, _ in parsed_phrasings(specs):
        if (noun := asked_noun(lits, at)) is not None:
            nouns.add(noun)
        elif len(lits) > 4 and lits[1] in ("is", "are") and lits[2] == "the" and lits[4] == "of":
            nouns.add(lits[3])  # a relation noun a phrasing asks with: "what are the subgroups of {group}"
    return frozenset({*nouns, *(_singular(n) for n in nouns), *(n + "s" for n in nouns), *GENERIC_HEADS})


def _heads(word: str, heads: frozenset[str] | None) -> bool:
    return heads is None or word.lower() in heads or _singular(word).lower() in heads


# A plural possessive ("online services' components"): the words keep no apostrophe at a word's end, so it is written
# as the possessive every other rule reads ("online services's components"); only after a word in "s" and before a word.
_PLURAL_POSSESSIVE = re.compile(r"(?<=[A-Za-z]s)'(?=\s+[A-Za-z])")


def plural_possessives(text: str) -> str:
    """``text`` with each plural possessive written as ``'s`` ("the teams' members" -> "the teams's members")."""
    return _PLURAL_POSSESSIVE.sub("'s", ascii_marks(text)) if "'" in text or "\u2019" in text else text


# A question word's contraction at the start ("who's on Alice's teams"), said in full for the outer phrasing to match.
_LEAD_CONTRACTION = re.compile(r"^\s*(who|what|where|which)'s(?=\s)", re.IGNORECASE)


def without_trailing_fillers(text: str) -> str:
    """``text`` without the filler words it ends with ("what do X's teams own now", "... these days": ``FILLERS``, the
    one list), which the outer phrasing's words would otherwise have to match."""
    toks = text.rstrip(" ?.!").split()
    low = [t.lower() for t in toks]
    cut = True
    while cut:
        cut = False
        for ph in FILLERS:
            if len(low) > len(ph) and tuple(low[-len(ph):]) == ph:
                toks, low, cut = toks[: -len(ph)], low[: -len(ph)], True
                break
    return " ".join(toks) if len(toks) < len(text.split()) else text


def inner_questions(slot: str, heads: frozenset[str] | None = None) -> list[str]:
    """The questions a slot's noun phrase may stand for, most literal first (none for a plain name, nor for a
    phrase whose head noun is none of ``heads``: ``head_nouns``; None accepts any)."""
    toks = words(plural_possessives(slot))
    low = [t.lower() for t in toks]
    while low and low[0] in _DETERMINERS:
        toks, low = toks[1:], low[1:]
    if len(toks) < 2:
        return []
    out: list[str] = []
    # a possessive: "Alice's teams" -> the teams Alice is in / on / part of, Alice's teams
    pos = _possessive_at(low)
    if pos is not None and pos < len(toks) - 1:
        if _heads(toks[-1], heads):
            return _possessed(" ".join([*toks[:pos], toks[pos][:-2]]), " ".join(toks[pos + 1 :]))
        if pos == 0 or not _reduced_relative(toks, heads):
            return []
        # a head noun, then a clause whose subject is a possessive: "resources team-b's components depend on"
    if _compound(toks, heads):  # "online services components": the possessive said without its mark
        return _possessed(" ".join(toks[:-1]), toks[-1])
    rel = _relative_at(low)
    if rel is not None and rel < len(toks) - 1:
        if not _heads(toks[rel - 1], heads):
            return []
        head, clause = " ".join(toks[:rel]), toks[rel + 1 :]
        said = " ".join(clause)
        out.append(f"which {head} {said}")  # the head does it
        if rel == 1:  # (without the head: only a head of one word, which the caller checks; "unowned X" is more)
            out += [f"what {said}", f"who {said}"]
        be = next((i for i, w in enumerate(clause) if w.lower() in ("is", "are") and i > 0), None)
        if be is not None:  # "the system that artist-lookup is part of": which system is artist-lookup part of
            rest = " ".join([*clause[:be], *clause[be + 1 :]])
            out.append(f"which {head} {clause[be].lower()} {rest}")
        elif len(clause) >= 2:  # the head is done to: "the API that order-service provides"
            out += _done_to(head, clause)
        return out
    # a past participle with its agent after the head noun: "APIs owned by data services" (which are owned by it)
    part = _participle(low)
    if part is not None and _heads(toks[0], heads):
        head, agent = toks[0], " ".join(toks[3:])
        out += [f"which {head} are {toks[1]} by {agent}", f"what is {toks[1]} by {agent}"]
        out += [q for base in part for q in (f"which {head} does {agent} {base}", f"what does {agent} {base}")]
        return out
    # a modifier after the head noun: "team responsible for checkout-service", "teams under Engineering"
    for k in (1, 2):
        if len(toks) - k >= 2 and low[k] in _MODIFIERS and _heads(toks[k - 1], heads):
            head, mod = " ".join(toks[:k]), " ".join(toks[k:])
            out += [f"which {head} are {mod}", f"which {head} is {mod}"]
            if low[k].endswith("ing"):  # "teams owning anything that ...": the teams that own it
                rest = " ".join(toks[k + 1:])
                out += [f"which {head} {base} {rest}" for base in ing_stems(low[k][:-3])]
            if k == 1:  # without the head: only a head of one word ("unowned components in S" is no "what is in S")
                out += [f"who is {mod}", f"what is {mod}"]
            if low[k] in ("in", "within", "inside"):  # "the teams in publishing": groups in a group are those under it
                out.append(f"which {head} are under {' '.join(toks[k + 1 :])}")
            if low[k] == "of":  # a relation noun of its own: "the subgroups of X" -> what are the subgroups of X
                out += [f"what are the {head} {mod}", f"what is the {head} {mod}", f"who are the {head} {mod}"]
                # or what X owns, as a possessive says it ("the components of team-web": team-web's components)
                out.append(f"what does {' '.join(toks[k + 1 :])} {_POSSESSING}")
    if not out and _reduced_relative(toks, heads):  # "the components HPC Ops owns": the clause without its "that"
        out += _done_to(toks[0], toks[1:])
    return out


# An inner question that asks with a verb of its own ("which teams own ...", not "which teams is X in") about a noun phrase
# that holds a clause, a modifier or a possessive of its own ("the APIs in S", "the components that use X", "S's parts")
_INNER_CLAUSE = (r"(?i)^\s*(?:which|what)\s+[a-z]+\s+(?!(?:is|are|was|were|does|do|did)\b)[a-z]+\s+.*"
                 r"(?:\b[a-z]+s\s+(?:that|which|who|in|of|under|owned|used|consumed|provided)\s+\S|'s\s+[a-z])")
_INNER_CLAUSE_COMPILED: list[re.Pattern[str]] = []


def holds_inner_clause(question: str) -> bool:
    """Whether an inner question is read one level deeper (``chainret.query.interpret``): "which teams own the APIs in
    the payments platform" (for "who is on the teams that own the APIs in the payments platform"). A cheap test of its
    words, so that every other inner question keeps its flat reading: a second level for every inner question made
    unread asks about five times dearer, as each of its up to ``INNER_MAX`` questions was read by every route again."""
    if not _INNER_CLAUSE_COMPILED:  # (compiled on first use: never on a request that a literal reading answers)
        _INNER_CLAUSE_COMPILED.append(re.compile(_INNER_CLAUSE))
    return _INNER_CLAUSE_COMPILED[0].search(question) is not None


def _possessed(owner: str, head: str) -> list[str]:
    """The questions "<owner>'s <head>" may stand for: the heads the owner is in, on or part of, that are in it ("the
    payments platform's APIs": the APIs in that system), or that it owns; every reading is tried and two that read
    differently are refused."""
    several = [f"who are {owner}'s {head}", f"what are {owner}'s {head}"] if _singular(head) != head else []
    return [f"which {head} is {owner} in", f"which {head} is {owner} on", f"which {head} is {owner} part of",
            f"which {head} are in {owner}", f"what is in {owner}",
            f"which {head} does {owner} belong to", f"who is {owner}'s {head}", f"what is {owner}'s {head}", *several,
            f"which {head} does {owner} {_POSSESSING}", f"what does {owner} {_POSSESSING}"]


def _possessive_at(low: Sequence[str]) -> int | None:
    """Where the possessive that the phrase's head noun takes is ("Alice's teams": 0), or None: a possessive after a
    clause, a modifier or a participle's "by" is inside it ("APIs consumed by X's components": the APIs are the head,
    X's components the agent), and the phrase is read as that."""
    for i, w in enumerate(low):
        if w.endswith("'s"):
            return i
        if i > 0 and (w in _RELATIVE or w in _MODIFIERS or w in _DETERMINERS or w == "by"):
            return None  # (a determiner after the head starts a clause's subject: "buckets the billing team's ...")
    return None


def _compound(toks: Sequence[str], heads: frozenset[str] | None) -> bool:
    """Whether a phrase is a name and then a plural head noun of the catalog ("online services components", "kenji
    teams"): the possessive English also says without its mark. Only where ``heads`` is given, the head is plural and in
    lower case, and the words before it are plain words of a name (no clause, modifier or preposition: those are read as
    such)."""
    if heads is None or len(toks) < 2 or not toks[-1].islower() or not _heads(toks[-1], heads) or _singular(toks[-1]) == toks[-1]:
        return False  # (a head noun in capitals is a name's word: "Data Services")
    low = [t.lower() for t in toks[:-1]]
    return not any(w in _MODIFIERS or w in _RELATIVE or w in _STRANDED or w in _DETERMINERS or w.endswith("'s")
                   or w in heads for w in low)


def _relative_at(low: Sequence[str]) -> int | None:
    """Where the relative clause that the phrase's head noun takes begins, or None: in "members of the team that owns X"
    the clause is the team's, inside a modifier of "members" (read as a modifier: who are the members of ...); in
    "APIs provided by the components that use X" it is the agent's, after a participle's "by"."""
    rel = next((i for i, w in enumerate(low) if w in _RELATIVE and i > 0), None)
    return None if rel is None or any(w in _MODIFIERS or w == "by" for w in low[1:rel]) else rel


def _done_to(head: str, clause: Sequence[str]) -> list[str]:
    """The questions of a relative clause whose head is done to ("the API that order-service provides": which API does
    order-service provide), its verb last or before a preposition it leaves at the end ("the resources that X depends
    on": X depend on them)."""
    verb = len(clause) - 2 if len(clause) >= 3 and clause[-1].lower() in _STRANDED else len(clause) - 1
    obj = " ".join([*clause[:verb], _base(clause[verb]), *clause[verb + 1 :]])
    return [f"which {head} does {obj}", f"which {head} do {obj}", f"what does {obj}"]


def _participle(low: Sequence[str]) -> tuple[str, ...] | None:
    """The base forms a past participle after the head noun may have ("owned": own, owne; "supplied": supply), where the
    phrase is head, participle, ``by``, an agent of at least one word; else None. Both forms are tried: the one that
    is no verb of the catalog reads as nothing."""
    if len(low) < 4 or low[2] != "by" or not low[1].endswith("ed") or len(low[1]) < 5:
        return None
    word = low[1]
    return (word[:-3] + "y",) if word.endswith("ied") else (word[:-2], word[:-1])


def _reduced_relative(toks: Sequence[str], heads: frozenset[str] | None) -> bool:
    """Whether a phrase is a head noun and a relative clause said without its "that": a catalog head noun (never any
    word: ``heads`` must be given), then at least two words ending in a verb of the third person ("the components HPC
    Ops owns") or in a preposition the verb leaves there ("the resources X depends on")."""
    if heads is None or len(toks) < 3 or not _heads(toks[0], heads):
        return False
    last = toks[-1].lower()
    at = len(toks) - 2 if last in _STRANDED and len(toks) >= 4 else len(toks) - 1
    verb = toks[at].lower()
    if not verb.isalpha() or toks[-1][0].isupper():
        return False
    if verb.endswith("s") and not verb.endswith("ss"):
        return True
    # a plural subject's verb: "the buckets the billing team's services depend on" (a plural head noun of the catalog
    # just before the verb, so that a name's last word is never read as a verb)
    return at >= 2 and _heads(toks[at - 1], heads) and _singular(toks[at - 1]) != toks[at - 1]


def slot_head(slot: str) -> str | None:
    """The head noun of a slot's noun phrase as ``inner_questions`` reads it ("resources" of "the resources that X
    depends on", "teams" of "Alice's teams"), or None for a phrase of one word."""
    toks = words(plural_possessives(slot))
    low = [t.lower() for t in toks]
    while low and low[0] in _DETERMINERS:
        toks, low = toks[1:], low[1:]
    if len(toks) < 2:
        return None
    if _possessive_at(low[:-1]) is not None:
        return low[-1]
    rel = _relative_at(low)
    if rel is not None:
        return low[rel - 1]
    if _participle(low) is not None:
        return low[0]
    modified = next((low[k - 1] for k in (1, 2) if len(low) - k >= 2 and low[k] in _MODIFIERS), None)
    if modified is None and _reduced_relative(toks, frozenset({low[0]})):  # "the components HPC Ops owns"
        return low[0]
    if modified is None and _compound(toks, frozenset({low[-1]})):  # "online services components"
        return low[-1]
    return modified


def lone_head(slot: str) -> bool:
    """Whether the head noun of a slot's noun phrase (``slot_head``) is said alone, no other word in its part of the
    phrase ("Client Tech's components", "the APIs that X owns"; not "X's core components", "call APIs that X owns"):
    a reading that keeps only the noun's types of what it reaches says what the noun says, and nothing is left unread."""
    toks = [t.lower() for t in words(plural_possessives(slot))]
    while toks and toks[0] in _DETERMINERS:
        toks = toks[1:]
    head = slot_head(slot)
    if head is None:
        return False
    pos = _possessive_at(toks[:-1])
    if pos is not None:
        return pos == len(toks) - 2
    rel = _relative_at(toks)
    if rel is not None:
        return rel == 1
    return toks[0] == head or toks[-1] == head


def headless(text: str) -> tuple[str, list[str]] | None:
    """"which components depend on X" as ("components", ["what depend on X", "what depends on X"]): the question
    without its head noun, its verb in either number, to be read only where the noun's type is checked against
    every answer (``chainret.query.interpret``)."""
    ws = text.split()
    low = [w.lower() for w in ws]
    if len(ws) < 4 or low[0] not in ("which", "what") or low[1] in _AGREE or low[1] in _AGREE.values():
        return None
    verb = low[2]
    agreed = _AGREE.get(verb) or (verb if verb.endswith("s") or verb.endswith("ed") else
                                  verb[:-1] + "ies" if verb.endswith("y") else verb + "es" if verb.endswith(("sh", "ch", "x")) else verb + "s")
    return low[1], list(dict.fromkeys((" ".join(["what", *ws[2:]]), " ".join(["what", agreed, *ws[3:]]))))


class Outer(NamedTuple):
    """A phrasing whose words stand around the slot words (the slot may hold any words, a possessive too)."""

    pattern: PatternSpec
    phrasing: str
    slot_type: str
    slot_text: str


def outer_matches(text: str, specs: Sequence[PatternSpec]) -> list[Outer]:
    """Every phrasing whose words are the request's, before and after a slot of at least two words."""
    toks = words(text)
    low = [t.lower() for t in toks]
    out: list[Outer] = []
    for pat, phrasing, lits, at, slot_type in parsed_phrasings(specs):
        before, after = lits[:at], lits[at:]
        n = len(low) - len(lits)
        if n >= 2 and low[: len(before)] == before and low[len(before) + n :] == after:
            out.append(Outer(pat, phrasing, slot_type, " ".join(toks[len(before) : len(before) + n])))
    return out


def nested_readings(
    request: str,
    specs: Sequence[PatternSpec],
    vocab: set[str],
    read: Callable[[str], Any],
    range_of: Callable[[str], tuple[str, ...]],
    heads: frozenset[str] | None = None,
) -> list[Inner]:
    """Every (outer phrasing, inner question) reading of ``request`` whose inner answer may be of the outer
    slot's type. ``read(text)`` interprets an inner question (an ``interpret`` Reading); ``range_of(predicate)``
    is a predicate's range types (a union: ``group|user``)."""
    out: list[Inner] = []
    asked: dict[str, Any] = {}  # an inner question read once, whatever outer phrasing it fills
    request = _LEAD_CONTRACTION.sub(r"\1 is", without_trailing_fillers(plural_possessives(request)))
    said = [request, *agreement_variants(request, vocab)]
    # "what" and "which" ask the same before a head noun and a verb of being or doing ("what systems are X in"): the
    # phrasings say one or the other
    said += [re.sub(r"^(\s*)(what|which)\b", lambda m: m.group(1) + ("which" if m.group(2).lower() == "what" else "what"), t,
                    flags=re.IGNORECASE) for t in said if len(t.split()) > 3 and _heads(t.split()[1], heads or frozenset())
              and t.split()[2].lower() in {*_AGREE, *_AGREE.values()}]
    for text in dict.fromkeys(said):
        for m in outer_matches(text, specs):
            questions = [a for q in inner_questions(m.slot_text, heads) for a in [q, *agreement_variants(q, vocab)]]
            for q in questions[:INNER_MAX]:
                if q not in asked:
                    asked[q] = read(q).interpretation
                inner = asked[q]
                if inner is not None and m.slot_type in range_of(inner.predicates[-1]):
                    out.append(Inner(q, m.slot_text, m.phrasing, m.pattern, inner))
    return out


# -- a chain said as steps -------------------------------------------------------------------------------
_STEP_SPLIT = r"\s*(?:,|;|\.)?\s*\b(?:and\s+)?then\b\s*"
_STEP_LEADS = ("find", "get", "look up", "tell me", "show me", "give me", "what is", "who is", "which is")
_BACK = ("that", "this", "the", "its", "their", "his", "her")


def steps_question(request: str) -> str | None:
    """A chain said as steps ("find V-12's supplier, then that supplier's certifier, then its contact") as one
    possessive question ("who is V-12's supplier's certifier's contact"); None when the words are not steps
    that each name the previous step's result ("that supplier's", "its", "their") and one relation noun."""
    import re

    parts = [p.strip(" ?.!,") for p in re.split(_STEP_SPLIT, request.strip(), flags=re.IGNORECASE)]
    if len(parts) < 2 or not all(parts):
        return None
    first = parts[0]
    low = first.lower()
    for lead in _STEP_LEADS:
        if low.startswith(lead + " "):
            first = first[len(lead) + 1 :]
            break
    chain = [first.removeprefix("the ").removeprefix("The ")]
    for part in parts[1:]:
        ws = part.split()
        lw = [w.lower() for w in ws]
        for lead in _STEP_LEADS:  # "then find its contact"
            n = len(lead.split())
            if lw[:n] == lead.split() and len(ws) > n:
                ws, lw = ws[n:], lw[n:]
                break
        if len(ws) < 2 or lw[0] not in _BACK:
            return None
        if lw[0] in ("its", "their", "his", "her"):
            noun = ws[1:]
        else:  # "that supplier's certifier": the step names the previous result by its noun, then the new noun
            at = next((i for i, w in enumerate(lw) if w.endswith("'s")), None)
            if at is None or at == len(ws) - 1:
                return None
            previous = chain[-1].lower().rpartition("'s ")[2]
            if " ".join([*lw[1:at], lw[at][:-2]]) != previous:  # "that operator's" after "PR-84's operator"
                return None
            noun = ws[at + 1 :]
        chain.append(" ".join(noun))
    return "who is " + "'s ".join(chain)
