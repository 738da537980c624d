"""The SQL store shared by the SQLite and PostgreSQL stores (``SQLStore``).

``SQLStore`` holds a backend (``rows(sql, params, view, principal)``) and answers the store
interface with one bounded query per question. Every query that can touch restricted text filters
on the view and principal itself (SQLite has no roles); PostgreSQL additionally enforces the same
rule with row-level security for the application role (``chainret.store.postgres``).

Threads: a store (and its views) may be read by several threads at once (``chainret serve
--threads``; the SQLite backend gives each thread its own connection). The caches are plain dicts,
unlocked: each read or write of one is atomic under the GIL, two threads may fill the same entry
once each (same value), and since ``_bounded`` may clear a cache at any moment, code that fills a
cache uses what it read, never a second look-up of the entry it just stored.

Its parts, each in its own module below this one: the SQL fragments and row decoders
(``chainret.store.sqlrows``), the view the engine reads (``chainret.store.sqlview``), the reader
store and evidence reader (``chainret.store.sqlreader``), the BM25Plus index
(``chainret.store.sqlindex``) and SQLite's one statement per hop (``chainret.store.hopquery``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from functools import cached_property
from typing import TYPE_CHECKING, Literal, NamedTuple, cast

from chainret.core.bulk import paused_gc
from chainret.catalog.models import Entity, NameSource, View, functional_names, merge_sources, normalize_name
from chainret.core.errors import UsageError
from chainret.engine.hops import HopWorld
from chainret.catalog.names import NameEntry, NameIndex, NameLookup, Named, digits_of, entries_from_rows, label_words, name_key
from chainret.store.base import CatalogReader, ViewReader, revision_token
from chainret.store.hopquery import HopQuery, ViewFacts, view_facts
from chainret.store.namewords import kept_word
from chainret.store.sqlindex import StoreIndex
from chainret.store.sqlreader import EvidenceReader, ReaderStore, _Documents
from chainret.store.rowdecode import RelRow, _bounded, _entity, _unit, rel_rows, relation_of
from chainret.store.schema import QUOTE, UNIT_COLS, Row, as_int, as_str, declares, digits_key, doc_ords_of, term_key, units_by_ref
from chainret.store.sqlrows import LABEL, READABLE, REL_COLS, WITHIN, Backend, _marks, _Relations
from chainret.store.sqlview import SQLView, ViewHopReader

if TYPE_CHECKING:
    from collections.abc import Callable

    from chainret.catalog.models import Pattern, Predicate, Relation, Unit
    from chainret.engine.reader import HopReader
    from chainret.store.base import DocumentMeta

__all__ = ["Backend", "EvidenceReader", "ReaderStore", "SQLStore", "SQLView", "StoreIndex"]


def fold_key(fold: str, col: str = "n", *, keyed: bool = False) -> tuple[str, list[str | int]]:
    """The condition on a ``names`` row (alias ``col``) that its ``fold`` is ``fold``, and its parameters: the fold's
    digits and length before it (``schema.name_rows`` writes both from the fold), the prefix of the key a SQLite store
    of schema 9 orders ``names`` by (``schema.SQLITE_PRIMARY``); the digits as ``schema.digits_key`` where the store
    keeps them so (``keyed``: schema 11). They narrow nothing the fold would match, so an older store (or PostgreSQL, by
    its ``names_fold`` index) answers the same."""
    digits = digits_of(fold)
    return f"{col}.digits = ? AND {col}.flen = ? AND {col}.fold = ?", [digits_key(digits) if keyed else digits, len(fold), fold]


class SQLNames:
    """``NameLookup`` as indexed queries on the ``names`` table's ``fold`` / ``digits`` / ``flen`` columns.

    Per reader (``principal``, within a narrower viewer): only labels they may know match
    (``SQLStore.label_condition``), and each entity comes with the labels they are shown
    (``SQLStore.labelled``), so a suggestion never names a label of a document they may not read.
    ``owners_of`` (a first name's completions) and ``has_word`` (a synonym's and a typo's check) read the word's
    ``name_words`` row first (``chainret.store.namewords``), then ``key LIKE '%word%'`` scans, keeping the entities
    where it is a whole word of a label they are shown."""

    def __init__(self, store: SQLStore, principal: str | None = None, within: str | None = None) -> None:
        self.store, self.principal, self.within = store, principal, within
        # (type, word, knows) -> ``has_word``: a request's readings ask the same words again (a store is immutable)
        self._has_word: dict[tuple[str, str, Callable[[str], bool] | None], bool] = {}

    def _entries(self, where: str, params: tuple[object, ...], type_: str | None) -> list[NameEntry]:
        """The entities (of ``type_``: the entity's, which a SQLite label row of schema 9 does not repeat) with a label
        row ``where`` holds of."""
        typed, tp = (" AND e.type = ?", (type_,)) if type_ is not None else ("", ())
        if type_ is not None and self.store.names_typed:
            where, params = f"n.type = ? AND {where}", (type_, *params)
        if self.principal is None:  # (a schema 3-5 store, or a catalog-wide lookup: every label is everyone's)
            rows = self.store.db.rows(
                f"SELECT e.id, e.type, e.name, e.aliases FROM entities e WHERE e.ord IN (SELECT n.entity_ord FROM names n WHERE {where})"
                f"{typed} ORDER BY e.ord", (*params, *tp))
            return entries_from_rows(cast("list[tuple[str, str, str, str]]", rows))
        label, lp = self.store.label_condition("n.doc_id", self.principal, self.within)
        rows = self.store.db.rows(
            f"SELECT e.id FROM entities e WHERE e.ord IN (SELECT n.entity_ord FROM names n WHERE {where}{label}){typed} ORDER BY e.ord",
            (*params, *lp, *tp), None, self.principal)
        ids = [str(r[0]) for r in rows]
        shown = self.store.labelled(ids, self.principal, self.within)
        return [NameEntry(e.id, e.type, (e.id, e.name, *e.aliases)) for i in ids if (e := shown.get(i)) is not None]

    def by_key(self, type_: str, key: str) -> list[NameEntry]:
        fold, fp = fold_key(key, keyed=self.store.packed_names)
        return self._entries(fold, tuple(fp), type_)

    def near(self, type_: str | None, digits: str, lo: int, hi: int) -> list[NameEntry]:
        return self._entries("n.digits = ? AND n.flen BETWEEN ? AND ?", (digits_key(digits) if self.store.packed_names else digits, lo, hi), type_)

    def has_word(self, type_: str, word: str, knows: Callable[[str], bool] | None = None) -> bool:
        """Whether some ``owners_of`` entity (that ``knows`` accepts) has ``word``: remembered per object, a request's
        readings ask the same words again (a store is immutable)."""
        key = (type_, word, knows)
        hit = self._has_word.get(key)
        if hit is None:
            if len(self._has_word) >= 4096:
                self._has_word.clear()
            hit = self._has_word[key] = any(knows is None or knows(e.id) for e in self.owners_of(type_, word))
        return hit

    def owners_of(self, type_: str, word: str) -> Iterator[Named]:
        """The ``type_`` entities with ``word`` as a word of a label this reader is shown, read as they are taken
        (``NameLookup.owners_of``; the listed ones first, in catalog order, then in the store's order).

        A word the store's ``name_words`` holds: the entities its row lists first, and no more where it lists every
        owner (an absent word is no label's). Else, or for the rest, the owners scans of the labels find (``key LIKE``:
        a word with a digit, a store without the table, or a common word), 512 label rows a scan, as they are taken."""
        row = self.store.name_words(type_, word) if kept_word(word) else None
        listed: list[int] = []
        if row is not None:
            n, listed = row
            yield from self._owning(type_, word, listed)
            if n <= len(listed):
                return
        # SQLite: in the table's order, each scan stopping at its 512th match (a common word's first, at once), the next
        # one after them (a store file is immutable: the same order each time). PostgreSQL: by entity, after the last
        # one taken (a scan there may start anywhere in the table), each scan sorting for its next 512.
        # A store whose label rows keep no label scans their folds (``schema.SQLITE_NAMES``): the fold of a label holds the
        # fold of each of its words, and ``_owning`` keeps the entities that have the word, as after a scan of the labels.
        ordered = self.store.kind == "postgres"
        scanned, like = ("n.fold", f"%{name_key(word)}%") if self.store.packed_names else ("n.key", f"%{word}%")
        sql = (f"SELECT n.entity_ord FROM names n WHERE {scanned} LIKE ? AND n.entity_ord > ? ORDER BY 1 LIMIT 512" if ordered
               else f"SELECT n.entity_ord FROM names n WHERE {scanned} LIKE ? LIMIT 512 OFFSET ?")
        seen, after, offset = set(listed), -1, 0
        while True:
            rows = self.store.db.rows(sql, (like, after if ordered else offset), None, self.principal)
            ords = [o for o in dict.fromkeys(as_int(r[0]) for r in rows) if o not in seen]
            seen.update(ords)
            for k in range(0, len(ords), 64):
                yield from self._owning(type_, word, ords[k:k + 64])
            if len(rows) < 512:
                return
            after, offset = as_int(rows[-1][0]), offset + 512  # (by entity: the last one's other rows name no other)

    def _owning(self, type_: str, word: str, ords: Sequence[int]) -> list[Named]:
        """The entities of ``ords`` of ``type_`` that have ``word`` in a label this reader is shown, in ``ords``' order."""
        if not ords:
            return []
        ids = [str(r[0]) for r in self.store.db.rows(
            f"SELECT id FROM entities WHERE ord IN ({_marks(ords)}) AND type = ? ORDER BY ord", (*ords, type_), None, self.principal)]
        return [e for e in self.entities(ids) if any(word in label_words(label) for label in (e.id, e.name, *e.aliases))]

    def entities(self, ids: Sequence[str]) -> list[Named]:
        if self.principal is not None:
            shown = self.store.labelled(ids, self.principal, self.within)
            return [shown[i] for i in ids if i in shown]
        out = [self.store.entity(i) for i in ids]
        return [e for e in out if e is not None]


class _DocumentMeta(NamedTuple):
    """A document version's ref and visibility."""

    ref: str
    visibility: str


class SQLStore:
    """A compiled catalog in a SQL database. Duck-types the parts of ``Catalog`` the ask path reads."""

    is_chainret_store = True
    kind = "sql"
    # One statement per hop (``chainret.store.hopquery``): None = on for SQLite, where the permission rule is
    # answered from memoised facts, from a (view, principal) pair's second ask on (its first runs the
    # per-lookup reads: the facts are one read of every document of the view, most of a one-ask process's
    # time at 1M relations); True = from the first ask; PostgreSQL keeps its per-lookup reads (row-level
    # security decides there).
    hop_query: bool | None = None

    def __init__(self, db: Backend) -> None:
        self.db = db
        self._meta: dict[str, str] = {cast(str, k): cast(str, v) for k, v in db.rows("SELECT key, value FROM meta")}
        self.world: str = self._meta["world"]
        self.description: str = self._meta.get("description", "")
        self.format: str = self._meta.get("catalog_format", "chainret-catalog/1")
        # Schema 6 keeps each label's declaring document (``schema.entity_rows``); 3 to 5: every label is everyone's.
        self.name_sources: bool = self._meta.get("schema_version") not in ("3", "4", "5")
        # Schema 4 on: every label row has its ``fold``, which a SQLite store of schema 7 keys its ``names`` by.
        self._names_fold: bool = self._meta.get("schema_version") != "3"
        # A SQLite store of schema 9 leaves a label row's type NULL (its entity's); the others' rows hold it, which their
        # indexes (``names_near``: type first) need in a lookup's condition.
        self.names_typed: bool = not (self.kind == "sqlite" and self._meta.get("schema_version") not in ("3", "4", "5", "6", "7", "8"))
        # A SQLite store of schema 10 keeps its relations by ordinals and reads them through a view
        # (``schema.RELATION_ROWS``): a relation is searched by its unit's keys, not the ref the view makes.
        self.packed_relations: bool = self.kind == "sqlite" and self._meta.get("schema_version") not in ("3", "4", "5", "6", "7", "8", "9")
        # A SQLite store of schema 11 keeps a label row's fold, not its normalised label (``schema.SQLITE_NAMES``): a label
        # is looked up by its fold and the rows read are checked against their entity's labels (``named_rows``).
        self.packed_names: bool = self.packed_relations and self._meta.get("schema_version") != "10"
        # ... and keeps a posting's term as the ordinal of the entity whose ID it is (``schema.TERM_KEY``).
        self.keyed_terms: bool = self.packed_names
        # ... and a SQLite store of 12 keeps a posting without its unit's columns (``schema.LEAN_POSTINGS``).
        self.lean_postings: bool = self.keyed_terms and self._meta.get("schema_version") != "11"
        # ... and finds a unit by its version's ``unit_base``, with no ``units_doc`` (``schema.UNIT_BASE``).
        self.based_units: bool = self.lean_postings
        # ... and a SQLite store of 13 keeps a posting's word that is no ID as its code (``schema.WORD_CODES``).
        self.coded_words: bool = self.lean_postings and self._meta.get("schema_version") != "12"
        self.term_sql: str = term_key(self.keyed_terms, self.coded_words)  # (a term given as text, as this store keeps it)
        self._labelled: dict[tuple[str, str | None], dict[str, Entity | None]] = {}
        self._hides_names: dict[str, bool] = {}
        self._narrows: dict[str, bool] = {}  # reader -> ``narrows_views``: asked by every ask, read from a JSON row
        self._lookups: dict[tuple[str | None, str | None], SQLNames] = {}
        self._views: dict[tuple[str | None, str], SQLView] = {}
        self._view_names: dict[tuple[str | None, str | None], str] = {}  # (requested view, reader) -> the view it names
        self._reader_views: dict[str, list[tuple[View, str]]] = {}  # reader -> their reduced catalog's views, each's name here
        self._worlds: dict[tuple[str, str, str | None], HopWorld] = {}
        self._asked_once: set[tuple[str, str, str | None]] = set()  # pairs whose first ask ran per lookup
        self._corpus: dict[tuple[str, ...], tuple[int, int]] = {}
        self._rows_cache: dict[str, RelRow | None] = {}
        self._entities: dict[str, Entity | None] = {}  # id -> record: the table has no per-reader rows
        self._readable: dict[str, frozenset[str]] = {}
        self._readers: dict[str, ReaderStore] = {}
        self._facts: dict[tuple[str, str, str | None], ViewFacts] = {}
        self._revisions: dict[str | None, str] = {}
        # Relation ids some query returned (``relations_by_id`` membership), each with its ordinal, by which a trace's
        # proofs read the relations its hops followed (``chainret.store.log.StoreLog.proofs``): a rowid, not an ID's index
        self._known_ords: dict[str, int] = {}
        self._names: NameIndex | None = None
        self._names_lock = threading.Lock()
        self.relations_by_id = _Relations(self)

    @property
    def location(self) -> str:
        return self.db.location

    def close(self) -> None:
        self.db.close()

    def read_scope(self, principal: str | None = None) -> AbstractContextManager[object]:
        """One request's reads on one connection in one transaction (``chainret.store.base.read_scope``)."""
        return self.db.read_scope(principal)

    def digest(self) -> str:
        return self._meta["digest"]

    def evidence_as(self, principal: str) -> EvidenceReader:
        """This store as ``trace verify`` reads cited text for a trace asked as ``principal``."""
        return EvidenceReader(self, principal)

    # -- identity history and freshness ------------------------------------------------------------------
    @cached_property
    def _identities(self) -> dict[int, dict[str, str]]:
        by_seq: dict[int, dict[str, str]] = {}
        for seq, principal, digest in cast("list[tuple[int, str, str]]", self.db.rows("SELECT seq, principal, digest FROM identities ORDER BY seq")):
            by_seq.setdefault(int(seq), {})[principal] = digest
        return by_seq

    def identity_history(self, viewer: str | None) -> list[str]:
        """The identities ``viewer`` was shown after each write, oldest first, repeats collapsed.

        None is the unprojected audit identity (the full catalog digest). A viewer no document named
        at some write was in the ``*`` class then.
        """
        out: list[str] = []
        for seq in sorted(self._identities):
            row = self._identities[seq]
            digest = row.get("") if viewer is None else row.get(viewer, row.get("*"))
            if digest is not None and (not out or out[-1] != digest):
                out.append(digest)
        return out

    def principals(self) -> frozenset[str]:
        """Every principal class the store recorded an identity for (the principals its documents name)."""
        return frozenset(p for classes in self.identities_ever().values() for p in classes if p not in ("", "*"))

    def identities_ever(self) -> dict[str, set[str]]:
        """Every identity the store ever recorded -> the principal classes it was shown to."""
        out: dict[str, set[str]] = {}
        for row in self._identities.values():
            for principal, digest in row.items():
                out.setdefault(digest, set()).add(principal)
        return out

    def revision(self, viewer: str | None) -> str:
        """The opaque revision ``viewer`` is answered from (changes only when that viewer's identity does)."""
        hit = self._revisions.get(viewer)  # a store object reads a snapshot: its identities do not change
        if hit is None:
            hist = self.identity_history(viewer)
            hit = self._revisions[viewer] = revision_token(len(hist), hist[-1] if hist else self.digest())
        return hit

    def generation(self) -> str:
        """A fresh (uncached) read that changes on every compile or update written to this store."""
        try:
            rows = self.db.rows("SELECT value FROM meta WHERE key = 'generation'")
        except Exception as exc:  # noqa: BLE001 - a store being replaced under us: report it as changed
            return f"unreadable:{type(exc).__name__}"
        return str(rows[0][0]) if rows else ""

    # -- catalog-wide records -----------------------------------------------------------------------
    @cached_property
    def patterns(self) -> list[Pattern]:
        from chainret.catalog.models import Pattern

        # Built unchecked (``TrustedModel``), as the views are: records the catalog's validation checked at compile.
        return [Pattern.model_construct(**json.loads(cast(str, b))) for (b,) in self.db.rows("SELECT body FROM patterns ORDER BY ord")]

    @cached_property
    def predicates(self) -> list[Predicate]:
        from chainret.catalog.models import Predicate

        words = ", words" if self.name_sources else ", ''"  # (a store of schema 5 or older kept no declared words)
        rows = cast("list[tuple[str, str, str, Literal['functional', 'many'], str, str]]",
                    self.db.rows(f"SELECT name, domain, range_, cardinality, description{words} FROM predicates ORDER BY ord"))
        return [Predicate.model_construct(name=n, domain=d, range=r, cardinality=c, description=s, **(json.loads(w) if w else {}))
                for n, d, r, c, s, w in rows]  # (unchecked, as the patterns)

    @cached_property
    def predicates_by_name(self) -> dict[str, Predicate]:
        return {p.name: p for p in self.predicates}

    @cached_property
    def views(self) -> list[View]:
        from chainret.catalog.models import View

        rows = cast("list[tuple[str, int, int, str, str]]",
                    self.db.rows("SELECT name, order_, current, documents, description FROM views ORDER BY ord"))
        # Built unchecked (``TrustedModel``): the rows are views the catalog's validation checked at compile.
        return [View.model_construct(name=n, order=o, current=bool(c), documents=json.loads(d), description=s)
                for n, o, c, d, s in rows]

    @cached_property
    def view_names(self) -> list[str]:
        return [str(r[0]) for r in self.db.rows("SELECT name FROM views ORDER BY ord")]

    @property
    def views_by_name(self) -> dict[str, View]:
        return {v.name: v for v in self.views}

    @property
    def current_view(self) -> View | None:
        name = self._meta.get("current_view")
        return self.views_by_name.get(name) if name else None

    @property
    def entities(self) -> list[Entity]:
        """Every entity, in catalog order (reads the whole table: graph export, not the ask path)."""
        return [_entity(r) for r in self.db.rows("SELECT id, type, name, aliases, description FROM entities ORDER BY ord")]

    def entity(self, entity_id: str) -> Entity | None:
        """The entity record (cached per store object: an answer's path names are read on every request,
        and the entity table is the same for every reader; what a reader may know is the view's check)."""
        try:
            return self._entities[entity_id]  # one lookup: another thread may clear the cache meanwhile
        except KeyError:
            pass
        rows = self.db.rows("SELECT id, type, name, aliases, description FROM entities WHERE id = ?", (entity_id,))
        return _bounded(self._entities, entity_id, _entity(rows[0]) if rows else None)

    def entities_of(self, ids: Sequence[str]) -> dict[str, Entity]:
        """``entity`` of each id that exists, those not yet cached read in one statement."""
        found: dict[str, Entity] = {}
        missing = []
        for i in dict.fromkeys(ids):
            try:
                hit = self._entities[i]  # one lookup: another thread may clear the cache meanwhile
            except KeyError:
                missing.append(i)
                continue
            if hit is not None:
                found[i] = hit
        if missing:
            read = {str(r[0]): _entity(r) for r in self.db.rows(
                f"SELECT id, type, name, aliases, description FROM entities WHERE id IN ({_marks(missing)})", missing)}
            for i in missing:
                e = _bounded(self._entities, i, read.get(i))
                if e is not None:
                    found[i] = e
        return found

    def label_key(self, text: str, col: str = "n") -> tuple[str, list[str | int]]:
        """The condition on a ``names`` row (alias ``col``) that ``text`` is one of its labels, and its parameters: its
        normalised form (``key``), behind the ``fold`` that form has (``fold_key``): a SQLite store keys ``names`` by
        (digits, flen, fold, key, ...) (schema 9; 7 and 8: by (fold, key, ...)) and keeps no index by ``key`` alone
        (``schema.SQLITE_PRIMARY``). Labels with one normalised form share one fold (``name_key`` removes what
        ``normalize_name`` collapses, and case folding is per character), so the fold narrows nothing the key would
        match. A schema-3 store has no ``fold``."""
        if not self._names_fold:
            return f"{col}.key = ?", [normalize_name(text)]
        fold, fp = fold_key(name_key(text), col, keyed=self.packed_names)
        if self.packed_names:  # (no key: the rows of the fold, checked by ``named_rows``)
            return fold, fp
        return f"{fold} AND {col}.key = ?", [*fp, normalize_name(text)]

    def label_columns(self, col: str = "n") -> str:
        """What ``named_rows`` reads of a ``names`` row (alias ``col``) after a statement's own columns, which hold its
        entity's ID, name and aliases (``named_rows``' ``at``): nothing, except in a store whose rows keep no label
        (``schema.SQLITE_NAMES``), where it is the row's document and, for a document's label, that document's name
        sources of the entity (NULL for everyone's label: the entity's own labels are the statement's)."""
        if not self.packed_names:
            return ""
        return (f", {col}.doc_id, CASE WHEN {col}.doc_id = '' THEN NULL ELSE (SELECT json_group_array(json_array(s.name, json(s.aliases))) "
                f"FROM name_sources s WHERE s.entity_ord = {col}.entity_ord AND s.doc_id = {col}.doc_id) END")

    def named_rows(self, rows: Sequence[Row], text: str, at: tuple[int, int, int] = (0, 2, 3)) -> list[Row]:
        """The rows of a statement of ``label_key`` and ``label_columns`` whose label row holds ``text``, without the
        columns ``label_columns`` added, once each, in their order (``at``: where the statement's own columns hold the
        entity's ID, name and aliases). In a store whose rows keep their label, every row: the statement compared it.
        Else the labels of the row are its document's, as ``schema.entity_rows`` wrote them: the entity row's for
        everyone's (``doc_id`` ''; its ID and name first, its aliases read only if neither is it), that document's name
        sources' for a document's (NULL: no source of that document, which no compile writes)."""
        if not self.packed_names:
            return list(rows)
        want = normalize_name(text)
        i, n, a = at
        out: dict[Row, None] = {}
        for r in rows:
            doc_id, sources = r[-2], r[-1]
            if doc_id == "":
                hit = declares((as_str(r[i]), as_str(r[n])), want) or declares(json.loads(as_str(r[a])), want)
            else:
                hit = declares((x for s_name, s_aliases in json.loads(sources if isinstance(sources, str) else "[]")
                                for x in (s_name, *s_aliases)), want)
            if hit:
                out.setdefault(r[:-2])
        return list(out)

    def name_lookup(self) -> NameLookup:
        """The tolerant name lookups (``chainret.catalog.names``): indexed queries on ``names`` (schema 4).

        A schema-3 store has no lookup columns: the index is built once per store object from the entity
        table's labels (no entity models; slow at 1M entities: recompile the store)."""
        if self._meta.get("schema_version") != "3":
            hit = self._lookups.get((None, None))  # (one object: it remembers the words it was asked, ``has_word``)
            if hit is None:
                hit = self._lookups[(None, None)] = SQLNames(self)
            return hit
        with self._names_lock:
            if self._names is None:
                rows = self.db.rows("SELECT id, type, name, aliases FROM entities ORDER BY ord")
                with paused_gc():
                    self._names = NameIndex(entries_from_rows(cast("list[tuple[str, str, str, str]]", rows)), self.entity)
            return self._names

    # -- the labels a reader is shown (``schema.entity_rows``; ``Entity.as_read_by``) -----------------------
    def name_words(self, type_: str, word: str) -> tuple[int, list[int]] | None:
        """The ``name_words`` row of a word (``chainret.store.namewords``): None where the store keeps none (PostgreSQL)."""
        return None

    def label_condition(self, col: str, principal: str, within: str | None = None) -> tuple[str, tuple[str, ...]]:
        """`` AND`` ``LABEL`` on ``col`` (a ``doc_id``) for the principal and the narrower viewer, with parameters
        (nothing for a store that keeps no name sources)."""
        if not self.name_sources:
            return "", ()
        if within is None or within == principal:
            return " AND " + LABEL.format(col=col), (principal,)
        return " AND " + LABEL.format(col=col) + " AND " + LABEL.format(col=col), (principal, within)

    @cached_property
    def holds_sources(self) -> bool:
        """Does any entity have name sources? (None: every entity is shown as stored, no statement per lookup.) Read from
        tables every login sees whole: ``label_readers`` and the everyone's rows of ``name_sources``."""
        return self.name_sources and bool(
            self.db.rows("SELECT 1 FROM label_readers LIMIT 1") or self.db.rows("SELECT 1 FROM name_sources WHERE doc_id = '' LIMIT 1"))

    def label_lookup(self, principal: str, within: str | None = None) -> NameLookup:
        """The tolerant name lookups as ``principal`` (within a narrower viewer) knows the names."""
        if not self.holds_sources:
            return self.name_lookup()
        key = (principal, within)
        hit = self._lookups.get(key)
        if hit is None:
            hit = self._lookups[key] = SQLNames(self, principal, within)
        return hit

    def hides_names(self, reader: str) -> bool:
        """True when some label comes only from documents ``reader`` may not read (``readable.hides_names``):
        their requests run over their reduced catalog (``ReaderStore``)."""
        hit = self._hides_names.get(reader)
        if hit is None:
            hit = False
            if self.name_sources:
                hit = bool(self.db.rows(
                    "SELECT 1 FROM label_readers lr WHERE NOT EXISTS (SELECT 1 FROM label_readers l2 WHERE l2.doc_id = lr.doc_id "
                    "AND l2.principal IN ('*', ?)) LIMIT 1", (reader,)))
            self._hides_names[reader] = hit
        return hit

    def labelled(self, ids: Sequence[str], principal: str, within: str | None = None) -> dict[str, Entity]:
        """``entities_of(ids)`` with the labels ``principal`` (within a narrower viewer) is shown: an importer's
        entity with ``merge_sources`` of the sources they may read (``Entity.as_read_by``), else as stored."""
        found = self.entities_of(ids)
        if not found or not self.holds_sources:
            return found
        cache = self._labelled.setdefault((principal, within), {})
        out: dict[str, Entity] = {}
        missing = []
        for i in found:
            try:
                hit = cache[i]  # one lookup: another thread may clear the cache meanwhile
            except KeyError:
                missing.append(i)
                continue
            out[i] = hit if hit is not None else found[i]
        if missing:
            label, lp = self.label_condition("s.doc_id", principal, within)
            rows = cast("list[tuple[str, str, str, str, str, int | None]]", self.db.rows(
                "SELECT e.id, s.doc_id, s.name, s.aliases, s.description, s.since FROM name_sources s JOIN entities e ON e.ord = s.entity_ord "
                f"WHERE e.id IN ({_marks(missing)}){label} ORDER BY s.entity_ord, s.seq", (*missing, *lp), None, principal))
            sources: dict[str, list[NameSource]] = {}
            for i, doc, name, aliases, description, since in rows:
                sources.setdefault(i, []).append(NameSource.model_construct(
                    document=doc, name=name, aliases=json.loads(aliases), description=description, since=since))
            for i in missing:
                seen = sources.get(i)
                shown = None
                if seen:
                    base = found[i]
                    name, merged, description = merge_sources(seen)
                    shown = Entity.model_construct(id=base.id, type=base.type, name=name or base.id, aliases=merged,
                                                   description=description, declared_in=seen)
                _bounded(cache, i, shown)
                out[i] = shown if shown is not None else found[i]
        return {i: out[i] for i in found}

    # -- what a reader may read (chainret.catalog.readable asks a store these) ----------------------------
    def readable_docs(self, reader: str) -> frozenset[str]:
        """Refs of every document version ``reader`` may read, any view (cached)."""
        hit = self._readable.get(reader)
        if hit is None:
            readable = "FROM document_meta m JOIN readers rd ON rd.doc_ord = m.ord WHERE rd.principal IN ('*', ?)"
            if self.kind == "sqlite":  # one row, the refs joined by a newline (no ref holds whitespace: ``DOC_REF_RE``):
                # a row per ref cost a cold ask of a 1M-relation store twice as much (20,000 rows, built one by one)
                (joined,), = self.db.rows(f"SELECT group_concat(m.ref, char(10)) {readable}", (reader,))
                hit = frozenset(str(joined).split("\n")) if joined is not None else frozenset()
            else:
                hit = frozenset(str(r[0]) for r in self.db.rows(f"SELECT m.ref {readable}", (reader,)))
            self._readable[reader] = hit
        return hit

    def reader_store(self, reader: str) -> ReaderStore:
        """This catalog as ``reader`` may read it (``reader_catalog``): documents ``reader`` may not read removed."""
        hit = self._readers.get(reader)
        if hit is None:
            hit = self._readers[reader] = ReaderStore(self, reader)
        return hit

    def reader_digest(self, reader: str) -> str:
        """The catalog identity shown to ``reader`` (the digest of its reader catalog, computed at compile)."""
        return self._meta.get(f"reader_digest:{reader}") or self._meta["reader_digest:*"]

    def doc_ords(self, refs: Sequence[str]) -> dict[str, int]:
        """The ordinals of the document versions among ``refs`` that exist: what ``schema.units_by_ref`` finds a unit by.

        Looked up, until the store object reads every version's once (``read_doc_ords``, with a (view, principal)
        pair's view facts: the second ask of a process that asks more than once); then from memory, and a version
        written since by a lookup (a store only appends: a version's ordinal never changes). Reading every version
        (``document_meta``: 20k rows at 1M relations) cost a one-ask process, a cold ``chainret ask``, 34 ms, where
        its few lookups cost 0.1 ms each."""
        known = self.__dict__.get("_doc_ords")
        if known is None:
            return doc_ords_of(self.db.rows, refs)
        missing = [r for r in refs if r not in known]
        if missing:
            known.update(doc_ords_of(self.db.rows, missing))
        return {r: known[r] for r in refs if r in known}

    def read_doc_ords(self) -> None:
        """Read every document version's ordinal once (``doc_ords``)."""
        if "_doc_ords" not in self.__dict__:
            self._doc_ords = {as_str(r): as_int(o) for r, o in self.db.rows("SELECT ref, ord FROM document_meta")}

    def doc_ref_of(self, doc_ord: int) -> str | None:
        """A document version's ref by its ordinal (cached)."""
        if not hasattr(self, "_doc_refs"):
            self._doc_refs: dict[int, str] = {}
        hit = self._doc_refs.get(doc_ord)
        if hit is None:
            rows = self.db.rows("SELECT ref FROM document_meta WHERE ord = ?", (doc_ord,))
            hit = str(rows[0][0]) if rows else None
            if hit is not None:
                _bounded(self._doc_refs, doc_ord, hit)
        return hit

    @property
    def documents(self) -> list[DocumentMeta]:
        """Every document version's ref and visibility (no text; what ``holds_restricted`` reads)."""
        rows = cast("list[tuple[str, str]]", self.db.rows("SELECT ref, visibility FROM document_meta ORDER BY ord"))
        return [_DocumentMeta(r, v) for r, v in rows]

    @cached_property
    def documents_by_ref(self) -> _Documents:
        return _Documents(self)

    def document_visibility(self, refs: Sequence[str]) -> dict[str, str]:
        """The visibility of each of ``refs`` the store holds, read by its indexed ref (``document_meta_ref``): what
        ``holds_restricted`` asks of the few refs a trace cites, never a read of every document row."""
        want = list(dict.fromkeys(refs))
        if not want:
            return {}
        rows = cast("list[tuple[str, str]]", self.db.rows(f"SELECT ref, visibility FROM document_meta WHERE ref IN ({_marks(want)})", want))
        return {str(r): str(v) for r, v in rows}

    def unit(self, ref: str) -> Unit | None:
        """A unit by ref, readable or not (where the database lets this connection read it)."""
        named, np = units_by_ref([ref], self.doc_ords, based=self.based_units)
        rows = self.db.rows(f"SELECT {UNIT_COLS} FROM units u WHERE {named}", np)
        return _unit(rows[0]) if rows else None

    # -- views ------------------------------------------------------------------------------------------
    def view(self, name: str | None, principal: str = "public") -> SQLView:
        """The view (None = the current one) for the principal; one object per (view, principal), cached. The
        whole store's views: a reader's reduced catalog (``reader_store``) resolves among its own (``view_name_for``)."""
        chosen = self.view_name_for(name, None)
        hit = self._views.get((chosen, principal))
        if hit is None:
            hit = self._views[(chosen, principal)] = SQLView(self, chosen, principal)
        return hit

    def view_name_for(self, name: str | None, reader: str | None) -> str:
        """The view ``name`` (None: the current one; a date or a commit) names among the views ``reader``'s reduced
        catalog has (``chainret.catalog.readable.reader_views``, as a catalog held in memory resolves it); None: all."""
        key = (name, reader)
        hit = self._view_names.get(key)
        if hit is not None:
            return hit
        # the reader's views with each one's name here (``reader_view_names``): kept by the compile, else worked out
        pairs = None if reader is None else self._kept_reader_views(reader) or self._reader_view_pairs(reader)
        views = list(self.views) if pairs is None else [v for v, _ in pairs]
        if name is None:
            current = next((v for v in views if v.current), None)
            if current is None and reader is not None:  # the latest of the reader's views (``Catalog.current_view``)
                current = max(views, key=lambda v: v.order, default=None)
            chosen = current.name if current is not None else self._meta.get("current_view")
            if not chosen:
                raise UsageError(f"catalog world {self.world!r} declares no views")
        else:
            from chainret.catalog.views import pick_view

            chosen = pick_view(views, name).name  # a name, a date or a commit, with find_view's messages
        if pairs is not None:  # the name the store reads by (a reader may be shown another)
            chosen = {v.name: n for v, n in pairs}.get(chosen, chosen)
        self._view_names[key] = chosen
        return chosen

    def reader_view_names(self, reader: str) -> dict[str, str]:
        """The name each of ``reader``'s views is shown by -> its name in the store (``readable.reader_view_names``)."""
        return {v.name: name for v, name in self._reader_view_pairs(reader)}

    def reader_views(self, reader: str) -> list[View]:
        """The views of ``reader``'s reduced catalog (a view a change they may not read added is not among them)."""
        return [v for v, _ in self._reader_view_pairs(reader)]

    def narrows_views(self, reader: str) -> bool:
        """Whether ``reader``'s reduced catalog leaves a view out (``readable.reader_narrowed``): once per reader (every
        ask asks; the kept row's JSON and a model a view cost about 18 us an ask, peers page, issue 47)."""
        hit = self._narrows.get(reader)
        if hit is None:
            hit = self._narrows[reader] = len(self._kept_reader_views(reader) or self._reader_view_pairs(reader)) != len(self.view_names)
        return hit

    def _kept_reader_views(self, reader: str) -> list[tuple[View, str]] | None:
        """``reader``'s views as the compile kept them for resolving one (``meta`` ``reader_views:CLASS``: name, order
        and current mark only; a principal no restricted document names reads as ``*``), None in a store compiled
        before it kept them (then ``_reader_view_pairs`` works them out)."""
        raw = self._meta.get(f"reader_views:{reader}") or self._meta.get("reader_views:*")
        if raw is None:
            return None
        return [(View.model_construct(name=shown, order=order, current=current, documents=[], description=""), name)
                for shown, name, order, current in json.loads(raw)]

    def _reader_view_pairs(self, reader: str) -> list[tuple[View, str]]:
        """``readable.reader_view_pairs`` once per reader (both of the above: a pass over every view's documents,
        14 ms of a cold ask of a 1M-relation store, which resolving a view asked twice)."""
        hit = self._reader_views.get(reader)
        if hit is None:
            from chainret.catalog.readable import reader_view_pairs

            hit = self._reader_views[reader] = reader_view_pairs(list(self.views), self.readable_docs(reader))
        return hit

    def corpus(self, view: str, principal: str, within: str | None = None) -> tuple[int, int]:
        """(readable units, their total token count) for the view and principal (within a narrower viewer)."""
        key = (view, principal) if within is None else (view, principal, within)
        hit = self._corpus.get(key)
        if hit is None and within is not None:  # not precomputed: one pass over the view's units, then cached
            rows = self.db.rows(
                "SELECT count(*), sum(u.ntok) FROM units u WHERE " + READABLE.format(col="u.doc_ord") + WITHIN.format(col="u.doc_ord"),
                (view, principal, within), view, principal,
            )
            hit = self._corpus[key] = (int(cast(int, rows[0][0]) or 0), int(cast(int, rows[0][1]) or 0))
        if hit is None:
            rows = self.db.rows(  # as the principal: PostgreSQL shows a role the figures of its own class only
                "SELECT principal, size, total_len FROM corpus WHERE view_name = ? AND principal IN ('*', ?)",
                (view, principal), None, principal,
            )
            by = {p: (int(s), int(t)) for p, s, t in cast("list[tuple[str, int, int]]", rows)}
            hit = self._corpus[key] = by.get(principal) or by.get("*") or (0, 0)
        return hit

    def hop_world(self, view: ViewReader) -> HopWorld:
        """The engine's input for (view, principal), backed by this store's queries (cached)."""
        if not isinstance(view, SQLView):
            raise TypeError(f"a SQL store runs the hops of its own views, not of {type(view).__name__}")
        key = (view.view_name, view.principal, view.within)
        hit = self._worlds.get(key)
        if hit is None:
            functional = functional_names(self.predicates)
            index = StoreIndex(self, view.view_name, view.principal, prefetch=view.prefetch, within=view.within)
            one = self.hop_query if self.hop_query is not None else self.kind == "sqlite"
            first = one and self.hop_query is None and key not in self._asked_once and key not in self._facts
            if first:
                self._asked_once.add(key)
            reader: HopReader = (  # one statement per hop, or one lookup per read
                HopQuery(view, index, self.view_facts(*key), functional, self, postings=self.postings_unit)
                if one and not first else ViewHopReader(view, index, functional, self)
            )
            hit = HopWorld(reader)
            if not first:  # (a first ask's world is not kept: the pair's next ask reads the facts)
                self._worlds[key] = hit
        return hit

    @cached_property
    def postings_unit(self) -> str:
        """What a SQLite store's postings hold of their unit, for the hop statement (``chainret.store.hopquery``): its
        index in its document version (``idx``, schema 8), its ref (``ref``, 5 to 7), or neither (``joined``, 3 and 4:
        each posting is joined to its unit). Read from the table, as the hop statement reads it; ``keyed``: its index, and
        an ID kept as its entity's ordinal (``schema.TERM_KEY``, schema 11); ``lean``: an ID kept so, and no unit column
        (``schema.LEAN_POSTINGS``, schema 12: joined to its unit); ``coded``: that, and a word kept by its code
        (``schema.WORD_CODES``, schema 13)."""
        columns = {str(r[1]) for r in self.db.rows("PRAGMA table_info(postings)")}
        if "doc_ord" not in columns:
            return "coded" if self.coded_words else "lean"
        return ("keyed" if self.keyed_terms else "idx") if "idx" in columns else "ref" if "ref" in columns else "joined"

    def view_facts(self, view: str, principal: str, within: str | None = None) -> ViewFacts:
        """The permission and status facts of (view, principal, narrower viewer), read once per store object
        (a store is immutable between generations: an update or a revocation opens a fresh one)."""
        key = (view, principal, within)
        hit = self._facts.get(key)
        if hit is None:
            hit = self._facts[key] = view_facts(self, view, principal, within)
            self.read_doc_ords()  # (a pair's second ask: this object serves more than one, ``doc_ords``)
        return hit

    # -- relation rows -----------------------------------------------------------------------------------
    def _relation_row(self, rid: str) -> RelRow | None:
        """The record's columns (``REL_COLS``) and its quote where readable without a view (cached)."""
        try:
            return self._rows_cache[rid]  # one lookup: another thread may clear the cache meanwhile
        except KeyError:
            pass
        rows = rel_rows(self.db.rows(
            f"SELECT {REL_COLS}, {QUOTE} FROM relations r WHERE r.id = ?", (rid,)
        ))
        return _bounded(self._rows_cache, rid, rows[0] if rows else None)

    def _relation_model(self, row: RelRow) -> Relation:
        return relation_of(row)


def _conforms(store: SQLStore) -> CatalogReader:
    """(For mypy: a SQL store is a CatalogReader.)"""
    return store
