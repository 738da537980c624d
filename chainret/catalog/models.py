"""Catalog models: the pydantic records a catalog or world file is made of.

Every model is frozen and forbids unknown fields, so a typo in a file is a load error, not a
silently ignored key. Field names are the file format (docs/catalog-format.md); keep them stable.

The pieces:

- ``Entity``: canonical ID ``type:world:name`` (``project:final:main``), ``type`` (must equal the
  ID's prefix), ``name`` (display name, *not* unique: two orgs are both "Rowan"), ``aliases``.
- ``Predicate``: ``name``, ``domain`` and ``range`` entity types, ``cardinality``
  (``functional``: one current object per subject; ``many``). A domain or range may be a union
  of types written ``component|api`` (``type_union``): Backstage's ``spec.owner`` is a Group or
  a User. A single type reads as before, so a catalog without ``|`` is unchanged.
- ``SourceDocument``: one *version* of a document: ``source`` (system, e.g. ``registry``),
  ``document`` (``projects.md``), ``version`` (``v2``), ``representation`` (``text/markdown``),
  ``text``, ``digest`` (``sha256:<hex>`` of the UTF-8 text), ``visibility`` (``public`` |
  ``restricted`` | ``removed``) and ``principals`` (who may read it when restricted).
  Its key is the doc ref ``source/document@version`` (``registry/projects.md@v2``).
- ``Unit``: the retrievable piece of a document version, derived, never authored: see
  ``derive_units``. Ref ``registry/projects.md@v2#u3``.
- ``Relation``: ``id``, ``subject``, ``predicate``, ``object`` and ``support`` (``Support``:
  source, document, version, representation, digest, span ``[start, end)``, quote, ``kind``). A
  ``clause`` quote is a literal clause ``REL <subject> | <predicate> | <object>`` (``clause_text``);
  a ``prose`` quote is a sentence mentioning subject and object. A record whose support does not
  check out is still loaded; ``chainret.catalog.checks`` marks it invalid, and reports it as an error
  unless its ``expect_invalid`` names its defects (the fixture worlds' deliberate controls).
- ``View``: ``name``, ``order`` (as-of ordering; larger is later), ``documents`` (doc refs),
  ``current`` (exactly one view is the default). Earlier views stay addressable by name.
- ``Pattern``: ``name``, ``start_type``, ``hops`` (predicate names, in order), ``phrasings`` with
  one typed slot named after ``start_type`` (``"which contact serves {project}"``).
- ``Catalog``: ``format``, ``world``, the lists above; ``digest()`` is the sha256 of its JSON
  (``canonical_json``: every field, declaration order; the trace identity), computed once.
  Lookup dicts are built lazily and cached; per-document tables (units, relations by unit, digest
  checks) are built one document at a time, on first use.

Cases (fixture expectations, consumed by ``chainret eval``) live in ``chainret.catalog.cases``.
"""

import bisect
import hashlib
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, Final, Literal

from chainret.core.record import ConfigDict, Field, Record, field_validator, from_dump, model_serializer, model_validator

from chainret.core.bulk import paused_gc
from chainret.core.stablejson import compact_json
from chainret.core.trusted import TrustedModel
from chainret.catalog.clause import CLAUSE_PREFIX as CLAUSE_PREFIX
from chainret.catalog.clause import CLAUSE_SEP as CLAUSE_SEP
from chainret.catalog.clause import clause_text as clause_text
from chainret.catalog.clause import doc_ref as doc_ref
from chainret.catalog.clause import parse_clause as parse_clause
from chainret.catalog.clause import unit_ref as unit_ref

if TYPE_CHECKING:
    from chainret.catalog.names import NameIndex

CATALOG_FORMAT: Final = "chainret-catalog/1"

ID_RE = re.compile(r"^([a-z][a-z0-9_]*):([a-z0-9][a-z0-9_-]*):([a-z0-9][a-z0-9_.-]*)$")
DOC_REF_RE = re.compile(r"^([A-Za-z0-9_.-]+)/([^@#\s]+)@([^@#/\s]+)$")
def sha256_digest(text: str) -> str:
    """Content digest of a document text: ``sha256:<hex>`` over its UTF-8 bytes."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


_unit_ref = unit_ref  # for methods whose parameter is named unit_ref


def functional_names(predicates: "Iterable[Predicate]") -> frozenset[str]:
    """The functional predicates: one current object per subject; a second is a contradiction."""
    return frozenset(p.name for p in predicates if p.cardinality == "functional")


def unit_doc(unit_ref: str) -> str:
    """The doc ref a unit ref points into (``""`` when it is not a unit ref)."""
    return unit_ref.rpartition("#u")[0]


def split_doc_ref(ref: str) -> tuple[str, str, str]:
    """``registry/projects.md@v2`` -> (``registry``, ``projects.md``, ``v2``); ValueError if malformed."""
    m = DOC_REF_RE.match(ref)
    if not m:
        raise ValueError(f"doc ref must look like 'source/document@version', found {ref!r}")
    return m.group(1), m.group(2), m.group(3)


def type_union(value: str) -> tuple[str, ...]:
    """The entity types a predicate's domain or range allows: ``"group|user"`` -> (``group``, ``user``)."""
    return tuple(value.split("|")) if "|" in value else (value,)


def canonical_id(v: str) -> str:
    """``v`` if it is a canonical entity ID (``type:world:name``, lowercase), else ValueError."""
    if not ID_RE.match(v):
        raise ValueError(f"canonical ID must look like 'type:world:name' (lowercase), found {v!r}")
    return v


# Field defaults: pydantic asks every default_factory for its signature when it builds a schema, and
# inspect.signature of the builtin list parses its text signature (about 0.1 ms each, tens of
# fields per model set); a plain function answers at once. Same values: a new empty list.
def _new_list() -> list[Any]:
    return []


class _Model(Record):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class NameSource(_Model, TrustedModel):
    """The labels one document declares for an entity (an importer's record of where a name comes from).

    ``document`` is the document's ID without version (``backstage/org/users.yaml``); ``""`` is the
    catalog's header (a source folder's ``chainret.yaml``), which everyone who knows the entity may
    know. A reader who may read no version of the document is not told its labels: they are what
    that document says, and the catalog with it deleted would not have them (``chainret.catalog.readable``).
    """

    document: str = ""
    name: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=_new_list)
    description: str = ""
    # The ``order`` of the view whose import first gave these labels; None (omitted from the file and
    # the digest): the catalog's first import. An import keeps the sources an earlier one recorded
    # (their documents' versions are still in the catalog) and appends only new ones, so the
    # catalog as it was at an earlier view is this one without the sources of later views
    # (``chainret.verify.replay.earlier_catalogs``).
    since: int | None = None

    @model_serializer(mode="wrap")
    def _omit_first(self, handler: Callable[[Any], Any]) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("since") is None:
            data.pop("since", None)
        return data

    def labels(self) -> tuple[str, str, tuple[str, ...], str]:
        """What this source says (its document and labels), whichever import recorded it."""
        return self.document, self.name, tuple(self.aliases), self.description


def merge_sources(sources: "Iterable[NameSource]") -> tuple[str, list[str], str]:
    """Name, aliases and description that these sources give, in order: the first source's name,
    every other label of all of them once, the first description given (``("", [], "")`` for none)."""
    sources = list(sources)
    if not sources:
        return "", [], ""
    name = sources[0].name
    labels = dict.fromkeys(label for s in sources for label in (s.name, *s.aliases))
    return name, [a for a in labels if a and a != name], next((s.description for s in sources if s.description), "")


class Entity(_Model, TrustedModel):
    id: str
    type: str
    name: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=_new_list)
    description: str = ""
    # Where the name, aliases and description come from (an importer's entities): a reader is told
    # only the labels of the sources they may read, plus any label no source declares (the header's).
    # Empty (every hand-written catalog): the labels are the catalog's; omitted from the file and
    # the digest then, so catalogs without it are byte-identical.
    declared_in: list[NameSource] = Field(default_factory=_new_list)

    @field_validator("id")
    @classmethod
    def _canonical(cls, v: str) -> str:
        return canonical_id(v)

    @model_validator(mode="after")
    def _type_prefix(self) -> "Entity":
        prefix = self.id.split(":", 1)[0]
        if prefix != self.type:
            raise ValueError(f"type {self.type!r} does not match the ID prefix {prefix!r} of {self.id!r}")
        return self

    @property
    def world(self) -> str:
        return self.id.split(":")[1]

    @model_serializer(mode="wrap")
    def _omit_no_sources(self, handler: Callable[[Any], Any]) -> Any:
        data = handler(self)
        if isinstance(data, dict) and not data.get("declared_in"):
            data.pop("declared_in", None)
        return data

    def as_read_by(self, documents: "frozenset[str] | set[str]") -> "Entity":
        """This entity as a reader who may read these documents (IDs without version) knows it: the
        labels of the sources they may read (``merge_sources``; the name is the ID when none is left).
        ``self`` when nothing is hidden (an entity with sources has exactly their labels)."""
        if not self.declared_in:
            return self
        seen = [s for s in self.declared_in if not s.document or s.document in documents]
        if len(seen) == len(self.declared_in):
            return self
        name, aliases, description = merge_sources(seen)
        return Entity.model_construct(id=self.id, type=self.type, name=name or self.id, aliases=aliases,
                                      description=description, declared_in=seen)


class Predicate(_Model, TrustedModel):  # (TrustedModel: a compiled store builds its records unchecked)
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    domain: str
    range: str
    cardinality: Literal["functional", "many"] = "many"
    description: str = ""
    # How requests may name this relation besides the defaults chainret derives from the name and
    # range (chainret.query.lexicon): nouns for the object ("vendor": "the vendor of V-12") and verbs whose
    # subject is the object ("provides": "who provides V-12"). Omitted from the file and the digest
    # when empty, so catalogs without them are byte-identical.
    nouns: list[str] = Field(default_factory=_new_list)
    verbs: list[str] = Field(default_factory=_new_list)

    @property
    def domain_types(self) -> tuple[str, ...]:
        return type_union(self.domain)

    @property
    def range_types(self) -> tuple[str, ...]:
        return type_union(self.range)

    @model_serializer(mode="wrap")
    def _omit_empty_words(self, handler: Callable[[Any], Any]) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for key in ("nouns", "verbs"):
                if not data.get(key):
                    data.pop(key, None)
        return data


def document_readable(visibility: str, principals: Iterable[str], principal: str) -> bool:
    """Who may read a document version: public is read by everyone, restricted by the principals it names,
    removed by nobody. The one home of the rule; every other form of it is a rendering held to this one:

    - ``reader_rows`` (below): the rule as the ``readers`` rows the compiler writes
      (``chainret.store.stream``);
    - ``READABLE`` (``chainret.store.sqlrows``): the rule as SQL over ``view_docs`` and ``readers``, used by the
      SQLite and PostgreSQL reader stores;
    - ``ViewFacts`` (``chainret.store.hopquery``): the same question answered in Python from one read of a view's
      ``view_docs`` and the principal's ``readers`` rows, for the hop statements;
    - ``POLICY`` (``chainret.store.postgres``): the rule as PostgreSQL row-level security, keyed on the login's roles.

    ``tests/test_permission_parity.py`` holds every rendering (the rows, SQLite's ``READABLE``, ``ViewFacts`` and
    the PostgreSQL policy) to this function.
    """
    if visibility == "public":
        return True
    if visibility == "restricted":
        return principal in principals
    return False


def reader_rows(visibility: str, principals: Iterable[str]) -> list[str]:
    """``document_readable`` as the ``readers`` rows of one version: ``"*"`` (everyone) for public, each named
    principal for restricted, none for removed, so ``document_readable(v, ps, p)`` iff ``"*"`` or ``p`` is a row.
    The compiled stores' other renderings read these rows: ``READABLE`` (``chainret.store.sqlrows``), ``ViewFacts``
    (``chainret.store.hopquery``) and PostgreSQL's ``POLICY`` (``chainret.store.postgres``)."""
    if visibility == "public":
        return ["*"]
    if visibility == "restricted":
        return sorted(set(principals))
    return []


#: Who may read a document version (``document_readable``): a ``SourceDocument``'s ``visibility``.
Visibility = Literal["public", "restricted", "removed"]


class SourceDocument(_Model, TrustedModel):
    source: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    document: str = Field(pattern=r"^[^@#\s]+$")
    version: str = Field(pattern=r"^[^@#/\s]+$")
    representation: str = "text/markdown"
    title: str = ""
    text: str
    digest: str = Field(pattern=r"^sha256:[0-9a-f]{64}$")
    visibility: Visibility = "public"
    principals: list[str] = Field(default_factory=_new_list)

    @property
    def ref(self) -> str:
        return doc_ref(self.source, self.document, self.version)

    @property
    def doc_id(self) -> str:
        """The document without its version: ``registry/projects.md``."""
        return f"{self.source}/{self.document}"

    def readable_by(self, principal: str) -> bool:
        """Whether ``principal`` may read this version: the one rule (``document_readable``)."""
        return document_readable(self.visibility, self.principals, principal)

    def reader_rows(self) -> list[str]:
        """This version's rows of a compiled store's ``readers`` table: ``document_readable`` as data."""
        return reader_rows(self.visibility, self.principals)


class Unit(_Model, TrustedModel):
    """A paragraph of a document version (see ``derive_units``). A ``TrustedModel``: a catalog builds its units
    from its documents' validated texts (``_unit_at``) without a validator."""

    ref: str
    doc_ref: str
    index: int = Field(ge=1)
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str


def derive_units(doc: SourceDocument) -> list[Unit]:
    """Split a document version into units, deterministically.

    A unit is a maximal run of non-blank lines (a paragraph); blank (whitespace-only) lines
    separate units. ``start`` is the offset of its first character, ``end`` the offset just past
    its last non-newline character, so ``doc.text[start:end] == unit.text``. Units are numbered
    ``u1, u2, …`` in document order; the ref is ``source/document@version#uN``.
    """
    ref = doc.ref
    text = doc.text
    return [
        Unit(ref=unit_ref(ref, i), doc_ref=ref, index=i, start=start, end=end, text=text[start:end])
        for i, (start, end) in enumerate(unit_spans(text), 1)
    ]


@lru_cache(maxsize=1024)
def unit_spans(text: str) -> tuple[tuple[int, int], ...]:
    """``(start, end)`` of each unit of a document text, in order (the rule of ``derive_units``).

    Cached by text, so a document version shared by several catalogs (a world and its case
    overlays) is split once; the search index needs only these spans, not ``Unit`` records.
    """
    spans: list[tuple[int, int]] = []
    pos = 0
    start: int | None = None
    end = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if body.strip():
            if start is None:
                start = pos
            end = pos + len(body)
        elif start is not None:
            spans.append((start, end))
            start = None
        pos += len(line)
    if start is not None:
        spans.append((start, end))
    return tuple(spans)


def normalize_name(text: str) -> str:
    """Whitespace-collapsed, case-folded form used to resolve IDs, names and aliases."""
    return " ".join(text.split()).casefold()


@lru_cache(maxsize=4096)
def _mention_pattern(term: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in term.split()]
    return re.compile(r"(?<![\w])" + r"\s+".join(words) + r"(?![\w])", re.IGNORECASE)


def mention_terms(entity: Entity) -> list[str]:
    """How a sentence may name an entity: its canonical ID, display name and aliases."""
    return [t for t in dict.fromkeys([entity.id, entity.name, *entity.aliases]) if t.strip()]


def mentions_term(text: str, term: str) -> bool:
    """Does ``text`` contain ``term`` as whole words (case-insensitive, any whitespace between words)?"""
    return _mention_pattern(term).search(text) is not None


def mentions(text: str, entity: Entity) -> bool:
    """Does ``text`` name ``entity`` (ID, display name or alias; case-insensitive, whole words)?"""
    return any(mentions_term(text, t) for t in mention_terms(entity))


class Support(_Model, TrustedModel):  # (TrustedModel: an import builds its records from a parsed clause in a validated document)
    source: str
    document: str
    version: str
    representation: str = "text/markdown"
    digest: str | None = None  # None = lost digest: the record loads but is invalid
    span: tuple[int, int]
    quote: str
    # ``clause``: the quote is the literal ``REL s | p | o`` line; ``prose``: an ordinary sentence
    # that mentions both the subject and the object (by canonical ID, display name or alias).
    kind: Literal["clause", "prose"] = "clause"

    @property
    def doc_ref(self) -> str:
        return doc_ref(self.source, self.document, self.version)

    @model_validator(mode="after")
    def _span_order(self) -> "Support":
        start, end = self.span
        if start < 0 or end < start:
            raise ValueError(f"span must be [start, end) with 0 <= start <= end, found {list(self.span)}")
        return self


class Relation(_Model, TrustedModel):  # (TrustedModel: as Support)
    id: str = Field(pattern=r"^[A-Za-z0-9_.:-]+$")
    subject: str
    predicate: str
    object: str
    support: Support
    note: str = ""
    # A deliberate control: the defect codes this record is meant to have (``invalid_digest``, …).
    # ``chainret validate`` reports any other invalid record as an error.
    expect_invalid: list[str] = Field(default_factory=_new_list)

    @field_validator("expect_invalid", mode="before")
    @classmethod
    def _one_or_many(cls, v: Any) -> Any:
        return [v] if isinstance(v, str) else v

    @property
    def clause(self) -> str:
        """The clause this record declares (what its quote must be)."""
        return clause_text(self.subject, self.predicate, self.object)


class View(_Model, TrustedModel):
    """One as-of view of the catalog. A ``TrustedModel``: a compiled store builds its views with
    ``model_construct`` from rows the catalog's validation checked at compile (at 1M relations a view
    lists about 19,000 document refs, and checking each ref again cost a cold ask on such a store about
    a third of its CPU)."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    order: int = 0
    current: bool = False
    documents: list[str]
    description: str = ""

    @field_validator("documents")
    @classmethod
    def _refs(cls, v: list[str]) -> list[str]:
        for ref in v:
            split_doc_ref(ref)
        return v


def next_view_name(earlier: Sequence[str]) -> str:
    """The name a build gives the view it adds after views named ``earlier`` (in order): ``v<n>``, n its
    position, the next number whose name is free. The one home of the rule: ``chainret.authoring.build``
    names views with it, and ``chainret.catalog.readable.reader_views`` names a reader's views with it, so
    a viewer is shown the names the catalog without the documents they may not read would have."""
    taken = set(earlier)
    n = len(earlier) + 1
    while f"v{n}" in taken:
        n += 1
    return f"v{n}"


class Pattern(_Model, TrustedModel):  # (TrustedModel: as Predicate)
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    start_type: str
    hops: list[str] = Field(min_length=1)
    phrasings: list[str] = Field(min_length=1)
    description: str = ""

    @property
    def slot(self) -> str:
        """The slot name, e.g. ``project`` in ``{project}``; equals ``start_type``."""
        return self.start_type

    @model_validator(mode="after")
    def _one_typed_slot(self) -> "Pattern":
        for p in self.phrasings:
            slots = re.findall(r"\{([^{}]*)\}", p)
            if slots != [self.start_type]:
                raise ValueError(
                    f"phrasing {p!r} must contain exactly one slot {{{self.start_type}}}, found {slots}"
                )
        return self


class Catalog(_Model, TrustedModel):
    format: Literal["chainret-catalog/1"] = CATALOG_FORMAT
    world: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    description: str = ""
    entities: list[Entity] = Field(default_factory=_new_list)
    predicates: list[Predicate] = Field(default_factory=_new_list)
    documents: list[SourceDocument] = Field(default_factory=_new_list)
    relations: list[Relation] = Field(default_factory=_new_list)
    views: list[View] = Field(default_factory=_new_list)
    patterns: list[Pattern] = Field(default_factory=_new_list)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> "Catalog":
        """pydantic's copy; with ``update`` the copy forgets the original's cached lookups and digest.

        They are ``cached_property`` values in the instance ``__dict__``, which pydantic copies: an
        edited copy would otherwise answer name lookups, entity maps and its digest from the
        original's records.
        """
        copy = super().model_copy(update=update, deep=deep)
        if update:
            for name in _CACHED_LOOKUPS:
                copy.__dict__.pop(name, None)
        return copy

    # -- lookups (cached; the model is frozen) ---------------------------------------------
    @cached_property
    def entities_by_id(self) -> dict[str, Entity]:
        return {e.id: e for e in self.entities}

    @cached_property
    def name_lookup(self) -> "NameIndex":
        """The tolerant name lookups over this catalog's entities (``chainret.catalog.names``), built on first use."""
        from chainret.catalog.names import NameIndex, entries_of

        with paused_gc():
            return NameIndex(entries_of(self.entities), self.entities_by_id.get)

    @cached_property
    def predicates_by_name(self) -> dict[str, Predicate]:
        return {p.name: p for p in self.predicates}

    @cached_property
    def documents_by_ref(self) -> dict[str, SourceDocument]:
        return {d.ref: d for d in self.documents}

    @cached_property
    def relations_by_id(self) -> dict[str, Relation]:
        return {r.id: r for r in self.relations}

    @cached_property
    def views_by_name(self) -> dict[str, View]:
        return {v.name: v for v in self.views}

    @cached_property
    def units_by_doc(self) -> dict[str, list[Unit]]:
        """Every document's units. Derives them all: the ask path uses ``units_of`` / ``unit`` instead."""
        with paused_gc():
            return {d.ref: self.units_of(d.ref) for d in self.documents}

    @cached_property
    def units_by_ref(self) -> dict[str, Unit]:
        return {u.ref: u for units in self.units_by_doc.values() for u in units}

    @property
    def current_view(self) -> View | None:
        """The default view: the one marked ``current`` (else the latest by ``order``)."""
        marked = [v for v in self.views if v.current]
        if marked:
            return marked[0]
        return max(self.views, key=lambda v: v.order, default=None)

    # Per-document tables, filled on first use: a request touches a few documents, and deriving
    # the units (or grouping the relations) of all of them is most of a large catalog's first ask.
    # A document's spans are computed once; each ``Unit`` record is built when first asked for.
    @cached_property
    def _per_doc(self) -> dict[str, tuple[tuple[tuple[int, int], ...], list[int], list[Unit | None]]]:
        return {}

    def _doc_table(self, doc_ref: str) -> tuple[tuple[tuple[int, int], ...], list[int], list[Unit | None]]:
        hit = self._per_doc.get(doc_ref)
        if hit is None:
            doc = self.documents_by_ref.get(doc_ref)
            spans = unit_spans(doc.text) if doc is not None else ()
            hit = self._per_doc[doc_ref] = (spans, [start for start, _ in spans], [None] * len(spans))
        return hit

    def _unit_at(self, doc_ref: str, i: int) -> Unit:
        """Unit ``i + 1`` of a document (as ``derive_units`` numbers it), built once."""
        spans, _, units = self._doc_table(doc_ref)
        unit = units[i]
        if unit is None:
            start, end = spans[i]
            text = self.documents_by_ref[doc_ref].text[start:end]
            unit = units[i] = Unit.model_construct(ref=unit_ref(doc_ref, i + 1), doc_ref=doc_ref, index=i + 1,
                                                   start=start, end=end, text=text)  # (TrustedModel: spans of a validated text)
        return unit

    def units_of(self, doc_ref: str) -> list[Unit]:
        """The units of one document version ([] for an unknown ref)."""
        return [self._unit_at(doc_ref, i) for i in range(len(self._doc_table(doc_ref)[0]))]

    def unit(self, ref: str) -> Unit | None:
        """The unit with this ref (``source/document@version#uN``), readable or not; None if none."""
        doc_ref, sep, number = ref.rpartition("#u")
        if not sep or not number.isdigit():
            return None
        i = int(number) - 1
        if 0 <= i < len(self._doc_table(doc_ref)[0]) and unit_ref(doc_ref, i + 1) == ref:
            return self._unit_at(doc_ref, i)
        return None

    def _unit_index(self, relation: Relation) -> int | None:
        start, end = relation.support.span
        spans, starts, _ = self._doc_table(relation.support.doc_ref)
        i = bisect.bisect_right(starts, start) - 1
        return i if i >= 0 and spans[i][0] <= start and end <= spans[i][1] else None

    def supporting_unit(self, relation: Relation) -> Unit | None:
        """The unit whose offsets contain the relation's support span (None if none does)."""
        i = self._unit_index(relation)
        return None if i is None else self._unit_at(relation.support.doc_ref, i)

    @cached_property
    def _relations_by_document(self) -> dict[str, list[Relation]]:
        """Support document name (any source or version) -> relation records, in catalog order."""
        out: defaultdict[str, list[Relation]] = defaultdict(list)
        with paused_gc():
            for rel in self.relations:
                out[rel.support.document].append(rel)
        return dict(out)

    @cached_property
    def _rels_by_unit(self) -> dict[str, dict[str, list[Relation]]]:
        return {}

    def relations_in_unit(self, unit_ref: str) -> list[Relation]:
        """Relations whose support span lies inside this unit, by span start then id (any status).

        Grouped one document at a time, on first use.
        """
        doc_ref = unit_doc(unit_ref)
        grouped = self._rels_by_unit.get(doc_ref)
        if grouped is None:
            grouped = {}
            m = DOC_REF_RE.match(doc_ref)
            for rel in self._relations_by_document.get(m.group(2), ()) if m else ():
                if rel.support.doc_ref != doc_ref:
                    continue
                i = self._unit_index(rel)
                if i is not None:
                    grouped.setdefault(_unit_ref(doc_ref, i + 1), []).append(rel)
            for rels in grouped.values():
                rels.sort(key=lambda r: (r.support.span[0], r.id))
            self._rels_by_unit[doc_ref] = grouped
        return list(grouped.get(unit_ref, ()))

    @cached_property
    def relations_by_subject(self) -> dict[str, list[Relation]]:
        """Subject ID -> relation records (any predicate), in catalog order."""
        out: defaultdict[str, list[Relation]] = defaultdict(list)
        with paused_gc():
            for rel in self.relations:
                out[rel.subject].append(rel)
        return dict(out)

    def relations_of(self, subject: str, predicate: str) -> list[Relation]:
        """Relation records of this subject and predicate, in catalog order (any status)."""
        return [r for r in self.relations_by_subject.get(subject, ()) if r.predicate == predicate]

    @cached_property
    def _name_indexes(self) -> dict[str | None, dict[str, list[Entity]]]:
        return {}

    def names_index(self, type: str | None = None) -> dict[str, list[Entity]]:  # noqa: A002 - the field's name
        """``normalize_name`` of each canonical ID, display name and alias -> entities, in catalog order.

        One index per entity type (None: all types), built on first use: resolving a request's
        slot needs only the slot type's entities.
        """
        index = self._name_indexes.get(type)
        if index is None:
            index = self._name_indexes[type] = self._build_names(type)
        return index

    def _build_names(self, type: str | None) -> dict[str, list[Entity]]:  # noqa: A002
        index: dict[str, list[Entity]] = {}
        norm = normalize_name
        with paused_gc():
            for ent in self.entities:
                if type is not None and ent.type != type:
                    continue
                key_id, key_name = norm(ent.id), norm(ent.name)
                keys: Iterable[str] = (key_id,) if key_id == key_name else (key_id, key_name)
                if ent.aliases:
                    keys = {*keys, *map(norm, ent.aliases)}
                for key in keys:
                    hit = index.get(key)
                    if hit is None:
                        index[key] = [ent]
                    else:
                        hit.append(ent)
        return index

    @cached_property
    def document_digest_ok(self) -> dict[str, bool]:
        """Per doc ref: does the declared digest match the text? (hashes every document; see ``digest_ok``)"""
        return {d.ref: d.digest == sha256_digest(d.text) for d in self.documents}

    @cached_property
    def _digest_ok(self) -> dict[str, bool]:
        return {}

    def digest_ok(self, doc_ref: str) -> bool:
        """Does the declared digest of this document version match its text? (hashed on first use; False if unknown)"""
        ok = self._digest_ok.get(doc_ref)
        if ok is None:
            doc = self.documents_by_ref.get(doc_ref)
            ok = self._digest_ok[doc_ref] = doc is not None and doc.digest == sha256_digest(doc.text)
        return ok

    @cached_property
    def _prose_mentions(self) -> dict[str, list[str]]:
        """Unit ref -> canonical IDs that the prose quotes supported in that unit name (by ID, name or alias)."""
        out: dict[str, list[str]] = {}
        for rel in self.relations:
            sup = rel.support
            if sup.kind != "prose":
                continue
            doc = self.documents_by_ref.get(sup.doc_ref)
            unit = self.supporting_unit(rel) if doc is not None else None
            if unit is None or doc is None or doc.text[sup.span[0]:sup.span[1]] != sup.quote:
                continue
            for eid in (rel.subject, rel.object):
                ent = self.entities_by_id.get(eid)
                ids = out.setdefault(unit.ref, [])
                if ent is not None and eid not in ids and mentions(sup.quote, ent):
                    ids.append(eid)
        return out

    def search_texts(self, units: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """``(ref, text)`` pairs as a search index should see them.

        A hop searches the exact canonical ID of its node, but a prose sentence names entities by
        display name or alias. So a unit that supports prose relations is indexed with the canonical
        IDs its (verbatim) quotes name appended; every other unit is indexed as written.
        """
        extra = self._prose_mentions
        if not extra:
            return list(units)
        return [(ref, f"{text}\n{' '.join(extra[ref])}" if extra.get(ref) else text) for ref, text in units]

    def canonical_json(self) -> str:
        """The catalog as compact JSON: every field, in declaration order, UTF-8 (what ``digest`` hashes).

        This is pydantic-core's own serialisation, in one native pass. The digest used to hash a
        sorted-key re-encoding of it (``json.dumps(..., sort_keys=True)``); on a 100k-relation
        catalog that round trip was half the CPU time of the first request, and key order adds
        no content. Reordering model fields changes every digest (the golden traces show it).
        """
        return self._json_bytes().decode("utf-8")

    def _json_bytes(self) -> bytes:
        # What ``model_dump_json()`` does before it decodes the bytes to str (hashing needs bytes); the same bytes
        # written without pydantic where its serializer is not built yet (a one-ask process: no pydantic import).
        if not type(self).__pydantic_complete__:
            plain = compact_json(self)
            if plain is not None:
                return plain
        return self.__pydantic_serializer__.to_json(self)  # type: ignore[no-any-return]

    @cached_property
    def _digest(self) -> str:
        return "sha256:" + hashlib.sha256(self._json_bytes()).hexdigest()

    def digest(self) -> str:
        """sha256 of ``canonical_json()`` of the whole catalog: the identity a trace records (computed once)."""
        return self._digest


def checked_catalog(data: dict[str, Any], digest: str) -> Catalog:
    """The catalog whose ``model_dump(mode="json")`` is ``data`` and whose ``digest()`` is ``digest``, rebuilt
    without validation (``chainret.core.record.from_dump``): a catalog this code validated and remembered
    (``chainret.catalog.parse``), so the digest is not computed again either (that is pydantic's serializer)."""
    catalog = from_dump(Catalog, data)
    catalog.__dict__["_digest"] = digest  # (the cached_property's own slot)
    return catalog


#: Every cached lookup of a Catalog (dropped from an edited copy, ``Catalog.model_copy``).
_CACHED_LOOKUPS: Final = tuple(n for k in Catalog.__mro__ for n, v in vars(k).items() if isinstance(v, cached_property))
