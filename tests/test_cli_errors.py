"""The install hint names the extra that is missing; only the model stack gets the torch pin."""

from __future__ import annotations

import io

from rich.console import Console

import chainret.cli as cli
from chainret.core.errors import MissingExtra


def _printed(exc: MissingExtra) -> str:
    buf = io.StringIO()
    old = cli.err_console
    cli.err_console = Console(file=buf, width=200)
    try:
        cli.print_error(exc)
    finally:
        cli.err_console = old
    return buf.getvalue()


def test_serve_and_postgres_hints_do_not_mention_torch():
    out = _printed(MissingExtra("chainret serve needs fastapi: install the 'serve' extra (pip install 'chainret[serve]')", extra="serve"))
    assert "chainret[serve]" in out and "torch" not in out
    assert "torch" not in _printed(MissingExtra("PostgreSQL stores need psycopg", extra="postgres"))


def test_model_hint_pins_cpu_torch_and_names_the_extra():
    out = _printed(MissingExtra("NLI models need torch and transformers"))
    assert "pip install torch==2.13.0" in out and "chainret[models]" in out
