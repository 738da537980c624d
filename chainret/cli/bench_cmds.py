"""Placeholder: `chainret bench` group."""

import typer

bench_app = typer.Typer(help="Benchmarks over HotpotQA, 2Wiki, MuSiQue and SQuAD.", no_args_is_help=True)
