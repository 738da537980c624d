"""Assemble docs/results.md from the generated sections under docs/results/.

    python -m benchmarks.results_md

Sections, in order (``SECTIONS``): retrieval (issue 4), verification and its speed (issue 6), packing
(issue 7), then the speed, robustness and scoring pages, each written by the command
``benchmarks/manifest.yaml`` names for it. A missing section is named as missing, with that command,
never filled in by hand. Relative links (figures) are rewritten to
``results/…`` so they resolve from docs/.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from benchmarks.harness.manifest import load  # noqa: E402
from chainret.core.files import atomic_write_text  # noqa: E402

# The sections, in order: docs/results/NAME.md each. The command that writes a section is the manifest's
# (benchmarks/manifest.yaml), named where a section is missing; it is not typed here a second time.
SECTIONS = ("retrieval", "verification", "verification-speed", "packing", "decomposition", "store", "store_postgres",
            "cold_cli", "instructions", "serve", "serve_instructions", "robustness", "requests", "synonyms", "trust",
            "records", "newcomer", "newcomer2", "newcomer3", "newcomer4", "newcomer5", "newcomer6", "newcomer7", "newcomer8", "newcomer9", "newcomer10", "newcomer11", "peers", "sets", "sets-1m", "proof")
DOCS = ROOT / "docs"

_LINK = re.compile(r"(!?\[[^\]]*\]\()(?!https?://|/|#|results/)([^)]+\))")


def _headings(text: str) -> list[tuple[int, bool]]:
    """(line number, is heading) outside code fences."""
    out, fenced = [], False
    for i, line in enumerate(text.splitlines()):
        if line.startswith("```"):
            fenced = not fenced
        out.append((i, not fenced and re.match(r"#+ ", line) is not None))
    return out


def demote(text: str) -> str:
    """Shift headings so the section's top level becomes ``##`` under the page title, whatever level it used."""
    lines = text.splitlines()
    levels = [len(lines[i]) - len(lines[i].lstrip("#")) for i, h in _headings(text) if h]
    if not levels:
        return text
    shift = 2 - min(levels)
    for i, h in _headings(text):
        if h:
            lines[i] = "#" * max(1, len(lines[i]) - len(lines[i].lstrip("#")) + shift) + lines[i].lstrip("#")
    return "\n".join(lines)


def how_we_compare(docs: Path = DOCS) -> list[str]:
    """Which definitions follow the seed papers, which are ours, and which questions each row uses (issue 15)."""
    import json

    from chainret.research.qa import metrics as M
    from benchmarks.harness import paper as P

    sizes = "the paper's sets"
    vj = docs / "results" / "verification.json"
    if vj.is_file():
        n = json.loads(vj.read_text(encoding="utf-8")).get("n", {})
        sizes = ", ".join(f"{k} {v}" for k, v in n.items()) or sizes
    return [
        "",
        "## How we compare",
        "",
        "**Follow the papers.** *Answer-bearing* gold (seed 000's rule, `rule=\"paper\"`, used beside every seed-000 "
        "number): the normalised canonical answer is a plain substring of the normalised paragraph, title included; no "
        "aliases; yes/no answers never count. AUC: Mann-Whitney over all question-paragraph pairs pooled, ties one half, "
        "95% intervals from resampling questions. Answer normalisation: the official HotpotQA script. Selector *rec*: "
        "share of a question's gold paragraphs kept (Table VI). Answer-in-context (seed 002): the normalised answer is a "
        "token span of the packed context. `focused-seed` is seed 002's focused heuristic (budget checked after adding, "
        "stop; the snippet that crossed it dropped), `focused-seed-literal` the same with that snippet kept, as the "
        "seed did. Every quoted paper figure lives in `benchmarks/harness/paper.py` with its table and row; figures marked "
        "*(derived)* are computed from the paper's rounded cells or counts, not printed by it.",
        "",
        "**Ours.** The whole-token answer rule with aliases (`rule=\"ours\"`), shown beside the paper's with the counts "
        "where they disagree; `focused` (skips a snippet that does not fit and keeps filling); *argmax* for selectors of "
        "any size (everything kept is gold and min(capacity, gold) kept: capacity 2 for pair selectors, k for B1 and the PC "
        "gate, unbounded for B5); the PC sweep's gold recall is the selector table's *rec*; a split AUC resting on fewer "
        f"than {M.MIN_SPLIT_PARAGRAPHS} gold paragraphs prints its count, not a number; yes/no answers are not applicable "
        "to answer-in-context; packing budgets count all-MiniLM-L6-v2 WordPiece tokens and no packer exceeds the budget "
        "but `focused-seed-literal`, seed 002's baseline as written (it keeps the snippet that crosses the budget); "
        "our embedder (all-MiniLM-L6-v2) and NLI model (chainret/nli-minilm-l6) replace the paper's bge-small and "
        "nli-deberta-v3-base.",
        "",
        "**Question sets.** Tables I and III, selectors: HotpotQA-vws and 2Wiki-vws are the paper's own 500 evaluation "
        f"questions. Table II's HotpotQA rows: the paper's {sum(P.T2_N[('hotpotqa', t)] for t in ('bridge', 'comparison'))} "
        "= its 500 evaluation + 200 calibration questions, and ours the same 700 (retrieval page; the verification page "
        "says how many it ran). Table IV and the NLI-model check: the 200 calibration questions. MuSiQue: our 292 dev "
        f"records, not the paper's 500 ({', '.join(f'{h} hops {n}' for h, n in P.FIG2_HOP_COUNTS.items())}); selectors "
        f"use the 2-hop ones, as the paper's Table VI ({P.REC_QUESTIONS['musique']} there); the anchor rate is compared "
        f"over all hop counts ({P.ANCHOR_HOPS['musique']} in the paper). SQuAD: our seeded draw of 300. Packing: HotpotQA "
        "300 distractor records and the vws 500, 2Wiki-vws 500, MuSiQue 292, each with embedding and BM25 retrieval. "
        f"Verification run sizes on this page: {sizes} (full: hotpotqa 500, 2wiki 500, musique 292, squad 300, calib 200).",
    ]


def command_of(name: str) -> str:
    """The manifest's command(s) for the section ``docs/results/NAME.md``, as a page's reader would type them."""
    pages = [p for p in load().pages.values() if p.page == f"docs/results/{name}.md"]
    if not pages:
        raise KeyError(f"docs/results/{name}.md is not in benchmarks/manifest.yaml")
    return ", then ".join(f"`{c}`" for c in pages[0].commands)


def assemble(docs: Path = DOCS) -> str:
    parts = [
        "# chainret results",
        "",
        "_Assembled by `python -m benchmarks.results_md` from docs/results/*.md; every section is generated by a command "
        "named in it. Do not edit by hand._",
        *how_we_compare(docs),
    ]
    for name in SECTIONS:
        path = docs / "results" / f"{name}.md"
        parts.append("")
        if path.is_file():
            parts.append(demote(_LINK.sub(r"\1results/\2", path.read_text(encoding="utf-8").strip())))
        else:
            parts += [f"## {name.capitalize()}", "", f"_Not generated yet: run {command_of(name)} (writes docs/results/{name}.md)._"]
    return "\n".join(parts) + "\n"


def main(argv: list[str]) -> None:
    import argparse

    argparse.ArgumentParser(prog="python -m benchmarks.results_md", description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(argv)
    out = atomic_write_text(DOCS / "results.md", assemble())
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
