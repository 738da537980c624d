"""The seed world as two catalog versions, for the tests of updates and the replica benchmark
(``python -m benchmarks.store_replica``)."""

from __future__ import annotations

from chainret.catalog.load import load_world
from benchmarks.harness.paths import SEED_WORLD
from chainret.catalog.models import Catalog


def seed_versions() -> tuple[Catalog, Catalog]:
    """The seed world as two catalog versions: v1 has view ``final`` only; v2 appends the v2 documents and view ``revised``."""
    full = load_world(SEED_WORLD).catalog
    final = full.views_by_name["final"]
    old_docs = [d for d in full.documents if d.ref in final.documents]
    new_docs = [d for d in full.documents if d.ref not in final.documents]
    old_rels = [r for r in full.relations if r.support.doc_ref in final.documents]
    new_rels = [r for r in full.relations if r.support.doc_ref not in final.documents]
    v1 = full.model_copy(update={"documents": old_docs, "relations": old_rels,
                                 "views": [final.model_copy(update={"current": True})]})
    v2 = full.model_copy(update={"documents": old_docs + new_docs, "relations": old_rels + new_rels})
    return v1.model_validate(v1.model_dump()), v2.model_validate(v2.model_dump())
