"""Compile a catalog into a store record by record: memory bounded by compact indexes, not the model graph.

``StreamCompile(w, file)`` takes validated records one at a time (``entity``, ``predicate``,
``document``, ``relation``, ``view``, ``pattern``; ``header`` for the top-level fields) and writes
their rows through the same ``Writer`` as ``compile_into`` (SQLite ``executemany``, PostgreSQL
``COPY``, inside the caller's one transaction), then ``finish()`` runs the cross-record checks and
writes what summarises all records. It is the one compiler of a store: ``compile_store`` feeds a
loaded ``Catalog`` to it too (``catalog_records``), and an update (``chainret.store.compile.update_into``)
feeds it the whole new catalog with the count of records the store holds (``stored``: their rows are
not written again, but for what a stored record's change reaches: ``_relabel``, ``_index_again``). So
each table's rows are made here, in the record's method (``entity``, ``document``, ``relation``,
``view``, ``pattern``, ``_unit_rows``; the label rows by ``schema.entity_rows``), and nowhere else.
A bad catalog raises the same ``CatalogFileInvalid`` as ``catalog_from_data`` (load.reference_issues'
issues, in its order).

What it keeps in memory, and why each is enough:

* entity ID -> ordinal and type (dangling references, the relations' domain/range defects); a
  prose relation's entity names and aliases are read back from the rows already written;
* per document version: ordinal, digest, representation, visibility, readers and text length;
  the texts of the few most recent documents (relations usually follow their document), others
  read back by primary key;
* per principal class, one byte per entity (is it known to that reader, for its catalog identity);
* views, predicates and patterns (small); the unit refs that prose quotes name (``search_texts``).

Every record's canonical JSON goes to a spill file per section; the catalog digest and each principal
class's reader-catalog digest (``catalog.readable.reader_catalog``) are hashed from those files at
the end, in the catalog's field order, because a reader's entities (hashed first) depend on every
relation. Units and postings are written last, reading the document texts back from the store,
because the prose-supported units are indexed with the IDs their quotes name.

Records must come in dependency order: entities, predicates and documents before relations,
documents before views, ``world`` before entities. ``OutOfOrder`` says when they do not (the caller
then compiles the catalog in memory).
"""

from __future__ import annotations

import bisect
import hashlib
import json
import os
import struct
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, cast

from chainret.catalog.defects import relation_defects
from chainret.catalog.issues import CatalogFileInvalid, Issue
from chainret.catalog.references import duplicate_message, wrong_world_message
from chainret.catalog.models import (
    Catalog,
    Entity,
    NameSource,
    Pattern,
    Predicate,
    Relation,
    SourceDocument,
    Support,
    View,
    document_readable,
    merge_sources,
    sha256_digest,
    split_doc_ref,
    type_union,
    unit_ref,
    unit_spans,
)
from chainret.catalog.readable import reader_entity, reader_since, reader_view_pairs, reader_views
from chainret.core.progress import Progress, no_progress
from chainret.store.namewords import NameWords
from chainret.store.schema import (LABEL_READERS_SQL, RELATION_ROWS, UNIT_DOC_REF, UNIT_TEXT, Row, SQLValue, Writer, as_int, as_str, corpus_rows, entity_rows,
                                   packed_name_rows, posting_row, posting_term, predicate_row, doc_ords_of, relation_row, units_by_ref)

SECTIONS = ("entities", "predicates", "documents", "relations", "views", "patterns")
_NOBODY = "\x00"  # the principal class of everyone no restricted document names (as ``reader_catalog`` is asked)
_TEXTS_KEPT = 16
_REC = struct.Struct("<iI")  # spill record: key (entity / document ordinal, -1 none), byte length

#: A validated record of one section.
Record = Entity | Predicate | SourceDocument | Relation | View | Pattern
#: What ``compile_records`` takes: ``("header", (format, world, description))`` or a section name and
#: its record (a reader of catalog files yields them as it parses, so their values are checked here).
RecordItem = tuple[str, object]

BATCH = 20_000  # rows a writer is handed at a time


class _Buffers:
    """Rows of related tables, written together in batches (parents before children)."""

    def __init__(self, w: Writer, *tables: str) -> None:
        self.w = w
        self.rows: dict[str, list[Sequence[SQLValue]]] = {t: [] for t in tables}

    def flush(self, *, full_only: bool = False) -> None:
        if full_only and all(len(r) < BATCH for r in self.rows.values()):
            return
        for table, rows in self.rows.items():
            if rows:
                self.w.insert(table, rows)
                rows.clear()


def label_readers(w: Writer) -> None:
    """Recompute ``label_readers`` (who may read a document that declares labels) from the written tables."""
    w.execute("DELETE FROM label_readers")
    w.execute(LABEL_READERS_SQL)


def _corpus(w: Writer) -> None:
    """Recompute the per view / principal class unit counts from the stored units (a small table)."""
    view_docs: dict[str, list[int]] = {}
    for v, d in w.rows("SELECT view_name, doc_ord FROM view_docs ORDER BY view_name, doc_ord"):
        view_docs.setdefault(as_str(v), []).append(as_int(d))
    readers: dict[int, set[str]] = {}
    for d, p in w.rows("SELECT doc_ord, principal FROM readers"):
        readers.setdefault(as_int(d), set()).add(as_str(p))
    stats = {as_int(d): (as_int(n), as_int(t)) for d, n, t in w.rows("SELECT doc_ord, count(*), sum(ntok) FROM units GROUP BY doc_ord")}
    for docs in view_docs.values():
        for d in docs:
            stats.setdefault(d, (0, 0))
    w.execute("DELETE FROM corpus")
    w.insert("corpus", corpus_rows(view_docs, readers, stats))  # (both writers stream an iterable)


def counts(w: Writer) -> dict[str, int]:
    return {t: as_int(w.rows(f"SELECT count(*) FROM {t}")[0][0]) for t in ("entities", "documents", "units", "relations", "views", "postings")}


class OutOfOrder(Exception):
    """The records do not come in the order a one-pass compile needs (see the module docstring)."""


@dataclass
class _Doc:
    ord: int
    ref: str
    doc_id: str
    digest: str
    representation: str
    support: tuple[str, str, str, str, str | None]  # source, document, version, representation, digest (``_own_support``)
    visibility: str
    principals: frozenset[str]
    size: int
    digest_ok: bool


def _own_support(sup: Support, document: tuple[str, str, str, str, str | None]) -> bool:
    """Whether a relation's row must keep its support's five columns: they differ from its document version's
    (``chainret.store.schema``, schema 8; a reader puts back the version's where the row holds NULL)."""
    return (sup.source, sup.document, sup.version, sup.representation, sup.digest) != document


def _own_quote(quote: str, text: str, span: tuple[int, int]) -> bool:
    """Whether a relation's quote needs its ``relation_quotes`` row: it is not the text of its span (read back from
    its document version's text where it is: ``chainret.store.schema.QUOTE``)."""
    return text[span[0]:span[1]] != quote


class _DocView:
    """What ``relation_defects`` reads of a document (its text fetched on demand)."""

    __slots__ = ("_sc", "_d", "digest", "representation")

    def __init__(self, sc: StreamCompile, d: _Doc) -> None:
        self._sc, self._d = sc, d
        self.digest, self.representation = d.digest, d.representation

    @property
    def text(self) -> str:
        return self._sc.text(self._d)


class _EntView:
    """What ``relation_defects`` / ``mentions`` read of an entity: its type, and (prose only) names."""

    __slots__ = ("_sc", "id", "ord", "type")

    def __init__(self, sc: StreamCompile, eid: str, ordinal: int) -> None:
        self._sc, self.id, self.ord, self.type = sc, eid, ordinal, sc.ent_type[ordinal]

    @property
    def name(self) -> str:
        return self._sc.entity_names(self.ord)[0]

    @property
    def aliases(self) -> list[str]:
        return self._sc.entity_names(self.ord)[1]


class _Docs:
    def __init__(self, sc: StreamCompile) -> None:
        self.sc = sc

    def get(self, ref: str) -> _DocView | None:
        d = self.sc.docs.get(ref)
        return None if d is None else _DocView(self.sc, d)


class _Ents:
    def __init__(self, sc: StreamCompile) -> None:
        self.sc = sc

    def get(self, eid: str) -> _EntView | None:
        o = self.sc.ent_ord.get(eid)
        return None if o is None else _EntView(self.sc, eid, o)


class _Index:
    """The slice of the ``Catalog`` interface that ``relation_defects`` uses, over the compact indexes."""

    def __init__(self, sc: StreamCompile) -> None:
        self.sc = sc
        self.documents_by_ref = _Docs(sc)
        self.entities_by_id = _Ents(sc)
        self.predicates_by_name = sc.preds

    def digest_ok(self, ref: str) -> bool:
        d = self.sc.docs.get(ref)
        return d is not None and d.digest_ok


class StreamCompile:
    """One compile, fed record by record (see the module docstring)."""

    def __init__(self, w: Writer, file: str = "<catalog>", spill_dir: str | None = None,
                 progress: Progress = no_progress, *, refuse_invalid: bool = True, stored: Mapping[str, int] | None = None) -> None:
        self.w, self.file, self.progress, self.refuse_invalid = w, file, progress, refuse_invalid
        self.derives = w.derives_evidence  # (schema 8: ``relation`` leaves out what the document version holds)
        # (schema 10: a SQLite store's relations by ordinals, ``schema.RELATION_ROWS``)
        self.rel_table = RELATION_ROWS if w.packs_relations else "relations"
        self.packs_names = w.packs_names
        self.keys_terms = w.keys_terms
        self.lean_postings = w.lean_postings
        self.bases_units = w.bases_units
        self.codes_words = w.codes_words  # (schema 13: ``schema.WORD_CODES``)
        self.word_codes: dict[str, int] | None = None  # word -> code, read from the store when first needed
        self.new_words: list[Row] = []  # (code, word) not yet written, written before the postings that name them
        # the words of the names this write adds (``chainret.store.namewords``; a SQLite store's only)
        self.words: NameWords | None = NameWords() if w.keeps_name_words else None
        # An update (``compile.update_into``): how many records of each section the store holds already. They are
        # fed like the others (the indexes, the prose mentions and the digests need every record) but their rows
        # are not written again; a stored unit whose prose quotes now name more IDs is indexed again (``_units``).
        self.stored = {**dict.fromkeys(SECTIONS, 0), **(stored or {})}
        self.reindex: set[str] = set()
        self.relabelled: set[str] = set()
        self._stored_labels: tuple[dict[int, Row], dict[int, list[Row]]] | None = None
        self.head: dict[str, str] | None = None
        self.started: set[str] = set()
        self.n = dict.fromkeys(SECTIONS, 0)
        self.ent_ord: dict[str, int] = {}
        self.ent_type: list[str] = []
        self.types_known: set[str] = set()
        self.preds: dict[str, Predicate] = {}
        self.pred_ord: dict[str, int] = {}
        self.pred_list: list[Predicate] = []
        self.docs: dict[str, _Doc] = {}
        self.views: list[View] = []
        self.patterns: list[Pattern] = []
        self.first: dict[str, dict[str, int]] = {s: {} for s in ("predicates", "views", "patterns")}
        self.dupes: dict[str, list[Issue]] = {s: [] for s in SECTIONS}
        self.world_issues: list[Issue] = []
        self.rel_issues: list[Issue] = []
        self.view_issues: list[Issue] = []
        self.classes: list[str] = []  # principal classes: "*" and the named principals (fixed at the first relation)
        self.known: dict[str, bytearray] = {}
        self.prose: dict[str, list[str]] = {}
        self._texts: OrderedDict[int, str] = OrderedDict()
        self._spans: OrderedDict[int, tuple[tuple[tuple[int, int], ...], list[int]]] = OrderedDict()
        self._names: dict[int, tuple[str, list[str]]] = {}
        # ``relation_defects`` reads only the slice of a Catalog that ``_Index`` answers (its docstring).
        self.index = cast(Catalog, _Index(self))
        self._buffers = _Buffers(w, "entities", "names", "name_sources", "predicates", "patterns", "documents", "readers", "document_meta",
                                 "views", "view_docs", self.rel_table, "relation_quotes")
        self.rows = self._buffers.rows
        self._spill_dir = tempfile.mkdtemp(prefix="chainret-compile-", dir=spill_dir)
        self.spill: dict[str, IO[bytes]] = {s: open(os.path.join(self._spill_dir, s), "w+b") for s in SECTIONS}  # noqa: SIM115

    # -- feeding ------------------------------------------------------------------------------------
    def feed(self, kind: str, value: object) -> None:
        """One ``(kind, value)`` of ``compile_records``: the header or a section's record."""
        if kind == "header" and isinstance(value, tuple) and len(value) == 3:
            self.header(*(str(v) for v in value))
        elif kind == "entities" and isinstance(value, Entity):
            self.entity(value)
        elif kind == "predicates" and isinstance(value, Predicate):
            self.predicate(value)
        elif kind == "documents" and isinstance(value, SourceDocument):
            self.document(value)
        elif kind == "relations" and isinstance(value, Relation):
            self.relation(value)
        elif kind == "views" and isinstance(value, View):
            self.view(value)
        elif kind == "patterns" and isinstance(value, Pattern):
            self.pattern(value)
        else:
            raise TypeError(f"not a catalog record for {kind!r}: {type(value).__name__}")

    def header(self, fmt: str, world: str, description: str) -> None:
        self.head = {"format": fmt, "world": world, "description": description}

    def _start(self, section: str) -> None:
        if section not in self.started:
            if any(s in self.started for s in _LATER_NEEDS.get(section, ())):
                raise OutOfOrder(section)
            self.started.add(section)
        if self.head is None and section == "entities":
            raise OutOfOrder("world")

    def _spill(self, section: str, key: int, record: Record) -> None:
        raw = type(record).__pydantic_serializer__.to_json(record)
        f = self.spill[section]
        f.write(_REC.pack(key, len(raw)))
        f.write(raw)

    def _err(self, bucket: list[Issue], code: str, where: str, fld: str, message: str) -> None:
        bucket.append(Issue(code, "error", self.file, where, fld, message))

    def _dupe(self, section: str, i: int, key: str, first: int, label: str) -> None:
        self._err(self.dupes[section], "duplicate_id", f"{section}[{i}] ({label} {key})", label,
                  duplicate_message(label, key, section, first))

    def entity(self, e: Entity) -> None:
        self._start("entities")
        i = self.n["entities"]
        self.n["entities"] += 1
        first = self.ent_ord.get(e.id)
        if first is not None:
            self._dupe("entities", i, e.id, first, "id")
        else:
            self.ent_ord[e.id] = i
        self.ent_type.append(e.type)
        self.types_known.add(e.type)
        assert self.head is not None
        if e.world != self.head["world"]:
            self._err(self.world_issues, "wrong_world", f"entities[{i}] (id {e.id})", "id",
                      wrong_world_message(self.head["world"], e.world))
        entity, names, sources = entity_rows(e, i)
        if self.packs_names:  # (schema 11: a SQLite label row keeps its fold, not its key nor its type: ``schema.SQLITE_NAMES``)
            names = packed_name_rows(names)
        elif self.derives:  # (schema 9: a SQLite label row's type is its entity's, which the lookups read from ``entities``)
            names = [(r[0], None, *r[2:]) for r in names]
        if self._new("entities", i):
            self.rows["entities"].append(entity)
            self.rows["names"].extend(names)
            self.rows["name_sources"].extend(sources)
            self._flush(full_only=True)
            written = True
        else:
            written = self._relabel(e.id, entity, names, sources)
        if written and self.words is not None:  # every source's labels: a reader's check narrows them
            self.words.add(e.type, i, (e.id, e.name, *e.aliases, *(x for s in e.declared_in for x in (s.name, *s.aliases))))
        self._spill("entities", i, e)

    def predicate(self, p: Predicate) -> None:
        self._start("predicates")
        i = self._keyed("predicates", p.name, "name")
        if p.name not in self.preds:
            self.preds[p.name] = p
            self.pred_ord[p.name] = i
        self.pred_list.append(p)
        if self._new("predicates", i):
            self.rows["predicates"].append(predicate_row(i, p))
        self._spill("predicates", -1, p)

    def _relabel(self, eid: str, entity: Row, names: list[Row], sources: list[Row]) -> bool:
        """An update's stored entity whose labels or name sources changed: its label rows written again whole
        (True; False where nothing changed).

        A re-import keeps an entity and appends the sources its records add (``NameSource.since``), so a stored
        entity's labels grow while its ID, type and place stay (``update_into`` refuses anything else)."""
        if self._stored_labels is None:
            self._flush()
            rows = {as_int(r[0]): tuple(r) for r in self.w.rows(
                "SELECT ord, id, type, name, aliases, description FROM entities WHERE ord < ?", (self.stored["entities"],))}
            declared: dict[int, list[Row]] = {}
            for r in self.w.rows("SELECT entity_ord, seq, doc_id, name, aliases, description, since FROM name_sources ORDER BY entity_ord, seq"):
                declared.setdefault(as_int(r[0]), []).append(cast(Row, tuple(r)))
            self._stored_labels = (cast(dict[int, Row], rows), declared)
        i = as_int(entity[0])
        if self._stored_labels[0].get(i) == entity and self._stored_labels[1].get(i, []) == sources:
            return False
        self.relabelled.add(eid)
        self.w.execute("DELETE FROM names WHERE entity_ord = ?", (i,))
        self.w.execute("DELETE FROM name_sources WHERE entity_ord = ?", (i,))
        self.w.execute(f"UPDATE {self.w.row_tables.get('entities', 'entities')} SET name = ?, aliases = ?, description = ? WHERE ord = ?",
                       (*entity[3:6], i))
        self.w.insert("names", names)
        if sources:
            self.w.insert("name_sources", sources)
        return True

    def _new(self, section: str, i: int) -> bool:
        """Whether record ``i`` of ``section`` has no rows in the store yet (every record, but an update's stored ones)."""
        return i >= self.stored[section]

    def _keyed(self, section: str, key: str, label: str) -> int:
        i = self.n[section]
        self.n[section] += 1
        first = self.first[section].get(key)
        if first is not None:
            self._dupe(section, i, key, first, label)
        else:
            self.first[section][key] = i
        return i

    def document(self, d: SourceDocument) -> None:
        self._start("documents")
        i = self.n["documents"]
        self.n["documents"] += 1
        ref = d.ref
        old = self.docs.get(ref)
        if old is not None:
            self._dupe("documents", i, ref, old.ord, "ref")
        else:
            self.docs[ref] = _Doc(i, ref, d.doc_id, d.digest, d.representation,
                                  (d.source, d.document, d.version, d.representation, d.digest), d.visibility,
                                  frozenset(d.principals), len(d.text), d.digest == sha256_digest(d.text))
            self._remember(i, d.text)
        if self._new("documents", i):
            self.rows["documents"].append((i, ref, d.source, d.document, d.version, d.representation, d.title, d.digest,
                                           d.visibility, json.dumps(d.principals), d.text))
            self.rows["readers"].extend((i, p) for p in d.reader_rows())
            # (``unit_base``: written with the version's units, ``_units``)
            self.rows["document_meta"].append((i, ref, d.visibility, None) if self.bases_units else (i, ref, d.visibility))
            self._flush(full_only=True)
        self._spill("documents", i, d)

    def _classes(self) -> None:
        if not self.classes:
            named = sorted({p for d in self.docs.values() if d.visibility == "restricted" for p in d.principals})
            self.classes = ["*", *named]
            self.known = {c: bytearray(len(self.ent_type)) for c in self.classes}

    def _reads(self, d: _Doc, cls: str) -> bool:
        return document_readable(d.visibility, d.principals, _NOBODY if cls == "*" else cls)

    def relation(self, r: Relation) -> None:
        self._start("relations")
        self._classes()
        i = self.n["relations"]
        self.n["relations"] += 1
        sup = r.support
        where = f"relations[{i}] (id {r.id})"
        ents = self.ent_ord
        from chainret.catalog.suggest import did_you_mean

        for fld in ("subject", "object"):
            value = getattr(r, fld)
            if value not in ents:
                self._err(self.rel_issues, "dangling_reference", where, fld,
                          f"expected a declared entity ID, found {value!r}{did_you_mean(value, ents)}")
        if r.predicate not in self.preds:
            preds = self.preds
            self._err(self.rel_issues, "dangling_reference", where, "predicate",
                      f"expected a declared predicate ({', '.join(sorted(preds))}), found {r.predicate!r}{did_you_mean(r.predicate, preds)}")
        ref = sup.doc_ref
        d = self.docs.get(ref)
        uidx: int | None = None
        uref: str | None = None
        if d is None:
            self._err(self.rel_issues, "dangling_reference", where, "support",
                      f"expected a declared document version, found {ref!r}{did_you_mean(ref, self.docs)}")
        else:
            if sup.span[1] > d.size:
                self._err(self.rel_issues, "span_out_of_range", where, "support.span",
                          f"expected a span within the document's {d.size} characters, found {list(sup.span)}")
            new = self._new("relations", i)
            # (a stored relation's unit is in its row already; a prose one's is indexed with the IDs its quote names)
            uidx = self._unit(d, sup.span) if new or sup.kind == "prose" else None
            uref = None if uidx is None else unit_ref(d.ref, uidx)
            for cls in self.classes:
                if self._reads(d, cls):
                    known = self.known[cls]
                    for eid in (r.subject, r.object):
                        o = ents.get(eid)
                        if o is not None:
                            known[o] = 1
            if sup.kind == "prose" and uref is not None and self.text(d)[sup.span[0]:sup.span[1]] == sup.quote:
                if self._prose(r, uref) and not self._new("documents", d.ord):
                    self.reindex.add(uref)  # a stored unit indexed with IDs: perhaps more than the store has (``_units``)
        doc = d.ord if d is not None else None
        if self._new("relations", i):
            own = d is None or not self.derives or _own_support(sup, d.support)
            support = (sup.source, sup.document, sup.version, sup.representation, sup.digest) if own else (None,) * 5
            row = (i, r.id, r.subject, r.predicate, r.object, *support, sup.span[0], sup.span[1], r.note, doc, uref, self._defects(r), sup.kind)
            if self.rel_table == RELATION_ROWS:
                row = relation_row(row, ents, self.pred_ord, uidx)
            self.rows[self.rel_table].append(row)
            if d is None or not self.derives or _own_quote(sup.quote, self.text(d), sup.span):
                self.rows["relation_quotes"].append((i, doc, sup.quote))
            self._flush(full_only=True)
        elif sup.kind == "prose" and {r.subject, r.object} & self.relabelled:  # (whether its quote names them: their labels)
            self.w.execute(f"UPDATE {self.rel_table} SET defects = ? WHERE ord = ?", (self._defects(r), i))
        self._spill("relations", -1 if doc is None else doc, r)

    def _defects(self, r: Relation) -> str:
        """The ``relations.defects`` column: ``relation_defects`` over the compact indexes."""
        return ",".join(relation_defects(self.index, r))

    def _prose(self, r: Relation, uref: str) -> bool:
        """Add the IDs ``r``'s quote names to the unit's search text (``Catalog.search_texts``); whether any was new."""
        from chainret.catalog.models import mentions

        added = False
        for eid in (r.subject, r.object):
            ent = self.index.entities_by_id.get(eid)
            ids = self.prose.setdefault(uref, [])
            if ent is not None and eid not in ids and mentions(r.support.quote, ent):
                ids.append(eid)
                added = True
        return added

    def view(self, v: View) -> None:
        self._start("views")
        i = self._keyed("views", v.name, "name")
        self.views.append(v)
        if self._new("views", i):
            self.rows["views"].append((i, v.name, v.order, int(v.current), json.dumps(v.documents), v.description))
            for ref in dict.fromkeys(v.documents):
                d = self.docs.get(ref)
                if d is not None:
                    self.rows["view_docs"].append((v.name, d.ord, d.doc_id, d.visibility))
        else:  # an update's stored view: only which view is current may change
            self.w.execute("UPDATE views SET current = ? WHERE ord = ?", (int(v.current), i))
        from chainret.catalog.suggest import did_you_mean

        seen: dict[str, str] = {}
        where = f"views[{i}] (name {v.name})"
        for j, ref in enumerate(v.documents):
            if ref not in self.docs:
                self._err(self.view_issues, "dangling_reference", where, f"documents.{j}",
                          f"expected a declared document version, found {ref!r}{did_you_mean(ref, self.docs)}")
            src, doc_name, _ = split_doc_ref(ref)
            doc_id = f"{src}/{doc_name}"
            if doc_id in seen:
                self._err(self.view_issues, "duplicate_id", where, f"documents.{j}",
                          f"a view holds one version per document: {seen[doc_id]!r} and {ref!r}")
            seen[doc_id] = ref
        self._spill("views", -1, v)

    def pattern(self, p: Pattern) -> None:
        self._start("patterns")
        i = self._keyed("patterns", p.name, "name")
        self.patterns.append(p)
        if self._new("patterns", i):
            self.rows["patterns"].append((i, p.name, p.model_dump_json()))
        self._spill("patterns", -1, p)

    # -- documents' texts and units ---------------------------------------------------------------
    def _remember(self, ordinal: int, text: str) -> None:
        self._texts[ordinal] = text
        self._texts.move_to_end(ordinal)
        while len(self._texts) > _TEXTS_KEPT:
            self._texts.popitem(last=False)

    def text(self, d: _Doc) -> str:
        hit = self._texts.get(d.ord)
        if hit is None:
            self._flush()
            hit = str(self.w.rows("SELECT text FROM documents WHERE ord = ?", (d.ord,))[0][0])
            self._remember(d.ord, hit)
        return hit

    def _unit(self, d: _Doc, span: tuple[int, int]) -> int | None:
        """The index of the unit whose offsets contain ``span`` (as ``Catalog.supporting_unit``; its ref is ``unit_ref``
        of the version's and this)."""
        hit = self._spans.get(d.ord)
        if hit is None:
            spans = unit_spans(self.text(d))
            hit = self._spans[d.ord] = (spans, [s for s, _ in spans])
            while len(self._spans) > _TEXTS_KEPT:
                self._spans.popitem(last=False)
        spans, starts = hit
        start, end = span
        i = bisect.bisect_right(starts, start) - 1
        return i + 1 if i >= 0 and spans[i][0] <= start and end <= spans[i][1] else None

    def entity_names(self, ordinal: int) -> tuple[str, list[str]]:
        hit = self._names.get(ordinal)
        if hit is None:
            self._flush()
            name, aliases = self.w.rows("SELECT name, aliases FROM entities WHERE ord = ?", (ordinal,))[0]
            sources = self.w.rows("SELECT name, aliases FROM name_sources WHERE entity_ord = ? ORDER BY seq", (ordinal,))
            if sources:  # an importer's entity: its labels are all its sources' (``schema.entity_rows``)
                name, merged, _ = merge_sources(NameSource(name=as_str(n), aliases=json.loads(as_str(a))) for n, a in sources)
                aliases = json.dumps(merged)
            hit = self._names[ordinal] = (str(name), [str(a) for a in json.loads(as_str(aliases))])
        return hit

    def _flush(self, *, full_only: bool = False) -> None:
        self._buffers.flush(full_only=full_only)

    # -- the end ----------------------------------------------------------------------------------
    def issues(self) -> list[Issue]:
        """The cross-record problems, in ``load.reference_issues``' order."""
        from chainret.catalog.suggest import did_you_mean

        self._flush()
        if self.n["relations"]:
            twice = [as_str(r[0]) for r in self.w.rows("SELECT id FROM relations GROUP BY id HAVING count(*) > 1")]
            first: dict[str, int] = {}
            for i, rid in self._relation_ids(twice):
                if rid in first:
                    self._dupe("relations", i, rid, first[rid], "id")
                else:
                    first[rid] = i
        out = [x for s in SECTIONS for x in self.dupes[s]]
        out += self.world_issues
        types_known = self.types_known
        for i, p in enumerate(self.pred_list):
            for fld in ("domain", "range"):
                for value in type_union(getattr(p, fld)):  # "group|user": each type of the union
                    if value not in types_known:
                        self._err(out, "dangling_reference", f"predicates[{i}] (name {p.name})", fld,
                                  f"expected an entity type declared by some entity ({', '.join(sorted(types_known))}), found {value!r}")
        out += self.rel_issues + self.view_issues
        if self.views and sum(v.current for v in self.views) > 1:
            self._err(out, "invalid_value", "views", "current", "expected at most one view marked current, found several")
        preds = self.preds
        for i, pat in enumerate(self.patterns):
            where = f"patterns[{i}] (name {pat.name})"
            if pat.start_type not in types_known:
                self._err(out, "dangling_reference", where, "start_type",
                          f"expected a declared entity type, found {pat.start_type!r}{did_you_mean(pat.start_type, types_known)}")
            for j, hop in enumerate(pat.hops):
                if hop not in preds:
                    self._err(out, "dangling_reference", where, f"hops.{j}",
                              f"expected a declared predicate, found {hop!r}{did_you_mean(hop, preds)}")
        return out

    def _relation_ids(self, ids: list[str]) -> Iterator[tuple[int, str]]:
        for k in range(0, len(ids), 500):
            chunk = ids[k:k + 500]
            marks = ", ".join("?" * len(chunk))
            for i, rid in self.w.rows(f"SELECT ord, id FROM relations WHERE id IN ({marks}) ORDER BY ord", chunk):
                yield as_int(i), str(rid)

    def finish(self) -> dict[str, int]:
        """Check the whole catalog (unless ``refuse_invalid`` is off: ``catalog_records``), then write units,
        postings, views' summaries, meta and identities."""
        self._classes()
        self._flush()
        problems = self.issues() if self.refuse_invalid else []
        if problems:
            raise CatalogFileInvalid(problems)
        self._units()
        self.progress("digests and summaries", 0, None, "")
        digest, readers = self._digests()
        from chainret.store.base import SCHEMA_VERSION, STORE_FORMAT
        import uuid

        marked = [v for v in self.views if v.current]
        cur = marked[0] if marked else max(self.views, key=lambda v: v.order, default=None)
        head = self.head or {"format": "chainret-catalog/1", "world": "", "description": ""}
        meta = {
            "store_format": STORE_FORMAT, "schema_version": str(SCHEMA_VERSION), "catalog_format": head["format"],
            "world": head["world"], "description": head["description"], "digest": digest,
            "current_view": cur.name if cur is not None else "", "generation": uuid.uuid4().hex,
            **{f"reader_digest:{p}": d for p, d in readers.items()},
            **{f"reader_views:{c}": json.dumps(self._reader_views(c)) for c in self.classes},
        }
        self.w.execute("DELETE FROM meta")  # (an update's store: its earlier catalog's)
        self.w.insert("meta", list(meta.items()))
        seq = as_int(self.w.rows("SELECT coalesce(max(seq), 0) FROM identities")[0][0]) + 1  # this write's: 1, 2, ...
        self.w.insert("identities", [(seq, "", digest), *((seq, p, d) for p, d in sorted(readers.items()))])
        _corpus(self.w)
        label_readers(self.w)
        if self.words is not None:
            self.words.write(self.w)
        return counts(self.w)

    def _reader_views(self, cls: str) -> list[tuple[str, str, int, bool]]:
        """What a reader of ``cls`` needs to resolve a view (``SQLStore.view_name_for``): each view of their reduced
        catalog (``reader_view_pairs``) as (the name they are shown, its name here, its order, current). Kept in
        ``meta`` so that a cold ask does not read every view's documents and every readable version to learn it."""
        docs = frozenset(d.ref for d in self.docs.values() if self._reads(d, cls))
        return [(v.name, name, v.order, v.current) for v, name in reader_view_pairs(self.views, docs)]

    def _unit_rows(self, ordinal: int, doc_ord: int, doc_ref: str, j: int, start: int, end: int, body: str) -> tuple[Row, list[Row]]:
        """A unit's ``units`` row and ``postings`` rows: its text tokenized with the IDs prose quotes name
        (``Catalog.search_texts``)."""
        from collections import Counter

        from chainret.engine.search import tokenize

        uref = unit_ref(doc_ref, j)
        extra = self.prose.get(uref)
        toks = tokenize(f"{body}\n{' '.join(extra)}" if extra else body)
        # (schema 8: the document version's row holds its ref and the text; 9: the unit's ref is that ref and ``j``)
        kept = (None, None, None) if self.derives else (uref, doc_ref, body)
        terms = Counter(toks).items()
        return ((ordinal, kept[0], doc_ord, kept[1], j, start, end, len(toks), kept[2]),
                [posting_row(posting_term(term, self.ent_ord, self._word_code if self.codes_words else None) if self.keys_terms else term,
                             ordinal, doc_ord, tf, len(toks), j, self.lean_postings)
                 for term, tf in terms])

    def _units(self) -> None:
        """The new documents' units and postings, after the units the store holds; then an update's stored units whose
        search text grew are written again (``_index_again``)."""
        units: list[Row] = []
        postings: list[Row] = []
        bases: list[tuple[int, int]] = []  # (unit_base, version ordinal)
        ordinal = as_int(self.w.rows("SELECT count(*) FROM units")[0][0])
        if self.keys_terms and ordinal:
            self._key_new_ids()
        step = 256
        for lo in range(self.stored["documents"], self.n["documents"], step):
            self.progress("indexing units", lo, self.n["documents"], "documents")
            for row in self.w.rows("SELECT ord, ref, text FROM documents WHERE ord >= ? AND ord < ? ORDER BY ord", (lo, lo + step)):
                doc_ord, doc_ref, text = as_int(row[0]), as_str(row[1]), as_str(row[2])
                if self.bases_units:  # (its units are the next ordinals, index 1 first: ``schema.UNIT_BASE``)
                    bases.append((ordinal - 1, doc_ord))
                for k, (start, end) in enumerate(unit_spans(text), 1):
                    unit, posts = self._unit_rows(ordinal, doc_ord, doc_ref, k, start, end, text[start:end])
                    units.append(unit)
                    postings.extend(posts)
                    ordinal += 1
                if len(units) >= BATCH or len(postings) >= BATCH:
                    self.w.insert("units", units)
                    self._write_words()
                    self.w.insert("postings", postings)
                    units, postings = [], []
        if units:
            self.w.insert("units", units)
        self._write_words()
        if postings:
            self.w.insert("postings", postings)
        for base, doc_ord in bases:
            self.w.execute("UPDATE document_meta SET unit_base = ? WHERE ord = ?", (base, doc_ord))
        self._index_again(sorted(self.reindex))

    def _key_new_ids(self) -> None:
        """An update's new entities whose ID stored postings hold as text (or, schema 13, as a word's code): those
        postings keyed by the entity's ordinal, as a posting written from now on is (``schema.TERM_KEY``: one term is
        kept one way)."""
        codes = self._codes() if self.codes_words else {}
        for eid, i in self.ent_ord.items():
            if i >= self.stored["entities"]:
                self.w.execute("UPDATE postings SET term = ? WHERE term = ?", (i, codes.get(eid, eid)))

    def _codes(self) -> dict[str, int]:
        """The words the store keeps codes of (``schema.WORD_CODES``), with those this write gave, read once."""
        if self.word_codes is None:
            self.word_codes = {as_str(w): as_int(c) for c, w in self.w.rows("SELECT code, word FROM term_words")}
        return self.word_codes

    def _word_code(self, word: str) -> int:
        """The code a posting keeps of ``word``, no entity's ID (``schema.WORD_CODES``): the store's, else the next one."""
        codes = self._codes()
        code = codes.get(word)
        if code is None:
            code = codes[word] = -1 - len(codes)
            self.new_words.append((code, word))
        return code

    def _write_words(self) -> None:
        """The words given codes since the last call, written before the postings that keep them."""
        if self.new_words:
            self.w.insert("term_words", self.new_words)
            self.new_words = []

    def _index_again(self, refs: list[str]) -> None:
        """An update's stored units that prose quotes name IDs in: each whose search text grew is written again (its
        ``ntok`` and postings). A new prose relation, or a stored one whose entity's labels an update added to
        (``_relabel``), can name more IDs in a stored unit; IDs are only ever added, so the token count tells."""
        for k in range(0, len(refs), 500):
            chunk = refs[k:k + 500]
            named, np = units_by_ref(chunk, lambda refs: doc_ords_of(self.w.rows, refs), based=self.bases_units)
            for o, i, ref, j, s, e, body, ntok in self.w.rows(
                    f"SELECT u.ord, u.doc_ord, {UNIT_DOC_REF}, u.idx, u.start_, u.end_, {UNIT_TEXT}, u.ntok FROM units u WHERE {named}", np):
                unit, posts = self._unit_rows(as_int(o), as_int(i), as_str(ref), as_int(j), as_int(s), as_int(e), as_str(body))
                if unit[7] == as_int(ntok):
                    continue
                self.w.execute(f"UPDATE {self.w.row_tables.get('units', 'units')} SET ntok = ? WHERE ord = ?", (unit[7], unit[0]))
                # by the postings' key (term, unit_ord): the unit's new terms hold every old one (IDs are only added)
                terms = [p[0] for p in posts]
                self.w.execute(f"DELETE FROM postings WHERE unit_ord = ? AND term IN ({', '.join('?' * len(terms))})", (unit[0], *terms))
                self._write_words()
                self.w.insert("postings", posts)

    def _digests(self) -> tuple[str, dict[str, str]]:
        """The catalog digest and each principal class's reader digest, hashed from the spill files."""
        head = self.head or {"format": "chainret-catalog/1", "world": "", "description": ""}
        # the header's format as given (a file's is checked before its records stream: ``catalog.stream``)
        empty = Catalog.model_construct(world=head["world"], description=head["description"]).model_copy(update={"format": head["format"]})
        skeleton = empty.__pydantic_serializer__.to_json(empty)
        tail = b'"entities":[],"predicates":[],"documents":[],"relations":[],"views":[],"patterns":[]}'
        assert skeleton.endswith(tail)
        prefix = skeleton[: -len(tail)]
        docs_by_ord = {d.ord: d for d in self.docs.values()}
        full = hashlib.sha256(prefix)
        # A class whose reader catalog is the whole catalog shares its digest (as reader_catalog returns ``cat``).
        filtered = [c for c in self.classes if not (all(self._reads(d, c) for d in self.docs.values())
                                                    and all(self.known[c]))]
        hashers = {c: hashlib.sha256(prefix) for c in filtered}
        readable = {c: {d.ref for d in self.docs.values() if self._reads(d, c)} for c in filtered}
        # What ``reader_catalog`` changes besides dropping records: an importer's entity labels (``as_read_by``)
        # and the views (``reader_views``: left out, renamed, recounted), each class's as the catalog in memory has them.
        doc_ids = {c: frozenset(d.doc_id for d in self.docs.values() if self._reads(d, c)) for c in filtered}
        since = {c: reader_since(self.views, frozenset(readable[c])) for c in filtered}
        views = {c: b",".join(v.__pydantic_serializer__.to_json(v) for v in reader_views(self.views, frozenset(readable[c])))
                 for c in filtered}
        for section in SECTIONS:
            key = f'"{section}":['.encode()
            full.update(key if section == "entities" else b"]," + key)
            for h in hashers.values():
                h.update(key if section == "entities" else b"]," + key)
            started = dict.fromkeys(filtered, False)
            any_full = False
            for k, raw in self._read_spill(section):
                full.update(b"," + raw if any_full else raw)
                any_full = True
                for c, h in hashers.items():
                    if section == "entities":  # known, or declared by a document the class may read (``declared_entities``)
                        keep = bool(self.known[c][k]) or (b'"declared_in"' in raw and any(
                            src.document and src.document in doc_ids[c] for src in Entity.model_validate_json(raw).declared_in))
                    elif section == "documents":
                        keep = self._reads(docs_by_ord[k], c)
                    elif section == "relations":
                        keep = k >= 0 and self._reads(docs_by_ord[k], c)
                    else:
                        keep = True
                    if not keep:
                        continue
                    if section == "views":
                        continue  # (written whole below)
                    raw_c = raw
                    if section == "entities" and b'"declared_in"' in raw:
                        e = Entity.model_validate_json(raw)
                        shown = reader_entity(e, doc_ids[c], since[c])
                        raw_c = raw if shown is e else shown.__pydantic_serializer__.to_json(shown)
                    h.update(b"," + raw_c if started[c] else raw_c)
                    started[c] = True
            if section == "views":
                for c, h in hashers.items():
                    h.update(views[c])
        full.update(b"]}")
        digest = "sha256:" + full.hexdigest()
        out: dict[str, str] = {}
        for c in self.classes:
            if c in hashers:
                hashers[c].update(b"]}")
                out[c] = "sha256:" + hashers[c].hexdigest()
            else:
                out[c] = digest
        return digest, out

    def _read_spill(self, section: str) -> Iterator[tuple[int, bytes]]:
        f = self.spill[section]
        f.flush()
        f.seek(0)
        size = _REC.size
        while True:
            head = f.read(size)
            if not head:
                return
            k, n = _REC.unpack(head)
            yield k, f.read(n)

    def close(self) -> None:
        """Remove the spill files (call in a ``finally``)."""
        import shutil

        for f in self.spill.values():
            f.close()
        shutil.rmtree(self._spill_dir, ignore_errors=True)


# A section that starts after these has missed records it depends on.
_LATER_NEEDS: dict[str, tuple[str, ...]] = {
    "entities": ("relations",),
    "predicates": ("relations",),
    "documents": ("relations", "views"),
}


def compile_records(w: Writer, records: Iterable[RecordItem], file: str = "<catalog>", *, spill_dir: str | None = None,
                    header: Callable[[dict[str, str]], None] | None = None,
                    progress: Progress = no_progress, refuse_invalid: bool = True,
                    stored: Mapping[str, int] | None = None) -> dict[str, int]:
    """Feed ``records`` (an iterable of ``(kind, value)``: ``("header", (format, world, description))``
    or a section name and its validated record) through a ``StreamCompile`` into ``w``.

    The writer API for a source that builds records one at a time (an importer): pass a generator
    and no record is held after its rows are batched. ``header`` sees the final top-level values.
    ``progress`` hears of the stages after the records (units, digests); the records' own reader
    reports how far it has read (``json_records(path, progress)``). ``refuse_invalid=False``: see ``RecordSource``.
    ``stored``: an update's (``chainret.store.compile.update_into``), the records per section the store holds already.
    """
    sc = StreamCompile(w, file, spill_dir, progress, refuse_invalid=refuse_invalid, stored=stored)
    try:
        for kind, value in records:
            sc.feed(kind, value)
        done = sc.finish()
        if header is not None and sc.head is not None:
            header(sc.head)
        return done
    finally:
        sc.close()


def catalog_records(cat: Catalog) -> Iterator[RecordItem]:
    """A ``Catalog``'s records in the order ``compile_records`` takes (a source that builds records
    one at a time yields the same pairs without holding them all)."""
    yield "header", (cat.format, cat.world, cat.description)
    sections: tuple[tuple[str, Sequence[Record]], ...] = (
        ("entities", cat.entities), ("predicates", cat.predicates), ("documents", cat.documents),
        ("relations", cat.relations), ("views", cat.views), ("patterns", cat.patterns),
    )
    for section, records in sections:
        for record in records:
            yield section, record


class RecordSource:
    """Records to compile, for ``compile_store(source, out)`` in place of a ``Catalog``: the store's
    ``compile_into`` hands its ``Writer`` to ``compile_into`` here (SQLite and PostgreSQL alike).

    ``records`` is called once per compile and returns the ``(kind, value)`` pairs of ``compile_records``.
    ``refuse_invalid=False`` (``compile_store`` of a ``Catalog`` object) compiles records whose cross-record
    rules (dangling references, wrong world, duplicates) were not checked as they are: such an object
    was checked where it was made (``load_world`` checks), or was built in code on purpose (a benchmark's
    generated world, a test's edited copy), and a compile of it wrote its rows unchecked before the
    record-by-record compiler became the only one. A file's records are always checked.
    """

    def __init__(self, records: Callable[[], Iterable[RecordItem]], name: str = "<catalog>",
                 annotate: Callable[[list[Issue]], list[Issue]] | None = None, progress: Progress = no_progress,
                 *, refuse_invalid: bool = True) -> None:
        self.records, self.name, self.world, self.annotate, self.progress = records, name, "", annotate, progress
        self.refuse_invalid = refuse_invalid

    def compile_into(self, w: Writer) -> dict[str, int]:
        def seen(head: dict[str, str]) -> None:
            self.world = str(head["world"])

        try:
            return compile_records(w, self.records(), self.name, header=seen, progress=self.progress,
                                   refuse_invalid=self.refuse_invalid)
        except CatalogFileInvalid as exc:
            if self.annotate is None:
                raise
            raise CatalogFileInvalid(self.annotate(exc.issues)) from None


def catalog_file(spec: str | os.PathLike[str], progress: Progress = no_progress) -> RecordSource | None:
    """A streaming source for a catalog file (YAML or JSON; or a world directory's catalog file when it
    has no cases file); None for anything else (cases files, sources: loaded whole)."""
    from pathlib import Path

    from chainret.catalog.load import SUFFIXES, with_lines
    from chainret.catalog.stream import json_records, yaml_records

    p = Path(spec)
    if p.is_dir():
        if any((p / f"cases{x}").is_file() for x in SUFFIXES):
            return None
        found = next((p / f"catalog{x}" for x in SUFFIXES if (p / f"catalog{x}").is_file()), None)  # load's order
        if found is None:
            return None
        p = found
    if p.suffix not in SUFFIXES or not p.is_file():
        return None
    read = json_records if p.suffix == ".json" else yaml_records
    return RecordSource(lambda: read(p, progress), str(p), lambda issues: with_lines(issues, p), progress)


def compile_file(spec: str | os.PathLike[str], out: str | os.PathLike[str], *, replace: bool = False,
                 progress: Progress = no_progress) -> tuple[str, dict[str, int], bool]:
    """Compile the catalog at ``spec`` into ``out``: streamed when it is a JSON catalog whose records
    come in dependency order, else loaded whole (the file-size bound lifted: a compile reads a
    catalog its owner gave it, not hostile input). Returns (world, row counts, streamed).
    ``progress``: how far the streamed read has got, then each later stage (``chainret.core.progress``)."""
    from chainret.catalog import load, parse
    from chainret.catalog.stream import NotStreamable
    from chainret.store import compile_store

    src = catalog_file(spec, progress)
    if src is not None:
        try:
            done = compile_store(src, out, replace=replace)
            return src.world, done, True
        except (OutOfOrder, NotStreamable):
            pass
    bound = parse.MAX_FILE_BYTES
    if src is not None:
        parse.MAX_FILE_BYTES = 1 << 62  # read_bytes reads the module's bound
    progress("loading the catalog", 0, None, "")
    try:
        cat = load.load_world(spec).catalog
    finally:
        parse.MAX_FILE_BYTES = bound
    progress("compiling", 0, None, "")
    return cat.world, compile_store(cat, out, replace=replace), False
