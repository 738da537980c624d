"""The relation catalog: models, loading, validation and permission-aware views.

Typical use::

    from chainret.catalog import load_catalog, open_view
    view = open_view(load_catalog("catalogs/default.yaml"), view=None, principal="public")
"""

from chainret.catalog.cases import Case, CaseFile, Overlay
from chainret.catalog.issues import CatalogFileInvalid, Issue
from chainret.catalog.load import World, apply_overlay, default_catalog_path, load_cases, load_catalog, load_world
from chainret.catalog.models import Catalog, Entity, Pattern, Predicate, Relation, SourceDocument, Unit, View
from chainret.catalog.views import CatalogView, Eligibility, open_view

__all__ = [
    "Case",
    "CaseFile",
    "Catalog",
    "CatalogFileInvalid",
    "CatalogView",
    "Eligibility",
    "Entity",
    "Issue",
    "Overlay",
    "Pattern",
    "Predicate",
    "Relation",
    "SourceDocument",
    "Unit",
    "View",
    "World",
    "apply_overlay",
    "default_catalog_path",
    "load_cases",
    "load_catalog",
    "load_world",
    "open_view",
]
