"""``chainret validate`` and ``chainret schema``: thin wrappers over ``chainret.catalog``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from chainret.textsafe import markup_safe as escape

from chainret.errors import ChainretError, UsageError

console = Console()
err_console = Console(stderr=True)

SCHEMAS = ("catalog", "cases", "case")
_STYLE = {"error": "bold red", "warning": "yellow", "info": "dim"}


def _fail(exc: ChainretError) -> SystemExit:
    """Print a known error the way ``chainret.cli.main`` does and give the exit to raise.

    SystemExit rather than typer.Exit: ``main`` runs the app with ``standalone_mode=False``, where
    click turns typer.Exit into a return value that ``main`` does not pass on as the exit status.
    """
    err_console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
    return SystemExit(exc.exit_code)


def _default_paths() -> list[Path]:
    here = [Path("fixtures"), Path("catalogs")]
    if all(p.exists() for p in here):
        return here
    from chainret.catalog.load import default_catalog_path

    root = default_catalog_path().resolve().parents[1]
    return [root / "fixtures", root / "catalogs"]


def validate_cmd(
    paths: Annotated[list[Path] | None, typer.Argument(help="Catalog/cases files or directories (default: fixtures catalogs).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the reports as JSON.")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Treat warnings (invalid records, contradictions) as failures.")] = False,
    show_info: Annotated[bool, typer.Option("--info", help="Also list info rows (view-time ineligibility).")] = False,
) -> None:
    """Check catalogs and fixture worlds: support clauses, digests, references, eligibility, cases.

    Exit 0 when every world is valid, 1 when any is not, 2 on usage errors.
    """
    from chainret.catalog.validate import validate_paths

    try:
        reports = validate_paths(list(paths or _default_paths()))
    except ChainretError as exc:
        raise _fail(exc) from None
    failed = [r for r in reports if not r.valid or (strict and any(i.severity == "warning" for i in r.issues))]
    if as_json:
        print(json.dumps({"valid": not failed, "reports": [r.to_dict() for r in reports]}, indent=2, sort_keys=True))
    else:
        _render(reports, show_info)
    if failed:
        raise SystemExit(1)


def _render(reports: list, show_info: bool) -> None:  # list[WorldReport]
    from chainret.cli.render import fit_table, t

    rows = []
    for r in reports:
        sev = [i.severity for i in r.issues]
        c = r.counts
        rows.append([r.target, r.world, str(c.get("relations", "-")), str(c.get("invalid_relations", "-")),
                     str(c.get("cases", "-")), str(sev.count("error")), str(sev.count("warning")),
                     t(("valid", "green")) if r.valid else t(("invalid", "bold red"))])
    columns = ("target", "world", "rels", "invalid", "cases", "err", "warn", "result")
    console.print(fit_table(columns, rows, width=console.width, title="chainret validate"))  # never breaks a word
    hidden = 0
    for r in reports:
        for i in r.issues:
            if i.severity == "info" and not show_info:
                hidden += 1
                continue
            console.print(f"[{_STYLE[i.severity]}]{i.severity}[/] {escape(i.code)} {escape(str(i).removesuffix(f' [{i.code}]'))}",
                          highlight=False)
    if hidden:
        console.print(f"[dim]{hidden} info rows hidden (view-time ineligibility); --info shows them[/]")


def schema_cmd(
    name: Annotated[str, typer.Argument(help=f"Which schema: {', '.join(SCHEMAS)}.")] = "catalog",
    out: Annotated[Path | None, typer.Option("--out", help="Write to this file (atomically) instead of stdout.")] = None,
) -> None:
    """Print the JSON Schema of a catalog file, a cases file or one case."""
    from chainret.catalog.cases import Case, CaseFile
    from chainret.catalog.models import Catalog
    from chainret.trace import atomic_write_text

    models = {"catalog": Catalog, "cases": CaseFile, "case": Case}
    if name not in models:
        raise _fail(UsageError(f"unknown schema {name!r}; choose one of: {', '.join(SCHEMAS)}"))
    text = json.dumps(models[name].model_json_schema(), indent=2, sort_keys=True) + "\n"
    if out is None:
        print(text, end="")
    else:
        atomic_write_text(out, text)
        err_console.print(f"wrote {out}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.command("validate")(validate_cmd)
    app.command("schema")(schema_cmd)
