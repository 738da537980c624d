"""``chainret validate``: files and folders -> one ``WorldReport`` per world, file or source folder.

``validate_paths(paths) -> list[WorldReport]`` is what ``chainret validate`` runs: each world
directory (its ``cases.*``, else ``catalog.*``, else a source folder's ``chainret.yaml``, built in
memory by ``validate_source``) or loose file is loaded (load errors become issues) and checked by
``chainret.catalog.checks`` (``check_catalog``, ``check_cases``). A report is valid when it has no error.

This module holds no rule of its own; where each one lives is listed in ``chainret.catalog.checks``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from chainret.authoring.build import build
from chainret.authoring.header import HEADER_NAME, Header, SourceInvalid, read_header
from chainret.catalog.defects import relation_defects
from chainret.catalog.issues import CatalogFileInvalid, Issue
from chainret.catalog.models import Catalog
from chainret.catalog.load import SUFFIXES, load_cases, load_catalog
from chainret.catalog.parse import read_document
from chainret.catalog.checks import check_cases, check_catalog
from chainret.core.errors import UsageError


@dataclass
class WorldReport:
    """What ``validate`` found for one target (a world directory or one file)."""

    target: str
    world: str = ""
    catalog_file: str = ""
    cases_file: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not any(i.severity == "error" for i in self.issues)

    def to_dict(self) -> dict[str, object]:
        return {"target": self.target, "world": self.world, "catalog_file": self.catalog_file,
                "cases_file": self.cases_file, "valid": self.valid, "counts": self.counts,
                "issues": [i.to_dict() for i in self.issues]}


def discover(path: Path) -> list[Path]:
    """The files to validate under ``path``: a world directory's cases (or catalog) file, a source
    folder's header, else each file.

    Each directory is walked once (by device and inode), so a symlink loop cannot make the walk
    repeat or recurse; anything that is not a directory (a FIFO or device too) is a file to report on.
    """
    found: list[Path] = []
    seen: set[tuple[int, int]] = set()
    stack = [path]
    while stack:
        current = stack.pop()
        if not current.is_dir():
            found.append(current)
            continue
        st = current.stat()
        if (st.st_dev, st.st_ino) in seen:
            continue
        seen.add((st.st_dev, st.st_ino))
        world = next((current / f"{stem}{suffix}" for stem in ("cases", "catalog") for suffix in SUFFIXES
                      if (current / f"{stem}{suffix}").is_file()), None)
        if world is None and (current / SOURCE_HEADER).is_file():
            world = current / SOURCE_HEADER  # a source folder: built in memory and checked (validate_source)
        if world is not None:
            found.append(world)
            continue
        try:
            children = sorted(current.iterdir())
        except OSError as exc:
            raise UsageError(f"{current}: cannot list this directory: {exc.strerror}") from None
        below: list[Path] = []
        for child in children:
            if child.name.startswith((".", "_")):
                continue
            if child.is_dir():
                below.append(child)
            elif child.suffix in SUFFIXES:
                below.append(child)
        stack.extend(reversed(below))
    return found


SOURCE_HEADER = HEADER_NAME


def validate_source(header: Path) -> WorldReport:
    """A source folder: built in memory from scratch (as ``chainret catalog build`` would) and checked.

    A fresh build has one view, so cases pinned to a named view (the catalog's history) are not
    checked here but listed as info; validate the built catalog for those.
    """
    report = WorldReport(target=str(header.parent))
    try:
        parsed = read_header(header)
        pinned = [c for c in parsed.cases if isinstance(c, dict) and c.get("view") is not None]
        if pinned:
            parsed = Header.model_validate({**parsed.model_dump(), "cases": [c for c in parsed.cases if c not in pinned]})
        # check=False: the whole-catalog checks run once, below, where warnings are reported too
        result = build(header.parent, header.parent / "_validate" / "catalog.yaml", fresh=True, parsed=parsed, check=False)
    except SourceInvalid as exc:
        report.issues.extend(exc.issues)
        return report
    catalog, cases = result.catalog, list(result.cases.cases) if result.cases else []
    report.world, report.catalog_file, report.cases_file = catalog.world, str(header), str(header) if cases else ""
    report.issues.extend(result.findings)  # a quote found again after an edit, a document absent from this snapshot
    report.issues.extend(check_catalog(catalog, str(header)))
    for c in pinned:
        report.issues.append(Issue("not_checked", "info", str(header), f"case {c.get('id')}", "view",
                                   f"pinned to view {c['view']!r}: checked when the built catalog is validated"))
    report.counts = _counts(catalog, len(cases))
    return report


def validate_file(path: Path) -> WorldReport:
    if path.name == SOURCE_HEADER:
        return validate_source(path)
    if _is_request_set(path):
        return validate_request_set(path)
    report = WorldReport(target=str(path))
    try:
        kind, _ = read_document(path)
        if kind == "cases":
            case_file, catalog, catalog_path = load_cases(path)
            cases = list(case_file.cases)
            report.cases_file = str(path)
        else:
            catalog, catalog_path, cases = load_catalog(path), path, []
    except CatalogFileInvalid as exc:
        report.issues.extend(exc.issues)
        return report
    report.world, report.catalog_file = catalog.world, str(catalog_path)
    report.issues.extend(check_catalog(catalog, str(catalog_path)))
    report.issues.extend(check_cases(cases, catalog, str(path)))
    report.counts = _counts(catalog, len(cases))
    return report


def _counts(catalog: Catalog, cases: int) -> dict[str, int]:
    invalid = sum(1 for r in catalog.relations if relation_defects(catalog, r))
    return {"entities": len(catalog.entities), "documents": len(catalog.documents), "relations": len(catalog.relations),
            "invalid_relations": invalid, "views": len(catalog.views), "patterns": len(catalog.patterns), "cases": cases}


def _is_request_set(path: Path) -> bool:
    """A request set (``format: chainret-requests/1``, ``chainret.evaluate.requests``) rather than a catalog."""
    import re

    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:4096] if path.is_file() else ""
    except OSError:
        return False
    return re.search(r"^format:\s*['\"]?chainret-requests/1", head, re.MULTILINE) is not None


def validate_request_set(path: Path) -> WorldReport:
    """A request set: its schema, and that every expected pattern and start ID exists in its world."""
    from chainret.core.errors import ChainretError
    from chainret.evaluate.requests import load_request_set, open_world

    report = WorldReport(target=str(path))
    try:
        rs = load_request_set(path)
        root = next((p for p in [path.resolve(), *path.resolve().parents] if (p / "pyproject.toml").is_file()), path.parent)
        worlds = {name: open_world(ref, root) for name, ref in rs.worlds.items()}
    except ChainretError as exc:
        report.issues.append(Issue("invalid_value", "error", str(path), "request set", "", str(exc)))
        return report
    for i, r in enumerate(rs.requests):
        cat = worlds[r.world]
        where = f"requests[{i}] ({r.request[:40]!r})"
        if r.pattern is not None and r.pattern not in {p.name for p in cat.patterns}:
            report.issues.append(Issue("dangling_reference", "error", str(path), where, "pattern",
                                       f"world {r.world!r} has no pattern {r.pattern!r}"))
        if r.start is not None and cat.entity(r.start) is None:
            report.issues.append(Issue("dangling_reference", "error", str(path), where, "start",
                                       f"world {r.world!r} has no entity {r.start!r}"))
    report.world = rs.part
    report.counts = {"requests": len(rs.requests), "worlds": len(rs.worlds)}
    return report


def validate_paths(paths: list[str | os.PathLike[str]]) -> list[WorldReport]:
    """Validate every world or file under ``paths`` (missing paths are a ``UsageError``)."""
    reports: list[WorldReport] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            kind = "a symlink loop or a dangling symlink" if p.is_symlink() else "no such file or directory"
            raise UsageError(f"{p}: {kind}")
        files = discover(p)
        if not files:
            raise UsageError(f"{p}: no catalog or cases files (*.yaml, *.yml, *.json) found")
        reports.extend(validate_file(f) for f in files)
    return reports
