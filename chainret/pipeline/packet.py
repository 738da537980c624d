"""The evidence packet of a found path, and structural coverage.

``pack_items`` packs supporting clauses in order with the ``naive`` packer's rule
(``chainret.core.budget.first_fit``; cost in characters including separators); ``coverage`` says
which required anchors a request observed and whether the packet holds the complete bundle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from chainret.catalog.clause import doc_ref
from chainret.core.budget import first_fit
from chainret.store.base import ViewReader
from chainret.trace.model import Budget, Coverage, Packet, PacketItem

if TYPE_CHECKING:
    from chainret.engine.reader import Rel

PACKET_SEPARATOR = "\n\n"  # a paragraph break between supporting clauses (2 characters)


def pack_items(items: Sequence[PacketItem], budget: Budget, separator: str = PACKET_SEPARATOR) -> Packet:
    """Pack items in order with the ``naive`` rule (``first_fit``, the items being of equal relevance);
    cost = characters incl. separators."""
    sep = len(separator)
    # Each item after the first also pays one separator; charging every item one separator and
    # granting one extra separator of budget keeps the joined text within packet_chars.
    kept = first_fit(((item, len(item.text) + sep) for item in items), budget.packet_chars + sep, budget.packet_units)
    text = separator.join(i.text for i in kept)
    return Packet.model_construct(
        packer="naive",
        cost_unit="chars",
        budget=budget.packet_chars,
        max_items=budget.packet_units,
        separator=separator,
        items=kept,
        cost=len(text),
        text=text,
    )


def path_packet(path: Sequence[Rel], budget: Budget) -> Packet | None:
    """The packet of a found path: each hop's supporting unit, quoted, in path order (``pack_items``); None where the
    packet cap cannot hold the whole path, which is then not exposed as one (the ask of one start and of a start set,
    ``chainret.pipeline.startset``, alike)."""
    items = [PacketItem.model_construct(ref=r.support.unit_ref, text=r.support.quote, cost=len(r.support.quote),
                                        doc_id=doc_ref(r.support.source, r.support.document, r.support.version),
                                        span=r.support.span, relation_id=r.id) for r in path]
    packet = pack_items(items, budget)
    return packet if len(packet.items) == len(items) else None


def coverage(cv: ViewReader, required: Sequence[str], seen_refs: Sequence[str], packet: Packet | None,
             units: Mapping[str, str | None] | None = None) -> Coverage:
    """Anchor coverage (seen in any returned row) and complete-bundle coverage (all in the packet).

    ``units`` (relation id -> supporting unit ref) may be given when the caller already holds them (the
    accepted path's relations carry their supporting unit); otherwise each is looked up in the view.
    """
    if units is None:
        found: dict[str, str | None] = {}
        for rid in required:
            rel = cv.catalog.relations_by_id.get(rid)
            u = cv.supporting_unit(rel) if rel is not None else None
            found[rid] = u.ref if u is not None else None
        units = found
    seen = set(seen_refs)
    in_packet = {i.ref for i in packet.items} if packet else set()
    return Coverage.model_construct(
        anchors_required=list(required),
        anchors_observed=[r for r in required if units[r] in seen],
        complete_bundle=bool(required) and all(units[r] in in_packet for r in required),
    )
