"""A compiled store resolves a reader's view from what the compile kept (``meta`` ``reader_views:CLASS``).

A cold ask used to work out the reader's views from every view's documents and every version the reader may read
(about 30 ms of a cold ask at 1M relations); the compile now keeps, per principal class, each view of that class's
reduced catalog (the name it is shown, its name in the store, order, current mark). The reference is the store
working them out as before (the same store with those rows deleted): every principal (one of each class and one no
document names), every request (the current view, each name, a date), the same view or the same refusal. The world
has a view that only a restricted change made, which the public is not shown (so the public's ``v2`` is the store's
``v3``). Negative control: a kept row that marks another view current is what the store reads.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from benchmarks.harness.catalogs import changed
from chainret.catalog.load import load_catalog
from chainret.catalog.models import View
from chainret.core.errors import UsageError
from chainret.store import compile_store, open_store

ROOT = Path(__file__).resolve().parents[1]
SUPPLY = load_catalog(ROOT / "fixtures" / "supply" / "catalog.yaml")
REQUESTS = (None, "v1", "v2", "v3", "v4", "2020-01-01")
PRINCIPALS = ("public", "auditor", "someone-else")


def _world() -> Any:
    refs = {d.document: d.ref for d in SUPPLY.documents}
    first = [refs["sourcing.md"], refs["certificates.md"]]
    views = [View(name="v1", order=1, documents=first),
             View(name="v2", order=2, documents=[*first, refs["pending.md"]]),  # a restricted change only
             View(name="v3", order=3, current=True, documents=[*first, refs["pending.md"], refs["assembly.md"]])]
    return changed(SUPPLY, views=views)


def _resolved(path: Path) -> dict[tuple[str, str | None], str]:
    """Each principal's view for each request (or its refusal), and whether a view is left out for them."""
    store = open_store(str(path))
    out = {}
    try:
        for principal in PRINCIPALS:
            out[(principal, "narrows")] = str(store.narrows_views(principal))  # (``readable.reader_narrowed``)
            for name in REQUESTS:
                try:
                    out[(principal, name)] = store.view_name_for(name, principal)
                except UsageError as exc:
                    out[(principal, name)] = f"refused: {exc}"
    finally:
        store.close()
    return out


def _meta(path: Path, sql: str) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute(sql)
    conn.close()


@pytest.fixture()
def stores(tmp_path: Path) -> tuple[Path, Path]:
    compile_store(_world(), tmp_path / "kept.db")
    (tmp_path / "worked.db").write_bytes((tmp_path / "kept.db").read_bytes())
    _meta(tmp_path / "worked.db", "DELETE FROM meta WHERE key LIKE 'reader_views:%'")
    return tmp_path / "kept.db", tmp_path / "worked.db"


def test_kept_views_resolve_as_the_worked_out_ones(stores):
    kept, worked = stores
    with sqlite3.connect(kept) as conn:
        assert {k for (k,) in conn.execute("SELECT key FROM meta WHERE key LIKE 'reader_views:%'")} == \
            {"reader_views:*", "reader_views:auditor"}
    conn.close()
    reference = _resolved(worked)
    assert _resolved(kept) == reference
    # the world does what it is there for: the public's v2 is the store's v3, and it has no v3
    assert reference[("public", None)] == reference[("public", "v2")] == "v3"
    assert reference[("public", "v3")].startswith("refused: unknown view 'v3'")
    assert reference[("auditor", "v2")] == "v2" and reference[("someone-else", None)] == "v3"
    assert (reference[("public", "narrows")], reference[("auditor", "narrows")]) == ("True", "False")


def test_the_kept_rows_are_what_a_store_reads(stores):
    """Negative control: a kept row that marks v1 current turns the public's current view into v1."""
    kept, _ = stores
    _meta(kept, """UPDATE meta SET value = '[["v1", "v1", 1, true], ["v2", "v3", 2, false]]' WHERE key = 'reader_views:*'""")
    assert _resolved(kept)[("public", None)] == "v1"


def test_whether_a_view_is_left_out_is_read_once_per_reader(stores, monkeypatch: pytest.MonkeyPatch):
    """``narrows_views`` (every ask asks it, ``readable.reader_narrowed``) reads the kept row once per reader and
    store object. Negative control: a second store object reads it again."""
    from chainret.store.sql import SQLStore

    kept, _ = stores
    reads: list[str] = []
    real = SQLStore._kept_reader_views
    monkeypatch.setattr(SQLStore, "_kept_reader_views", lambda self, reader: (reads.append(reader), real(self, reader))[1])
    store = open_store(str(kept))
    answers = [store.narrows_views(p) for p in (*PRINCIPALS, *PRINCIPALS)]
    assert answers[:3] == answers[3:] and reads == list(PRINCIPALS)
    store.close()
    again = open_store(str(kept))
    again.narrows_views("public")
    again.close()
    assert reads == [*PRINCIPALS, "public"]
