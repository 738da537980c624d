"""The ``chainret`` command: a thin typer app over the library.

Each command group lives in its own module and registers itself on ``app``;
modules here import nothing heavy at import time (torch & co. load inside
the command bodies that need them). ``main`` is the single place where
``ChainretError`` becomes a message on stderr and an exit code.
"""

from __future__ import annotations

import sys

import typer
from rich.console import Console

from chainret.errors import ChainretError

app = typer.Typer(
    name="chainret",
    help="Auditable multi-hop retrieval over a versioned, permission-aware relation catalog.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
err_console = Console(stderr=True)

from chainret.cli import ask_cmds, bench_cmds, catalog_cmds, nli_cmds  # noqa: E402

catalog_cmds.register(app)
ask_cmds.register(app)
app.add_typer(bench_cmds.bench_app, name="bench")
app.add_typer(nli_cmds.nli_app, name="nli")

from chainret.cli import store_cmds  # noqa: E402

store_cmds.register(app)  # `chainret catalog compile` (onto the catalog group)

# Further bench commands register themselves on bench_app.
from chainret.cli import bench_pack_cmds, bench_verify_cmds  # noqa: E402,F401
from chainret.cli import serve_cmds  # noqa: E402

serve_cmds.register(app)


def main(argv: list[str] | None = None) -> None:
    """Entry point: click handles usage errors (exit 2); ChainretError becomes a message, never a traceback."""
    try:
        app(args=argv, standalone_mode=True)
    except ChainretError as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err_console.print("aborted")
        sys.exit(130)
