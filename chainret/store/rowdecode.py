"""Decoding the SQL store's rows: their typed shapes and the models built from them.

Every SQL-store read of an ask ends here: a few relation rows become the engine's ``Anchor`` and
``Relation``, the start entity an ``Entity``, and rows are remembered in the store's bounded caches.
This sits apart from ``chainret.store.sqlrows`` (the permission SQL and the backend interface): turning
rows into models is one job, saying which rows a principal may read another. The models are imported at
the top, not inside the decoders: an import statement runs the import machinery on every call even for a
loaded module (about 8,000 instructions each, 4% of a warm ask's instructions across the ask path's decoders).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from json.scanner import make_scanner
from typing import Any, Literal, NamedTuple, TypeVar, cast

from chainret.catalog.models import Entity, Relation, Support, Unit, unit_ref
from chainret.core.codes import ViewCode
from chainret.store.schema import SQLValue
from chainret.trace.model import Anchor

#: A statement's row (of ``schema.SQLValue``: what ``sqlite3`` and psycopg give for the store's column types), before a decoder gives it its shape (``EntityRow``, ``UnitRow``, ``RelRow``, ``StatusRow``).
SQLRow = tuple[SQLValue, ...]
K = TypeVar("K")
V = TypeVar("V")

# id, type, name, aliases (JSON), description.
EntityRow = tuple[str, str, str, str, str]
# ref, doc_ref, idx, start_, end_, text.
UnitRow = tuple[str | None, str, int, int, int, str]  # (ref: None in a SQLite unit of schema 9)


# The relation rows are read by name (a statement's tuple becomes one with ``_relation_row`` / ``_status_row``, a
# C call: ``tuple.__new__``, no Python ``__new__``); a NamedTuple is a tuple, so building, sorting and caching them
# costs what a tuple costs, and a field is read by a C descriptor. ``StatusRow`` writes ``RelRow``'s first fields out
# again: a type checker reads a NamedTuple's fields only as written in its class.
class RelRow(NamedTuple):
    """A relation row of ``REL_COLS`` and its quote (what ``SQLStore._relation_row`` reads): the quote, or None where
    no quote row joins (or where it was not read: PostgreSQL's hop statement primes rows without it)."""

    ord: int
    id: str
    subject: str
    predicate: str
    object: str
    source: str
    document: str
    version: str
    representation: str
    digest: str | None
    span_start: int
    span_end: int
    note: str | None
    doc_ord: int | None
    unit_ref: str | None
    defects: str
    kind: Literal["clause", "prose"]
    quote: str | None


class StatusRow(NamedTuple):
    """A relation row of ``REL_COLS`` and ``SQLView.status_columns``: visibility of its document version in the view (None: not
    in it), view rows of the same document, the principal's ``readers`` rows of the version, the quote where the
    principal may read it (None where not)."""

    ord: int
    id: str
    subject: str
    predicate: str
    object: str
    source: str
    document: str
    version: str
    representation: str
    digest: str | None
    span_start: int
    span_end: int
    note: str | None
    doc_ord: int | None
    unit_ref: str | None
    defects: str
    kind: Literal["clause", "prose"]
    in_view: str | None
    same_document: int
    readers: int
    quote: str | None


N_REL_COLS = len(RelRow._fields) - 1  # the columns of ``REL_COLS``: both row types start with them, in this order
# Positions in a ``chainret.store.hopquery`` relations array (``REL_COLS``, then the quote's doc_ord and text), by name.
_DOC_ORD, _SOURCE, _DOCUMENT = (RelRow._fields.index(f) for f in ("doc_ord", "source", "document"))
_QUOTE_DOC, _QUOTE = N_REL_COLS, N_REL_COLS + 1
_rel_row = cast("Callable[[Iterable[object]], RelRow]", partial(tuple.__new__, RelRow))
_status_row = cast("Callable[[Iterable[object]], StatusRow]", partial(tuple.__new__, StatusRow))


def rel_rows(rows: Iterable[Sequence[object]]) -> list[RelRow]:
    """A statement's rows of ``REL_COLS`` and the quote, as ``RelRow`` values."""
    return list(map(_rel_row, rows))


def status_rows(rows: Iterable[Sequence[object]]) -> list[StatusRow]:
    """A statement's rows of ``REL_COLS`` and ``SQLView.status_columns``, as ``StatusRow`` values."""
    return list(map(_status_row, rows))


def rel_row_of(row: StatusRow, quote: str | None) -> RelRow:
    """The ``RelRow`` of a status row's relation, with ``quote``."""
    return _rel_row((*row[:N_REL_COLS], quote))


CACHE_MAX = 200_000
# ``json``'s own scanner, called directly: an entity's aliases are a JSON list the compile wrote (``json.dumps``),
# so ``json.loads``' checks (a str, a BOM, trailing text) have nothing to catch, and its three Python calls
# before the scanner cost more than the scan.
_scan_json: Callable[[str, int], tuple[Any, int]] = make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # (typeshed: the context's type)


def _bounded(cache: dict[K, V], key: K, value: V) -> V:
    """Remember ``value`` (the caches of a store are dropped whole when they grow past ``CACHE_MAX``)."""
    if len(cache) >= CACHE_MAX:
        cache.clear()
    cache[key] = value
    return value


def _entity(row: SQLRow | EntityRow) -> Entity:
    i, t, n, a, d = cast(EntityRow, row)
    return Entity.model_construct(id=i, type=t, name=n, aliases=[] if a == "[]" else _scan_json(a, 0)[0], description=d)


def _unit(row: SQLRow | UnitRow) -> Unit:
    ref, doc_ref, idx, s, e, text = cast(UnitRow, row)
    if ref is None:  # (a SQLite unit of schema 9: its ref is its version's and its index, ``schema.UNIT_COLS``)
        ref = unit_ref(doc_ref, idx)
    return Unit.model_construct(ref=ref, doc_ref=doc_ref, index=idx, start=s, end=e, text=text)  # (a row the compile wrote)


def _reasons(row: StatusRow) -> list[str]:
    """``Eligibility.reasons`` of a relation row carrying ``SQLView.status_columns`` (the codes of ``CatalogView.relation_status``)."""
    defects = row.defects
    reasons = [c for c in defects.split(",") if c] if defects else []
    in_view = row.in_view
    if in_view is None:
        reasons.append(ViewCode.SUPERSEDED if row.same_document else ViewCode.NOT_CURRENT)
    elif in_view == "removed":
        reasons.append(ViewCode.REMOVED)
    elif not row.readers:
        reasons.append(ViewCode.RESTRICTED)
    return reasons


# ``chainret.store.hopquery``'s statement hands a hop's rows over as two JSON arrays, which the compile's values
# round-trip through exactly (integers and text; a BLOB fails the statement). Read here, as every row shape is.
def hop_postings(text: str, visible: frozenset[int]) -> tuple[dict[int, tuple[int, str, int, int]], int]:
    """The postings array ([unit ordinal, term frequency, document, token count, unit] each; the unit is [its document
    version's ref, its index there], or its ref in a store of schema 5 to 7): unit ordinal -> (ordinal, ref, token
    count, term frequency) of each posting whose document is ``visible``, and how many postings the array held."""
    items: list[list[Any]] = _scan_json(text, 0)[0]
    units: dict[int, tuple[int, str, int, int]] = {}
    for uo, tf, doc, ntok, unit in items:
        if doc in visible and uo not in units:
            units[uo] = (uo, unit if type(unit) is str else unit_ref(*unit), ntok, tf)
    return units, len(items)


def hop_status_rows(text: str, in_view: dict[int, str], same_document: dict[str, int], readers: dict[int, int],
                    readable: frozenset[int]) -> list[StatusRow]:
    """The relations array (``REL_COLS``, then the quote's document and text, each) as the rows
    ``SQLView.status_columns`` would read: the four status columns answered from a view's facts
    (``chainret.store.hopquery.ViewFacts``), in one pass."""
    items: list[list[Any]] = _scan_json(text, 0)[0]
    status: list[StatusRow] = []
    for r in items:
        doc, quote_doc = r[_DOC_ORD], r[_QUOTE_DOC]
        status.append(_status_row((
            *r[:N_REL_COLS], in_view.get(doc) if doc is not None else None, same_document.get(f"{r[_SOURCE]}/{r[_DOCUMENT]}", 0),
            readers.get(doc, 0) if doc is not None else 0, r[_QUOTE] if quote_doc is not None and quote_doc in readable else None,
        )))
    return status


def anchor_of(row: StatusRow) -> Anchor:
    """The ``Anchor`` of a relation row carrying ``status_columns`` (quote where readable)."""
    return Anchor.model_construct(unit_ref=row.unit_ref or "", relation_id=row.id, source=row.source, document=row.document,
                                  version=row.version, representation=row.representation, digest=row.digest or "",
                                  span=(row.span_start, row.span_end), quote=row.quote or "", support_kind=row.kind)


def relation_of(row: RelRow | StatusRow) -> Relation:
    """The catalog ``Relation`` of a row of ``REL_COLS`` and its quote."""
    sup = Support(source=row.source, document=row.document, version=row.version, representation=row.representation,
                  digest=row.digest, span=(row.span_start, row.span_end), quote=row.quote or "", kind=row.kind)
    return Relation(id=row.id, subject=row.subject, predicate=row.predicate, object=row.object, support=sup,
                    note=cast(str, row.note))  # (validated here: the compile writes every note, "" for none)
