"""Hardened parsing: one YAML/JSON file -> Python values, or ``CatalogFileInvalid`` naming the file and line.

Bounded against hostile input: special files, files over ``MAX_FILE_BYTES``, non-UTF-8 bytes,
nesting deeper than ``MAX_DEPTH``, runaway YAML aliases and duplicate keys are issues, never a
hang, a blow-up or a traceback. ``validation_issues`` turns a pydantic error into located issues
and ``with_lines`` adds the YAML line of each record; both serve catalogs, cases and source headers.

A YAML catalog that loaded is remembered as JSON under ``$XDG_CACHE_HOME/chainret/parsed`` (or
``~/.cache/chainret/parsed``), named by the sha256 of its text and of the YAML reader, so the next
load of the same bytes is ``json.loads`` instead of importing and running the YAML reader (issue 24:
a cold ``chainret ask`` on the default catalog). Only JSON-exact values are remembered (strings,
integers, finite floats, booleans, null, lists, string-keyed mappings), only files this user owns and
no one else may write are read back, and any problem with the cache means an ordinary parse: an
entry that cannot be read, is not JSON, is nested deeper than ``MAX_DEPTH`` (or than Python's stack)
or names another key is ignored, and the ordinary parse then replaces it once the catalog has loaded.
Beside it, the catalog that parse validated to is remembered too, for the code that validated it, and read back
without validation (``_recall_checked``: a one-ask process then imports no pydantic).
"""

from __future__ import annotations

import json
import os
import re
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chainret.catalog.issues import CatalogFileInvalid, Issue
from chainret.catalog.models import CATALOG_FORMAT
from chainret.core.record import is_model
from chainret.core.textsafe import clip, short_repr, visible

if TYPE_CHECKING:
    import yaml
    from pydantic import BaseModel, ValidationError

    from chainret.catalog.models import Catalog
    from chainret.core.record import Record

_LISTS_KEYS = ("id", "name", "ref")


def _yaml_loader() -> Any:
    """libyaml's parser with PyYAML's safe constructor (the same values as ``yaml.safe_load``, several
    times faster); the pure-Python loader where PyYAML was built without libyaml. PyYAML loads here."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def __getattr__(name: str) -> Any:
    """``_YAML_LOADER``, the name the loader class had when PyYAML loaded with this module."""
    if name == "_YAML_LOADER":
        return _yaml_loader()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
                         f"expected at most {MAX_FILE_BYTES} bytes (CHAINRET_MAX_FILE_BYTES), found {st.st_size}; "
                         f"a catalog this large is asked through a store: `chainret catalog compile {name} --out STORE.db`, "
                         "then --catalog STORE.db")
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
    import yaml

    loader = _yaml_loader()(raw)
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
    import yaml

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
    import yaml

    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


_MERGE_TAG = "tag:yaml.org,2002:merge"


def _check_duplicate_keys(node: yaml.MappingNode, name: str) -> None:
    import yaml

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


def _too_deep(data: Any, depth: int = 1, path: str = "") -> str | None:
    """The path of a value nested deeper than ``MAX_DEPTH`` (iterative), or None (``depth``/``path``: where ``data`` sits)."""
    stack: list[tuple[Any, int, str]] = [(data, depth, path)]
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
    return document_kind(name, data), data


def read_catalog_document(path: Path) -> tuple[str, dict[str, Any], Catalog | None, Callable[[Catalog], None]]:
    """``read_document``, reading a YAML file's remembered parse when there is one: (kind, data, checked,
    remember). ``checked`` is the catalog itself where this code validated these very bytes before (a remembered
    checked catalog, below; ``data`` is then empty); else None, and ``remember`` remembers this parse and the
    catalog it gave (call it once the catalog has loaded and passed its checks; a no-op where there is nothing to do)."""
    name = str(path)
    raw = read_text(path)
    if path.suffix == ".json":
        data = parse_json(raw, name)
        return document_kind(name, data), data, None, _nothing
    key = _cache_key(raw)
    if key is None:
        data = parse_yaml(raw, name)
        return document_kind(name, data), data, None, _nothing
    checked = _recall_checked(key)
    if checked is not None:
        return "catalog", {}, checked, _nothing
    remembered = _recall(key)
    if remembered is not None:
        return document_kind(name, remembered), remembered, None, lambda catalog: _remember_checked(key, catalog)
    data = parse_yaml(raw, name)
    kind = document_kind(name, data)
    text = _json_exact(data)

    def remember(catalog: Catalog) -> None:
        if text is not None:
            _remember(key, text)
        _remember_checked(key, catalog)

    return kind, data, None, remember


def document_kind(name: str, data: Any) -> str:
    """``catalog`` or ``cases`` for a parsed document (CatalogFileInvalid for anything else)."""
    if not isinstance(data, dict):
        raise CatalogFileInvalid(
            [Issue("wrong_type", "error", name, "document root", "", f"expected a mapping, found {type(data).__name__}")]
        )
    fmt = data.get("format")
    if fmt is None:
        return "cases" if "cases" in data else "catalog"
    if fmt == CATALOG_FORMAT:
        return "catalog"
    from chainret.catalog.cases import CASES_FORMAT

    if fmt == CASES_FORMAT:
        return "cases"
    raise CatalogFileInvalid(
        [Issue("unknown_format", "error", name, "document root", "format",
               f"expected {CATALOG_FORMAT!r} or {CASES_FORMAT!r}, found {short_repr(fmt, 60)}")]
    )


# -- the remembered parses of YAML catalogs ---------------------------------------------------------
_CACHE_FORMAT = "chainret-parsed-yaml/1"
_CACHE_MAX_CHARS = 4 << 20  # larger catalogs are asked through a compiled store


def _nothing(*_: Any) -> None:
    return None


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "chainret" / "parsed"


def _cache_key(raw: str) -> str | None:
    """sha256 of the text and of the YAML reader that parsed it (PyYAML's files, found without importing it)."""
    import hashlib
    import importlib.util

    if len(raw) > _CACHE_MAX_CHARS:
        return None
    try:
        spec = importlib.util.find_spec("yaml")
        origin = spec.origin if spec is not None else None
        reader = [(f, st.st_size, st.st_mtime_ns) for f in sorted(os.listdir(os.path.dirname(origin)))
                  if f.endswith((".py", ".so")) for st in (os.stat(os.path.join(os.path.dirname(origin), f)),)] if origin else None
    except (OSError, ValueError, ImportError):
        return None
    if not reader:
        return None
    h = hashlib.sha256(f"{_CACHE_FORMAT}\0{reader!r}\0{MAX_DEPTH}\0{MAX_ALIAS_NODES}\0".encode())
    h.update(raw.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _json_exact(data: Any) -> str | None:
    """``data`` as JSON when JSON gives back exactly these values (else None: dates, bytes, sets, odd keys, nan)."""
    stack = [data]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if not all(type(k) is str for k in v):
                return None
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, float):
            if v != v or v in (float("inf"), float("-inf")):
                return None
        elif not (v is None or type(v) in (str, int, bool)):
            return None
    return json.dumps(data, ensure_ascii=True, allow_nan=False)


def _recall(key: str) -> dict[str, Any] | None:
    """The remembered parse named ``key``: a regular file this user owns that no one else may write, else None."""
    doc = _read_entry(f"{key}.json")
    if not isinstance(doc, dict) or doc.get("format") != _CACHE_FORMAT or doc.get("key") != key or not isinstance(doc.get("data"), dict):
        return None
    data: dict[str, Any] = doc["data"]
    if _too_deep(data) is not None:
        return None  # deeper than a parse of any catalog that loaded: not a remembered parse
    return data


def _read_entry(file_name: str) -> Any:
    """The JSON of one cache file: a regular file this user owns that no one else may write, else None."""
    import stat

    try:
        fd = os.open(cache_dir() / file_name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022 or st.st_size > 4 * _CACHE_MAX_CHARS:
            return None
        with os.fdopen(os.dup(fd), "rb") as fh:
            doc = json.loads(fh.read())
    except (OSError, ValueError, RecursionError):  # RecursionError: nesting deeper than the interpreter's stack
        return None
    finally:
        os.close(fd)
    return doc


def _remember(key: str, text: str) -> None:
    """Write the parse atomically (a private file in a private folder); a failure only means no cache."""
    _write_entry(f"{key}.json", f'{{"format": "{_CACHE_FORMAT}", "key": "{key}", "data": {text}}}')


def _write_entry(file_name: str, document: str) -> None:
    """Write one cache file atomically, private to this user in a private folder (``chainret.core.files``, the one
    home of chainret's atomic write: ``tempfile`` would load ``shutil``, ``bz2`` and ``lzma`` into a cold ask that
    misses the cache); a failure only means no cache."""
    from chainret.core.errors import OutputError
    from chainret.core.files import atomic_write_text

    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        atomic_write_text(folder / file_name, document, mode="private")
    except (OSError, OutputError):
        return


# -- the remembered checked catalogs ----------------------------------------------------------------
# A YAML catalog that validated and passed its reference checks is also remembered as its own dump
# (``model_dump(mode="json")``) with its digest, beside its parse: the next load of the same bytes by the same
# code rebuilds it without validation (``chainret.core.record.from_dump``), so a one-ask process imports no
# pydantic (issue 47). "The same code": the entry names the files that decide what validation gives (the
# catalog models, the record base, the reference checks, pydantic and pydantic-core), by size and mtime; an
# entry written under other files, unreadable, not this format, or one that does not rebuild is ignored, and
# the ordinary load then replaces it. The entry is this user's own (``_read_entry``), as the parse is.
_CHECKED_FORMAT = "chainret-checked-catalog/1"


def _code_fingerprint() -> list[Any] | None:
    """(file, size, mtime) of the code whose validation a checked catalog records (None: not found)."""
    import importlib.util

    here = Path(__file__).resolve().parent
    files = [here / "models.py", here / "references.py", here / "clause.py", here.parent / "core" / "record.py",
             here.parent / "core" / "trusted.py"]
    try:
        for package in ("pydantic", "pydantic_core"):
            spec = importlib.util.find_spec(package)
            if spec is None or spec.origin is None:
                return None
            folder = Path(spec.origin).parent
            files += sorted(folder / f for f in os.listdir(folder)  # (the version, and pydantic-core's binary)
                            if f in ("__init__.py", "version.py") or f.startswith("_pydantic_core."))
        return [(f.name, st.st_size, st.st_mtime_ns) for f in files for st in (os.stat(f),)]
    except (OSError, ValueError, ImportError):
        return None


def _recall_checked(key: str) -> Catalog | None:
    """The catalog remembered for ``key`` by this code, rebuilt unchecked; None where there is none to trust."""
    doc = _read_entry(f"{key}.checked.json")
    if not isinstance(doc, dict) or doc.get("format") != _CHECKED_FORMAT or doc.get("key") != key \
            or not isinstance(doc.get("data"), dict) or not isinstance(doc.get("digest"), str):
        return None
    code = _code_fingerprint()
    if code is None or doc.get("code") != json.loads(json.dumps(code)):
        return None
    from chainret.catalog.models import checked_catalog

    try:
        return checked_catalog(doc["data"], doc["digest"])
    except Exception:  # noqa: BLE001 - an entry that does not rebuild is no entry: the ordinary load replaces it
        return None


def _remember_checked(key: str, catalog: Catalog) -> None:
    """Remember a catalog that loaded and passed its checks, for this code (``_recall_checked``)."""
    code = _code_fingerprint()
    if code is None:
        return
    document = {"format": _CHECKED_FORMAT, "key": key, "code": code, "digest": catalog.digest(),
                "data": catalog.model_dump(mode="json")}
    _write_entry(f"{key}.checked.json", json.dumps(document, ensure_ascii=True, allow_nan=False))


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


def _model_at(model: type[BaseModel | Record], path: tuple[Any, ...]) -> type[BaseModel | Record] | None:
    """Best effort: the model class that owns the last element of ``path``."""
    current: Any = model
    for part in path[:-1]:
        if isinstance(part, int):
            continue
        fields = typing.cast(Any, current).model_fields if isinstance(current, type) and is_model(current) else {}
        if part in fields:
            current = _inner_model(fields[part].annotation)
        elif isinstance(current, list):  # a union: pick the member named by the tag
            current = next((m for m in current if _tag(m) == part), None)
        else:
            return None
        if current is None:
            return None
    if isinstance(current, type) and is_model(current):
        return current
    return None


def _tag(model: type[BaseModel | Record]) -> str | None:
    fld = model.model_fields.get("outcome")
    if fld is None:
        return None
    args = typing.get_args(fld.annotation)
    return args[0] if args else None


def _inner_model(annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _inner_model(typing.get_args(annotation)[0])
    if isinstance(annotation, type) and is_model(annotation):
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


def validation_issues(exc: ValidationError, data: Any, file: str, model: type[BaseModel | Record]) -> list[Issue]:
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
            # A rule's own message may already quote what it found ("..., found 'a'"): say it once.
            message = msg if msg.endswith(f"found {found}") else f"{msg}; found {found}"
        issues.append(Issue(code, "error", file, location, fld, message))
    if len(errors) > MAX_ISSUES:
        issues.append(Issue("too_many_issues", "error", file, "", "", f"{len(errors) - MAX_ISSUES} more problems not listed"))
    return issues



_RECORD_RE = r"^(\w+)\[(\d+)\]"  # (compiled by ``re`` when a problem is first placed: not on a clean load)


def _yaml_line(node: yaml.Node, path: list[str | int]) -> int:
    """1-based line of the deepest key or item reachable along ``path`` in a composed YAML tree."""
    import yaml

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
    import yaml

    try:
        root = yaml.compose(read_text(path), Loader=_yaml_loader())
    except (CatalogFileInvalid, yaml.YAMLError, RecursionError):
        return issues
    if root is None:
        return issues
    out = []
    for issue in issues:
        m = re.match(_RECORD_RE, issue.location)
        if issue.file != str(path) or not m:
            out.append(issue)
            continue
        parts: list[str | int] = [m.group(1), int(m.group(2))]
        parts += [int(p) if p.isdigit() else p for p in issue.field.split(".") if p]
        line = _yaml_line(root, parts)
        out.append(issue._replace(line=line))
    return out
