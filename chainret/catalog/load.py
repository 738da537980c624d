"""Files -> models. Every failure is a ``CatalogFileInvalid`` whose issues name the file, the
record (``relations[3] (id rel-7)``), the field, and what was expected vs found. No tracebacks.

Public API:

- ``load_catalog(path) -> Catalog``: a catalog file (YAML ``.yaml``/``.yml`` or ``.json``) or a
  directory holding ``catalog.yaml``/``catalog.json``.
- ``load_cases(path) -> (CaseFile, Catalog)``: a cases file and the catalog it names (relative path).
- ``load_world(path) -> World``: a world directory (``catalog.*`` + optional ``cases.*``) or a file.
- ``default_catalog_path()``: ``$CHAINRET_CATALOG`` or ``<repo>/catalogs/default.yaml``.

The pieces live beside it: ``chainret.catalog.parse`` (``read_document``: bounded YAML/JSON
parsing, pydantic errors located by record and line), ``chainret.catalog.references``
(``reference_issues``: the load-time cross-record checks) and ``chainret.catalog.overlay``
(``apply_overlay``: a case's overlay applied to its world); their names are re-exported here.

Load-time checks (errors): syntax, unknown field, wrong type, missing field, bad value, duplicate
ID, dangling reference, span out of range. Support checks (quote, digest, clause) and view-time
eligibility are not load errors: see ``chainret.catalog.checks``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chainret.core.bulk import paused_gc
from chainret.catalog.issues import CatalogFileInvalid, Issue
from chainret.catalog.models import Catalog
from chainret.catalog.overlay import apply_overlay
from chainret.catalog.parse import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_ISSUES,
    parse_json,
    parse_yaml,
    read_bytes,
    read_catalog_document,
    read_document,
    read_text,
    validation_issues,
    with_lines,
)
from chainret.catalog.references import reference_issues

if TYPE_CHECKING:  # the case models load with the first cases file, not with every catalog
    from pydantic import BaseModel

    from chainret.catalog.cases import Case, CaseFile
    from chainret.core.record import Record

__all__ = [
    "MAX_DEPTH", "MAX_FILE_BYTES", "MAX_ISSUES", "SUFFIXES", "World", "apply_overlay", "catalog_from_data",
    "default_catalog_path", "load_cases", "load_catalog", "load_world", "parse_json", "parse_yaml", "read_bytes",
    "read_document", "read_text", "reference_issues", "validation_issues", "with_lines",
]

SUFFIXES = (".yaml", ".yml", ".json")


class World:
    """A catalog and (optionally) the cases that exercise it. (A plain class: a dataclass costs the cold
    ``chainret ask`` about 1 ms to build at import, this module being on its path.)"""

    __slots__ = ("catalog", "catalog_path", "cases", "cases_path")

    def __init__(self, catalog: Catalog, catalog_path: Path, cases: list[Case] | None = None, cases_path: Path | None = None) -> None:
        self.catalog = catalog
        self.catalog_path = catalog_path
        self.cases: list[Case] = [] if cases is None else cases
        self.cases_path = cases_path

    def __repr__(self) -> str:
        return f"World(catalog_path={self.catalog_path!r}, cases={len(self.cases)}, cases_path={self.cases_path!r})"


def default_catalog_path() -> Path:
    env = os.environ.get("CHAINRET_CATALOG")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "catalogs" / "default.yaml"


def _build(model: type[BaseModel | Record], data: dict[str, Any], file: str) -> Any:
    from pydantic import ValidationError  # (a catalog read back checked validates nothing: chainret.catalog.parse)

    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise CatalogFileInvalid(validation_issues(exc, data, file, model)) from None


def catalog_from_data(data: dict[str, Any], file: str = "<catalog>") -> Catalog:
    with paused_gc():  # a large catalog is hundreds of thousands of new records, none cyclic
        cat = _build(Catalog, data, file)
    problems = reference_issues(cat, file)
    if problems:
        raise CatalogFileInvalid(problems)
    return cat


def _resolve_file(path: Path, stem: str) -> Path:
    if path.is_dir():
        for suffix in SUFFIXES:
            candidate = path / f"{stem}{suffix}"
            if candidate.is_file():
                return candidate
        raise CatalogFileInvalid(
            [Issue("file_not_found", "error", str(path), "", "", f"expected {stem}.yaml, {stem}.yml or {stem}.json in this directory")]
        )
    return path


def load_catalog(path: str | os.PathLike[str]) -> Catalog:
    file = _resolve_file(Path(path), "catalog")
    kind, data, checked, remember = read_catalog_document(file)
    if checked is not None:  # these bytes loaded before, under this code (chainret.catalog.parse)
        return checked
    catalog = _catalog_document(file, kind, data)
    remember(catalog)  # a YAML catalog that loaded: its parse and the catalog are read back next time
    return catalog


def _catalog_document(file: Path, kind: str, data: dict[str, Any]) -> Catalog:
    """A parsed catalog file -> Catalog (issues located with YAML lines)."""
    if kind != "catalog":
        raise CatalogFileInvalid(
            [Issue("unknown_format", "error", str(file), "document root", "format", "expected a catalog, found a cases file")]
        )
    try:
        return catalog_from_data(data, str(file))
    except CatalogFileInvalid as exc:
        raise CatalogFileInvalid(with_lines(exc.issues, file)) from None


def load_cases(path: str | os.PathLike[str]) -> tuple[CaseFile, Catalog, Path]:
    """A cases file -> (CaseFile, its catalog, the catalog's path)."""
    file = _resolve_file(Path(path), "cases")
    return _cases_document(file, *read_document(file))


def _cases_document(file: Path, kind: str, data: dict[str, Any]) -> tuple[CaseFile, Catalog, Path]:
    if kind != "cases":
        raise CatalogFileInvalid(
            [Issue("unknown_format", "error", str(file), "document root", "format", "expected a cases file, found a catalog")]
        )
    from chainret.catalog.cases import CaseFile

    try:
        cases = _build(CaseFile, data, str(file))
    except CatalogFileInvalid as exc:
        raise CatalogFileInvalid(with_lines(exc.issues, file)) from None
    catalog_path = (file.parent / cases.catalog)
    catalog = load_catalog(catalog_path)
    return cases, catalog, catalog_path


def _not_a_source(p: Path) -> None:
    """A table or a source folder given where a catalog belongs: say which command makes one."""
    from chainret.core.errors import UsageError

    if p.is_file() and p.suffix.lower() in (".csv", ".tsv", ".jsonl", ".ndjson"):
        raise UsageError(f"{p} is a table, not a catalog: render it into a source folder and build it with "
                         f"`chainret catalog import {p} --src FOLDER --document registry/NAME.md --out CATALOG`")
    if p.is_dir() and (p / "chainret.yaml").is_file() and not any((p / f"catalog{s}").is_file() for s in SUFFIXES):
        raise UsageError(f"{p} is a source folder (it has chainret.yaml), not a built catalog: build it with "
                         f"`chainret catalog build {p} --out CATALOG` (`chainret validate {p}` checks the folder as it is)")


def load_world(path: str | os.PathLike[str]) -> World:
    """A world directory (catalog + optional cases) or a single catalog/cases file (each file parsed once)."""
    p = Path(path)
    _not_a_source(p)
    if p.is_dir():
        cases_file = next((p / f"cases{s}" for s in SUFFIXES if (p / f"cases{s}").is_file()), None)
        if cases_file is None:
            cat_file = _resolve_file(p, "catalog")
            return World(load_catalog(cat_file), cat_file)
        p = cases_file
    kind, data, checked, remember = read_catalog_document(p)
    if checked is not None:
        return World(checked, p)
    if kind == "catalog":
        world = World(_catalog_document(p, kind, data), p)
        remember(world.catalog)
        return world
    case_file, catalog, catalog_path = _cases_document(p, kind, data)
    return World(catalog, catalog_path, list(case_file.cases), p)

