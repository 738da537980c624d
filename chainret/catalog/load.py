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
eligibility are not load errors: see ``chainret.checks``.
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
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import BaseModel, ValidationError

from chainret.bulk import paused_gc
from chainret.catalog.issues import CatalogFileInvalid, Issue
from chainret.catalog.models import CATALOG_FORMAT, Catalog, SourceDocument, View, split_doc_ref, type_union
from chainret.textsafe import clip, short_repr, visible

if TYPE_CHECKING:  # the case models load with the first cases file, not with every catalog
    from chainret.catalog.cases import Case, CaseFile, Overlay

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
# Bounds that no real catalog comes near and every hostile file hits first (see ``read_document``).
MAX_FILE_BYTES = int(os.environ.get("CHAINRET_MAX_FILE_BYTES", str(512 * 1024 * 1024)))
MAX_DEPTH = 64  # a catalog is at most ~6 levels deep (catalog > relations > [i] > support > span > [0])
MAX_ALIAS_NODES = 100_000  # nodes that YAML aliases may add beyond those written in the file
MAX_ISSUES = 200  # issues listed per file; the rest are counted


def _issue(code: str, name: str, where: str, message: str, line: int | None = None) -> CatalogFileInvalid:
    return CatalogFileInvalid([Issue(code, "error", name, where, "", message, line)])


def read_bytes(path: Path) -> bytes:
    """A regular file's bytes, refusing special files (FIFO, device, socket, directory) and huge files.

    The file is opened non-blocking and checked with ``fstat`` on the open descriptor, so a FIFO
    never blocks the reader and a file swapped after a check is still caught.
    """
    import stat

    name = str(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise _issue("file_not_found", name, "", "no such file") from None
    except OSError as exc:  # ELOOP (symlink loop), EACCES, ENAMETOOLONG, ...
        raise _issue("unreadable_file", name, "", exc.strerror or type(exc).__name__) from None
    if not stat.S_ISREG(st.st_mode):
        raise _issue("not_a_regular_file", name, "", f"expected a regular file, found {_file_kind(st.st_mode)}")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise _issue("unreadable_file", name, "", exc.strerror or type(exc).__name__) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _issue("not_a_regular_file", name, "", f"expected a regular file, found {_file_kind(st.st_mode)}")
        if st.st_size > MAX_FILE_BYTES:
            raise _issue("file_too_large", name, "",
                         f"expected at most {MAX_FILE_BYTES} bytes (CHAINRET_MAX_FILE_BYTES), found {st.st_size}")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > MAX_FILE_BYTES:
                raise _issue("file_too_large", name, "", f"expected at most {MAX_FILE_BYTES} bytes (CHAINRET_MAX_FILE_BYTES)")
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:  # e.g. EISDIR, EIO
        raise _issue("unreadable_file", name, "", exc.strerror or type(exc).__name__) from None
    finally:
        os.close(fd)


def _file_kind(mode: int) -> str:
    import stat

    for test, kind in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "a special file"


def read_text(path: Path) -> str:
    """A regular file's UTF-8 text (a leading BOM is dropped); bad bytes are an issue with their offset."""
    raw = read_bytes(path)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise _issue("not_utf8", str(path), f"line {line}", f"expected UTF-8 text, found byte 0x{raw[exc.start]:02x} "
                     f"at byte offset {exc.start}", line) from None


def parse_yaml(raw: str, name: str) -> Any:
    """YAML -> Python values, bounded: nesting depth, alias expansion, no duplicate keys.

    The document is composed once (libyaml), checked by ``check_yaml_tree`` (iterative, so a deep or
    aliased tree cannot exhaust the stack or memory) and only then constructed.
    """
    loader = _YAML_LOADER(raw)
    try:
        try:
            node = loader.get_single_node()
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise _issue("syntax_error", name, where, f"invalid YAML: {visible(problem)}",
                         mark.line + 1 if mark is not None else None) from None
        if node is None:
            return None
        check_yaml_tree(node, name)
        try:
            return loader.construct_document(node)
        except (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError) as exc:
            mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
            where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
            problem = getattr(exc, "problem", None) or (str(exc).splitlines() or [type(exc).__name__])[0]
            raise _issue("syntax_error", name, where, f"invalid YAML value: {clip(visible(problem), 160)}",
                         mark.line + 1 if mark is not None else None) from None
    finally:
        loader.dispose()


def check_yaml_tree(root: yaml.Node, name: str) -> None:
    """Reject recursive aliases, alias expansion beyond ``MAX_ALIAS_NODES``, nesting deeper than
    ``MAX_DEPTH`` and duplicate mapping keys (with the line of the second key)."""
    size: dict[int, int] = {}  # id(node) -> nodes in its expansion
    depth: dict[int, int] = {}
    on_stack: set[int] = set()
    distinct = 0
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        nid = id(node)
        children = _children(node)
        if done:
            on_stack.discard(nid)
            size[nid] = 1 + sum(size[id(c)] for c in children)
            depth[nid] = 1 + max((depth[id(c)] for c in children), default=0)
            if depth[nid] > MAX_DEPTH:
                line = node.start_mark.line + 1
                raise _issue("too_deep", name, f"line {line}", f"expected nesting of at most {MAX_DEPTH} levels, "
                             "found deeper nesting here", line)
            if size[nid] - distinct > MAX_ALIAS_NODES:
                line = node.start_mark.line + 1
                raise _issue("alias_expansion", name, f"line {line}",
                             f"YAML aliases here expand to {size[nid]} nodes (more than {MAX_ALIAS_NODES} beyond the "
                             "file's own); write the values out instead of nesting aliases", line)
            continue
        if nid in size:
            continue
        if nid in on_stack:
            line = node.start_mark.line + 1
            raise _issue("recursive_alias", name, f"line {line}", "a YAML alias refers to a node that contains it", line)
        on_stack.add(nid)
        distinct += 1
        if isinstance(node, yaml.MappingNode):
            _check_duplicate_keys(node, name)
        stack.append((node, True))
        for child in children:
            cid = id(child)
            if cid in on_stack:
                line = child.start_mark.line + 1
                raise _issue("recursive_alias", name, f"line {line}", "a YAML alias refers to a node that contains it", line)
            if cid not in size:
                stack.append((child, False))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


_MERGE_TAG = "tag:yaml.org,2002:merge"


def _check_duplicate_keys(node: yaml.MappingNode, name: str) -> None:
    seen: dict[tuple[str, str], int] = {}
    for key, _ in node.value:
        if not isinstance(key, yaml.ScalarNode) or key.tag == _MERGE_TAG:
            continue
        ident = (key.tag, key.value)
        line = key.start_mark.line + 1
        if ident in seen:
            raise _issue("duplicate_key", name, f"line {line}",
                         f"key {short_repr(key.value, 60)} appears twice in one mapping (first at line {seen[ident]}); "
                         "a YAML mapping holds each key once", line)
        seen[ident] = line


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


def parse_json(raw: str, name: str) -> Any:
    """JSON -> Python values, bounded: nesting depth and no duplicate keys (with the object's line)."""
    try:
        data = json.loads(raw, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise _issue("syntax_error", name, f"line {exc.lineno}, column {exc.colno}", f"invalid JSON: {exc.msg}", exc.lineno) from None
    except _DuplicateKey as dup:
        line = _json_duplicate_line(raw, dup.key)
        raise _issue("duplicate_key", name, f"line {line}" if line else "",
                     f"key {short_repr(dup.key, 60)} appears twice in one object; a JSON object holds each key once",
                     line) from None
    except RecursionError:
        raise _issue("too_deep", name, "", f"expected nesting of at most {MAX_DEPTH} levels, found far deeper nesting") from None
    except ValueError as exc:  # e.g. an integer longer than Python's digit limit
        raise _issue("syntax_error", name, "", f"invalid JSON value: {clip(visible(str(exc)), 160)}") from None
    where = _too_deep(data)
    if where is not None:
        raise _issue("too_deep", name, where, f"expected nesting of at most {MAX_DEPTH} levels, found deeper nesting")
    return data


def _json_duplicate_line(raw: str, key: str) -> int | None:
    """The line of the object holding a duplicate key (slow path, only after a duplicate is found)."""
    import json.decoder
    import json.scanner

    found: list[int] = []

    def parse_object(s_and_end: tuple[str, int], *args: Any) -> tuple[Any, int]:
        s, start = s_and_end
        pairs, end = json.decoder.JSONObject(s_and_end, *args)  # type: ignore[attr-defined]  # private, stable since 3.1
        if not found and isinstance(pairs, list) and len({k for k, _ in pairs}) < len(pairs):
            keys = [k for k, _ in pairs]
            if keys.count(key) > 1:
                found.append(s.count("\n", 0, start) + 1)
        return (dict(pairs) if isinstance(pairs, list) else pairs), end

    dec = json.JSONDecoder(object_pairs_hook=list)
    dec.parse_object = parse_object  # type: ignore[attr-defined]
    dec.scan_once = json.scanner.py_make_scanner(dec)  # type: ignore[attr-defined]
    try:
        dec.decode(raw)
    except (ValueError, RecursionError):
        return None
    return found[0] if found else None


def _too_deep(data: Any) -> str | None:
    """The path of a value nested deeper than ``MAX_DEPTH`` (iterative), or None."""
    stack: list[tuple[Any, int, str]] = [(data, 1, "")]
    while stack:
        value, d, path = stack.pop()
        if d > MAX_DEPTH:
            return clip(path or "document root", 120)
        if isinstance(value, dict):
            stack.extend((v, d + 1, f"{path}.{k}" if path else str(k)) for k, v in value.items() if isinstance(v, (dict, list)))
        elif isinstance(value, list):
            stack.extend((v, d + 1, f"{path}[{i}]") for i, v in enumerate(value) if isinstance(v, (dict, list)))
    return None


def read_document(path: Path) -> tuple[str, dict[str, Any]]:
    """Parse a YAML/JSON file -> (kind, data); kind is ``catalog`` or ``cases``.

    Bounded: special files, files over ``MAX_FILE_BYTES``, non-UTF-8 bytes, nesting deeper than
    ``MAX_DEPTH``, runaway YAML aliases and duplicate keys are issues naming the file and line.
    """
    name = str(path)
    raw = read_text(path)
    data = parse_json(raw, name) if path.suffix == ".json" else parse_yaml(raw, name)
    if not isinstance(data, dict):
        raise CatalogFileInvalid(
            [Issue("wrong_type", "error", name, "document root", "", f"expected a mapping, found {type(data).__name__}")]
        )
    fmt = data.get("format")
    if fmt is None:
        return ("cases" if "cases" in data else "catalog"), data
    if fmt == CATALOG_FORMAT:
        return "catalog", data
    from chainret.catalog.cases import CASES_FORMAT

    if fmt == CASES_FORMAT:
        return "cases", data
    raise CatalogFileInvalid(
        [Issue("unknown_format", "error", name, "document root", "format",
               f"expected {CATALOG_FORMAT!r} or {CASES_FORMAT!r}, found {short_repr(fmt, 60)}")]
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
                    label += f" ({key} {clip(visible(record[key]), 80)})"
                    break
            else:
                if "source" in record and "document" in record:
                    ref = f"{record.get('source')}/{record.get('document')}@{record.get('version')}"  # raw values, any type
                    label += f" (ref {clip(visible(ref), 80)})"
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
    errors = exc.errors(include_url=False)
    for err in errors[:MAX_ISSUES]:
        loc = tuple(err["loc"])
        location, rest = _record_location(data, loc)
        fld = ".".join(str(p) for p in rest)
        etype = err["type"]
        code = _TYPE_CODES.get(etype) or ("wrong_type" if etype.endswith(("_type", "_parsing")) else "invalid_value")
        found = short_repr(err.get("input"), 80)
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
    if len(errors) > MAX_ISSUES:
        issues.append(Issue("too_many_issues", "error", file, "", "", f"{len(errors) - MAX_ISSUES} more problems not listed"))
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

    from chainret.catalog.suggest import did_you_mean

    ents, preds, docs = cat.entities_by_id, cat.predicates_by_name, cat.documents_by_ref
    types_known = {e.type for e in cat.entities}
    for i, e in enumerate(cat.entities):
        if e.world != cat.world:
            err("wrong_world", f"entities[{i}] (id {e.id})", "id",
                f"expected an ID in world {cat.world!r}, found world {e.world!r}")
    for i, p in enumerate(cat.predicates):
        for fld in ("domain", "range"):
            for value in type_union(getattr(p, fld)):  # "group|user": each type of the union
                if value not in types_known:
                    err("dangling_reference", f"predicates[{i}] (name {p.name})", fld,
                        f"expected an entity type declared by some entity ({', '.join(sorted(types_known))}), found {value!r}")
    for i, r in enumerate(cat.relations):
        where = f"relations[{i}] (id {r.id})"
        for fld in ("subject", "object"):
            value = getattr(r, fld)
            if value not in ents:
                err("dangling_reference", where, fld, f"expected a declared entity ID, found {value!r}{did_you_mean(value, ents)}")
        if r.predicate not in preds:
            err("dangling_reference", where, "predicate",
                f"expected a declared predicate ({', '.join(sorted(preds))}), found {r.predicate!r}{did_you_mean(r.predicate, preds)}")
        doc = docs.get(r.support.doc_ref)
        if doc is None:
            err("dangling_reference", where, "support",
                f"expected a declared document version, found {r.support.doc_ref!r}{did_you_mean(r.support.doc_ref, docs)}")
        elif r.support.span[1] > len(doc.text):
            err("span_out_of_range", where, "support.span",
                f"expected a span within the document's {len(doc.text)} characters, found {list(r.support.span)}")
    for i, v in enumerate(cat.views):
        seen: dict[str, str] = {}
        for j, ref in enumerate(v.documents):
            if ref not in docs:
                err("dangling_reference", f"views[{i}] (name {v.name})", f"documents.{j}",
                    f"expected a declared document version, found {ref!r}{did_you_mean(ref, docs)}")
            src, doc_name, _ = split_doc_ref(ref)
            doc_id = f"{src}/{doc_name}"
            if doc_id in seen:
                err("duplicate_id", f"views[{i}] (name {v.name})", f"documents.{j}",
                    f"a view holds one version per document: {seen[doc_id]!r} and {ref!r}")
            seen[doc_id] = ref
    if cat.views and sum(v.current for v in cat.views) > 1:
        err("invalid_value", "views", "current", "expected at most one view marked current, found several")
    for i, pat in enumerate(cat.patterns):
        where = f"patterns[{i}] (name {pat.name})"
        if pat.start_type not in types_known:
            err("dangling_reference", where, "start_type",
                f"expected a declared entity type, found {pat.start_type!r}{did_you_mean(pat.start_type, types_known)}")
        for j, hop in enumerate(pat.hops):
            if hop not in preds:
                err("dangling_reference", where, f"hops.{j}", f"expected a declared predicate, found {hop!r}{did_you_mean(hop, preds)}")
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
        root = yaml.compose(read_text(path), Loader=_YAML_LOADER)
    except (CatalogFileInvalid, yaml.YAMLError, RecursionError):
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
    from chainret.errors import UsageError

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
