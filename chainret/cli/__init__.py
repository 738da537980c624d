"""The ``chainret`` command: a thin typer app over the library.

Each command group lives in its own module and registers itself on ``app``;
modules here import nothing heavy at import time (torch & co. load inside
the command bodies that need them). ``main`` is the single place where
``ChainretError`` becomes a message on stderr and an exit code.

Cold start (issue 24): typer builds a click command for every registered command each time the
app runs, and the command modules import rich and pydantic. So ``app`` (the whole tree: ``--help``,
the tests, docs/cli.md) is built on first use, and ``main`` runs a top-level command such as
``ask`` through a root holding that command alone: same root callback, same error path, same
usage and help text, without importing or building the others. Common ``ask`` invocations skip
typer altogether (``chainret.cli.ask_run``: typer and its pydantic adapters were a third of a
cold ask); this module imports typer only when it builds an app.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
import types
from typing import Any

# The CLI uses no pydantic plugin: skip pydantic's scan of every installed package's entry points
# (set before any model class is built; the library itself leaves the variable alone).
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

from chainret.core.errors import (  # noqa: E402
    EXIT_CODES,
    EXIT_INTERRUPTED,
    INSTALL_MODELS,
    ChainretError,
    MissingExtra,
)

# A closed stdout (``chainret ask … | head -1``) is no refusal: the exit code of a tool the pipe's SIGPIPE stopped.
EXIT_CLOSED_PIPE = 141
EXIT_TABLE = ("Exit codes: " + "; ".join(f"{code} {words}" for code, words in EXIT_CODES)
              + f"; {EXIT_CLOSED_PIPE} stdout closed early (e.g. by | head): the output stopped, quietly.")
INTERRUPTED = "interrupted; nothing was written"
_PLUGINS_OFF = ("__all__", "1", "true")  # the values pydantic.plugin._loader reads as "no plugins"


def _no_plugin_scan() -> None:
    """With plugins off, pydantic still imports ``pydantic.plugin._loader`` for its first validator, and that
    imports ``importlib.metadata`` (about 8 ms) only to return no plugins. A stand-in answers the same while
    the variable says off and hands over to the real loader if it ever says otherwise. ``main`` puts it
    in place before pydantic is first imported (importing this module leaves pydantic's names alone)."""
    if os.environ.get("PYDANTIC_DISABLE_PLUGINS") not in _PLUGINS_OFF or "pydantic" in sys.modules \
            or "pydantic.plugin._loader" in sys.modules:
        return
    stub = types.ModuleType("pydantic.plugin._loader", "chainret.cli's stand-in: no plugins while PYDANTIC_DISABLE_PLUGINS is off")

    def get_plugins() -> Any:
        if os.environ.get("PYDANTIC_DISABLE_PLUGINS") in _PLUGINS_OFF:
            return ()
        if sys.modules.get("pydantic.plugin._loader") is stub:
            del sys.modules["pydantic.plugin._loader"]
        return importlib.import_module("pydantic.plugin._loader").get_plugins()

    stub.get_plugins = get_plugins  # type: ignore[attr-defined]
    sys.modules["pydantic.plugin._loader"] = stub


def _app_class() -> type:
    """The root group class (typer loads here, not when this module is imported)."""
    global _App_class
    if _App_class is None:
        import typer
        from typer.core import TyperGroup

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
                except KeyboardInterrupt:  # click would say "Aborted!" and exit 1
                    raise typer.Exit(interrupted()) from None
                except BrokenPipeError:  # click would exit 1, the code of a refusal
                    raise typer.Exit(closed_pipe()) from None

        _App_class = _App
    return _App_class


_App_class: type | None = None


def _version(value: bool) -> None:
    if value:
        import typer

        from chainret import __version__

        typer.echo(f"chainret {__version__}")
        raise typer.Exit()


def _root_app() -> Any:
    """The root group with its callback and no commands yet."""
    import typer

    root = typer.Typer(
        name="chainret",
        cls=_app_class(),
        help="Auditable multi-hop retrieval over a versioned, permission-aware relation catalog.",
        epilog=EXIT_TABLE,
        no_args_is_help=True,
        add_completion=True,  # --install-completion, --show-completion (typer imports its completion module anyway)
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )

    @root.callback()
    def _root(
        version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
    ) -> None:
        """Auditable multi-hop retrieval over a versioned, permission-aware relation catalog."""

    return root


def _build_app() -> Any:
    """The whole command tree, in the order ``--help`` lists it."""
    from chainret.cli import ask_cmds, bench_cmds, catalog_cmds, nli_cmds, serve_cmds, store_cmds
    from chainret.cli import import_cmds

    root = _root_app()
    catalog_cmds.register(root)
    ask_cmds.register(root)
    root.add_typer(bench_cmds.bench_app, name="bench")
    root.add_typer(nli_cmds.nli_app, name="nli")
    store_cmds.register(root)  # `chainret catalog compile` (onto the catalog group)
    import_cmds.register(catalog_cmds.catalog_app)  # `chainret catalog history`
    # Further bench commands register themselves on bench_app.
    from chainret.cli import bench_pack_cmds, bench_verify_cmds  # noqa: F401

    serve_cmds.register(root)
    _full_short_help(root)
    return root


# Top-level commands ``main`` can run without the rest of the tree: the module whose ``register(app)``
# adds them (and adds nothing to a shared sub-group, so registering it on a second root is harmless).
_ALONE = {
    "ask": "ask_cmds", "eval": "ask_cmds", "graph": "ask_cmds", "patterns": "ask_cmds", "trace": "ask_cmds",
    "serve": "serve_cmds", "mcp": "serve_cmds", "validate": "catalog_cmds", "schema": "catalog_cmds",
}


def _app_for(name: str) -> Any:
    """A root holding the one top-level command ``name`` (one of ``_ALONE``)."""
    root = _root_app()
    importlib.import_module(f"chainret.cli.{_ALONE[name]}").register(root)
    root.registered_commands = [c for c in root.registered_commands if c.name == name]
    root.registered_groups = [g for g in root.registered_groups if g.name == name]
    _full_short_help(root)
    return root


_full_app: Any = None


def __getattr__(name: str) -> Any:
    """``app`` (the whole tree) is built on first use; ``err_console`` is the renderer's (rich, loaded then)."""
    global _full_app
    if name == "app":
        if _full_app is None:
            _full_app = _build_app()
        return _full_app
    if name == "err_console":
        from chainret.cli.render import err_console

        return err_console
    if name == "_App":
        return _app_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _full_short_help(typer_app: Any) -> None:
    """Command lists show each command's first sentence whole (click cuts it at ~45 characters); a group's
    help that says ``{commands}`` lists its commands there."""
    import inspect

    for info in typer_app.registered_commands:
        doc = inspect.getdoc(info.callback) if info.callback else None
        if info.short_help is None and doc:
            info.short_help = doc.split("\n\n", 1)[0].replace("\n", " ")
    for group in typer_app.registered_groups:
        sub = group.typer_instance
        text = group.help or (sub.info.help if sub is not None else None)
        text = getattr(text, "value", text)  # typer wraps a Typer(help=...) in a DefaultPlaceholder
        if sub is not None and isinstance(text, str) and "{commands}" in text:  # the group's commands, as registered
            text = text.replace("{commands}", ", ".join(_command_names(sub)))
            sub.info.help = text
        if getattr(group.short_help, "value", group.short_help) is None and isinstance(text, str):
            group.short_help = text.split("\n\n", 1)[0].replace("\n", " ")
        if sub is not None:
            _full_short_help(sub)


def _command_names(typer_app: Any) -> list[str]:
    """The visible commands of a group, in the order they were registered (a group's help lists them from
    here, so it names every command another module adds, such as ``catalog compile``)."""
    return [info.name or info.callback.__name__.replace("_", "-") for info in typer_app.registered_commands
            if not info.hidden and (info.name or info.callback)]


def main(argv: list[str] | None = None) -> None:
    """Entry point: click handles usage errors (exit 2); the root group (``_App``) turns a ChainretError into
    its message and exit code; one raised before a command runs (parsing) gets the same treatment here.

    ``chainret ask`` in a form ``chainret.cli.ask_run.parse_ask_args`` reads whole runs without typer
    (``_ask_fast``); everything else, ``ask --help`` and every usage error included, goes through typer."""
    args = sys.argv[1:] if argv is None else argv
    _no_plugin_scan()
    try:
        if args and args[0] == "ask":
            from chainret.cli.ask_run import parse_ask_args

            parsed = parse_ask_args(args[1:])
            if parsed is not None:
                _ask_fast(parsed)
        runner = _app_for(args[0]) if args and args[0] in _ALONE else __getattr__("app")
        try:
            runner(args=argv, standalone_mode=True)
        except KeyError:  # typer's shell completion reads its shell's variables (COMP_WORDS...) unchecked
            if not any(k.startswith("_") and k.endswith("_COMPLETE") for k in os.environ):
                raise
            sys.exit(1)  # asked to complete with no words to complete: nothing, as click answers
    except ChainretError as exc:
        print_error(exc)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        sys.exit(interrupted())


def interrupted() -> int:
    """Ctrl-C: say so (outputs are written atomically, so an interrupted command leaves none half-written); 130."""
    sys.stderr.write(f"\n{INTERRUPTED}\n")
    sys.stderr.flush()
    return EXIT_INTERRUPTED


def closed_pipe() -> int:
    """stdout's reader has gone (``| head -1``): stop quietly with ``EXIT_CLOSED_PIPE``. stdout then points at
    the null device (the recipe of Python's signal docs), so the flush at exit raises no second error."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        finally:
            os.close(devnull)
    except (OSError, ValueError, AttributeError):  # a stdout with no file descriptor (a test's capture)
        pass
    return EXIT_CLOSED_PIPE


def _ask_fast(parsed: dict[str, Any]) -> None:
    """``run_ask`` as typer's standalone mode runs a command: a ChainretError is its message and exit code
    (as ``_App.invoke``), Ctrl-C and a closed pipe as ``_App.invoke`` too, end of input "Aborted!" and 1;
    always ``sys.exit``."""
    from chainret.cli.ask_run import run_ask
    from chainret.core.bulk import paused_gc

    try:
        try:
            with paused_gc():
                try:
                    code = run_ask(**parsed)
                finally:
                    gc.freeze()
        except ChainretError as exc:
            print_error(exc)
            code = exc.exit_code
    except EOFError:
        sys.stderr.write("\n")
        sys.stderr.flush()
        sys.stderr.write("Aborted!\n")
        sys.stderr.flush()
        code = 1
    except KeyboardInterrupt:
        code = interrupted()
    except BrokenPipeError:
        code = closed_pipe()
    sys.exit(code)


def _err_console() -> Any:
    """The console errors go to: the renderer's, unless ``err_console`` was set on this module (tests do)."""
    return globals().get("err_console") or __getattr__("err_console")


def print_error(exc: ChainretError) -> None:
    """The error (data in it shown, never interpreted), plus the install hint for a missing extra.

    A message that lists several problems keeps its lines: each is printed as a line of its own
    (``t`` would show a newline inside one line as a literal ``\\n``)."""
    from chainret.cli.render import t

    err_console = _err_console()
    first, *rest = str(exc).split("\n")
    err_console.print(t(("error: ", "bold red"), first))
    for line in rest:
        err_console.print(t(line))
    if isinstance(exc, MissingExtra) and exc.extra == "models":  # only the model stack needs the torch pin
        err_console.print(t("install the model extra (CPU torch pinned first): ", INSTALL_MODELS))
