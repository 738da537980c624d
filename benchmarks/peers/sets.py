"""Set answers: what a many-valued hop costs chainret, what it reads, and whether it says honestly how much it returned.

    python -m benchmarks.peers sets --sizes 10k --members 10,100,1000,10000 --write   # docs/results/sets.md

Two worlds a set size ``k``, each padded with look-alike filler to ``--sizes`` relations:

* ``group-k``: one group with ``k`` members (``has_member``, many-valued; the last member in a document only
  ``auditor`` may read); the set ask is "Who is on GRP-HUB?", the single-valued ask on the same world is
  "Which group is USR-i on?" (``member_of``, functional).
* ``fan-k``: one org operating ``k`` projects with ``CONTACTS`` contacts (the last auditor-only); the set ask is
  "Which contact serves FP-i?" (the set is the contacts), the single-valued one "Which org operates FP-i?".

Each set ask runs with the default budget (``rows_per_hop`` 3) and with ``rows_per_hop`` k+2, as ``public`` and
as ``auditor``. The SQLite floor (``engines.SQLiteFloor``'s tables, one bare join a hop) answers every ask too; the
run fails when chainret says complete and its set differs from the floor's, or says "K of N" and N is not the
floor's set size, or answers fewer than it claims.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import time
from pathlib import Path
from dataclasses import dataclass
from typing import Any

from benchmarks.peers.engines import Chain, Chainret, SQLiteFloor, answer_set, check, export, path_sql, scratch, timed
from benchmarks.peers.run import finish, machine, pct
from benchmarks.peers.worlds import PER_DOC, ROOT, catalog, page_label, parse_size, size_name
from benchmarks.harness.machine import load_average

OUT_MD = ROOT / "docs" / "results" / "sets.md"
COMMAND = "python -m benchmarks.peers sets --sizes 10k --members 10,100,1000,10000 --write"
CONTACTS = 30  # the fan world's contact set: more than a set's default rows (25, ``core.budget.SET_ROWS_PER_HOP``), so the default budget is short
FILLER_MEMBERS = 4  # members of each filler group; a filler org operates 10 projects and has 2 contacts


@dataclass(frozen=True)
class Ask:
    kind: str  # "set" or "single"
    text: str
    alias: str  # the slot words the floor looks up
    hops: tuple[str, ...]  # the predicates the floor joins


@dataclass
class SetWorld:
    name: str
    k: int
    catalog: Any
    set_ask: Ask
    singles: list[Ask]
    set_size: int  # the auditor's set (the public's is one fewer)


def _preds_patterns(kind: str) -> tuple[list[Any], list[Any]]:
    from chainret.catalog.models import Pattern, Predicate

    if kind == "group":
        return ([Predicate(name="has_member", domain="group", range="user", cardinality="many"),
                 Predicate(name="member_of", domain="user", range="group", cardinality="functional")],
                [Pattern(name="members", start_type="group", hops=["has_member"], phrasings=["who is on {group}"]),
                 Pattern(name="group_of", start_type="user", hops=["member_of"], phrasings=["which group is {user} on"])])
    return ([Predicate(name="operated_by", domain="project", range="org", cardinality="functional"),
             Predicate(name="contact", domain="org", range="contact", cardinality="many")],
            [Pattern(name="contact_for_project", start_type="project", hops=["operated_by", "contact"],
                     phrasings=["which contact serves {project}"]),
             Pattern(name="operator", start_type="project", hops=["operated_by"], phrasings=["which org operates {project}"])])


def _chunks(triples: list[tuple[str, str, str]]) -> list[list[tuple[str, str, str]]]:
    return [triples[i : i + PER_DOC] for i in range(0, len(triples), PER_DOC)]


def _build(kind: str, name: str, k: int, hub: list[tuple[str, str, str]], hidden: tuple[str, str, str],
           filler: list[tuple[str, str, str]], ents: list[tuple[str, str, str, list[str]]]) -> Any:
    """The hub's public clauses, its one auditor-only clause alone in the last document, the filler between."""
    docs = [*_chunks(hub), *_chunks(filler), [hidden]]
    cat = catalog(name, docs, ents, {len(docs) - 1})
    preds, patterns = _preds_patterns(kind)
    return cat.model_copy(update={"predicates": preds, "patterns": patterns})


def group_world(k: int, size: int, singles: int) -> SetWorld:
    """``GRP-HUB`` with ``k`` members; filler groups of ``FILLER_MEMBERS`` up to ``size`` relations (2 a member)."""
    users = [f"user:set:u{i}" for i in range(k)]
    hub = [t for u in users[:-1] for t in (("group:set:hub", "has_member", u), (u, "member_of", "group:set:hub"))]
    hidden = ("group:set:hub", "has_member", users[-1])
    hub.append((users[-1], "member_of", "group:set:hub"))
    n_fill = max(0, (size - 2 * k) // (2 * FILLER_MEMBERS))
    filler = [t for g in range(n_fill) for j in range(FILLER_MEMBERS)
              for t in ((f"group:set:g{g}", "has_member", f"user:set:g{g}m{j}"), (f"user:set:g{g}m{j}", "member_of", f"group:set:g{g}"))]
    ents = [("group", "group:set:hub", "Hub group", ["GRP-HUB"])]
    ents += [("user", u, f"User {i}", [f"USR-{i}"]) for i, u in enumerate(users)]
    ents += [("group", f"group:set:g{g}", f"Group {g}", [f"GRP-{g}"]) for g in range(n_fill)]
    ents += [("user", f"user:set:g{g}m{j}", f"Member {g}.{j}", []) for g in range(n_fill) for j in range(FILLER_MEMBERS)]
    name = f"group-{size_name(k)}"
    step = max(1, k // singles)
    return SetWorld(name, k, _build("group", name, k, hub, hidden, filler, ents),
                    Ask("set", "Who is on GRP-HUB?", "GRP-HUB", ("has_member",)),
                    [Ask("single", f"Which group is USR-{i} on?", f"USR-{i}", ("member_of",)) for i in range(0, k, step)][:singles], k)


def fan_world(k: int, size: int, singles: int, contacts: int = CONTACTS) -> SetWorld:
    """``org:set:hub`` operating ``k`` projects with ``contacts`` contacts (the last auditor-only); filler orgs
    (10 projects, 2 contacts)."""
    hub = [(f"project:set:p{i}", "operated_by", "org:set:hub") for i in range(k)]
    hub += [("org:set:hub", "contact", f"contact:set:c{j}") for j in range(contacts - 1)]
    hidden = ("org:set:hub", "contact", f"contact:set:c{contacts - 1}")
    n_fill = max(0, (size - k - contacts) // 12)
    filler = [(f"project:set:o{o}p{i}", "operated_by", f"org:set:o{o}") for o in range(n_fill) for i in range(10)]
    filler += [(f"org:set:o{o}", "contact", f"contact:set:o{o}c{j}") for o in range(n_fill) for j in range(2)]
    ents = [("org", "org:set:hub", "Hub", []), *(("contact", f"contact:set:c{j}", f"Contact {j}", []) for j in range(contacts))]
    ents += [("project", f"project:set:p{i}", f"Fan project {i}", [f"FP-{i}"]) for i in range(k)]
    ents += [("org", f"org:set:o{o}", f"Org {o}", []) for o in range(n_fill)]
    ents += [("project", f"project:set:o{o}p{i}", f"Filler project {o}.{i}", []) for o in range(n_fill) for i in range(10)]
    ents += [("contact", f"contact:set:o{o}c{j}", f"Filler contact {o}.{j}", []) for o in range(n_fill) for j in range(2)]
    name = f"fan-{size_name(k)}"
    step = max(1, k // singles)
    return SetWorld(name, k, _build("fan", name, k, hub, hidden, filler, ents),
                    Ask("set", "Which contact serves FP-0?", "FP-0", ("operated_by", "contact")),
                    [Ask("single", f"Which org operates FP-{i}?", f"FP-{i}", ("operated_by",)) for i in range(0, k, step)][:singles], contacts)


class PathFloor(SQLiteFloor):
    """The floor's tables, one bare join a hop of the asked predicates, each relation readable by the asker."""

    def answer_path(self, alias: str, principal: str, hops: tuple[str, ...]) -> set[str]:
        return {row[0] for row in self.conn.execute(path_sql(hops, "?", "?"), (*[principal] * len(hops), alias))}


def run_world(w: SetWorld, repeats: dict[str, int], full_limit: int | None = None) -> dict[str, Any]:
    """Compile chainret's store and the floor, then ask each cell ``repeats`` times (after one untimed ask).

    The ``rows_per_hop`` k+2 cell is skipped (and listed) when the set it returns would exceed ``full_limit``
    members: a whole set costs in proportion to its size (the page says how much a member), and at 10,000 members
    its repeated asks would take most of a run."""
    from chainret.pipeline.ask import ask
    from chainret.trace.model import Budget

    folder = scratch()
    ex, _, _ = timed(export, w.catalog)
    chain, floor = Chainret(folder), PathFloor(folder)
    _, load_cpu, load_wall = timed(chain.load, w.catalog)
    floor.load(ex, Chain.of(w.catalog, w.set_ask.hops))
    res: dict[str, Any] = {"world": w.name, "k": w.k, "relations": len(w.catalog.relations),
                           "load_cpu_s": load_cpu, "load_wall_s": load_wall, "cells": [], "disagreements": []}
    budgets = {"default": None, f"rows_per_hop {w.k + 2}": Budget(rows_per_hop=w.k + 2)}
    res["skipped"] = []
    if full_limit is not None and w.set_size > full_limit:
        res["skipped"].append(f"{w.name}: `{w.set_ask.text}` with rows_per_hop {w.k + 2} (a set of {w.set_size:,})")
        del budgets[f"rows_per_hop {w.k + 2}"]
    for principal in ("public", "auditor"):
        cells = [(bname, b, w.set_ask, [w.set_ask]) for bname, b in budgets.items()]
        cells.append(("default", None, w.singles[0], w.singles))
        for bname, budget, a, asks in cells:
            n = repeats["set" if a.kind == "set" else "single"]
            ask(asks[0].text, chain.store, principal=principal, budget=budget)  # untimed first ask
            cpus, walls, traces = [], [], []
            for i in range(n):
                q = asks[i % len(asks)]
                t, cpu, wall = timed(_ask_json, ask, q.text, chain.store, principal, budget)
                cpus.append(cpu)
                walls.append(wall)
                want = floor.answer_path(q.alias, principal, q.hops)
                why = check(t, want)
                if why:
                    res["disagreements"].append({"world": w.name, "request": q.text, "principal": principal,
                                                 "budget": bname, "why": why})
                traces.append((t, len(want)))
            t, floor_n = traces[-1]
            c = t.completeness
            res["cells"].append({
                "ask": a.kind, "request": a.text if a.kind == "set" else asks[0].text.replace("USR-0", "USR-i").replace("FP-0", "FP-i"),
                "principal": principal, "budget": bname, "asks": n,
                "cpu_p50_ms": statistics.median(cpus) * 1e3, "cpu_p99_ms": pct(cpus, 0.99) * 1e3,
                "wall_p50_ms": statistics.median(walls) * 1e3,
                "rows": max(x.rows_used for x, _ in traces), "searches": max(x.searches_used for x, _ in traces),
                "outcome": t.outcome, "answered": len(answer_set(t)), "floor": floor_n,
                "eligible": c.eligible if c else None, "complete": (c.complete if c else None),
                "stop": "; ".join(c.flags) if c and c.flags else "-",
                "reason": c.reasons[0] if c and c.reasons else "",
            })
    chain.close()
    floor.close()
    for f in folder.iterdir():
        f.unlink()
    folder.rmdir()
    return res


def _ask_json(ask: Any, text: str, store: Any, principal: str, budget: Any) -> Any:
    t = ask(text, store, principal=principal, budget=budget)
    t.to_json()
    return t


def out_page(size: int, members: str = "10,100,1000,10000") -> tuple[Path, str]:
    """The page a world size writes and the command that writes it (with the set sizes it ran): ``sets.md`` at 10k
    (the page CI's docs tests read), ``sets-1m.md`` and so on at other sizes, so a 1M run never overwrites the 10k
    figures."""
    label = "10k" if size == 10_000 else page_label(size)
    path = OUT_MD if size == 10_000 else OUT_MD.with_name(f"sets-{label}.md")
    return path, COMMAND.replace("--sizes 10k", f"--sizes {label}").replace("--members 10,100,1000,10000", f"--members {members}")


def growth(full: list[tuple[int, float]]) -> str:
    """What the whole-set asks measured say about cost against set size: CPU a returned member at each k and,
    with two sizes or more, the exponent between the two largest (1: in proportion to the set; 2: its square),
    computed from the figures, not asserted."""
    text = ("The group world's whole-set ask (auditor, `rows_per_hop` k+2), CPU p50: "
            + ", ".join(f"k={k:,} {ms:.1f} ms ({ms / k:.3f} ms a member)" for k, ms in full) + ". A whole set of k "
            "returns k rows and writes k hop records, anchors, answers and (from a store with a log) proofs into the trace.")
    if len(full) > 1:
        (k1, ms1), (k2, ms2) = sorted(full)[-2:]
        exp = math.log(ms2 / ms1) / math.log(k2 / k1)
        text += (f" From k={k1:,} to k={k2:,} the cost grows as k^{exp:.2f} "
                 + ("(about in proportion to the set)." if exp < 1.25 else "(faster than the set: not in proportion)."))
    return text


def page(results: list[dict[str, Any]], info: dict[str, Any], wall_s: float, cpu_s: float, size: int,
         members: str = "10,100,1000,10000", measured: list[int] | None = None) -> str:
    lb, la = info["load_before"], info["load_after"]
    bad = [d for r in results for d in r["disagreements"]]
    out = [
        "# Set answers: cost, rows read and honesty about completeness",
        "",
        f"Generated by `{out_page(size, members)[1]}` (`benchmarks/peers/sets.py`).",
        "",
        "A hop over a `cardinality: many` predicate follows every supported bridge its search returned; the trace "
        "lists the `answers` and a `completeness` record (answered, eligible, complete, the flags that reach the "
        "rest). Two worlds a set size k, each padded with look-alike filler (other groups of "
        f"{FILLER_MEMBERS} members; other orgs with 10 projects and 2 contacts) to about {size:,} relations (more where k needs it):",
        "",
        "- **group-k**: `GRP-HUB` has k members over `has_member` (many-valued), the last one in a document only "
        "`auditor` may read (so the public's set is k-1). Set ask: \"Who is on GRP-HUB?\" (one hop). Single-valued "
        "ask on the same world: \"Which group is USR-i on?\" (`member_of`, functional).",
        f"- **fan-k**: one org operates k projects and has {CONTACTS} contacts (the last auditor-only). Set ask: "
        "\"Which contact serves FP-0?\" (two hops; the set is the contacts, hop 2 starts at an org k units name). "
        "Single-valued: \"Which org operates FP-i?\".",
        "",
        "Each set ask runs with the **default budget** (`rows_per_hop` 3; a many-valued hop reads on to `set_rows_per_hop` 25 "
        "while the catalog holds more of its set, `chainret.core.budget.fanout_budget`) and with `--rows-per-hop` k+2 (enough rows "
        "for the whole set in both worlds; for fan-k that is more than its set of "
        f"{CONTACTS} needs, so the row also shows what a large budget costs when the set is small), as `public` and "
        "as `auditor`. chainret runs on a compiled SQLite store, warm, each ask's trace JSON written. **The SQLite "
        "floor (the exported readable relations, one bare join a hop) answers every ask: a complete set must equal "
        "the floor's, a \"K of N\" must have N = the floor's set size and its K members in the floor's set; any "
        "disagreement fails the run.**",
        "",
        f"Machine: {info['processor']} ({info['cpus']} CPUs), Python {info['python']}, SQLite {info['sqlite']}; "
        f"machine pace {info['pace_ns']:.0f} ns. Load average {lb[0]:.2f} / {lb[1]:.2f} / {lb[2]:.2f} (1 / 5 / 15 min) "
        f"before, {la[0]:.2f} / {la[1]:.2f} / {la[2]:.2f} after: the machine is shared, so CPU time "
        "(`time.process_time`) is the figure to compare, wall beside it. The run took "
        f"{wall_s:.0f} s wall, {cpu_s:.0f} s CPU."
        + ("" if measured is None else " This run measured set sizes " + ", ".join(f"{k:,}" for k in sorted(measured))
           + "; the others are kept from the page's earlier runs (`--keep`)."),
        "",
        "Load average (1 min) at the start of each world, and its machine pace: " + "; ".join(
            f"{r['world']} {r['measured']['load']:.2f}, {r['measured']['pace_ns']:.0f} ns ({r['measured']['date']})"
            for r in results if "measured" in r) + ".",
        "",
        "Agreement with the floor: " + ("**every ask agreed (complete sets equal, every \"K of N\" has the floor's N).**"
                                        if not bad else f"**{len(bad)} DISAGREEMENTS** (listed below)."),
        "",
        "| world | relations | ask | principal | budget | asks | CPU p50 | CPU p99 | wall p50 | rows read | searches | "
        "answered / eligible | floor | complete | where the budget stops it |",
        "|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in results:
        for c in r["cells"]:
            elig = "-" if c["eligible"] is None else f"{c['eligible']:,}"
            comp = "-" if c["complete"] is None else ("yes" if c["complete"] else "**no**")
            out.append(f"| {r['world']} | {r['relations']:,} | {c['request']} | {c['principal']} | {c['budget']} | {c['asks']} | "
                       f"{c['cpu_p50_ms']:.2f} ms | {c['cpu_p99_ms']:.2f} ms | {c['wall_p50_ms']:.2f} ms | {c['rows']:,} | "
                       f"{c['searches']} | {c['answered']:,} / {elig} | {c['floor']:,} | {comp} | {c['stop']} |")
    out += ["", "Rows read and searches are the trace's `rows_used` and `searches_used` (the largest over the cell's asks). "
            "\"answered / eligible\" is the trace's set size over `completeness.eligible` (`-` for a single-valued ask, "
            "which has no completeness record); \"floor\" is the SQLite floor's set for the same principal. "
            "Single-valued asks cycle over up to that many members/projects; a set ask repeats the one request. "
            "Set cells at k >= 1,000 run 3 asks (their p99 is the slowest of 3); a CPU p99 far above its p50 "
            "with few asks is a garbage collection landing in that ask or, from a hub (the fan-k org at k >= 1,000), the "
            "first timed ask: the untimed one runs a (view, principal)'s first-ask reads and keeps no hop world, so the "
            "next ask ranks the hub's units once and keeps that ranking (`HubRankings`) for every ask after it.",
            "", "Compile (chainret's store, the timed load): " + ", ".join(
                f"{r['world']} {r['load_cpu_s']:.2f} s CPU / {r['load_wall_s']:.2f} s wall" for r in results) + "."]
    full = [(r["k"], c["cpu_p50_ms"]) for r in results if r["world"].startswith("group-") for c in r["cells"]
            if c["budget"] != "default" and c["ask"] == "set" and c["principal"] == "auditor"]
    skipped = [x for r in results for x in r["skipped"]]
    if full:
        out += ["", "## What a whole set costs", "", growth(full)]
    short = [(r["k"], c["cpu_p50_ms"], c["rows"]) for r in results if r["world"].startswith("group-") for c in r["cells"]
             if c["budget"] == "default" and c["ask"] == "set" and c["principal"] == "auditor"]
    if len(short) > 1:
        out += ["", "With the default budget the group ask reads at most a set's default rows at every k (the rows it "
                "returns, in proportion to the members it shows): "
                + ", ".join(f"k={k:,} {rows:,} rows {ms:.1f} ms" for k, ms, rows in short) + ". Neither the hop's search nor the completeness check follows k: the search reads a hub's rows from its "
                "rank-ready lists (`chainret/store/hubindex.py`, `docs/results/peers.md`), and the check takes the hub "
                "pair's usable relations and distinct values from counts a SQLite compile keeps per view and reader class "
                "(`chainret/store/paircensus.py`), reading by index only the few relations the counts must leave out (on "
                "the path, followed, in a returned unit) and the first 10 ids left behind; PostgreSQL and a narrower "
                "viewer count them in one aggregate statement (`SQLView.census`), which visits each of the k relations. "
                f"The fan-k set ({CONTACTS} contacts) stays flat at every k."]
    if skipped:
        out += ["", "Not asked in this run (the whole set, over `--full-limit` members, whose repeated asks would take "
                "most of a run at the cost a member above): " + "; ".join(skipped) + "."]
    reasons = [(r["world"], c["principal"], c["reason"]) for r in results for c in r["cells"] if c["reason"]]
    if reasons:
        world, who, first = reasons[0]
        longest = max(reasons, key=lambda x: len(x[2]))
        out += ["", f"What an incomplete trace says (its `completeness.reasons`), e.g. {world} as {who}: \"{first}\". "
                f"The reason names the first 10 relations left behind and counts the rest: the longest, {longest[0]}'s, "
                f"is {len(longest[2]):,} characters."]
    if bad:
        out += ["", "## Disagreements", ""] + [f"- {d['world']} {d['principal']} {d['budget']}: `{d['request']}`: {d['why']}"
                                               for d in bad[:50]]
    out += ["", "## Not measured here", ""]
    if size < 1_000_000:
        out += ["- 1M relations: on their own page (`python -m benchmarks.peers sets --sizes 1m ...`: "
                "`docs/results/sets-1m.md`), whose worlds take minutes each to compile. The point of this page is "
                "the set size k at a fixed world size."]
    out += ["- Peers other than the SQLite floor (DuckDB: `docs/results/peers.md`), PostgreSQL, cold processes.", ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.peers sets", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10k", help="world size in relations (filler pads each world up to it); one value")
    ap.add_argument("--members", default="10,100,1000,10000", help="set sizes k, comma separated")
    ap.add_argument("--asks", type=int, default=20, help="timed asks a cell (fewer for k+2 budgets at large k)")
    ap.add_argument("--full-limit", type=int, default=1000,
                    help="skip the rows_per_hop k+2 ask where the whole set would exceed this many members")
    ap.add_argument("--keep", action="store_true",
                    help="keep the page's saved worlds of set sizes this run does not measure (each with its own load)")
    ap.add_argument("--write", action="store_true", help=f"write {OUT_MD.relative_to(ROOT)} (another size: sets-SIZE.md)")
    args = ap.parse_args(argv)
    t0, c0 = time.perf_counter(), time.process_time()
    info = machine()
    size = parse_size(args.sizes.split(",")[0])
    results = []
    ks = [parse_size(x) for x in args.members.split(",") if x]
    for k in ks:
        for build in (group_world, fan_world):
            w = build(k, size, args.asks)
            started = {"load": load_average()[0], "pace_ns": info["pace_ns"], "date": time.strftime("%Y-%m-%d")}
            r = run_world(w, {"set": max(3, min(args.asks, 2_000 // k)), "single": args.asks}, args.full_limit)
            r["measured"] = started
            results.append(r)
            for c in r["cells"]:
                print(f"{w.name} {c['principal']:7} {c['budget']:18} {c['ask']:6} CPU p50 {c['cpu_p50_ms']:8.2f} ms "
                      f"wall {c['wall_p50_ms']:8.2f} ms rows {c['rows']:6} searches {c['searches']} "
                      f"{c['answered']}/{c['eligible']} floor {c['floor']} complete {c['complete']} {c['stop']}", flush=True)
            for d in r["disagreements"][:10]:
                print(f"  DISAGREE {d}", flush=True)
    info["load_after"] = load_average()
    if args.keep:
        results = kept(out_page(size)[0], ks) + results
        results.sort(key=lambda r: (r["k"], not r["world"].startswith("group-")))
    members = ",".join(str(k) for k in sorted({r["k"] for r in results}))
    return finish(page(results, info, time.perf_counter() - t0, time.process_time() - c0, size, members,
                       measured=ks if args.keep else None),
                  out_page(size, members)[0] if args.write else None, results, "set answer(s) disagree with the SQLite floor")


def kept(page_md: Path, measuring: list[int]) -> list[dict[str, Any]]:
    """``--keep``: the worlds of the page's saved figures whose set size this run does not measure, each with the
    load and pace it was measured at (``measured``; for figures saved before worlds recorded it, the page's own
    machine line: the one run they all came from)."""
    saved_json = page_md.with_suffix(".json")
    if not saved_json.exists():
        return []
    saved = [r for r in json.loads(saved_json.read_text()) if r["k"] not in measuring]
    line = re.search(r"machine pace (\d+) ns\. Load average ([\d.]+) /", page_md.read_text()) if page_md.exists() else None
    for r in saved:
        if "measured" not in r and line:
            r["measured"] = {"load": float(line.group(2)), "pace_ns": float(line.group(1)), "date": "an earlier run"}
    return saved


if __name__ == "__main__":
    raise SystemExit(main())
