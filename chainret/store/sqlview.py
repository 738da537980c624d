"""One SQL store seen through one view by one principal (``SQLView``): the ``CatalogView`` the ask path reads."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from chainret.core.codes import DefectCode
from chainret.catalog.names import NameLookup
from chainret.store.base import view_codes
from chainret.store.schema import QUOTE, UNIT_COLS, as_int, as_str, has_unit, relation_in_units, units_by_ref
from chainret.store.rowdecode import (
    CACHE_MAX, SQLRow, StatusRow, _bounded, _entity, _reasons, _unit, anchor_of, rel_row_of, rel_rows, status_rows,
)
from chainret.store.sqlrows import IN_VIEW, KNOWN, READABLE, REL_COLS, REL_DOC_ID, SHOWN_QUOTE, WITHIN, RowSource, ViewCatalog, _marks

from chainret.engine.hops import SHOWN
from chainret.engine.reader import Census, Rel
from chainret.store.paircensus import kept_census

if TYPE_CHECKING:
    from chainret.catalog.models import Entity, Predicate, Relation, SourceDocument, Unit, View, Visibility
    from chainret.catalog.views import Eligibility
    from chainret.engine.search import SearchHit
    from chainret.store.sqlindex import StoreIndex

_DEFECTS = frozenset(DefectCode)


class SQLView:
    """One store seen through one view by one principal: the ``CatalogView`` methods the ask path uses.

    A store object reads a snapshot: what a view has looked up (units, relation statuses and flags)
    is kept for the next request. Reopen the store to see an update written since.
    """

    def __init__(self, store: RowSource, view: str, principal: str, within: str | None = None, catalog: ViewCatalog | None = None,
                 shown: str | None = None) -> None:
        self.store = store
        self._name = view  # the store's name of the view (what its queries read by)
        self._shown = shown if shown is not None else view  # the name the reader is shown (``readable.reader_view_names``)
        self.principal = principal
        self.within = within  # a narrower viewer whose catalog this view reads (None: the whole catalog)
        self._catalog: ViewCatalog = catalog if catalog is not None else store
        self._flags: dict[str, Rel] = {}
        self._units: dict[str, Unit | None] = {}
        self._status: dict[str, list[str]] = {}
        self._in_unit: dict[str, list[Rel]] = {}

    @property
    def view_name(self) -> str:
        return self._name

    @property
    def shown_name(self) -> str:
        """The view's name as its catalog's reader is shown it (a trace, a refusal, a report name it so)."""
        return self._shown

    @property
    def catalog(self) -> ViewCatalog:
        return self._catalog

    @property
    def view(self) -> View:
        return self._catalog.views_by_name[self._shown]

    def _rows(self, sql: str, params: Sequence[object] = ()) -> list[SQLRow]:
        return self.store.db.rows(sql, params, self._name, self.principal)

    def _vp(self) -> tuple[str, str]:
        return (self._name, self.principal)

    def _w(self, col: str) -> tuple[str, tuple[str, ...]]:
        """The ``WITHIN`` condition on ``col`` and its parameter (nothing for a whole-catalog view)."""
        return (WITHIN.format(col=col), (self.within,)) if self.within is not None else ("", ())

    def _readable(self, col: str) -> tuple[str, tuple[str, ...]]:
        """``READABLE`` (and ``WITHIN``) on ``col`` with their parameters."""
        w, wp = self._w(col)
        return READABLE.format(col=col) + w, (*self._vp(), *wp)

    # -- documents and units ----------------------------------------------------------------------------
    def documents(self) -> list[SourceDocument]:
        from chainret.catalog.models import SourceDocument

        rows = cast("list[tuple[str, str, str, str, str, str, str, Visibility, str]]", self._rows(
            "SELECT source, document, version, representation, title, text, digest, visibility, principals "
            "FROM documents d WHERE " + self._readable("d.ord")[0] + " ORDER BY d.ord",
            self._readable("d.ord")[1],
        ))
        return [
            SourceDocument(source=s, document=d, version=v, representation=r, title=t, text=x, digest=g,
                           visibility=vis, principals=json.loads(p))
            for s, d, v, r, t, x, g, vis, p in rows
        ]

    def _fetch_units(self, refs: Sequence[str]) -> None:
        want = [r for r in dict.fromkeys(refs) if r not in self._units]
        if want:
            self._read_units(want)

    def _read_units(self, want: Sequence[str]) -> dict[str, Unit]:
        """The readable units among ``want``, read now (and cached)."""
        named, np = units_by_ref(want, self.store.doc_ords, based=self.store.based_units)
        rows = self._rows(
            f"SELECT {UNIT_COLS} FROM units u WHERE {named} AND " + self._readable("u.doc_ord")[0],
            (*np, *self._readable("u.doc_ord")[1]),
        )
        found = {u.ref: u for u in map(_unit, rows)}
        for ref in want:
            _bounded(self._units, ref, found.get(ref))
        return found

    def unit(self, ref: str) -> Unit | None:
        """The unit if the principal may read it in this view, else None."""
        try:
            return self._units[ref]  # one lookup: another thread may clear the cache meanwhile
        except KeyError:
            return self._read_units([ref]).get(ref)  # not re-read from the cache: another thread may clear it

    def units(self) -> list[Unit]:
        rows = self._rows(
            f"SELECT {UNIT_COLS} FROM units u WHERE "
            + self._readable("u.doc_ord")[0] + " ORDER BY u.ord",
            self._readable("u.doc_ord")[1],
        )
        return [_unit(r) for r in rows]

    def unit_texts(self) -> list[tuple[str, str]]:
        return [(u.ref, u.text) for u in self.units()]

    # -- relations ---------------------------------------------------------------------------------------
    def status_columns(self) -> tuple[str, tuple[str | None, ...]]:
        """``REL_COLS`` and what a relation's status in this view needs (four columns, quote where
        readable) on relation alias ``r``, with their parameters (``chainret.store.hopquery`` computes the
        same four columns in Python from ``ViewFacts``)."""
        w_vd, wp = self._w("vd.doc_ord")
        status = (
            "(SELECT vd.visibility FROM view_docs vd WHERE vd.view_name = ? AND vd.doc_ord = r.doc_ord), "
            f"(SELECT count(*) FROM view_docs vd WHERE vd.view_name = ? AND vd.doc_id = {REL_DOC_ID}{w_vd}), "
            f"(SELECT count(*) FROM readers rd WHERE rd.doc_ord = r.doc_ord AND rd.principal IN ('*', ?)), {SHOWN_QUOTE}"
        )
        return f"{REL_COLS}, {status}", (self._name, self._name, *wp, self.principal, *self._vp())

    def _status_rows(self, where: str, params: Sequence[object]) -> list[StatusRow]:
        """Relation rows with what their status in this view needs (``status_columns``), quote where readable."""
        w_r, wp = self._w("r.doc_ord")
        cols, cp = self.status_columns()
        return self.noted(status_rows(self._rows(f"SELECT {cols} FROM relations r WHERE ({where}){w_r}", (*cp, *params, *wp))))

    def flagged(self, rows: list[StatusRow]) -> list[Rel]:
        """``noted`` and ``_flag`` of each row in one pass (each row's reasons computed once)."""
        known = self.store._known_ords
        if len(known) >= CACHE_MAX:
            known.clear()
        out = []
        for r in rows:
            reasons = _bounded(self._status, r.id, _reasons(r))
            known[r.id] = r.ord
            out.append(self._flag(r, reasons))
        return out

    def noted(self, rows: list[StatusRow]) -> list[StatusRow]:
        """``rows`` (carrying ``status_columns``), their statuses and ids remembered."""
        known = self.store._known_ords
        if len(known) >= CACHE_MAX:
            known.clear()
        for r in rows:
            _bounded(self._status, r.id, _reasons(r))
            known[r.id] = r.ord
        return rows

    def relation_status(self, relation: Relation | str) -> Eligibility:
        from chainret.catalog.views import Eligibility

        rid = relation if isinstance(relation, str) else relation.id
        reasons = self._status.get(rid)
        if reasons is None:
            rows = self._status_rows("r.id = ?", (rid,))
            if not rows:
                raise KeyError(rid)
            reasons = _reasons(rows[0])
        return Eligibility(eligible=not reasons, reasons=list(reasons))

    def eligible_relations(self) -> list[Relation]:
        return [r for r in self.relations() if self.relation_status(r).eligible]

    def relations(self) -> list[Relation]:
        """Every relation of the view's catalog (of a narrower viewer's: those of documents they may read); read in
        the view as its principal, so PostgreSQL's policy shows the quotes of the documents they may read there."""
        w, wp = self._w("r.doc_ord")
        rows = self._rows(
            f"SELECT {REL_COLS}, {QUOTE} FROM relations r WHERE 1 = 1{w} ORDER BY r.ord", wp)
        return [self.store._relation_model(r) for r in rel_rows(rows)]

    def supporting_unit(self, relation: Relation | str) -> Unit | None:
        """The unit holding the relation's clause (None where this store may not show it to the principal)."""
        rid = relation if isinstance(relation, str) else relation.id
        row = self.store._relation_row(rid)
        if row is None or row.unit_ref is None or (self.within is not None and rid not in self._catalog.relations_by_id):
            return None
        cached = self._units.get(row.unit_ref)
        if cached is not None:
            return cached
        named, np = units_by_ref([row.unit_ref], self.store.doc_ords, based=self.store.based_units)
        rows = self._rows(f"SELECT {UNIT_COLS} FROM units u WHERE {named}", np)
        return _unit(rows[0]) if rows else None

    def relations_in_unit(self, unit_ref: str) -> list[Relation]:
        in_unit, up = relation_in_units([unit_ref], self.store.packed_relations, self.store.doc_ords)
        rows = rel_rows(self.store.db.rows(f"SELECT {REL_COLS}, {QUOTE} FROM relations r WHERE {in_unit}", up))
        return [self.store._relation_model(r) for r in sorted(rows, key=lambda r: (r.span_start, r.id))]

    def current_relations(self, subject: str, predicate: str) -> list[Relation]:
        rows = self._status_rows("r.subject = ? AND r.predicate = ?", (subject, predicate))
        return [self.store._relation_model(rel_row_of(r, r.quote)) for r in sorted(rows, key=lambda r: r.ord) if not _reasons(r)]

    # -- the hop engine's two lookups ---------------------------------------------------------------------------
    def _flag(self, row: StatusRow, reasons: list[str] | None = None) -> Rel:
        rid = row.id
        hit = self._flags.get(rid)
        if hit is not None:
            return hit
        if reasons is None:
            reasons = _reasons(row)
        if reasons:
            current, readable = view_codes(reasons)
            rel = Rel(rid, row.subject, row.predicate, row.object, anchor_of(row), current, readable,
                      not any(r in _DEFECTS for r in reasons), ",".join(reasons))
        else:  # the common case: current, readable and valid, nothing to explain
            rel = Rel(rid, row.subject, row.predicate, row.object, anchor_of(row))
        return _bounded(self._flags, rid, rel)

    def prefetch(self, refs: Sequence[str]) -> None:
        """Units and supported relations of a search's returned rows, two queries for all of them."""
        self._fetch_units(refs)
        want = [r for r in dict.fromkeys(refs) if r not in self._in_unit]
        if want:
            self._read_rels(want)

    def _read_rels(self, want: Sequence[str]) -> dict[str, list[Rel]]:
        """The relations supported in each unit of ``want``, read now (and cached): callers use the
        result, not the cache, which another thread may clear in between (``_bounded``)."""
        in_units, up = relation_in_units(want, self.store.packed_relations, self.store.doc_ords)
        rows = self._status_rows(f"{in_units} AND " + READABLE.format(col="r.doc_ord"), (*up, *self._vp()))
        # (``_status_rows`` adds the ``within`` condition)
        grouped: dict[str, list[Rel]] = {ref: [] for ref in want}
        for r in sorted(rows, key=lambda r: r.id):
            grouped[r.unit_ref or ""].append(self._flag(r))
        for ref, rels in grouped.items():
            _bounded(self._in_unit, ref, rels)
        return grouped

    def rels_in_unit(self, ref: str) -> list[Rel]:
        """Relations supported in a readable unit, ordered by id, with their flags (none if unreadable)."""
        hit = self._in_unit.get(ref)
        return hit if hit is not None else self._read_rels([ref])[ref]

    def rels_of(self, subject: str, predicate: str) -> list[Rel]:
        """Relations of (subject, predicate) whose document is in the view, ordered by id, with flags.

        Relations outside the view are left out: the engine uses this lookup only for current
        relations (usable ones elsewhere, withheld ones, opposing assignments), so the result is
        the same as over the whole catalog.
        """
        rows = self._status_rows(
            "r.subject = ? AND r.predicate = ? AND " + IN_VIEW.format(col="r.doc_ord"), (subject, predicate, self._name)
        )
        return [self._flag(r) for r in sorted(rows, key=lambda r: r.id)]

    def census(self, subject: str, predicate: str, on_path: Sequence[str], followed: Sequence[str], returned: Sequence[str]) -> Census:
        """``count_census`` of ``rels_of(subject, predicate)`` as one aggregate statement: the pair's usable
        relations (no defect, a unit, in the view and readable by the principal, within the narrower viewer: a
        relation with no status reason) are counted, and only the first ``SHOWN`` ids left behind are read, so a
        set hop from a subject with 10,000 values reads no relation row. The quote is not re-derived here as
        ``HopWorld`` does for the relations it reads (``chainret.catalog.statement``): a compiled quote that does
        not state its relation carries its defect (``clause_mismatch``, ``prose_mismatch``), and a count never
        advances a hop. A hub pair's counts kept at compile answer first (``chainret.store.paircensus``)."""
        kept = kept_census(self.store, self._name, self.principal, self.within, subject, predicate, on_path, followed, returned)
        if kept is not None:
            return kept
        readable, rp = self._readable("r.doc_ord")

        def not_in(col: str, values: Sequence[str]) -> tuple[str, tuple[str, ...]]:
            return (f" AND {col} NOT IN ({_marks(values)})", tuple(values)) if values else ("", ())

        path, pp = not_in("r.object", on_path)
        left, lp = not_in("r.object", followed)
        packed = self.store.packed_relations
        unseen, up = not_in("r.unit_ref", returned)
        if packed and returned:  # (the unit's keys, not the ref the view makes; a ref of no unit matches no row: NULL)
            in_units, keys = relation_in_units(returned, packed, self.store.doc_ords)
            unseen, up = f" AND NOT coalesce({in_units}, 0)", tuple(cast("list[str]", keys))
        where = f"r.subject = ? AND r.predicate = ? AND r.defects = '' AND {has_unit(packed)} AND {readable}{path}"
        wp = (subject, predicate, *rp, *pp)
        binary = 'COLLATE "C"' if self.store.kind == "postgres" else "COLLATE BINARY"  # Python's order of ids
        # (count(DISTINCT) sorts its values: byte order, the same equality, at a fraction of a locale's comparisons)
        rows = self._rows(
            f"SELECT count(DISTINCT r.object {binary}), count(DISTINCT CASE WHEN 1 = 1{left} THEN r.object {binary} END), "
            f"count(CASE WHEN 1 = 1{left}{unseen} THEN 1 END), CAST(NULL AS TEXT) FROM relations r WHERE {where} "
            f"UNION ALL SELECT * FROM (SELECT CAST(NULL AS BIGINT), CAST(NULL AS BIGINT), CAST(NULL AS BIGINT), r.id FROM relations r WHERE {where}{left}{unseen} "
            f"ORDER BY r.id {binary} LIMIT {SHOWN}) m",
            (*lp, *lp, *up, *wp, *wp, *lp, *up),
        )
        eligible, n_left, n_missing, _ = rows[0]
        return Census(as_int(eligible), as_int(n_left), tuple(as_str(r[3]) for r in rows[1:]), as_int(n_missing))

    # -- entities -------------------------------------------------------------------------------------------
    def resolve(self, text: str, type: str | None = None) -> list[Entity]:  # noqa: A002 - API name
        """Entities named ``text`` that the principal may know (in a relation of a document they may read),
        by a label they may know (``SQLStore.label_condition``), with the labels they are shown."""
        known, kp = self._known()
        label, lp = self.store.label_condition("n.doc_id", self.principal, self.within)
        named, np = self.store.label_key(text)
        # (A store whose label rows keep no label (``packed_names``) has one row an entity and document for a fold, its
        # primary key, so its rows are distinct already: DISTINCT's temporary B-tree was 7% of the statement at 1M relations.)
        distinct = "" if self.store.packed_names else "DISTINCT "
        sql = (f"SELECT {distinct}e.id, e.type, e.name, e.aliases, e.description{self.store.label_columns()} FROM names n "
               f"JOIN entities e ON e.ord = n.entity_ord WHERE {named} AND {known}{label}")
        params: list[str | int] = [*np, *kp, *lp]
        if type is not None:
            sql += " AND e.type = ?"  # (the entity's: a SQLite label row of schema 9 does not repeat it)
            params.append(type)
        rows = self.store.named_rows(self._rows(sql, params), text)
        entities = self.store._entities  # the rows read here are the records ``entities_of`` would read again
        for r in rows:
            _bounded(entities, str(r[0]), _entity(r))
        ids = sorted(str(r[0]) for r in rows)
        shown = self.store.labelled(ids, self.principal, self.within)
        return [shown[i] for i in ids if i in shown]

    def name_lookup(self) -> NameLookup:
        """The store's name index as this view's reader knows the names (candidates: check ``knows`` before use)."""
        return self.store.label_lookup(self.principal, self.within)

    def declared_entities(self, text: str | None = None, type_: str | None = None) -> list[Entity]:
        """Entities that a document the principal may read (within the narrower viewer) declares
        (``name_sources``: ``chainret.catalog.readable.declared_entities``), in catalog order, with the labels
        they are shown. With ``text``: only those named ``text`` (of ``type_``) by a label they may know
        that take part in no relation they may read (``chainret.query.declared.declared_unrelated``)."""
        if not self.store.name_sources:
            return []
        src, sp = self.store.label_condition("s.doc_id", self.principal, self.within)
        declared = f"EXISTS (SELECT 1 FROM name_sources s WHERE s.entity_ord = e.ord AND s.doc_id <> ''{src})"
        params: list[str | int] = [*sp]
        if text is None:
            sql = f"SELECT e.id, e.ord FROM entities e WHERE {declared}"
        else:
            # Driven by the name index (the few rows named ``text``), then each checked: declared, and known by no
            # relation. Driven by ``entities`` with the name as one more EXISTS, the statement visited every
            # entity of the store: 0.65 s at 1M relations, on every request naming something the viewer may not know.
            known, kp = self._known()
            label, lp = self.store.label_condition("n.doc_id", self.principal, self.within)
            typed = " AND e.type = ?" if type_ is not None else ""
            named, np = self.store.label_key(text)
            sql = (f"SELECT DISTINCT e.id, e.ord, e.name, e.aliases{self.store.label_columns()} FROM names n JOIN entities e ON e.ord = n.entity_ord "
                   f"WHERE {named}{label}{typed} AND {declared} AND NOT {known}")
            params = [*np, *lp, *([type_] if type_ is not None else []), *sp, *kp]
        rows = self._rows(sql + " ORDER BY e.ord", params)
        ids = [str(r[0]) for r in (rows if text is None else self.store.named_rows(rows, text))]
        shown = self.store.labelled(ids, self.principal, self.within)
        return [shown[i] for i in ids if i in shown]

    def knows(self, entity_id: str) -> bool:
        """True when the principal may know this entity (it occurs in a document they may read)."""
        known, kp = self._known()
        return bool(self._rows(f"SELECT 1 FROM entities e WHERE e.id = ? AND {known}", (entity_id, *kp)))

    def _known(self, principal: str | None = None) -> tuple[str, tuple[str, ...]]:
        """``KNOWN`` for the principal (or another reader), within the view's narrower viewer if any."""
        who = self.principal if principal is None else principal
        if self.within is None:
            return KNOWN, (who, who)
        w = WITHIN.format(col="kr.doc_ord")
        sql = KNOWN.replace("AND kd.principal IN ('*', ?))", f"AND kd.principal IN ('*', ?){w})")
        return sql, (who, self.within, who, self.within)

    def entity(self, entity_id: str) -> Entity | None:
        """The entity with the labels the principal is shown (within the narrower viewer), if it exists
        (and, in a reader's catalog, if the reader knows it)."""
        if self._catalog.entity(entity_id) is None:
            return None
        return self.store.labelled([entity_id], self.principal, self.within).get(entity_id)

    def entities_of(self, ids: Sequence[str]) -> dict[str, Entity]:
        """``entity`` of each id that exists; over the whole store, one statement for those not yet read."""
        if self._catalog is not self.store:
            ids = [i for i in ids if self._catalog.entity(i) is not None]
        return self.store.labelled(ids, self.principal, self.within)

    def predicate(self, name: str) -> Predicate | None:
        return self.store.predicates_by_name.get(name)



class ViewHopReader:
    """The ``HopReader`` of one ``SQLView``, one lookup per read: the index's search, ``SQLView.rels_in_unit``,
    ``rels_of`` and ``census`` (the statements of each hold the principal's conditions: ``READABLE``, ``WITHIN``).
    A SQLite pair's first ask reads so (``SQLStore.hop_world``); later ones read each hop in one statement
    (``chainret.store.hopquery.HopQuery``)."""

    def __init__(self, view: SQLView, index: StoreIndex, functional: frozenset[str], catalog: ViewCatalog) -> None:
        self.view, self.index, self.functional, self.catalog = view, index, functional, catalog

    def search(self, node: str, predicate: str, k: int, stating_first: bool) -> list[SearchHit]:
        if stating_first:
            return list(self.index.hop_search(node, predicate, k))
        return list(self.index.search([node], k=k))

    def readable(self, ref: str) -> bool:
        return True  # ``rels_in_unit`` returns nothing for a unit the principal may not read

    def in_unit(self, ref: str) -> list[Rel]:
        return self.view.rels_in_unit(ref)

    def hop_relations(self, ref: str, subject: str, predicate: str) -> list[Rel]:
        return self.view.rels_in_unit(ref)

    def of_subject(self, subject: str, predicate: str) -> list[Rel]:
        return self.view.rels_of(subject, predicate)

    def entity(self, entity_id: str) -> Entity | None:
        return self.catalog.entity(entity_id)

    def census(self, subject: str, predicate: str, on_path: Sequence[str], followed: Sequence[str], returned: Sequence[str]) -> Census:
        return self.view.census(subject, predicate, on_path, followed, returned)
