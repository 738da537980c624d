"""Cold `chainret ask`: CPU (user+sys of the child) beside wall, N fresh processes (issue 24).

    python -m benchmarks.cold_cli --runs 20                                 # this checkout, default catalog
    python -m benchmarks.cold_cli --store bench/1m.db            # also a compiled SQLite store
    python -m benchmarks.cold_cli --src ../before                          # also another checkout, interleaved
    python -m benchmarks.cold_cli --request "the contcat for PR-84?"       # another request of the default catalog
    python -m benchmarks.cold_cli --runs 20 --store bench/1m.db --write   # docs/results/cold_cli.md

With --src the two are run alternately, run by run, so a change in the machine's load hits both alike.
Each run is a fresh interpreter (`python -m chainret ask ...`, stdout to a pipe), in the default output
mode and with --json, over every view x principal of the catalog (--runs runs of each); trace files go to
a temporary folder. The default catalog is asked "Which contact serves PR-84?", a store --store-request
(the 1M world of benchmarks/store_bench.py has GP-84). Then once per checkout and output mode with the
store's (or catalog file's and its remembered parse's) pages evicted from the page cache first
(posix_fadvise DONTNEED), and --runs asks of the default catalog with an empty parse cache. The load
average is printed with the figures: the machine is shared, so CPU time is the figure to compare,
wall time is what a user waited.

Bytecode: an installed chainret has its .pyc files (pip compiles them at install). The children run
with bytecode written to a private cache (PYTHONPYCACHEPREFIX in the temporary folder, filled by one
warm-up run per checkout) whatever PYTHONDONTWRITEBYTECODE says here; without that every run would
also time compiling chainret's sources (about 0.06-0.09 s on this machine).

Floors: `python -c pass`, and `from pydantic import BaseModel`, which a one-ask process no longer pays: the
catalog and trace models are records that build their pydantic half on first validation (chainret.core.record),
and a YAML catalog that loaded before is read back checked; typer, click, rich and pydantic are off the ask path
(tests/test_ask_imports.py).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.harness.page import write_page
from benchmarks.harness.checkout import child_env, python
from benchmarks.harness.timing import Timer
from benchmarks.harness.machine import load_average, load_text, pace_line, pace_ns
from benchmarks.store_bench import evict  # (posix_fadvise DONTNEED on a file)

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "results" / "cold_cli.md"
REQUEST = "Which contact serves PR-84?"
STORE_REQUEST = "Which contact serves GP-84?"
AIMS = {"default catalog": 0.15, "store": 0.2}  # CPU s, idle machine (issue 24)
STORE_AIM_RELATIONS = 1_000_000  # the store aim is for a store of this size
FLOOR_TIMES = 5  # the cold ask (default catalog, 1M store) within 5x `python -c pass` CPU (docs/performance.md)
# Where the time goes: one fresh process imports these in this order (CPU time of each step), then runs
# the command; a step is left out where the path does not import it (YAML for a store, the plain-text
# printer for --json). chainret.cli first, as `python -m chainret` starts (it puts pydantic's plugin
# loader stand-in in place).
STEPS = (
    ("chainret.cli + argument reader", "import chainret.cli, chainret.cli.ask_run; chainret.cli._no_plugin_scan()", None),
    ("record base (chainret.core.record)", "import chainret.core.record", None),
    ("catalog models (records)", "import chainret.catalog.models", None),
    ("trace models (records)", "import chainret.trace.model", None),
    ("engine modules (chainret.pipeline.ask)", "import chainret.pipeline.ask", None),
    ("YAML reader (chainret.catalog.load)", "import chainret.catalog.load", "yaml"),
    ("SQLite store", "import chainret.store.sqlite", "store"),
    ("plain-text printer (chainret.cli.plain)", "import chainret.cli.plain", "text"),
)
PROBE = (
    "import json, sys, time\n"
    "steps = json.loads(sys.argv.pop(1)); out = {}\n"
    "for name, code in steps:\n"
    "    t = time.process_time(); exec(code); out[name] = time.process_time() - t\n"
    "t = time.process_time()\n"
    "from chainret.cli import main\n"
    "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
    "out['the command (parse, load, ask, print)'] = time.process_time() - t\n"
    "sys.stderr.write('\\n' + json.dumps(out))\n"
)
FLOORS = (("`python -c pass`", "pass"),
          ("`from pydantic import BaseModel`", "from pydantic import BaseModel"))


def _commit(src: str, given: str | None = None) -> str | None:
    """The commit another checkout holds: ``--src-commit`` (a ``git archive`` has no history), else git's."""
    if given:
        return given
    done = subprocess.run(["git", "-C", src, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def _label(src: str, given: str | None = None) -> str:
    """Another checkout as the tables name it: its commit and folder."""
    commit = _commit(src, given)
    return f"{commit} ({src})" if commit else src


def store_relations(path: str) -> int:
    """How many relations a compiled SQLite store holds: the store aim (issue 24) is for 1M, and a page that
    asked a smaller store says it is a reduced run. Read with a bare read-only connection: a benchmark's look."""
    import sqlite3

    with sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True) as conn:
        return int(conn.execute("SELECT count(*) FROM relations").fetchone()[0])


def one(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    with Timer() as t:
        done = subprocess.run(cmd, env=env, capture_output=True)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    return t.children_cpu_s, t.wall_s


def load() -> str:
    return load_text(sep=" ")


def pairs(spec: str | None) -> list[tuple[str, str]]:
    """Every (view, principal) of a catalog (None: the default one), as ``chainret ask`` names them."""
    from chainret.catalog.suggest import known_principals
    from chainret.store import resolve_catalog

    reader = resolve_catalog(spec)
    return [(v.name, p) for v in reader.views for p in known_principals(reader)]


def _row(catalog: str, code: str, mode: str, rs: list[tuple[float, float]]) -> dict[str, object]:
    cpu, wall = [r[0] for r in rs], [r[1] for r in rs]
    return {"catalog": catalog, "code": code, "mode": mode, "runs": len(rs), "cpu_p50": statistics.median(cpu),
            "cpu_min": min(cpu), "cpu_max": max(cpu), "wall_p50": statistics.median(wall), "wall_max": max(wall)}


Rows = list[dict[str, object]]


def measure(args: argparse.Namespace) -> tuple[list[str], Rows, Rows, Rows, dict[str, object]]:
    """Run everything: the printed lines, one row per (catalog, code, mode), the breakdown, one row per
    (catalog, view, principal, mode) for this checkout, and the machine (load at both ends, pace)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    other = _label(args.src, args.src_commit) if args.src else None
    sides = ["this checkout"] + ([other] if other else [])
    default = ROOT / "catalogs" / "default.yaml"
    env["CHAINRET_CATALOG"] = str(default)  # the default catalog, as no --catalog reads it
    catalogs = [("default catalog", [], args.request, default, pairs(None))]
    if args.store:
        store = Path(args.store).resolve()
        catalogs.append(("store", ["--catalog", str(store)], args.store_request, store, pairs(str(store))))
    rows: list[dict[str, object]] = []
    per: list[dict[str, object]] = []
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        # A private cache: the first (warm-up) ask of a YAML catalog remembers its parse there, as any first ask does.
        env.update(CHAINRET_TRACE_DIR=tmp, PYTHONPYCACHEPREFIX=str(Path(tmp) / "pycache"), XDG_CACHE_HOME=str(Path(tmp) / "cache"))
        cmds = {"this checkout": [sys.executable, "-m", "chainret"]}
        envs = {"this checkout": env}
        if other:  # `python -m chainret` from the other checkout: first on the child's PYTHONPATH
            cmds[other], envs[other] = python("-m", "chainret"), child_env(args.src, base=env)
        start, pace = load_average(), pace_ns()
        lines.append(f"load average before: {load_text(start, sep=' ')}; {args.runs} runs of each view x principal x "
                     f"output mode. {pace_line(pace)}.")
        for label, catalog, request, _file, combos in catalogs:
            ask = ["ask", request, *catalog]
            for k in sides:
                one(cmds[k] + ask, envs[k])  # bytecode written to the private cache, files in the page cache
            for mode, extra in (("default", []), ("--json", ["--json"])):
                runs: dict[str, list[tuple[float, float]]] = {k: [] for k in sides}
                for view, principal in combos:
                    mine = []
                    for _ in range(args.runs):
                        for k in sides:
                            r = one(cmds[k] + ask + ["--view", view, "--principal", principal, *extra], envs[k])
                            runs[k].append(r)
                            if k == "this checkout":
                                mine.append(r)
                    per.append(_row(label, f"{view} / {principal}", mode, mine))
                rows.extend(_row(label, k, mode, rs) for k, rs in runs.items())
        lines.append(f"load average after the warm-cache runs: {load()}")
        parsed = Path(tmp) / "cache" / "chainret" / "parsed"
        for label, catalog, request, file, _combos in catalogs:
            for mode, extra in (("default", []), ("--json", ["--json"])):
                for k in sides:
                    for f in [file, *(parsed.glob("*.json") if label == "default catalog" else ())]:
                        evict(str(f))
                    rows.append(_row(f"{label}, pages evicted", k, mode, [one(cmds[k] + ["ask", request, *catalog, *extra], envs[k])]))
        for mode, extra in (("default", []), ("--json", ["--json"])):  # a YAML catalog's very first ask: no remembered parse
            runs = {k: [] for k in sides}
            for i in range(args.runs):
                for k in sides:
                    fresh = {**envs[k], "XDG_CACHE_HOME": str(Path(tmp) / f"fresh-{k[:4]}-{mode}-{i}")}
                    runs[k].append(one(cmds[k] + ["ask", args.request, *extra], fresh))
            rows.extend(_row("default catalog, first ask (no remembered parse)", k, mode, rs) for k, rs in runs.items())
        for label, code in FLOORS:
            rs = [one([sys.executable, "-c", code], env) for _ in range(args.runs)]
            rows.append(_row("floor", label, "", rs))
        breakdown = [where_time_goes(label, ask, mode, env, args.runs) for label, catalog, request, _f, _c in catalogs
                     for ask in (["ask", request, *catalog],) for mode in ("default", "--json")]
        end = load_average()
        lines.append(f"load average after: {load_text(end, sep=' ')}")
    return lines, rows, breakdown, per, {"load_start": start, "load_end": end, "pace_ns": pace}


def where_time_goes(label: str, ask: list[str], mode: str, env: dict[str, str], runs: int) -> dict[str, object]:
    """Median CPU of each import step and of the command itself over ``runs`` fresh processes."""
    import json

    kinds = {"yaml": label != "store", "store": label == "store", "text": mode == "default", None: True}
    steps = [(name, code) for name, code, kind in STEPS if kinds[kind]]
    cmd = [sys.executable, "-c", PROBE, json.dumps(steps), *ask, *([mode] if mode != "default" else [])]
    samples = []
    for _ in range(runs):
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        samples.append(json.loads(done.stderr.rstrip().rsplit("\n", 1)[-1]))
    return {"catalog": label, "mode": mode, "steps": {k: statistics.median(s[k] for s in samples) for k in samples[0]}}


def breakdown_table(breakdown: list[dict[str, object]]) -> list[str]:
    seen = {k for b in breakdown for k in b["steps"]}  # type: ignore[attr-defined]
    names = [n for n, _, _ in STEPS if n in seen] + sorted(seen - {n for n, _, _ in STEPS})
    out = ["| step (this checkout, CPU ms, median) | " + " | ".join(f"{b['catalog']}, {b['mode']}" for b in breakdown) + " |",
           "|---|" + "---|" * len(breakdown)]
    for n in names:
        cells = [f"{1000 * b['steps'][n]:.1f}" if n in b["steps"] else "—" for b in breakdown]  # type: ignore[index,operator]
        out.append(f"| {n} | " + " | ".join(cells) + " |")
    totals = [f"{1000 * sum(b['steps'].values()):.1f}" for b in breakdown]  # type: ignore[attr-defined]
    out.append("| sum (the interpreter's own start not included) | " + " | ".join(totals) + " |")
    return out


def table(rows: list[dict[str, object]], first: str = "catalog", second: str = "code") -> list[str]:
    out = [f"| {first} | {second} | mode | runs | CPU p50 (s) | CPU min (s) | CPU max (s) | wall p50 (s) | wall max (s) |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['catalog']} | {r['code']} | {r['mode']} | {r['runs']} | {r['cpu_p50']:.3f} | {r['cpu_min']:.3f} | "
                   f"{r['cpu_max']:.3f} | {r['wall_p50']:.3f} | {r['wall_max']:.3f} |")
    return out


def floor_cpu(rows: Rows) -> float | None:
    """CPU p50 of `python -c pass`: the floor the cold ask is held to (:data:`FLOOR_TIMES` x)."""
    return next((float(r["cpu_p50"]) for r in rows if r["catalog"] == "floor" and r["code"] == FLOORS[0][0]), None)  # type: ignore[arg-type]


def aims(rows: Rows, store_relations: int | None = None) -> list[str]:
    """The verdicts; a store smaller than the aim's 1M is named as such beside its verdict."""
    out = []
    floor = floor_cpu(rows)
    small = (f" (a {store_relations:,}-relation store: a reduced run, the aim is for {STORE_AIM_RELATIONS:,})"
             if store_relations is not None and store_relations < STORE_AIM_RELATIONS else "")
    for r in rows:
        aim = AIMS.get(str(r["catalog"]))
        if aim is None or r["code"] != "this checkout":
            continue
        cpu = float(r["cpu_p50"])  # type: ignore[arg-type]
        verdict = "met" if cpu <= aim else "**missed**"
        out.append(f"- {r['catalog']}, {r['mode']} output: CPU p50 {cpu:.3f} s over {r['runs']} runs against the aim of "
                   f"<= {aim} s: {verdict}" + (small if r["catalog"] == "store" else ""))
        if floor and r["catalog"] in ("default catalog", "store"):  # (issue 47: both, side by side in one run)
            times = cpu / floor
            out.append(f"- {r['catalog']}, {r['mode']} output: {times:.1f}x `python -c pass` ({floor:.3f} s) against the aim of "
                       f"<= {FLOOR_TIMES}x (docs/performance.md): {'met' if times <= FLOOR_TIMES else '**missed**'}"
                       + (small if r["catalog"] == "store" else ""))
    return out


def page(args: argparse.Namespace, lines: list[str], rows: list[dict[str, object]], breakdown: list[dict[str, object]],
         per: list[dict[str, object]]) -> str:
    cmd = "python -m benchmarks.cold_cli " + " ".join(a for a in sys.argv[1:] if a != "--write")
    relations = store_relations(args.store) if args.store else 0
    store = (f"`{args.store}` ({relations:,} relations) asked \"{args.store_request}\"" if args.store else "no store")
    reduced = ([f"A reduced run: the store holds {relations:,} relations; the manifest's run asks a 1M-relation store "
                "(`python -m benchmarks.bench_world --relations 1000000 --out bench/1000000.json --db bench/1000000.db`), "
                "which the store aim (issue 24) is stated for."] if args.store and relations < STORE_AIM_RELATIONS else [])
    return "\n".join([
        "# Cold CLI: `chainret ask` in a fresh process",
        "",
        f"Generated by `{cmd.strip()}` (add `--write` to rewrite this page). Each row is fresh",
        "`python -m chainret ask` processes (stdout to a pipe): CPU is the child's user + system time, beside wall",
        f"time; {args.runs} runs of each view x principal of the catalog, in each output mode. The default catalog is",
        "asked \"Which contact serves PR-84?\"; the store rows are " + store + ".",
        "Bytecode is cached as in an installed package (one warm-up run per checkout fills a private",
        "`PYTHONPYCACHEPREFIX`); the catalog's pages are in the page cache, except in the \"pages evicted\" rows",
        "(one run each, right after `posix_fadvise(DONTNEED)` on the catalog or store file and the remembered parse).",
        "A YAML catalog's parse is remembered after its first load (`chainret.catalog.parse`, a private",
        "`XDG_CACHE_HOME` here): the \"first ask\" rows are asks with an empty cache. Machine: 2 cores",
        "shared with other work, so the load average is recorded; aims (issue 24) are for an idle machine.",
        *reduced,
        *([f"The other checkout, `{args.src}`, is commit {_commit(args.src, args.src_commit) or '(unknown)'} "
           f"(`git worktree add {args.src} COMMIT`, or `git archive COMMIT` unpacked there with `--src-commit COMMIT`); "
           "the two are run alternately, run by run."] if args.src else []),
        "",
        *lines[:1], "",
        *table(rows),
        "",
        *lines[1:], "",
        "Aims:",
        *aims(rows, relations if args.store else None),
        "",
        "This checkout, per view and principal:",
        "",
        *table(per, "catalog", "view / principal"),
        "",
        "Where the time goes (each step's CPU in a fresh process that imports these in this order, then",
        "runs the command; a dash where the path does not import it):",
        "",
        *breakdown_table(breakdown),
        "",
        "The floor rows: the interpreter, which any ask pays before chainret runs, and pydantic's BaseModel, which",
        "the ask path no longer imports (the catalog and trace models are records that build their pydantic half on",
        "first validation, `chainret.core.record`, and a YAML catalog that loaded before is read back checked,",
        "`chainret.catalog.parse`; the \"first ask\" rows validate, so they import it). typer, click and rich are off",
        "the ask path too (`chainret.cli.main` reads the usual arguments itself and prints plain text where it is",
        "what rich would write); see `tests/test_ask_imports.py` for what the ask path imports and what it no longer does.",
        "",
    ])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10, help="runs of each view x principal x output mode (default 10)")
    ap.add_argument("--src", help="another chainret checkout (the folder holding its chainret/) to run beside this one")
    ap.add_argument("--src-commit", help="the commit --src holds, when it is not a git checkout (a git archive)")
    ap.add_argument("--store", help="a compiled store (.db) to ask as well, e.g. bench/1m.db")
    ap.add_argument("--store-request", default=STORE_REQUEST)
    ap.add_argument("--request", default=REQUEST, help="the default catalog's request (e.g. one read through the "
                    "vector table of chainret.query.synonyms: 'the contcat for PR-84?')")
    ap.add_argument("--write", action="store_true", help=f"write {PAGE.relative_to(ROOT)}")
    args = ap.parse_args()
    lines, rows, breakdown, per, machine = measure(args)
    relations = store_relations(args.store) if args.store else None
    print(lines[0])
    print("\n".join(table(rows)))
    print("\n".join(lines[1:]))
    print("\n".join(aims(rows, relations)))
    print("\n".join(table(per, "catalog", "view / principal")))
    print("\n".join(breakdown_table(breakdown)))
    if args.write:
        write_page(PAGE, page(args, lines, rows, breakdown, per), results={
            "rows": rows, "aims": AIMS, "floor_times": FLOOR_TIMES, **machine,
            "store_relations": relations})
        print(f"wrote {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
