"""Edited copies of a catalog for tests, without the lookups cached on the original.

``Catalog.model_copy(update=...)`` copies the instance ``__dict__``, and the catalog's lookups
(``name_lookup``, ``entities_by_id``, ``documents_by_ref``, ...) are ``cached_property`` values kept there:
a copy of a catalog some earlier test had already asked would answer from the original's entities. The
result then depends on which tests ran first (it failed under ``pytest -p random_order``). ``changed``
builds a new ``Catalog`` from the fields, so every lookup is built from the copy's own lists.
"""

from __future__ import annotations

from typing import Any

from chainret.catalog.models import Catalog


def changed(cat: Catalog, **fields: Any) -> Catalog:
    """``cat`` with ``fields`` replaced, as a fresh model (nothing cached carried over)."""
    unknown = set(fields) - set(Catalog.model_fields)
    if unknown:
        raise TypeError(f"not catalog fields: {sorted(unknown)}")
    return Catalog(**{**{k: getattr(cat, k) for k in Catalog.model_fields}, **fields})
