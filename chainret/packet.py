"""The evidence packet of a found path, and structural coverage.

``pack_items`` packs supporting clauses in order with the shared packing interface (``naive``
packer, cost in characters including separators); ``coverage`` says which required anchors a
request observed and whether the packet holds the complete bundle.
"""

from __future__ import annotations

from collections.abc import Sequence

from chainret.store.base import ViewReader
from chainret.pack.base import Candidate
from chainret.pack.registry import get_packer
from chainret.trace import Budget, Coverage, Packet, PacketItem

PACKET_SEPARATOR = "\n\n"  # a paragraph break between supporting clauses (2 characters)


def pack_items(items: Sequence[PacketItem], budget: Budget, separator: str = PACKET_SEPARATOR) -> Packet:
    """Pack items in order with the shared packing interface; cost = characters incl. separators."""
    sep = len(separator)
    # Each item after the first also pays one separator; charging every item one separator and
    # granting one extra separator of budget keeps the joined text within packet_chars.
    cands = [Candidate(ref=i.ref, text=i.text, cost=len(i.text) + sep, doc_id=i.doc_id, span=i.span, relevance=1.0) for i in items]
    chosen = get_packer("naive").pack(cands, budget.packet_chars + sep, max_items=budget.packet_units)
    kept = [items[i] for i in chosen]
    text = separator.join(i.text for i in kept)
    return Packet(
        packer="naive",
        cost_unit="chars",
        budget=budget.packet_chars,
        max_items=budget.packet_units,
        separator=separator,
        items=kept,
        cost=len(text),
        text=text,
    )


def coverage(cv: ViewReader, required: Sequence[str], seen_refs: Sequence[str], packet: Packet | None) -> Coverage:
    """Anchor coverage (seen in any returned row) and complete-bundle coverage (all in the packet)."""
    units = {}
    for rid in required:
        rel = cv.catalog.relations_by_id.get(rid)
        u = cv.supporting_unit(rel) if rel is not None else None
        units[rid] = u.ref if u is not None else None
    seen = set(seen_refs)
    in_packet = {i.ref for i in packet.items} if packet else set()
    return Coverage(
        anchors_required=list(required),
        anchors_observed=[r for r in required if units[r] in seen],
        complete_bundle=bool(required) and all(units[r] in in_packet for r in required),
    )
