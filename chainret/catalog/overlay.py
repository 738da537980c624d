"""A case's overlay applied to its world (add records, then remove or restrict document versions)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chainret.catalog.issues import CatalogFileInvalid, Issue
from chainret.catalog.models import Catalog, SourceDocument, View
from chainret.catalog.references import reference_issues

if TYPE_CHECKING:  # the case models load with the first cases file, not with every catalog
    from chainret.catalog.cases import Overlay

def apply_overlay(catalog: Catalog, overlay: Overlay | None, label: str = "overlay") -> Catalog:
    """The world with a case's overlay applied (add records, then remove/restrict sources).

    Raises ``CatalogFileInvalid`` (located at ``label``) when the overlay names a document or view
    the world lacks, or the result has dangling references.
    """
    if overlay is None:
        return catalog
    issues: list[Issue] = []
    docs = [*catalog.documents, *overlay.add_documents]
    refs = {d.ref for d in docs}
    changes: dict[str, dict[str, Any]] = {}
    for i, ref in enumerate(overlay.remove):
        changes.setdefault(ref, {})["visibility"] = "removed"
        if ref not in refs:
            issues.append(Issue("dangling_reference", "error", label, "overlay", f"remove.{i}", f"no document version {ref!r}"))
    for i, r in enumerate(overlay.restrict):
        changes.setdefault(r.document, {}).update(visibility="restricted", principals=list(r.principals))
        if r.document not in refs:
            issues.append(Issue("dangling_reference", "error", label, "overlay", f"restrict.{i}.document", f"no document version {r.document!r}"))
    docs = [SourceDocument(**{**d.model_dump(), **changes[d.ref]}) if d.ref in changes else d for d in docs]
    views = list(catalog.views)
    names = [v.name for v in views]
    for i, add in enumerate(overlay.add_to_views):
        if add.view not in names:
            issues.append(Issue("dangling_reference", "error", label, "overlay", f"add_to_views.{i}.view", f"no view {add.view!r}"))
            continue
        k = names.index(add.view)
        views[k] = View(**{**views[k].model_dump(), "documents": [*views[k].documents, *add.documents]})
    if issues:
        raise CatalogFileInvalid(issues)
    fields = {name: getattr(catalog, name) for name in Catalog.model_fields}
    fields.update(
        entities=[*catalog.entities, *overlay.add_entities],
        documents=docs,
        relations=[*catalog.relations, *overlay.add_relations],
        views=views,
    )
    result = Catalog(**fields)
    problems = reference_issues(result, label)
    if problems:
        raise CatalogFileInvalid(problems)
    return result
