"""``chainret validate``, ``chainret schema`` and ``chainret catalog init|build|import|diff|lock|coverage``.

Thin wrappers: ``chainret.catalog`` validates, ``chainret.authoring`` builds catalogs from a
source folder (plain files + a ``chainret.yaml`` header); these commands parse, call, print.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from pydantic import BaseModel

from chainret.cli.render import console, err_console, t
from chainret.core.errors import EXIT_NO, UsageError
from chainret.core.record import Record

SCHEMAS = ("catalog", "cases", "case", "source", "trace")
_STYLE = {"error": "bold red", "warning": "yellow", "info": "dim"}


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
    from chainret.evaluate.validate import validate_paths

    reports = validate_paths(list(paths or _default_paths()))
    failed = [r for r in reports if not r.valid or (strict and any(i.severity == "warning" for i in r.issues))]
    if as_json:
        print(json.dumps({"valid": not failed, "reports": [r.to_dict() for r in reports]}, indent=2, sort_keys=True))
    else:
        _render(reports, show_info)
    if failed:
        raise typer.Exit(EXIT_NO)


def _render(reports: list, show_info: bool) -> None:  # list[WorldReport]
    from chainret.cli.render import fit_table

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
            console.print(t((i.severity, _STYLE[i.severity]), " ", i.code, " ", str(i).removesuffix(f" [{i.code}]")))
    if hidden:
        console.print(t((f"{hidden} info rows hidden (view-time ineligibility, deliberate controls); --info shows them", "dim")))


def schema_cmd(
    name: Annotated[str, typer.Argument(help=f"Which schema: {', '.join(SCHEMAS)}.")] = "catalog",
    out: Annotated[Path | None, typer.Option("--out", help="Write to this file (atomically) instead of stdout.")] = None,
) -> None:
    """Print the JSON Schema of a catalog file, a cases file, one case, a source folder's header, or a trace."""
    from chainret.authoring.header import Header
    from chainret.catalog.cases import Case, CaseFile
    from chainret.catalog.models import Catalog
    from chainret.core.files import atomic_write_text
    from chainret.trace.model import Trace

    models: dict[str, type[BaseModel] | type[Record]] = {"catalog": Catalog, "cases": CaseFile, "case": Case, "source": Header, "trace": Trace}
    if name not in models:
        raise UsageError(f"unknown schema {name!r}; choose one of: {', '.join(SCHEMAS)}")
    text = json.dumps(models[name].model_json_schema(), indent=2, sort_keys=True) + "\n"
    if out is None:
        print(text, end="")
    else:
        atomic_write_text(out, text)
        err_console.print(t("wrote ", str(out)))


# -- chainret catalog ... (authoring) ---------------------------------------------------------------
# "{commands}": chainret.cli._full_short_help lists the group's commands there, those other modules add included.
catalog_app = typer.Typer(help="Build catalogs from your own records: {commands}.", no_args_is_help=True)


def _say(text: str) -> None:
    console.print(t(text))


@catalog_app.command("init")
def init_cmd(
    folder: Annotated[Path, typer.Argument(help="New folder: the source goes to FOLDER/source, the catalog to FOLDER.")],
    force: Annotated[bool, typer.Option("--force", help="Write into a folder that is not empty.")] = False,
) -> None:
    """Write a starter world (header, three documents, two cases) and build it: it validates and answers at once."""
    from chainret.authoring.starter import init

    src, catalog = init(folder, force=force)
    _say(f"wrote the source folder {src} and built {catalog}")
    _say("next:")
    _say(f'  chainret ask "Who is on call for Atlas?" --catalog {folder}')
    _say(f"  edit {src}/chainret.yaml and the files under {src}, then:")
    _say(f"  chainret catalog build {src} --out {folder}")
    _say(f"  chainret validate {folder}")


@catalog_app.command("build")
def build_cmd(
    src: Annotated[Path, typer.Argument(help="Source folder: plain text files plus a chainret.yaml header.")],
    out: Annotated[Path, typer.Option("--out", help="Catalog file (.yaml/.json) or folder (catalog.yaml + cases.yaml); an existing catalog there gains new versions and a new view.")],
    view: Annotated[str | None, typer.Option("--view", help="Name of the new view, if one is added (default v<N>).")] = None,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 if the output would change.")] = False,
    refresh: Annotated[bool, typer.Option("--refresh", help="Also write into chainret.yaml each quote the build found edited (the sentence that now supports it).")] = False,
) -> None:
    """Build a catalog from a source folder: digests, units, spans and relation IDs computed, versions and views kept."""
    from chainret.authoring.build import HEADER_NAME, build
    from chainret.authoring.output import output_texts, refreshed_header, sync

    result = build(src, out, view=view)
    texts = output_texts(result, src)
    if refresh and result.stale_quotes:
        texts[src / HEADER_NAME] = refreshed_header(src / HEADER_NAME, result.stale_quotes)
    if check:
        stale = sync(texts, check=True)
        for p in stale:
            _say(f"stale: {p}")
        if stale:
            raise typer.Exit(EXIT_NO)
        _say(f"{result.catalog_file}: up to date")
        return
    written = [p for p in sync(texts) if p != src / HEADER_NAME]
    if refresh and result.stale_quotes:
        _say(f"refreshed {len(result.stale_quotes)} quote(s) in {src / HEADER_NAME}")
    cat = result.catalog
    _say(f"{'wrote' if written else 'unchanged'} {result.catalog_file}: world {cat.world}, {len(cat.documents)} document versions, "
         f"{len(cat.relations)} relations, {len(cat.views)} views")
    if result.new_view:
        _say(f"new view {result.new_view} (current): {len(result.new_versions)} new document versions, "
             f"{len(result.kept_versions)} unchanged")
        for ref in result.new_versions:
            _say(f"  + {ref}")
        for ref in result.dropped:
            _say(f"  - {ref} (no file any more)")
    else:
        _say(f"no document changed; current view {result.view}")
    if result.cases is not None:
        _say(f"cases: {result.cases_file} ({len(result.cases.cases)} cases)")
    for note in result.notes:
        _say(f"note: {note}")
    if result.skipped:
        _say(f"skipped {len(result.skipped)} files that are not text documents (.md .markdown .txt .text .rst): "
             f"{', '.join(result.skipped[:5])}{' …' if len(result.skipped) > 5 else ''}")


@catalog_app.command("import")
def import_cmd(
    table: Annotated[Path, typer.Argument(help="CSV/TSV (header row) or JSON Lines: subject, predicate, object[, text]; with --format backstage/codeowners, a records folder or file.")],
    src: Annotated[Path | None, typer.Option("--src", help="The source folder whose header declares the entities and predicates (--format backstage/codeowners: optional, it adds to the records).")] = None,
    document: Annotated[str | None, typer.Option("--document", help="Where the rendered document goes in the folder, e.g. registry/ownership.md.")] = None,
    title: Annotated[str | None, typer.Option("--title", help="Document title (default: from the table's file name).")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Also build the folder into this catalog (a new version of the document, a new view).")] = None,
    view: Annotated[str | None, typer.Option("--view", help="With --out: name of the new view, if one is added (default v<N>).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite a document in the folder that was not written by catalog import.")] = False,
    formats: Annotated[list[str] | None, typer.Option("--format", help="table (default), backstage or codeowners (repeat for both); see chainret.cli.import_cmds.")] = None,
    world: Annotated[str | None, typer.Option("--world", help="--format backstage/codeowners: world name (default: the --src header's, else backstage / codeowners).")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="--format backstage/codeowners: any warning (skipped document, dangling reference) is an error.")] = False,
) -> None:
    """Render a table as a registry document, one clause per row (sorted, so the same rows give the same document),
    or import records where they live (--format backstage / codeowners: no entity typed by hand)."""
    if formats and formats != ["table"]:
        from chainret.cli.import_cmds import import_records

        import_records(table, formats, out, src=src, world=world, view=view, strict=strict)
        return
    if src is None or document is None:
        raise UsageError("a table import needs --src FOLDER and --document PATH (or --format backstage / codeowners)")
    from chainret.authoring.build import build
    from chainret.authoring.header import HEADER_NAME, read_header
    from chainret.authoring.output import write_build
    from chainret.authoring.tables import IMPORT_MARK, read_table, render_table
    from chainret.core.files import write_files

    if not document.endswith((".md", ".markdown", ".txt")) or document.startswith(("/", ".")) or ".." in Path(document).parts:
        raise UsageError(f"--document must be a relative .md path inside the folder, e.g. registry/ownership.md; found {document!r}")
    target = src / document
    if target.is_file() and not force and IMPORT_MARK not in target.read_text(encoding="utf-8", errors="replace"):
        raise UsageError(f"{target} exists and was not written by catalog import; choose another --document (or --force)")
    header = read_header(src / HEADER_NAME)
    rows = read_table(table, header)
    text = render_table(rows, title=title or table.stem.replace("_", " ").replace("-", " ").capitalize())
    result = build(src, out, view=view, overrides={document: text}) if out is not None else None
    write_files({src / document: text})
    if result is not None:
        write_build(result, src)
    _say(f"wrote {src / document}: {len(rows)} rows, one clause per row")
    if result is not None:
        _say(f"built {result.catalog_file}: " + (f"new view {result.new_view} (current)" if result.new_view else f"no change; view {result.view}"))
    else:
        _say(f"next: chainret catalog build {src} --out CATALOG")


@catalog_app.command("diff")
def diff_cmd(
    view_a: Annotated[str, typer.Argument(help="The earlier view.")],
    view_b: Annotated[str, typer.Argument(help="The later view.")],
    catalog: Annotated[Path | None, typer.Option("--catalog", help="Catalog file or world folder (default: the default catalog).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the difference as JSON.")] = False,
    recited: Annotated[bool, typer.Option("--recited", help="Also list relations that hold in both views but are cited by a new document version.")] = False,
) -> None:
    """List relations added, removed and changed between two views, with their documents."""
    from chainret.authoring.diff import diff_views
    from chainret.catalog.load import load_world
    from chainret.store import catalog_path

    try:
        d = diff_views(load_world(catalog_path(catalog)).catalog, view_a, view_b)  # an authoring command: a catalog file
    except UsageError as exc:
        if catalog is not None:
            raise
        from chainret.store import catalog_location

        where = catalog_location(None)  # say which catalog was opened: the default, not the user's
        raise UsageError(f"{exc} (no --catalog given, so this is the default catalog {where}; "
                         "name yours: chainret catalog diff A B --catalog DIR)") from None
    if as_json:
        print(json.dumps(d.to_dict(), indent=2, sort_keys=True, ensure_ascii=True))
        return
    _say(f"{d.view_a} -> {d.view_b}")
    for rel in d.added:
        _say(f"+ {rel.subject} {rel.predicate} {rel.object}  [{rel.id}, {rel.support.doc_ref}]")
    for rel in d.removed:
        _say(f"- {rel.subject} {rel.predicate} {rel.object}  [{rel.id}, {rel.support.doc_ref}]")
    for old, new in d.changed:
        _say(f"~ {old.subject} {old.predicate}: {old.object} -> {new.object}  [{old.support.doc_ref} -> {new.support.doc_ref}]")
    for old, new in d.recited if recited else []:
        _say(f"= {old.subject} {old.predicate} {old.object}: now cited by {new.support.doc_ref} ({new.id}, was {old.id})")
    for ref in d.documents_added:
        _say(f"document added: {ref}")
    for ref in d.documents_removed:
        _say(f"document removed: {ref}")
    for a, b in d.documents_changed:
        _say(f"document changed: {a} -> {b}")
    if d.empty:
        _say("no difference")
    else:
        _say(f"{len(d.added)} added, {len(d.removed)} removed, {len(d.changed)} changed, {len(d.recited)} re-cited relations"
             + ("" if recited or not d.recited else " (--recited lists them)"))


@catalog_app.command("lock")
def lock_cmd(
    catalog: Annotated[Path, typer.Argument(help="A hand-edited catalog file.")],
    force: Annotated[bool, typer.Option("--force", help="Also re-lock documents whose text changed under existing relations.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List the changes; write nothing.")] = False,
) -> None:
    """Recompute digests and spans of quotes found verbatim; list every change. Exit 1 if anything is left unlocked."""
    from chainret.authoring.lock import lock
    from chainret.authoring.output import catalog_data, render
    from chainret.catalog.load import load_catalog
    from chainret.core.files import write_files

    file = catalog if catalog.suffix else catalog / "catalog.yaml"
    report = lock(load_catalog(file), force=force)
    if report.changes and not dry_run:
        banner = "# Locked by `chainret catalog lock`: digests and spans recomputed.\n"
        write_files({file: render(catalog_data(report.catalog), file.suffix, banner)})
    for line in report.changes:
        _say(f"{'would change' if dry_run else 'changed'}: {line}")
    for line in report.refused:
        _say(f"refused: {line}")
    for line in report.unresolved:
        _say(f"not locked: {line}")
    if not (report.changes or report.refused or report.unresolved):
        _say(f"{file}: already locked")
    if not report.ok:
        raise typer.Exit(EXIT_NO)


@catalog_app.command("coverage")
def coverage_cmd(
    catalog: Annotated[Path | None, typer.Option("--catalog", help="Catalog file or world folder (default: the default catalog).")] = None,
    view: Annotated[str | None, typer.Option("--view", help="The view (a name, a date or a commit; default: the current view).")] = None,
    principal: Annotated[str, typer.Option("--as", help="Report what this principal may read (default: public).")] = "public",
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """List what has no owner in a view, with the unit that shows it: entities without spec.owner, CODEOWNERS
    rules without owners, owners no descriptor declares, groups without members, files without a code owner. Exit 0
    when none, 1 when some."""
    from chainret.pipeline.ownership import coverage
    from chainret.store import catalog_path

    report = coverage(catalog_path(catalog), view, principal)
    if as_json:
        print(json.dumps({**report.model_dump(), "gaps": report.gaps}, indent=2, sort_keys=True, ensure_ascii=True))
    else:
        _say(f"coverage of view {report.view} as {report.principal} reads it")
        sections = [("no owner", report.no_owner), ("CODEOWNERS rules without owners", report.rules_without_owners),
                    ("owners no readable descriptor declares", report.undeclared_owners),
                    ("groups without members", report.groups_without_members),
                    ("files without a code owner", report.files_without_owners)]
        for title, rows in sections:
            _say(f"{title}: {len(rows) or 'none'}")
            for g in rows:
                by = f" (named by {', '.join(g.referenced_by)})" if g.referenced_by else ""
                _say(f"  {g.id}" + (f" ({g.name})" if g.name != g.id else "") + by)
                for c in g.cites:
                    _say(f"    {c.get('unit', c['document'])}" + (f": {c['text']}" if "text" in c else ""))
    if report.gaps:
        raise typer.Exit(EXIT_NO)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.command("validate")(validate_cmd)
    app.command("schema")(schema_cmd)
    app.add_typer(catalog_app, name="catalog")
