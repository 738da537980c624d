"""The ``chainret`` command: a thin typer app over the library.

Each command group lives in its own module and registers itself on ``app``;
modules here import nothing heavy at import time (torch & co. load inside
the command bodies that need them). ``main`` is the single place where
``ChainretError`` becomes a message on stderr and an exit code.
"""

from __future__ import annotations

import os
import sys
from typing import Any

# The CLI uses no pydantic plugin: skip pydantic's scan of every installed package's entry points
# (set before any model class is built; the library itself leaves the variable alone).
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

import typer  # noqa: E402
from typer.core import TyperGroup  # noqa: E402

from chainret.cli.render import err_console, t  # noqa: E402
from chainret.errors import (  # noqa: E402
    EXIT_CODES,
    EXIT_INTERRUPTED,
    INSTALL_MODELS,
    ChainretError,
    MissingExtra,
)

EXIT_TABLE = "Exit codes: " + "; ".join(f"{code} {words}" for code, words in EXIT_CODES) + "."


class _App(TyperGroup):
    """The root group, and the CLI's one error path: a ChainretError from any command becomes its message
    on stderr (``print_error``) and its exit code, never a traceback; commands just raise. It holds
    wherever the app runs: ``main``, ``python -m chainret`` or typer's ``CliRunner``."""

    def invoke(self, ctx: Any) -> Any:  # typer's vendored click.Context
        try:
            return super().invoke(ctx)
        except ChainretError as exc:
            print_error(exc)
            raise typer.Exit(exc.exit_code) from None


app = typer.Typer(
    name="chainret",
    cls=_App,
    help="Auditable multi-hop retrieval over a versioned, permission-aware relation catalog.",
    epilog=EXIT_TABLE,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        from chainret import __version__

        typer.echo(f"chainret {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """Auditable multi-hop retrieval over a versioned, permission-aware relation catalog."""


from chainret.cli import ask_cmds, bench_cmds, catalog_cmds, nli_cmds  # noqa: E402

catalog_cmds.register(app)
ask_cmds.register(app)
app.add_typer(bench_cmds.bench_app, name="bench")
app.add_typer(nli_cmds.nli_app, name="nli")

from chainret.cli import store_cmds  # noqa: E402

store_cmds.register(app)  # `chainret catalog compile` (onto the catalog group)
from chainret.cli import import_cmds  # noqa: E402

import_cmds.register(catalog_cmds.catalog_app)  # `chainret catalog history`

# Further bench commands register themselves on bench_app.
from chainret.cli import bench_pack_cmds, bench_verify_cmds  # noqa: E402,F401
from chainret.cli import serve_cmds  # noqa: E402

serve_cmds.register(app)


def _full_short_help(typer_app: typer.Typer) -> None:
    """Command lists show each command's first sentence whole (click cuts it at ~45 characters)."""
    import inspect

    for info in typer_app.registered_commands:
        doc = inspect.getdoc(info.callback) if info.callback else None
        if info.short_help is None and doc:
            info.short_help = doc.split("\n\n", 1)[0].replace("\n", " ")
    for group in typer_app.registered_groups:
        sub = group.typer_instance
        text = group.help or (sub.info.help if sub is not None else None)
        text = getattr(text, "value", text)  # typer wraps a Typer(help=...) in a DefaultPlaceholder
        if getattr(group.short_help, "value", group.short_help) is None and isinstance(text, str):
            group.short_help = text.split("\n\n", 1)[0].replace("\n", " ")
        if sub is not None:
            _full_short_help(sub)


_full_short_help(app)


def main(argv: list[str] | None = None) -> None:
    """Entry point: click handles usage errors (exit 2); the root group (``_App``) turns a ChainretError into
    its message and exit code; one raised before a command runs (parsing) gets the same treatment here."""
    try:
        app(args=argv, standalone_mode=True)
    except ChainretError as exc:
        print_error(exc)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err_console.print("aborted")
        sys.exit(EXIT_INTERRUPTED)


def print_error(exc: ChainretError) -> None:
    """The error (data in it shown, never interpreted), plus the install hint for a missing extra.

    A message that lists several problems keeps its lines: each is printed as a line of its own
    (``t`` would show a newline inside one line as a literal ``\\n``)."""
    first, *rest = str(exc).split("\n")
    err_console.print(t(("error: ", "bold red"), first))
    for line in rest:
        err_console.print(t(line))
    if isinstance(exc, MissingExtra) and exc.extra == "models":  # only the model stack needs the torch pin
        err_console.print(t("install the model extra (CPU torch pinned first): ", INSTALL_MODELS))
