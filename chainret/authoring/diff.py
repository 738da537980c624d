"""``diff_views(catalog, a, b)``: what changed between two views (``chainret catalog diff``).

A relation *holds* in a view when it is valid and its document version is in the view (any
principal: visibility is reported per document, not filtered). Relations are compared by
(subject, predicate, object):

* ``added`` / ``removed``: holds in B only / in A only;
* ``changed``: a functional predicate whose object differs for the same subject (one removed and
  one added relation, reported together as ``old -> new``);
* ``recited``: the same relation holds in both, supported by a different document version or quote.

Documents are compared by ``source/document``: added, removed, and new versions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chainret.catalog.models import Catalog, Relation, functional_names, split_doc_ref


@dataclass
class ViewDiff:
    view_a: str
    view_b: str
    added: list[Relation] = field(default_factory=list)
    removed: list[Relation] = field(default_factory=list)
    changed: list[tuple[Relation, Relation]] = field(default_factory=list)
    recited: list[tuple[Relation, Relation]] = field(default_factory=list)
    documents_added: list[str] = field(default_factory=list)
    documents_removed: list[str] = field(default_factory=list)
    documents_changed: list[tuple[str, str]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed or self.recited or self.documents_added
                    or self.documents_removed or self.documents_changed)

    def to_dict(self) -> dict[str, Any]:
        def r(rel: Relation) -> dict[str, Any]:
            return {"id": rel.id, "subject": rel.subject, "predicate": rel.predicate, "object": rel.object,
                    "document": rel.support.doc_ref, "support": rel.support.kind}

        return {
            "view_a": self.view_a, "view_b": self.view_b,
            "relations": {
                "added": [r(x) for x in self.added],
                "removed": [r(x) for x in self.removed],
                "changed": [{"before": r(a), "after": r(b)} for a, b in self.changed],
                "recited": [{"before": r(a), "after": r(b)} for a, b in self.recited],
            },
            "documents": {
                "added": self.documents_added, "removed": self.documents_removed,
                "changed": [{"before": a, "after": b} for a, b in self.documents_changed],
            },
        }


def _holding(catalog: Catalog, view: str) -> dict[tuple[str, str, str], Relation]:
    from chainret.catalog.defects import relation_defects

    refs = set(catalog.views_by_name[view].documents)
    out: dict[tuple[str, str, str], Relation] = {}
    for rel in catalog.relations:
        if rel.support.doc_ref in refs and not relation_defects(catalog, rel):
            out.setdefault((rel.subject, rel.predicate, rel.object), rel)
    return out


def diff_views(catalog: Catalog, view_a: str, view_b: str) -> ViewDiff:
    """Relations and documents that differ between two views of one catalog.

    ``view_a`` and ``view_b`` are resolved as ``--view`` is (``chainret.catalog.views.find_view``: a
    name, a date or a commit); the diff names the views they resolved to. UsageError when one names none.
    """
    from chainret.catalog.views import find_view

    view_a, view_b = find_view(catalog, view_a).name, find_view(catalog, view_b).name
    a, b = _holding(catalog, view_a), _holding(catalog, view_b)
    out = ViewDiff(view_a, view_b)
    functional = functional_names(catalog.predicates)
    removed = [a[k] for k in sorted(a.keys() - b.keys())]
    added = [b[k] for k in sorted(b.keys() - a.keys())]
    for old in list(removed):
        if old.predicate not in functional:
            continue
        new = next((x for x in added if x.subject == old.subject and x.predicate == old.predicate), None)
        if new is not None:
            out.changed.append((old, new))
            removed.remove(old)
            added.remove(new)
    out.added, out.removed = added, removed
    for key in sorted(a.keys() & b.keys()):
        x, y = a[key], b[key]
        if x.support.doc_ref != y.support.doc_ref or x.support.quote != y.support.quote:
            out.recited.append((x, y))
    docs_a = {f"{s}/{d}": ref for ref in catalog.views_by_name[view_a].documents for s, d, _ in [split_doc_ref(ref)]}
    docs_b = {f"{s}/{d}": ref for ref in catalog.views_by_name[view_b].documents for s, d, _ in [split_doc_ref(ref)]}
    out.documents_added = [docs_b[k] for k in sorted(docs_b.keys() - docs_a.keys())]
    out.documents_removed = [docs_a[k] for k in sorted(docs_a.keys() - docs_b.keys())]
    out.documents_changed = [(docs_a[k], docs_b[k]) for k in sorted(docs_a.keys() & docs_b.keys()) if docs_a[k] != docs_b[k]]
    return out
