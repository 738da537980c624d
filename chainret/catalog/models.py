"""Catalog models: the pydantic records a catalog or world file is made of.

Every model is frozen and forbids unknown fields, so a typo in a file is a load error, not a
silently ignored key. Field names are the file format (docs/catalog-format.md); keep them stable.

The pieces:

- ``Entity``: canonical ID ``type:world:name`` (``project:final:main``), ``type`` (must equal the
  ID's prefix), ``name`` (display name, *not* unique: two orgs are both "Rowan"), ``aliases``.
- ``Predicate``: ``name``, ``domain`` and ``range`` entity types, ``cardinality``
  (``functional``: one current object per subject; ``many``).
- ``SourceDocument``: one *version* of a document: ``source`` (system, e.g. ``registry``),
  ``document`` (``projects.md``), ``version`` (``v2``), ``representation`` (``text/markdown``),
  ``text``, ``digest`` (``sha256:<hex>`` of the UTF-8 text), ``visibility`` (``public`` |
  ``restricted`` | ``removed``) and ``principals`` (who may read it when restricted).
  Its key is the doc ref ``source/document@version`` (``registry/projects.md@v2``).
- ``Unit``: the retrievable piece of a document version, derived, never authored: see
  ``derive_units``. Ref ``registry/projects.md@v2#u3``.
- ``Relation``: ``id``, ``subject``, ``predicate``, ``object`` and ``support`` (``Support``:
  source, document, version, representation, digest, span ``[start, end)``, quote). The quote is a
  literal clause ``REL <subject> | <predicate> | <object>`` (``clause_text``). A record whose
  support does not check out is still loaded; ``catalog.validate`` marks it invalid (controls).
- ``View``: ``name``, ``order`` (as-of ordering; larger is later), ``documents`` (doc refs),
  ``current`` (exactly one view is the default). Earlier views stay addressable by name.
- ``Pattern``: ``name``, ``start_type``, ``hops`` (predicate names, in order), ``phrasings`` with
  one typed slot named after ``start_type`` (``"which contact serves {project}"``).
- ``Catalog``: ``format``, ``world``, the lists above; ``digest()`` is the sha256 of its canonical
  JSON (trace identity). Lookup dicts are built lazily and cached.

Cases (fixture expectations, consumed by ``chainret eval``) live in ``chainret.catalog.cases``.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import re
from functools import cached_property
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

CATALOG_FORMAT = "chainret-catalog/1"

ID_RE = re.compile(r"^([a-z][a-z0-9_]*):([a-z0-9][a-z0-9_-]*):([a-z0-9][a-z0-9_.-]*)$")
DOC_REF_RE = re.compile(r"^([A-Za-z0-9_.-]+)/([^@#\s]+)@([^@#/\s]+)$")
CLAUSE_PREFIX = "REL "
CLAUSE_SEP = " | "


def clause_text(subject: str, predicate: str, obj: str) -> str:
    """The literal clause that must support a relation: ``REL s | p | o``."""
    return f"{CLAUSE_PREFIX}{subject}{CLAUSE_SEP}{predicate}{CLAUSE_SEP}{obj}"


def parse_clause(text: str) -> tuple[str, str, str] | None:
    """``REL s | p | o`` -> (s, p, o); None when ``text`` is not exactly one clause."""
    if not text.startswith(CLAUSE_PREFIX) or "\n" in text:
        return None
    parts = text[len(CLAUSE_PREFIX) :].split(CLAUSE_SEP)
    if len(parts) != 3 or any(not p or p != p.strip() for p in parts):
        return None
    return parts[0], parts[1], parts[2]


def sha256_digest(text: str) -> str:
    """Content digest of a document text: ``sha256:<hex>`` over its UTF-8 bytes."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def doc_ref(source: str, document: str, version: str) -> str:
    return f"{source}/{document}@{version}"


def split_doc_ref(ref: str) -> tuple[str, str, str]:
    """``registry/projects.md@v2`` -> (``registry``, ``projects.md``, ``v2``); ValueError if malformed."""
    m = DOC_REF_RE.match(ref)
    if not m:
        raise ValueError(f"doc ref must look like 'source/document@version', found {ref!r}")
    return m.group(1), m.group(2), m.group(3)


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Entity(_Model):
    id: str
    type: str
    name: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list)
    description: str = ""

    @field_validator("id")
    @classmethod
    def _canonical(cls, v: str) -> str:
        if not ID_RE.match(v):
            raise ValueError(f"canonical ID must look like 'type:world:name' (lowercase), found {v!r}")
        return v

    @model_validator(mode="after")
    def _type_prefix(self) -> Entity:
        prefix = self.id.split(":", 1)[0]
        if prefix != self.type:
            raise ValueError(f"type {self.type!r} does not match the ID prefix {prefix!r} of {self.id!r}")
        return self

    @property
    def world(self) -> str:
        return self.id.split(":")[1]


class Predicate(_Model):
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    domain: str
    range: str
    cardinality: Literal["functional", "many"] = "many"
    description: str = ""


class SourceDocument(_Model):
    source: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    document: str = Field(pattern=r"^[^@#\s]+$")
    version: str = Field(pattern=r"^[^@#/\s]+$")
    representation: str = "text/markdown"
    title: str = ""
    text: str
    digest: str = Field(pattern=r"^sha256:[0-9a-f]{64}$")
    visibility: Literal["public", "restricted", "removed"] = "public"
    principals: list[str] = Field(default_factory=list)

    @property
    def ref(self) -> str:
        return doc_ref(self.source, self.document, self.version)

    @property
    def doc_id(self) -> str:
        """The document without its version: ``registry/projects.md``."""
        return f"{self.source}/{self.document}"

    def readable_by(self, principal: str) -> bool:
        if self.visibility == "public":
            return True
        if self.visibility == "restricted":
            return principal in self.principals
        return False


class Unit(_Model):
    """A paragraph of a document version (see ``derive_units``)."""

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
    units: list[Unit] = []
    pos = 0
    start: int | None = None
    end = 0
    for line in doc.text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if body.strip():
            if start is None:
                start = pos
            end = pos + len(body)
        elif start is not None:
            units.append(_unit(doc, len(units) + 1, start, end))
            start = None
        pos += len(line)
    if start is not None:
        units.append(_unit(doc, len(units) + 1, start, end))
    return units


def _unit(doc: SourceDocument, index: int, start: int, end: int) -> Unit:
    return Unit(ref=f"{doc.ref}#u{index}", doc_ref=doc.ref, index=index, start=start, end=end, text=doc.text[start:end])


class Support(_Model):
    source: str
    document: str
    version: str
    representation: str = "text/markdown"
    digest: str | None = None  # None = lost digest: the record loads but is invalid
    span: tuple[int, int]
    quote: str

    @property
    def doc_ref(self) -> str:
        return doc_ref(self.source, self.document, self.version)

    @model_validator(mode="after")
    def _span_order(self) -> Support:
        start, end = self.span
        if start < 0 or end < start:
            raise ValueError(f"span must be [start, end) with 0 <= start <= end, found {list(self.span)}")
        return self


class Relation(_Model):
    id: str = Field(pattern=r"^[A-Za-z0-9_.:-]+$")
    subject: str
    predicate: str
    object: str
    support: Support
    note: str = ""

    @property
    def clause(self) -> str:
        """The clause this record declares (what its quote must be)."""
        return clause_text(self.subject, self.predicate, self.object)


class View(_Model):
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


class Pattern(_Model):
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
    def _one_typed_slot(self) -> Pattern:
        for p in self.phrasings:
            slots = re.findall(r"\{([^{}]*)\}", p)
            if slots != [self.start_type]:
                raise ValueError(
                    f"phrasing {p!r} must contain exactly one slot {{{self.start_type}}}, found {slots}"
                )
        return self


class Catalog(_Model):
    format: Literal["chainret-catalog/1"] = CATALOG_FORMAT
    world: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    description: str = ""
    entities: list[Entity] = Field(default_factory=list)
    predicates: list[Predicate] = Field(default_factory=list)
    documents: list[SourceDocument] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)
    views: list[View] = Field(default_factory=list)
    patterns: list[Pattern] = Field(default_factory=list)

    # -- lookups (cached; the model is frozen) ---------------------------------------------
    @cached_property
    def entities_by_id(self) -> dict[str, Entity]:
        return {e.id: e for e in self.entities}

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
    def patterns_by_name(self) -> dict[str, Pattern]:
        return {p.name: p for p in self.patterns}

    @cached_property
    def units_by_doc(self) -> dict[str, list[Unit]]:
        return {d.ref: derive_units(d) for d in self.documents}

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

    @cached_property
    def _unit_starts(self) -> dict[str, list[int]]:
        return {ref: [u.start for u in units] for ref, units in self.units_by_doc.items()}

    def supporting_unit(self, relation: Relation) -> Unit | None:
        """The unit whose offsets contain the relation's support span (None if none does)."""
        start, end = relation.support.span
        ref = relation.support.doc_ref
        units = self.units_by_doc.get(ref, [])
        i = bisect.bisect_right(self._unit_starts.get(ref, []), start) - 1
        if i >= 0 and units[i].start <= start and end <= units[i].end:
            return units[i]
        return None

    @cached_property
    def relations_by_unit(self) -> dict[str, list[Relation]]:
        out: dict[str, list[Relation]] = {}
        for rel in self.relations:
            unit = self.supporting_unit(rel)
            if unit is not None:
                out.setdefault(unit.ref, []).append(rel)
        for rels in out.values():
            rels.sort(key=lambda r: (r.support.span[0], r.id))
        return out

    @cached_property
    def relations_by_subject_predicate(self) -> dict[tuple[str, str], list[Relation]]:
        out: dict[tuple[str, str], list[Relation]] = {}
        for rel in self.relations:
            out.setdefault((rel.subject, rel.predicate), []).append(rel)
        return out

    @cached_property
    def document_digest_ok(self) -> dict[str, bool]:
        """Per doc ref: does the declared digest match the text? (hashed once per catalog)"""
        return {d.ref: d.digest == sha256_digest(d.text) for d in self.documents}

    def canonical_json(self) -> str:
        """Sorted-key compact JSON of the content (via pydantic-core's fast dump, then the stdlib)."""
        data = json.loads(self.model_dump_json())
        return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    @cached_property
    def _digest(self) -> str:
        return "sha256:" + hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()

    def digest(self) -> str:
        """sha256 of the canonical JSON of the whole catalog: the identity a trace records (computed once)."""
        return self._digest
