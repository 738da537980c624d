"""The in-memory store: a loaded ``Catalog`` (YAML world) behind the store interface.

Its views and hop worlds are the session-cached ones of ``chainret.caches``.
"""

from __future__ import annotations

from chainret.caches import cached_view, catalog_digest, hop_world
from chainret.catalog.models import Catalog
from chainret.catalog.views import CatalogView
from chainret.hops import HopWorld
from chainret.session import Session


class MemoryStore:
    """A loaded catalog behind the store interface: ``view`` and ``hop_world`` are ``chainret.caches``' (in ``session``)."""

    is_chainret_store = True
    kind = "memory"

    def __init__(self, catalog: Catalog, location: str = "", session: Session | None = None) -> None:
        self.catalog = catalog
        self.world = catalog.world
        self.location = location
        self.session = session

    def digest(self) -> str:
        return catalog_digest(self.catalog)

    def view(self, name: str | None, principal: str = "public") -> CatalogView:
        return cached_view(self.catalog, name, principal, self.session)

    def hop_world(self, view: CatalogView) -> HopWorld:
        return hop_world(view, self.session)

    def close(self) -> None:
        pass
