"""Write the generated results section of docs/retriever.md (never edit that section by hand).

    python -m benchmarks.ask_report                                  # measurement tables only
    python -m benchmarks.ask_speed --json > speed.txt
    python -m benchmarks.ask_report --speed speed.txt           # ... plus the speed figures
    python -m benchmarks.ask_speed --json --compare OLD.json > speed.txt   # ... and old / new ratios

Runs every fixture case with the chain retriever (backtracking on and off) and the three text
routes, and replaces the text between the GENERATED markers of docs/retriever.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "retriever.md"
BEGIN = "<!-- BEGIN GENERATED: python -m benchmarks.ask_report -->"
END = "<!-- END GENERATED -->"


RATIO_LABELS = {
    "cold_cli_ask_s": "cold CLI ask wall",
    "cold_cli_ask_cpu_s": "cold CLI ask CPU",
    "cold_import_chainret_s": "`import chainret` wall",
    "cold_import_chainret_cpu_s": "`import chainret` CPU",
    "fixture_warm_ms_median": "fixture warm ask wall",
    "generated_first_ask_s": "generated first ask wall",
    "generated_first_ask_cpu_s": "generated first ask CPU",
    "generated_warm_ms_median": "generated warm ask wall",
    "generated_warm_cpu_ms_median": "generated warm ask CPU",
}


def frac(pair: list[int]) -> str:
    return f"{pair[0]}/{pair[1]}"


def section(speed: dict[str, object] | None) -> str:
    from chainret.pipeline.baselines import dense_available
    from chainret.research.bench.report import md_table
    from chainret.evaluate.cases import CASE_COLUMNS, ROUTE_COLUMNS, case_cells, evaluate_cases, route_cells, totals, yes_no

    os.chdir(ROOT)
    res = evaluate_cases(["fixtures"], baselines=True)
    nob = {(r.world, r.case.id): r for r in evaluate_cases(["fixtures"], backtrack=False)}
    out = [BEGIN, ""]
    out.append(f"Command: `python -m benchmarks.ask_report`. Dense route available: {yes_no(dense_available())}.")
    out.append("")
    for world in dict.fromkeys(r.world for r in res):
        rows = [r for r in res if r.world == world]
        t = totals(rows)
        out.append(f"### World `{world}`")
        out.append("")
        out.append(
            f"Chain retriever: positive accepted **{frac(t['positive_accepted'])}**, unsupported complete paths "
            f"**{frac(t['unsupported_complete_paths'])}**, complete bundles {frac(t['complete_bundles'])} of all cases, "
            f"expectations met {t['expectations_met']}/{t['cases']}."
        )
        out.append("")
        out.append(md_table(
            [*CASE_COLUMNS, "without backtracking"],
            [[*case_cells(r), nob[(r.world, r.case.id)].trace.outcome + ("" if nob[(r.world, r.case.id)].ok else " (expectation fails)")]
             for r in rows],
        ))
        out.append("")
        routes = sorted({k for r in rows for k in r.baselines})
        if routes:
            out.append("Text routes (same cap: 4 units, 900 characters; a text route never returns an accepted path):")
            out.append("")
            out.append(md_table(list(ROUTE_COLUMNS), route_cells(rows)))
            out.append("")
            for slot in routes:
                name = rows[0].baselines[slot]["route"]
                out.append(
                    f"- `{name}`: complete bundle on positive cases {frac(t[f'{slot}:positive_complete'])}, "
                    f"on all cases {frac(t[f'{slot}:complete_bundles'])}."
                )
            out.append("")
    if speed:
        out.append("### Speed (this machine, shared CPU; `python -m benchmarks.ask_speed --json`)")
        out.append("")
        out.append("Wall-clock times depend on what else the shared CPU runs; CPU times (user + system) do not.")
        out.append("")
        out.append(
            f"- cold `chainret ask \"Which contact serves PR-84?\"`: {speed['cold_cli_ask_s']:.2f} s, CPU "
            f"{speed['cold_cli_ask_cpu_s']:.2f} s (`import chainret` alone: {speed['cold_import_chainret_s']:.2f} s, "
            f"CPU {speed['cold_import_chainret_cpu_s']:.2f} s)"
        )
        heavy = speed["heavy_modules_after_ask"]
        out.append(f"- heavy modules in `sys.modules` after an ask: {', '.join(heavy) if heavy else 'none (no torch, transformers, sentence-transformers)'}")  # type: ignore[arg-type]
        out.append(f"- fixture worlds ({speed['fixture_cases']} cases), in process: warm median {speed['fixture_warm_ms_median']:.2f} ms, max {speed['fixture_warm_ms_max']:.2f} ms")
        out.append(
            f"- generated catalog, {speed['generated_relations']} relations / {speed['generated_units']} units: first ask "
            f"(catalog digest, view, name and BM25 indexes) {speed['generated_first_ask_s']:.1f} s, CPU "
            f"{speed['generated_first_ask_cpu_s']:.2f} s; then warm median {speed['generated_warm_ms_median']:.2f} ms per ask, "
            f"CPU {speed['generated_warm_cpu_ms_median']:.2f} ms (index cached per catalog digest, view and principal)"
        )
        ratios = {k.removeprefix("ratio_"): v for k, v in speed.items() if k.startswith("ratio_")}
        if ratios:
            out.append(
                "- against the previous implementation, measured back to back with `--compare` (old / new): "
                + ", ".join(f"{RATIO_LABELS.get(k, k)} {v:.1f}x" for k, v in ratios.items())  # type: ignore[str-format]
                + " (the old figures: `python -m benchmarks.ask_speed --json` on the previous commit's tree)"
            )
        out.append("")
    out.append(END)
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--speed", type=Path, help="Output of `python -m benchmarks.ask_speed --json` to include.")
    args = ap.parse_args()
    speed = None
    if args.speed:
        lines = args.speed.read_text().splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("{"))
        speed = json.loads("\n".join(lines[start:]))
    text = DOC.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        sys.exit(f"{DOC}: markers {BEGIN!r} / {END!r} not found")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    from chainret.core.files import atomic_write_text

    atomic_write_text(DOC, head + section(speed) + tail)
    print(f"wrote the generated section of {DOC}")


if __name__ == "__main__":
    main()
