"""Cases: the expectations a fixture world declares, run by ``chainret eval``.

A cases file (``cases.yaml`` beside ``catalog.yaml``) is ``CaseFile``: ``format``, ``catalog``
(path of its catalog, relative to the cases file) and ``cases``. Each ``Case`` has:

- ``id``, ``request`` (the original words), ``view`` (None = the catalog's current view),
  ``principal`` (default ``public``), ``group`` (``positive`` | ``challenge`` | ``other``: the
  rows of the eval totals), ``challenge`` (a label such as ``first_hop_missing``), ``note``;
- ``anchors``: one entry per pattern hop, the relation id whose supporting unit is the *required
  anchor* of that hop for the target bundle (``null`` where no relation could serve). Coverage
  and the text-route baselines are measured against these;
- ``budget``: optional overrides of ``chainret.core.budget.Budget`` (e.g. ``{max_searches: 3}``);
- ``overlay``: optional changes applied to the world for this case only (``Overlay``; apply with
  ``chainret.catalog.overlay.apply_overlay``);
- ``expect``: one of (discriminated on ``outcome``)
  - ``ExpectAccepted`` ``outcome: accepted_path``: ``relations`` (ids of the accepted path, in
    hop order), ``bridges`` (the object ID of each hop: bridge IDs then the answer entity),
    ``packet_chars`` (optional: length of the packet, supporting clauses joined by the packet
    separator);
  - ``ExpectNoPath`` ``outcome: no_path``: ``failed_hop`` (1-based), ``reason`` (a
    ``chainret.core.codes.HOP_FAILURES`` code), ``observed`` (one bool per ``anchors`` entry: whether that
    anchor's unit appears in any returned search row of the offline trace);
  - ``ExpectNoPattern`` ``outcome: no_pattern``;
  - ``ExpectRefused`` ``outcome: refused``: ``reason`` (``chainret.core.codes.INTERPRETATION_REFUSALS``).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Annotated, Final, Literal

from pydantic import Field, model_validator

from chainret.core.budget import Budget
from chainret.core.codes import HopFailureCode, InterpretationCode
from chainret.catalog.models import Entity, Relation, SourceDocument, _Model, split_doc_ref

CASES_FORMAT: Final = "chainret-cases/1"

# The registries live with every other code (chainret/core/codes.py); the names stay for callers.


class Restriction(_Model):
    document: str  # doc ref source/document@version
    principals: list[str] = Field(min_length=1)


class ViewAddition(_Model):
    view: str
    documents: list[str]


class Overlay(_Model):
    """Changes to a world for one case, applied in this order: add, then remove/restrict."""

    add_entities: list[Entity] = Field(default_factory=list)
    add_documents: list[SourceDocument] = Field(default_factory=list)
    add_relations: list[Relation] = Field(default_factory=list)
    add_to_views: list[ViewAddition] = Field(default_factory=list)
    remove: list[str] = Field(default_factory=list)  # doc refs whose visibility becomes "removed"
    restrict: list[Restriction] = Field(default_factory=list)

    @model_validator(mode="after")
    def _refs(self) -> Overlay:
        for ref in [*self.remove, *(r.document for r in self.restrict)]:
            split_doc_ref(ref)
        for add in self.add_to_views:
            for ref in add.documents:
                split_doc_ref(ref)
        return self


class ExpectAccepted(_Model):
    outcome: Literal["accepted_path"]
    relations: list[str] = Field(min_length=1)
    bridges: list[str] = Field(min_length=1)
    packet_chars: int | None = None

    @model_validator(mode="after")
    def _same_length(self) -> ExpectAccepted:
        if len(self.relations) != len(self.bridges):
            raise ValueError(f"relations ({len(self.relations)}) and bridges ({len(self.bridges)}) differ in length")
        return self


class ExpectNoPath(_Model):
    outcome: Literal["no_path"]
    failed_hop: int = Field(ge=1)
    reason: HopFailureCode
    observed: list[bool] = Field(default_factory=list)


class ExpectNoPattern(_Model):
    outcome: Literal["no_pattern"]


class ExpectRefused(_Model):
    outcome: Literal["refused"]
    reason: InterpretationCode


Expectation = Annotated[
    ExpectAccepted | ExpectNoPath | ExpectNoPattern | ExpectRefused, Field(discriminator="outcome")
]


class Case(_Model):
    id: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    request: str = Field(min_length=1)
    view: str | None = None
    principal: str = "public"
    group: Literal["positive", "challenge", "other"]
    challenge: str | None = None
    note: str = ""
    anchors: list[str | None] = Field(default_factory=list)
    budget: Budget | None = None
    overlay: Overlay | None = None
    expect: Expectation

    @model_validator(mode="after")
    def _consistent(self) -> Case:
        exp = self.expect
        if isinstance(exp, ExpectNoPath) and exp.observed and len(exp.observed) != len(self.anchors):
            raise ValueError(
                f"expect.observed has {len(exp.observed)} entries but anchors has {len(self.anchors)}"
            )
        if isinstance(exp, ExpectAccepted) and self.anchors and list(self.anchors) != list(exp.relations):
            raise ValueError("for an accepted path, anchors must equal expect.relations")
        return self

    def anchor_observed(self, i: int, observed: Collection[str]) -> bool | None:
        """Whether anchor ``i`` is among the ``observed`` relation ids (None: the case names no such anchor)."""
        if len(self.anchors) <= i or self.anchors[i] is None:
            return None
        return self.anchors[i] in observed


class CaseFile(_Model):
    format: Literal["chainret-cases/1"] = CASES_FORMAT
    catalog: str = "catalog.yaml"
    description: str = ""
    cases: list[Case] = Field(default_factory=list)
