"""``chainret bench pack``: a thin wrapper over ``chainret.research.packing.run.run_pack``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from chainret.cli.bench_cmds import bench_app
from chainret.core.errors import UsageError

from chainret.cli.render import console, err_console, t as text  # noqa: E402  (markup off: data is shown, never parsed)


def _ints(text: str, what: str) -> list[int]:
    try:
        vals = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"{what} must be comma-separated integers, got {text!r}") from None
    if not vals:
        raise UsageError(f"no {what} given")
    return vals


@bench_app.command("pack")
def pack_cmd(
    dataset: str = typer.Argument(..., help="hotpotqa, hotpotqa-vws, 2wiki, 2wiki-vws, musique, … or a data file path"),
    out: Path = typer.Option(..., "--out", help="Run directory: summary.json, traces.jsonl, aic_vs_budget.png."),
    budget: int = typer.Option(160, "--budget", help="Reader-token budget (MiniLM WordPiece tokens)."),
    budgets: str | None = typer.Option(None, "--budgets", help="Budget sweep, e.g. 96,128,160,224 (overrides --budget)."),
    packers: str = typer.Option("naive,focused,focused-seed,mmr,submodular", "--packers", help="Comma-separated packers (oracle is added)."),
    seeds: str = typer.Option("42,13,7", "--seeds", help="Seeds: question samples when --n is set; bootstrap pooling."),
    n: int | None = typer.Option(None, "--n", help="Questions per seed (default: all)."),
    k: int = typer.Option(5, "--k", help="Paragraphs retrieved per question before packing."),
    signal: str = typer.Option("embedding", "--signal", help="Paragraph retrieval: embedding, bm25, or auto (embedding when cached, else bm25)."),
    similarity: str = typer.Option("lexical", "--similarity", help="Snippet similarity/relevance: lexical or embedding (adds dense cosine)."),
    embedder: str | None = typer.Option(None, "--embedder", help="sentence-transformers name or path (default all-MiniLM-L6-v2)."),
    data_dir: Path | None = typer.Option(None, "--data-dir", envvar="CHAINRET_DATA_DIR", help="Benchmark data directory."),
    max_items: int | None = typer.Option(None, "--max-items", help="Cap on snippets per packet."),
    no_oracle: bool = typer.Option(False, "--no-oracle", help="Skip the per-question oracle."),
    resamples: int = typer.Option(10_000, "--resamples", help="Paired-bootstrap resamples."),
) -> None:
    """Pack the top-k retrieved paragraphs' snippets under a token budget; report answer-in-context & co."""
    from chainret.research.packing.run import PackConfig, run_pack

    cfg = PackConfig(
        dataset=dataset,
        budgets=_ints(budgets, "--budgets") if budgets else [budget],
        packers=[p.strip() for p in packers.split(",") if p.strip()],
        seeds=_ints(seeds, "--seeds"),
        n=n,
        k=k,
        signal=signal,
        similarity=similarity,
        embedder=embedder,
        data_dir=str(data_dir) if data_dir else None,
        max_items=max_items,
        with_oracle=not no_oracle,
        resamples=resamples,
    )
    summary = run_pack(cfg, out, progress=lambda m: err_console.print(text((m, "dim"))))
    _render(summary)
    console.print(f"wrote {out / 'summary.json'}, {out / 'traces.jsonl'}, {out / 'aic_vs_budget.png'}")


def _fmt(v: Any, digits: int = 3) -> str:
    return "n/a" if v is None or v != v else f"{v:.{digits}f}"


def _render(summary: dict[str, Any]) -> None:
    r = summary["retrieval"]
    k = summary["config"].get("k", 5)
    console.print(
        text((summary["dataset"], "bold")),
        f": {summary['questions']} questions; retrieval ({summary['config']['signal']}, top-{k}): "
        f"recall@{k} {_fmt(r.get(f'recall@{k}'))}, all-gold@{k} {_fmt(r.get(f'all_gold@{k}'))}"
    )
    table = Table("packer@budget", "answer-in-context", "gold-doc cov.", "all-gold in reader", "gold-token dens.", "tokens")
    for key, row in summary["pooled"].items():
        table.add_row(
            key,
            _fmt(row["answer_in_context"]),
            _fmt(row["gold_doc_coverage"]),
            _fmt(row["all_gold_in_reader"]),
            _fmt(row["gold_token_density"]),
            _fmt(row["tokens_used"], 1),
        )
    console.print(table)
