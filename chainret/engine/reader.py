"""What the hop engine reads of a catalog: the reads (``HopReader``), the relation record they return (``Rel``),
a set hop's count (``Census``), and the reader over a plain list of relations (``RelationList``).

The engine (``chainret.engine.hops``) never opens a catalog: it reads one view for one principal through
these methods, and every one of them answers as the *projection* would, the catalog with every document the
principal may not read (in that view, within a narrower viewer) deleted. A reader may flag a relation
(current, readable, valid, why not), but it never decides whether a relation advances a hop: ``HopWorld``
re-derives each usable relation's statement from its quote (``chainret.catalog.statement``) whatever the
reader's flags say, so an edited store row cannot advance a hop.

Readers: ``RelationList`` here (a list of ``Rel`` values: tests and random worlds; ``IndexedReader`` its reads over an index),
``chainret.store.caches.CatalogHopReader`` (the in-memory catalog, flags computed for the relations a request
touches), ``chainret.store.sqlview.ViewHopReader`` and ``chainret.store.hopquery.HopQuery`` (SQLite: one lookup
per read, or one statement per hop), ``chainret.store.postgres.HopStatement`` (PostgreSQL, one statement per hop).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

from chainret.engine.search import LexicalIndex, SearchHit, SearchIndex
from chainret.trace.model import Anchor

if TYPE_CHECKING:
    from chainret.catalog.models import Entity


class Rel(NamedTuple):
    """A relation record as seen in one view by one principal: its triple, its support, its flags.

    ``support`` is the anchor a transition over this relation would record; its ``unit_ref`` is ""
    when no unit of the view contains the supporting span.
    """

    id: str
    subject: str
    predicate: str
    object: str
    support: Anchor
    current: bool = True  # its supporting document version is the one in the view
    readable: bool = True  # the principal may read its support in the view
    valid: bool = True  # digest, span and clause check out
    why_not: str | None = None  # short reason when not usable (for the trace)

    @property
    def unit_ref(self) -> str | None:
        """The unit whose offsets contain the supporting span (None: no such unit in the view)."""
        return self.support.unit_ref or None

    @property
    def usable(self) -> bool:
        return self.current and self.readable and self.valid and self.unit_ref is not None

    def anchor(self) -> Anchor:
        assert self.unit_ref is not None
        return self.support


class Census(NamedTuple):
    """What a many-valued hop's completeness check found among the usable relations of (subject, predicate)
    whose object is not on the path: ``eligible`` distinct objects, ``left`` of them not followed, and the relations
    of those left whose unit this hop's search did not return (``missing``: the first ``chainret.engine.hops.SHOWN`` ids by id, of
    ``n_missing``)."""

    eligible: int
    left: int
    missing: tuple[str, ...]
    n_missing: int



class HopReader(Protocol):
    """The reads of one (view, principal) that the hop engine makes. Every method obeys the projection rule:
    a unit, relation or entity of a document the principal may not read in the view is not there (a relation
    of such a document may be returned only flagged ``readable=False``, so that the audit can say it was
    withheld; it is never usable). Relation lists are in relation-id order, so that traces are reproducible."""

    @property
    def index(self) -> LexicalIndex | SearchIndex:
        """The readable units, indexed (BM25Plus): the text routes search it (``chainret.pipeline.baselines``)."""
        ...

    @property
    def functional(self) -> frozenset[str]:
        """The catalog's functional predicates: a hop over one checks the subject's opposing assignments."""
        ...

    def search(self, node: str, predicate: str, k: int, stating_first: bool) -> list[SearchHit]:
        """A hop's search: the top ``k`` readable units for the exact ID ``node``, as ``index.search([node], k)``
        ranks them (``stating_first``, trace schema 1.1: as ``index.hop_search(node, predicate, k)``). A store may
        read the hop's other lookups in the same statement; the hits must be the same, scores bit-identical."""
        ...

    def readable(self, ref: str) -> bool:
        """Whether the unit ``ref`` is one the principal may read in the view (``in_unit`` is empty where not)."""
        ...

    def in_unit(self, ref: str) -> Sequence[Rel]:
        """The relations supported inside unit ``ref``, by id, flagged; none for a unit the principal may not read."""
        ...

    def hop_relations(self, ref: str, subject: str, predicate: str) -> Sequence[Rel]:
        """A hop's candidates in unit ``ref`` (one its search returned): ``in_unit(ref)``, or only the relations of
        (``subject``, ``predicate``) there where the store's hop statement read just those (the hop skips the others)."""
        ...

    def of_subject(self, subject: str, predicate: str) -> Sequence[Rel]:
        """Every relation of (``subject``, ``predicate``) current in the view, by id, flagged (the catalog-level
        checks: opposing assignments, relations supported elsewhere, withheld ones)."""
        ...

    def entity(self, entity_id: str) -> Entity | None:
        """The entity record with its declared names, or None: a prose quote must name both ends by them."""
        ...

    def census(self, subject: str, predicate: str, on_path: Sequence[str], followed: Sequence[str],
               returned: Sequence[str]) -> Census | None:
        """A many-valued hop's completeness count (``chainret.engine.hops.count_census`` of ``of_subject``), where the
        store counts it in one aggregate statement; None: the reader declines (the engine counts ``of_subject``)."""
        ...


class IndexedReader:
    """What a reader over a ``LexicalIndex`` of the readable units shares (``RelationList``, the in-memory catalog's
    ``chainret.store.caches.CatalogHopReader``): the index's search, readable = held by the index, a hop's candidates
    = the unit's relations, the census counted by the engine. A subclass gives ``in_unit``, ``of_subject``, ``entity``."""

    def __init__(self, index: LexicalIndex, functional: frozenset[str]) -> None:
        self._index = index
        self._functional = functional
        self._refs = frozenset(index.refs)

    @property
    def index(self) -> LexicalIndex:
        return self._index

    @property
    def functional(self) -> frozenset[str]:
        return self._functional

    def search(self, node: str, predicate: str, k: int, stating_first: bool) -> list[SearchHit]:
        if stating_first:
            return list(self._index.hop_search(node, predicate, k))
        return list(self._index.search([node], k=k))

    def readable(self, ref: str) -> bool:
        return ref in self._refs

    def in_unit(self, ref: str) -> Sequence[Rel]:
        raise NotImplementedError

    def hop_relations(self, ref: str, subject: str, predicate: str) -> Sequence[Rel]:
        return self.in_unit(ref)

    def census(self, subject: str, predicate: str, on_path: Sequence[str], followed: Sequence[str],
               returned: Sequence[str]) -> Census | None:
        return None  # counted by the engine over ``of_subject``


class RelationList(IndexedReader):
    """A ``HopReader`` over a full list of ``Rel`` values and an index of the readable units (tests, small worlds).

    A unit is readable when the index holds it; ``entities`` (id -> record) are the names prose quotes are checked
    against (none by default: a prose quote then states nothing, whatever its flags say).
    """

    def __init__(self, index: LexicalIndex, relations: Sequence[Rel] = (), functional: frozenset[str] = frozenset(),
                 entities: Mapping[str, Entity] | None = None) -> None:
        super().__init__(index, functional)
        self.relations = relations
        self._entities: Mapping[str, Entity] = entities or {}
        self._by_unit: dict[str, list[Rel]] = {}
        self._by_subject: dict[tuple[str, str], list[Rel]] = {}
        for r in sorted(relations, key=lambda r: r.id):
            if r.unit_ref is not None:
                self._by_unit.setdefault(r.unit_ref, []).append(r)
            self._by_subject.setdefault((r.subject, r.predicate), []).append(r)

    def in_unit(self, ref: str) -> Sequence[Rel]:
        return self._by_unit.get(ref, ()) if ref in self._refs else ()

    def of_subject(self, subject: str, predicate: str) -> Sequence[Rel]:
        return self._by_subject.get((subject, predicate), ())

    def entity(self, entity_id: str) -> Entity | None:
        return self._entities.get(entity_id)
