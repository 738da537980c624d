"""Robustness benchmark: write docs/results/robustness.md (never edit that page by hand).

    python -m benchmarks.robustness                 # 1,040 fuzz files (80 per class), 2 workers
    python -m benchmarks.robustness --files 130     # a quick look (not for the page)

Generates seeded fuzz cases (``benchmarks.harness.fuzz``: deep nesting, YAML alias bombs, duplicate keys,
markup and control characters in values and requests, glued phrasing slots, self-loops, huge
strings, non-UTF-8 bytes, symlink loops, special files, random mutations, careless requests) and runs
each case (``validate`` + 2 ``ask``) in its own subprocess (``python -m benchmarks.harness.fuzz one DIR``)
under a wall-clock limit, measuring the subprocess's peak resident memory (``wait4``). A case
killed at the limit counts as a hang; a step slower than 10 s counts as a hang too.

The page also has a section for the fault classes of issue "Trust at the new edges" (dropped commits,
tracebacks, unbounded imports, unbounded streams, leftover temporaries): each row runs the CI test that
fails when its guard is switched off (``benchmarks.harness.guards``). It has a section for the permission-leak property and the trace tampering suite; those
figures come from ``benchmarks.harness.audit.leak_property(n, seed)`` and ``benchmarks.harness.audit.tamper_suite(seed)``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from benchmarks.harness.page import write_page
from benchmarks.harness.fuzz import CLASSES, STEP_SECONDS, FuzzCase, generate, summarise

ROOT = Path(__file__).resolve().parents[1]


DOC = ROOT / "docs" / "results" / "robustness.md"
COMMAND = "python -m benchmarks.robustness"
MEMORY_LIMIT_MB = 500.0
FULL_FILES = 1040
ADDRESS_LIMIT = 4 << 30  # a runaway case fails inside its own process instead of starving the machine


def run_one(case: FuzzCase, wall_limit: float) -> dict[str, Any]:
    """One case in a fresh interpreter: its result, wall time and peak RSS (MB)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1", "CHAINRET_FUZZ_ADDRESS_LIMIT": str(ADDRESS_LIMIT), "CHAINRET_TRACE_DIR": str(Path(case.dir) / "traces"), "COLUMNS": "100"}
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen([sys.executable, "-m", "benchmarks.harness.fuzz", "one", case.dir], stdout=out,
                                stderr=subprocess.DEVNULL, env=env)
        killed = False
        rusage = None
        while True:
            pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - t0 > wall_limit:
                proc.kill()
                _, status, rusage = os.wait4(proc.pid, 0)
                killed = True
                break
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        out.seek(0)
        text = out.read().decode("utf-8", "replace").strip().splitlines()
    result: dict[str, Any]
    try:
        result = json.loads(text[-1]) if text else {}
    except ValueError:
        result = {}
    if not result:
        result = {"id": case.id, "cls": case.cls, "note": case.note, "steps": [],
                  "problems": [] if killed else [f"traceback: the case runner exited {proc.returncode} without a result"]}
    result.update(peak_rss_mb=round(rusage.ru_maxrss / 1024, 1), wall_s=round(wall, 2), killed=killed)
    return result


LEAK_REQUESTS = 20_000


def audit_figures(seed: int) -> dict[str, Any]:
    """Leak-property and tampering figures from ``benchmarks.harness.audit``.

    Each report is shown field by field: counts as they are, lists (examples, missed tamperings,
    wrong verdicts) as their length plus the first few entries.
    """
    import dataclasses

    from benchmarks.harness import audit

    out: dict[str, Any] = {}
    for name, call in (("leak_property", lambda: audit.leak_property(LEAK_REQUESTS, seed)),
                       ("tamper_suite", lambda: audit.tamper_suite(seed))):
        t0 = time.perf_counter()
        report = call()
        fields = dataclasses.asdict(report)
        shown: dict[str, Any] = {}
        for key, value in fields.items():
            if isinstance(value, list):
                shown[key] = f"{len(value)}" + (": " + "; ".join(f"`{str(v)[:160]}`" for v in value[:3]) if value else "")
            else:
                shown[key] = value
        shown["seconds"] = round(time.perf_counter() - t0, 1)
        out[name] = shown
    return out


def render(results: list[dict[str, Any]], args: argparse.Namespace, seconds: float, audit: dict[str, Any],
           edges: list[Any]) -> str:
    s = summarise(results, MEMORY_LIMIT_MB)
    slowest = max((r.get("wall_s", 0.0) for r in results), default=0.0)
    lines = [
        "# Robustness: hostile and careless catalog files",
        "",
        f"Generated by `{COMMAND}` (seed {args.seed}, {args.files} files, {args.jobs} workers; "
        f"{seconds / 60:.1f} min wall on {os.cpu_count()} cores, Python {platform.python_version()}). "
        "Do not edit by hand." + (f" A reduced run: `--files {args.files}` (the smallest documented option) on a shared "
                                  f"machine; the full run is {FULL_FILES:,} files." if args.files < FULL_FILES else ""),
        "",
        "Each fuzz file is a seeded mutation of the seed world (`benchmarks.harness.fuzz`, one of "
        f"{len(CLASSES)} classes in turn) run as three CLI steps in a fresh subprocess: `chainret validate`, "
        "`chainret ask` (text output) and `chainret ask --json --text-route` with a random budget, each "
        f"writing a trace. A step is a hang past {STEP_SECONDS:.0f} s; memory is the subprocess's peak resident "
        f"set (limit {MEMORY_LIMIT_MB:.0f} MB).",
        "",
        "## Summary",
        "",
        "| measure | count |",
        "|---|---|",
        f"| fuzz files | {s.files} |",
        f"| CLI steps run | {s.steps} |",
        f"| tracebacks (an exception escaped the CLI) | {s.tracebacks} |",
        f"| hangs over {STEP_SECONDS:.0f} s | {s.hangs} |",
        f"| peak memory over {MEMORY_LIMIT_MB:.0f} MB | {s.over_memory} |",
        f"| budget misrecords (rows/searches used beyond the recorded budget) | {s.budget_misrecords} |",
        f"| terminal escapes in output (raw ESC, C1, bidi, ...) | {s.terminal_escapes} |",
        f"| markup interpreted (a value not shown verbatim) | {s.markup_interpreted} |",
        f"| accepted paths repeating a node | {s.cycles} |",
        f"| exit codes outside the documented table | {s.bad_exit_codes} |",
        f"| highest peak memory of one file (MB) | {s.peak_rss_mb:.0f} |",
        f"| slowest file, all three steps (s) | {slowest:.1f} |",
        "",
        "## By class",
        "",
        "| class | files | files with a problem |",
        "|---|---|---|",
    ]
    for cls in CLASSES:
        row = s.by_class.get(cls, {"files": 0, "problem_files": 0})
        lines.append(f"| {cls} | {row['files']} | {row['problem_files']} |")
    lines += ["", "## First problems found", ""]
    lines += [f"- `{e}`" for e in s.examples] or ["None."]
    lines += ["", "## Faults at the new edges", "",
              "Each row runs the CI test that fails when its guard is switched off (`benchmarks.harness.guards`); the count is "
              "that test's failed checks.", "", "| class | fault | measured | test |", "|---|---|---|---|"]
    lines += [f"| {m.guard.cls} | {m.guard.attack} | {m.words('failed checks')} | {m.where} |" for m in edges]
    lines += ["", "## Permission leaks and trace tampering", ""]
    for name, title in (("leak_property", "Leak property (outcome and reason a viewer sees = same request on the catalog without "
                                            "what the viewer may not read)"), ("tamper_suite", "Trace tampering (`trace verify`)")):
        figures = audit[name]
        lines += [f"### {title}", "", f"`benchmarks.harness.audit.{name}` (seed {args.seed}):", "", "| measure | value |", "|---|---|"]
        lines += [f"| {k} | {str(v).replace('|', '/')} |" for k, v in figures.items()]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=FULL_FILES)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--work", type=Path, default=None, help="Folder for the generated files (default: a temporary one).")
    ap.add_argument("--out", type=Path, default=DOC)
    ap.add_argument("--json", type=Path, default=None, help="Also write every case result here.")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="chainret-fuzz-") as tmp:
        work = args.work or Path(tmp)
        cases = generate(work, args.files, args.seed)
        wall_limit = 3 * STEP_SECONDS + 15
        results: list[dict[str, Any]] = []
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for k, r in enumerate(pool.map(lambda c: run_one(c, wall_limit), cases), 1):
                results.append(r)
                if r["problems"] or r.get("killed") or r.get("peak_rss_mb", 0) > MEMORY_LIMIT_MB:
                    print(f"[{k}/{len(cases)}] {r['id']}: {(r['problems'] or ['killed/memory'])[0]}", file=sys.stderr)
                elif k % 100 == 0:
                    print(f"[{k}/{len(cases)}] ok", file=sys.stderr)
    seconds = time.perf_counter() - t0
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    from benchmarks.harness.guards import ROBUSTNESS, measure

    page = render(results, args, seconds, audit_figures(args.seed), [measure(g) for g in ROBUSTNESS])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_page(args.out, page, results=vars(summarise(results)))
    print(page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
