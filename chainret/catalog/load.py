"""Files -> models. Every failure is a ``CatalogFileInvalid`` whose issues name the file, the
record (``relations[3] (id rel-7)``), the field, and what was expected vs found. No tracebacks.

Public API:

- ``load_catalog(path) -> Catalog``: a catalog file (YAML ``.yaml``/``.yml`` or ``.json``) or a
  directory holding ``catalog.yaml``/``catalog.json``.
- ``load_cases(path) -> (CaseFile, Catalog)``: a cases file and the catalog it names (relative path).
- ``load_world(path) -> World``: a world directory (``catalog.*`` + optional ``cases.*``) or a file.
- ``apply_overlay(catalog, overlay, label=...) -> Catalog``: a case's overlay applied to its world.
- ``default_catalog_path()``: ``$CHAINRET_CATALOG`` or ``<repo>/catalogs/default.yaml``.
- ``read_document(path)``: parse one YAML/JSON file -> (kind, data) with syntax errors as issues.

Load-time checks (errors): syntax, unknown field, wrong type, missing field, bad value, duplicate
ID, dangling reference, span out of range. Support checks (quote, digest, clause) and view-time
eligibility are not load errors: see ``chainret.catalog.validate``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from chainret.bulk import paused_gc
from chainret.catalog.cases import CASES_FORMAT, Case, CaseFile, Overlay
from chainret.catalog.issues import CatalogFileInvalid, Issue
from chainret.catalog.models import CATALOG_FORMAT, Catalog, SourceDocument, View, split_doc_ref

SUFFIXES = (".yaml", ".yml", ".json")
# libyaml's parser with PyYAML's safe constructor (the same values as ``yaml.safe_load``, several
# times faster); the pure-Python loader where PyYAML was built without libyaml.
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_LISTS_KEYS = ("id", "name", "ref")


@dataclass
class World:
    """A catalog and (optionally) the cases that exercise it."""

    catalog: Catalog
    catalog_path: Path
    cases: list[Case] = field(default_factory=list)
    cases_path: Path | None = None


def default_catalog_path() -> Path:
    env = os.environ.get("CHAINRET_CATALOG")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "catalogs" / "default.yaml"


# -- parsing --------------------------------------------------------------------------------------
def read_document(path: Path) -> tuple[str, dict[str, Any]]:
    """Parse a YAML/JSON file -> (kind, data); kind is ``catalog`` or ``cases``."""
    name = str(path)
    if not path.is_file():
        raise CatalogFileInvalid([Issue("file_not_found", "error", name, "", "", "no such file")])
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogFileInvalid([Issue("unreadable_file", "error", name, "", "", str(exc))]) from None
    try:
        data = json.loads(raw) if path.suffix == ".json" else yaml.load(raw, Loader=_YAML_LOADER)
    except json.JSONDecodeError as exc:
        raise CatalogFileInvalid(
            [Issue("syntax_error", "error", name, f"line {exc.lineno}, column {exc.colno}", "", f"invalid JSON: {exc.msg}")]
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise CatalogFileInvalid([Issue("syntax_error", "error", name, where, "", f"invalid YAML: {problem}")]) from None
    if not isinstance(data, dict):
        raise CatalogFileInvalid(
            [Issue("wrong_type", "error", name, "document root", "", f"expected a mapping, found {type(data).__name__}")]
        )
    fmt = data.get("format")
    if fmt == CASES_FORMAT or (fmt is None and "cases" in data):
        return "cases", data
    if fmt in (CATALOG_FORMAT, None):
        return "catalog", data
    raise CatalogFileInvalid(
        [Issue("unknown_format", "error", name, "document root", "format",
               f"expected {CATALOG_FORMAT!r} or {CASES_FORMAT!r}, found {fmt!r}")]
    )


_TYPE_CODES = {"extra_forbidden": "unknown_field", "missing": "missing_field"}


def _record_location(data: Any, loc: tuple[Any, ...]) -> tuple[str, tuple[Any, ...]]:
    """(``relations[3] (id rel-7)``, rest of loc) for a pydantic error location."""
    if len(loc) >= 2 and isinstance(loc[0], str) and isinstance(loc[1], int):
        label = f"{loc[0]}[{loc[1]}]"
        try:
            record = data[loc[0]][loc[1]]
        except (KeyError, IndexError, TypeError):
            record = None
        if isinstance(record, dict):
            for key in _LISTS_KEYS:
                if isinstance(record.get(key), str):
                    label += f" ({key} {record[key]})"
                    break
            else:
                if "source" in record and "document" in record:
                    label += f" (ref {record.get('source')}/{record.get('document')}@{record.get('version')})"
        return label, loc[2:]
    return "document root" if len(loc) <= 1 else str(loc[0]), loc if len(loc) <= 1 else loc[1:]


def _model_at(model: type[BaseModel], path: tuple[Any, ...]) -> type[BaseModel] | None:
    """Best effort: the model class that owns the last element of ``path``."""
    current: Any = model
    for part in path[:-1]:
        if isinstance(part, int):
            continue
        if isinstance(current, type) and issubclass(current, BaseModel) and part in current.model_fields:
            current = _inner_model(current.model_fields[part].annotation)
        elif isinstance(current, list):  # a union: pick the member named by the tag
            current = next((m for m in current if _tag(m) == part), None)
        else:
            return None
        if current is None:
            return None
    if isinstance(current, type) and issubclass(current, BaseModel):
        return current
    return None


def _tag(model: type[BaseModel]) -> str | None:
    fld = model.model_fields.get("outcome")
    if fld is None:
        return None
    args = typing.get_args(fld.annotation)
    return args[0] if args else None


def _inner_model(annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _inner_model(typing.get_args(annotation)[0])
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if origin in (list, tuple):
        args = typing.get_args(annotation)
        return _inner_model(args[0]) if args else None
    if origin in (typing.Union, types.UnionType):
        members = [m for m in (_inner_model(a) for a in typing.get_args(annotation)) if m is not None]
        if len(members) == 1:
            return members[0]
        return [m for m in members if isinstance(m, type)] or None
    return None


def validation_issues(exc: ValidationError, data: Any, file: str, model: type[BaseModel]) -> list[Issue]:
    """Turn a pydantic ValidationError into located, readable issues."""
    issues: list[Issue] = []
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        location, rest = _record_location(data, loc)
        fld = ".".join(str(p) for p in rest)
        etype = err["type"]
        code = _TYPE_CODES.get(etype) or ("wrong_type" if etype.endswith(("_type", "_parsing")) else "invalid_value")
        found = repr(err.get("input"))
        if len(found) > 80:
            found = found[:77] + "..."
        if etype == "extra_forbidden":
            owner = _model_at(model, loc)
            allowed = f"; allowed fields: {', '.join(owner.model_fields)}" if owner else ""
            message = f"unknown field {str(loc[-1])!r}{allowed}"
        elif etype == "missing":
            message = "required field is missing"
        else:
            msg = err["msg"].removeprefix("Value error, ")
            if msg.startswith("Input should be "):
                msg = "expected " + msg.removeprefix("Input should be ")
            message = f"{msg}; found {found}"
        issues.append(Issue(code, "error", file, location, fld, message))
    return issues


# -- referential checks --------------------------------------------------------------------------
def reference_issues(cat: Catalog, file: str) -> list[Issue]:
    """Duplicates, dangling references and out-of-range spans: the load-time cross-record checks."""
    issues: list[Issue] = []

    def err(code: str, where: str, fld: str, message: str) -> None:
        issues.append(Issue(code, "error", file, where, fld, message))

    def dupes(kind: str, keys: list[str], label: str) -> None:
        first: dict[str, int] = {}
        for i, key in enumerate(keys):
            if key in first:
                err("duplicate_id", f"{kind}[{i}] ({label} {key})", label,
                    f"duplicate {label} {key!r}: already used by {kind}[{first[key]}]")
            else:
                first[key] = i

    dupes("entities", [e.id for e in cat.entities], "id")
    dupes("predicates", [p.name for p in cat.predicates], "name")
    dupes("documents", [d.ref for d in cat.documents], "ref")
    dupes("relations", [r.id for r in cat.relations], "id")
    dupes("views", [v.name for v in cat.views], "name")
    dupes("patterns", [p.name for p in cat.patterns], "name")

    ents, preds, docs = cat.entities_by_id, cat.predicates_by_name, cat.documents_by_ref
    types_known = {e.type for e in cat.entities}
    for i, e in enumerate(cat.entities):
        if e.world != cat.world:
            err("wrong_world", f"entities[{i}] (id {e.id})", "id",
                f"expected an ID in world {cat.world!r}, found world {e.world!r}")
    for i, p in enumerate(cat.predicates):
        for fld in ("domain", "range"):
            value = getattr(p, fld)
            if value not in types_known:
                err("dangling_reference", f"predicates[{i}] (name {p.name})", fld,
                    f"expected an entity type declared by some entity ({', '.join(sorted(types_known))}), found {value!r}")
    for i, r in enumerate(cat.relations):
        where = f"relations[{i}] (id {r.id})"
        for fld in ("subject", "object"):
            value = getattr(r, fld)
            if value not in ents:
                err("dangling_reference", where, fld, f"expected a declared entity ID, found {value!r}")
        if r.predicate not in preds:
            err("dangling_reference", where, "predicate",
                f"expected a declared predicate ({', '.join(sorted(preds))}), found {r.predicate!r}")
        doc = docs.get(r.support.doc_ref)
        if doc is None:
            err("dangling_reference", where, "support",
                f"expected a declared document version, found {r.support.doc_ref!r}")
        elif r.support.span[1] > len(doc.text):
            err("span_out_of_range", where, "support.span",
                f"expected a span within the document's {len(doc.text)} characters, found {list(r.support.span)}")
    for i, v in enumerate(cat.views):
        seen: dict[str, str] = {}
        for j, ref in enumerate(v.documents):
            if ref not in docs:
                err("dangling_reference", f"views[{i}] (name {v.name})", f"documents.{j}",
                    f"expected a declared document version, found {ref!r}")
            src, doc_name, _ = split_doc_ref(ref)
            doc_id = f"{src}/{doc_name}"
            if doc_id in seen:
                err("duplicate_id", f"views[{i}] (name {v.name})", f"documents.{j}",
                    f"a view holds one version per document: {seen[doc_id]!r} and {ref!r}")
            seen[doc_id] = ref
    if cat.views and sum(v.current for v in cat.views) > 1:
        err("invalid_value", "views", "current", "expected at most one view marked current, found several")
    for i, p in enumerate(cat.patterns):
        where = f"patterns[{i}] (name {p.name})"
        if p.start_type not in types_known:
            err("dangling_reference", where, "start_type", f"expected a declared entity type, found {p.start_type!r}")
        for j, hop in enumerate(p.hops):
            if hop not in preds:
                err("dangling_reference", where, f"hops.{j}", f"expected a declared predicate, found {hop!r}")
    return issues


_RECORD_RE = re.compile(r"^(\w+)\[(\d+)\]")


def _yaml_line(node: yaml.Node, path: list[str | int]) -> int:
    """1-based line of the deepest key or item reachable along ``path`` in a composed YAML tree."""
    line = node.start_mark.line + 1
    for part in path:
        if isinstance(node, yaml.MappingNode):
            pair = next(((k, v) for k, v in node.value if getattr(k, "value", None) == str(part)), None)
            if pair is None:
                continue  # e.g. a union tag in the pydantic location: not a key in the file
            line, node = pair[0].start_mark.line + 1, pair[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line


def with_lines(issues: list[Issue], path: Path) -> list[Issue]:
    """Add the YAML line of each issue's record and field to its location (YAML files only)."""
    if path.suffix == ".json":
        return issues
    try:
        root = yaml.compose(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return issues
    if root is None:
        return issues
    out = []
    for issue in issues:
        m = _RECORD_RE.match(issue.location)
        if issue.file != str(path) or not m:
            out.append(issue)
            continue
        parts: list[str | int] = [m.group(1), int(m.group(2))]
        parts += [int(p) if p.isdigit() else p for p in issue.field.split(".") if p]
        line = _yaml_line(root, parts)
        out.append(dataclasses.replace(issue, line=line))
    return out


def _build(model: type[BaseModel], data: dict[str, Any], file: str) -> Any:
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
    return _catalog_document(file, *read_document(file))


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
    try:
        cases = _build(CaseFile, data, str(file))
    except CatalogFileInvalid as exc:
        raise CatalogFileInvalid(with_lines(exc.issues, file)) from None
    catalog_path = (file.parent / cases.catalog)
    catalog = load_catalog(catalog_path)
    return cases, catalog, catalog_path


def load_world(path: str | os.PathLike[str]) -> World:
    """A world directory (catalog + optional cases) or a single catalog/cases file (each file parsed once)."""
    p = Path(path)
    if p.is_dir():
        cases_file = next((p / f"cases{s}" for s in SUFFIXES if (p / f"cases{s}").is_file()), None)
        if cases_file is None:
            cat_file = _resolve_file(p, "catalog")
            return World(load_catalog(cat_file), cat_file)
        p = cases_file
    kind, data = read_document(p)
    if kind == "catalog":
        return World(_catalog_document(p, kind, data), p)
    case_file, catalog, catalog_path = _cases_document(p, kind, data)
    return World(catalog, catalog_path, list(case_file.cases), p)


# -- overlays --------------------------------------------------------------------------------------
def apply_overlay(catalog: Catalog, overlay: Overlay | None, label: str = "overlay") -> Catalog:
    """The world with a case's overlay applied (add records, then remove/restrict sources).

    Raises ``CatalogFileInvalid`` (located at ``label``) when the overlay names a document or view
    the world lacks, or the result has dangling references.
    """
    if overlay is None:
        return catalog
    issues: list[Issue] = []
    docs = [*catalog.documents, *overlay.add_documents]
    refs = {d.ref for d in docs}
    changes: dict[str, dict[str, Any]] = {}
    for i, ref in enumerate(overlay.remove):
        changes.setdefault(ref, {})["visibility"] = "removed"
        if ref not in refs:
            issues.append(Issue("dangling_reference", "error", label, "overlay", f"remove.{i}", f"no document version {ref!r}"))
    for i, r in enumerate(overlay.restrict):
        changes.setdefault(r.document, {}).update(visibility="restricted", principals=list(r.principals))
        if r.document not in refs:
            issues.append(Issue("dangling_reference", "error", label, "overlay", f"restrict.{i}.document", f"no document version {r.document!r}"))
    docs = [SourceDocument(**{**d.model_dump(), **changes[d.ref]}) if d.ref in changes else d for d in docs]
    views = list(catalog.views)
    names = [v.name for v in views]
    for i, add in enumerate(overlay.add_to_views):
        if add.view not in names:
            issues.append(Issue("dangling_reference", "error", label, "overlay", f"add_to_views.{i}.view", f"no view {add.view!r}"))
            continue
        k = names.index(add.view)
        views[k] = View(**{**views[k].model_dump(), "documents": [*views[k].documents, *add.documents]})
    if issues:
        raise CatalogFileInvalid(issues)
    fields = {name: getattr(catalog, name) for name in Catalog.model_fields}
    fields.update(
        entities=[*catalog.entities, *overlay.add_entities],
        documents=docs,
        relations=[*catalog.relations, *overlay.add_relations],
        views=views,
    )
    result = Catalog(**fields)
    problems = reference_issues(result, label)
    if problems:
        raise CatalogFileInvalid(problems)
    return result
