"""benchmarks.peers: on tiny worlds, every engine (bare SQLite join, DuckDB) returns chainret's answer sets,
and the harness catches an engine that does not."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb", reason="the peers benchmark needs DuckDB (pip install -e '.[peers]'); not installed here")
pytest.importorskip("ladybug", reason="the peers benchmark needs Ladybug (pip install -e '.[peers]'); not installed here")

from benchmarks.peers.engines import LadybugPeer, SQLiteFloor  # noqa: E402
from benchmarks.peers.run import page, run_world  # noqa: E402
from benchmarks.peers.worlds import FAN_CONTACTS, fan, standard  # noqa: E402


def test_every_engine_returns_chainrets_answer_sets():
    std, hub = run_world(standard(400, 8)), run_world(fan(30, 6))
    for r in (std, hub):
        assert set(r["engines"]) == {"chainret", "sqlite-join", "duckdb", "ladybug"}
        assert r["disagreements"] == [], r["disagreements"][:3]
        assert r["outcomes"] == {"accepted_path": r["requests"]}
    # the fan world's answer is a set, and the auditor reads one contact more than the public
    assert dict(hub["answer_sizes"]) == {"public": FAN_CONTACTS - 1, "auditor": FAN_CONTACTS}
    text = page([std, hub], {"processor": "x", "cpus": 2, "system": "s", "machine": "m", "python": "3", "sqlite": "3",
                             "duckdb": "1", "ladybug": "0", "pace_ns": 1.0, "load_before": (0, 0, 0), "load_after": (0, 0, 0)}, 1.0)
    assert "every engine returned chainret's answer set" in text and "| fan-30 |" in text


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

    for w in (group_world(6, 60, 2), fan_world(6, 60, 2)):
        r = run_sets(w, {"set": 1, "single": 2})
        assert r["disagreements"] == [], r["disagreements"][:3]
        cells = {(c["principal"], c["budget"], c["ask"]): c for c in r["cells"]}
        short, whole = cells[("auditor", "default", "set")], cells[("auditor", "rows_per_hop 8", "set")]
        assert (short["answered"], short["eligible"], short["complete"]) == (3, w.set_size, False)
        assert (whole["answered"], whole["complete"]) == (w.set_size, True)
        assert cells[("public", "rows_per_hop 8", "set")]["answered"] == w.set_size - 1


def test_control_a_floor_with_one_member_more_is_caught(monkeypatch):
    from benchmarks.peers.sets import PathFloor, group_world
    from benchmarks.peers.sets import run_world as run_sets

    real = PathFloor.answer_path
    monkeypatch.setattr(PathFloor, "answer_path", lambda self, a, p, h: real(self, a, p, h) | {"user:set:extra"})
    r = run_sets(group_world(6, 60, 2), {"set": 1, "single": 1})
    whys = {(d["budget"], d["why"].split(" ")[0]) for d in r["disagreements"]}
    assert ("default", "says") in whys and ("rows_per_hop 8", "complete") in whys
