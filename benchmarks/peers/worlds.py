"""The worlds the peer comparison runs on, and their requests with the answer sets a peer must return.

* ``standard``: ``store_bench.bench_catalog(N)`` (projects -> orgs -> contacts, two contacts an org,
  every tenth document restricted to ``auditor``), asked on its current view.
* ``fan-k``: one org operating ``k`` projects, with ``FAN_CONTACTS`` contacts (the last one in a document
  only the auditor may read), so the answer is a set and differs by principal; asked for its projects.
  Hop 2 starts at an org that ``k`` units mention: the fan-out a search-based engine must not pay for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

FAN_CONTACTS = 3  # the default budget reads 3 rows a hop (rows_per_hop): more contacts answer an incomplete set, flagged
PER_DOC = 50  # one-clause units a document, as the standard world


@dataclass(frozen=True)
class Request:
    text: str  # what chainret is asked
    alias: str  # the slot words a peer looks up (a peer is handed them; chainret reads them from ``text``)
    principal: str


@dataclass
class World:
    name: str
    catalog: Any  # chainret.catalog.models.Catalog
    requests: list[Request]
    k: int | None = None  # fan-out worlds: projects the org operates


def standard(n: int, count: int) -> World:
    """``bench_catalog(n)`` and ``count`` requests (distinct projects, public and auditor alternately); a public
    request never names a project only a restricted document holds (chainret refuses those before any hop)."""
    from benchmarks.store_bench import bench_catalog

    n_proj = n // 2
    reqs = []
    i = 0
    while len(reqs) < count and i < 10 * count:
        p = (i * 104_729) % n_proj
        principal = "auditor" if i % 2 else "public"
        i += 1
        if principal == "public" and (p // PER_DOC) % 10 == 3:  # bench_catalog: document p // 50 is restricted
            continue
        reqs.append(Request(f"Which contact serves GP-{p}?", f"GP-{p}", principal))
    return World(f"standard-{_short(n)}", bench_catalog(n), reqs)


def fan(k: int, count: int) -> World:
    """One org (``org:fan:hub``) operating ``k`` projects, with ``FAN_CONTACTS`` contacts."""
    triples = [(f"project:fan:p{i}", "operated_by", "org:fan:hub") for i in range(k)]
    contacts = [("org:fan:hub", "contact", f"contact:fan:c{j}") for j in range(FAN_CONTACTS)]
    ents = [("project", f"project:fan:p{i}", f"Fan project {i}", [f"FP-{i}"]) for i in range(k)]
    ents += [("org", "org:fan:hub", "Hub", []), *(("contact", f"contact:fan:c{j}", f"Fan contact {j}", []) for j in range(FAN_CONTACTS))]
    # the contacts' documents: all but the last contact public, the last one auditor-only
    docs = [*_chunks(triples), contacts[:-1], contacts[-1:]]
    restricted = {len(docs) - 1}
    cat = catalog("fan", docs, ents, restricted)
    step = max(1, k // count)
    reqs = [Request(f"Which contact serves FP-{i}?", f"FP-{i}", ("auditor" if j % 2 else "public"))
            for j, i in enumerate(range(0, k, step))][:count]
    while len(reqs) < count:  # a small k: ask its projects again, each principal in turn
        j = len(reqs)
        reqs.append(Request(f"Which contact serves FP-{j % k}?", f"FP-{j % k}", "public" if (j // k) % 2 else "auditor"))
    return World(f"fan-{_short(k)}", cat, reqs, k=k)


def catalog(world: str, docs: list[list[tuple[str, str, str]]], ents: list[tuple[str, str, str, list[str]]],
            restricted: set[int]) -> Any:
    """A catalog whose document ``d`` holds the clauses of ``docs[d]`` (one unit each), the documents numbered in
    ``restricted`` readable by ``auditor`` only, one current view, the contact-for-project pattern."""
    from benchmarks.ask_speed import generated_catalog

    from chainret.catalog.models import Catalog, Entity, Relation, SourceDocument, Support, View, clause_text, sha256_digest

    shape = generated_catalog(2)  # the standard world's predicates and contact-for-project pattern

    documents, relations = [], []
    for d, chunk in enumerate(docs):
        clauses = [clause_text(*t) for t in chunk]
        text = "\n\n".join(clauses) + "\n"
        hidden = {"visibility": "restricted", "principals": ["auditor"]} if d in restricted else {}
        doc = SourceDocument(source=world, document=f"d{d}.md", version="v1", text=text, digest=sha256_digest(text), **hidden)
        documents.append(doc)
        pos = 0
        for t, c in zip(chunk, clauses):
            relations.append(Relation(id=f"r{len(relations)}", subject=t[0], predicate=t[1], object=t[2], support=Support(
                source=world, document=doc.document, version="v1", digest=doc.digest, span=(pos, pos + len(c)), quote=c)))
            pos += len(c) + 2
    return Catalog(
        world=world,
        entities=[Entity(id=i, type=t, name=name, aliases=aliases) for t, i, name, aliases in ents],
        predicates=shape.predicates,
        documents=documents,
        relations=relations,
        views=[View(name="current", current=True, documents=[d.ref for d in documents])],
        patterns=shape.patterns,
    )


def _chunks(triples: list[tuple[str, str, str]]) -> list[list[tuple[str, str, str]]]:
    return [triples[i : i + PER_DOC] for i in range(0, len(triples), PER_DOC)]


def _short(n: int) -> str:
    return f"{n // 1_000_000}M" if n % 1_000_000 == 0 else f"{n // 1_000}k" if n % 1_000 == 0 else str(n)


def parse_size(text: str) -> int:
    """``10k`` -> 10000, ``1M`` -> 1000000, ``250`` -> 250."""
    t = text.strip().lower().replace(",", "").replace("_", "")
    mult = 1_000_000 if t.endswith("m") else 1_000 if t.endswith("k") else 1
    return int(float(t.rstrip("km")) * mult)
