"""``lock(catalog)``: recompute digests and spans of a hand-edited catalog (``chainret catalog lock``).

For each document version whose declared digest no longer matches its text: if no relation cites
it, the digest is recomputed; if relations cite it, its text changed under them, which is what
``chainret trace verify`` exists to catch, so the document is refused unless ``force``.

For each relation (deliberate controls, ``expect_invalid``, are left alone): the support digest is
set to its document's digest; when the quote is not at the span but occurs exactly once in the
text, the span moves there; a quote found nowhere, or several times, is reported and unchanged.
Every change is listed; nothing is guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from chainret.catalog.models import (
    Catalog,
    Relation,
    SourceDocument,
    Support,
    sha256_digest,
)
from chainret.catalog.quotes import line_col, line_of, occurrences


@dataclass
class LockReport:
    catalog: Catalog
    changes: list[str] = field(default_factory=list)  # what was recomputed
    refused: list[str] = field(default_factory=list)  # documents whose text changed under relations
    unresolved: list[str] = field(default_factory=list)  # quotes not found, or found several times

    @property
    def ok(self) -> bool:
        return not self.refused and not self.unresolved


def lock(catalog: Catalog, *, force: bool = False) -> LockReport:
    cited: dict[str, list[Relation]] = {}
    for rel in catalog.relations:
        cited.setdefault(rel.support.doc_ref, []).append(rel)
    changes: list[str] = []
    refused: list[str] = []
    unresolved: list[str] = []
    docs: list[SourceDocument] = []
    skip_refs: set[str] = set()
    for doc in catalog.documents:
        actual = sha256_digest(doc.text)
        if doc.digest == actual:
            docs.append(doc)
            continue
        users = [r for r in cited.get(doc.ref, []) if not r.expect_invalid]
        if users and not force:
            refused.append(f"{doc.ref}: its text changed under {len(users)} relation(s) ({', '.join(r.id for r in users[:5])}"
                           f"{', …' if len(users) > 5 else ''}); not re-locked (--force re-locks it)")
            docs.append(doc)
            skip_refs.add(doc.ref)
            continue
        changes.append(f"{doc.ref}: digest {doc.digest} -> {actual}")
        docs.append(doc.model_copy(update={"digest": actual}))
    by_ref = {d.ref: d for d in docs}
    relations: list[Relation] = []
    for rel in catalog.relations:
        sup = rel.support
        cited_doc = by_ref.get(sup.doc_ref)
        if rel.expect_invalid or cited_doc is None or sup.doc_ref in skip_refs:
            relations.append(rel)
            continue
        doc = cited_doc
        update: dict[str, object] = {}
        if sup.digest != doc.digest:
            update["digest"] = doc.digest
            changes.append(f"{rel.id}: support digest {sup.digest} -> {doc.digest}")
        start, end = sup.span
        if doc.text[start:end] != sup.quote:
            found = occurrences(doc.text, sup.quote)
            if len(found) == 1:
                new = (found[0], found[0] + len(sup.quote))
                update["span"] = new
                changes.append(f"{rel.id}: span {[start, end]} -> {list(new)} (line {line_of(doc.text, new[0])})")
            elif not found:
                unresolved.append(f"{rel.id}: the quote {sup.quote!r} does not occur in {doc.ref}")
            else:
                at = "; ".join(line_col(doc.text, s) for s in found)
                unresolved.append(f"{rel.id}: the quote occurs {len(found)} times in {doc.ref} ({at}); fix its span by hand")
        if update:
            relations.append(rel.model_copy(update={"support": Support(**{**sup.model_dump(), **update})}))
        else:
            relations.append(rel)
    locked = Catalog(**{**{k: getattr(catalog, k) for k in Catalog.model_fields}, "documents": docs, "relations": relations})
    return LockReport(locked, changes, refused, unresolved)
