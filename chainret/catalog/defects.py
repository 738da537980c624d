"""Per-record support checks -> defect codes (``chainret.core.codes.DefectCode``).

``relation_defects(catalog, relation)`` is the per-record support check used by views (and
reported by ``chainret.catalog.checks``): the codes
``invalid_digest`` (support digest missing or different from the document's, or the document's own
digest does not match its text), ``span_mismatch`` (quote differs from the text at the span),
``clause_mismatch`` (the quote is not exactly ``REL subject | predicate | object`` of the record),
``prose_mismatch`` (a prose quote does not mention both subject and object by ID, name or alias): these
two are ``chainret.catalog.statement.states``, the check every hop and ``trace verify`` apply,
``representation_mismatch``, ``domain_mismatch`` / ``range_mismatch`` (entity types vs predicate).
"""

from __future__ import annotations

from chainret.catalog.models import Catalog, Relation
from chainret.catalog.statement import named_term, states
from chainret.core.codes import DefectCode


def document_digest_ok(catalog: Catalog, doc_ref: str) -> bool:
    return catalog.digest_ok(doc_ref)


def prose_unmentioned(catalog: Catalog, rel: Relation) -> list[str]:
    """``subject`` / ``object``: the ends of a prose-supported relation its quote does not name."""
    out = []
    for role in ("subject", "object"):
        if named_term(rel.support.quote, catalog.entities_by_id.get(getattr(rel, role))) is None:
            out.append(role)
    return out


def relation_defects(catalog: Catalog, rel: Relation) -> tuple[DefectCode, ...]:
    """Why a relation record is invalid in every view (empty tuple = valid)."""
    sup = rel.support
    ref = sup.doc_ref
    doc = catalog.documents_by_ref.get(ref)
    if doc is None:  # the loader rejects this; keep the function total
        return (DefectCode.INVALID_DIGEST,)
    codes: list[DefectCode] = []
    if sup.digest is None or sup.digest != doc.digest or not document_digest_ok(catalog, ref):
        codes.append(DefectCode.INVALID_DIGEST)
    start, end = sup.span
    if doc.text[start:end] != sup.quote:
        codes.append(DefectCode.SPAN_MISMATCH)
    stated = states(sup.kind, sup.quote, rel.subject, rel.predicate, rel.object, catalog.entities_by_id.get)
    if stated.code is not None:  # clause_mismatch / prose_mismatch: the check every hop and trace verify apply
        codes.append(stated.code)
    if sup.representation != doc.representation:
        codes.append(DefectCode.REPRESENTATION_MISMATCH)
    pred = catalog.predicates_by_name.get(rel.predicate)
    subj = catalog.entities_by_id.get(rel.subject)
    obj = catalog.entities_by_id.get(rel.object)
    if pred is not None and subj is not None and subj.type not in pred.domain_types:
        codes.append(DefectCode.DOMAIN_MISMATCH)
    if pred is not None and obj is not None and obj.type not in pred.range_types:
        codes.append(DefectCode.RANGE_MISMATCH)
    return tuple(codes)
