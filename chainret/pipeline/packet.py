"""The evidence packet of a found path, and structural coverage.

``pack_items`` packs supporting clauses in order with the shared packing interface (``naive``
packer, cost in characters including separators); ``coverage`` says which required anchors a
request observed and whether the packet holds the complete bundle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from chainret.store.base import ViewReader
from chainret.trace.model import Budget, Coverage, Packet, PacketItem

PACKET_SEPARATOR = "\n\n"  # a paragraph break between supporting clauses (2 characters)


def pack_items(items: Sequence[PacketItem], budget: Budget, separator: str = PACKET_SEPARATOR) -> Packet:
    """Pack items in order with the shared packing interface; cost = characters incl. separators."""
    sep = len(separator)
    # Each item after the first also pays one separator; charging every item one separator and
    # granting one extra separator of budget keeps the joined text within packet_chars.
    kept = _first_fit(items, budget.packet_chars + sep, budget.packet_units, sep)
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


def _first_fit(items: Sequence[PacketItem], limit: int, cap: int, sep: int) -> list[PacketItem]:
    """The ``naive`` packer's choice (``chainret.pack.base.NaivePacker``) over items of equal relevance, in
    order: first-fit within ``limit`` characters (each item costing its text and one separator), at most
    ``cap`` items. Inlined for the ask path (no Candidate per item, no packer lookup); a test checks it
    against ``get_packer("naive")``."""
    kept: list[PacketItem] = []
    used = 0
    for item in items:
        if len(kept) >= cap:
            break
        cost = len(item.text) + sep
        if used + cost <= limit:
            kept.append(item)
            used += cost
    return kept


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
