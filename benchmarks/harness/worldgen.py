"""Random small worlds for property tests and audits: several views, restricted and removed versions.

One generator serves the leak property and the audits (``random.Random``) and the store-parity tests
(hypothesis, through their own ``Choices``): ``random_world(choices)`` returns a valid ``Catalog``
(digests and spans computed, never typed) and a list of requests that exercise it: names, aliases
and canonical IDs of projects, names shared by two entities (ambiguity), entities that occur only in
restricted documents, unknown names and requests no pattern matches.

The shape is the seed world's: project -operated_by-> org -contact-> contact, two patterns (one and
two hops), three principals (``public``, ``auditor``, ``ops``). Around it: one to three views that
each pick some version of some documents, restricted readers, noise paragraphs naming entity IDs,
an entity in no relation, and invalid controls (a tampered or missing digest, a shifted span).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from chainret.pipeline.ask import ask
from chainret.catalog.models import (
    Catalog,
    Entity,
    Pattern,
    Predicate,
    Relation,
    SourceDocument,
    Support,
    View,
    clause_text,
    sha256_digest,
)
from chainret.catalog.readable import reader_catalog
from chainret.trace.model import Budget

PRINCIPALS = ("public", "auditor", "ops")
READERS = ("auditor", "ops")  # who a restricted document may name
VISIBILITIES = ("public", "public", "public", "restricted", "restricted", "removed")
VIEW_NAMES = ("old", "new", "next")
DEFECTS = (None,) * 16 + ("tampered_digest", "missing_digest", "shifted_span")
NOISE = (
    "Escalations follow the runbook in section 4.",
    "This registry is reviewed every quarter.",
    "See {id} for the previous arrangement.",
    "Contacts change with the rota; {id} was listed last year.",
    "Notes on {id} and its history.",
    "{id} {id} was reviewed.",
)

T = TypeVar("T")


class Choices(Protocol):
    """Where the randomness comes from: ``random.Random`` (``RandomChoices``) or a hypothesis ``draw``."""

    def integer(self, low: int, high: int) -> int: ...  # low..high inclusive

    def pick(self, options: Sequence[T]) -> T: ...

    def chance(self, p: float) -> bool: ...


class RandomChoices:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def pick(self, options: Sequence[T]) -> T:
        return self.rng.choice(options)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p


@dataclass(frozen=True)
class GeneratedWorld:
    catalog: Catalog
    requests: list[str]


def _subset(c: Choices, options: Sequence[T], low: int, high: int) -> list[T]:
    pool = list(options)
    return [pool.pop(c.integer(0, len(pool) - 1)) for _ in range(c.integer(low, min(high, len(pool))))]


def _doc(c: Choices, source: str, name: str, version: str, paragraphs: list[str]) -> tuple[SourceDocument, dict[str, tuple[int, int]]]:
    """A document version made of paragraphs; returns it and the span of every REL paragraph."""
    text = ""
    spans: dict[str, tuple[int, int]] = {}
    for p in paragraphs:
        if text:
            text += "\n\n"
        if p.startswith("REL "):
            spans[p] = (len(text), len(text) + len(p))
        text += p
    text += "\n"
    vis = c.pick(VISIBILITIES)
    principals = sorted(_subset(c, READERS, 1, 2)) if vis == "restricted" else []
    doc = SourceDocument(
        source=source, document=name, version=version, text=text, digest=sha256_digest(text),
        visibility=vis, principals=principals,
    )
    return doc, spans


def _relation(c: Choices, rid: str, clause: str, doc: SourceDocument, span: tuple[int, int]) -> Relation:
    s, p, o = clause[4:].split(" | ")
    defect = c.pick(DEFECTS)
    digest = {"tampered_digest": sha256_digest("tampered"), "missing_digest": None}.get(defect or "", doc.digest)
    if defect == "shifted_span":
        span = (span[0] + 1, span[1])
    support = Support(source=doc.source, document=doc.document, version=doc.version, digest=digest, span=span, quote=clause)
    return Relation(id=rid, subject=s, predicate=p, object=o, support=support)


def random_world(choices: Choices | random.Random, world: str = "gen") -> GeneratedWorld:
    c = RandomChoices(choices) if isinstance(choices, random.Random) else choices
    n_proj, n_org, n_con = c.integer(1, 4), c.integer(1, 4), c.integer(1, 4)
    shared = c.pick(["Rowan", "Alder", "Birch"])
    projects = [
        Entity(id=f"project:{world}:p{i}", type="project", name=f"PR-{i}", aliases=[f"Project {c.integer(0, n_proj)}"])
        for i in range(n_proj)
    ]
    orgs = [Entity(id=f"org:{world}:o{i}", type="org", name=c.pick([shared, f"Org {i}"]), aliases=[f"O{i}"]) for i in range(n_org)]
    contacts = [Entity(id=f"contact:{world}:c{i}", type="contact", name=f"Desk {i}") for i in range(n_con)]
    if n_proj > 1 and c.chance(0.5):  # a display name shared by two projects: ambiguous
        projects[-1] = projects[-1].model_copy(update={"name": projects[0].name})
    functional = c.chance(0.7)
    predicates = [
        Predicate(name="operated_by", domain="project", range="org", cardinality="functional" if functional else "many"),
        Predicate(name="contact", domain="org", range="contact"),
    ]
    documents: list[SourceDocument] = []
    relations: list[Relation] = []
    versions_of: dict[str, list[str]] = {}
    all_ids = [e.id for e in (*projects, *orgs, *contacts)]
    for source, name, pairs in (
        ("registry", "projects.md", [(p.id, "operated_by", orgs) for p in projects]),
        ("registry", "contacts.md", [(o.id, "contact", contacts) for o in orgs]),
        ("vault", "overrides.md", [(p.id, "operated_by", orgs) for p in projects[:2]]),
    ):
        for version in ["v1", "v2"] if c.chance(0.8) else ["v1"]:
            clauses = []
            for subject, pred, targets in pairs:
                for _ in range(c.pick([0, 1, 1, 1, 2])):
                    clauses.append(clause_text(subject, pred, c.pick(targets).id))
            paragraphs = list(dict.fromkeys(clauses))
            for _ in range(c.integer(0, 3)):
                paragraphs.insert(c.integer(0, len(paragraphs)), c.pick(NOISE).format(id=c.pick(all_ids)))
            doc, spans = _doc(c, source, name, version, paragraphs or ["Nothing recorded."])
            documents.append(doc)
            versions_of.setdefault(doc.doc_id, []).append(doc.ref)
            for clause, span in spans.items():
                relations.append(_relation(c, f"rel-{len(relations) + 1}", clause, doc, span))
    n_views = c.integer(1, 3)
    current = c.integer(0, n_views - 1)
    views = [
        View(name=VIEW_NAMES[i], order=i + 1, current=i == current,
             documents=[c.pick(refs) for refs in versions_of.values() if c.chance(0.85)])
        for i in range(n_views)
    ]
    patterns = [
        Pattern(name="contact_for_project", start_type="project", hops=["operated_by", "contact"],
                phrasings=["Which contact serves {project}?", "who is the contact for {project}"]),
        Pattern(name="operator_of_project", start_type="project", hops=["operated_by"],
                phrasings=["Which org operates {project}?", "who operates {project}"]),
    ]
    cat = Catalog(
        world=world,
        entities=[*projects, *orgs, *contacts, Entity(id=f"project:{world}:ghost", type="project", name="Ghost")],
        predicates=predicates,
        documents=documents,
        relations=relations,
        views=views,
        patterns=patterns,
    )
    names = [p.name for p in projects] + [p.aliases[0] for p in projects] + [p.id for p in projects]
    names += ["PR-99", "Ghost", shared, orgs[-1].name]
    requests = [f"Which contact serves {n}?" for n in names] + [f"Which org operates {n}?" for n in names[:4]]
    requests += ["What is the weather in Rowan?"]
    return GeneratedWorld(catalog=cat, requests=requests)


# -- draws that reach an accepted path ------------------------------------------------------------------
# Uniform draws over these worlds accept under 10% of requests (restricted and removed versions, invalid
# controls and views that drop documents break most chains), so a property over them mostly compares
# refusals. The property tests draw part of their requests from ``answerable`` (ANSWERABLE_SHARE of
# them), so that a floor of the draws exercises the whole hop path; the tests print the share.
ANSWERABLE_BUDGET = Budget(rows_per_hop=4, packet_chars=900)
ANSWERABLE_SHARE = 0.5
ACCEPTED_FLOOR = 0.30  # the share of accepted paths a property's draws must reach


def answerable(cat: Catalog, requests: Sequence[str]) -> list[tuple[str, str | None, str]]:
    """The (request, view, principal) triples ``cat`` answers with an accepted path under ANSWERABLE_BUDGET."""
    out = []
    for request in dict.fromkeys(requests):
        for view in [None, *(v.name for v in cat.views)]:
            for principal in PRINCIPALS:
                if view is not None and view not in reader_catalog(cat, principal).views_by_name:
                    continue  # a view only documents the principal may not read made: unknown to them
                if ask(request, cat, view=view, principal=principal, budget=ANSWERABLE_BUDGET).outcome == "accepted_path":
                    out.append((request, view, principal))
    return out
