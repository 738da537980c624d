"""What the SQL store's parts share: the SQL fragments of the permission rule and the backend (rows are decoded in ``chainret.store.rowdecode``).

The view (``chainret.store.sqlview``), the reader store (``chainret.store.sqlreader``), the search
index (``chainret.store.sqlindex``) and the store itself (``chainret.store.sql``) all build their
queries from these fragments, so "the principal may read this document in this view" is written once.
``RowSource`` is what those parts read of a store (``SQLStore`` is one); naming it here keeps the
parts below the store in the import graph.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol, cast

from chainret.catalog.names import NameLookup

from chainret.store.base import CatalogRecords
from chainret.store.rowdecode import RelRow, SQLRow
from chainret.store.schema import QUOTE, SUPPORT_COLUMNS, Row, support_column

if TYPE_CHECKING:  # (the models load with the engine, not with this module)
    from chainret.catalog.models import Entity, Relation


# A document ordinal readable by the principal in the view (``?`` = view name, principal): the rule
# ``chainret.catalog.models.document_readable`` in SQL, over the ``readers`` rows it renders (``reader_rows``);
# PostgreSQL's row-level ``POLICY`` (``chainret.store.postgres``) is the same rule keyed on the login's roles, and
# ``ViewFacts`` (``chainret.store.hopquery``) the same answers computed once per view from the same rows.
READABLE = (
    "EXISTS (SELECT 1 FROM view_docs vd JOIN readers rd ON rd.doc_ord = vd.doc_ord "
    "WHERE vd.view_name = ? AND vd.doc_ord = {col} AND rd.principal IN ('*', ?))"
)
# An entity the principal may know: subject or object of a relation supported by a document version
# they may read, in any view (``?`` = principal, principal): ``chainret.catalog.readable.known_entities``.
KNOWN = (
    "(EXISTS (SELECT 1 FROM relations kr JOIN readers kd ON kd.doc_ord = kr.doc_ord WHERE kr.subject = e.id AND kd.principal IN ('*', ?)) "
    "OR EXISTS (SELECT 1 FROM relations kr JOIN readers kd ON kd.doc_ord = kr.doc_ord WHERE kr.object = e.id AND kd.principal IN ('*', ?)))"
)
# ``within`` (a reader): the document is also readable by that reader (``?`` = reader). A view opened
# for a principal *within* a narrower viewer's catalog (``chainret.catalog.readable.reader_catalog``)
# adds it to every condition, so the store answers as the catalog with the viewer's unreadable
# documents removed.
WITHIN = " AND EXISTS (SELECT 1 FROM readers rw WHERE rw.doc_ord = {col} AND rw.principal IN ('*', ?))"
# A label (a ``names`` or ``name_sources`` row, ``{col}`` its ``doc_id``) the principal may know: everyone's
# (``''``) or declared by a document some version of which they may read, in any view (``?`` = principal):
# ``chainret.catalog.models.Entity.as_read_by``. PostgreSQL's policy on both tables says the same (``LABEL_POLICY``).
LABEL = "({col} = '' OR EXISTS (SELECT 1 FROM label_readers lr WHERE lr.doc_id = {col} AND lr.principal IN ('*', ?)))"
IN_VIEW = "EXISTS (SELECT 1 FROM view_docs vd WHERE vd.view_name = ? AND vd.doc_ord = {col})"

# A relation's status in a view (``SQLView.status_columns``) compares its document ID with ``view_docs.doc_id``
# (another version of the document in the view) and shows its quote where the principal may read it (``?`` = view,
# principal): a quote's document version is its relation's (``relation_quotes.doc_ord`` is ``relations.doc_ord``).
REL_DOC_ID = support_column("{t}.source || '/' || {t}.document")
SHOWN_QUOTE = "CASE WHEN " + READABLE.format(col="r.doc_ord") + f" THEN {QUOTE} END"


def rel_cols(*, joined: bool = False) -> str:
    """A relation ``r``'s columns as ``RelRow`` reads them (``joined``: its document version's row is joined as ``d``:
    ``schema.support_column``)."""
    return ("r.ord, r.id, r.subject, r.predicate, r.object, "
            + ", ".join(support_column("{t}." + c, joined=joined) for c in SUPPORT_COLUMNS)
            + ", r.span_start, r.span_end, r.note, r.doc_ord, r.unit_ref, r.defects, r.kind")


REL_COLS = rel_cols()


def _marks(items: Sequence[object]) -> str:
    """``?`` placeholders for ``items`` (an ``IN (...)`` list)."""
    return ", ".join("?" for _ in items)


class Backend:
    """A database connection: ``rows`` runs one read for (view, principal); SQL uses ``?`` placeholders."""

    location = ""

    def rows(self, sql: str, params: Sequence[object] = (), view: str | None = None, principal: str | None = None) -> list[SQLRow]:
        raise NotImplementedError

    def rows_custom_plan(self, sql: str, params: Sequence[object] = (), view: str | None = None,
                         principal: str | None = None) -> list[SQLRow]:
        """``rows``, planned for the values given: where a database keeps one plan for every value of a statement
        (PostgreSQL's sessions here), a read whose best index depends on the value (a hub pair's thousands)
        asks for its own plan. SQLite plans every statement for its values: the same as ``rows``."""
        return self.rows(sql, params, view, principal)

    def close(self) -> None:
        raise NotImplementedError

    def read_scope(self, principal: str | None = None) -> AbstractContextManager[object]:
        """The reads of one request (for ``principal``) as one unit (PostgreSQL: one transaction); nothing by default."""
        return contextlib.nullcontext()


class ViewCatalog(CatalogRecords, Protocol):
    """The catalog a view answers for: the store itself, or the store as one reader may read it (``ReaderStore``)."""

    def entity(self, entity_id: str) -> Entity | None: ...


class RowSource(ViewCatalog, Protocol):
    """What the view, the reader store and the index read of a SQL store (``SQLStore`` answers it)."""

    db: Backend
    kind: str  # "sqlite" or "postgres": where a statement must name a collation (``SQLView.census``)
    name_sources: bool  # schema 6: each label's declaring document is kept (``chainret.store.schema.entity_rows``)
    packed_relations: bool  # schema 10 (SQLite): relations by ordinals, through a view (``chainret.store.schema.RELATION_ROWS``)
    packed_names: bool  # schema 11 (SQLite): label rows keep the fold, not the label (``chainret.store.schema.SQLITE_NAMES``)
    keyed_terms: bool  # schema 11 (SQLite): a posting keeps an ID as its entity's ordinal (``chainret.store.schema.TERM_KEY``)
    lean_postings: bool  # schema 12 (SQLite): a posting keeps no unit columns (``chainret.store.schema.LEAN_POSTINGS``)
    coded_words: bool  # schema 13 (SQLite): a posting keeps a word that is no ID as its code (``chainret.store.schema.WORD_CODES``)
    term_sql: str  # what a statement compares a posting's term with for a term given as text (``schema.term_key``)
    based_units: bool  # schema 12 (SQLite): a unit is found by its version's ``unit_base`` (``chainret.store.schema.UNIT_BASE``)
    _known_ords: dict[str, int]  # relation ids some query returned, with their ordinals (``SQLStore``)
    _entities: dict[str, Entity | None]  # entity records by id (``SQLStore.entity``'s cache)
    _rows_cache: dict[str, RelRow | None]  # relation rows by id, read when asked for (PostgreSQL's hop statement primes it)

    def name_lookup(self) -> NameLookup: ...

    def label_lookup(self, principal: str, within: str | None = None) -> NameLookup: ...

    def label_condition(self, col: str, principal: str, within: str | None = None) -> tuple[str, tuple[str, ...]]: ...

    def label_key(self, text: str, col: str = "n") -> tuple[str, list[str | int]]: ...

    def label_columns(self, col: str = "n") -> str: ...

    def named_rows(self, rows: Sequence[Row], text: str, at: tuple[int, int, int] = (0, 2, 3)) -> list[Row]: ...

    def doc_ords(self, refs: Sequence[str]) -> dict[str, int]: ...

    def entities_of(self, ids: Sequence[str]) -> dict[str, Entity]: ...

    def labelled(self, ids: Sequence[str], principal: str, within: str | None = None) -> dict[str, Entity]: ...

    def corpus(self, view: str, principal: str, within: str | None = None) -> tuple[int, int]: ...

    def doc_ref_of(self, doc_ord: int) -> str | None: ...

    def readable_docs(self, reader: str) -> frozenset[str]: ...

    def _relation_row(self, rid: str) -> RelRow | None: ...

    def _relation_model(self, row: RelRow) -> Relation: ...


class _Relations(Mapping[str, "Relation"]):
    """``catalog.relations_by_id`` as a lazy lookup (what coverage and projection use)."""

    def __init__(self, store: RowSource) -> None:
        self.store = store

    def __getitem__(self, rid: str) -> Relation:
        rel = self.get(rid)
        if rel is None:
            raise KeyError(rid)
        return rel

    def get(self, rid: str, default: Relation | None = None) -> Relation | None:  # type: ignore[override]
        row = self.store._relation_row(rid)
        return default if row is None else self.store._relation_model(row)

    def __contains__(self, rid: object) -> bool:
        if not isinstance(rid, str):
            return False
        return rid in self.store._known_ords or self.store._relation_row(rid) is not None

    def __iter__(self) -> Iterator[str]:
        return (cast(str, r[0]) for r in self.store.db.rows("SELECT id FROM relations ORDER BY ord"))

    def __len__(self) -> int:
        return int(cast(int, self.store.db.rows("SELECT count(*) FROM relations")[0][0]))
