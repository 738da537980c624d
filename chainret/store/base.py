"""The store interface under the engine: what ``ask`` and its helpers read from a catalog.

The hop engine and its callers (interpretation, coverage, projection, replay, text routes) read a
catalog through one (view, principal) at a time. A store answers exactly these questions:

* **catalog facts**: ``world``, ``digest()`` (the catalog digest a trace records), the patterns and
  predicates, the views and which one is current;
* **view facts** (``view(name, principal)`` -> a ``StoreView``): which document versions and units
  the principal may read in the view, the status of a relation in the view (``relation_status``,
  the codes of ``chainret.catalog.views``), entity resolution by canonical ID / name / alias
  (``resolve``), one entity, one unit, a relation's supporting unit;
* **hop facts** (``hop_world(view)`` -> a ``HopWorld`` over the store's ``HopReader``,
  ``chainret.engine.reader``): BM25Plus search over exactly the units the principal may read in the
  view (scores, ranks and tie order equal to ``LexicalIndex`` over the same units), the relations
  supported in a returned unit and the relations of a (subject, predicate), each with its view flags
  (``chainret.store.caches.relation_flags``).

Three implementations: ``MemoryStore`` (a loaded ``chainret.catalog.models.Catalog``, its views and
hop worlds cached in a session by ``chainret.store.caches``), an embedded SQLite file (``SQLiteStore``) and
PostgreSQL (``PostgresStore``). The two SQL stores share one schema and one query layer
(``chainret.store.sql``); each hop is one bounded, indexed query. ``chainret.store.resolve_catalog``
turns a catalog argument into one of them, once, at the edge; below it everything reads a
``CatalogReader``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from chainret.core.codes import NOT_CURRENT, NOT_READABLE
from chainret.core.errors import EXIT_ENVIRONMENT, ChainretError

if TYPE_CHECKING:  # the protocols name these; importing them here would load the engine with every store command
    from chainret.catalog.models import Entity, Pattern, Predicate, Relation, SourceDocument, Unit, View
    from chainret.catalog.views import Eligibility
    from chainret.engine.hops import HopWorld
    from chainret.catalog.names import NameLookup

#: Bumped whenever the tables change; a store written by another schema is refused with a message.
SCHEMA_VERSION = 13
#: Older schemas this chainret still reads (not updates): 3 has no name-lookup columns (``names.fold``, ...),
#: so tolerant name lookups build their index in memory from the entity table (slow at 1M entities); 3 and 4
#: have no unit columns on ``postings`` (``ntok``, ``ref``), so a hop joins each posting to its unit; 3 to 5 keep
#: no name sources (``names.doc_id``, ``name_sources``): every label is everyone's there, as before (recompile).
#: 6 holds what 7 holds; a SQLite store of 7 keys ``names`` by its fold and keeps fewer indexes (issue 47: its size),
#: so its label lookups ask for the fold (``SQLStore.label_key``), which a store of 6 answers by its ``names_key``.
#: 7 holds what 8 holds; a SQLite store of 8 leaves out of a relation's row what its document version's rows hold
#: (``chainret.store.schema``), which the readers put back, and a row of 7 holds it all, read by the same statements.
#: 8 holds what 9 holds; a SQLite store of 9 keys ``names`` by its fold's digits and length first and keeps no
#: ``names_near`` (``schema.SQLITE_PRIMARY``): its label lookups name the digits and length too, which 8 reads by its fold.
#: 9 holds what 10 holds; a SQLite store of 10 keeps its relations by their entities' and predicates' ordinals and reads
#: them through a view (``schema.RELATION_ROWS``): a relation is searched by its unit's version and index, where 9
#: searched by the unit's ref (``SQLStore.packed_relations``).
#: 10 holds what 11 holds; a SQLite store of 11 keeps a label row's fold without its normalised label
#: (``schema.SQLITE_NAMES``): a label's rows are checked against their entity's labels, where 10 compared the key.
#: 11 holds what 12 holds; a SQLite store of 12 keeps a posting without its unit's version, index and token count
#: (``schema.SQLITE_TABLES``): a hop reads them from the unit's row, where 11 read them from the posting.
#: 12 holds what 13 holds; a SQLite store of 13 keeps an entity's type and a posting's word by code (``schema.ENTITY_ROWS``,
#: ``schema.WORD_CODES``) and its units without their NULL columns, read through views: a hop names a word by its code.
READABLE_SCHEMAS = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
STORE_FORMAT = "chainret-store"


class StoreError(ChainretError):
    """A store cannot be opened or written: not a chainret store, an older schema, not append-only (exit 2)."""


def recompile_advice(path: object = "STORE") -> str:
    """The one wording of what to do about a store that must be rebuilt: the command, with its path where the
    caller knows it. ``--replace``, because the store is there and compile refuses to overwrite one without it."""
    return f"recompile the store: chainret catalog compile CATALOG --out {path} --replace"


class StoreChanged(StoreError):
    """The store was replaced after this store object was opened (a SQLite file renamed over): reopen it.

    A server answers such a request again from the reopened store (``chainret.server.service``)."""


class StoreUnavailable(StoreError):
    """The database server does not answer (exit 3: an environment problem, not the input)."""

    exit_code = EXIT_ENVIRONMENT


class CatalogRecords(Protocol):
    """The catalog-wide records a view's catalog offers (a ``Catalog``, a SQL store, a reader store)."""

    @property
    def world(self) -> str: ...

    @property
    def patterns(self) -> Sequence[Pattern]: ...

    @property
    def predicates(self) -> Sequence[Predicate]: ...

    @property
    def predicates_by_name(self) -> Mapping[str, Predicate]: ...

    @property
    def views(self) -> Sequence[View]: ...

    @property
    def views_by_name(self) -> Mapping[str, View]: ...

    @property
    def current_view(self) -> View | None: ...

    @property
    def relations_by_id(self) -> Mapping[str, Relation]: ...

    def digest(self) -> str: ...


@runtime_checkable
class ViewReader(Protocol):
    """One catalog seen through one view by one principal: everything the engine, interpretation,
    coverage, projection and the text route read of it (``CatalogView``, ``SQLView``)."""

    principal: str

    @property
    def view_name(self) -> str: ...  # the store's name of the view (what it reads by)

    @property
    def shown_name(self) -> str: ...  # the name the catalog's reader is shown (``readable.reader_view_names``)

    @property
    def catalog(self) -> CatalogRecords: ...

    def resolve(self, text: str, type: str | None = None) -> list[Entity]: ...  # noqa: A002

    def knows(self, entity_id: str) -> bool: ...

    def name_lookup(self) -> NameLookup: ...  # tolerant name candidates (chainret.catalog.names), catalog-wide

    def entity(self, entity_id: str) -> Entity | None: ...

    def entities_of(self, ids: Sequence[str]) -> dict[str, Entity]: ...  # ``entity`` of each that exists, read together

    def predicate(self, name: str) -> Predicate | None: ...

    def unit(self, ref: str) -> Unit | None: ...

    def units(self) -> list[Unit]: ...

    def unit_texts(self) -> list[tuple[str, str]]: ...

    def documents(self) -> list[SourceDocument]: ...

    def relations(self) -> list[Relation]: ...

    def relation_status(self, relation: Relation | str) -> Eligibility: ...

    def eligible_relations(self) -> list[Relation]: ...

    def supporting_unit(self, relation: Relation | str) -> Unit | None: ...

    def relations_in_unit(self, unit_ref: str) -> list[Relation]: ...

    def current_relations(self, subject: str, predicate: str) -> list[Relation]: ...


StoreView = ViewReader  # the earlier name


class DocumentMeta(Protocol):
    """A document version's ref and visibility (what an audit trace's "holds restricted" check reads)."""

    @property
    def ref(self) -> str: ...

    @property
    def visibility(self) -> str: ...


@runtime_checkable
class CatalogReader(CatalogRecords, Protocol):
    """A catalog as the library reads it: what ``chainret.pipeline.ask``, projection, replay and the servers use.

    ``chainret.store.resolve_catalog`` turns a ``--catalog`` argument (a path, a URL, a ``Catalog``)
    into one, once, at the edge: ``MemoryStore`` (a loaded catalog), ``SQLiteStore``, ``PostgresStore``
    (and a reader store: the catalog as one reader may read it).
    """

    @property
    def location(self) -> str: ...

    @property
    def documents(self) -> Sequence[DocumentMeta]: ...

    def document_visibility(self, refs: Sequence[str]) -> dict[str, str]: ...  # ref -> visibility, of those it holds

    @property
    def entities(self) -> Sequence[Entity]: ...

    def view(self, name: str | None, principal: str = "public") -> ViewReader: ...

    def hop_world(self, view: ViewReader) -> HopWorld: ...

    def readable_docs(self, reader: str) -> frozenset[str]: ...

    def principals(self) -> frozenset[str]: ...  # every principal a document version names (not '*')

    def reader_store(self, reader: str) -> CatalogReader: ...

    def reader_digest(self, reader: str) -> str: ...

    def revision(self, viewer: str | None) -> str: ...

    def read_scope(self, principal: str | None = None) -> AbstractContextManager[object]: ...

    def close(self) -> None: ...


Store = CatalogReader  # the earlier name


def reads_within(catalog: CatalogReader, reader: str, other: str) -> bool:
    """True when every document version ``reader`` may read is readable by ``other`` as well."""
    return reader == other or catalog.readable_docs(reader) <= catalog.readable_docs(other)


def wait_for_lock(try_acquire: Callable[[], bool], wait_s: float, busy: str) -> None:
    """Poll ``try_acquire`` until it succeeds; after ``wait_s`` seconds refuse with ``busy`` (what holds the lock).

    Both stores' writers wait this way (a bounded wait, then a clear refusal, nothing written) rather
    than block forever behind a writer that never finishes.
    """
    deadline = time.monotonic() + wait_s
    while not try_acquire():
        if time.monotonic() >= deadline:
            raise StoreError(f"another chainret command is writing {busy} for over {wait_s:g} s; "
                             "nothing was written: try again when it has finished")
        time.sleep(0.05)


def revision_token(history_length: int, digest: str) -> str:
    """The opaque revision a viewer is shown: ``<n>.<hex>``, n = how many identities that viewer has seen."""
    return f"{history_length}.{digest.rpartition(':')[2][:16]}"


def revision_number(token: str) -> int:
    """The ``n`` of a revision token (compare freshness with it); ValueError for anything else."""
    head, dot, tail = token.partition(".") if isinstance(token, str) else ("", "", "")
    if not dot or not head.isdigit() or not tail or len(token) > 80 or not all(c in "0123456789abcdef" for c in tail):
        raise ValueError(f"not a catalog revision: {token!r} (expected <number>.<hex>, as a response's 'revision' field)")
    return int(head)


def is_store(obj: object) -> bool:
    """True for a store object (``MemoryStore``, ``SQLiteStore``, ``PostgresStore``), not a bare Catalog."""
    return getattr(obj, "is_chainret_store", False) is True


def view_codes(reasons: Sequence[str]) -> tuple[bool, bool]:
    """(current, readable) from a relation's status reasons, as ``relation_flags`` derives them."""
    return (
        not any(r in NOT_CURRENT for r in reasons),
        not any(r in NOT_READABLE for r in reasons),
    )


def read_scope(catalog: CatalogReader, principal: str | None = None) -> AbstractContextManager[object]:
    """One read transaction for a whole request by ``principal`` where the store has them (PostgreSQL), else nothing.

    ``chainret.pipeline.ask`` wraps each ask in it, so the principal's role and the view are set once per ask
    instead of once per statement; a catalog in memory or an SQLite file has no such scope.
    """
    return catalog.read_scope(principal)
