"""A hub's hop rows read from the lists a SQLite compile keeps (``chainret.store.hubindex``) are the in-memory index's.

The lists give a hub's units grouped by (term frequency, token count), walked best group first; the rows, ranks and
scores must be exactly what ``LexicalIndex`` (every unit ranked) returns, for each reader (restricted documents
hold some of the hub's best units), with and without the predicate's word, at every row budget.
"""

from __future__ import annotations

import random
import sqlite3
import sys
from pathlib import Path

import pytest

from chainret.catalog.models import Catalog
from chainret.engine.search import LexicalIndex
from chainret.store import compile_store, hubindex, open_store
from chainret.store.sqlindex import StoreIndex

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.peers.worlds import catalog  # noqa: E402

HUB, PRED = "org:t:hub", "contact"


def _world(seed: int) -> Catalog:
    """An org operating 90 projects with 4 contacts, and prose paragraphs that name it once or more among other
    words (so its units differ in term frequency and length), some holding ``contact``; a third of the documents
    are the auditor's."""
    rng = random.Random(seed)
    triples = [(f"project:t:p{i}", "operated_by", HUB) for i in range(90)]
    triples += [(HUB, "contact", f"contact:t:c{j}") for j in range(4)]
    rng.shuffle(triples)
    docs = [triples[i : i + 8] for i in range(0, len(triples), 8)]
    restricted = {d for d in range(len(docs)) if rng.random() < 0.33}
    ents = [("org", HUB, "Hub", []), *(("contact", f"contact:t:c{j}", f"Contact {j}", []) for j in range(4))]
    ents += [("project", f"project:t:p{i}", f"Project {i}", []) for i in range(90)]
    cat = catalog("hubtest", docs, ents, restricted)
    documents, relations = [], list(cat.relations)
    for doc in cat.documents:
        paras = [" ".join([HUB] * rng.randint(1, 3) + [PRED] * (rng.random() < 0.3) + ["word"] * rng.randint(0, 5))
                 for _ in range(rng.randint(0, 4))]
        text = doc.text + "".join(p + "\n\n" for p in paras)
        from chainret.catalog.models import sha256_digest

        new = doc.model_copy(update={"text": text, "digest": sha256_digest(text)})
        documents.append(new)
        relations = [r.model_copy(update={"support": r.support.model_copy(update={"digest": new.digest})})
                     if r.support.document == doc.document else r for r in relations]
    return cat.model_copy(update={"documents": documents, "relations": relations})


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kept_hub_rows_equal_every_unit_ranked(tmp_path, seed):
    cat = _world(seed)
    db = tmp_path / "hub.db"
    compile_store(cat, db)
    store = open_store(db)
    try:
        for principal in ("public", "auditor", "someone"):
            view = store.view(None, principal)
            ref = LexicalIndex(view.unit_texts())
            for k in (1, 2, 3, 5, 8, 40, 200):
                ix = StoreIndex(store, view.view_name, principal)
                n_units, total = store.corpus(view.view_name, principal)
                kept = ix._kept(HUB, PRED, k, n_units, total)
                assert kept is not None  # the hub's lists answer: not the ranking of every unit
                assert kept == ref.hop_search(HUB, PRED, k), (principal, k)
                assert ix._kept(HUB, None, k, n_units, total) == ref.search([HUB], k), (principal, k)
                assert ix._kept(HUB, "operated_by", k, n_units, total) == ref.hop_search(HUB, "operated_by", k), (principal, k)
                assert ix._kept("contact:t:c1", PRED, k, n_units, total) is None  # not a hub: ranked as before
    finally:
        store.close()


def test_the_reader_condition_matters_and_an_older_store_ranks_every_unit(tmp_path, monkeypatch):
    cat = _world(1)
    db = tmp_path / "hub.db"
    compile_store(cat, db)
    store = open_store(db)
    try:
        view = store.view(None, "public")
        n_units, total = store.corpus(view.view_name, "public")
        want = LexicalIndex(view.unit_texts()).hop_search(HUB, PRED, 40)
        # negative control: walking the lists without the reader's condition returns the auditor's units
        with monkeypatch.context() as m:
            m.setattr(hubindex, "READABLE", "({col} = {col} OR ? IS NULL OR ? IS NULL)")
            assert StoreIndex(store, view.view_name, "public")._kept(HUB, PRED, 40, n_units, total) != want
    finally:
        store.close()
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE hub_counts")
    conn.close()
    store = open_store(db)
    try:
        ix = StoreIndex(store, "current", "public")
        assert ix._kept(HUB, PRED, 40, n_units, total) is None
        assert ix.hop_search(HUB, PRED, 40) == want
    finally:
        store.close()


def _two_versions(seed: int) -> tuple[Catalog, Catalog]:
    """``_world(seed)`` less its last three documents (view ``first``), and the whole of it with a second view:
    an append-only update that adds units naming the hub."""
    from chainret.catalog.models import View

    full = _world(seed)
    kept = full.documents[:-3]
    names = {d.document for d in kept}
    v1 = full.model_copy(update={"documents": kept, "relations": [r for r in full.relations if r.support.document in names],
                                 "views": [View(name="first", current=True, documents=[d.ref for d in kept])]})
    v2 = full.model_copy(update={"views": [View(name="first", current=False, documents=[d.ref for d in kept]),
                                           View(name="second", current=True, documents=[d.ref for d in full.documents])]})
    return v1, v2


def _derived(db: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(db) as c:
        return {t: sorted(c.execute(f"SELECT * FROM {t}").fetchall(), key=repr)
                for t in ("hub_ranked", "hub_classes", "hub_counts", "pair_counts")}


def test_an_update_keeps_the_hub_lists_a_compile_keeps(tmp_path):
    """``compile_store(v1)`` then ``update_store(v2)`` leaves the hub lists and pair counts as ``compile_store(v2)``
    does (an update rewrites them from the stored rows); negative control: one changed count is seen."""
    from chainret.store import update_store

    v1, v2 = _two_versions(1)
    compile_store(v2, tmp_path / "compiled.db")
    compile_store(v1, tmp_path / "updated.db")
    update_store(v2, tmp_path / "updated.db")
    compiled, updated = _derived(tmp_path / "compiled.db"), _derived(tmp_path / "updated.db")
    assert compiled["hub_ranked"] and compiled["hub_counts"]
    assert compiled == updated
    with sqlite3.connect(tmp_path / "updated.db") as c:
        c.execute("UPDATE hub_counts SET n = n + 1 WHERE (term, view_name, principal) = "
                  "(SELECT term, view_name, principal FROM hub_counts ORDER BY 1, 2, 3 LIMIT 1)")
    assert _derived(tmp_path / "updated.db") != compiled
