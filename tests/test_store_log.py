"""The per-viewer append-only log of a compiled store (docs/proof.md): tree, checkpoints, proofs in traces.

A viewer's checkpoint is its revision: it moves only when what that viewer may read grows. So a restricted-only
update leaves the public checkpoint as it was and moves the auditor's (the negative control: the same comparison
does see a change), and a public update moves both, with a consistency proof between the old and new heads.
"""

from __future__ import annotations

import base64
import json
from unittest import mock
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from chainret.catalog.load import load_world
from chainret.catalog.models import Catalog, Relation, SourceDocument, Support, sha256_digest
from chainret.core import tlog
from chainret.pipeline.ask import ask
from chainret.store import compile_store, open_store, update_store
from chainret.store.log import store_log
from chainret.store.schema import UNIT_REF
from chainret.verify.offline import verify_envelope
from chainret.verify.signing import generate_keys, load_private_key, load_public_key, sign_trace

pytest.importorskip("cryptography")
pytest.importorskip("rfc8785")

SEED = Path(__file__).resolve().parents[1] / "fixtures" / "seed"
REQUEST = "Which contact serves PR-84?"
RESTRICTED = "audit/findings.md@v1"


def _mth(hashes: list[bytes]) -> bytes:
    """RFC 9162's MTH written as the recursion the RFC states (the reference the tree code is tested against)."""
    if len(hashes) == 1:
        return hashes[0]
    k = 1 << ((len(hashes) - 1).bit_length() - 1)
    return tlog.node_hash(_mth(hashes[:k]), _mth(hashes[k:]))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 70), st.data())
def test_proofs_verify_and_a_changed_leaf_or_root_does_not(n: int, data: st.DataObject):
    leaves = [tlog.leaf_hash(i.to_bytes(4, "big")) for i in range(n)]

    def get(level: int, idx: int) -> bytes:
        return _mth(leaves[idx << level:(idx + 1) << level])

    root = _mth(leaves)
    assert tlog.root_hash(get, n) == root
    m = data.draw(st.integers(0, n - 1))
    path = tlog.inclusion_proof(get, m, n)
    assert tlog.verify_inclusion(m, n, leaves[m], path, root)
    other = tlog.leaf_hash(b"other")
    assert not tlog.verify_inclusion(m, n, other, path, root)  # negative control: the check can fail
    bigger = _mth([*leaves, other])  # a proof for another tree size does not reach that tree's root
    assert not tlog.verify_inclusion(m, n + 1, leaves[m], path, bigger)
    old = data.draw(st.integers(1, n))
    proof = tlog.consistency_proof(get, old, n)
    assert tlog.verify_consistency(old, n, _mth(leaves[:old]), root, proof)
    if old < n:
        assert not tlog.verify_consistency(old, n, _mth([other, *leaves[1:old]]), root, proof)


def _stating(doc: SourceDocument, rel_id: str, clause: str) -> tuple[SourceDocument, Relation]:
    """``doc`` with a ``REL s | p | o`` clause appended as a paragraph of its own, and the relation it supports. (The
    log's leaves are anchors, a relation each: a document that states none adds no leaf.)"""
    text = doc.text + "\n" + clause + "\n"
    start = len(doc.text) + 1
    doc = doc.model_copy(update={"text": text, "digest": sha256_digest(text)})
    s, p, o = (part.strip() for part in clause.removeprefix("REL ").split("|"))
    support = Support(source=doc.source, document=doc.document, version=doc.version, representation=doc.representation,
                      digest=doc.digest, span=(start, start + len(clause)), quote=clause)
    return doc, Relation(id=rel_id, subject=s, predicate=p, object=o, support=support)


def _versions() -> tuple[Catalog, Catalog, Catalog]:
    """v1: the seed world without its restricted document; v2 adds only it (a restricted-only update, with a view
    that holds it), stating one relation; v3 then adds a public document (a new version of a public document and a
    view) that states one relation."""
    full = load_world(SEED).catalog
    restricted, hidden = _stating(full.documents_by_ref[RESTRICTED], "rel-audit", "REL org:final:north | contact | contact:final:desk")
    public_docs = [d for d in full.documents if d.ref != RESTRICTED]
    views = [v.model_copy(update={"documents": [d for d in v.documents if d != RESTRICTED]}) for v in full.views]
    v1 = full.model_copy(update={"documents": public_docs, "views": views})
    audited = views[-1].model_copy(update={"name": "audited", "order": 3, "current": False,
                                           "documents": [*views[-1].documents, RESTRICTED]})
    v2 = full.model_copy(update={"documents": [*public_docs, restricted], "views": [*views, audited],
                                 "relations": [*full.relations, hidden]})
    extra, stated = _stating(full.documents_by_ref["notes/newsletter.md@v1"].model_copy(update={"version": "v2"}), "rel-news",
                             "REL project:final:main | operated_by | org:final:north")
    held = [d for d in audited.documents if d != "notes/newsletter.md@v1"]  # a view holds one version per document
    later = audited.model_copy(update={"name": "later", "order": 4, "documents": [*held, extra.ref]})
    v3 = full.model_copy(update={"documents": [*public_docs, restricted, extra], "views": [*views, audited, later],
                                 "relations": [*full.relations, hidden, stated]})
    return tuple(c.model_validate(c.model_dump()) for c in (v1, v2, v3))  # type: ignore[return-value]


def _heads(db: Path) -> dict[str, tuple[int, str]]:
    log = store_log(open_store(db))
    assert log is not None
    return {c: (log.checkpoints(c)[-1]["size"], log.checkpoints(c)[-1]["root"]) for c in log.classes}


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One store per write: v1 compiled, then updated to v2 (restricted only), then to v3 (public)."""
    tmp = tmp_path_factory.mktemp("log")
    v1, v2, v3 = _versions()
    out = {"v1": tmp / "v1.db", "v2": tmp / "v2.db", "v3": tmp / "v3.db"}
    compile_store(v1, out["v1"])
    for before, name, cat in (("v1", "v2", v2), ("v2", "v3", v3)):
        out[name].write_bytes(out[before].read_bytes())
        update_store(cat, out[name])
    return out


def test_a_restricted_only_update_leaves_the_public_checkpoint_and_moves_the_auditors(stores: dict[str, Path]):
    h1, h2 = _heads(stores["v1"]), _heads(stores["v2"])
    assert h2["*"] == h1["*"]  # the public may read nothing new: its revision does not move
    assert "auditor" in h2 and h2["auditor"][0] > h2["*"][0]  # (v1 named no auditor: its class begins at v2)
    assert h2[""] != h1[""] and h2[""][0] > h1[""][0]  # negative control: the audit log did move
    public_trace_1 = ask(REQUEST, str(stores["v1"]), view="final")
    public_trace_2 = ask(REQUEST, str(stores["v2"]), view="final")
    for key in ("origin", "size", "root"):
        assert public_trace_1.meta["log"][key] == public_trace_2.meta["log"][key]


def test_a_public_update_moves_every_checkpoint_consistently(stores: dict[str, Path]):
    h2, h3 = _heads(stores["v2"]), _heads(stores["v3"])
    assert all(h3[c][0] > h2[c][0] for c in ("", "*", "auditor"))
    log = store_log(open_store(stores["v3"]))
    assert log is not None
    for c in ("", "*", "auditor"):
        sizes = [h["size"] for h in log.checkpoints(c)]
        assert sizes == sorted(sizes)
        old, new = sizes[0], sizes[-1]
        proof = [tlog.unb64(p, "proof") for p in log.consistency(c, old, new)]
        roots = {h["size"]: tlog.unb64(h["root"], "root") for h in log.checkpoints(c)}
        assert tlog.verify_consistency(old, new, roots[old], roots[new], proof)
        assert not tlog.verify_consistency(old, new, roots[new], roots[new], proof)  # negative control


def test_the_leaves_are_what_each_class_may_read(stores: dict[str, Path]):
    """A leaf an anchor (a relation and its unit, log format 3): the public log holds no leaf of the restricted
    document's relations; the auditor's and the audit log hold all of them (the negative control: the same check of
    the public log does find them missing)."""
    import sqlite3

    conn = sqlite3.connect(stores["v3"])
    restricted = {o for (o,) in conn.execute(
        "SELECT r.ord FROM relations r JOIN documents d ON d.ord = r.doc_ord WHERE d.ref = ?", (RESTRICTED,))}
    stated = {o for (o,) in conn.execute("SELECT ord FROM relations WHERE unit_idx IS NOT NULL")}
    assert restricted
    for cls, holds in (("*", False), ("auditor", True), ("", True)):
        leaves = _leaves(conn, cls)
        assert {kind for _, kind, _ in leaves} == {"r"}  # (no unit has a leaf of its own)
        relations = {o for _, _, o in leaves}
        assert (restricted <= relations) is holds
        assert relations <= stated
        assert [i for i, _, _ in leaves] == list(range(len(leaves)))  # dense, in order
        assert len(leaves) == _heads(stores["v3"])[cls][0]
    conn.close()


def test_a_readers_entries_find_each_items_leaf_from_the_class_runs(stores: dict[str, Path]):
    """``StoreLog._entries`` finds each relation's leaf in one statement (the run that would hold it, one probe) with
    the unit it states: for every class, over every relation of the store, exactly the leaves the class's runs
    list, with the tile of each, and each unit's span and text; none past a smaller tree size. The negative control:
    the public class's log lacks the restricted document's relations, which then get no entry (the auditor's has
    them), and a proof for the public viewer shows none of its units."""
    import sqlite3

    from chainret.store import log as log_module

    conn = sqlite3.connect(stores["v3"])
    ids = {str(r): int(o) for r, o in conn.execute("SELECT id, ord FROM relations")}
    spans = {str(r): [int(a), int(b)] for r, a, b in conn.execute(f"SELECT {UNIT_REF}, start_, end_ FROM units u")}
    restricted = {str(r) for (r,) in conn.execute(
        "SELECT r.id FROM relations r JOIN documents d ON d.ord = r.doc_ord WHERE d.ref = ?", (RESTRICTED,))}
    log = store_log(open_store(stores["v3"]))
    assert log is not None and restricted
    for cls in ("*", "auditor", ""):
        tree, size = _tree(conn, cls), _heads(stores["v3"])[cls][0]
        want = {o: i for i, _, o in _leaves(conn, cls)}
        fetched: dict[tuple[int, int], Any] = {}
        units, relations = log._entries(tree, size, sorted(spans), sorted(ids), (None, None), fetched)
        assert {ids[r]: e["index"] for r, e in relations.items()} == want, cls
        assert {i >> log_module.TILE_HEIGHT for i in want.values()} == {t for _, t in fetched}
        assert (restricted <= set(relations)) is (cls != "*")
        assert units and all(spans[ref] == e["span"] and len(e["text"]) == e["span"][1] - e["span"][0] for ref, e in units.items())
        _, half = log._entries(tree, size // 2, sorted(spans), sorted(ids), (None, None), {})
        assert {e["index"] for e in half.values()} == {i for i in want.values() if i < size // 2}
    conn.close()
    # A proof shows a unit only beside an anchor of the class's own log: anchors on the restricted relation (its unit
    # with it) and a public one, proven against the public log, show neither the restricted relation nor its unit
    # (against the auditor's, both).
    from types import SimpleNamespace

    conn = sqlite3.connect(stores["v3"])
    rows = conn.execute("SELECT id, unit_ref, subject, predicate, object FROM relations WHERE id IN ('rel-audit', 'rel-1')").fetchall()
    conn.close()
    cited = {r: u for r, u, *_ in rows}
    trace = SimpleNamespace(hops=[SimpleNamespace(anchor=SimpleNamespace(relation_id=r, unit_ref=u), from_id=s, predicate=p, bridge=o)
                                  for r, u, s, p, o in sorted(rows)])
    for cls, shown in (("*", False), ("auditor", True)):
        proven = log.proofs(trace, cls)  # type: ignore[arg-type]
        assert proven is not None and "rel-1" in proven["relations"] and cited["rel-1"] in proven["units"]
        assert ("rel-audit" in proven["relations"]) is shown and (cited["rel-audit"] in proven["units"]) is shown


def _tree(conn: Any, cls: str) -> str:
    """The class whose runs and tiles hold a class's log: its own, or the audit log it shares (SQLite)."""
    found = conn.execute("SELECT value FROM log_info WHERE key = ?", ("tree:" + cls,)).fetchone()
    return str(found[0]) if found else cls


def _leaves(conn: Any, cls: str) -> list[tuple[int, str, int]]:
    """(index, kind, item ord) of every leaf of a class's log, from its runs."""
    return sorted((idx + k, kind, o + k) for kind, o, idx, n in conn.execute(
        "SELECT kind, item_ord, idx, length FROM log_runs WHERE principal = ?", (_tree(conn, cls),)) for k in range(n))


def test_a_recompile_holds_the_same_leaves_in_history_order(stores: dict[str, Path], tmp_path: Path):
    """A log's order is its history: compiling v3 afresh holds the same leaves as the three writes made (each
    class, as a set), and two compiles of one catalog make the same trees, root for root (deterministic order)."""
    import sqlite3

    _, _, v3 = _versions()
    for name in ("a.db", "b.db"):
        compile_store(v3, tmp_path / name)
    assert {c: h for c, h in _heads(tmp_path / "a.db").items()} == _heads(tmp_path / "b.db")

    def leaves(db: Path) -> dict[str, set[bytes]]:
        conn = sqlite3.connect(db)
        out: dict[str, set[bytes]] = {}
        for (p,) in conn.execute("SELECT DISTINCT principal FROM log_checkpoints"):
            for (hashes,) in conn.execute("SELECT hashes FROM log_tiles WHERE level = 0 AND principal = ?", (_tree(conn, p),)):
                out.setdefault(p, set()).update(hashes[i:i + tlog.HASH_SIZE] for i in range(0, len(hashes), tlog.HASH_SIZE))
        conn.close()
        return out

    assert leaves(tmp_path / "a.db") == leaves(stores["v3"])


def test_a_trace_from_a_store_with_a_log_verifies_offline_and_its_proofs_are_the_viewers(stores: dict[str, Path], tmp_path: Path):
    priv, pub = generate_keys(tmp_path / "keys")
    key, public_key = load_private_key(priv), load_public_key(pub)
    for principal in ("public", "auditor"):
        trace = ask(REQUEST, str(stores["v3"]), view="final", principal=principal)
        assert trace.outcome == "accepted_path" and trace.meta["log"]["units"]
        env = sign_trace(trace, key)
        result = verify_envelope(json.dumps(env).encode(), public_key)
        assert result.ok, result.failed
        statement = json.loads(tlog.unb64(env["payload"], "payload"))
        assert statement["predicate"]["checkpoint"].startswith(trace.meta["log"]["origin"] + "\n")
    heads = _heads(stores["v3"])
    public = ask(REQUEST, str(stores["v3"]), view="final")
    assert (public.meta["log"]["size"], public.meta["log"]["root"]) == heads["*"]
    audit = ask(REQUEST, str(stores["v3"]), view="final", project=False)
    assert (audit.meta["log"]["size"], audit.meta["log"]["root"]) == heads[""]


def test_a_store_without_a_log_and_a_catalog_file_give_traces_without_one(tmp_path: Path):
    trace = ask(REQUEST, str(SEED), view="final")
    assert "log" not in trace.meta


def _main(args: list[str]) -> int:
    from chainret.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(args)
    return int(exit_.value.code or 0)


def test_catalog_log_cli(stores: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]):

    priv, _ = generate_keys(tmp_path / "k")
    assert _main(["catalog", "log", str(stores["v3"]), "--principal", "public", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    heads = report["logs"][0]["checkpoints"]
    assert report["logs"][0]["class"] == "public" and len(heads) == 3 and heads[0]["size"] == heads[1]["size"]
    old, new = heads[0]["size"], heads[-1]["size"]
    assert _main(["catalog", "log", str(stores["v3"]), "--principal", "public", "--consistency", str(old), str(new),
                 "--key", str(priv), "--json"]) == 0
    proof = json.loads(capsys.readouterr().out)
    assert proof["consistency"]["checkpoint"].startswith(report["logs"][0]["origin"] + "\n")
    # trace sign --consistency: the earlier public checkpoint proven a prefix of the trace's, checked offline
    (tmp_path / "proof.json").write_text(json.dumps(proof))
    assert _main(["ask", REQUEST, "--catalog", str(stores["v3"]), "--view", "final", "--trace-out", str(tmp_path / "t.json")]) == 0
    assert _main(["trace", "sign", str(tmp_path / "t.json"), "--key", str(priv), "--out", str(tmp_path / "t.env"),
                  "--consistency", str(tmp_path / "proof.json")]) == 0
    env = json.loads((tmp_path / "t.env").read_text())
    assert json.loads(tlog.unb64(env["payload"], "payload"))["predicate"]["consistency"] == proof["consistency"]
    assert _main(["trace", "verify", "--offline", "--key", str(tmp_path / "k" / "key.pub"), str(tmp_path / "t.env")]) == 0
    assert _main(["catalog", "log", str(stores["v3"]), "--consistency", "1", "2"]) == 2  # which viewer's log?


def test_ask_no_proofs_leaves_the_log_claim_out(stores: dict[str, Path], tmp_path: Path):
    """``chainret ask --no-proofs`` (both the fast path and typer's table) writes the trace without ``meta.log``;
    without the flag the same ask carries it (the control)."""
    for flags, has_log in (([], True), (["--no-proofs"], False)):
        out = tmp_path / f"t{len(flags)}.json"
        assert _main(["ask", REQUEST, "--catalog", str(stores["v3"]), "--view", "final", "--trace-out", str(out), *flags]) == 0
        assert ("log" in json.loads(out.read_text())["meta"]) is has_log, flags


def test_serve_signs_the_traces_it_returns_and_a_public_one_verifies_without_the_store(stores: dict[str, Path], tmp_path: Path):
    """`serve --sign-key`: a public viewer's /ask answer carries its trace signed, with the log's proofs; it verifies
    offline with the public key alone, in both verifiers. Without a key there is no envelope (never a fake one)."""
    pytest.importorskip("fastapi")
    import shutil

    from support import independent_verifier

    from chainret.server.auth import Identity
    from chainret.server.service import AskIn, Service

    priv, pub = generate_keys(tmp_path / "keys")
    db = tmp_path / "served.db"
    shutil.copyfile(stores["v3"], db)
    served = Service(str(db), sign_key=str(priv)).ask(Identity("public"), AskIn(request=REQUEST, view="final"))
    assert served.envelope is not None and served.trace.meta["log"]["units"]
    envelope = json.dumps(served.envelope).encode()
    db.unlink()  # the verifier has the envelope and the public key, not the store
    assert verify_envelope(envelope, load_public_key(pub)).ok
    assert independent_verifier.verify(envelope, pub.read_bytes()) == []
    unsigned = Service(str(stores["v3"])).ask(Identity("public"), AskIn(request=REQUEST, view="final"))
    assert unsigned.envelope is None


def test_online_verify_checks_the_log_claim_against_the_store(stores: dict[str, Path]):
    """`trace verify` against the store: the trace's checkpoint must be one the store's log had for its viewer, and
    its proofs must hold; a forged root, a foreign log or an edited unit text is a difference (the untouched trace,
    the negative control, verifies)."""
    from chainret.verify.replay import verify

    store = open_store(stores["v3"])
    trace = ask(REQUEST, store, view="final")
    assert verify(trace, store).status == "verified"
    older = ask(REQUEST, open_store(stores["v1"]), view="final")  # an earlier checkpoint of the same log
    assert older.meta["log"]["size"] < trace.meta["log"]["size"]
    assert not [d for d in verify(older, store).differences if d.field.startswith("meta.log")]

    def edited(change: Any) -> Any:
        data = json.loads(trace.to_json())
        change(data["meta"]["log"])
        return verify(type(trace).model_validate(data), store)

    forged = edited(lambda lg: lg.update(root=base64.b64encode(bytes(32)).decode()))
    assert forged.status == "mismatch" and forged.differences[-1].field == "meta.log.root"
    foreign = edited(lambda lg: lg.update(origin=lg["origin"].rsplit("/", 1)[0] + "/audit"))
    assert foreign.status == "mismatch" and foreign.differences[-1].field == "meta.log.origin"

    def retext(lg: dict[str, Any]) -> None:
        unit = next(iter(lg["units"].values()))
        unit["text"] = unit["text"][:-1] + "?"

    assert edited(retext).differences[-1].field == "meta.log"


def test_appending_in_batches_makes_the_same_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A large write appends each class's leaves a batch at a time: batches of 3 (against one of 20,000 here)
    give the same checkpoints, so the perfect subtrees a batch completes across its boundary are right."""
    import chainret.store.log as log_module

    _, _, v3 = _versions()
    compile_store(v3, tmp_path / "whole.db")
    monkeypatch.setattr(log_module, "APPEND_BATCH", 3)
    compile_store(v3, tmp_path / "batched.db")
    assert _heads(tmp_path / "batched.db") == _heads(tmp_path / "whole.db")


def _grown_log(batches: list[int]) -> tuple[Any, Any, list[bytes]]:
    """A public class's log in an in-memory SQLite database, appended a batch at a time: (connection, writer, leaves)."""
    import sqlite3

    from chainret.store import log as log_module

    conn = sqlite3.connect(":memory:")
    db = log_module.SQLiteLogWriter(conn)
    for stmt in log_module.log_create_statements():
        db.execute(stmt)
    leaves: list[bytes] = []
    for count in batches:
        new = [tlog.leaf_hash(len(leaves).to_bytes(4, "big") + bytes([i % 251])) for i in range(count)]
        log_module._append(db, "*", len(leaves), [("r", len(leaves) + i, h) for i, h in enumerate(new)])
        leaves += new
    return conn, db, leaves


def test_a_leaf_tile_keeps_its_foot_and_level_3_and_a_tile_above_levels_2_to_4():
    """Log format 3+tiles2: a whole leaf tile stores its 32 leaf hashes and the 4 level-3 subtrees (36 hashes, where
    format 3 stored 46), a whole tile above the leaves' its foot and levels 2 to 4 (8, 4 and 2); what a leaf tile no
    longer holds is hashed again from its foot, equal to RFC 9162's MTH (levels 2 and 4 of every whole leaf tile).
    Negative control: the same tile with its level-3 hashes cut off still answers for levels 1 and 2 (hashed from its
    foot) and for neither 3 nor 4, which it reads (4 from 3)."""
    from chainret.store import log as log_module

    conn, db, leaves = _grown_log([2_100])
    width, n = log_module.TILE_WIDTH, tlog.HASH_SIZE
    shapes = {(level, len(hashes) // n, len(above) // n) for level, hashes, above in conn.execute(
        "SELECT level, hashes, above FROM log_tiles WHERE length(hashes) = ?", (width * n,))}
    assert shapes == {(0, 32, 4), (1, 32, 14)}
    nodes = log_module._Nodes(db, "*")
    for t in range(len(leaves) // width):
        for level in (2, 4):
            for k in range(width >> level):
                idx = (t << (log_module.TILE_HEIGHT - level)) + k
                assert nodes.get(level, idx) == _mth(leaves[idx << level:(idx + 1) << level]), (t, level, k)
    whole = nodes._tile(0, 0)
    assert whole is not None
    def cut(t_level: int, t_idx: int) -> tuple[bytes, bytes] | None:
        return (whole[0], b"") if (t_level, t_idx) == (0, 0) else None

    assert [log_module.tile_node(cut, level, 0) for level in (1, 2)] == [_mth(leaves[:2]), _mth(leaves[:4])]
    assert [log_module.tile_node(cut, level, 0) for level in (3, 4)] == [None, None]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 700), min_size=1, max_size=4))
def test_tiles_hold_every_subtree_of_the_rfc_tree_however_the_leaves_are_appended(batches: list[int]):
    """``log_tiles`` keeps a leaf tile's foot and level 3, and the foot and levels 2 to 4 of a tile above (log format
    3+tiles2), and hashes the rest again: every perfect subtree
    read back equals RFC 9162's MTH of its leaves, with the tree grown in batches (each rewriting the right edge's
    tiles; up to 2,800 leaves: three tile levels), and a subtree the tree has not completed yet is not there (a
    partial tile's next level does not answer for it: the negative control)."""
    from chainret.store import log as log_module

    conn, db, leaves = _grown_log(batches)
    nodes = log_module._Nodes(db, "*")
    size, level = len(leaves), 0
    while size >> level:
        for idx in range(size >> level):
            assert nodes.get(level, idx) == _mth(leaves[idx << level:(idx + 1) << level]), (level, idx)
        assert log_module.tile_node(nodes._tile, level, size >> level) is None  # not complete: not there
        level += 1
    assert tlog.root_hash(nodes.get, size) == _mth(leaves)
    for i in range(size & -log_module.TILE_WIDTH):  # a whole tile's leaves: the first hashes of their paths, read at once
        tile = nodes._tile(0, i >> log_module.TILE_HEIGHT)
        assert tile is not None
        assert log_module.leaf_foot_hashes(tile, i % log_module.TILE_WIDTH) == b"".join(
            _mth(leaves[((i >> lv) ^ 1) << lv:(((i >> lv) ^ 1) + 1) << lv]) for lv in range(log_module.TILE_HEIGHT)), i
    runs = conn.execute("SELECT kind, item_ord, idx, length FROM log_runs").fetchall()
    assert sorted(runs) == [("r", o, o, n) for o, n in _batch_starts(batches)]  # one run a batch: consecutive ordinals
    stored = sum(len(h) + len(i) for h, i in conn.execute("SELECT hashes, above FROM log_tiles"))
    # a leaf tile's foot and level 3 (36 hashes a 32 leaves), the tiles above with levels 2 to 4 (46 a 1,024 leaves)
    assert stored <= (36 / 32 + 46 / 1024 + 0.02) * tlog.HASH_SIZE * size


def _rfc_path(leaves: list[bytes], m: int) -> list[bytes]:
    """RFC 9162 PATH(m, D[n]) written as the RFC's recursion (the reference the reader's paths are held to)."""
    if len(leaves) == 1:
        return []
    k = 1 << ((len(leaves) - 1).bit_length() - 1)
    if m < k:
        return [*_rfc_path(leaves[:k], m), _mth(leaves[k:])]
    return [*_rfc_path(leaves[k:], m - k), _mth(leaves[:k])]


@settings(max_examples=12, deadline=None)
@given(st.lists(st.integers(1, 1400), min_size=1, max_size=3), st.data())
def test_a_readers_audit_paths_are_the_rfcs_for_every_leaf(batches: list[int], data: st.DataObject):
    """``StoreLog.audit_paths`` reads a path from whole tiles at every tile level and the right edge above them, and
    keeps the part above a leaf's tile for the tile's other leaves: every leaf's path, asked in any order and
    again from the kept parts, is RFC 9162's PATH (up to 4,200 leaves: whole tiles at two levels, a partial one
    above). The negative control: with one hash of a leaf tile changed in the store, a fresh reader's path differs."""
    from chainret.store import log as log_module

    conn, db, leaves = _grown_log(batches)
    size = len(leaves)
    reader = log_module.StoreLog(lambda sql, params=(), *scope: conn.execute(sql, tuple(params)).fetchall(), "w")
    order = data.draw(st.permutations(range(size)))
    rfc = _rfc_paths(leaves)  # (the RFC's recursion with each range's MTH kept: held to ``_rfc_path`` itself below)
    for index in order[:3]:
        assert rfc(index) == _rfc_path(leaves, index)
    for index in [*order, *order[: size // 3]]:  # (the second pass reads the kept parts)
        assert reader.audit_paths("*", size, [index])[index] == _b64_path(rfc(index)), index
    if size >= log_module.TILE_WIDTH:  # the negative control: a leaf tile's sibling hash changed in the store
        hashes, = conn.execute("SELECT hashes FROM log_tiles WHERE principal = '*' AND level = 0 AND idx = 0").fetchone()
        conn.execute("UPDATE log_tiles SET hashes = ? WHERE principal = '*' AND level = 0 AND idx = 0",
                     (bytes([hashes[0] ^ 1]) + hashes[1:],))
        fresh = log_module.StoreLog(reader._rows, "w")
        assert fresh.audit_paths("*", size, [1])[1] != _b64_path(_rfc_path(leaves, 1))


def _b64_path(hashes: list[bytes]) -> str:
    """A path as a trace writes it (docs/proof.md): its hashes one after another, in one base64 string."""
    return tlog.b64(b"".join(hashes))


def _rfc_paths(leaves: list[bytes]) -> Any:
    """RFC 9162 PATH(m, D[n]) as ``_rfc_path`` states it, with each range's MTH kept: for trees too big to hash
    whole again for every path."""
    from functools import cache

    @cache
    def mth(lo: int, hi: int) -> bytes:
        if hi - lo == 1:
            return leaves[lo]
        k = 1 << ((hi - lo - 1).bit_length() - 1)
        return tlog.node_hash(mth(lo, lo + k), mth(lo + k, hi))

    def path(m: int, lo: int, hi: int) -> list[bytes]:
        if hi - lo == 1:
            return []
        k = 1 << ((hi - lo - 1).bit_length() - 1)
        if m < lo + k:
            return [*path(m, lo, lo + k), mth(lo + k, hi)]
        return [*path(m, lo + k, hi), mth(lo, lo + k)]

    return lambda m: path(m, 0, len(leaves))


def test_a_readers_audit_paths_are_the_rfcs_under_whole_tiles_two_levels_up():
    """Above the leaves' tiles' parents, a reader makes the paths of a whole tile's 32 ancestors at once (they share
    the path above it): in a tree of 40,000 leaves (a whole tile two levels up: 32,768 leaves, then a partial one),
    a leaf under each of those ancestors, and leaves past them, read in any order, have RFC 9162's PATH, made when
    the upper tiles are read or, where too many to keep, as they are met. The negative control: with one hash of that tile changed in the store, a fresh reader's path differs."""
    import random

    from chainret.store import log as log_module

    conn, _, leaves = _grown_log([40_000])
    size, rfc = len(leaves), _rfc_paths(leaves)
    span = 1 << (2 * log_module.TILE_HEIGHT)  # (leaves under one hash of the tile two levels up)
    pick = random.Random(7)
    indexes = [k * span + pick.randrange(span) for k in range(size // span)] + [pick.randrange(size) for _ in range(40)]
    pick.shuffle(indexes)
    reader = log_module.StoreLog(lambda sql, params=(), *scope: conn.execute(sql, tuple(params)).fetchall(), "w")
    for index in [*indexes, *indexes[:10]]:  # (the second pass reads the kept parts)
        assert reader.audit_paths("*", size, [index])[index] == _b64_path(rfc(index)), index
    # (Too few to make them at once: as met, the maps emptied often; and the tree too large for every leaf tile's
    # part above it to be kept, so a leaf tile's parent's five hashes are sliced from that tile, kept once read.)
    with mock.patch.object(log_module, "ABOVE_KEPT", 40):
        small = log_module.StoreLog(reader._rows, "w")
        for index in [*indexes, *indexes[:10]]:
            assert small.audit_paths("*", size, [index])[index] == _b64_path(rfc(index)), index
        assert max(map(len, small._above)) <= 40 + 2 * log_module.TILE_WIDTH
        assert any(level == 1 for _, level, _ in small._tiles)
    hashes, = conn.execute("SELECT hashes FROM log_tiles WHERE principal = '*' AND level = 2 AND idx = 0").fetchone()
    conn.execute("UPDATE log_tiles SET hashes = ? WHERE principal = '*' AND level = 2 AND idx = 0",
                 (hashes[:tlog.HASH_SIZE] + bytes([hashes[tlog.HASH_SIZE] ^ 1]) + hashes[tlog.HASH_SIZE + 1:],))
    fresh = log_module.StoreLog(reader._rows, "w")
    assert fresh.audit_paths("*", size, [0])[0] != _b64_path(rfc(0))  # (leaf 0's sibling two tiles up: hash 1)


@pytest.mark.parametrize("kept", [None, 40])
def test_a_requests_leaves_read_at_once_have_the_rfcs_paths(kept: int | None):
    """A proof asks ``StoreLog.audit_paths`` for all its leaves at once, and each leaf's path is one base64 string of
    its hashes, its own tile's and its parent's written out around the part kept for later leaves (the part above
    its tile, in a large tree above its tile's parent): leaves under one tile, under one parent, under different
    ones and at the right edge, read together (before and after the upper tiles are read, and again from the kept
    parts), have RFC 9162's PATH. ``kept``: ``ABOVE_KEPT`` as it is (a small tree: every leaf tile's part above it
    kept) or 40 (a large one's: the parent's five sliced from that tile). The negative control: the kept parts
    changed, the next read differs (the reads above did use them)."""
    from chainret.store import log as log_module

    conn, _, leaves = _grown_log([40_000])
    size, rfc = len(leaves), _rfc_paths(leaves)
    wanted = sorted({0, 1, 2, 31, 32, 33, 1023, 1024, 5000, 5001, 32_767, 32_768, 39_990, size - 33, size - 1})
    with mock.patch.object(log_module, "ABOVE_KEPT", kept or log_module.ABOVE_KEPT):
        reader = log_module.StoreLog(lambda sql, params=(), *scope: conn.execute(sql, tuple(params)).fetchall(), "w")
        for _ in range(3):  # (the second read keeps the upper tiles: the large tree's parents then come from them)
            assert reader.audit_paths("*", size, wanted) == {i: _b64_path(rfc(i)) for i in wanted}
        assert kept is None or any(level == 1 for _, level, _ in reader._tiles)
        for parts in reader._above:  # the negative control
            for key, part in parts.items():
                parts[key] = bytes(len(part))
        assert reader.audit_paths("*", size, wanted) != {i: _b64_path(rfc(i)) for i in wanted}


def _batch_starts(batches: list[int]) -> list[tuple[int, int]]:
    out, start = [], 0
    for n in batches:
        out.append((start, n))
        start += n
    return out


@pytest.mark.parametrize("earlier", ["rfc9162-sha256/1", "rfc9162-sha256/2", "rfc9162-sha256/3"])
def test_a_store_of_the_earlier_log_format_proves_nothing_and_is_not_appended_to(stores: dict[str, Path], tmp_path: Path,
                                                                                 earlier: str):
    """A store whose log is format 1 (a row a leaf and a subtree: its tables are not this format's) or 2 (a leaf per
    unit and one per relation: its trees hold other leaves) gives traces without ``meta.log`` rather than proofs read
    from the wrong tables or trees, and an ``--update`` of it is refused with the advice to compile it again; the
    same update of the store as written (the control) goes through."""
    import sqlite3

    from chainret.store.base import StoreError

    _, v2, _ = _versions()
    old = tmp_path / "old.db"
    old.write_bytes(stores["v1"].read_bytes())
    conn = sqlite3.connect(old)
    with conn:
        conn.execute("UPDATE log_info SET value = ? WHERE key = 'format'", (earlier,))
        conn.execute("UPDATE meta SET value = ? WHERE key = 'log'", (earlier,))
    conn.close()
    assert "log" not in ask(REQUEST, str(old), view="final").meta
    with pytest.raises(StoreError, match=f"log is of format '{earlier}'.*compile"):
        update_store(v2, old)
    fresh = tmp_path / "fresh.db"
    fresh.write_bytes(stores["v1"].read_bytes())
    update_store(v2, fresh)
    assert "log" in ask(REQUEST, str(fresh), view="final").meta


def test_a_class_that_reads_what_the_audit_log_holds_shares_its_tree_until_it_may_not(stores: dict[str, Path], tmp_path: Path):
    """SQLite keeps a log that is the audit log leaf for leaf once: v1 holds no restricted document, so the public log
    is the audit log (no runs or tiles of its own) and its traces verify offline; v2 adds what the public may not
    read, so the public log parts with a copy of its tree as it was (its checkpoint unchanged, the same proofs). The
    auditor's log, begun at v2 with another order, is its own (the control: the test can see a log that is not
    shared); compiled afresh from v2, where the auditor reads everything, it is shared."""
    import sqlite3

    def owners(db: Path) -> dict[str, str]:
        conn = sqlite3.connect(db)
        try:
            rows = {c: {p for (p,) in conn.execute(f"SELECT DISTINCT principal FROM {t}")} for c, t in (("runs", "log_runs"), ("tiles", "log_tiles"))}
            assert rows["runs"] == rows["tiles"]
            return {c: _tree(conn, c) for (c,) in conn.execute("SELECT DISTINCT principal FROM log_checkpoints")} | {
                "stored": ",".join(sorted(rows["runs"]))}
        finally:
            conn.close()

    assert owners(stores["v1"]) == {"": "", "*": "", "stored": ""}
    assert owners(stores["v2"]) == {"": "", "*": "*", "auditor": "auditor", "stored": ",*,auditor"}
    priv, pub = generate_keys(tmp_path / "keys")
    key, public_key = load_private_key(priv), load_public_key(pub)
    traces = [ask(REQUEST, str(stores[v]), view="final") for v in ("v1", "v2")]
    for trace in traces:
        assert verify_envelope(json.dumps(sign_trace(trace, key)).encode(), public_key).ok
    assert traces[0].meta["log"]["units"] == traces[1].meta["log"]["units"]
    _, v2, _ = _versions()
    compile_store(v2, tmp_path / "v2.db")
    assert owners(tmp_path / "v2.db") == {"": "", "*": "*", "auditor": "", "stored": ",*"}
    assert _heads(tmp_path / "v2.db")["auditor"] == _heads(tmp_path / "v2.db")[""]
    auditor = ask(REQUEST, str(tmp_path / "v2.db"), view="final", principal="auditor")
    assert auditor.meta["log"]["origin"].endswith("/principal/auditor")
    assert verify_envelope(json.dumps(sign_trace(auditor, key)).encode(), public_key).ok


def test_a_store_that_keeps_relations_whole_proves_each_anchor_as_one_of_schema_10(stores: dict[str, Path], tmp_path: Path):
    """A SQLite store of schema 9 (relations whole, still read) names a relation's unit by its ref, not its index: a
    proof reads the unit from the ref's index and gives the same ``meta.log`` as the schema-10 store it was made from,
    units and texts included. The negative control: read as schema 10's (the unit by ``unit_idx``, a column that
    store lacks), the statement fails."""
    import sqlite3

    from store_worlds import as_schema_9

    from chainret.store.log import StoreLog

    whole = tmp_path / "whole.db"
    whole.write_bytes(stores["v3"].read_bytes())
    as_schema_9(whole)
    for view, principal in (("final", "public"), ("later", "auditor")):
        packed = ask(REQUEST, str(stores["v3"]), view=view, principal=principal)
        kept = ask(REQUEST, str(whole), view=view, principal=principal)
        assert packed.meta["log"]["units"] and kept.meta["log"] == packed.meta["log"], (view, principal)
    conn = sqlite3.connect(whole)
    try:
        as_ten = StoreLog(lambda sql, params=(), *scope: conn.execute(sql, tuple(params)).fetchall(), "w", packed=True)
        with pytest.raises(sqlite3.OperationalError, match="unit_idx"):
            as_ten._entries("", 10, [], ["rel-1"], (None, None), {})
    finally:
        conn.close()


def test_a_proof_takes_each_relation_as_its_hop_states_it_and_a_misstated_one_fails(stores: dict[str, Path]):
    """Where every anchor's hop states its relation, a SQLite proof takes subject, predicate, object and unit ref from
    the trace (``StoreLog._anchors_sql``, stated) and gives the ``meta.log`` the store's own rows give (read through
    the view). The negative control: a hop that states another object than the store holds gets a relation entry
    of that object, whose leaf is in no log: the offline check fails it."""
    from chainret.verify.offline import proof_problems

    store = open_store(stores["v3"])
    log = store_log(store)
    assert log is not None
    trace = ask(REQUEST, store, view="final")
    stated = log.proofs(trace, "*")
    real = log._entries
    with mock.patch.object(log, "_entries", lambda *a: real(*a[:6], None)):  # (the view's rows, nothing taken from the trace)
        read = log.proofs(trace, "*")
    assert stated is not None and stated["relations"] and stated == read
    head = (stated["origin"], stated["size"], tlog.unb64(stated["root"], "root"))
    assert proof_problems(trace, stated, head) == ([], [])
    first = next(i for i, h in enumerate(trace.hops) if h.anchor is not None and h.bridge is not None)
    hops = list(trace.hops)
    hops[first] = hops[first].model_copy(update={"bridge": "contact:final:nobody"})
    misstated = trace.model_copy(update={"hops": hops})
    proven = log.proofs(misstated, "*")
    assert proven is not None and proven["relations"][hops[first].anchor.relation_id]["object"] == "contact:final:nobody"
    inclusion, _ = proof_problems(misstated, proven, head)
    assert inclusion and "does not hash to the checkpoint's root" in inclusion[0]


def test_a_proof_reads_the_relations_its_ask_read_by_their_ordinals_and_a_wrong_one_proves_nothing(stores: dict[str, Path]):
    """The relations a trace's hops followed were read by its ask, whose rows carry their ordinals
    (``SQLStore._known_ords``): the proof's statement reads them by rowid (``StoreLog._anchors_sql``, by_ord) and gives
    the ``meta.log`` the statement by ID gives (the control: the same proof with no ordinal known). A relation whose
    ordinal is wrong (another relation's) gets no entry under its ID, so its anchor is unproven, never proven by
    another relation's leaf."""
    from chainret.verify.offline import proof_problems

    store = open_store(stores["v3"])
    log = store_log(store)
    assert log is not None
    trace = ask(REQUEST, store, view="final")
    ids = sorted({h.anchor.relation_id for h in trace.hops if h.anchor is not None})
    assert ids and all(i in store._known_ords for i in ids)
    by_ord = log.proofs(trace, "*")
    assert any(key[3] for key in log._statements)  # (the statement by ordinal ran)
    with mock.patch.object(log, "_ords", {}):
        by_id = log.proofs(trace, "*")
    assert not all(key[3] for key in log._statements)
    assert by_ord is not None and by_ord["relations"] and by_ord == by_id
    head = (by_ord["origin"], by_ord["size"], tlog.unb64(by_ord["root"], "root"))
    assert proof_problems(trace, by_ord, head) == ([], [])
    wrong = dict(store._known_ords)
    others = [o for rid, o in wrong.items() if rid != ids[0]]
    assert others
    wrong[ids[0]] = others[0]
    with mock.patch.object(log, "_ords", wrong):
        misread = log.proofs(trace, "*")
    assert misread is not None and ids[0] not in misread["relations"]
    inclusion, _ = proof_problems(trace, misread, head)
    assert inclusion
