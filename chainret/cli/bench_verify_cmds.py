"""``chainret bench later-hop``: a thin wrapper over ``chainret.research.verification.laterhop.run_later_hop``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from chainret.cli.bench_cmds import bench_app, progress_bar

from chainret.cli.render import console  # noqa: E402  (markup off: data is shown, never parsed)


@bench_app.command("later-hop")
def later_hop_cmd(
    dataset: str = typer.Argument(..., help="musique (gold question_decomposition) or 2wiki (decomposition from evidences)."),
    out: Path = typer.Option(..., "--out", help="Run directory: summary.json and traces.jsonl (Verification records per hop)."),
    n: int | None = typer.Option(None, "--n", help="Sample this many questions (deterministic with --seed)."),
    seed: int = typer.Option(1337, "--seed"),
    data_dir: Path | None = typer.Option(None, "--data-dir", envvar="CHAINRET_DATA_DIR", help="Benchmark data directory."),
    nli_model: str | None = typer.Option(None, "--nli-model", help="NLI model name or path (default: chainret's own)."),
    embedder: str | None = typer.Option(None, "--embedder", help="Retriever for the anchor (default all-MiniLM-L6-v2)."),
    resamples: int = typer.Option(1000, "--resamples", help="Bootstrap resamples for CIs."),
    decomposer: list[str] = typer.Option(
        ["anchored"], "--decomposer",
        help="Deployable decomposition(s) to score beside the gold one: anchored (anchor-resolved placeholders / 2Wiki "
        "relation rules) or iterative (one hop at a time, no gold, no LLM); repeat the option for both.",
    ),
) -> None:
    """Which paragraph supports a later hop? AUC per hypothesis source, overall and by hop count."""
    from chainret.research.verification.laterhop import run_later_hop

    with progress_bar() as progress:
        task = progress.add_task("NLI pairs", total=None)

        def advance(k: int) -> None:
            progress.advance(task, k)

        summary = run_later_hop(
            dataset, out, data_dir=str(data_dir) if data_dir else None, n=n, seed=seed, nli_model=nli_model,
            embedder=embedder, n_resamples=resamples, progress=advance, on_total=lambda t: progress.update(task, total=t),
            decomposers=tuple(dict.fromkeys(decomposer)),
        )
    _print(summary)
    console.print(f"wrote {out / 'summary.json'}, {out / 'traces.jsonl'}")


def _fmt(e: dict[str, Any] | None) -> str:
    if not e:
        return ""
    return f"{e['value']:.3f} [{e['low']:.3f}, {e['high']:.3f}]"


def _print(summary: dict[str, Any]) -> None:
    hops = sorted({h for s in summary["sources"].values() for h in s["by_hops"]})
    t = Table(title=f"{summary['dataset']}: later-hop support, {summary['n_questions']} questions, NLI {summary['nli_model']}")
    for col in ("hypothesis from", "AUC [95% CI]", *[f"{h} hops" for h in hops]):
        t.add_column(col)
    for name, s in summary["sources"].items():
        t.add_row(name, _fmt(s["overall"]), *[_fmt(s["by_hops"].get(h)) for h in hops])
    console.print(t)
    for name, e in summary.get("lifts", {}).items():
        console.print(f"paired lift {name}: {_fmt(e)}")
    if summary.get("iterative_ceiling_share") is not None:
        console.print(f"iterative: {summary['iterative_ceiling_share']:.0%} of the gold sub-question ceiling")
    it = summary.get("iterative_decomposer")
    if it:
        acc = ", ".join(f"hop {k} {v['correct']}/{v['n']}" for k, v in it["bridge_accuracy_by_hop"].items())
        console.print(f"iterative bridges right: {acc}; chain breaks: {it['chain_breaks']}")
