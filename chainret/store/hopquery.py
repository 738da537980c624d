"""One SQLite statement per hop, with the view's and reader's conditions answered from memoised facts.

A hop of the engine needs: the postings of the node's ID in the units the principal may read in
the view (BM25Plus ranks them: each unit's ref and length), and the relations of the hop's (subject,
predicate) with their status in the view: those supported in a returned unit are the hop's candidates
(the engine skips a unit's relations of other pairs), and all of them serve the catalog-level checks
(a functional predicate's opposing assignment, a relation supported elsewhere). ``HopQuery`` reads
both in one statement of plain index lookups (the postings of one term, which carry their units' ref and length,
and the (subject, predicate)'s relations with their quotes: two JSON arrays in one row), and decides in Python what the
per-lookup reads (``StoreIndex.search``, ``SQLView.prefetch``, ``SQLView.rels_of``) decide in SQL:
whether a document version is readable by the principal in the view (and by a narrower viewer), its
visibility in the view, whether another version of it is in the view, and whether its quote may be
shown. Those answers come from ``ViewFacts``: one read of the view's ``view_docs`` rows and of the
principal's (and viewer's) ``readers`` rows, kept per store object, which is immutable between
generations (an update or a live revocation opens a fresh store). Ranking is ``rank_term`` (``rank_bm25plus``'s one-term case) over
the same integers in the same order, so hits and scores are bit-identical, and the status rows handed
to the view are the very tuples ``SQLView.status_columns`` would have read, so flags, reasons and
anchors are the same.

When more than ``CAND_MAX`` rows come back for a term (a hub: thousands of units hold the ID), the
statement stops at the bound and the hop's units are read as before (``StoreIndex.search`` with the
view's prefetch), so a hop never reads thousands of units it will not return.

SQLite only (``SQLStore.hop_query``; PostgreSQL keeps its per-lookup reads under row-level security),
from a (view, principal) pair's second ask on: reading the facts is one pass over the view's documents,
which a process that asks once (the CLI) would pay for nothing, so a pair's first ask runs the per-lookup
reads.
The statement texts are constants, so ``sqlite3``'s statement cache reuses the prepared statements.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, cast

from chainret.engine.search import SearchHit, rank_term, stating_first
from chainret.store.base import StoreError, recompile_advice
from chainret.store.rowdecode import _bounded, hop_postings, hop_status_rows
from chainret.store.schema import SQLValue, quote_column, term_key
from chainret.store.sqlrows import rel_cols

if TYPE_CHECKING:
    from collections.abc import Sequence

    from chainret.catalog.models import Entity
    from chainret.engine.reader import Census, Rel
    from chainret.store.sqlindex import StoreIndex
    from chainret.store.sqlrows import RowSource, ViewCatalog
    from chainret.store.sqlview import SQLView

_BY_ID = attrgetter("id")  # a relation row's id
CAND_MAX = 64  # rows of the joined candidate read; a term with more is a hub, read the returned units only
# relations of the hop's (subject, predicate) the statement reads; a pair with more (a group of 10,000 members) is
# counted (``SQLView.census``) and its returned units' relations read (``SQLView.prefetch``), never read whole
PAIR_MAX = 64

# One row of two JSON arrays (``json_group_array``): the postings of the hop's term with their units' token count
# and ref, each [unit_ord, tf, doc_ord, ntok, ref] (at most ``CAND_MAX + 1``), and the relations of the hop's
# (subject, predicate), each ``REL_COLS`` then its quote's doc_ord (its relation's) and text (its document version's row joined: ``schema.quote_column``). One row of two values instead of a row
# per posting and per relation: Python's ``sqlite3`` releases and takes back the GIL, and SQLite takes its connection
# mutex, for every column it hands over, and a posting's row was padded to a relation's width (4% fewer instructions
# per warm ask at 1M relations: benchmarks/ask_instructions.py). SQLite writes the arrays (integers as integers, text
# escaped) and ``json``'s C scanner reads them back value for value. A value no compile writes (a BLOB) makes the
# statement fail: the store is refused, naming the file.
# A posting carries its unit's token count and ref (store schema 5), so the postings of a term are read from one
# range of one index, not each joined to its unit's row elsewhere in the file: about 11 µs less CPU per warm ask at
# 1M relations (5.6%, benchmarks/warm_ab.py), the pages of those units being cold for a request's new terms. A
# store of schema 3 or 4 joins (``HOP_SQL['joined']``). The unit's own text is not read: a hop needs its ref and length
# only (``SQLView.unit`` reads a unit when something shows one); nor the units' other relations, which the hop skips.
# Schema 8's posting holds its unit's index in its document version (``idx``) where 5 to 7's held its ref (a store's
# size: some 20 bytes a posting); the statement hands over [the version's ref, the index] (``document_meta``, a small
# table: one lookup in SQLite's C, where a lookup of each new document from Python was one more statement, tens of
# µs a hop at 1M relations) and ``rowdecode.hop_postings`` writes the ref of each readable one (``unit_ref``).
# (The pair is made in the outer ``json_array``: a JSON value read through a subquery's column is text again.)
_POSTINGS = {  # kind -> (the unit's value in the array, the postings read)
    "idx": ("json_array((SELECT m.ref FROM document_meta m WHERE m.ord = doc_ord), idx)",
            "SELECT unit_ord, tf, doc_ord, ntok, idx FROM postings WHERE term = ? LIMIT ?"),
    "ref": ("ref", "SELECT unit_ord, tf, doc_ord, ntok, ref FROM postings WHERE term = ? LIMIT ?"),
    "joined": ("ref", "SELECT p.unit_ord, p.tf, p.doc_ord, u.ntok, u.ref FROM postings p JOIN units u ON u.ord = p.unit_ord "
                      "WHERE p.term = ? LIMIT ?"),
}
# Schema 11 keeps an ID as its entity's ordinal (``schema.TERM_KEY``): the term is named by its key, with the same parameter.
_POSTINGS["keyed"] = (_POSTINGS["idx"][0], _POSTINGS["idx"][1].replace("term = ?", f"term = {term_key(True)}"))
# Schema 12 keeps a posting without its unit's columns (``schema.LEAN_POSTINGS``): each is joined to its unit's row by
# its ordinal (one rowid lookup a posting; the outer array reads the columns by these names).
_POSTINGS["lean"] = (_POSTINGS["idx"][0], "SELECT p.unit_ord AS unit_ord, p.tf AS tf, u.doc_ord AS doc_ord, u.ntok AS ntok, u.idx AS idx "
                     f"FROM postings p JOIN units u ON u.ord = p.unit_ord WHERE p.term = {term_key(True)} LIMIT ?")
# Schema 13 keeps a word that is no ID by its code (``schema.WORD_CODES``): the term is named by ``WORD_KEY``.
_POSTINGS["coded"] = (_POSTINGS["lean"][0], _POSTINGS["lean"][1].replace(f"term = {term_key(True)}", f"term = {term_key(True, True)}"))
_RELATIONS = (
    f"SELECT json_group_array(json_array({rel_cols(joined=True)}, r.doc_ord, {quote_column(joined=True)})) FROM "
    "(SELECT * FROM relations WHERE subject = ? AND predicate = ? LIMIT ?) r LEFT JOIN documents d ON d.ord = r.doc_ord"
)
_ARRAY = "SELECT json_group_array(json_array(unit_ord, tf, doc_ord, ntok, {})) FROM ({})"
#: The hop statement by what a store's postings hold of their unit (``SQLStore.postings_unit``).
HOP_SQL = {kind: f"SELECT ({_ARRAY.format(*postings)}), ({_RELATIONS})" for kind, postings in _POSTINGS.items()}
# A 1.1 hop (``stating_first``) also reads which of the term's units hold the predicate's word: a third array, the
# predicate's postings looked up for those units only (the (term, unit_ord) key), never the predicate's whole list.
# The predicate's word is given as the store keeps it (``HopQuery.word_term``: its code, worked out once a predicate),
# not as text for the statement to look up: in a store that keys terms (schema 11 on) that lookup was a miss in the
# entities' ID index and a probe of ``term_words`` every hop. A term that one unit at most holds gets '[]' without the
# predicate's postings: a single row is first either way (``stating_first``), and a hop from a node that one unit
# names (a project of the standard world) reads no cold page of the predicate's long postings list. Together: 7% less
# CPU a hop statement at 1M relations, both forms alternated over 8,000 hops of the standard world (load 8).
_STATING = ("SELECT CASE WHEN (SELECT count(*) FROM (SELECT 1 FROM postings WHERE term = {0} LIMIT 2)) > 1 THEN "
            "(SELECT json_group_array(unit_ord) FROM postings WHERE term = ? AND unit_ord IN "
            "(SELECT unit_ord FROM postings WHERE term = {0} LIMIT ?)) ELSE '[]' END")
_KEYED = {kind: (kind in ("keyed", "lean", "coded"), kind == "coded") for kind in _POSTINGS}  # (``term_key``'s arguments)
HOP_SQL_STATING = {kind: f"{sql}, ({_STATING.format(term_key(*_KEYED[kind]))})" for kind, sql in HOP_SQL.items()}

# (``rowdecode.hop_postings`` and ``rowdecode.hop_status_rows`` read the two arrays.)


@dataclass(frozen=True)
class ViewFacts:
    """What the permission and status sub-queries of one (view, principal, narrower viewer) answer, read once
    (the rule is ``chainret.catalog.models.document_readable``, read here from the ``readers`` rows ``reader_rows``
    writes; ``READABLE`` in ``chainret.store.sqlrows`` is its SQL, ``POLICY`` in ``chainret.store.postgres`` its
    PostgreSQL row-level security; ``tests/test_permission_parity.py`` holds this one to the rule too).

    ``visible``: document versions ``READABLE`` in the view by the principal (and ``WITHIN`` the viewer);
    ``readable``: ``READABLE`` alone (whether a quote may be shown); ``in_view``: visibility of each version
    in the view; ``within``: versions the narrower viewer may read (None: no narrower viewer);
    ``same_document``: view rows per document id (within the viewer); ``readers``: the principal's
    ``readers`` rows per version (any view).
    """

    visible: frozenset[int]
    readable: frozenset[int]
    in_view: dict[int, str]
    within: frozenset[int] | None
    same_document: dict[str, int]
    readers: dict[int, int]


def view_facts(store: RowSource, view: str, principal: str, within: str | None) -> ViewFacts:
    """Read ``ViewFacts`` (three statements over the view's and the readers' rows)."""
    db = store.db
    docs = cast("list[tuple[int, str, str]]", db.rows("SELECT doc_ord, doc_id, visibility FROM view_docs WHERE view_name = ?", (view,)))
    readers: dict[int, int] = {}
    for (d,) in cast("list[tuple[int]]", db.rows("SELECT doc_ord FROM readers WHERE principal IN ('*', ?)", (principal,))):
        readers[d] = readers.get(d, 0) + 1
    inside: frozenset[int] | None = None
    if within is not None:
        inside = frozenset(d for (d,) in cast("list[tuple[int]]", db.rows("SELECT doc_ord FROM readers WHERE principal IN ('*', ?)", (within,))))
    readable = frozenset(d for d, _, _ in docs if d in readers)
    same: dict[str, int] = {}
    for d, doc_id, _ in docs:
        if inside is None or d in inside:
            same[doc_id] = same.get(doc_id, 0) + 1
    return ViewFacts(
        visible=readable if inside is None else readable & inside, readable=readable, in_view={d: v for d, _, v in docs},
        within=inside, same_document=same, readers=readers,
    )


class ViewHopReader:
    """What the two SQL hop readers (``HopQuery`` here, ``postgres.HopStatement``) read alike: a unit's relations
    and a pair's census as the view reads them, a pair's flagged relations from the hop statement when it read that
    pair (``of``), an entity from the view's catalog. Each adds its own ``search`` and ``hop_relations``."""

    view: SQLView
    catalog: ViewCatalog
    of: dict[tuple[str, str], list[Rel]]  # (subject, predicate) -> flagged relations, for of_subject

    def readable(self, ref: str) -> bool:
        return True  # ``SQLView.rels_in_unit`` returns nothing for a unit the principal may not read

    def in_unit(self, ref: str) -> list[Rel]:
        return self.view.rels_in_unit(ref)

    def of_subject(self, subject: str, predicate: str) -> list[Rel]:
        """``SQLView.rels_of``, from this hop's statement when it read that pair."""
        hit = self.of.get((subject, predicate))
        return hit if hit is not None else self.view.rels_of(subject, predicate)

    def entity(self, entity_id: str) -> Entity | None:
        return self.catalog.entity(entity_id)

    def census(self, subject: str, predicate: str, on_path: Sequence[str], followed: Sequence[str], returned: Sequence[str]) -> Census | None:
        """``SQLView.census`` for a pair this hop's statement did not read whole (None: it did; the engine counts those)."""
        if (subject, predicate) in self.of:
            return None
        return self.view.census(subject, predicate, on_path, followed, returned)


class HopQuery(ViewHopReader):
    """The ``HopReader`` of one SQLite (view, principal) from its second ask on: each hop's ``search`` one statement,
    the pair's flagged relations kept for the hop's other lookups (``hop_relations``, ``of_subject``, ``census``);
    a unit's relations otherwise as ``SQLView.rels_in_unit`` reads them."""

    def __init__(self, view: SQLView, index: StoreIndex, facts: ViewFacts, functional: frozenset[str], catalog: ViewCatalog,
                 *, postings: str = "idx") -> None:
        self.view, self.index, self.facts = view, index, facts
        self.functional, self.catalog = functional, catalog
        # (``postings``: what they hold of their unit: its index, 8; its ref, 5 to 7; nothing, 3 and 4: joined to units)
        self.sql, self.sql_stating = HOP_SQL[postings], HOP_SQL_STATING[postings]
        self.of: dict[tuple[str, str], list[Rel]] = {}  # (subject, predicate) -> flagged relations, for of_subject
        # (subject, predicate) -> unit ref -> the flagged relations of that pair supported in that unit, for hop_relations
        self.units: dict[tuple[str, str], dict[str, list[Rel]]] = {}
        self.term_sql = term_key(*_KEYED[postings])
        self.word_terms: dict[str, SQLValue] = {}  # a predicate -> its word as the postings keep it (``word_term``)

    def word_term(self, predicate: str) -> SQLValue:
        """The postings' term of a predicate's word (its lower case): the text itself, or in a store that keys terms the
        key the statement would look up (``schema.term_key``), read once a predicate (a store object is one snapshot)."""
        hit = self.word_terms.get(predicate)
        if hit is None:
            word = predicate.lower()
            hit = word if self.term_sql == "?" else self.view.store.db.rows(f"SELECT {self.term_sql}", (word,))[0][0]
            self.word_terms[predicate] = hit
        return hit

    def search(self, node: str, predicate: str, k: int, stating: bool = False) -> list[SearchHit]:
        v, ix, f = self.view, self.index, self.facts
        n_units, total = ix.store.corpus(ix.view, ix.principal, ix.within)
        if k <= 0 or not n_units:
            return []
        term = node.lower()
        db = v.store.db
        holding = "[]"
        try:
            if stating:
                ((postings, relations, holding),) = cast("list[tuple[str, str, str]]", db.rows(
                    self.sql_stating, (term, CAND_MAX + 1, node, predicate, PAIR_MAX + 1, term, self.word_term(predicate), term, CAND_MAX + 1)))
            else:
                ((postings, relations),) = cast("list[tuple[str, str]]", db.rows(self.sql, (term, CAND_MAX + 1, node, predicate, PAIR_MAX + 1)))
        except sqlite3.OperationalError as exc:  # e.g. a BLOB where the compile writes text: JSON cannot hold one
            path = getattr(db, "path", "the store")
            raise StoreError(
                f"{path} could not be read for the hop from {node!r} over {predicate!r} "
                f"({exc.sqlite_errorname or 'a value that is not UTF-8 text'}): a value no compile writes, such as a BLOB "
                "in a text column; " + recompile_advice(path)
            ) from None
        in_view, inside, visible = f.in_view, f.within, f.visible
        status = hop_status_rows(relations, in_view, f.same_document, f.readers, f.readable)
        whole = len(status) <= PAIR_MAX  # else a pair too large to read: counted (``census``), its units' relations read
        if whole:
            status.sort(key=_BY_ID)
            of = [s for s in status if s.doc_ord in in_view and (inside is None or s.doc_ord in inside)]  # IN_VIEW (+ WITHIN)
            flagged = _bounded(self.of, (node, predicate), v.flagged(of))
        else:
            self.of.pop((node, predicate), None)
        units, n_postings = hop_postings(postings, visible)
        if n_postings > CAND_MAX or not whole:  # a hub: read the returned units only, as the per-lookup path does
            self.units.pop((node, predicate), None)
        if n_postings > CAND_MAX:
            return ix.hop_search(node, predicate, k) if stating else ix.search([node], k)
        if whole:
            # What ``SQLView.rels_in_unit`` would give a returned unit, less the relations of other pairs, which the hop
            # skips: the pair's relations whose document the principal may read (and the narrower viewer), by id.
            in_unit: dict[str, list[Rel]] = {}
            for s, rel in zip(of, flagged, strict=True):
                if s.doc_ord in visible and s.unit_ref is not None:
                    in_unit.setdefault(s.unit_ref, []).append(rel)
            _bounded(self.units, (node, predicate), in_unit)
        if not units:
            return []
        size = n_units or 1
        if not stating:
            hits = rank_term(len(units), sorted(units.values()), size, total / size, k, ix.k1, ix.b, ix.delta)
        else:
            has = set(cast("list[int]", json.loads(holding)))
            hits = stating_first(sorted(units.values()), has, size, total / size, k, ix.k1, ix.b, ix.delta)
        if not whole:
            v.prefetch([h.ref for h in hits])
        return hits

    def hop_relations(self, ref: str, subject: str, predicate: str) -> list[Rel]:
        """The relations of (subject, predicate) supported in a unit this hop's statement returned, flagged as
        ``SQLView.rels_in_unit`` flags them; the unit's relations (``rels_in_unit``) where the statement did not read
        them (a hub's hop)."""
        hit = self.units.get((subject, predicate))
        return self.view.rels_in_unit(ref) if hit is None else hit.get(ref, [])
