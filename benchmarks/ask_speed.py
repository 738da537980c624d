"""How fast is `chainret ask`, and does it stay light? Prints figures; asserts nothing about time.

    python -m benchmarks.ask_speed            # cold CLI, fixture worlds, 100k-relation catalog
    python -m benchmarks.ask_speed --relations 20000 --runs 3

Reports:
* cold CLI time of ``chainret ask "Which contact serves PR-84?"`` (a fresh process each run),
  next to the cold time of ``python -c "import chainret"`` for scale;
* that neither torch, transformers nor sentence-transformers is in ``sys.modules`` after an ask;
* in-process ask latency on every fixture case (index cached after the first request);
* a generated catalog of N relations (default 100k): build time, first ask (catalog digest, view,
  name index, BM25 index) and warm ask latency, so the cache's effect is visible.

Every time is wall-clock and, beside it, CPU time (user + system of the process, or of the child
for cold runs): on a shared machine the CPU figure is the one that does not depend on the load.
``--compare OLD.json`` (the ``--json`` output of an earlier run, e.g. of the previous commit) prints
the old / new ratio of each figure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.harness.timing import Timer

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "transformers", "sentence_transformers")


def cold(cmd: list[str], runs: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of ``cmd`` in a fresh process, ``runs`` times."""
    env = {**os.environ, "CHAINRET_TRACE_DIR": str(ROOT / ".cache" / "bench-traces")}
    wall, cpu = [], []
    for _ in range(runs):
        with Timer() as t:
            subprocess.run(cmd, check=True, capture_output=True, env=env, cwd=ROOT)
        wall.append(t.wall_s)
        cpu.append(t.children_cpu_s)
    return wall, cpu


def heavy_modules_after_ask() -> list[str]:
    code = (
        "import sys, io, contextlib\n"
        "from chainret.cli import main\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        "    try:\n"
        "        main(['ask', 'Which contact serves PR-84?', '--no-trace'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"print('HEAVY=' + ','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=ROOT)
    line = next(x for x in res.stdout.splitlines() if x.startswith("HEAVY="))
    return [m for m in line[len("HEAVY=") :].split(",") if m]


def fixture_latency(runs: int) -> list[tuple[str, float, float]]:
    from chainret.pipeline.ask import ask
    from chainret.catalog.load import apply_overlay, load_world

    rows = []
    for name in ("seed", "lab", "supply"):
        w = load_world(ROOT / "fixtures" / name)
        for case in w.cases:
            cat = apply_overlay(w.catalog, case.overlay)
            t0 = time.perf_counter()
            ask(case.request, cat, view=case.view, principal=case.principal, budget=case.budget)
            first = time.perf_counter() - t0
            times = []
            for _ in range(runs):
                t0 = time.perf_counter()
                ask(case.request, cat, view=case.view, principal=case.principal, budget=case.budget)
                times.append(time.perf_counter() - t0)
            rows.append((f"{name}/{case.id}", first, statistics.median(times)))
    return rows


def generated_catalog(n_relations: int):
    """Projects -> orgs (operated_by, functional) and orgs -> contacts, one clause per unit, 50 units a document."""
    from chainret.catalog.models import (
        Catalog, Entity, Pattern, Predicate, Relation, SourceDocument, Support, View, clause_text, sha256_digest,
    )

    n_proj = n_relations // 2
    n_org = max(1, n_proj // 2)
    triples = [(f"project:gen:p{i}", "operated_by", f"org:gen:o{i % n_org}") for i in range(n_proj)]
    triples += [(f"org:gen:o{i % n_org}", "contact", f"contact:gen:c{i}") for i in range(n_relations - n_proj)]
    entities = [Entity(id=f"project:gen:p{i}", type="project", name=f"Project {i}", aliases=[f"GP-{i}"]) for i in range(n_proj)]
    entities += [Entity(id=f"org:gen:o{i}", type="org", name=f"Org {i % 97}") for i in range(n_org)]
    entities += [Entity(id=f"contact:gen:c{i}", type="contact", name=f"Contact {i}") for i in range(n_relations - n_proj)]
    docs, rels = [], []
    per_doc = 50
    for d0 in range(0, len(triples), per_doc):
        chunk = triples[d0 : d0 + per_doc]
        clauses = [clause_text(*t) for t in chunk]
        text = "\n\n".join(clauses) + "\n"
        doc = SourceDocument(source="gen", document=f"d{d0 // per_doc}.md", version="v1", text=text, digest=sha256_digest(text))
        docs.append(doc)
        pos = 0
        for j, (t, c) in enumerate(zip(chunk, clauses)):
            rels.append(Relation(id=f"g{d0 + j}", subject=t[0], predicate=t[1], object=t[2], support=Support(
                source="gen", document=doc.document, version="v1", digest=doc.digest, span=(pos, pos + len(c)), quote=c)))
            pos += len(c) + 2
    return Catalog(
        world="gen",
        entities=entities,
        predicates=[Predicate(name="operated_by", domain="project", range="org", cardinality="functional"),
                    Predicate(name="contact", domain="org", range="contact")],
        documents=docs,
        relations=rels,
        views=[View(name="current", current=True, documents=[d.ref for d in docs])],
        patterns=[Pattern(name="contact_for_project", start_type="project", hops=["operated_by", "contact"],
                          phrasings=["which contact serves {project}"])],
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--relations", type=int, default=100_000)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--compare", type=Path, help="--json output of an earlier run: print old / new ratios.")
    args = ap.parse_args()
    report: dict[str, object] = {}

    chainret_bin = str(Path(sys.executable).parent / "chainret")
    cli, cli_cpu = cold([chainret_bin, "ask", "Which contact serves PR-84?"], args.runs)
    imp, imp_cpu = cold([sys.executable, "-c", "import chainret"], args.runs)
    report["cold_cli_ask_s"] = statistics.median(cli)
    report["cold_cli_ask_cpu_s"] = statistics.median(cli_cpu)
    report["cold_import_chainret_s"] = statistics.median(imp)
    report["cold_import_chainret_cpu_s"] = statistics.median(imp_cpu)
    report["heavy_modules_after_ask"] = heavy_modules_after_ask()
    print(f"cold `chainret ask` (median of {args.runs}): {report['cold_cli_ask_s']:.3f} s, CPU {report['cold_cli_ask_cpu_s']:.3f} s; "
          f"`import chainret`: {report['cold_import_chainret_s']:.3f} s, CPU {report['cold_import_chainret_cpu_s']:.3f} s "
          f"(ask / import CPU = {report['cold_cli_ask_cpu_s'] / report['cold_import_chainret_cpu_s']:.1f}x)")
    heavy = report["heavy_modules_after_ask"]
    print(f"heavy modules after ask: {', '.join(heavy) if heavy else 'none (torch, transformers, sentence_transformers not imported)'}")

    rows = fixture_latency(args.runs)
    warm = [r[2] for r in rows]
    first = [r[1] for r in rows]
    report["fixture_cases"] = len(rows)
    report["fixture_first_ms_median"] = statistics.median(first) * 1000
    report["fixture_warm_ms_median"] = statistics.median(warm) * 1000
    report["fixture_warm_ms_max"] = max(warm) * 1000
    print(f"fixture worlds: {len(rows)} cases; first ask median {report['fixture_first_ms_median']:.2f} ms, "
          f"warm median {report['fixture_warm_ms_median']:.2f} ms, warm max {report['fixture_warm_ms_max']:.2f} ms")

    from chainret.pipeline.ask import ask

    c0, t0 = time.process_time(), time.perf_counter()
    cat = generated_catalog(args.relations)
    build, build_cpu = time.perf_counter() - t0, time.process_time() - c0
    req = f"Which contact serves GP-{args.relations // 4}?"
    c0, t0 = time.process_time(), time.perf_counter()
    t = ask(req, cat)
    first_ask, first_cpu = time.perf_counter() - t0, time.process_time() - c0
    times, cpus = [], []
    for i in range(args.runs):
        c0, t0 = time.process_time(), time.perf_counter()
        t = ask(f"Which contact serves GP-{(args.relations // 4 + 7 * i) % (args.relations // 2)}?", cat)
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    report.update(
        generated_relations=len(cat.relations),
        generated_units=len(cat.units_by_ref),
        generated_build_s=build,
        generated_build_cpu_s=build_cpu,
        generated_first_ask_s=first_ask,
        generated_first_ask_cpu_s=first_cpu,
        generated_warm_ms_median=statistics.median(times) * 1000,
        generated_warm_cpu_ms_median=statistics.median(cpus) * 1000,
        generated_outcome=t.outcome,
        generated_rows_used=t.rows_used,
    )
    print(f"generated catalog: {len(cat.relations)} relations, {len(cat.units_by_ref)} units; models built in {build:.2f} s "
          f"(CPU {build_cpu:.2f} s); first ask (digest + view + name and BM25 indexes) {first_ask:.2f} s (CPU {first_cpu:.2f} s); "
          f"warm ask median {report['generated_warm_ms_median']:.2f} ms (CPU {report['generated_warm_cpu_ms_median']:.2f} ms); "
          f"last outcome {t.outcome}, {t.rows_used} rows")
    if args.compare:
        old = json.loads(_json_tail(args.compare.read_text()))
        print(f"old / new, against {args.compare}:")
        for key in COMPARED:
            if isinstance(old.get(key), (int, float)) and report.get(key):
                ratio = old[key] / report[key]  # type: ignore[operator]
                report[f"ratio_{key}"] = ratio
                print(f"  {key}: {old[key]:.4g} -> {report[key]:.4g} ({ratio:.1f}x)")
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))


COMPARED = (
    "cold_cli_ask_s", "cold_cli_ask_cpu_s", "cold_import_chainret_s", "cold_import_chainret_cpu_s",
    "fixture_warm_ms_median", "generated_first_ask_s", "generated_first_ask_cpu_s",
    "generated_warm_ms_median", "generated_warm_cpu_ms_median",
)


def _json_tail(text: str) -> str:
    """The JSON object at the end of a ``--json`` output (the human-readable lines come first)."""
    lines = text.splitlines()
    return "\n".join(lines[next(i for i, line in enumerate(lines) if line.startswith("{")) :])


if __name__ == "__main__":
    main()
