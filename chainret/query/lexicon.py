"""How requests name relations: each predicate's nouns and verbs, and a small grammar over them.

Defaults are derived from the predicate's name and range type, never from a world's data:

* ``X_by`` (``operated_by``, ``supplied_by``, ``owned_by``): the agent noun (``operator``,
  ``supplier``, ``owner``), the verb whose subject is the object (``operates``, ``supplies``,
  ``owns``) and its ``-ing`` form (``the organisation operating PR-85``, ``the certifying lab``);
* a verb name (``uses``): the passive (``the instrument used by E-7``) and the verb after the
  subject (``the instrument that E-9 uses``);
* ``X_at`` (``located_at``): ``where is ... located`` and the noun ``location``;
* a noun name (``contact``, ``on_call``): the name's words (``the contact of``, ``on call for``);
* always the range type's name (``the supplier of`` / ``the org of``), with a few spellings of a
  type (``org``: organisation, organization, company).

A catalog adds its own per predicate (``nouns``, ``verbs`` in the catalog file or the source
header). The grammar: a noun phrase is an entity's words, ``<noun> of|for <noun phrase>``,
``<noun phrase>'s <noun>('s <noun>)*``, ``<head> [that|which|who] <verb> <noun phrase>``,
``<head> <passive> by <noun phrase>`` or ``<head> [that|which] <noun phrase> <verb>``; a question
is a frame (``who is``, ``who <verb>``, ``which <head> <verb>``, ``which <head> is``, ``where is ...
located``) around one. Every word must be part of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

TYPE_WORDS: dict[str, tuple[str, ...]] = {
    "org": ("organisation", "organization", "company", "org"),
    "person": ("person",),
}
# Backstage's Group kinds (its spec.type: team, department, …): words people name a group by ("the integrations
# team", "which department is X under"), type words like those above, but never what a word stands for by meaning
# (``chainret.query.synonyms``): "manager" is near "department", and "Sofia's manager" is no group of hers.
KIND_WORDS: dict[str, tuple[str, ...]] = {
    "group": ("team", "department"),
}
_REL = ("that", "which", "who")
_DET = ("the", "a", "an")

Chain = list[str]
Parse = tuple[Chain, list[str], list[tuple[str, str]]]  # (predicates inner to outer, entity words, (words, predicate))


def _participle_forms(part: str) -> tuple[str, str]:
    """``operated`` -> (``operates``, ``operating``); ``supplied`` -> (``supplies``, ``supplying``)."""
    if part.endswith("ied"):
        return part[:-3] + "ies", part[:-3] + "ying"
    if part.endswith("ated") or part.endswith("ized") or part.endswith("ised"):
        return part[:-1] + "s", part[:-2] + "ing"
    if part.endswith("ed"):
        return part[:-2] + "s", part[:-2] + "ing"
    return part + "s", part + "ing"


def relation_noun(predicate: str) -> str:
    """How a refusal names what a predicate's object is: ``owned_by`` -> ``owner``, ``part_of`` -> ``part of``."""
    parts = predicate.split("_")
    return _agent(" ".join(parts[:-1])) if len(parts) >= 2 and parts[-1] == "by" else " ".join(parts)


def _agent(part: str) -> str:
    """``operated`` -> ``operator``, ``supplied`` -> ``supplier``, ``owned`` -> ``owner``."""
    if part.endswith("ated"):
        return part[:-4] + "ator"
    if part.endswith("ied"):
        return part[:-3] + "ier"
    if part.endswith("ed"):
        return part[:-2] + "er"
    return part + "er"


def type_words(type_: str) -> set[str]:
    """How a request may name a type (a union ``group|user``: any of its types)."""
    if "|" in type_:
        return {w for t in type_.split("|") for w in type_words(t)}
    return {type_, *TYPE_WORDS.get(type_, ()), *KIND_WORDS.get(type_, ())}


class PredicateWords:
    """The words a request may use for one predicate (filled in by ``predicate_words``)."""

    __slots__ = ("name", "domain", "range", "nouns", "verbs", "passive", "subject_verbs", "where")

    def __init__(self, name: str, domain: str, range: str) -> None:
        self.name, self.domain, self.range = name, domain, range
        self.nouns: set[tuple[str, ...]] = set()
        self.verbs: set[str] = set()  # subject of the verb = the object: "operates", "operating"
        self.passive: set[str] = set()  # "used" (by the subject)
        self.subject_verbs: set[str] = set()  # the subject does it: "uses", "use"
        self.where: set[str] = set()  # "located": where is <subject> located

    def __repr__(self) -> str:
        return f"PredicateWords({self.name!r}, nouns={sorted(self.nouns)!r}, verbs={sorted(self.verbs)!r})"


def _stem(participle: str) -> str:
    """The stem the ``X_by`` forms are built on: ``api provided`` -> ``provid``, ``supplied`` -> ``suppl``."""
    last = participle.split()[-1]
    return last[:-3] if last.endswith("ied") else last[:-2] if last.endswith("ed") else last


def _on_stem(phrases: Iterable[str], stem: str) -> list[str]:
    """The declared phrases with a word built on ``stem`` (``provides``, ``governing rule`` for ``provid``, ``govern``)."""
    return [x for x in phrases if any(word.startswith(stem) for word in x.split())]


def predicate_words(p: Any) -> PredicateWords:
    """The words of one predicate: those derived from its name and range, and its declared ``nouns`` / ``verbs``.

    The ``X_by`` forms are English inflection by rule, and English is not regular (``provided`` ->
    ``provids``, ``governed`` -> ``governer``). A declared verb with a word on the name's stem
    (``provides``) stands in for the guessed verb forms, and a declared noun on it (``governing
    rule``) for the guessed agent noun: the catalog corrects the rule where it is wrong. Every
    other declared word adds to the defaults (``maintains`` beside ``owns``). A hand rule plus
    declarations rather than an inflection library: the library costs about a second of loading
    on the tolerant ask path, and no library derives agent nouns (``governor``)."""
    w = PredicateWords(p.name, p.domain, p.range)
    parts = p.name.split("_")
    declared_nouns = [n.lower().replace("-", " ") for n in getattr(p, "nouns", ()) or ()]
    declared_verbs = [v.lower() for v in getattr(p, "verbs", ()) or ()]
    if len(parts) >= 2 and parts[-1] == "by":
        part = "_".join(parts[:-1]).replace("_", " ")
        stem = _stem(part)
        own_verbs = _on_stem(declared_verbs, stem)
        verbs = set(own_verbs) if own_verbs else set(_participle_forms(part))
        if not _on_stem(declared_nouns, stem):
            w.nouns.add((_agent(part),))
        w.verbs |= verbs
        for ing in (v for v in verbs if v.endswith("ing")):
            for t in type_words(p.range):
                w.nouns.add((ing, t))
    elif len(parts) >= 2 and parts[-1] == "at":
        w.where.add(" ".join(parts[:-1]))
        w.nouns.add(("location",))
    elif len(parts) == 1 and parts[0].endswith("s") and not parts[0].endswith("ss"):
        base = parts[0][:-1]
        w.subject_verbs |= {parts[0], base}
        w.passive.add(base + "d" if base.endswith("e") else base + "ed")
    else:
        w.nouns.add(tuple(parts))
    for t in type_words(p.range):
        w.nouns.add((t,))
    for n in declared_nouns:  # a hyphen is a space, as in requests ("on-call engineer")
        w.nouns.add(tuple(n.split()))
    w.verbs.update(declared_verbs)
    # A noun may carry the range type after it ("the on call person", "the owner team").
    ranges = type_words(p.range)
    for n in list(w.nouns):
        if n[-1] not in ranges:
            w.nouns |= {(*n, t) for t in ranges}
    return w


# Everyday words for a relation that catalogs seldom declare, kept by hand because the vector table
# (chainret.query.synonyms, chainret.query.vocabulary) cannot read them; a single undeclared word it can
# read (``vendor``, ``firm``, ``squad``) is no longer listed here. Kept, each for its reason:
# * ``point of contact``: a phrase around a joining word (``of``), which the table never reads as part of a
#   relation word, and whose words apart (``point``, ``contact``) are not the relation;
# * ``contact person``: the relation noun followed by a type word that is not the predicate's range;
# * ``maintains``: MiniLM puts it nearer ``operates`` than ``owns`` (0.43 against 0.24 in the table), so the
#   table would refuse it wherever both are relations, and read it as ``operates`` elsewhere;
# * ``is/are responsible for``: an adjective between a verb of being and a preposition, no relation word.
# Keyed by a word the predicate already has (a noun, or a verb derived from its name or declared): a synonym
# is added to a predicate only when exactly one predicate of the catalog has that key word and no predicate
# has the synonym already, so it never makes a request read two ways (two predicates with the key word: no
# synonym, and such a request stays refused). From help-desk and issue-tracker wording (the 2026-12 request
# set's development half only).
NOUN_SYNONYMS: dict[tuple[str, ...], tuple[tuple[str, ...], ...]] = {
    ("contact",): (("point", "of", "contact"), ("contact", "person")),
    ("supplier",): (("provider",),),
    ("consumer",): (("caller",),),  # an on-call engineer's word: the callers of an API are its consumers
}
VERB_SYNONYMS: dict[str, tuple[str, ...]] = {
    "owns": ("maintains", "is responsible for", "are responsible for", "responsible for"),
}


def _add_synonyms(preds: list[PredicateWords]) -> None:
    """Each synonym of ``NOUN_SYNONYMS`` / ``VERB_SYNONYMS`` added to the one predicate with its key word."""
    taken_nouns = {n for pw in preds for n in pw.nouns}
    taken_verbs = {v for pw in preds for v in pw.verbs}
    for key, nouns in NOUN_SYNONYMS.items():
        holders = [pw for pw in preds if key in pw.nouns]
        if len(holders) == 1:
            holders[0].nouns.update(n for n in nouns if n not in taken_nouns)
    for verb, verbs in VERB_SYNONYMS.items():
        holders = [pw for pw in preds if verb in pw.verbs]
        if len(holders) == 1:
            holders[0].verbs.update(v for v in verbs if v not in taken_verbs)


class Lexicon:
    """The predicates' words and the grammar of noun phrases and questions over them."""

    def __init__(self, predicates: Iterable[Any]) -> None:
        self.preds = [predicate_words(p) for p in predicates]
        _add_synonyms(self.preds)
        self._nouns: dict[tuple[str, ...], list[PredicateWords]] = {}
        for pw in self.preds:
            for n in pw.nouns:
                self._nouns.setdefault(n, []).append(pw)
        self._max_noun = max((len(n) for n in self._nouns), default=1)
        # per predicate: the words a head naming what it points at may start with, and its range's type words (the
        # noun-phrase grammar asks ``_heads`` of every predicate at every position it tries: hundreds of thousands of
        # times for one request read every way; most positions start with no such word)
        self._head_words = {id(pw): (frozenset({n[0] for n in pw.nouns} | type_words(pw.range)), frozenset(type_words(pw.range)))
                            for pw in self.preds}
        self._by_start: dict[str, list[PredicateWords]] = {}  # a head's first word -> the predicates, in their order
        for pw in self.preds:
            for w in self._head_words[id(pw)][0]:
                self._by_start.setdefault(w, []).append(pw)

    def verb_owners(self) -> dict[str, set[str]]:
        """Each verb (one word or several) -> the predicates it is a verb of."""
        out: dict[str, set[str]] = {}
        for pw in self.preds:
            for v in pw.verbs:
                out.setdefault(v, set()).add(pw.name)
        return out

    def relation_nouns(self) -> set[str]:
        """The relations' nouns of one word ("consumer", "caller", "provider"): what a noun phrase may be headed by
        ("the callers of the route api"), beside the entity types."""
        return {n[0] for n in self._nouns if len(n) == 1}

    def vocabulary(self, patterns: Sequence[Any]) -> set[str]:
        vocab = {w for n in self._nouns for w in n}
        for pw in self.preds:
            vocab |= {w for v in pw.verbs for w in v.split()} | pw.passive | pw.subject_verbs | pw.where
        from chainret.catalog.patterns import PhrasingError, _parsed

        for pat in patterns:
            for ph in pat.phrasings:
                try:
                    vocab.update(_parsed(ph, pat.start_type)[0])
                except PhrasingError:
                    continue
        return vocab

    # -- noun phrases ---------------------------------------------------------------------------
    def _heads(self, low: Sequence[str], pw: PredicateWords) -> list[int]:
        """Lengths k such that low[:k] is a head naming what ``pw`` points at (a noun of it or its range type)."""
        starts, ranges = self._head_words[id(pw)]
        if not low or low[0] not in starts:
            return []
        out = []
        for k in range(1, min(self._max_noun, len(low)) + 1):
            head = tuple(low[:k])
            if head in pw.nouns or (k == 1 and head[0] in ranges):
                out.append(k)
        return out

    def noun_phrase(self, toks: Sequence[str], low: Sequence[str], depth: int = 0) -> list[Parse]:
        if not toks or depth > 6:
            return []
        toks, low = list(toks), list(low)
        if low[0] in _DET and len(low) > 1:
            toks, low = toks[1:], low[1:]
        out: list[Parse] = [([], toks, [])]
        out += self._possessive(toks, low)
        n = len(low)
        # <noun> of|for <np>
        for k in range(1, min(self._max_noun, n - 2) + 1):
            if low[k] not in ("of", "for"):
                continue
            for pw in self._nouns.get(tuple(low[:k]), []):
                for chain, m, rels in self.noun_phrase(toks[k + 1 :], low[k + 1 :], depth + 1):
                    if chain or m:
                        out.append(([*chain, pw.name], m, [*rels, (" ".join(toks[: k + 1]), pw.name)]))
        for pw in self._by_start.get(low[0], ()):  # (the predicates in order whose heads may start here: ``_heads``)
            for k in self._heads(low, pw):
                rest_t, rest_l = toks[k:], low[k:]
                head = " ".join(toks[:k])
                # <head> [that] <verb> <np>
                j = 1 if rest_l and rest_l[0] in _REL else 0
                for v in _verbs_at(rest_l, j, pw):
                    for chain, m, rels in self.noun_phrase(rest_t[j + v :], rest_l[j + v :], depth + 1):
                        out.append(([*chain, pw.name], m, [*rels, (" ".join([head, *rest_t[: j + v]]), pw.name)]))
                # <head> <passive> by <np>
                if len(rest_l) > 2 and rest_l[0] in pw.passive and rest_l[1] == "by":
                    for chain, m, rels in self.noun_phrase(rest_t[2:], rest_l[2:], depth + 1):
                        out.append(([*chain, pw.name], m, [*rels, (" ".join([head, *rest_t[:2]]), pw.name)]))
                # <head> [that|which] <np> <verb>
                j = 1 if rest_l and rest_l[0] in ("that", "which") else 0
                if len(rest_l) > j + 1 and rest_l[-1] in pw.subject_verbs:
                    for chain, m, rels in self.noun_phrase(rest_t[j:-1], rest_l[j:-1], depth + 1):
                        words = " ".join([head, *rest_t[:j]]) + " … " + rest_t[-1]
                        out.append(([*chain, pw.name], m, [*rels, (words, pw.name)]))
        return out

    def _possessive(self, toks: list[str], low: list[str]) -> list[Parse]:
        """``E-7's instrument's calibrating group``: the entity, then one relation noun per ``'s``."""
        first = next((i for i, w in enumerate(low) if w.endswith("'s")), None)
        if first is None or first == len(low) - 1:
            return []
        mention = [*toks[:first], toks[first][:-2]]
        segments: list[list[str]] = [[]]
        seg_toks: list[list[str]] = [[]]
        for t, w in zip(toks[first + 1 :], low[first + 1 :], strict=True):
            if w.endswith("'s"):
                segments[-1].append(w[:-2])
                seg_toks[-1].append(t[:-2])
                segments.append([])
                seg_toks.append([])
            else:
                segments[-1].append(w)
                seg_toks[-1].append(t)
        if not segments[-1]:
            return []
        parses: list[Parse] = [([], mention, [])]
        for seg, st in zip(segments, seg_toks, strict=True):
            options = self._nouns.get(tuple(seg), [])
            parses = [([*c, pw.name], m, [*r, (" ".join(st), pw.name)]) for c, m, r in parses for pw in options]
        return parses

    def tail_chains(self, tail: Sequence[str], start_type: str) -> list[Chain]:
        """A phrasing's words before its slot read as a chain over the slot (``the instrument used by``)."""
        slot = "\x00slot"
        return [c for c, m, _ in self.noun_phrase([*tail, slot], [*tail, slot]) if m == [slot] and c]

    # -- questions ------------------------------------------------------------------------------
    def question(self, toks: Sequence[str], low: Sequence[str]) -> list[Parse]:
        toks, low = list(toks), list(low)
        if len(low) >= 2 and low[0] in ("what", "which") and low[1] == "is":
            low[0] = "who"
        elif low and low[0] == "what":
            low[0] = "which"
        out: list[Parse] = []
        if not low:
            return out
        if low[0] not in ("who", "which", "where"):
            out += [p for p in self.noun_phrase(toks, low) if p[0]]
            return out
        if low[:2] == ["who", "is"]:
            out += [p for p in self.noun_phrase(toks[2:], low[2:]) if p[0]]
        if low[0] == "who" and len(low) > 2:
            for pw in self.preds:
                for v in _verbs_at(low, 1, pw):
                    out += [([*c, pw.name], m, [*r, (" ".join(toks[: 1 + v]), pw.name)])
                            for c, m, r in self.noun_phrase(toks[1 + v :], low[1 + v :])]
        if low[0] == "which" and len(low) > 3:
            for pw in self.preds:
                for k in self._heads(low[1:], pw):
                    verb_at = 1 + k
                    if verb_at >= len(low):
                        continue  # the head noun runs to the end ("which apis nothing calls" as nouns): no verb after it
                    if low[verb_at] == "is":
                        for c, m, r in self.noun_phrase(toks[verb_at + 1 :], low[verb_at + 1 :]):
                            if c and c[-1] == pw.name:
                                out.append((c, m, [*r, (" ".join(toks[: verb_at + 1]), "frame")]))
                    for v in _verbs_at(low, verb_at, pw):
                        out += [([*c, pw.name], m, [*r, (" ".join(toks[: verb_at + v]), pw.name)])
                                for c, m, r in self.noun_phrase(toks[verb_at + v :], low[verb_at + v :])]
        if low[:2] == ["where", "is"] and len(low) > 3:
            for pw in self.preds:
                if low[-1] in pw.where:
                    out += [([*c, pw.name], m, [*r, (f"where is … {toks[-1]}", pw.name)])
                            for c, m, r in self.noun_phrase(toks[2:-1], low[2:-1])]
        # one reading per (chain, entity words)
        seen: dict[tuple[tuple[str, ...], tuple[str, ...]], Parse] = {}
        for c, m, r in out:
            seen.setdefault((tuple(c), tuple(m)), (c, m, r))
        return list(seen.values())


def words_of(pw: PredicateWords) -> list[str]:
    """The ways a request may name this relation, for ``chainret patterns`` (sorted, one string each)."""
    out = {" ".join(n) for n in pw.nouns if len(n) == 1 or n[-1] not in type_words(pw.range)}
    out |= {f"who {v} X" if not v.endswith("ing") else f"… {v} X" for v in pw.verbs} | {f"… {p} by X" for p in pw.passive}
    out |= {f"… X {v}" for v in pw.subject_verbs if v.endswith("s")} | {f"where is X {w}" for w in pw.where}
    return sorted(out)


def _verbs_at(low: Sequence[str], at: int, pw: PredicateWords) -> list[int]:
    """Word counts of ``pw``'s verbs (one word or several: "looks after") starting at ``at``, with words after them."""
    out = []
    for v in pw.verbs:
        words = v.split()
        if len(low) > at + len(words) and list(low[at : at + len(words)]) == words:
            out.append(len(words))
    return out


def lexicon(catalog: Any) -> Lexicon:
    preds = getattr(catalog, "predicates", None)
    if preds is None:
        preds = list(getattr(catalog, "predicates_by_name", {}).values())
    return Lexicon(preds)
