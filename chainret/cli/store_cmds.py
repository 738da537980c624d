"""``chainret catalog compile``: fill a compiled store (a ``.db`` file or PostgreSQL) from a catalog.

Registers onto the ``catalog`` command group (created here if no other module made it first).
"""

from __future__ import annotations

import time
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape

console = Console(stderr=True)


def compile_cmd(
    catalog: str = typer.Argument(..., help="Catalog file or world directory (YAML/JSON)."),
    out: str = typer.Option(..., "--out", help="A .db file (embedded SQLite store) or a postgresql:// URL (?schema=NAME; default schema chainret)."),
    update: bool = typer.Option(False, "--update", help="Append the catalog's new documents, relations and views to an existing store (no rebuild)."),
    replace: bool = typer.Option(False, "--replace", help="Overwrite an existing store at --out."),
) -> None:
    """Compile a catalog into a store that `chainret ask --catalog OUT` opens in milliseconds."""
    from chainret.catalog.load import load_world
    from chainret.errors import UsageError
    from chainret.store import compile_store, store_location

    if update and replace:
        raise UsageError("--update and --replace exclude each other")
    t0 = time.perf_counter()
    cat = load_world(catalog).catalog
    t1 = time.perf_counter()
    counts = compile_store(cat, out, update=update, replace=replace)
    t2 = time.perf_counter()
    where = escape(store_location(out))
    if update:
        added = ", ".join(f"{n} {k}" for k, n in counts.items() if n) or "nothing new"
        console.print(f"updated {where}: added {added} (load {t1 - t0:.2f} s, update {t2 - t1:.2f} s)", highlight=False)
    else:
        summary = ", ".join(f"{n} {k}" for k, n in counts.items())
        console.print(f"compiled {escape(cat.world)} into {where}: {summary} (load {t1 - t0:.2f} s, compile {t2 - t1:.2f} s)", highlight=False)


def catalog_group(app: typer.Typer) -> typer.Typer:
    """The ``catalog`` sub-app of ``app``: the one already registered, else a new one."""
    for group in app.registered_groups:
        if group.name == "catalog" and group.typer_instance is not None:
            return group.typer_instance
    sub = typer.Typer(name="catalog", help="Catalog tools (compile a store, ...).", no_args_is_help=True)
    app.add_typer(sub, name="catalog")
    return sub


def register(app: typer.Typer, name: Optional[str] = "compile") -> None:
    catalog_group(app).command(name)(compile_cmd)
