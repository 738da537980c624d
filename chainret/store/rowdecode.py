"""Decoding the SQL store's rows: their typed shapes and the models built from them.

Every SQL-store read of an ask ends here: a few relation rows become the engine's ``Anchor`` and
``Relation``, the start entity an ``Entity``, and rows are remembered in the store's bounded caches.
This sits apart from ``chainret.store.sqlrows`` (the permission SQL and the backend interface) so that
the optional compiled build (``setup.py``) can compile it: ``sqlrows``' ``Backend`` is subclassed by
backends that stay interpreted, which a compiled class refuses. The models are imported at the top, not
inside the decoders: an import statement runs the import machinery on every call even for a loaded
module (about 8,000 instructions each, 4% of a warm ask's instructions across the ask path's decoders).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.scanner import make_scanner
from typing import Any, Literal, TypeVar, cast

from chainret.catalog.models import Entity, Relation, Support, Unit
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
UnitRow = tuple[str, str, int, int, int, str]
# A relation row of ``REL_COLS``.
RelCols = tuple[int, str, str, str, str, str, str, str, str, str | None, int, int, str | None, int | None, str | None, str, Literal["clause", "prose"]]
# A relation row of ``REL_COLS`` and its quote (what ``SQLStore._relation_row`` reads): the quote, or None where
# no quote row joins. Two shapes: a compiled build then passes each row on as the tuple it is (setup.py).
RelRow = tuple[*RelCols, str] | tuple[*RelCols, None]
# A relation row of ``REL_COLS`` and ``STATUS_COLS``: visibility in the view, view rows of the same document,
# the principal's readers rows, the quote where readable (None where not).
StatusRow = tuple[*RelCols, str | None, int, int, str] | tuple[*RelCols, str | None, int, int, None]


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
    return Unit(ref=ref, doc_ref=doc_ref, index=idx, start=s, end=e, text=text)


def _reasons(row: StatusRow) -> list[str]:
    """``Eligibility.reasons`` of a relation row carrying ``STATUS_COLS`` (the codes of ``CatalogView.relation_status``)."""
    defects = row[15]
    reasons = [c for c in defects.split(",") if c] if defects else []
    in_view, same_document, readable = row[17], row[18], row[19]
    if in_view is None:
        reasons.append(ViewCode.SUPERSEDED if same_document else ViewCode.NOT_CURRENT)
    elif in_view == "removed":
        reasons.append(ViewCode.REMOVED)
    elif not readable:
        reasons.append(ViewCode.RESTRICTED)
    return reasons


# ``chainret.store.hopquery``'s statement hands a hop's rows over as two JSON arrays, which the compile's values
# round-trip through exactly (integers and text; a BLOB fails the statement). Read here, as every row shape is.
def hop_postings(text: str, visible: frozenset[int]) -> tuple[dict[int, tuple[int, str, int, int]], int]:
    """The postings array ([unit ordinal, term frequency, document, token count, unit ref] each): unit ordinal ->
    (ordinal, ref, token count, term frequency) of each posting whose document is ``visible``, and how many
    postings the array held."""
    items: list[list[Any]] = _scan_json(text, 0)[0]
    units: dict[int, tuple[int, str, int, int]] = {}
    for uo, tf, doc, ntok, ref in items:
        if doc in visible and uo not in units:
            units[uo] = (uo, ref, ntok, tf)
    return units, len(items)


def hop_status_rows(text: str, in_view: dict[int, str], same_document: dict[str, int], readers: dict[int, int],
                    readable: frozenset[int]) -> list[StatusRow]:
    """The relations array (``REL_COLS``, then the quote's document and text, each) as the rows
    ``SQLView.status_columns`` would read: the four status columns answered from a view's facts
    (``chainret.store.hopquery.ViewFacts``), in one pass."""
    items: list[list[Any]] = _scan_json(text, 0)[0]
    status: list[StatusRow] = []
    for r in items:
        doc, quote_doc = r[13], r[17]
        status.append((
            *r[:17], in_view.get(doc) if doc is not None else None, same_document.get(f"{r[5]}/{r[6]}", 0),
            readers.get(doc, 0) if doc is not None else 0, r[18] if quote_doc is not None and quote_doc in readable else None,
        ))
    return status


def anchor_of(row: StatusRow) -> Anchor:
    """The ``Anchor`` of a relation row carrying ``status_columns`` (quote where readable)."""
    return Anchor.model_construct(unit_ref=row[14] or "", relation_id=row[1], source=row[5], document=row[6], version=row[7],
                                  representation=row[8], digest=row[9] or "", span=(row[10], row[11]), quote=row[20] or "",
                                  support_kind=row[16])


def relation_of(row: RelRow | StatusRow) -> Relation:
    """The catalog ``Relation`` of a row of ``REL_COLS`` and its quote."""
    (_, rid, s, p, obj, src, doc, ver, rep, dig, a, b, note, _, _, _, kind, quote) = row[:18]
    sup = Support(source=src, document=doc, version=ver, representation=rep, digest=dig, span=(a, b), quote=quote or "", kind=kind)
    return Relation(id=rid, subject=s, predicate=p, object=obj, support=sup, note=note)
