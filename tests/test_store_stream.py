"""The record-by-record compile (chainret.store.stream, chainret.catalog.stream): every store's, new or updated.

Every shipped catalog, written as JSON and streamed from the file, or loaded and given to
``compile_store`` (which feeds its records to the same compiler), compiles to a store with the same
rows in every table (digests and per-reader identities included) as a store grown from empty by
``update_store``, and a catalog compiled at once equals an older version compiled and then updated
to it (the update feeds the same compiler with the count of stored records). The digests are held
to the catalog in memory (``Catalog.digest``, ``reader_catalog``), computed apart from the compiler.
Broken files are refused with the same issues as ``load_catalog`` and leave no store behind.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from store_worlds import grown_by_update, last_identities, new_schema_url, pg_url, seed_versions  # noqa: F401

from chainret.catalog.issues import CatalogFileInvalid
from chainret.catalog.load import load_catalog, load_world
from chainret.catalog.models import Catalog
from chainret.catalog.readable import reader_digest
from chainret.store import compile_store, update_store
from chainret.store.schema import TABLES
from chainret.store.stream import catalog_records, compile_file, compile_records
from benchmarks.harness.revocation import revoking_versions

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = [ROOT / "catalogs" / "default.yaml", *sorted((ROOT / "fixtures").glob("*/catalog.yaml"))]
SEED = ROOT / "fixtures" / "seed" / "catalog.yaml"


def rows(db: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every table's rows, sorted (``meta.generation`` aside; ``identities``: the last write's, as seq 1)."""
    with sqlite3.connect(db) as c:
        out = {}
        for t in TABLES:
            got = c.execute(f"SELECT * FROM {t}").fetchall()
            out[t] = sorted((r for r in got if not (t == "meta" and r[0] == "generation")), key=repr)
    out["identities"] = last_identities(out["identities"])
    return out


def same_rows(a: dict[str, list[tuple[object, ...]]], b: dict[str, list[tuple[object, ...]]]) -> None:
    assert a["relations"] and a["identities"]
    for table in TABLES:
        assert a[table] == b[table], table


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.parent.name)
@pytest.mark.parametrize("indent", [None, 2])
def test_streamed_store_has_the_same_rows(path, indent, tmp_path):
    cat = load_world(path).catalog
    src = tmp_path / "catalog.json"
    src.write_text(cat.model_dump_json(indent=indent), encoding="utf-8")
    grown_by_update(cat, tmp_path / "updated.db")
    world, counts, streamed = compile_file(src, tmp_path / "streamed.db")
    assert streamed and world == cat.world and counts["relations"] == len(cat.relations)
    same_rows(rows(tmp_path / "updated.db"), rows(tmp_path / "streamed.db"))


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.parent.name)
def test_a_loaded_catalog_compiles_to_the_same_rows(path, tmp_path):
    """``compile_store`` of a loaded ``Catalog`` (its records fed to ``compile_records``, what an importer
    uses too) equals the update's rows."""
    cat = load_world(path).catalog
    grown_by_update(cat, tmp_path / "updated.db")
    compile_store(cat, tmp_path / "loaded.db")
    same_rows(rows(tmp_path / "updated.db"), rows(tmp_path / "loaded.db"))


def test_a_loaded_catalog_goes_through_the_record_by_record_compiler(tmp_path, monkeypatch):
    """One compiler of a new store: ``compile_store(Catalog)`` feeds ``catalog_records`` to ``StreamCompile``."""
    from chainret.store import stream

    fed: list[str] = []
    real = stream.StreamCompile.feed
    monkeypatch.setattr(stream.StreamCompile, "feed", lambda self, kind, value: (fed.append(kind), real(self, kind, value))[1])
    cat = load_world(ROOT / "fixtures" / "lab").catalog
    compile_store(cat, tmp_path / "a.db")
    assert fed == [kind for kind, _ in catalog_records(cat)]
    assert compile_records  # the function behind it


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.parent.name)
def test_the_stored_digests_are_the_catalogs_in_memory(path, tmp_path):
    """``meta``'s digest and every principal class's reader digest (the compiler's, hashed from its spill files)
    equal ``Catalog.digest`` and ``reader_digest`` of the loaded catalog: the reference made apart from the compiler."""
    cat = load_world(path).catalog
    compile_store(cat, tmp_path / "s.db")
    with sqlite3.connect(tmp_path / "s.db") as c:
        meta = dict(c.execute("SELECT key, value FROM meta").fetchall())
    assert meta["digest"] == cat.digest()
    readers = {k.removeprefix("reader_digest:"): v for k, v in meta.items() if k.startswith("reader_digest:")}
    named = sorted({p for d in cat.documents if d.visibility == "restricted" for p in d.principals})
    assert sorted(readers) == sorted(["*", *named])
    for principal, digest in readers.items():
        assert digest == reader_digest(cat, "\x00" if principal == "*" else principal), principal


def test_the_comparison_sees_one_changed_row(tmp_path):
    """Negative control: a store that differs from the update's in one relation row does not compare equal."""
    cat = load_world(ROOT / "fixtures" / "lab").catalog
    grown_by_update(cat, tmp_path / "updated.db")
    compile_store(cat, tmp_path / "changed.db")
    with sqlite3.connect(tmp_path / "changed.db") as c:
        c.execute("UPDATE relation_rows SET note = 'changed' WHERE ord = 0")  # (SQLite: the table under the view `relations`)
    with pytest.raises(AssertionError, match="relations"):
        same_rows(rows(tmp_path / "updated.db"), rows(tmp_path / "changed.db"))


def _seed_json(indent: int | None = 1) -> str:
    return load_catalog(SEED).model_dump_json(indent=indent)


def _edit(data: dict, section: str, i: int, **change) -> str:
    data[section][i].update(change)
    return json.dumps(data, indent=1)


def _nested(n: int) -> list:
    value: list = [1]
    for _ in range(n):
        value = [value]
    return value


def _broken() -> dict[str, str]:
    text = _seed_json()
    d = lambda: json.loads(text)  # noqa: E731 - a fresh copy per case
    cases = {
        "comma in a record": text.replace('"predicate": "operated_by",', '"predicate": "operated_by"', 1),
        "colon at the top": text.replace('"world":', '"world"', 1),
        "truncated": text[: len(text) // 2],
        "empty": "",
        "extra data": text + " {}",
        "trailing comma": text.replace('"patterns": [', '"patterns": [1,', 1).replace("]\n}", ",]\n}"),
        "duplicate key in a record": text.replace('"note": ""', '"note": "", "note": "x"', 1),
        "duplicate top-level key": text[:-2] + ',\n "world": "x"\n}',
        "unknown field": _edit(d(), "relations", 2, colour="red"),
        "missing field": json.dumps({**d(), "entities": [{"id": "project:final:x", "type": "project"}]}),
        "wrong type": _edit(d(), "documents", 0, text=3),
        "not a list": json.dumps({**d(), "views": 3}),
        "unknown top-level key": json.dumps({**d(), "colour": 1}, indent=1),
        "bad world": json.dumps({**d(), "world": "Bad World"}),
        "dangling subject": _edit(d(), "relations", 1, subject="project:final:nope"),
        "dangling predicate": _edit(d(), "relations", 1, predicate="nope"),
        "dangling view document": _edit(d(), "views", 0, documents=["registry/nope.md@v1"]),
        "too deep": json.dumps({**d(), "description": _nested(70)}),
    }
    far = d()
    far["relations"][0]["support"]["span"] = [0, 999999]
    cases["span out of range"] = json.dumps(far, indent=1)
    dup = d()
    dup["relations"].append(dup["relations"][0])
    dup["entities"].append(dup["entities"][3])
    cases["duplicate ids"] = json.dumps(dup, indent=1)
    other = d()
    other["entities"][0]["id"] = other["entities"][0]["id"].replace(":final:", ":elsewhere:")
    cases["entity from another world"] = json.dumps(other, indent=1)
    many = d()
    many["relations"] = [{"id": f"r{i}"} for i in range(120)]
    cases["too many issues"] = json.dumps(many)
    return cases


BROKEN = _broken()


def same_refusal(src: Path, text: str) -> None:
    """``compile_file`` refuses ``text`` with ``load_catalog``'s issues, and writes no store (nor a temporary file)."""
    src.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogFileInvalid) as whole:
        load_catalog(src)
    out = src.parent / "x.db"
    with pytest.raises(CatalogFileInvalid) as streamed:
        compile_file(src, out)
    assert [str(i) for i in streamed.value.issues] == [str(i) for i in whole.value.issues]
    assert streamed.value.issues == whole.value.issues
    assert not out.exists() and sorted(p.name for p in src.parent.iterdir()) == [src.name]  # nothing beside it: no copy, no lock file


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_streamed_compile_refuses_what_load_refuses(name, tmp_path):
    same_refusal(tmp_path / "catalog.json", BROKEN[name])


def test_not_utf8_is_refused_with_its_offset(tmp_path):
    src = tmp_path / "catalog.json"
    raw = _seed_json().encode()
    src.write_bytes(raw[:5000] + b"\xff" + raw[5000:])
    with pytest.raises(CatalogFileInvalid) as whole:
        load_catalog(src)
    with pytest.raises(CatalogFileInvalid) as streamed:
        compile_file(src, tmp_path / "x.db")
    assert streamed.value.issues == whole.value.issues


def test_a_failed_compile_keeps_the_previous_store(tmp_path):
    src = tmp_path / "catalog.json"
    src.write_text(_seed_json(), encoding="utf-8")
    out = tmp_path / "s.db"
    compile_file(src, out)
    before = rows(out)
    src.write_text(BROKEN["dangling subject"], encoding="utf-8")
    with pytest.raises(CatalogFileInvalid):
        compile_file(src, out, replace=True)
    assert rows(out) == before


def test_over_the_file_bound_streams_and_ask_says_to_compile(tmp_path, monkeypatch, capsys):
    from chainret.catalog import parse
    from chainret.cli import main

    src = tmp_path / "catalog.json"
    src.write_text(_seed_json(), encoding="utf-8")
    monkeypatch.setattr(parse, "MAX_FILE_BYTES", 1000)
    _, counts, streamed = compile_file(src, tmp_path / "s.db")
    assert streamed and counts["relations"] > 0
    with pytest.raises(SystemExit):
        main(["ask", "Which contact serves PR-84?", "--catalog", str(src)])
    err = capsys.readouterr().err
    assert "file_too_large" in err and "chainret catalog compile" in err


def test_out_of_order_sections_are_compiled_whole(tmp_path):
    cat = load_catalog(SEED)
    data = json.loads(cat.model_dump_json())
    data = {"relations": data.pop("relations"), **data}
    src = tmp_path / "catalog.json"
    src.write_text(json.dumps(data), encoding="utf-8")
    grown_by_update(cat, tmp_path / "a.db")
    _, _, streamed = compile_file(src, tmp_path / "b.db")
    assert not streamed
    same_rows(rows(tmp_path / "a.db"), rows(tmp_path / "b.db"))



def test_streamed_postgres_store_has_the_same_rows(pg_url, tmp_path):  # noqa: F811
    """The PostgreSQL writer (COPY in one transaction) takes the streamed records as well (against the update's rows)."""
    src = tmp_path / "catalog.json"
    cat = load_world(ROOT / "fixtures" / "lab").catalog
    src.write_text(cat.model_dump_json(), encoding="utf-8")
    a, b = new_schema_url(pg_url), new_schema_url(pg_url)
    grown_by_update(cat, a)
    _, _, streamed = compile_file(src, b)
    assert streamed
    pg_same_rows(a, b)


def pg_same_rows(a: str, b: str) -> None:
    """Every table of two PostgreSQL stores holds the same rows (``identities``: the last write's; ``meta.generation`` aside)."""
    psycopg = pytest.importorskip("psycopg")
    from chainret.store.postgres import split_url

    (conninfo, sa), (_, sb) = split_url(a), split_url(b)

    def select(schema: str, t: str) -> str:
        if t == "identities":  # the last write's, numbered as a first compile's (``last_identities``)
            return f"SELECT 1, principal, digest FROM {schema}.identities WHERE seq = (SELECT max(seq) FROM {schema}.identities)"
        return f"SELECT * FROM {schema}.{t}" + (" WHERE key <> 'generation'" if t == "meta" else "")

    with psycopg.connect(conninfo, autocommit=True) as conn:
        for t in TABLES:
            total = conn.execute(f"SELECT count(*) FROM {sa}.{t}").fetchone()
            assert total is not None and (total[0] > 0 or t in ("patterns", "name_sources", "label_readers"))  # (this world has no importer labels)
            for x, y in ((sa, sb), (sb, sa)):
                n = conn.execute(f"SELECT count(*) FROM ({select(x, t)} EXCEPT ALL {select(y, t)}) d").fetchone()
                assert n is not None and n[0] == 0, (t, x)


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.parent.name)
def test_streamed_yaml_store_has_the_same_rows(path, tmp_path):
    cat = load_world(path).catalog
    grown_by_update(cat, tmp_path / "updated.db")
    world, _, streamed = compile_file(path, tmp_path / "streamed.db")
    assert streamed and world == cat.world
    same_rows(rows(tmp_path / "updated.db"), rows(tmp_path / "streamed.db"))


def _root_value(text: str, key: str, value: str) -> str:
    lines = text.split("\n")
    k = next(i for i, line in enumerate(lines) if line.startswith(f"{key}:"))
    lines[k] = f"{key}: {value}"
    return "\n".join(lines)


def _broken_yaml() -> dict[str, str]:
    text = SEED.read_text(encoding="utf-8")
    rel = text.index("relations:")
    ent = text.index("entities:")
    return {
        "syntax": text.replace("relations:", "relations: [", 1),
        "tab indent": text[:rel] + "relations:\n\t- x\n" + text[rel + len("relations:"):],
        "unknown field": text.replace("  predicate: operated_by\n", "  predicate: operated_by\n  colour: red\n", 1),
        "dangling subject": text.replace("subject: project:final:main", "subject: project:final:nope", 1),
        "duplicate key in a record": text.replace("  predicate: operated_by\n", "  predicate: operated_by\n  predicate: contact\n", 1),
        "duplicate root key": text + "\nworld: other\n",
        "two documents": text + "\n---\nworld: x\n",
        "recursive alias": _root_value(text, "description", "&a [*a]"),
        "bad timestamp": _root_value(text, "description", "2026-13-45"),
        "not a list": text[:ent] + "views: 3\n" + text[ent:].replace("\nviews:", "\nviews_old:", 1),
    }


BROKEN_YAML = _broken_yaml()


@pytest.mark.parametrize("name", sorted(BROKEN_YAML))
def test_streamed_yaml_compile_refuses_what_load_refuses(name, tmp_path):
    same_refusal(tmp_path / "catalog.yaml", BROKEN_YAML[name])


def test_union_types_and_dangling_union_member(tmp_path):
    data = json.loads(_seed_json())
    data["predicates"][0]["domain"] = data["predicates"][0]["domain"] + "|org"
    src = tmp_path / "ok.json"
    src.write_text(json.dumps(data), encoding="utf-8")
    grown_by_update(load_catalog(src), tmp_path / "a.db")
    assert compile_file(src, tmp_path / "b.db")[2]
    same_rows(rows(tmp_path / "a.db"), rows(tmp_path / "b.db"))
    data["predicates"][0]["range"] = data["predicates"][0]["range"] + "|nokind"
    (tmp_path / "bad").mkdir()
    same_refusal(tmp_path / "bad" / "catalog.json", json.dumps(data))


def test_a_catalog_object_compiles_as_given_and_its_records_as_a_file_are_refused(tmp_path):
    """``compile_store(Catalog)`` writes a catalog built in code as it is (``refuse_invalid=False``, as before the
    one compiler); the same records from a file, or through ``compile_records``, are refused (the control)."""
    from chainret.store.stream import RecordSource

    cat = load_catalog(SEED)
    moved = cat.model_copy(update={"world": "elsewhere"})  # every entity ID now names another world
    assert compile_store(moved, tmp_path / "a.db")["relations"] == len(cat.relations)
    with pytest.raises(CatalogFileInvalid, match="wrong_world"):
        compile_store(RecordSource(lambda: catalog_records(moved)), tmp_path / "b.db")
    assert not (tmp_path / "b.db").exists()


# -- an update writes the rows a compile writes ---------------------------------------------------------------
def _prose_update() -> tuple[Catalog, Catalog]:
    """The records world without its last prose relation, then with it: an update adds a prose relation
    that a stored unit supports (so that unit is indexed with the IDs its quote names, as a compile indexes it)."""
    full = load_world(ROOT / "fixtures" / "records").catalog
    k = max(i for i, r in enumerate(full.relations) if r.support.kind == "prose")
    v1 = full.model_copy(update={"relations": full.relations[:k] + full.relations[k + 1:]})
    v2 = full.model_copy(update={"relations": [*v1.relations, full.relations[k]]})
    return Catalog.model_validate(v1.model_dump()), Catalog.model_validate(v2.model_dump())


def _relabel_update() -> tuple[Catalog, Catalog]:
    """The records world, then with an alias added to an entity that a stored prose quote does not name yet
    (a defective relation's): the update relabels the entity, and the stored unit is indexed with its ID."""
    from chainret.catalog.models import mentions

    v1 = load_world(ROOT / "fixtures" / "records").catalog
    r, eid = next((r, e) for r in v1.relations if r.support.kind == "prose" for e in (r.subject, r.object)
                  if not mentions(r.support.quote, v1.entities_by_id[e]))
    word = r.support.quote.split()[1]
    entities = [e.model_copy(update={"aliases": [*e.aliases, word]}) if e.id == eid else e for e in v1.entities]
    v2 = v1.model_copy(update={"entities": entities})
    return v1, Catalog.model_validate(v2.model_dump())


def _bench_update() -> tuple[Catalog, Catalog]:
    """The store benchmark's generated catalog (restricted documents, two principals): its ``older`` view, then all."""
    from benchmarks.store_bench import bench_catalog

    full = bench_catalog(300)
    older = full.views[0]
    kept = set(older.documents)
    v1 = full.model_copy(update={"documents": [d for d in full.documents if d.ref in kept],
                                 "relations": [r for r in full.relations if r.support.doc_ref in kept],
                                 "views": [older.model_copy(update={"current": True})]})
    return Catalog.model_validate(v1.model_dump()), full


UPDATES = {"seed": seed_versions, "revoking": revoking_versions, "prose": _prose_update, "relabel": _relabel_update,
           "bench": _bench_update}


def _compiled_and_updated(v1: Catalog, v2: Catalog, tmp: Path, patch=lambda: None) -> tuple[Path, Path]:
    """``v2`` compiled, and ``v1`` compiled then updated to ``v2`` (``patch`` runs just before the update)."""
    compiled, updated = tmp / "compiled.db", tmp / "updated.db"
    compile_store(v2, compiled)
    compile_store(v1, updated)
    patch()
    update_store(v2, updated)
    return compiled, updated


@pytest.mark.parametrize("name", sorted(UPDATES))
def test_an_update_writes_the_rows_a_compile_writes(name, tmp_path):
    """``compile_store(v1)`` then ``update_store(v2)`` leaves every table a reader reads as ``compile_store(v2)`` does
    (``identities``: the last write's; ``meta.generation`` aside)."""
    compiled, updated = _compiled_and_updated(*UPDATES[name](), tmp_path)
    same_rows(rows(compiled), rows(updated))


def test_the_update_comparison_sees_one_changed_posting(tmp_path):
    """Negative control: an updated store whose one new posting differs does not compare equal."""
    compiled, updated = _compiled_and_updated(*seed_versions(), tmp_path)
    with sqlite3.connect(updated) as c:
        c.execute("UPDATE postings SET tf = tf + 1 WHERE (term, unit_ord) = (SELECT term, unit_ord FROM postings ORDER BY unit_ord DESC LIMIT 1)")
    with pytest.raises(AssertionError, match="postings"):
        same_rows(rows(compiled), rows(updated))


def test_without_indexing_a_stored_unit_again_the_prose_update_differs(tmp_path, monkeypatch):
    """Negative control of ``StreamCompile.reindex``: an update that never indexes a stored unit again (as updates did
    before they fed the compiler) leaves that unit's token count and postings short of the IDs a new quote names."""
    from chainret.store import stream

    real = stream.StreamCompile._prose
    compiled, updated = _compiled_and_updated(*_prose_update(), tmp_path, lambda: monkeypatch.setattr(
        stream.StreamCompile, "_prose", lambda self, r, uref: real(self, r, uref) and False))
    with pytest.raises(AssertionError, match="units"):
        same_rows(rows(compiled), rows(updated))


def test_an_update_refuses_a_stored_entity_of_another_type(tmp_path):
    """A stored entity's type is in its rows and its relations' defects: an update that changes it is refused, and
    the store is left as it was (a control: the same catalog with the type kept is appended)."""
    from chainret.store.base import StoreError

    v1, v2 = seed_versions()
    compile_store(v1, tmp_path / "s.db")
    before = (tmp_path / "s.db").read_bytes()
    e = v2.entities[0]
    changed = v2.model_copy(update={"entities": [e.model_copy(update={"type": "other"}), *v2.entities[1:]]})
    with pytest.raises(StoreError, match=f"entity {e.id!r} changed type"):
        update_store(changed, tmp_path / "s.db")
    assert (tmp_path / "s.db").read_bytes() == before
    assert update_store(v2, tmp_path / "s.db")["documents"] == 2


def test_without_rewriting_the_defects_the_relabel_update_differs(tmp_path, monkeypatch):
    """Negative control of the defects a relabelled entity's stored prose relation is given again: without it, the
    relation keeps 'the quote does not mention' its new alias."""
    from chainret.store import stream

    real = stream.StreamCompile._relabel
    compiled, updated = _compiled_and_updated(*_relabel_update(), tmp_path, lambda: monkeypatch.setattr(
        stream.StreamCompile, "_relabel", lambda self, *a: (real(self, *a), self.relabelled.clear())[0]))
    with pytest.raises(AssertionError, match="relations"):
        same_rows(rows(compiled), rows(updated))


@pytest.mark.parametrize("name", ["seed", "relabel"])
def test_a_postgres_update_writes_the_rows_a_compile_writes(name, pg_url, tmp_path):  # noqa: F811
    """As ``test_an_update_writes_the_rows_a_compile_writes``, through the PostgreSQL writer (its statements too:
    a relabelled entity's rows, a stored prose relation's defects and a stored unit's postings written again)."""
    v1, v2 = UPDATES[name]()
    updated, compiled = new_schema_url(pg_url), new_schema_url(pg_url)
    compile_store(v1, updated)
    update_store(v2, updated)
    compile_store(v2, compiled)
    pg_same_rows(compiled, updated)
