"""``chainret catalog import PATH --format backstage|codeowners`` and ``chainret catalog history REPO``.

Thin wrappers over ``chainret.sources``: read the records, build them into the catalog at
``--out`` (nothing is written when anything is wrong), print what changed and every warning
with its file and line. Errors are ``ChainretError``s, printed by ``chainret.cli.main``.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from chainret.cli.render import console, t
from chainret.core.errors import UsageError

if TYPE_CHECKING:
    from chainret.catalog.models import Catalog

FORMAT_HELP = "backstage (catalog-info.yaml descriptors and their Locations) or codeowners; repeat for both."


def _say(text: str) -> None:
    console.print(t(text), highlight=False)


def _warn(lines: list[str], shown: int = 30) -> None:
    for line in lines[:shown]:
        console.print(t(("warning ", "yellow"), line), highlight=False)
    if len(lines) > shown:
        _say(f"… and {len(lines) - shown} more warnings")


def import_records(path: Path, formats: list[str], out: Path | None, *, src: Path | None, world: str | None,
                   view: str | None, strict: bool) -> None:
    """``catalog import PATH --format backstage|codeowners --out CATALOG``."""
    from chainret.cli.progress import progress_bar
    from chainret.sources.records import default_world, import_snapshot, read_snapshot, write_import

    if out is None:
        raise UsageError("--format backstage / codeowners needs --out CATALOG (a .yaml file or a folder)")
    world = world or default_world(formats, src)
    with progress_bar() as progress:  # on a terminal only: a pipe gets the summary lines alone
        snap = read_snapshot(path, formats, world, progress=progress)
        result = import_snapshot(snap, out, world=world, src=src, view=view, strict=strict, progress=progress)
        written = write_import(result, f"import {path} --format {' --format '.join(formats)}", progress)
    cat = result.catalog
    _warn([str(w) for w in snap.warnings])
    _say(f"{'wrote' if written else 'unchanged'} {result.catalog_file}: world {cat.world}, {snap.records} record files, "
         f"{len(cat.entities)} entities, {len(cat.relations)} relations, {len(cat.views)} views")
    if result.new_view:
        _say(f"new view {result.new_view} (current): {len(result.new_versions)} new document versions, "
             f"{len(result.kept_versions)} unchanged")
    else:
        _say(f"no record changed; current view {result.view}")
    for note in result.notes:
        _say(f"note: {note}")
    if snap.warnings:
        # (each warning says what became of its record: skipped, not read, or imported without the field)
        _say(f"{len(snap.warnings)} warnings, each saying what was imported and what was not (--strict makes them errors)")


def history_cmd(
    repo: Annotated[Path, typer.Argument(help="A git repository (its working tree is not read: the commits are).")],
    out: Annotated[Path, typer.Option("--out", help="Catalog file (.yaml/.json) or folder; an existing one gains the new commits only.")],
    formats: Annotated[list[str], typer.Option("--format", help=FORMAT_HELP + " Or csv: one table's history (--path TABLE --src FOLDER --document PATH).")],
    rev: Annotated[str | None, typer.Option("--rev", help="Revision or range to walk, e.g. main or v1..v2 (default HEAD).")] = None,
    path: Annotated[str, typer.Option("--path", help="Folder of the records inside the repository (default: all of it).")] = "",
    src: Annotated[Path | None, typer.Option("--src", help="A source folder whose chainret.yaml adds aliases, patterns, visibility, prose records.")] = None,
    world: Annotated[str | None, typer.Option("--world", help="World name (default: the catalog's, the --src header's, else backstage / codeowners).")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="A commit whose records do not import cleanly is an error (default: reported and skipped).")] = False,
    document: Annotated[str | None, typer.Option("--document", help="--format csv: where the table is rendered in --src, e.g. cmdb/ownership.md.")] = None,
) -> None:
    """Make every commit that changed the records a document version and a view (<date>-<short hash>).

    Ask as of a day with --view 2026-03-01 (the last commit on or before it) or a commit with --view <hash>.
    Re-running appends only new commits.
    """
    from chainret.cli.progress import progress_bar
    from chainret.sources.history import history
    from chainret.sources.records import write_import

    with progress_bar() as progress:
        res = history(repo, out, formats, rev=rev, path=path, src=src, world=world, strict=strict, document=document,
                      progress=progress)
    _warn([str(w) for w in res.warnings])
    for c, why in res.skipped:
        _say(f"skipped commit {c.sha[:7]} ({c.date.date()}): {why}")
    if res.result is None or not res.added:
        _say(f"{res.catalog_file}: up to date ({res.known} commits already in it, {len(res.unchanged)} new ones changed no record)")
        return
    with progress_bar() as progress:
        write_import(res.result, f"history {repo} --format {' --format '.join(formats)}", progress)
    cat = res.result.catalog
    _say(f"wrote {res.catalog_file}: {len(res.added)} new views ({res.known} commits were already in it), "
         f"{len(cat.documents)} document versions, {len(cat.relations)} relations, {len(cat.views)} views")
    for c, name in res.added:
        _say(f"  + {name} (commit {c.sha})")
    if res.unchanged:
        _say(f"{len(res.unchanged)} new commits changed no record (no view)")
    latest = res.added[-1][1]
    _say("next:")  # as catalog init says it: the command that asks the catalog just written
    _say(f"  chainret ask {shlex.quote(_question(cat, latest))} --catalog {shlex.quote(str(out))} --view {latest}")
    first = cat.views[0].name
    if first != latest:
        _say(f"  chainret catalog diff {first} {latest} --catalog {shlex.quote(str(out))}")


def _question(cat: Catalog, view: str) -> str:
    """A question the catalog answers in ``view``: who owns the first owned entity, else a placeholder."""
    refs = set(cat.views_by_name[view].documents)
    owned = next((r.subject for r in cat.relations if r.predicate == "owned_by" and r.support.doc_ref in refs), None)
    entity = cat.entities_by_id.get(owned) if owned else None
    return f"Who owns {entity.name}?" if entity is not None else "YOUR QUESTION"


def register(catalog_app: typer.Typer) -> None:
    """Add ``catalog history`` to the catalog group (``catalog import --format`` lives on ``catalog import``)."""
    catalog_app.command("history")(history_cmd)
