"""Kind words: "services", "websites", "libraries", "databases" read as the kind their records declare.

A Backstage descriptor says what kind of Component (``spec.type``: service, website, library, ...) or
Resource (database, s3-bucket, ...) its entity is; the importer quotes that line in the entity's paragraph
and states it in one form (``chainret.sources.backstage.declared_type``). A request's kind word
(``chainret.query.frames.KIND_NOUNS``, their one home) is read against what the reader's view declares:

* no entity of the word's type declares a kind (a hand-written catalog, records without ``spec.type``):
  nothing changes ("services" reads as every component, as it always did; "websites" stays unread);
* the type's entities declare kinds and exactly one of the word's kinds is among them: the word reads as
  its type noun ("websites" -> "components") and the answer keeps only the entities of that kind
  (``chainret.pipeline.kinds``), saying which it dropped, each with the unit that declares its kind;
* they declare kinds and none of the word's, or two of them ("apps": an app and a mobile-app): refused,
  naming the kinds the view holds. Reading "services" as every component there would list websites and
  libraries as services, a wrong answer shown as complete; a refusal says what to ask instead.

Why the kind is read from the declaring unit rather than kept as a field of the catalog's entity: the unit is
what a reader may read or not, in the version of the view asked about (a type that changed between commits
is read as of the time asked), and it is the anchor that proves the kind; a field would need its own record
of which document and which version says it, in every store.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

from chainret.core.codes import RefusalCode
from chainret.trace.model import Refusal


class KindWord(NamedTuple):
    """A kind word of a request: the word as written, the catalog noun it reads as, its type, its kinds."""

    word: str
    noun: str
    type: str
    kinds: tuple[str, ...]


class DeclaredKind(NamedTuple):
    """What a readable unit of the view declares an entity to be: the kind, and the unit with its quoted line."""

    kind: str
    unit_ref: str
    doc_ref: str
    quoted: str

    def cite(self) -> dict[str, str]:
        return {"unit": self.unit_ref, "document": self.doc_ref, "text": self.quoted}


class KindFilter(NamedTuple):
    """A kind word read as one declared kind of a type, and every kind the view declares for that type."""

    word: KindWord
    kind: str
    declared: dict[str, DeclaredKind]  # entity ID -> its declared kind, for the entities of ``word.type``

    @property
    def loose(self) -> bool:
        """Whether the word is said both ways: "services" of the components of the kind service only, and, by as many
        people, of every component, libraries and websites too (two development halves' blind writers said it so,
        a third the other way). Such a word is answered only where its two readings agree (``ambiguity``)."""
        from chainret.query.frames import KIND_NOUNS

        return KIND_NOUNS.get(self.word.word.lower(), ("", (), False))[2]

    def ambiguity(self, ids: list[str]) -> Refusal | None:
        """For a ``loose`` word, the refusal where its two readings differ over these entities of its type (one of
        them is not of its kind, so "every component" and "the services" are two answers); None where they agree."""
        dropped = [i for i in ids if not self.keeps(i)]
        if not self.loose or not dropped:
            return None
        return Refusal(code=RefusalCode.AMBIGUOUS_READING, message=(
            f"{self.word.word!r} may mean every {self.word.type} or only the {self.word.type}s of the kind {self.kind}, "
            f"and here the two differ ({', '.join(dropped[:3])}{', ...' if len(dropped) > 3 else ''} "
            f"{'is' if len(dropped) == 1 else 'are'} of another kind): say {self.word.type + 's'!r} to ask about every "
            f"{self.word.type}"), details={"kind_word": self.word.word, "kind": self.kind, "other_kinds": dropped})

    def keeps(self, entity_id: str) -> bool:
        """Whether an entity of the filter's type is of its kind (an entity that declares none is not)."""
        found = self.declared.get(entity_id)
        return found is not None and found.kind.casefold() == self.kind

    def record(self, ids: list[str]) -> dict[str, Any]:
        """How a trace states the filter over these entities of its type: the word, the kind, and each entity
        kept or dropped with the unit that declares its kind (none: it declares no kind, and is dropped)."""
        kept = [i for i in ids if self.keeps(i)]
        return {"word": self.word.word, "type": self.word.type, "kind": self.kind,
                "kept": [self._row(i) for i in kept], "dropped": [self._row(i) for i in ids if i not in kept]}

    def said_of_start(self, entity_id: str) -> dict[str, Any]:
        """How a trace states a kind word said of the start entity beside its name: not a filter, its kind shown."""
        return {"word": self.word.word, "type": self.word.type, "kind": self.kind, "said_of": "start",
                "start": self._row(entity_id)}

    def _row(self, entity_id: str) -> dict[str, Any]:
        found = self.declared.get(entity_id)
        return {"id": entity_id, "kind": found.kind, "cite": found.cite()} if found else {"id": entity_id, "kind": None}


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _word_pattern(word: str) -> re.Pattern[str]:
    """A kind word written as a word of its own in lower case (at the request's start, capitalised too): a word of a
    name ("checkout-service", "the Payments Service", "src/service.py") is not one, as ``frames._substituted`` reads."""
    pat = _PATTERNS.get(word)
    if pat is None:
        first = f"(?:{word}|{word.capitalize()})"
        pat = _PATTERNS[word] = re.compile(rf"(?:(?<![\w'/.@-]){word}|^\s*{first})(?![\w'/@-]|\.\w)")
    return pat


_ANY_WORD: list[re.Pattern[str]] = []


def kind_words(text: str, cv: Any = None) -> list[KindWord]:
    """The kind words a request says, in the table's order, each once; with ``cv``, not those that end a name the
    reader knows ("online services", a team: a word of its name, not a kind of it). One search for any of them
    first: most requests say none, and that costs one pattern, not one per word."""
    from chainret.query.frames import KIND_NOUNS

    if not _ANY_WORD:
        _ANY_WORD.append(re.compile(rf"(?i)\b(?:{'|'.join(map(re.escape, KIND_NOUNS))})\b"))
    if _ANY_WORD[0].search(text) is None:
        return []
    out = []
    for word, (noun, kinds, _) in KIND_NOUNS.items():
        found = [m for m in _word_pattern(word).finditer(text) if cv is None or not _ends_a_name(text, m.end(), cv)]
        if found:
            out.append(KindWord(word, noun, noun.removesuffix("s"), kinds))
    return out


def _ends_a_name(text: str, end: int, cv: Any) -> bool:
    """Whether the words up to ``end`` (the kind word alone, or with up to three words before it) are a name ``cv``
    resolves, said with spaces or hyphens ("who owns svc", a component named svc; "online services", a team;
    "data services", the team data-services), or the kind word is one word of a name with the word before or after it
    ("the sites team", the Sites Team)."""
    words = re.findall(r"[\w'.-]+", text[:end])
    if any(cv.resolve(sep.join(words[-n:])) for n in range(1, min(len(words), 4) + 1) for sep in (" ", "-")):
        return True
    after = re.match(r"[ ]*([\w'.-]+)", text[end:])
    if len(words) < 2 and after is None:
        return False
    # a name said in part ("data services", the team Research Data Services; "the sites team", the Sites Team): the
    # word and the one before or after it are two words of one name the reader knows, one after the other as the name
    # writes them (a space or a hyphen between: the folders of a path, "mobile/app/App.kt", are no words of a name said
    # in part, "the mobile app")
    word = words[-1].casefold()
    pairs = ([(words[-2].casefold(), word)] if len(words) > 1 else []) + ([(word, after.group(1).casefold())] if after else [])
    runs = [re.compile(rf"(?<![\w']){re.escape(a)}[\s-]+{re.escape(b)}(?![\w'])") for a, b in pairs]
    lookup = cv.name_lookup()
    types = {t for p in cv.catalog.predicates for t in (*p.domain_types, *p.range_types)}
    for t in sorted(types):
        for e in lookup.owners_of(t, word):
            if any(r.search(label.casefold()) for r in runs for label in (e.name, *e.aliases)) and cv.knows(e.id):
                return True
    return False


def declared_kinds(cv: Any, types: set[str]) -> dict[str, dict[str, DeclaredKind]]:
    """Per type, the entities of it whose kind a unit of the view that the reader may read declares (the unit of
    the document version in that view: as of an earlier view, that version's kind)."""
    from chainret.sources.backstage import declared_ref, declared_type, parse_ref

    out: dict[str, dict[str, DeclaredKind]] = {t: {} for t in types}
    for ref, text in cv.unit_texts():
        if not text.startswith("Entity ") or (said := declared_type(text)) is None:
            continue
        head = declared_ref(text)
        parsed = parse_ref(head, None, "default") if head else None
        if parsed is None or isinstance(parsed, str) or parsed.kind not in out:
            continue
        doc = ref.rpartition("#")[0]
        out[parsed.kind].setdefault(parsed.entity_id(cv.catalog.world), DeclaredKind(said[0], ref, doc, said[1]))
    return out


def read_kinds(text: str, cv: Any) -> list[KindFilter] | Refusal | None:
    """The kind filters a request's kind words read as in ``cv``'s view (module docstring), a refusal, or None where
    no kind word reads otherwise than before kinds were kept (none said, or its type declares no kind here)."""
    words = kind_words(text, cv)
    if not words:
        return None
    declared = declared_kinds(cv, {w.type for w in words})
    filters: dict[str, KindFilter] = {}
    for w in words:
        held = declared[w.type]
        if not held:
            continue  # the records say no kind of this type: the word reads as before
        kinds = sorted({d.kind.casefold() for d in held.values()})
        named = [k for k in w.kinds if k in kinds]
        where = f"the {w.type} entities of this view declare the kinds (spec.type) {', '.join(kinds)}"
        if not named:
            return Refusal(code=RefusalCode.NO_PATTERN, message=f"the request says {w.word!r}, but {where}: none is "
                           f"{' or '.join(w.kinds)}; ask about one of those kinds, or about {w.type}s",
                           details={"kind_word": w.word, "type": w.type, "declared_kinds": kinds})
        if len(named) > 1:
            return Refusal(code=RefusalCode.AMBIGUOUS_READING, message=f"the request says {w.word!r}, which may be any "
                           f"of the kinds {', '.join(named)} ({where}): name the kind", details={
                               "kind_word": w.word, "type": w.type, "declared_kinds": kinds, "candidates": named})
        other = filters.get(w.type)
        if other is not None and other.kind != named[0]:
            return Refusal(code=RefusalCode.AMBIGUOUS_READING, message=f"the request says {other.word.word!r} and "
                           f"{w.word!r}, two kinds of {w.type} ({other.kind}, {named[0]}): one kind of each type is "
                           "read in a request; ask about each kind on its own", details={
                               "kind_word": w.word, "type": w.type, "candidates": [other.kind, named[0]]})
        filters.setdefault(w.type, KindFilter(w, named[0], held))
    return list(filters.values()) or None


def said_with_nouns(text: str, filters: list[KindFilter], cv: Any) -> str:
    """The request with each filtered kind word written as its type noun ("which websites" -> "which components"),
    for the readers of relations and coverage asks; the filter then keeps the entities of the kind. A kind word
    that ends a name the reader knows ("online services", a team) is left as it is: it is part of the name."""
    from chainret.query.frames import KIND_NOUNS

    def noun_for(noun: str) -> Callable[[re.Match[str]], str]:
        def put(m: re.Match[str]) -> str:
            if _ends_a_name(m.string, m.end(), cv):
                return m.group(0)
            return m.group(0)[: len(m.group(0)) - len(m.group(0).lstrip())] + noun  # (the spaces before it kept)
        return put

    for f in filters:
        for word, (noun, kinds, _) in KIND_NOUNS.items():
            if f.kind in kinds and noun.removesuffix("s") == f.word.type:
                text = _word_pattern(word).sub(noun_for(noun), text)
    return text


# -- a kind word as the start of a request: "which teams own the workers", "people on teams that own an s3 bucket" ------
# The words before a kind word that make it every entity of its kind ("our databases", "each of the libraries", "an
# s3 bucket": a team that owns an s3 bucket owns at least one, so each is followed), or, singular with "the" or
# "our", the one entity of its kind ("the mobile app"). Closed: any other word before the kind word (after a
# determiner, at most two: "the storefront websites") must spell the kind with it ("mobile app") or name a container
# of it. "all" and "every" are no such words: "which team owns every worker" may ask for a team that owns them all,
# which the union of each one's answers is not (the phrase is then not read).
_EVERY_DETS = frozenset({"each", "any", "an", "a"})
_ONE_DETS = frozenset({"the", "our"})
_UNIVERSAL = frozenset({"all", "every"})
_OF_DETS = r"(?i)(?:^|(?<=\s))(?:each|any)\s+of\s+$"  # before "the" or "our": "each of the workers"


class KindPhrase(NamedTuple):
    """A kind word said as the start of a request: the words as said and where, whether they mean every entity of the
    kind (a plural, "an", "any", "every") or the one entity of it ("the mobile app"), and the words between the
    determiner and the kind word that are no part of the kind ("storefront" of "the storefront websites")."""

    said: str
    start: int
    end: int
    every: bool
    modifier: str


def start_phrase(text: str, f: KindFilter, cv: Any) -> KindPhrase | None:
    """The one place ``text`` says ``f``'s kind as a noun phrase of its own (its kind words of ``f``'s type that name
    ``f.kind``, not the end of a name the reader knows), with its determiner and modifier; None where it says the kind
    twice, or a modifier that is no word of the kind and follows no determiner. Whether the phrase is the request's
    start is the interpreter's to say (``chainret.pipeline.startset``): this reads only the noun phrase."""
    from chainret.query.frames import KIND_NOUNS

    found: list[tuple[re.Match[str], str]] = []
    for word, (noun, kinds, _) in KIND_NOUNS.items():
        if f.kind in kinds and noun.removesuffix("s") == f.word.type:
            found += [(m, noun) for m in _word_pattern(word).finditer(text) if not _ends_a_name(text, m.end(), cv)]
    if len(found) != 1:
        return None
    (m, noun), = found
    start = m.start() + len(m.group(0)) - len(m.group(0).lstrip())
    before = list(re.finditer(r"\S+", text[:start]))
    plural = noun.endswith("s")
    low = [b.group(0).lower() for b in before]
    if any(w in _UNIVERSAL for w in low[-4:]):
        return None
    det_at = next((k for k in (1, 2, 3) if len(low) >= k and low[-k] in _EVERY_DETS | _ONE_DETS), None)
    if det_at is None:  # a bare plural ("teams that own databases"): every one; a bare singular is no phrase
        return KindPhrase(m.group(0).strip(), start, m.end(), True, "") if plural else None
    said_between = low[len(low) - det_at + 1:]
    if any(w.endswith("'s") or w in _EVERY_DETS | _ONE_DETS or not re.fullmatch(r"[\w.-]+", w) for w in said_between):
        return None
    modifier = " ".join(b.group(0) for b in before[len(before) - det_at + 1:])
    det = low[-det_at]
    head = before[-det_at].start()  # where the determiner starts
    of = re.search(_OF_DETS, text[:head])  # (compiled on first use, by re's cache)
    begin = of.start() if of is not None and det in _ONE_DETS else head
    every = plural or det in _EVERY_DETS or of is not None
    if modifier and "-".join([*modifier.lower().split(), m.group(0).strip().lower()]) in (f.kind, f.kind + "s"):
        modifier = ""  # the kind's own words: "mobile app" (mobile-app), "s3 bucket" (s3-bucket)
    return KindPhrase(text[begin:m.end()], begin, m.end(), every, modifier)


class KindMembers(NamedTuple):
    """The entities of a kind a start phrase names in a view: those a readable unit declares of the kind (each with that
    declaration), those of the type it reads no kind for (then the kind's entities may be more than listed), and those
    of the type of other kinds."""

    members: dict[str, DeclaredKind]
    undeclared: list[str]
    others: list[str]


def kind_members(f: KindFilter, cv: Any, among: set[str] | None = None) -> KindMembers:
    """Every entity of ``f``'s type readable in ``cv``'s view (declared in a document the reader may read: the one
    check the coverage report makes, ``chainret.query.declared.declared_of``, or named by a relation the reader may
    read) whose declared kind is ``f.kind``, and those of no declared kind; with ``among``, only those of it."""
    from chainret.query.declared import declared_of

    typed = {e.id for e in declared_of(cv) if e.type == f.word.type}
    typed |= {i for r in cv.eligible_relations() for i in (r.subject, r.object) if i.partition(":")[0] == f.word.type}
    if among is not None:
        typed &= among
    members = {i: f.declared[i] for i in sorted(typed) if f.keeps(i)}
    return KindMembers(members, sorted(i for i in typed if i not in f.declared),
                       sorted(i for i in typed if i in f.declared and i not in members))
