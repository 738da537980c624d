"""``chainret catalog compile``: fill a compiled store (a ``.db`` file or PostgreSQL) from a catalog.

Registers onto the ``catalog`` command group (created here if no other module made it first).
"""

from __future__ import annotations

import time
from typing import Optional

import typer
from chainret.cli.render import err_console as console, t  # markup off: data is shown, never parsed


def compile_cmd(
    catalog: str = typer.Argument(..., help="Catalog file or world directory (YAML/JSON)."),
    out: str = typer.Option(..., "--out", help="A .db file (embedded SQLite store) or a postgresql:// URL (?schema=NAME; default schema chainret)."),
    update: bool = typer.Option(False, "--update", help="Append the catalog's new documents, relations and views to an existing store (no rebuild)."),
    replace: bool = typer.Option(False, "--replace", help="Overwrite an existing store at --out."),
) -> None:
    """Compile a catalog into a store that `chainret ask --catalog OUT` opens in milliseconds."""
    from chainret.catalog.load import load_world
    from chainret.core.errors import UsageError
    from chainret.store import compile_store, store_location

    if update and replace:
        raise UsageError("--update and --replace exclude each other")
    t0 = time.perf_counter()
    if not update:
        from chainret.cli.progress import progress_bar
        from chainret.store.stream import compile_file

        with progress_bar() as progress:  # on a terminal only (stderr): a pipe gets the summary line alone
            world, counts, streamed = compile_file(catalog, out, replace=replace, progress=progress)
        summary = ", ".join(f"{n} {k}" for k, n in counts.items())
        how = "streamed" if streamed else "loaded and compiled"
        console.print(t(f"compiled {world} into {store_location(out)}: {summary} ({how} in {time.perf_counter() - t0:.2f} s)"))
        return
    cat = load_world(catalog).catalog
    t1 = time.perf_counter()
    counts = compile_store(cat, out, update=update, replace=replace)
    t2 = time.perf_counter()
    where = store_location(out)
    if update:
        added = ", ".join(f"{n} {k}" for k, n in counts.items() if n) or "nothing new"
        console.print(t(f"updated {where}: added {added} (load {t1 - t0:.2f} s, update {t2 - t1:.2f} s)"))
    else:
        summary = ", ".join(f"{n} {k}" for k, n in counts.items())
        console.print(t(f"compiled {cat.world} into {where}: {summary} (load {t1 - t0:.2f} s, compile {t2 - t1:.2f} s)"))


def _password(password_file: Optional[str], password_env: Optional[str]) -> Optional[str]:
    import os
    from pathlib import Path

    from chainret.core.errors import UsageError

    if password_file and password_env:
        raise UsageError("--password-file and --password-env exclude each other")
    if password_file:
        try:
            text = Path(password_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read the password file {password_file}: {exc.__class__.__name__}") from None
        secret = text.rstrip("\r\n")
        if not secret:
            raise UsageError(f"the password file {password_file} is empty")
        return secret
    if password_env:
        from_env = os.environ.get(password_env)
        if not from_env:
            raise UsageError(f"environment variable {password_env} is not set or empty")
        return from_env
    return None


def grant_cmd(
    url: str = typer.Argument(..., help="The store's postgresql:// URL (a superuser or CREATEROLE+BYPASSRLS login)."),
    principal: Optional[str] = typer.Argument(None, help="The principal the login reads as (omit with --app)."),
    login: str = typer.Option(..., "--login", help="The login role to create or update."),
    app: bool = typer.Option(False, "--app", help="Grant chainret's application role (a server's login: may read as any principal)."),
    password_file: Optional[str] = typer.Option(None, "--password-file", help="Read the login's password from this file."),
    password_env: Optional[str] = typer.Option(None, "--password-env", help="Read the login's password from this environment variable."),
) -> None:
    """Give a person or tool its own PostgreSQL login that reads the store as PRINCIPAL (never on the command line: the password)."""
    from chainret.core.errors import UsageError
    from chainret.store import is_url
    from chainret.store.postgres import grant_login, redact

    if not is_url(url):
        raise UsageError(f"grant works on PostgreSQL stores (postgresql://...), not {url!r}: SQLite has no logins")
    if app == (principal is not None):
        raise UsageError("name a PRINCIPAL or pass --app (not both)")
    role = grant_login(url, principal, login, _password(password_file, password_env))
    who = "chainret's application role (reads as any principal)" if app else f"principal {principal!r}"
    console.print(t(f"login {login} reads {redact(url)} as {who} (role {role})"))


def revoke_cmd(
    url: str = typer.Argument(..., help="The store's postgresql:// URL."),
    login: str = typer.Option(..., "--login", help="The login whose roles of this store are taken back."),
) -> None:
    """Take back every role of this store from a login (effective for its next transaction)."""
    from chainret.core.errors import UsageError
    from chainret.store import is_url
    from chainret.store.postgres import redact, revoke_login

    if not is_url(url):
        raise UsageError(f"revoke works on PostgreSQL stores (postgresql://...), not {url!r}")
    revoked = revoke_login(url, login)
    console.print(t(f"login {login}: revoked {', '.join(revoked) or 'nothing (it held no role of this store)'} at {redact(url)}"))


def catalog_group(app: typer.Typer) -> typer.Typer:
    """The ``catalog`` sub-app of ``app``: the one already registered, else a new one."""
    for group in app.registered_groups:
        if group.name == "catalog" and group.typer_instance is not None:
            return group.typer_instance
    sub = typer.Typer(name="catalog", help="Catalog tools (compile a store, ...).", no_args_is_help=True)
    app.add_typer(sub, name="catalog")
    return sub


def register(app: typer.Typer, name: Optional[str] = "compile") -> None:
    group = catalog_group(app)
    group.command(name)(compile_cmd)
    group.command("grant")(grant_cmd)
    group.command("revoke")(revoke_cmd)
    from chainret.cli.log_cmds import log_cmd

    group.command("log")(log_cmd)
