"""The store interface under the engine: what ``ask`` and its helpers read from a catalog.

The hop engine and its callers (interpretation, coverage, projection, replay, text routes) read a
catalog through one (view, principal) at a time. A store answers exactly these questions:

* **catalog facts**: ``world``, ``digest()`` (the catalog digest a trace records), the patterns and
  predicates, the views and which one is current;
* **view facts** (``view(name, principal)`` -> a ``StoreView``): which document versions and units
  the principal may read in the view, the status of a relation in the view (``relation_status``,
  the codes of ``chainret.catalog.views``), entity resolution by canonical ID / name / alias
  (``resolve``), one entity, one unit, a relation's supporting unit;
* **hop facts** (``hop_world(view)`` -> ``HopWorld``): BM25Plus search over exactly the units the
  principal may read in the view (scores, ranks and tie order equal to ``LexicalIndex`` over the
  same units), the relations supported in a returned unit and the relations of a (subject,
  predicate), each with its view flags (``chainret.caches.relation_flags``).

Three implementations: the in-memory catalog (``chainret.catalog.models.Catalog`` itself, through
``chainret.ask``'s caches; ``MemoryStore`` wraps it with this interface), an embedded SQLite file
(``SQLiteStore``) and PostgreSQL (``PostgresStore``). The two SQL stores share one schema and one
query layer (``chainret.store.sql``); each hop is one bounded, indexed query.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable

from chainret.codes import NOT_CURRENT, NOT_READABLE
from chainret.errors import EXIT_ENVIRONMENT, ChainretError

#: Bumped whenever the tables change; a store written by another schema is refused with a message.
SCHEMA_VERSION = 3
STORE_FORMAT = "chainret-store"


class StoreError(ChainretError):
    """A store cannot be opened or written: not a chainret store, an older schema, not append-only (exit 2)."""


class StoreChanged(StoreError):
    """The store was replaced after this store object was opened (a SQLite file renamed over): reopen it.

    A server answers such a request again from the reopened store (``chainret.server.service``)."""


class StoreUnavailable(StoreError):
    """The database server does not answer (exit 3: an environment problem, not the input)."""

    exit_code = EXIT_ENVIRONMENT


@runtime_checkable
class StoreView(Protocol):
    """One catalog seen through one view by one principal (what ``CatalogView`` offers the engine)."""

    principal: str

    @property
    def view_name(self) -> str: ...

    @property
    def catalog(self) -> Any: ...

    def resolve(self, text: str, type: str | None = None) -> list[Any]: ...  # noqa: A002

    def entity(self, entity_id: str) -> Any | None: ...

    def unit(self, ref: str) -> Any | None: ...

    def documents(self) -> list[Any]: ...

    def relation_status(self, relation: Any) -> Any: ...

    def supporting_unit(self, relation: Any) -> Any | None: ...

    def relations_in_unit(self, unit_ref: str) -> list[Any]: ...


@runtime_checkable
class Store(Protocol):
    """A compiled or in-memory catalog that ``chainret.ask.ask`` can run on."""

    world: str

    def digest(self) -> str: ...

    def view(self, name: str | None, principal: str) -> StoreView: ...

    def hop_world(self, view: StoreView) -> Any: ...

    def close(self) -> None: ...


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


def is_store(obj: Any) -> bool:
    """True for a store object (``MemoryStore``, ``SQLiteStore``, ``PostgresStore``), not a bare Catalog."""
    return getattr(obj, "is_chainret_store", False) is True


def view_codes(reasons: Sequence[str]) -> tuple[bool, bool]:
    """(current, readable) from a relation's status reasons, as ``relation_flags`` derives them."""
    return (
        not any(r in NOT_CURRENT for r in reasons),
        not any(r in NOT_READABLE for r in reasons),
    )


def read_scope(catalog: Any, principal: str | None = None) -> AbstractContextManager[Any]:
    """One read transaction for a whole request by ``principal`` where the store has them (PostgreSQL), else nothing.

    ``chainret.ask`` wraps each ask in it, so the principal's role and the view are set once per ask
    instead of once per statement; a catalog in memory or an SQLite file has no such scope.
    """
    scope = getattr(catalog, "read_scope", None)
    return scope(principal) if callable(scope) else contextlib.nullcontext()
