"""Random small worlds for property tests and audits: several views, restricted and removed versions.

``random_world(rng)`` returns a valid ``Catalog`` (digests and spans computed, never typed) and a
list of requests that exercise it: names, aliases and canonical IDs of projects, names shared by
two entities (ambiguity), entities that occur only in restricted documents, unknown names and
requests no pattern matches. The shape is the seed world's: project -operated_by-> org -contact->
contact, two patterns (one and two hops), three principals (``public``, ``auditor``, ``ops``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

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

PRINCIPALS = ("public", "auditor", "ops")
VISIBILITIES = ("public", "public", "public", "restricted", "restricted", "removed")
NOISE = (
    "Escalations follow the runbook in section 4.",
    "This registry is reviewed every quarter.",
    "See {id} for the previous arrangement.",
    "Contacts change with the rota; {id} was listed last year.",
)


@dataclass(frozen=True)
class GeneratedWorld:
    catalog: Catalog
    requests: list[str]


def _doc(source: str, name: str, version: str, paragraphs: list[str], rng: random.Random) -> tuple[SourceDocument, dict[str, tuple[int, int]]]:
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
    vis = rng.choice(VISIBILITIES)
    principals = sorted(rng.sample(["auditor", "ops"], rng.randint(1, 2))) if vis == "restricted" else []
    doc = SourceDocument(
        source=source, document=name, version=version, text=text, digest=sha256_digest(text),
        visibility=vis, principals=principals,
    )
    return doc, spans


def random_world(rng: random.Random, world: str = "gen") -> GeneratedWorld:
    n_proj, n_org, n_con = rng.randint(2, 4), rng.randint(2, 4), rng.randint(2, 4)
    shared = rng.choice(["Rowan", "Alder", "Birch"])
    projects = [Entity(id=f"project:{world}:p{i}", type="project", name=f"PR-{i}", aliases=[f"Project {i}"]) for i in range(n_proj)]
    orgs = [
        Entity(id=f"org:{world}:o{i}", type="org", name=shared if i < 2 else f"Org {i}", aliases=[f"O{i}"])
        for i in range(n_org)
    ]
    contacts = [Entity(id=f"contact:{world}:c{i}", type="contact", name=f"Desk {i}") for i in range(n_con)]
    if rng.random() < 0.5:  # a display name shared by two projects: ambiguous
        projects[-1] = projects[-1].model_copy(update={"name": projects[0].name})
    functional = rng.random() < 0.7
    predicates = [
        Predicate(name="operated_by", domain="project", range="org", cardinality="functional" if functional else "many"),
        Predicate(name="contact", domain="org", range="contact"),
    ]
    documents: list[SourceDocument] = []
    relations: list[Relation] = []
    views: dict[str, list[str]] = {"old": [], "new": []}
    rid = 0
    all_ids = [e.id for e in (*projects, *orgs, *contacts)]
    for source, name, pairs in (
        ("registry", "projects.md", [(p.id, "operated_by", orgs) for p in projects]),
        ("registry", "contacts.md", [(o.id, "contact", contacts) for o in orgs]),
        ("vault", "overrides.md", [(p.id, "operated_by", orgs) for p in projects[:2]]),
    ):
        versions = ["v1", "v2"] if rng.random() < 0.8 else ["v1"]
        for version in versions:
            clauses = []
            for subject, pred, targets in pairs:
                for _ in range(rng.choice([0, 1, 1, 1, 2])):
                    clauses.append(clause_text(subject, pred, rng.choice(targets).id))
            paragraphs = list(dict.fromkeys(clauses))
            for _ in range(rng.randint(0, 3)):
                paragraphs.insert(rng.randint(0, len(paragraphs)), rng.choice(NOISE).format(id=rng.choice(all_ids)))
            if not paragraphs:
                paragraphs = ["Nothing recorded."]
            doc, spans = _doc(source, name, version, paragraphs, rng)
            documents.append(doc)
            for clause, span in spans.items():
                s, p, o = clause[4:].split(" | ")
                rid += 1
                digest: str | None = doc.digest
                if rng.random() < 0.05:
                    digest = sha256_digest("tampered")  # an invalid control
                relations.append(Relation(
                    id=f"rel-{rid}", subject=s, predicate=p, object=o,
                    support=Support(source=source, document=name, version=version, digest=digest, span=span, quote=clause),
                ))
            if version == "v1":
                views["old"].append(doc.ref)
            if version == versions[-1] and rng.random() < 0.9:
                views["new"].append(doc.ref)
    patterns = [
        Pattern(name="contact_for_project", start_type="project", hops=["operated_by", "contact"],
                phrasings=["Which contact serves {project}?", "who is the contact for {project}"]),
        Pattern(name="operator_of_project", start_type="project", hops=["operated_by"],
                phrasings=["Which org operates {project}?"]),
    ]
    cat = Catalog(
        world=world,
        entities=[*projects, *orgs, *contacts, Entity(id=f"project:{world}:ghost", type="project", name="Ghost")],
        predicates=predicates,
        documents=documents,
        relations=relations,
        views=[View(name="old", order=1, documents=views["old"]), View(name="new", order=2, current=True, documents=views["new"])],
        patterns=patterns,
    )
    names = [p.name for p in projects] + [p.aliases[0] for p in projects] + [p.id for p in projects]
    names += ["PR-99", "Ghost", shared, orgs[-1].name]
    requests = [f"Which contact serves {n}?" for n in names] + [f"Which org operates {n}?" for n in names[:4]]
    requests += ["What is the weather in Rowan?"]
    return GeneratedWorld(catalog=cat, requests=requests)
