"""`chainret catalog compile`, `chainret ask --catalog X.db`, updates without a rebuild, and bad stores."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from store_worlds import seed_versions as versions
from store_worlds import trace_json, with_schema_10_rows

from chainret.pipeline.ask import ask
from chainret.catalog.load import load_world
from chainret.cli import main
from chainret.catalog.readable import reader_digest
from chainret.verify.replay import verify
from chainret.store import compile_store, open_store, update_store
from chainret.store.base import SCHEMA_VERSION, StoreError
from benchmarks.harness.catalogs import changed as catalog_changed

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "fixtures" / "seed"


def cli(capsys, *args):
    """(exit code, stdout, stderr) of the real entry point (the one that turns errors into messages)."""
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def seed_db(tmp_path_factory):
    out = tmp_path_factory.mktemp("db") / "seed.db"
    compile_store(load_world(SEED).catalog, out)
    return out


def test_compile_then_ask_the_db_gives_the_yaml_trace(tmp_path, capsys):
    db = tmp_path / "seed.db"
    code, _, err = cli(capsys, "catalog", "compile", str(SEED), "--out", str(db))
    assert code == 0 and "compiled final into" in err and db.is_file()
    for args in ([], ["--view", "final"], ["--principal", "auditor"], ["--as", "auditor"], ["--principal", "auditor", "--as", "public"]):
        code, from_db, _ = cli(capsys, "ask", "Which contact serves PR-84?", "--catalog", str(db), "--json", "--no-trace", *args)
        assert code == 0
        code, from_yaml, _ = cli(capsys, "ask", "Which contact serves PR-84?", "--catalog", str(SEED), "--json", "--no-trace", *args)
        a, b = json.loads(from_db), json.loads(from_yaml)
        assert a["meta"].pop("catalog") == str(db.resolve()) and b["meta"].pop("catalog") == str(SEED.resolve())
        a["meta"].pop("ask_ms"), b["meta"].pop("ask_ms")
        assert a["meta"].pop("log")["units"] and "log" not in b["meta"]  # a compiled store's log proves the anchors
        assert a == b


def test_compile_refuses_to_overwrite_without_replace(seed_db, capsys):
    code, _, err = cli(capsys, "catalog", "compile", str(SEED), "--out", str(seed_db))
    assert code == 2 and "--replace" in err and "Traceback" not in err


def _bad(capsys, catalog, *extra):
    code, out, err = cli(capsys, "ask", "Which contact serves PR-84?", "--catalog", str(catalog), "--no-trace", *extra)
    assert "Traceback" not in out + err
    return code, " ".join(err.split())


def test_bad_stores_give_a_message_and_an_exit_code(tmp_path, seed_db, capsys):
    junk = tmp_path / "junk.db"
    junk.write_text("not a database at all\n")
    code, err = _bad(capsys, junk)
    assert code == 2 and "junk.db is not a chainret store" in err

    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    code, err = _bad(capsys, other)
    assert code == 2 and "other.db is not a chainret store" in err

    old = tmp_path / "old.db"
    old.write_bytes(seed_db.read_bytes())
    con = sqlite3.connect(old)
    con.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    code, err = _bad(capsys, old)
    assert code == 2 and f"compiled with store schema 0; this chainret reads schema {SCHEMA_VERSION}" in err and "recompile the store" in err and "--replace" in err

    code, err = _bad(capsys, tmp_path / "missing.db")
    assert code == 2 and "does not exist" in err

    code, err = _bad(capsys, seed_db, "--view", "2031")
    assert code == 2 and "unknown view '2031'; this catalog has: final, revised" in err

    code, err = _bad(capsys, "postgresql://nobody@127.0.0.1:1/none")
    assert code == 3 and "cannot connect to PostgreSQL at postgresql://nobody@127.0.0.1:1/none" in err


def test_a_store_of_the_previous_schema_is_read_and_its_update_refused(tmp_path, seed_db, capsys):
    """A SQLite store of schema 6 (``names`` keyed by its label, with ``names_key`` and ``names_fold``: schema 7 keys it
    by the fold and keeps neither, issue 47) answers as the store of this schema does, by its own indexes; an update
    of it is refused with the recompile advice, not a traceback."""
    old = tmp_path / "six.db"
    old.write_bytes(seed_db.read_bytes())
    con = sqlite3.connect(old)
    with_schema_10_rows(con)  # (the label rows and postings of schema 10)
    con.execute("CREATE TABLE names6 (key TEXT, type TEXT, entity_ord INTEGER, fold TEXT, digits TEXT, flen INTEGER, doc_id TEXT, "
                "PRIMARY KEY (key, entity_ord, doc_id)) WITHOUT ROWID")
    con.execute("INSERT INTO names6 SELECT n.key, e.type, n.entity_ord, n.fold, n.digits, n.flen, n.doc_id "
                "FROM names n JOIN entities e ON e.ord = n.entity_ord")  # (schema 9 leaves a row's type to its entity's)
    con.execute("DROP TABLE names")
    con.execute("ALTER TABLE names6 RENAME TO names")
    for stmt in ("CREATE INDEX names_key ON names (key, type)", "CREATE INDEX names_fold ON names (type, fold)",
                 "CREATE INDEX names_near ON names (type, digits, flen)", "UPDATE meta SET value = '6' WHERE key = 'schema_version'"):
        con.execute(stmt)
    con.commit()
    con.close()
    for request in ("Which contact serves PR-84?", "Who serves pr 84?", "Which contact serves PR-48?"):
        assert trace_json(ask(request, old)).replace(str(old), str(seed_db)) == trace_json(ask(request, seed_db))  # (the path aside)
    code, _, err = cli(capsys, "catalog", "compile", str(SEED), "--out", str(old), "--update")
    err = " ".join(err.split())
    assert code == 2 and "compiled with store schema 6" in err and "recompile the store" in err and "Traceback" not in err


def test_traces_name_the_store_without_a_password():
    from chainret.store import store_location

    assert store_location("postgresql://app:s3cret@db.example/chainret?schema=w") == "postgresql://app:***@db.example/chainret?schema=w"


# -- updates without a rebuild ------------------------------------------------------------------------
def _rows(db: Path, sql: str):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


REQUESTS = [("Which contact serves PR-84?", v, p) for v in ("final", None) for p in ("public", "auditor")]


def test_update_appends_a_version_and_equals_a_rebuild(tmp_path, capsys):
    v1, v2 = versions()
    db = tmp_path / "live.db"
    compile_store(v1, db)
    before = {t: _rows(db, f"SELECT * FROM {t} ORDER BY 1, 2") for t in ("units", "postings", "relations", "documents")}
    old_traces = []
    for request, view, principal in REQUESTS[:2]:
        t = ask(request, str(db), view=view, principal=principal)
        old_traces.append(t)
        assert t.catalog_digest == reader_digest(v1, principal)

    v2_file = tmp_path / "v2.json"
    v2_file.write_text(v2.model_dump_json())
    code, _, err = cli(capsys, "catalog", "compile", str(v2_file), "--out", str(db), "--update")
    assert code == 0 and "added 2 documents" in " ".join(err.split()) and "1 views" in err

    # Only what changed was written: every stored row of version 1 is still there, unchanged.
    for table, rows in before.items():
        now = set(_rows(db, f"SELECT * FROM {table}"))
        assert set(rows) <= now, table
    # The updated store answers exactly like a store rebuilt from version 2, and like the catalog in memory.
    rebuilt = tmp_path / "rebuilt.db"
    compile_store(v2, rebuilt)
    live, fresh = open_store(db), open_store(rebuilt)
    for request, view, principal in REQUESTS:
        for viewer in (None, "public", "auditor"):
            a = trace_json(ask(request, live, view=view, principal=principal, viewer=viewer))
            assert a == trace_json(ask(request, fresh, view=view, principal=principal, viewer=viewer))
            assert a == trace_json(ask(request, v2, view=view, principal=principal, viewer=viewer))
    assert live.digest() == v2.digest()
    # Traces of the older view still verify against the updated store: every cited document and
    # the replay are unchanged; the catalog did change, so the status is "evidence intact".
    for t in old_traces:
        result = verify(t, str(db))
        assert result.differences == [] and result.status == "evidence_intact", result


def test_update_refuses_a_changed_record_and_writes_nothing(tmp_path):
    v1, v2 = versions()
    db = tmp_path / "live.db"
    compile_store(v1, db)
    before = db.read_bytes()
    changed = catalog_changed(v2, documents=list(reversed(v2.documents)))
    with pytest.raises(StoreError, match="not an append-only update"):
        update_store(changed, db)
    assert db.read_bytes() == before


def test_graph_of_a_store_equals_the_graph_of_its_catalog(seed_db, capsys):
    code, from_db, _ = cli(capsys, "graph", "--catalog", str(seed_db), "--as", "auditor")
    assert code == 0
    code, from_yaml, _ = cli(capsys, "graph", "--catalog", str(SEED), "--as", "auditor")
    assert from_db == from_yaml and "rel-3" in from_db


def test_memory_store_is_the_catalog_path():
    store = open_store(SEED)
    cat = load_world(SEED).catalog
    assert store.kind == "memory" and store.digest() == cat.digest()
    assert trace_json(ask("Which contact serves PR-84?", store)) == trace_json(ask("Which contact serves PR-84?", cat))


def test_asking_a_db_loads_no_catalog_and_nothing_heavy(seed_db):
    import subprocess
    import sys

    code = (
        "import sys, io, contextlib\n"
        "from chainret.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        main(['ask', 'Which contact serves PR-84?', '--catalog', {str(seed_db)!r}, '--no-trace', '--json'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(','.join(m for m in ('numpy', 'networkx', 'rank_bm25', 'torch', 'psycopg') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == ""
