"""Interpretation: request text -> a pattern and one canonical start entity in the view, or a refusal.

``interpret(request, cv) -> Reading`` matches the request against the catalog's relation patterns
(``chainret.patterns``) and resolves the slot words to exactly one entity of the slot type in the
view: several is ``ambiguous_alias``, none is ``unknown_entity``, no pattern is ``no_pattern``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chainret.catalog.models import Catalog
from chainret.catalog.views import CatalogView
from chainret.codes import RefusalCode
from chainret.patterns import PatternSpec, best_matches, match_request
from chainret.trace import Interpretation, Refusal


@dataclass
class Reading:
    """The outcome of interpretation: an Interpretation, or a refusal / no-pattern Refusal."""

    interpretation: Interpretation | None = None
    outcome: str | None = None  # "no_pattern" | "refused" when interpretation is None
    reason: Refusal | None = None
    meta: dict[str, Any] = field(default_factory=dict)


def pattern_specs(catalog: Catalog) -> list[PatternSpec]:
    return [PatternSpec(p.name, p.start_type, tuple(p.hops), tuple(p.phrasings)) for p in catalog.patterns]


def interpret(request: str, cv: CatalogView) -> Reading:
    """Match the request to a pattern and resolve its slot to one canonical ID in the view."""
    matches = best_matches(match_request(request, pattern_specs(cv.catalog)))
    if not matches:
        return Reading(
            outcome="no_pattern",
            reason=Refusal(code=RefusalCode.NO_PATTERN, message="no relation pattern applies to this request"),
        )
    unknown: list[dict[str, Any]] = []
    for m in matches:
        text = m.slot_text
        ents = cv.resolve(text, type=m.slot_type)
        first, _, rest = text.partition(" ")
        if not ents and rest and first.lower() == m.slot_type.lower():  # "project PR-84" -> "PR-84"
            text, ents = rest, cv.resolve(rest, type=m.slot_type)
        if len(ents) > 1:
            cands = [{"id": e.id, "name": e.name} for e in ents]
            return Reading(
                outcome="refused",
                reason=Refusal(
                    code=RefusalCode.AMBIGUOUS_ALIAS,
                    message=f"{text!r} names {len(ents)} {m.slot_type} entities: "
                    + ", ".join(f"{e.id} ({e.name})" for e in ents)
                    + "; ask again with one of these canonical IDs",
                    details={"slot_text": text, "candidates": cands},
                ),
                meta={"pattern": m.pattern.name, "slot": m.slot},
            )
        if len(ents) == 1:
            start = ents[0].id
            interp = Interpretation(
                pattern=m.pattern.name,
                slot=m.slot,
                slot_text=text,
                start_id=start,
                predicates=list(m.pattern.predicates),
                view=cv.view_name,
                principal=cv.principal,
            )
            return Reading(interpretation=interp, meta={"phrasing": m.phrasing})
        other = [e.id for e in cv.resolve(text)]
        unknown.append({"slot_text": text, "slot_type": m.slot_type, "other_types": other})
    u = unknown[0]
    extra = f" (it names {', '.join(u['other_types'])}, not a {u['slot_type']})" if u["other_types"] else ""
    return Reading(
        outcome="refused",
        reason=Refusal(
            code=RefusalCode.UNKNOWN_ENTITY,
            message=f"{u['slot_text']!r} is not a known {u['slot_type']} in this catalog{extra}",
            details=u,
        ),
        meta={"pattern": matches[0].pattern.name},
    )
