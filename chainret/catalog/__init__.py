"""The relation catalog: models, loading, validation and permission-aware views.

Typical use::

    from chainret.catalog import load_catalog, open_view
    view = open_view(load_catalog("catalogs/default.yaml"), view=None, principal="public")
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# Loaded on first use (PEP 562): `import chainret.catalog.models` must not pay for the case files.
_LAZY = {
    **dict.fromkeys(("Case", "CaseFile", "Overlay"), "chainret.catalog.cases"),
    **dict.fromkeys(("CatalogFileInvalid", "Issue"), "chainret.catalog.issues"),
    **dict.fromkeys(
        ("World", "default_catalog_path", "load_cases", "load_catalog", "load_world"),
        "chainret.catalog.load",
    ),
    "apply_overlay": "chainret.catalog.overlay",
    **dict.fromkeys(
        ("Catalog", "Entity", "Pattern", "Predicate", "Relation", "SourceDocument", "Unit", "View"),
        "chainret.catalog.models",
    ),
    **dict.fromkeys(("CatalogView", "Eligibility", "open_view"), "chainret.catalog.views"),
}

if TYPE_CHECKING:
    from chainret.catalog.cases import Case, CaseFile, Overlay
    from chainret.catalog.issues import CatalogFileInvalid, Issue
    from chainret.catalog.load import World, default_catalog_path, load_cases, load_catalog, load_world
    from chainret.catalog.overlay import apply_overlay
    from chainret.catalog.models import Catalog, Entity, Pattern, Predicate, Relation, SourceDocument, Unit, View
    from chainret.catalog.views import CatalogView, Eligibility, open_view


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'chainret.catalog' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


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
