"""The SQL store's tables and the rows a catalog compiles to (shared by SQLite and PostgreSQL).

Plain tables and ordinary B-tree indexes; no graph extension, no recursive query. Ordinals (``ord``)
keep the catalog's list order, which the engine's tie-breaking depends on (units are ranked by
catalog document order on equal scores, relations are ordered by id in Python, never by a
database collation).

Tables (``*`` = row-level security in PostgreSQL, keyed on the request's view and principal):

* ``meta`` (key, value): store format, schema version, world, catalog digest, current view;
* ``entities``, ``predicates``, ``patterns``: catalog-wide, as in the catalog file, except that an
  importer's entity (``Entity.declared_in``) keeps only the labels everyone may know (its ID, its
  header's labels: ``Entity.as_read_by`` of no document);
* ``names``\\* (normalised ID / name / alias -> entity, with ``doc_id``: the document that declares the
  label, ``''`` for everyone's), ``name_sources``\\* (an entity's ``declared_in``: each document's labels)
  and ``label_readers`` (doc_id -> who may read some version of it): a label is shown and resolved
  for a reader only when they may read a document that declares it (``chainret.catalog.readable``;
  schema 6, ``entity_rows`` is the one home of the rule); a SQLite label row of schema 9 leaves its type NULL (its
  entity's, which the lookups read from ``entities``) and is keyed for every lookup at once (``SQLITE_PRIMARY``); 11
  keeps neither type nor normalised label, and its digits as a number (``SQLITE_NAMES``, ``digits_key``);
* ``documents``\\*: document versions with their text (readable when the document is in the view and
  the principal may read it);
* ``readers``: who may read each document version (``*`` = anyone; none for a removed version);
  ``document_meta``: each version's ref and visibility without its text (which versions a reader
  may read, for projection and replay);
* ``views``, ``view_docs`` (view name -> document ordinals, with the document id for the
  ``superseded`` check and its visibility);
* ``units``\\*: every unit (paragraph) with its text and token count (a SQLite store of schema 8 keeps neither its
  text nor its document version's ref, both in that version's ``documents`` row: ``UNIT_COLS``; 9 nor its own ref,
  that version's ref and its index: ``unit_ref_column``, ``units_by_ref``); ``postings``\\*: term -> unit with
  the term frequency, and the unit's token count and index in its document version (what BM25Plus and a hop need,
  per unit, read from the posting itself: schema 5; a hop of an older store joins each posting to ``units``; the
  unit's ref is its document version's and that index, ``unit_ref``: schema 8 keeps the index, a small integer,
  where 5 to 7 kept the ref, some 20 bytes a posting; a SQLite store of schema 11 keeps an ID's postings by the
  entity's ordinal: ``TERM_KEY``; 12 keeps none of the unit's columns, read from its row: ``LEAN_POSTINGS``, and finds a
  unit by its version's ``unit_base`` in ``document_meta``, without ``units_doc``: ``UNIT_BASE``); ``corpus``: per view and principal class
  (a principal named by some restricted document, or ``*`` for everyone else), the number of
  readable units and their total token count, so a hop needs no scan of the view;
* ``identities`` (seq, principal, digest): the catalog identity each principal class was shown after
  every compile and update (seq 1, 2, ...; principal ``""`` = the unprojected audit identity), so
  ``trace verify`` can tell an identity the catalog once had from one it never had, and a server can
  give each viewer a revision that changes only when that viewer's answers can change;
* ``relations``\\* (visible when the supporting document is in the view, any visibility: the audit
  of withheld relations needs them) and ``relation_quotes``\\* (the clause text, readable like units).
  A SQLite store of schema 8 (``Writer.derives_evidence``; issue 47: a store's size) writes neither what a relation's
  document version holds already: a relation whose support names its version exactly as the ``documents`` row does
  (source, document, version, representation, digest) keeps those five columns NULL (``relations.source`` is never
  NULL otherwise: ``Support.source`` is required), and a quote that is the text of its span gets no
  ``relation_quotes`` row. The readers put both back from those rows (``support_column``, ``quote_column``), so every relation reads back as the catalog has it; a relation whose support differs in any field
  (a stale digest, another representation, a quote that is not its span's text) keeps its own
  (``support_column``, ``quote_column``).
  PostgreSQL keeps them all: its row-level security hides a withheld document's row, whose relation the audit
  still shows. A SQLite store of schema 10 keeps its relations in ``relation_rows`` by ordinals, read through the
  view ``relations`` (``RELATION_ROWS``); 12 keeps a relation's support as one column (``SUPPORT_PACKED``); 13 keeps an
  entity's type and a posting's word by code (``ENTITY_ROWS``, ``WORD_CODES``) and a unit without its NULL columns
  (``UNIT_ROWS``), reading ``entities`` and ``units`` through views.

The rows are made by one writer, the compiler (``chainret.store.stream.StreamCompile``), for a new store
and an update alike; they stay there, not here, because most need what only the compiler holds (a
relation's unit and defects over its compact indexes, a unit's prose mentions), so moving them here would
add code, not remove it. Here are the few that need no such state: ``entity_rows`` (which labels a store
shows to whom, mirrored by ``chainret.store.sql``'s label queries), ``predicate_row`` and ``corpus_rows``.

A SQLite compile (and update) also derives, after the load, what a hop from a hub reads instead of every row that
names it: ``pair_counts`` (a hub pair's census counts: ``chainret.store.paircensus``) and ``hub_ranked``,
``hub_classes``, ``hub_counts`` (a hub ID's postings in rank-ready lists: ``chainret.store.hubindex``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Protocol, SupportsInt

from chainret.catalog.models import Entity, Predicate, normalize_name
from chainret.catalog.names import digits_of, name_key

#: What one column of a row holds, written or read (both schemas' columns are INTEGER/BIGINT or TEXT;
#: PostgreSQL's ``sum()`` of a BIGINT column is a ``Decimal``).
SQLValue = str | int | float | bytes | Decimal | None
#: One row, as a writer takes it and a query returns it.
Row = tuple[SQLValue, ...]


def as_int(value: object) -> int:
    """An integer column or aggregate (an ordinal, ``count(*)``, ``sum(ntok)``) as an ``int``."""
    if type(value) is int:  # (the usual case, without ``SupportsInt``'s slow protocol check)
        return value
    if isinstance(value, (str, SupportsInt)):
        return int(value)
    raise TypeError(f"expected a number from the store, found {value!r}")


def as_str(value: object) -> str:
    """A TEXT column as a ``str`` (not NULL)."""
    if isinstance(value, str):
        return value
    raise TypeError(f"expected text from the store, found {value!r}")


def text_pairs(rows: Iterable[tuple[object, ...]]) -> dict[str, str]:
    """Rows of two TEXT columns (``SELECT key, value FROM meta``) as a dict."""
    return {as_str(key): as_str(value) for key, value in rows}


class Writer(Protocol):
    """One write transaction on a store (SQLite ``executemany``, PostgreSQL ``COPY``); SQL uses ``?`` placeholders."""

    def execute(self, sql: str, params: Sequence[SQLValue] = ()) -> None: ...

    def insert(self, table: str, rows: Iterable[Sequence[SQLValue]]) -> None: ...

    def rows(self, sql: str, params: Sequence[SQLValue] = ()) -> Sequence[tuple[object, ...]]: ...  # values narrowed by as_int/as_str

    #: Whether a relation's row leaves out what its document version's rows hold (the module docstring: schema 8).
    derives_evidence: bool
    #: Whether the store keeps the words of its names (``chainret.store.namewords``: SQLite's only).
    keeps_name_words: bool
    #: Whether its relations are ``relation_rows``, read through a view (``RELATION_ROWS``: SQLite's, schema 10).
    packs_relations: bool
    #: Whether its label rows keep the fold without the normalised label (``SQLITE_NAMES``: SQLite's, schema 11).
    packs_names: bool
    #: Whether a posting keeps an entity's ID as the entity's ordinal (``TERM_KEY``: SQLite's, schema 11).
    keys_terms: bool
    #: Whether a posting keeps only its term, unit and term frequency (``LEAN_POSTINGS``: SQLite's, schema 12).
    lean_postings: bool
    #: Whether a version's units are found by its ``unit_base``, with no ``units_doc`` (``UNIT_BASE``: SQLite's, schema 12).
    bases_units: bool
    #: Whether a posting keeps a word that is no ID as the word's code (``WORD_CODES``: SQLite's, schema 13).
    codes_words: bool
    #: The tables it reads through a view, each with the table that holds its rows (``ROW_TABLES``: SQLite's, schema 13).
    row_tables: dict[str, str]


TABLES: dict[str, list[str]] = {
    "meta": ["key", "value"],
    "entities": ["ord", "id", "type", "name", "aliases", "description"],
    "names": ["key", "type", "entity_ord", "fold", "digits", "flen", "doc_id"],  # doc_id: schema 6
    "name_sources": ["entity_ord", "seq", "doc_id", "name", "aliases", "description", "since"],  # schema 6
    "label_readers": ["doc_id", "principal"],  # schema 6
    "predicates": ["ord", "name", "domain", "range_", "cardinality", "description", "words"],
    "patterns": ["ord", "name", "body"],
    "documents": ["ord", "ref", "source", "document", "version", "representation", "title", "digest",
                  "visibility", "principals", "text"],
    "readers": ["doc_ord", "principal"],
    "document_meta": ["ord", "ref", "visibility"],
    "views": ["ord", "name", "order_", "current", "documents", "description"],
    "view_docs": ["view_name", "doc_ord", "doc_id", "visibility"],
    "units": ["ord", "ref", "doc_ord", "doc_ref", "idx", "start_", "end_", "ntok", "text"],
    "postings": ["term", "unit_ord", "doc_ord", "tf", "ntok", "idx"],  # ntok: the unit's (schema 5); idx: its index (8; 5 to 7: its ref)
    "corpus": ["view_name", "principal", "size", "total_len"],
    "relations": ["ord", "id", "subject", "predicate", "object", "source", "document", "version",
                  "representation", "digest", "span_start", "span_end", "note", "doc_ord", "unit_ref", "defects", "kind"],
    "relation_quotes": ["rel_ord", "doc_ord", "quote"],
    "identities": ["seq", "principal", "digest"],
}
#: A SQLite store's tables in place of ``TABLES``' of the same role: its relations (schema 10), read through the view
#: ``relations`` (``RELATION_ROWS``).
SQLITE_TABLES: dict[str, list[str]] = {
    "names": ["digits", "flen", "fold", "entity_ord", "doc_id"],  # schema 11: no key, no type, ``digits_key`` (``SQLITE_NAMES``)
    "postings": ["term", "unit_ord", "tf"],  # schema 12: the unit's columns are its row's (``LEAN_POSTINGS``)
    "document_meta": ["ord", "ref", "visibility", "unit_base"],  # schema 12: no ``units_doc`` (``UNIT_BASE``)
    "relation_rows": ["ord", "id", "s", "p", "o", "support", "span_start",  # support: schema 12 (``SUPPORT_PACKED``)
                      "span_end", "note", "doc_ord", "unit_idx", "defects", "kind"],
    "entity_rows": ["ord", "id", "type_code", "name", "aliases", "description"],  # schema 13 (``ENTITY_ROWS``)
    "entity_types": ["code", "name"],  # schema 13 (``ENTITY_ROWS``)
    "unit_rows": ["ord", "doc_ord", "idx", "start_", "end_", "ntok"],  # schema 13 (``UNIT_ROWS``)
    "term_words": ["code", "word"],  # schema 13 (``WORD_CODES``)
}

INT_COLUMNS = {"ord", "entity_ord", "doc_ord", "order_", "current", "idx", "start_", "end_", "ntok",
               "unit_ord", "tf", "size", "total_len", "span_start", "span_end", "rel_ord", "seq", "flen", "since",
               "s", "p", "o", "unit_idx", "type_code", "code", "unit_base"}

PRIMARY = {
    "meta": "key", "entities": "ord", "names": "key, entity_ord, doc_id", "name_sources": "entity_ord, seq",
    "label_readers": "doc_id, principal", "predicates": "ord", "patterns": "ord", "documents": "ord",
    "readers": "doc_ord, principal", "document_meta": "ord", "views": "ord", "view_docs": "view_name, doc_ord", "units": "ord",
    "postings": "term, unit_ord", "corpus": "view_name, principal", "relations": "ord", "relation_quotes": "rel_ord",
    "identities": "seq, principal", "relation_rows": "ord",  # (relation_rows ... term_words: ``SQLITE_TABLES``)
    "entity_rows": "ord", "entity_types": "code", "unit_rows": "ord", "term_words": "code",
}

INDEXES = [
    ("entities_id", "entities", "id"),
    ("names_key", "names", "key, type"),
    ("names_fold", "names", "type, fold"),
    ("names_near", "names", "type, digits, flen"),
    ("documents_ref", "documents", "ref"),
    ("views_name", "views", "name"),
    ("view_docs_doc_id", "view_docs", "view_name, doc_id"),
    ("units_ref", "units", "ref"),
    ("units_doc", "units", "doc_ord, idx"),  # (doc_ord, schema 3 to 8; a SQLite store of 12 has none: ``UNIT_BASE``)
    ("postings_doc", "postings", "doc_ord"),
    ("relations_id", "relations", "id"),
    ("relations_sp", "relations", "subject, predicate"),
    ("relations_object", "relations", "object"),
    ("document_meta_ref", "document_meta", "ref"),
    ("relations_unit", "relations", "unit_ref"),
    ("relations_doc", "relations", "doc_ord"),
    ("relation_quotes_doc", "relation_quotes", "doc_ord"),
]
UNIQUE = {"entities_id", "documents_ref", "views_name", "units_ref", "relations_id"}
#: Indexes of ``INDEXES`` a SQLite store does without (issue 47: a store's size). In a ``WITHOUT ROWID`` table the
#: primary key is the table's own B-tree, so ``names_key`` (key, type) and ``names_fold`` (type, fold) repeated what
#: names' key (``SQLITE_PRIMARY``) already orders by, and ``names_near`` (type, digits, flen) copied that key beside each
#: row (schema 9: the key orders by digits and length first); ``units_ref`` indexes a ref a unit row of schema 9 does not
#: keep (a unit is found by its version and index: ``units_doc``, ``units_by_ref``); ``relations_sp``
#: is the prefix of ``relations_spo`` (``chainret.store.paircensus``: a SQLite store's); no read looks up postings,
#: relations or quotes by their document alone (a hop's permission test reads a row's ``doc_ord``, it does not search
#: by it; an update deletes a unit's postings by their key: ``StreamCompile._index_again``). PostgreSQL keeps them
#: (its row-level security and planner are another matter, measured by its own pages).
SQLITE_WITHOUT = frozenset({"names_key", "names_fold", "names_near", "units_ref", "relations_sp", "postings_doc", "relations_doc",
                            "relation_quotes_doc", "units_doc"})  # (units_doc: schema 12, ``UNIT_BASE``)
#: Primary keys a SQLite store orders differently: ``names`` (a ``WITHOUT ROWID`` table: its primary key is the one
#: B-tree that holds its rows) by the fold's digits and length, then the fold (schema 9). Every lookup of a label
#: names a prefix of that key: the digits and length are the fold's own (``name_rows``), so a lookup by the fold or the
#: normalised label asks for all three (``SQLStore.label_key``, ``chainret.store.sql.SQLNames``), and a near-miss
#: lookup (``NameLookup.near``: these digits, a length band) reads one range of it, then keeps the rows of its type.
#: Schema 7 and 8 keyed ``names`` by its fold first and kept ``names_near`` (type, digits, flen), which copied every
#: row's key (fold, key, entity, document) beside it: 161 of a 1M-relation store's 1,214 MB (issue 47: a store's size).
SQLITE_PRIMARY = {"names": "digits, flen, fold, entity_ord, doc_id"}

#: A SQLite store of schema 11 (issue 47: a store's size) keeps a label row as its fold's digits and length, the fold,
#: the entity and the declaring document (``SQLITE_TABLES["names"]``, ``packed_name_rows``): not the normalised label
#: (``key``), some 14 of a row's 42 bytes (3M rows at 1M relations). A lookup of a label reads the rows of its fold (the
#: key's prefix, as before), and keeps those whose entity's labels as that document declares them (the ``entities``
#: row for everyone's, its ``name_sources`` rows for a document's: what ``entity_rows`` wrote them from) hold it
#: (``declares``, ``SQLStore.named_rows``): labels of one normalised form share one fold, so no row the key matched
#: is missed, and the rare row whose fold matches by another label is dropped. A scan for a word of a label reads the
#: folds (``fold LIKE``: a fold holds the fold of every word of its label), then keeps the entities that have the word,
#: as it did. Schema 10 kept the key in the table's key, after the fold.
SQLITE_NAMES = "names"

#: A SQLite store of schema 11 (issue 47: a store's size) keeps a posting's term as the ordinal of the entity whose ID it is
#: (an ``INTEGER``; the column has no type, so neither value is converted to the other), else as its text: most postings'
#: terms are IDs (some 16 bytes each, 4M postings at 1M relations), an ordinal is 3 (``posting_term``). A statement names
#: a term by ``TERM_KEY`` where it named ``?``, with the same parameter (the term's text): the entity's ordinal where
#: some entity's ID is the term, else the text, computed once per statement; ``term_text`` reads a kept term back as
#: text. An update that adds an entity whose ID stored units hold as text keys those postings again
#: (``StreamCompile._key_new_ids``), so one term is never kept both ways.
TERM_KEY = "(SELECT coalesce(e.ord, x.t) FROM (SELECT ? AS t) x LEFT JOIN entities e ON e.id = x.t)"
#: The columns a SQLite store declares with no type, each an integer or text: a posting's term (``TERM_KEY``), a label
#: row's digits (``digits_key``).
SQLITE_UNTYPED = frozenset({("postings", "term"), ("names", "digits")})


#: A SQLite store of schema 12 (issue 47: a store's size) keeps a posting as its term, its unit's ordinal and the term's
#: frequency there (``SQLITE_TABLES["postings"]``, ``posting_row``): not the unit's document version, index and token
#: count, which schemas 5 to 11 copied from the unit's row into each of its postings so that a hop read one range of
#: one index (some 7 bytes a posting, 28 MB of 4M postings at 1M relations). A statement that reads them joins the
#: unit's row by its ordinal (``posting_doc``; ``chainret.store.hopquery``'s ``lean`` statement), one rowid lookup a posting.
LEAN_POSTINGS = "postings"


def posting_doc(lean: bool) -> str:
    """The document version ordinal of a posting ``p`` whose unit ``u`` a statement joins: the unit's own in a store whose
    postings are lean (``LEAN_POSTINGS``), else the posting's copy (what the statement tests before the join)."""
    return "u.doc_ord" if lean else "p.doc_ord"


def posting_row(term: str | int, unit_ord: int, doc_ord: int, tf: int, ntok: int, idx: int, lean: bool) -> Row:
    """A ``postings`` row: a lean store's (``LEAN_POSTINGS``) without its unit's columns, else with them."""
    return (term, unit_ord, tf) if lean else (term, unit_ord, doc_ord, tf, ntok, idx)


#: A SQLite store of schema 13 (issue 47: a store's size) keeps a posting's term that is no entity's ID as the code of the
#: word in ``term_words`` (a negative integer: -1, -2, ... in the order the compile first met them, so no code is an
#: entity's ordinal), where 11 and 12 kept its text: a unit's common words are in nearly every unit (this world's three
#: words are half its 4M postings, 12 MB of text at 1M relations), a code is a byte or two. ``WORD_KEY`` names a term
#: as ``TERM_KEY`` does, the word's code where the term is no ID (an unknown word: its text, which no posting holds).
#: An update keeps every stored word's code, gives a new word the next one, and keys a word's postings again by the
#: entity's ordinal when an entity of that ID arrives (``StreamCompile._key_new_ids``), as 11 did for the text.
WORD_CODES = "term_words"
WORD_KEY = ("(SELECT coalesce(e.ord, (SELECT w.code FROM term_words w WHERE w.word = x.t), x.t) FROM (SELECT ? AS t) x "
            "LEFT JOIN entities e ON e.id = x.t)")  # (``coalesce`` looks a word up only where the term is no ID)


def term_key(keyed: bool, coded: bool = False) -> str:
    """What a statement names a posting's term by, given as text in one parameter: ``TERM_KEY`` in a store whose
    postings key IDs by ordinal (``keyed``), ``WORD_KEY`` where they key other words by code too (``coded``), else the
    parameter itself."""
    return (WORD_KEY if coded else TERM_KEY) if keyed else "?"


def term_text(col: str, keyed: bool, coded: bool = False) -> str:
    """A posting's term ``col`` as text: the ID of the entity whose ordinal a ``keyed`` store keeps (``TERM_KEY``), the
    word whose code a ``coded`` one keeps (``WORD_CODES``)."""
    if not keyed:
        return col
    entity = f"(SELECT e.id FROM entities e WHERE e.ord = {col})"
    if coded:
        entity = f"CASE WHEN {col} >= 0 THEN {entity} ELSE (SELECT w.word FROM term_words w WHERE w.code = {col}) END"
    return f"CASE WHEN typeof({col}) = 'integer' THEN {entity} ELSE {col} END"


def posting_term(term: str, entity_ord: Mapping[str, int], word_code: Callable[[str], int] | None = None) -> str | int:
    """The term a store of schema 11 keeps in a posting (``TERM_KEY``): the ordinal of the entity whose ID it is, else the
    term's text, or (schema 13: ``WORD_CODES``) its word's code by ``word_code``."""
    ordinal = entity_ord.get(term)
    if ordinal is not None:
        return ordinal
    return term if word_code is None else word_code(term)

#: A SQLite store of schema 10 (issue 47: a store's size) keeps its relations in ``relation_rows``: subject, predicate and
#: object as their ``entities`` and ``predicates`` ordinals (``s``, ``p``, ``o``), the unit as its index in the relation's
#: document version (``unit_idx``: a relation's unit is always in its own version, ``StreamCompile._unit``), and the
#: kind NULL where it is ``clause`` (nearly every row). ``RELATIONS_VIEW`` reads them back as ``relations`` with the
#: columns of ``TABLES["relations"]``, so every statement that reads relations reads them as from a PostgreSQL store or
#: an older SQLite one (SQLite flattens the view into each statement: a lookup by subject and predicate finds their
#: ordinals by ``entities_id`` and the predicate's row, then reads ``relations_spo`` by them). What no view can do is
#: search by a unit's ref, which it makes from the version's ref (``relation_in_units``, ``has_unit``), nor take an index hint
#: (``chainret.store.paircensus``): those few statements name ``relation_rows``. At 1M relations the table and its five
#: indexes took 272.8 of the store's 988 MB (schema 9), 122.6 now (docs/scaling.md). Reading a relation costs a few
#: lookups more (its entities' IDs, its predicate's name, its unit's ref): some 7 us a hop statement at 100k relations.
RELATION_ROWS = "relation_rows"


def relation_unit_ref(r: str = "r") -> str:
    """The unit ref of a ``relation_rows`` row ``r``: its version's ref and its unit index (NULL where it has no unit)."""
    return f"(SELECT m.ref FROM document_meta m WHERE m.ord = {r}.doc_ord) || '#u' || {r}.unit_idx"


#: A SQLite store of schema 12 (issue 47: a store's size) keeps a relation's five support columns as one, ``support``: NULL
#: where the relation's document version's row holds them (nearly every row: ``Writer.derives_evidence``, schema 8), else
#: the JSON array of the five (``relation_row``), which the view ``relations`` reads back column by column (``json_extract``
#: gives the text back, and NULL for NULL). Each NULL column took a byte of every row's header: 4 MB at 1M relations.
SUPPORT_PACKED = "support"

RELATIONS_VIEW = (
    "CREATE VIEW relations AS SELECT r.ord AS ord, r.id AS id, es.id AS subject, pr.name AS predicate, eo.id AS object, "
    + ", ".join(f"json_extract(r.support, '$[{k}]') AS {c}" for k, c in enumerate(("source", "document", "version", "representation", "digest")))
    + ", "
    "r.span_start AS span_start, r.span_end AS span_end, r.note AS note, r.doc_ord AS doc_ord, "
    f"{relation_unit_ref()} AS unit_ref, r.defects AS defects, "
    "coalesce(r.kind, 'clause') AS kind, r.unit_idx AS unit_idx "
    "FROM relation_rows r JOIN entities es ON es.ord = r.s JOIN predicates pr ON pr.ord = r.p JOIN entities eo ON eo.ord = r.o"
)
#: A SQLite store of schema 13 (issue 47: a store's size) keeps an entity's type as the code of its name in
#: ``entity_types`` (``entity_rows.type_code``: 0, 1, ... in the order the compile first met them; a world has a few types,
#: and SQLite writes 0 and 1 in no byte and others in one, where the name took some 6 bytes of each of 1.25M rows at 1M
#: relations), read back through the view ``entities`` with the columns of ``TABLES["entities"]``, so no statement that
#: reads entities changes (the view is one table's, which SQLite flattens into each statement, a ``LEFT JOIN``'s too; a
#: type is one lookup in a table of a few rows, where a statement reads it). It keeps a unit in ``unit_rows`` without
#: the three columns a unit row of schema 8 and 9 left NULL (its ref, its version's ref, its text: a byte each of every
#: row's header), read through the view ``units``, which gives them as NULL. Writes name the tables (``ROW_TABLES``).
ENTITY_ROWS = "entity_rows"
UNIT_ROWS = "unit_rows"
ENTITIES_VIEW = (
    "CREATE VIEW entities AS SELECT r.ord AS ord, r.id AS id, (SELECT t.name FROM entity_types t WHERE t.code = r.type_code) "
    "AS type, r.name AS name, r.aliases AS aliases, r.description AS description FROM entity_rows r"
)
UNITS_VIEW = (
    "CREATE VIEW units AS SELECT u.ord AS ord, NULL AS ref, u.doc_ord AS doc_ord, NULL AS doc_ref, u.idx AS idx, "
    "u.start_ AS start_, u.end_ AS end_, u.ntok AS ntok, NULL AS text FROM unit_rows u"
)
#: The table that holds the rows of each table a SQLite store reads through a view (``RELATION_ROWS``, ``ENTITY_ROWS``,
#: ``UNIT_ROWS``): what its compile writes and indexes.
ROW_TABLES = {"relations": RELATION_ROWS, "entities": ENTITY_ROWS, "units": UNIT_ROWS}
#: The small SQLite tables of schema 13 keyed by their codes, with the index that finds a code by its name.
CODE_INDEXES = ("CREATE UNIQUE INDEX entity_types_name ON entity_types (name)", "CREATE UNIQUE INDEX term_words_word ON term_words (word)")


def entity_row_coded(row: Sequence[SQLValue], type_code: Callable[[str], int]) -> Row:
    """An ``entities`` row (``TABLES["entities"]``' columns) as ``entity_rows`` keeps it (``ENTITY_ROWS``): its type by
    ``type_code``."""
    i, eid, type_, name, aliases, description = row
    return (i, eid, type_code(str(type_)), name, aliases, description)


def unit_row_lean(row: Sequence[SQLValue]) -> Row:
    """A ``units`` row (``TABLES["units"]``' columns) as ``unit_rows`` keeps it (``UNIT_ROWS``): without its ref, its
    version's ref and its text, which a row of schema 9 leaves NULL (anything else there would be lost: refused)."""
    i, ref, doc_ord, doc_ref, idx, start, end, ntok, text = row
    if ref is not None or doc_ref is not None or text is not None:
        raise ValueError(f"unit {i!r}: a SQLite store of schema 13 keeps no unit ref or text ({ref!r}, {doc_ref!r})")
    return (i, doc_ord, idx, start, end, ntok)


#: The indexes of ``INDEXES`` a SQLite store of schema 10 builds on ``relation_rows``, by their columns there.
SQLITE_RELATION_INDEXES = {"relations_id": "id", "relations_object": "o", "relations_unit": "doc_ord, unit_idx"}


def relation_row(rel: Sequence[SQLValue], entity_ord: Mapping[str, int], predicate_ord: Mapping[str, int],
                 unit_idx: int | None) -> Row:
    """A ``relations`` row (``TABLES["relations"]``'s columns) as ``relation_rows`` keeps it (``RELATION_ROWS``): its
    subject, predicate and object by ordinal (None where the catalog names none: a compile that finds one refuses
    the catalog, ``StreamCompile.issues``), its unit by ``unit_idx``, a ``clause`` kind as NULL, its support as one column
    (``SUPPORT_PACKED``: NULL where its document version's row holds it, ``source`` being NULL then only)."""
    (i, rid, subject, predicate, obj, src, doc, ver, rep, dig, start, end, note, doc_ord, _unit, defects, kind) = rel
    support = None if src is None else json.dumps([src, doc, ver, rep, dig])
    return (i, rid, entity_ord.get(str(subject)), predicate_ord.get(str(predicate)), entity_ord.get(str(obj)), support,
            start, end, note, doc_ord, unit_idx, defects, None if kind == "clause" else kind)


def relation_in_units(refs: Sequence[str], packed: bool, doc_ords: Callable[[Sequence[str]], Mapping[str, int]],
                      r: str = "r") -> tuple[str, list[SQLValue]]:
    """The condition that relation ``r`` is supported in one of the units ``refs``, and its parameters. Where the store's
    relations are ``packed`` (``RELATION_ROWS``) a unit ref is made by the view, which no index holds, so the condition
    names the relation's version and unit index instead (``units_by_ref``'s keys, read by ``relations_unit``)."""
    if not packed:
        return (f"{r}.unit_ref IN ({', '.join('?' * len(refs))})" if refs else "1 = 0"), list(refs)
    return (f"({' OR '.join([f'({r}.doc_ord = ? AND {r}.unit_idx = ?)'] * len(refs))})" if refs else "1 = 0"), unit_keys(refs, doc_ords)


def has_unit(packed: bool, r: str = "r") -> str:
    """The condition that relation ``r`` is supported in some unit (``packed``: by ``relation_rows``' own column, not the
    view's ref, which a subquery makes)."""
    return f"{r}.unit_idx IS NOT NULL" if packed else f"{r}.unit_ref IS NOT NULL AND {r}.unit_ref <> ''"


#: A relation's support columns that a row of schema 8 leaves NULL where its document version's row holds the same.
SUPPORT_COLUMNS = ("source", "document", "version", "representation", "digest")


def _of_document(expr: str, joined: bool) -> str:
    """``expr`` over a relation ``r``'s document version ``d``: that row joined to the statement (``joined``: one
    lookup for every column, where a statement reads them all: ``chainret.store.hopquery``), or read where needed."""
    return expr if joined else f"(SELECT {expr} FROM documents d WHERE d.ord = r.doc_ord)"


def support_column(expr: str, *, joined: bool = False) -> str:
    """A relation ``r``'s support column(s) ``expr`` (``{t}.`` stands for its row, ``r``, or its document version's,
    ``d``) as the catalog has it: a row of schema 8 that names its version exactly as the ``documents`` row does holds
    NULL in ``SUPPORT_COLUMNS`` (``r.source`` is NULL only then) and reads the version's. The version's row is read
    only for such a row: SQLite and PostgreSQL evaluate a ``CASE`` branch only when it is taken (PostgreSQL's rows
    hold their support whole, so its row-level security on ``documents`` is never asked)."""
    return f"CASE WHEN r.source IS NULL THEN {_of_document(expr.format(t='d'), joined)} ELSE {expr.format(t='r')} END"


def quote_column(*, joined: bool = False) -> str:
    """A relation ``r``'s quote, where the store may show it: its ``relation_quotes`` row, or where a row of schema 8
    has none (the quote is the text of its span), that text read from its document version's (``coalesce`` reads its
    second value only where the first is NULL, in SQLite and PostgreSQL alike). Both rows are of the relation's
    document version, so a permission rule (``READABLE``, PostgreSQL's row-level security) says the same of either.
    (PostgreSQL's ``substr`` takes ``integer`` positions.)"""
    span = "substr(d.text, CAST(r.span_start + 1 AS INTEGER), CAST(r.span_end - r.span_start AS INTEGER))"
    return f"coalesce((SELECT q.quote FROM relation_quotes q WHERE q.rel_ord = r.ord), {_of_document(span, joined)})"


QUOTE = quote_column()


#: A unit ``u``'s columns as ``chainret.store.rowdecode.UnitRow`` reads them: a SQLite unit row of schema 8 leaves its
#: document version's ref and its own text (that version's text from ``start_`` to ``end_``) NULL, read from the
#: version's row (``coalesce`` reads its second value only where the first is NULL, in SQLite and PostgreSQL alike).
UNIT_DOC_REF = "coalesce(u.doc_ref, (SELECT d.ref FROM documents d WHERE d.ord = u.doc_ord))"


def unit_text(u: str = "u", joined: str | None = None) -> str:
    """The text of the unit named ``u`` in a statement (``UNIT_COLS``). ``joined``: the name of the unit's document
    version's ``documents`` row where the statement joins it (once a statement), not a sub-query (one a row: some
    7 us a row in a trace's proofs at 1M relations, ``chainret.store.log.StoreLog._anchors_sql``)."""
    part = f"substr({joined or 'd'}.text, CAST({u}.start_ + 1 AS INTEGER), CAST({u}.end_ - {u}.start_ AS INTEGER))"
    if joined is not None:
        return f"coalesce({u}.text, {part})"
    return f"coalesce({u}.text, (SELECT {part} FROM documents d WHERE d.ord = {u}.doc_ord))"


UNIT_TEXT = unit_text()


def unit_ref_column(u: str = "u") -> str:
    """The ref of the unit named ``u`` in a statement: a SQLite unit row of schema 9 leaves it NULL, since a unit's ref is
    its document version's ref and its index (``chainret.catalog.clause.unit_ref``), read from the version's
    ``document_meta`` row (a table every login reads whole). (PostgreSQL's ``||`` takes a ``bigint`` as text.)"""
    return f"coalesce({u}.ref, (SELECT m.ref FROM document_meta m WHERE m.ord = {u}.doc_ord) || '#u' || {u}.idx)"


UNIT_REF = unit_ref_column()
#: (Its ref as the row holds it: NULL in a SQLite unit of schema 9, which ``rowdecode._unit`` makes from the version's
#: ref and the index beside it, where ``UNIT_REF`` made reading a unit some 4 us dearer at 1M relations.)
UNIT_COLS = f"u.ref, {UNIT_DOC_REF}, u.idx, u.start_, u.end_, {UNIT_TEXT}"


#: A SQLite store of schema 12 (issue 47: a store's size) finds a unit by its ordinal, not by ``units_doc`` (its version's
#: ordinal and its index: 13 MB at 1M relations, a copy of two columns of every unit row): a version's units have the
#: consecutive ordinals after its ``document_meta`` row's ``unit_base`` (the compile numbers units version by version, in
#: order: ``StreamCompile._units``), so the unit of index ``i`` is the unit ``unit_base + i`` (indexes count from 1),
#: one lookup in ``document_meta`` (a small table) and one by rowid. A lookup by a ref that names an index the version
#: does not have lands on another version's unit, so the unit found is kept only where its version and index are the
#: ref's (``units_of_keys``).
UNIT_BASE = "unit_base"


def unit_of_relation(r: str, based: bool, u: str = "u", index: str | None = None, meta: str | None = None) -> str:
    """The condition that unit ``u`` is the one relation ``r`` names (its version ``{r}.doc_ord``, its index ``index``,
    ``{r}.unit_idx`` unless given): by the version's ``unit_base`` in a store that keeps one (``based``: ``UNIT_BASE``),
    else by the two columns (``units_doc``). A relation names a unit of its own version only (``StreamCompile._unit``).
    ``meta``: the name of the version's ``document_meta`` row where the statement joins it (else a sub-query a row)."""
    index = index or f"{r}.unit_idx"
    if based and meta is not None:
        return f"{u}.ord = {meta}.unit_base + {index}"
    if based:
        return f"{u}.ord = (SELECT m.unit_base FROM document_meta m WHERE m.ord = {r}.doc_ord) + {index}"
    return f"{u}.doc_ord = {r}.doc_ord AND {u}.idx = {index}"


def units_by_ref(refs: Sequence[str], doc_ords: Callable[[Sequence[str]], Mapping[str, int]], u: str = "u",
                 based: bool = False) -> tuple[str, list[SQLValue]]:
    """The condition that the unit named ``u`` is one of ``refs``, and its parameters (``unit_keys``): its document
    version's ordinal and its index there, the key of ``units_doc`` (a SQLite store of schema 12: ``UNIT_BASE``). A SQLite store of schema 9 keeps no unit's ref
    (``unit_ref_column``) nor ``units_ref``; an older store and PostgreSQL hold the same pair. ``doc_ords`` gives the
    ordinals of the versions that exist among some refs (``SQLStore.doc_ords``, kept per store: a lookup of each
    version's ref in the statement made reading a unit a third dearer at 1M relations). The statement's text depends
    on the number of refs alone. ``based``: the store finds a unit by its version's ``unit_base`` (``UNIT_BASE``)."""
    keys = unit_keys(refs, doc_ords)
    return units_of_keys(len(refs), u, based), [v for k in range(0, len(keys), 2) for v in keys[k:k + 2] * 2] if based else keys


def units_of_keys(count: int, u: str = "u", based: bool = False) -> str:
    """``units_by_ref``'s condition for ``count`` refs (their parameters: ``unit_keys``, each pair twice where ``based``:
    the unit by its ordinal, then kept where its version and index are the ref's, ``UNIT_BASE``)."""
    one = (f"({u}.ord = (SELECT m.unit_base FROM document_meta m WHERE m.ord = ?) + ? AND {u}.doc_ord = ? AND {u}.idx = ?)"
           if based else f"({u}.doc_ord = ? AND {u}.idx = ?)")
    return f"({' OR '.join([one] * count)})" if count else "1 = 0"


def unit_keys(refs: Sequence[str], doc_ords: Callable[[Sequence[str]], Mapping[str, int]]) -> list[SQLValue]:
    """``units_by_ref``'s parameters: each ref's document version ordinal and index; a ref that is no unit ref (``#uN``,
    N written as ``chainret.catalog.clause.unit_ref`` writes it) or names no version gives two NULLs, which name no
    unit, as ``u.ref = ?`` named none."""
    split = [(doc, int(index)) if sep and index.isdigit() and str(int(index)) == index else None
             for doc, sep, index in (ref.rpartition("#u") for ref in refs)]
    ords = doc_ords([k[0] for k in split if k is not None])
    params: list[SQLValue] = []
    for key in split:
        ordinal = ords.get(key[0]) if key is not None else None
        params.extend((ordinal, key[1]) if key is not None and ordinal is not None else (None, None))
    return params


def doc_ords_of(rows: Callable[[str, Sequence[SQLValue]], Sequence[tuple[object, ...]]], refs: Sequence[str]) -> dict[str, int]:
    """The ordinals of the document versions among ``refs`` that exist (``document_meta``, which every login reads)."""
    want = list(dict.fromkeys(refs))
    if not want:
        return {}
    return {as_str(r): as_int(o) for r, o in rows(f"SELECT ref, ord FROM document_meta WHERE ref IN ({', '.join('?' * len(want))})", want)}


def create_statements(*, postgres: bool = False) -> list[str]:
    """``CREATE TABLE`` statements (indexes come after the bulk load: see ``index_statements``); a SQLite store's
    relations are ``relation_rows`` and the view over them (``RELATION_ROWS``), PostgreSQL's the table ``relations``."""
    out = []
    tables = TABLES if postgres else {**{t: c for t, c in TABLES.items() if t not in ROW_TABLES}, **SQLITE_TABLES}
    for table, cols in tables.items():
        defs = []
        for c in cols:
            typ = ("BIGINT" if postgres else "INTEGER") if c in INT_COLUMNS else "TEXT"
            defs.append(c if not postgres and (table, c) in SQLITE_UNTYPED else f"{c} {typ}")
        tail = " WITHOUT ROWID" if not postgres and table in ("postings", "readers", "view_docs", "names", "label_readers") else ""
        key = PRIMARY[table] if postgres else SQLITE_PRIMARY.get(table, PRIMARY[table])
        out.append(f"CREATE TABLE {table} ({', '.join(defs)}, PRIMARY KEY ({key})){tail}")
    return out if postgres else [*out, *CODE_INDEXES, ENTITIES_VIEW, UNITS_VIEW, RELATIONS_VIEW]


def index_statements(columns: Mapping[str, str] | None = None, *, sqlite: bool = False) -> list[str]:
    """``CREATE INDEX`` statements, run after the bulk load. ``columns`` (index name -> its columns) is a store's
    own choice for some (PostgreSQL keys ``postings`` by reader class too: ``chainret.store.postgres.CLASSED_INDEXES``);
    a SQLite store's are built without ``SQLITE_WITHOUT`` (no read needs them)."""
    own = columns or (SQLITE_RELATION_INDEXES if sqlite else {})
    return [
        f"CREATE {'UNIQUE ' if name in UNIQUE else ''}INDEX IF NOT EXISTS {name} "
        f"ON {ROW_TABLES.get(table, table) if sqlite else table} ({own.get(name, cols)})"
        for name, table, cols in INDEXES if not (sqlite and name in SQLITE_WITHOUT)
    ]


# -- catalog -> rows (the compiler, ``chainret.store.stream``, makes the others) ---------------------
def name_rows(eid: str, name: str, aliases: Sequence[str], type_: str, i: int, doc_id: str = "") -> list[Row]:
    """The ``names`` rows of one entity's labels as one document declares them (``doc_id``; ``""``: everyone's):
    each distinct normalised label, with the keys tolerant name lookups search by
    (``chainret.catalog.names``: ``fold`` = ``name_key``, its digits, its length). Labels with one
    normalised form share one ``name_key`` (case folding is per character; spacing and punctuation
    are removed from both)."""
    labels: dict[str, str] = {}
    for label in (eid, name, *aliases):
        if label:
            labels.setdefault(normalize_name(label), label)
    out: list[Row] = []
    for key in sorted(labels):
        fold = name_key(labels[key])
        out.append((key, type_, i, fold, digits_of(fold), len(fold), doc_id))
    return out


def packed_name_rows(rows: Iterable[Row]) -> list[Row]:
    """``name_rows``' rows as a SQLite store of schema 11 keeps them (``SQLITE_NAMES``): (digits as ``digits_key``, flen,
    fold, entity, document), once each (two labels of one fold and document are one row)."""
    return list(dict.fromkeys((digits_key(str(r[4])), r[5], r[3], r[2], r[6]) for r in rows))


def digits_key(digits: str) -> str | int:
    """A fold's digits as a SQLite store of schema 11 keeps them in ``names`` (an untyped column: ``SQLITE_UNTYPED``): the
    integer they write where writing it gives them back (no leading zero, at most 18 digits: 3 bytes for '1000000'
    where the text took 8), else their text ('' for none, '007'). Equal digits give equal keys and unequal ones unequal,
    so every lookup (a fold's digits, a near miss's) names the key of the digits it asks for."""
    return int(digits) if digits.isascii() and digits.isdigit() and len(digits) <= 18 and digits[0] != "0" else digits


def declares(labels: Iterable[str | None], key: str) -> bool:
    """Whether one of the labels one document declares of an entity has the normalised form ``key``, as ``name_rows``
    keys them (an empty label none: ``SQLITE_NAMES``)."""
    return any(label and normalize_name(label) == key for label in labels)


def entity_rows(e: Entity, i: int) -> tuple[Row, list[Row], list[Row]]:
    """One entity's ``entities`` row, ``names`` rows and ``name_sources`` rows: the one home of which labels
    a store shows to whom (written by ``chainret.store.stream``; kept beside the tables because ``sql.py``'s
    label queries read what it writes).

    An entity without sources (a hand-written catalog's) is everyone's, as in the file. An importer's
    entity (``Entity.declared_in``) keeps in ``entities`` only what a reader of no document knows of
    it (``as_read_by(frozenset())``: the header's labels, else its ID), so no login reads a restricted
    document's labels from the catalog-wide table; each source's labels go to ``name_sources`` and
    ``names`` with that source's document, and a reader is shown ``merge_sources`` of the sources
    they may read (``Entity.as_read_by``; the importers write an entity's labels as ``merge_sources``
    of all its sources, so a reader of every source is shown the entity as the file has it)."""
    if not e.declared_in:
        return ((i, e.id, e.type, e.name, json.dumps(e.aliases), e.description),
                name_rows(e.id, e.name, e.aliases, e.type, i), [])
    bare = e.as_read_by(frozenset())
    names = {r[0:1] + r[6:]: r for r in name_rows(e.id, bare.name, bare.aliases, e.type, i)}
    sources: list[Row] = []
    for seq, s in enumerate(e.declared_in):
        sources.append((i, seq, s.document, s.name, json.dumps(s.aliases), s.description, s.since))
        if s.document:
            for r in name_rows("", s.name, s.aliases, e.type, i, s.document):
                names.setdefault(r[0:1] + r[6:], r)
    return ((i, e.id, e.type, bare.name, json.dumps(bare.aliases), bare.description),
            sorted(names.values(), key=lambda r: (str(r[0]), str(r[6]))), sources)


LABEL_READERS_SQL = (
    "INSERT INTO label_readers (doc_id, principal) SELECT DISTINCT s.doc_id, rd.principal FROM name_sources s "
    "JOIN documents d ON d.source || '/' || d.document = s.doc_id JOIN readers rd ON rd.doc_ord = d.ord WHERE s.doc_id <> ''"
)
"""Who may read some version of each document that declares labels (``chainret.catalog.readable.readable_doc_ids``),
from the written tables; recomputed whole after every compile and update (a new version may add readers)."""


def corpus_rows(view_docs: dict[str, list[int]], readers: dict[int, set[str]], doc_stats: dict[int, tuple[int, int]]) -> Iterator[Row]:
    """Per view and principal class: readable units and their total token count (BM25Plus's N, avgdl)."""
    named = sorted({p for ps in readers.values() for p in ps} - {"*"})
    for view, docs in view_docs.items():
        for principal in ["*", *named]:
            size = total = 0
            for d in docs:
                who = readers.get(d, set())
                if "*" in who or principal in who:
                    n, t = doc_stats[d]
                    size += n
                    total += t
            yield (view, principal, size, total)


def predicate_row(i: int, p: Predicate) -> Row:
    """A predicate's row, with its declared words (``nouns``, ``verbs``: how requests may name it, which the
    interpretation reads) as JSON, ``""`` when it declares none (schema 6)."""
    words = {k: v for k, v in (("nouns", p.nouns), ("verbs", p.verbs)) if v}
    return (i, p.name, p.domain, p.range, p.cardinality, p.description, json.dumps(words) if words else "")
