"""A catalog JSON file read record by record: what ``catalog compile`` streams into a store.

``json_records(path)`` yields ``("header", (format, world, description))`` and then
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
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from chainret.catalog import parse as load  # the bounded parsing and error wording shared with load_catalog
from chainret.catalog.issues import CatalogFileInvalid, Issue
from chainret.catalog.models import CATALOG_FORMAT, Catalog, Entity, Pattern, Predicate, Relation, SourceDocument, View
from chainret.textsafe import clip, short_repr, visible

MODELS: dict[str, Any] = {"entities": Entity, "predicates": Predicate, "documents": SourceDocument,
                          "relations": Relation, "views": View, "patterns": Pattern}
CHUNK = 1 << 22
_WS = re.compile(r"[ \t\n\r]*")


class NotStreamable(Exception):
    """Not a catalog this reader streams (a cases file, a root that is not an object): load it whole."""


class _Errors:
    """A ``ValidationError`` stand-in carrying errors gathered record by record (for ``load.validation_issues``)."""

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
            raise load._issue("not_utf8", self.name, f"line {line}", f"expected UTF-8 text, found byte "
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
        return load._issue("syntax_error", self.name, f"line {line}, column {col}", f"invalid JSON: {msg}", line)

    def ws(self, pos: int) -> int:
        while True:
            end = _WS.match(self.buf, pos).end()  # type: ignore[union-attr]  # [ \t\n\r]* always matches
            if end < len(self.buf) or not self.more():
                return end

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
                if len(t.buf) - pos > load.MAX_FILE_BYTES:
                    raise load._issue("file_too_large", t.name, "",
                                      f"a record of over {load.MAX_FILE_BYTES} bytes (CHAINRET_MAX_FILE_BYTES)") from None
                t.more()
                continue
            raise t.syntax(exc.msg, exc.pos) from None
        except load._DuplicateKey as dup:
            start, _ = _value_plain(t, pos)
            inner = load._json_duplicate_line(start, dup.key)
            line0, _ = t.where(pos)
            line = line0 + inner - 1 if inner else None
            raise load._issue("duplicate_key", t.name, f"line {line}" if line else "",
                              f"key {short_repr(dup.key, 60)} appears twice in one object; a JSON object holds each key once",
                              line) from None
        except RecursionError:
            raise load._issue("too_deep", t.name, "", f"expected nesting of at most {load.MAX_DEPTH} levels, "
                              "found far deeper nesting") from None
        except ValueError as exc:
            raise load._issue("syntax_error", t.name, "", f"invalid JSON value: {clip(visible(str(exc)), 160)}") from None


def _value_plain(t: _Text, pos: int) -> tuple[str, int]:
    """The source text of the (complete, valid) value at ``pos``."""
    _, end = json.JSONDecoder(object_pairs_hook=list).raw_decode(t.buf, pos)
    return t.buf[pos:end], end


class _Stream:
    def __init__(self, path: Path) -> None:
        self.path, self.name = path, str(path)
        self.top: dict[str, Any] = {}  # the root's non-list values (and non-list sections, for pydantic)
        self.keys: list[str] = []
        self.deep: str | None = None
        self.errors: dict[str, list[Any]] = {s: [] for s in MODELS}
        self.bad: dict[str, dict[int, Any]] = {s: {} for s in MODELS}  # the records with errors (for their labels)
        self.n_errors = 0
        self.header_sent = False
        self.root_line = 1
        self.pending_header = False

    def records(self) -> Iterator[tuple[str, Any]]:
        with open(self.path, "rb") as f:
            t = _Text(f, self.name)
            yield from self._root(t)
        self._after()
        yield "header", self._head()  # the final top-level values (a description may follow the records)

    def _root(self, t: _Text) -> Iterator[tuple[str, Any]]:
        dec = json.JSONDecoder(object_pairs_hook=load._no_duplicates)
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
                pos = t.drop(pos)
                pos = t.ws(pos)
                c = t.char(pos)
                if c == ",":
                    pos = t.ws(pos + 1)
                    continue
                if c == "}":
                    pos += 1
                    break
                raise t.syntax("Expecting ',' delimiter", pos)
        if dup is not None:
            raise load._issue("duplicate_key", self.name, f"line {self.root_line}",
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

    def _check_top(self, key: str, value: Any) -> None:
        self.top[key] = value
        if key == "format" and (value != CATALOG_FORMAT and value is not None):
            raise NotStreamable("not a catalog")  # a cases file, or a format load reports after a full parse
        if key == "cases":
            raise NotStreamable("a cases file")
        where = load._too_deep(value, 2, key) if isinstance(value, (dict, list)) else None
        if where is not None:
            self.deep = where

    def _header(self, section: str) -> None:
        if not self.header_sent and isinstance(self.top.get("world"), str):
            self.header_sent = True  # else the compile finds the world missing when entities come
            self.pending_header = True

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
            where = load._too_deep(data, 3, f"{section}[{i}]") if isinstance(data, (dict, list)) else None
            if where is not None:
                self.deep = where
            try:
                record = model.model_validate(data)
            except ValidationError as exc:
                self._invalid(section, i, exc, data)
            else:
                if not self.n_errors and self.deep is None:
                    yield section, record
            i += 1
            pos = t.drop(pos)
            pos = t.ws(pos)
            c = t.char(pos)
            if c == ",":
                pos = t.ws(pos + 1)
                continue
            if c == "]":
                return pos + 1
            raise t.syntax("Expecting ',' delimiter", pos)

    def _head(self) -> tuple[str, str, str]:
        top = self.top
        return (top.get("format") or CATALOG_FORMAT, str(top.get("world")), str(top.get("description") or ""))

    def _invalid(self, section: str, i: int, exc: ValidationError, data: Any) -> None:
        errs = exc.errors(include_url=False)
        self.n_errors += len(errs)
        kept = self.errors[section]
        if len(kept) < load.MAX_ISSUES:
            self.bad[section][i] = data
        for e in errs:
            if len(kept) < load.MAX_ISSUES:
                kept.append({**e, "loc": (section, i, *e["loc"])})

    def _after(self) -> None:
        """The whole-file checks, in ``load``'s order, once every record has been read."""
        if self.deep is not None:
            raise load._issue("too_deep", self.name, self.deep, f"expected nesting of at most {load.MAX_DEPTH} levels, "
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
        issues = load.validation_issues(_Errors(ordered[: load.MAX_ISSUES]), data, self.name, Catalog)  # type: ignore[arg-type]
        if total > load.MAX_ISSUES:
            issues.append(Issue("too_many_issues", "error", self.name, "", "", f"{total - load.MAX_ISSUES} more problems not listed"))
        raise CatalogFileInvalid(issues)


def json_records(path: str | Path) -> Iterator[tuple[str, Any]]:
    """The records of a catalog JSON file, validated one at a time (see the module docstring)."""
    return _Stream(Path(path)).records()
