"""A catalog file (JSON or YAML) read record by record: what ``catalog compile`` streams into a store.

``json_records(path)`` / ``yaml_records(path)`` yield ``("header", (format, world, description))`` and then
``(section, record)`` for every validated record (``Entity``, ``Relation``, ...), in file order,
holding one record's JSON at a time, so a catalog far over ``load.MAX_FILE_BYTES`` (the bound on
files read whole, for hostile input) compiles in bounded memory. A bad file raises the same
``CatalogFileInvalid`` as ``load.load_catalog`` (same codes, locations and messages; checked by
tests/test_store_stream.py), in the same precedence: syntax and duplicate keys, nesting depth,
format, then every field problem (pydantic's, in the catalog's field order).

Why the top level is scanned by hand: only the outer object and its lists are walked here (a few
characters of grammar); each record is decoded by the standard library's C scanner
(``JSONDecoder.raw_decode``), so values, escapes and syntax errors inside records are exactly
``json.loads``'s. An incremental parser (ijson) would be a new dependency whose errors differ
from the ones ``load`` reports.

YAML: libyaml's events (the parser ``load`` uses, so syntax errors read the same), composed one
record at a time by PyYAML's own ``Composer``; each record's node gets ``load.check_yaml_tree``
(depth counted from the file's root, aliases, duplicate keys) before it is constructed. Alias
expansion is bounded per record rather than over the whole file. Line numbers of field problems
come from ``load.with_lines`` (which reads files under ``MAX_FILE_BYTES`` again, on failure only).
"""

from __future__ import annotations

import codecs
import json
import os
import re
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import IO, Any

import yaml
from pydantic import ValidationError
from yaml.composer import Composer

from chainret.catalog import parse  # the bounded parsing and error wording of load_catalog
from chainret.catalog.issues import CatalogFileInvalid, Issue
from chainret.catalog.models import CATALOG_FORMAT, Catalog, Entity, Pattern, Predicate, Relation, SourceDocument, View
from chainret.core.progress import EVERY, Progress, no_progress
from chainret.core.textsafe import clip, short_repr, visible

MODELS: dict[str, Any] = {"entities": Entity, "predicates": Predicate, "documents": SourceDocument,
                          "relations": Relation, "views": View, "patterns": Pattern}
CHUNK = 1 << 22
_WS = re.compile(r"[ \t\n\r]*")


class NotStreamable(Exception):
    """Not a catalog this reader streams (a cases file, a root that is not an object): load it whole."""


class _Errors:
    """A ``ValidationError`` stand-in carrying errors gathered record by record (for ``parse.validation_issues``)."""

    def __init__(self, errors: list[Any]) -> None:
        self._errors = errors

    def errors(self, include_url: bool = False) -> list[Any]:
        return self._errors


class _Text:
    """The file's UTF-8 text in a sliding window, with the line and column of any offset in it."""

    def __init__(self, f: IO[bytes], name: str) -> None:
        self.f, self.name = f, name
        self.dec = codecs.getincrementaldecoder("utf-8-sig")()
        self.buf = ""
        self.eof = False
        self.line = 1  # line number at buf[0]
        self.col = 0  # characters of that line before buf[0]
        self.fed = 0  # bytes given to the decoder
        self.nl_bytes = 0  # newlines among the bytes fully decoded

    def more(self) -> bool:
        if self.eof:
            return False
        raw = self.f.read(CHUNK)
        try:
            text = self.dec.decode(raw, final=not raw)
        except UnicodeDecodeError as exc:
            pending = len(exc.object) - len(raw)
            offset = self.fed - pending + exc.start
            line = self.nl_bytes + bytes(exc.object[: exc.start]).count(b"\n") + 1
            raise parse._issue("not_utf8", self.name, f"line {line}", f"expected UTF-8 text, found byte "
                              f"0x{exc.object[exc.start]:02x} at byte offset {offset}", line) from None
        self.fed += len(raw)
        self.nl_bytes += raw.count(b"\n")
        if not raw:
            self.eof = True
        self.buf += text
        return True

    def drop(self, pos: int) -> int:
        """Forget ``buf[:pos]`` (keeping line and column bookkeeping); returns the new offset of ``pos``."""
        if pos < CHUNK:
            return pos
        head = self.buf[:pos]
        n = head.count("\n")
        if n:
            self.line += n
            self.col = pos - head.rfind("\n") - 1
        else:
            self.col += pos
        self.buf = self.buf[pos:]
        return 0

    def where(self, pos: int) -> tuple[int, int]:
        nl = self.buf.rfind("\n", 0, pos)
        if nl < 0:
            return self.line, self.col + pos + 1
        return self.line + self.buf.count("\n", 0, pos), pos - nl

    def syntax(self, msg: str, pos: int) -> CatalogFileInvalid:
        line, col = self.where(pos)
        return parse._issue("syntax_error", self.name, f"line {line}, column {col}", f"invalid JSON: {msg}", line)

    def ws(self, pos: int) -> int:
        while True:
            end = _WS.match(self.buf, pos).end()  # type: ignore[union-attr]  # [ \t\n\r]* always matches
            if end < len(self.buf) or not self.more():
                return end

    def separator(self, pos: int, close: str) -> tuple[bool, int]:
        """After a member: ``(True, next member's offset)`` at ``,``, ``(False, offset past close)`` at ``close``."""
        pos = self.ws(self.drop(pos))
        c = self.char(pos)
        if c == ",":
            return True, self.ws(pos + 1)
        if c == close:
            return False, pos + 1
        raise self.syntax("Expecting ',' delimiter", pos)

    def char(self, pos: int) -> str:
        while pos >= len(self.buf):
            if not self.more():
                return ""
        return self.buf[pos]


def _incomplete(t: _Text, exc: json.JSONDecodeError) -> bool:
    """Could more text turn this decode error into a value? (the record runs past the window)."""
    return not t.eof and (exc.msg.startswith("Unterminated string") or exc.pos >= len(t.buf) - 16)


def _value(t: _Text, dec: json.JSONDecoder, pos: int) -> tuple[Any, int]:
    """One JSON value at ``pos`` (``pos`` past any whitespace), read whole: ``json.loads``'s errors."""
    while True:
        try:
            return dec.raw_decode(t.buf, pos)
        except json.JSONDecodeError as exc:
            if _incomplete(t, exc):
                if len(t.buf) - pos > parse.MAX_FILE_BYTES:
                    raise parse._issue("file_too_large", t.name, "",
                                      f"a record of over {parse.MAX_FILE_BYTES} bytes (CHAINRET_MAX_FILE_BYTES)") from None
                t.more()
                continue
            raise t.syntax(exc.msg, exc.pos) from None
        except parse._DuplicateKey as dup:
            start, _ = _value_plain(t, pos)
            inner = parse._json_duplicate_line(start, dup.key)
            line0, _ = t.where(pos)
            line = line0 + inner - 1 if inner else None
            raise parse._issue("duplicate_key", t.name, f"line {line}" if line else "",
                              f"key {short_repr(dup.key, 60)} appears twice in one object; a JSON object holds each key once",
                              line) from None
        except RecursionError:
            raise parse._issue("too_deep", t.name, "", f"expected nesting of at most {parse.MAX_DEPTH} levels, "
                              "found far deeper nesting") from None
        except ValueError as exc:
            raise parse._issue("syntax_error", t.name, "", f"invalid JSON value: {clip(visible(str(exc)), 160)}") from None


def _value_plain(t: _Text, pos: int) -> tuple[str, int]:
    """The source text of the (complete, valid) value at ``pos``."""
    _, end = json.JSONDecoder(object_pairs_hook=list).raw_decode(t.buf, pos)
    return t.buf[pos:end], end


class _Stream:
    """What a catalog file's walker shares: records validated one by one, problems gathered in ``load``'s order."""

    json_depth = True

    def __init__(self, path: Path, progress: Progress = no_progress) -> None:
        self.path, self.name, self.progress = path, str(path), progress
        self.top: dict[str, Any] = {}  # the root's non-list values (and non-list sections, for pydantic)
        self.keys: list[str] = []
        self.deep: str | None = None
        self.errors: dict[str, list[Any]] = {s: [] for s in MODELS}
        self.bad: dict[str, dict[int, Any]] = {s: {} for s in MODELS}  # the records with errors (for their labels)
        self.n_errors = 0
        self.header_sent = False
        self.root_line = 1
        self.pending_header = False
        self.tree_error: CatalogFileInvalid | None = None  # YAML: the composed tree's first problem (load's order)
        self.construct_error: CatalogFileInvalid | None = None

    def records(self) -> Iterator[tuple[str, Any]]:
        with open(self.path, "rb") as f:
            if self.progress is no_progress:
                yield from self._walk(f)
            else:  # how far into the file the reader is, every EVERY records: a bar with a real total
                size = os.fstat(f.fileno()).st_size
                for n, item in enumerate(self._walk(f), 1):
                    if n % EVERY == 0:
                        self.progress("reading the catalog", f.tell(), size, "bytes")
                    yield item
                self.progress("reading the catalog", size, size, "bytes")
        self._after()
        yield "header", self._head()  # the final top-level values (a description may follow the records)

    def _walk(self, f: IO[bytes]) -> Iterator[tuple[str, Any]]:
        raise NotImplementedError


    def _check_top(self, key: str, value: Any) -> None:
        self.top[key] = value
        if key == "format" and (value != CATALOG_FORMAT and value is not None):
            raise NotStreamable("not a catalog")  # a cases file, or a format load reports after a full parse
        if key == "cases":
            raise NotStreamable("a cases file")
        where = parse._too_deep(value, 2, key) if self.json_depth and isinstance(value, (dict, list)) else None
        if where is not None:
            self.deep = where

    def _header(self, section: str) -> None:
        if not self.header_sent and isinstance(self.top.get("world"), str):
            self.header_sent = True  # else the compile finds the world missing when entities come
            self.pending_header = True

    def _head(self) -> tuple[str, str, str]:
        top = self.top
        return (top.get("format") or CATALOG_FORMAT, str(top.get("world")), str(top.get("description") or ""))

    def _record(self, model: Any, section: str, i: int, data: Any) -> Any:
        """The validated record (None once any problem is known: nothing more is written)."""
        try:
            record = model.model_validate(data)
        except ValidationError as exc:
            self._invalid(section, i, exc, data)
            return None
        ok = not self.n_errors and self.deep is None and self.tree_error is None and self.construct_error is None
        return record if ok else None

    def _invalid(self, section: str, i: int, exc: ValidationError, data: Any) -> None:
        errs = exc.errors(include_url=False)
        self.n_errors += len(errs)
        kept = self.errors[section]
        if len(kept) < parse.MAX_ISSUES:
            self.bad[section][i] = data
        for e in errs:
            if len(kept) < parse.MAX_ISSUES:
                kept.append({**e, "loc": (section, i, *e["loc"])})

    def _after(self) -> None:
        """The whole-file checks, in ``load``'s order, once every record has been read."""
        if self.tree_error is not None:
            raise self.tree_error
        if self.construct_error is not None:
            raise self.construct_error
        if self.deep is not None:
            raise parse._issue("too_deep", self.name, self.deep, f"expected nesting of at most {parse.MAX_DEPTH} levels, "
                              "found deeper nesting")
        skeleton = {k: ([] if k in MODELS and isinstance(v, list) else v) for k, v in self.top.items()}
        for k in MODELS:
            if k in self.keys and k not in skeleton:
                skeleton[k] = []
        top_errors: list[Any] = []
        try:
            Catalog.model_validate(skeleton)
        except ValidationError as exc:
            top_errors = exc.errors(include_url=False)
        if not top_errors and not self.n_errors:
            return
        fields = list(Catalog.model_fields)
        ordered: list[Any] = []
        for f in fields:
            ordered += [e for e in top_errors if e["loc"] and e["loc"][0] == f]
            ordered += self.errors.get(f, [])
        ordered += [e for e in top_errors if not e["loc"] or e["loc"][0] not in fields]
        total = len(top_errors) + self.n_errors
        data: dict[str, Any] = dict(self.bad)
        data.update({k: v for k, v in skeleton.items() if k not in MODELS})
        issues = parse.validation_issues(_Errors(ordered[: parse.MAX_ISSUES]), data, self.name, Catalog)  # type: ignore[arg-type]
        if total > parse.MAX_ISSUES:
            issues.append(Issue("too_many_issues", "error", self.name, "", "", f"{total - parse.MAX_ISSUES} more problems not listed"))
        raise CatalogFileInvalid(issues)


class _JsonStream(_Stream):
    def _walk(self, f: IO[bytes]) -> Iterator[tuple[str, Any]]:
        return self._root(_Text(f, self.name))

    def _root(self, t: _Text) -> Iterator[tuple[str, Any]]:
        dec = json.JSONDecoder(object_pairs_hook=parse._no_duplicates)
        pos = t.ws(0)
        c = t.char(pos)
        if c == "":
            raise t.syntax("Expecting value", pos)
        if c != "{":
            raise NotStreamable("the root is not an object")
        self.root_line = t.where(pos)[0]
        pos = t.ws(pos + 1)
        dup: str | None = None
        if t.char(pos) == "}":
            pos += 1
        else:
            while True:
                if t.char(pos) != '"':
                    raise t.syntax("Expecting property name enclosed in double quotes", pos)
                key, pos = self._key(t, pos)
                pos = t.ws(pos)
                if t.char(pos) != ":":
                    raise t.syntax("Expecting ':' delimiter", pos)
                pos = t.ws(pos + 1)
                if key in self.keys and dup is None:
                    dup = key
                self.keys.append(key)
                if t.char(pos) == "[" and key in MODELS and dup is None:
                    self._header(key)
                    pos = yield from self._list(t, dec, key, pos)
                else:
                    if t.char(pos) == "":
                        raise t.syntax("Expecting value", pos)
                    value, pos = _value(t, dec, pos)
                    self._check_top(key, value)
                more, pos = t.separator(pos, "}")
                if not more:
                    break
        if dup is not None:
            raise parse._issue("duplicate_key", self.name, f"line {self.root_line}",
                              f"key {short_repr(dup, 60)} appears twice in one object; a JSON object holds each key once",
                              self.root_line)
        pos = t.ws(pos)
        if t.char(pos) != "":
            raise t.syntax("Extra data", pos)

    def _key(self, t: _Text, pos: int) -> tuple[str, int]:
        while True:
            try:
                return json.decoder.scanstring(t.buf, pos + 1)  # type: ignore[attr-defined, no-any-return]
            except json.JSONDecodeError as exc:
                if _incomplete(t, exc):
                    t.more()
                    continue
                raise t.syntax(exc.msg, exc.pos) from None

    def _list(self, t: _Text, dec: json.JSONDecoder, section: str, pos: int) -> Generator[tuple[str, Any], None, int]:
        model = MODELS[section]
        pos = t.ws(pos + 1)
        if t.char(pos) == "]":
            return pos + 1
        i = 0
        if self.pending_header:
            self.pending_header = False
            yield "header", self._head()
        while True:
            if t.char(pos) == "":
                raise t.syntax("Expecting value", pos)
            data, pos = _value(t, dec, pos)
            where = parse._too_deep(data, 3, f"{section}[{i}]") if isinstance(data, (dict, list)) else None
            if where is not None:
                self.deep = where
            record = self._record(model, section, i, data)
            if record is not None:
                yield section, record
            i += 1
            more, pos = t.separator(pos, "]")
            if not more:
                return pos


class _Chunks:
    """``read(n)`` for libyaml: the file's text, decoded as ``load.read_text`` decodes it (same errors)."""

    def __init__(self, t: _Text) -> None:
        self.t = t

    def read(self, size: int = -1) -> str:
        t = self.t
        while not t.buf and t.more():
            pass
        out, t.buf = t.buf, ""
        return out


class _Events(yaml.CSafeLoader if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader, Composer):  # type: ignore[misc]
    """libyaml's events, composed one node at a time by PyYAML's own ``Composer`` (libyaml composes only whole documents)."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        Composer.__init__(self)


def _wrapped(node: yaml.Node, levels: int) -> yaml.Node:
    """``node`` under ``levels`` sequences: ``parse.check_yaml_tree`` then counts the depth it has in the file."""
    for _ in range(levels):
        node = yaml.SequenceNode("tag:yaml.org,2002:seq", [node], node.start_mark, node.end_mark)
    return node


class _YamlStream(_Stream):
    json_depth = False

    def _walk(self, f: IO[bytes]) -> Iterator[tuple[str, Any]]:
        ld = _Events(_Chunks(_Text(f, self.name)))
        try:
            yield from self._document(ld)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise parse._issue("syntax_error", self.name, where, f"invalid YAML: {visible(problem)}",
                              mark.line + 1 if mark is not None else None) from None
        finally:
            ld.dispose()

    def _value(self, ld: _Events, node: yaml.Node, levels: int) -> Any:
        """A composed node's value; its tree and construction problems kept in ``load.parse_yaml``'s order."""
        try:
            parse.check_yaml_tree(_wrapped(node, levels), self.name)
        except CatalogFileInvalid as exc:
            self.tree_error = exc  # the whole-tree walk meets the last one first
            return None
        try:
            return ld.construct_document(node)
        except (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError) as exc:
            if self.construct_error is None:
                mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
                where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
                problem = getattr(exc, "problem", None) or (str(exc).splitlines() or [type(exc).__name__])[0]
                self.construct_error = parse._issue("syntax_error", self.name, where, f"invalid YAML value: {clip(visible(problem), 160)}",
                                                   mark.line + 1 if mark is not None else None)
            return None

    def _document(self, ld: _Events) -> Iterator[tuple[str, Any]]:
        ld.get_event()  # stream start
        if ld.check_event(yaml.StreamEndEvent):
            raise NotStreamable("an empty file")
        ld.get_event()  # document start
        start = ld.peek_event()
        if not isinstance(start, yaml.MappingStartEvent) or start.anchor is not None or start.tag not in (None, "tag:yaml.org,2002:map"):
            raise NotStreamable("the root is not a plain mapping")
        ld.get_event()
        first: dict[tuple[str, str], int] = {}
        root_dup: CatalogFileInvalid | None = None
        while not ld.check_event(yaml.MappingEndEvent):
            knode = ld.compose_node(None, None)
            if not isinstance(knode, yaml.ScalarNode) or knode.tag == parse._MERGE_TAG or knode.tag != "tag:yaml.org,2002:str":
                raise NotStreamable("a root key that is not a plain string")
            line = knode.start_mark.line + 1
            if (knode.tag, knode.value) in first and root_dup is None:
                root_dup = parse._issue("duplicate_key", self.name, f"line {line}",
                                       f"key {short_repr(knode.value, 60)} appears twice in one mapping (first at line "
                                       f"{first[(knode.tag, knode.value)]}); a YAML mapping holds each key once", line)
            first.setdefault((knode.tag, knode.value), line)
            key = knode.value
            self.keys.append(key)
            seq = ld.peek_event()
            if key in MODELS and isinstance(seq, yaml.SequenceStartEvent) and seq.anchor is None and seq.tag in (None, "tag:yaml.org,2002:seq"):
                ld.get_event()
                self._header(key)
                if self.pending_header:
                    self.pending_header = False
                    yield "header", self._head()
                model, i = MODELS[key], 0
                while not ld.check_event(yaml.SequenceEndEvent):
                    data = self._value(ld, ld.compose_node(None, None), 2)
                    record = self._record(model, key, i, data)
                    if record is not None:
                        yield key, record
                    i += 1
                ld.get_event()
            else:
                self._check_top(key, self._value(ld, ld.compose_node(None, None), 1))
        ld.get_event()  # mapping end
        ld.get_event()  # document end
        if not ld.check_event(yaml.StreamEndEvent):
            mark = ld.peek_event().start_mark
            raise parse._issue("syntax_error", self.name, f"line {mark.line + 1}, column {mark.column + 1}",
                              "invalid YAML: but found another document", mark.line + 1)
        if root_dup is not None:
            self.tree_error = root_dup  # the whole-tree walk checks the root mapping first


def yaml_records(path: str | Path, progress: Progress = no_progress) -> Iterator[tuple[str, Any]]:
    """The records of a catalog YAML file, composed and validated one at a time (see the module docstring)."""
    return _YamlStream(Path(path), progress).records()


def json_records(path: str | Path, progress: Progress = no_progress) -> Iterator[tuple[str, Any]]:
    """The records of a catalog JSON file, validated one at a time (see the module docstring)."""
    return _JsonStream(Path(path), progress).records()
