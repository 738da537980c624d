"""``chainret bench run`` and ``chainret bench report``: thin wrappers over ``chainret.research.bench.run``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table

if TYPE_CHECKING:
    from rich.progress import Progress

bench_app = typer.Typer(help="Benchmarks over HotpotQA, 2Wiki, MuSiQue and SQuAD.", no_args_is_help=True)
from chainret.cli.render import console, err_console, t as text  # noqa: E402  (markup off: data is shown, never parsed)


def progress_bar() -> Progress:
    """A stderr progress display with work done and time left (the bench commands' shared look)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    TextColumn("left"), TimeRemainingColumn(), console=err_console, transient=False)


class _RichReporter:
    """Progress bars with work done and time left, one per signal."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress

    @contextmanager
    def task(self, description: str, total: int) -> Iterator[Callable[[int], None]]:
        tid = self.progress.add_task(description, total=total)
        yield lambda n: self.progress.advance(tid, n)
        self.progress.update(tid, completed=total)


@bench_app.command("run")
def run_cmd(
    dataset: str = typer.Argument(
        ..., help="hotpotqa, hotpotqa-vws, hotpotqa-vws-calib, 2wiki, 2wiki-vws, musique, squad, or a data file path"
    ),
    out: Path = typer.Option(..., "--out", help="Run directory (traces.jsonl, summary.json, report.md)."),
    signals: str = typer.Option("bm25,embedding", "--signals", help="Comma-separated: bm25, embedding, nli-slot, nli-oracle."),
    selectors: str = typer.Option("", "--selectors", help="Comma-separated selectors, e.g. B1,B2,B4,PC,SET,COND,B5."),
    n: int | None = typer.Option(None, "--n", help="Sample this many questions (deterministic with --seed)."),
    seed: int = typer.Option(1337, "--seed"),
    data_dir: Path | None = typer.Option(None, "--data-dir", envvar="CHAINRET_DATA_DIR", help="Benchmark data directory."),
    embedder: str | None = typer.Option(None, "--embedder", help="sentence-transformers name or path (default all-MiniLM-L6-v2)."),
    nli_model: str | None = typer.Option(None, "--nli-model", help="NLI model name or path (nli-* signals)."),
    top_k: int = typer.Option(5, "--top-k", help="Candidates handed to selectors."),
    lenient: bool = typer.Option(False, "--lenient", help="Skip malformed records (counted in the report)."),
    resamples: int = typer.Option(1000, "--resamples", help="Bootstrap resamples for CIs."),
) -> None:
    """Score every candidate paragraph, write one trace per question, summarise AUC and recall."""
    from chainret.research.bench.run import RunConfig, run_bench

    cfg = RunConfig.from_strings(
        dataset, out, signals, selectors, n=n, seed=seed, data_dir=data_dir, embedder=embedder,
        nli_model=nli_model, top_k=top_k, lenient=lenient, n_resamples=resamples,
    )
    with progress_bar() as progress:
        summary = run_bench(cfg, _RichReporter(progress))
    _print_summary(summary)
    if summary["skipped"]:
        console.print(text((f"skipped {len(summary['skipped'])} record(s)", "yellow"), "; see ", str(out / "summary.json")))
    console.print(f"wrote {out / 'traces.jsonl'}, {out / 'summary.json'}, {out / 'report.md'}")


@bench_app.command("report")
def report_cmd(
    run_dir: Path = typer.Argument(..., help="A `bench run --out` directory."),
    plot: bool = typer.Option(False, "--plot", help="Write PNG figures (AUC by hop count / type with CI bars)."),
) -> None:
    """Print a run's tables (and rewrite its report.md); --plot adds PNG figures."""
    from chainret.research.bench.report import plot_run, render_report
    from chainret.research.bench.run import read_run
    from chainret.core.files import atomic_write_text

    summary, _ = read_run(run_dir)
    if "metrics" not in summary:
        from chainret.core.errors import UsageError

        raise UsageError(f"{run_dir / 'summary.json'} has no 'metrics'; it is not a `bench run` summary")
    atomic_write_text(run_dir / "report.md", render_report(summary))
    _print_summary(summary)
    if plot:
        for p in plot_run(summary, run_dir):
            console.print(f"wrote {p}")


def _print_summary(summary: dict[str, Any]) -> None:
    from chainret.research.bench.report import auc_rows, group_rows, selector_rows

    models = ", ".join(f"{k}={v}" for k, v in summary.get("models", {}).items())
    tbl = Table(title=f"{summary['dataset']}: {summary['n']} questions, seed {summary['seed']}" + (f" ({models})" if models else ""))
    for col in ("signal", "AUC [95% CI]", "answer-bearing", "bridge-only", "deficit", "recall@1/2/5", "anchor"):
        tbl.add_column(col)
    for row in auc_rows(summary):
        tbl.add_row(*row)
    console.print(tbl)
    for key, title in (("by_type", "by question type"), ("by_hops", "by hop count")):
        rows = group_rows(summary, key)
        if rows and len({r[0] for r in rows}) > 1:
            t = Table(title=title)
            for col in ("group (n)", "signal", "AUC", "answer-bearing", "bridge-only", "deficit"):
                t.add_column(col)
            for r in rows:
                t.add_row(*r)
            console.print(t)
    header, rows = selector_rows(summary)
    if rows:
        t = Table(title="selectors")
        for col in header:
            t.add_column(col)
        for r in rows:
            t.add_row(*r)
        console.print(t)
