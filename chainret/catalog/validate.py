"""Cross-record checks of a loaded catalog and its cases -> ``Issue`` list with stable codes.

``relation_defects(catalog, relation)`` is the per-record support check used by views: the codes
``invalid_digest`` (support digest missing or different from the document's, or the document's own
digest does not match its text), ``span_mismatch`` (quote differs from the text at the span),
``clause_mismatch`` (the quote is not exactly ``REL subject | predicate | object`` of the record),
``representation_mismatch``, ``domain_mismatch`` / ``range_mismatch`` (entity types vs predicate).
"""

from __future__ import annotations

from chainret.catalog.models import Catalog, Relation, parse_clause, sha256_digest


def document_digest_ok(catalog: Catalog, doc_ref: str) -> bool:
    doc = catalog.documents_by_ref.get(doc_ref)
    return doc is not None and doc.digest == sha256_digest(doc.text)


def relation_defects(catalog: Catalog, rel: Relation) -> tuple[str, ...]:
    """Why a relation record is invalid in every view (empty tuple = valid)."""
    sup = rel.support
    doc = catalog.documents_by_ref.get(sup.doc_ref)
    if doc is None:  # the loader rejects this; keep the function total
        return ("invalid_digest",)
    codes: list[str] = []
    if sup.digest is None or sup.digest != doc.digest or not document_digest_ok(catalog, sup.doc_ref):
        codes.append("invalid_digest")
    start, end = sup.span
    if doc.text[start:end] != sup.quote:
        codes.append("span_mismatch")
    if parse_clause(sup.quote) != (rel.subject, rel.predicate, rel.object):
        codes.append("clause_mismatch")
    if sup.representation != doc.representation:
        codes.append("representation_mismatch")
    pred = catalog.predicates_by_name.get(rel.predicate)
    subj = catalog.entities_by_id.get(rel.subject)
    obj = catalog.entities_by_id.get(rel.object)
    if pred is not None and subj is not None and subj.type != pred.domain:
        codes.append("domain_mismatch")
    if pred is not None and obj is not None and obj.type != pred.range:
        codes.append("range_mismatch")
    return tuple(codes)
