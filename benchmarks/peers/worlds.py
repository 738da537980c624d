"""The worlds the peer comparison runs on, and their requests with the answer sets a peer must return.

* ``standard``: ``store_bench.bench_catalog(N)`` (projects -> orgs -> contacts, two contacts an org,
  every tenth document restricted to ``auditor``), asked on its current view.
* ``fan-k``: one org operating ``k`` projects, with ``FAN_CONTACTS`` contacts (the last one in a document
  only the auditor may read), so the answer is a set and differs by principal; asked for its projects.
  Hop 2 starts at an org that ``k`` units mention: the fan-out a search-based engine must not pay for.
* ``deep``: five hops, service -> team -> department -> division -> executive -> contact, each executive with
  two contacts (the second in a document only ``auditor`` may read); asked "Who is the executive contact for
  SVC-i?", with ``max_hops`` 5 (the default budget allows 3 hops, and refuses the request, saying so).
* ``contacts-m``: one org with ``m`` contacts (the last auditor-only) operating ``CONTACT_PROJECTS`` projects,
  padded with filler orgs; asked for its projects' contacts. The answer is a set of ``m``; at the default budget
  (3 rows a hop) chainret answers 3 of them and says so (``completeness``), which the harness checks against the
  floor (the count must be the floor's) and reports as chainret's incompleteness, not a disagreement. The same
  store is asked again with ``rows_per_hop`` m+2 (the whole set).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

DEEP_HOPS = ("owned_by", "part_of", "within", "led_by", "contact")
DEEP_TYPES = ("service", "team", "department", "division", "executive", "contact")
DEEP_BRANCH = 4  # services a team, teams a department, departments a division
CONTACT_PROJECTS = 20  # projects the many-contacts org operates (the requests cycle over them)
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
    hops: tuple[str, ...] = ("operated_by", "contact")  # the path every request follows
    budget: Any = None  # chainret's budget (None: the default)
    whole_budget: Any = None  # a second chainret engine on the same store, with a budget for the whole set
    kind: str = "standard"  # standard, fan, deep, contacts


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
    return World(f"standard-{size_name(n)}", bench_catalog(n), reqs)


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
    return World(f"fan-{size_name(k)}", cat, reqs, k=k, kind="fan")


def deep(n: int, count: int) -> World:
    """About ``n`` relations on five hops (``DEEP_HOPS``): services, a team each (``DEEP_BRANCH`` services a team),
    a department a team, a division a department, an executive a division, two contacts an executive (the second
    auditor-only); ``count`` requests over distinct services, public and auditor alternately."""
    from chainret.catalog.models import Pattern, Predicate

    b = DEEP_BRANCH
    services = max(b**3, int(n / (1 + 1 / b + 1 / b**2 + 4 / b**3)))  # a division has b**3 services and 4 relations
    counts = [services, services // b, services // b**2, max(1, services // b**3)]  # services, teams, departments, divisions
    ids = [[f"{t}:deep:{t[0]}{i}" for i in range(c)] for t, c in zip(DEEP_TYPES, counts)]
    chain = [(ids[h][i], DEEP_HOPS[h], ids[h + 1][min(i // b, counts[h + 1] - 1)]) for h in range(3) for i in range(counts[h])]
    execs = [f"executive:deep:x{i}" for i in range(counts[3])]
    chain += [(ids[3][i], "led_by", execs[i]) for i in range(counts[3])]
    public = [(x, "contact", f"contact:deep:c{i}a") for i, x in enumerate(execs)]
    hidden = [(x, "contact", f"contact:deep:c{i}b") for i, x in enumerate(execs)]
    docs = [*_chunks(chain + public), *_chunks(hidden)]
    restricted = set(range(len(_chunks(chain + public)), len(docs)))
    ents = [("service", s, f"Service {i}", [f"SVC-{i}"]) for i, s in enumerate(ids[0])]
    ents += [(t, e, f"{t.title()} {i}", []) for t, group in zip(DEEP_TYPES[1:4], ids[1:]) for i, e in enumerate(group)]
    ents += [("executive", x, f"Executive {i}", []) for i, x in enumerate(execs)]
    ents += [("contact", c, f"Contact {c.rsplit(':', 1)[1]}", []) for _, _, c in public + hidden]
    cat = catalog("deep", docs, ents, restricted).model_copy(update={
        "predicates": [Predicate(name=p, domain=d, range=r, cardinality="many" if p == "contact" else "functional")
                       for p, d, r in zip(DEEP_HOPS, DEEP_TYPES, DEEP_TYPES[1:])],
        "patterns": [Pattern(name="executive_contact", start_type="service", hops=list(DEEP_HOPS),
                             phrasings=["who is the executive contact for {service}"])]})
    reqs = [Request(f"Who is the executive contact for SVC-{s}?", f"SVC-{s}", "auditor" if j % 2 else "public")
            for j, s in enumerate((j * 104_729) % services for j in range(count))]
    return World(f"deep-{size_name(n)}", cat, reqs, hops=DEEP_HOPS, budget=DEEP_BUDGET(), kind="deep")


def DEEP_BUDGET() -> Any:  # noqa: N802 (a constant, built late: chainret is imported only when a world is)
    """The deep world's budget: five hops, and a packet of a unit a hop and both contacts (the default budget allows
    3 hops; with ``max_hops`` 5 alone the accepted path does not fit its 4-unit, 900-character packet)."""
    from chainret.trace.model import Budget

    return Budget(max_hops=len(DEEP_HOPS), packet_units=len(DEEP_HOPS) + 2, packet_chars=2000)


def contacts(m: int, n: int, count: int) -> World:
    """One org with ``m`` contacts operating ``CONTACT_PROJECTS`` projects, padded to about ``n`` relations
    (``sets.fan_world``: filler orgs of 10 projects and 2 contacts); asked for each project's contacts."""
    from benchmarks.peers.sets import fan_world
    from chainret.trace.model import Budget

    cat = fan_world(CONTACT_PROJECTS, n, 1, contacts=m).catalog
    reqs = [Request(f"Which contact serves FP-{j % CONTACT_PROJECTS}?", f"FP-{j % CONTACT_PROJECTS}",
                    "auditor" if j % 2 else "public") for j in range(count)]
    return World(f"contacts-{size_name(m)}", cat, reqs, k=m, whole_budget=Budget(rows_per_hop=m + 2), kind="contacts")


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


def size_name(n: int) -> str:
    """A world size as the worlds and the command lines say it: ``10k``, ``1M``, ``250``."""
    return f"{n // 1_000_000}M" if n % 1_000_000 == 0 else f"{n // 1_000}k" if n % 1_000 == 0 else str(n)


def page_label(n: int) -> str:
    """A world size as a page's file name says it: ``sets-1m.md``, ``peers-1m.md``."""
    return size_name(n).lower()


def parse_size(text: str) -> int:
    """``10k`` -> 10000, ``1M`` -> 1000000, ``250`` -> 250."""
    t = text.strip().lower().replace(",", "").replace("_", "")
    mult = 1_000_000 if t.endswith("m") else 1_000 if t.endswith("k") else 1
    return int(float(t.rstrip("km")) * mult)
