"""Placeholder: `chainret nli` group."""

import typer

nli_app = typer.Typer(help="Train and evaluate chainret's NLI cross-encoder.", no_args_is_help=True)
