"""A request of several sentences or clauses: which one asks, and what a word in it points back to.

People write context before a question ("Hello! First week here. Who owns the checkout service?"), a
statement and then the question about it ("cart api is failing, who do I page"), a pronoun that points back ("I'm
editing a PR that changes src/cart.py. Who must review it?"), and a fragment after it ("payments team
members, names only"). ``read_discourse(text, names_in)`` returns the one request those words stand for, for every
reader of the pipeline to read as if it had been said alone, with what was dropped and what a pointing word was read
as (the trace records both); a refusal where the words ask two questions or point at two things; None where the text
is no such discourse (a plain request: the readers read it as said).

The rules, each a closed grammar rather than a parser (no model on the ask path, and nothing read that the rules do
not name):

* the question is the one sentence or clause that asks: a question mark, a question word, or an instruction to
  list / show / give / tell; two that ask are two questions: refused, never one picked;
* a word that points back (``it``, ``them``, ``this``, ``that``, ``the owning team``) is the ONE thing the context
  names (an entity of the view, with the noun phrase it stands in: "a PR that touches P"); none or two: not read;
* "which ones?" after "some of our Ns <clause>" asks "which Ns <clause>";
* a question that names nothing of its own is asked of the one thing the context names ("cart api is failing, who do
  I page": "who do I page for cart api"), as a fronted topic is (``chainret.query.understand.topic_variants``);
* context is otherwise dropped only where it names no entity and says nothing a reader could use (no time, no
  negation, no instruction): context that names another entity than the question's must not change the answer
  silently, so it is refused; context with a time or an instruction leaves the request as said.

Which words name an entity is the view's to say (``names_in``, given by the caller): this module reads sentences.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from chainret.catalog.names import name_key
from chainret.catalog.patterns import words
from chainret.core.words import FILLERS, TRAILING_FRAGMENTS, ascii_marks

if TYPE_CHECKING:
    from chainret.trace.model import Interpretation

# A sentence's end followed by more words, a clause's comma, a dash or colon between a statement and a question: the
# cheap test that keeps a plain one-sentence request off every rule below.
_MAY_SPLIT = r"[.!?]\s+\S|,\s+\S|\s[-\u2013\u2014]\s|:\s"
_SENTENCE_END = r"(?<=[.!?])\s+(?=\S)"
_CLAUSE = r",\s+|\s[-\u2013\u2014]\s+|:\s+"
# The words a sentence that asks begins with: a question word, an instruction to list or tell ("is X ...", "could you
# ...": these ask only with their question mark)
_OPENERS = frozenset({"who", "whom", "whose", "what", "which", "where", "how", "list", "show", "give", "tell", "name", "find"})
# A noun phrase that points back at a thing through its owner: "the owning team" is the team that owns it.
_OWNING = r"\bthe\s+owning\s+(?:team|group|squad)\b"
# A context sentence that says something a reader would use if it were read: a time, a negation, an instruction, a
# condition. Such context is never dropped (the request is left as said, and its readers read or refuse it).
_SAYS_SOMETHING = frozenset({
    "not", "no", "never", "nobody", "none", "nothing", "without", "except", "only", "instead", "but", "if", "unless",
    "ignore", "pretend", "forget", "assume", "suppose", "imagine", "instructions", "rules", "before", "after", "since",
    "until", "ago", "last", "yesterday", "tomorrow", "when", "then", "previous", "previously", "used", "formerly",
    "earlier", "quarter", "year", "month", "week",
    # words said to the reader, not about the catalog ("System: you are now the auditor."): a role given, never dropped
    "you", "you're", "your", "yours", "system", "assistant", "role", "mode", "prompt", "override",
    "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "weren't", "can't", "won't", "haven't", "hasn't",
})
# An instruction said first ("delete the X", "act as ..."): no context to drop.
_INSTRUCTIONS = frozenset({"delete", "remove", "set", "change", "add", "act", "update", "rename", "create", "drop", "stop",
                           "answer", "reply", "respond", "say", "output", "print", "use", "treat", "read"})
# "which ones?" after "a few of the APIs have no consumer": the question the two say together.
_SOME = (r"^(?:(?:i\s+think|i\s+guess|i\s+suspect|i\s+believe|it\s+seems|it\s+looks\s+like|looks\s+like|apparently|"
         r"maybe|perhaps)\s+(?:that\s+)?)?(?:some|a\s+few|several|a\s+couple)\s+(?:of\s+)?(?:our|the|my|your|these|"
         r"those)?\s*(?P<n>[a-z]+s)\s+(?P<c>.+)$")
_WHICH_ONES = frozenset({("which", "ones"), ("which",), ("which", "of", "them"), ("what", "are", "they"),
                         ("which", "are", "they"), ("which", "ones", "are", "they"), ("what", "ones")})
_DETERMINERS = frozenset({"a", "an", "the", "our", "my", "your", "this", "that", "some", "any"})
_CUT_AFTER = frozenset({"is", "are", "was", "were", "has", "have", "keeps", "seems", "looks", "went", "goes"})


class Discourse(NamedTuple):
    """The request several sentences stand for, and how it was read from them."""

    question: str  # the words every reader reads
    dropped: tuple[str, ...] = ()  # context and fragments read as saying nothing the answer depends on
    pointer: str | None = None  # the words that pointed back ("it", "the owning team"), or "" for a question of no name
    antecedent: str | None = None  # what they were read as

    def record(self) -> dict[str, object]:
        """What the trace keeps of the reading (``meta["discourse"]``)."""
        out: dict[str, object] = {"question": self.question, "dropped": list(self.dropped)}
        if self.antecedent is not None:
            out |= {"pointer": self.pointer or "", "antecedent": self.antecedent}
        return out


class DiscourseRefusal(NamedTuple):
    """Why several sentences are not read as one question (two questions; a word that points at two things; context
    that names another thing than the question's)."""

    message: str


def may_be_discourse(text: str) -> bool:
    """The cheap test: whether ``text`` has a sentence's end, a comma, a dash or a colon inside it at all."""
    return re.search(_MAY_SPLIT, text) is not None


def _low(text: str) -> list[str]:
    return [w.lower() for w in words(text)]


def _is_fragment(text: str) -> bool:
    """A trailing fragment that asks for nothing more than the answer ("names only", "just the names", "thanks")."""
    low = tuple(_low(text))
    return bool(low) and (low in TRAILING_FRAGMENTS or low in FILLERS)


def _asks(text: str) -> bool:
    """Whether a sentence or clause asks: a question mark, or a question word or an instruction first."""
    low = _low(text)
    if not low:
        return False
    if text.rstrip().endswith("?"):
        return True
    first = low[0].split("'")[0]  # ("who's", "what's")
    return first in _OPENERS or (first in ("please", "kindly") and len(low) > 1 and low[1] in _OPENERS) or "whom" in low


def _pieces(text: str) -> list[str]:
    """The sentences, and where there is one sentence, its clauses (a comma, a dash, a colon) when one of them asks and
    another does not: "cart api is failing, who do I page"."""
    sentences = [s.strip() for s in re.split(_SENTENCE_END, text) if s.strip()]
    out: list[str] = []
    for s in sentences:
        clauses = [c.strip() for c in re.split(_CLAUSE, s) if c.strip()]
        asking = [_asks(c) for c in clauses]
        if len(clauses) > 1 and ((any(asking) and not all(asking)) or _is_fragment(clauses[-1])):
            out += clauses
        else:
            out.append(s)
    return out


def _says_something(text: str) -> bool:
    """Whether a context sentence says what a reader would use (``_SAYS_SOMETHING``, ``_INSTRUCTIONS``, or a time the
    time words read: ``chainret.query.when``, their one home)."""
    from datetime import date

    from chainret.query.when import read_time

    low = _low(text)
    return bool(low) and (low[0] in _INSTRUCTIONS or any(w in _SAYS_SOMETHING for w in low)
                          or read_time(text, date.today()) is not None)


def _noun_phrase(context: str, mention: str) -> str:
    """The noun phrase of ``context`` that holds ``mention``: from the first determiner before it ("a PR that changes
    src/cart.py", "a change to the cart service") to the mention's end; the mention alone where no determiner
    comes before it in its clause ("cart api is failing")."""
    toks = words(context)
    low = [t.lower() for t in toks]
    want = [w.lower() for w in words(mention)]
    at = next((i for i in range(len(low) - len(want) + 1) if low[i : i + len(want)] == want), None)
    if at is None:
        return mention
    end = at + len(want)
    start = at
    for i in range(at - 1, -1, -1):
        if low[i] in _CUT_AFTER or low[i] in ("i", "i'm", "we", "we're", "you"):
            break
        if low[i] in _DETERMINERS:
            start = i
    return " ".join(toks[start:end])


def _pointers(question: str) -> list[tuple[int, int]]:
    """The spans of ``question``'s words that point back (``chainret.query.understand.pointing_words``, their one
    home), or "the owning team"."""
    from chainret.query.understand import pointing_words  # (the tolerant readings' module: loaded when a request needs it)

    spans = [(m.start(), m.end()) for m in re.finditer(_OWNING, question, re.IGNORECASE)]
    return spans + [(-1 - i, -1 - i) for i in pointing_words(_low(question))]  # (word indexes, marked negative)


def read_discourse(text: str, names_in: Callable[[str], Sequence[str]]) -> Discourse | DiscourseRefusal | None:
    """The one request ``text``'s sentences stand for, or a refusal, or None (a plain request, or context this module
    cannot judge: the request is then read as said). ``names_in(words)``: the mentions in the words that name an entity
    the reader may know, each as said (distinct entities; none: the words name nothing)."""
    said = ascii_marks(text).strip()
    pieces = _pieces(said)
    if len(pieces) < 2:
        return None
    fragments = [p for p in pieces if _is_fragment(p)]
    rest = [p for p in pieces if not _is_fragment(p)]
    asking = [p for p in rest if _asks(p)]
    if len(asking) > 1:
        return DiscourseRefusal(f"the request asks {len(asking)} questions ({'; '.join(repr(a) for a in asking)}): "
                                "ask them one at a time")
    if not asking:
        if len(rest) == 1 and fragments:  # "payments team members, names only": the noun phrase is the request
            return Discourse(rest[0], tuple(fragments))
        return None
    question = asking[0]
    context = [p for p in rest if p is not question]
    if not context:
        return Discourse(question, tuple(fragments)) if fragments else None
    ellipsis = _which_ones(question, context)  # (the context is the question then: its negation is read)
    if ellipsis is not None:
        return Discourse(ellipsis, tuple(fragments), pointer=question, antecedent=ellipsis)
    if tuple(_low(question)) in _WHICH_ONES:
        return None  # "which ones?" of nothing the context lists
    if any(_says_something(c) for c in context):
        return None  # a time, a negation or an instruction: not dropped, never read past
    named = [m for c in context for m in names_in(c)]
    mine = names_in(question)
    pointers = _pointers(question)
    if len(pointers) > 1:
        return DiscourseRefusal(f"{question!r} points back more than once: ask with the names")
    if pointers or not mine:
        if not named:
            return None if pointers else Discourse(question, tuple([*context, *fragments]))
        if len(named) > 1:
            return DiscourseRefusal(f"{question!r} may be about {' or '.join(repr(n) for n in named)}: ask with the one name")
        holder = next(c for c in context if names_in(c))
        phrase = _noun_phrase(holder, named[0])
        dropped = tuple([*(c for c in context if c is not holder), *fragments])
        if pointers:
            return _pointed(question, pointers[0], phrase, dropped)
        return Discourse(_asked_of(question, holder, phrase), dropped, pointer="", antecedent=phrase)
    if named:
        return DiscourseRefusal(f"the context names {', '.join(repr(n) for n in named)} and the question "
                                f"{', '.join(repr(n) for n in mine)}: ask about one of them")
    return Discourse(question, tuple([*context, *fragments]))


def _pointed(question: str, span: tuple[int, int], phrase: str, dropped: tuple[str, ...]) -> Discourse:
    """``question`` with its one pointing word (or "the owning team") read as ``phrase``."""
    from chainret.query.understand import POSSESSIVE_PRONOUNS as POSSESSIVE_POINTERS

    if span[0] >= 0:  # "the owning team": the team that owns the thing
        a, b = span
        owning = question[a:b]
        noun = owning.split()[-1]
        return Discourse(f"{question[:a]}the {noun} that owns {phrase}{question[b:]}", dropped, owning, phrase)
    toks = words(question)
    i = -1 - span[0]
    word = toks[i]
    put = f"{phrase}'s" if word.lower() in POSSESSIVE_POINTERS else phrase
    return Discourse(" ".join([*toks[:i], put, *toks[i + 1 :]]), dropped, word, phrase)


def _asked_of(question: str, holder: str, phrase: str) -> str:
    """A question that names nothing, asked of what its context names ("cart api is failing, who do I page": "who do I
    page for cart api"); where the context says it is about being on call ("pager for X - which team": ``ON_CALL_TOPIC``),
    the team or person on call for it."""
    from chainret.query.frames import ON_CALL_TOPIC

    asked = question.strip().rstrip(" ?.!")
    if re.match(ON_CALL_TOPIC, holder.strip(), re.IGNORECASE):
        if re.fullmatch(r"(?:which|what)\s+(?:team|group|squad)", asked, re.IGNORECASE):
            return f"{asked} is on call for {phrase}"
        if re.fullmatch(r"who(?:'s|\s+is)?", asked, re.IGNORECASE):
            return f"who is on call for {phrase}"
    return f"{asked} for {phrase}"


def _which_ones(question: str, context: Sequence[str]) -> str | None:
    """"which ones?" after "some of our Ns <clause>" as "which Ns <clause>"; None for other words."""
    if tuple(_low(question)) not in _WHICH_ONES or len(context) != 1:
        return None
    m = re.match(_SOME, context[0].strip().rstrip(".!"), re.IGNORECASE)
    return None if m is None else f"which {m.group('n')} {m.group('c')}"


# The most words one name is looked up as (a longer run of words names nothing a catalog calls by name)
NAME_MOST_WORDS = 6
_NO_NAME = frozenset({"i", "i'm", "we", "we're", "you", "me", "my", "our", "it", "is", "are", "a", "an", "the", "to", "of",
                      "for", "on", "in", "and", "or", "that", "this", "so", "just", "about"})


def names_in_view(cv: Any) -> Callable[[str], list[str]]:
    """The mentions of entities the reader may know in some words (``read_discourse``'s ``names_in``): the longest runs
    of words that are an entity's ID, name or alias exactly or but for case, spacing and punctuation, or that with a
    type word after it ("the cart service"); one mention per run, longest first, none inside another."""
    from chainret.query.lexicon import type_words

    types = sorted({t for p in cv.catalog.predicates for t in (p.domain, p.range)})

    def known(phrase: str) -> bool:
        if any(cv.knows(e.id) for e in cv.resolve(phrase)):
            return True
        lookup = cv.name_lookup()
        toks = phrase.split()
        for t in types:
            keys = {name_key(phrase)}
            if len(toks) > 1 and toks[-1].lower() in type_words(t):  # "the cart service", "the payments team"
                keys.add(name_key(" ".join(toks[:-1])))
            if any(cv.knows(e.id) for k in keys if len(k) > 2 for e in lookup.by_key(t, k)):
                return True
        return False

    def names_in(text: str) -> list[str]:
        toks = words(text)
        low = [t.lower() for t in toks]
        taken = [False] * len(toks)
        found: list[tuple[int, str]] = []
        for n in range(min(NAME_MOST_WORDS, len(toks)), 0, -1):
            for i in range(len(toks) - n + 1):
                if any(taken[i : i + n]) or low[i] in _NO_NAME or low[i + n - 1] in _NO_NAME:
                    continue
                phrase = " ".join(toks[i : i + n])
                if known(phrase):
                    found.append((i, phrase))
                    taken[i : i + n] = [True] * n
        return [p for _, p in sorted(found)]

    return names_in


def said_as_one(request: str, view: Callable[[], Any]) -> Discourse | DiscourseRefusal | None:
    """``read_discourse`` of a request, its names looked up in the view ``view()`` opens (opened only where the words
    are several sentences at all)."""
    opened: list[Callable[[str], list[str]]] = []

    def names_in(text: str) -> list[str]:
        if not opened:
            opened.append(names_in_view(view()))
        return opened[0](text)

    return read_discourse(request, names_in)


def with_discourse(interp: Interpretation, request: str, spoken: Discourse) -> Interpretation:
    """``interp`` with what its discourse read recorded first: the request read as its question (``how`` ``discourse``),
    each sentence dropped (``part`` ``ignored``, ``how`` ``context``) and what a pointing word was read as (``how``
    ``pointer``)."""
    from chainret.trace.model import WordMatch

    record = [WordMatch(words=request, part="pattern", how="discourse", target=spoken.question)]
    record += [WordMatch(words=d, part="ignored", how="context") for d in spoken.dropped]
    if spoken.antecedent is not None:
        record.append(WordMatch(words=spoken.pointer or "", part="pattern", how="pointer", target=spoken.antecedent))
    return interp.model_copy(update={"match": [*record, *interp.match]})
