"""The hand-written header of a source folder (``chainret.yaml``, format ``chainret-source/1``).

A source folder is plain files plus this one header. The header declares what cannot be read
from the files: the world, its entities (IDs, display names, aliases), predicates, patterns,
per-document settings (title, visibility, principals), prose-supported relations and cases.
Everything a person would otherwise compute (digests, spans, units, relation IDs, versions,
views) is left to ``chainret catalog build``.

``read_header(path) -> Header`` parses and checks it; every problem is an ``Issue`` naming the
file, the record and its line (``SourceInvalid``), with the closest known name for a typo.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from chainret.catalog.cases import Case
from chainret.catalog.issues import Issue, issue_list
from chainret.catalog.models import Entity, Pattern, Predicate
from chainret.core.errors import CatalogInvalid

SOURCE_FORMAT = "chainret-source/1"
HEADER_NAME = "chainret.yaml"


class SourceInvalid(CatalogInvalid):
    """A source folder, table or header cannot be built: every problem names its file and line."""

    def __init__(self, issues: list[Issue]) -> None:
        self.issues = issues
        super().__init__(issue_list(issues, "in the source; nothing was written", _plain))


def _plain(issue: Issue) -> str:
    """``file:line: message [code]`` (``file:line:column:``) for a source line, else the loader's own wording."""
    if issue.location.startswith("line ") and not issue.field:
        where = issue.location[5:].replace(", column ", ":")
        return f"{issue.file}:{where}: {issue.message} [{issue.code}]"
    return str(issue)


def source_issue(code: str, file: str | Path, line: int | None, message: str, location: str = "") -> Issue:
    """An error at ``file:line`` (``line`` 1-based; None: the whole file)."""
    return Issue(code, "error", str(file), location or (f"line {line}" if line else ""), "", message)


def closest(word: str, choices: list[str] | set[str]) -> str:
    """`` (did you mean 'x'?)`` for a near miss, else ``""`` (the match is ``chainret.catalog.suggest``'s;
    this is its wording after a ``file:line:`` message)."""
    from chainret.catalog.suggest import closest as nearest

    hit = nearest(word, sorted(choices), n=1)
    return f" (did you mean {hit[0]!r}?)" if hit else ""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class HeaderEntity(Entity):
    """An entity as written in the header: ``type`` may be left out (it is the ID's prefix)."""

    type: str = ""

    @model_validator(mode="before")
    @classmethod
    def _type_from_id(cls, data: Any) -> Any:
        if isinstance(data, dict) and "type" not in data and isinstance(data.get("id"), str):
            return {**data, "type": data["id"].split(":", 1)[0]}
        return data

    def entity(self) -> Entity:
        """The catalog's record of this entity, built unchecked (``TrustedModel``): its values were
        validated as this header entity was, and its name sources are shared, not dumped and
        validated again (a 50,000-component import has about 190,000 of them: the dump and the
        validation were a tenth of its build's CPU, and the copies held each source twice)."""
        return Entity.model_construct(_ENTITY_FIELDS if self.declared_in else _ENTITY_FIELDS_UNSOURCED,
                                      id=self.id, type=self.type, name=self.name, aliases=self.aliases,
                                      description=self.description, declared_in=self.declared_in)


# The fields the dump this replaced set (it leaves out an empty ``declared_in``), in one fields-set
# shared by every entity (pydantic's own is a set per instance; ``model_copy`` copies it before it
# adds to it: ``TrustedModel.__copy__``). The lists are shared too: both models are frozen.
_ENTITY_FIELDS = set(Entity.model_fields)
_ENTITY_FIELDS_UNSOURCED = _ENTITY_FIELDS - {"declared_in"}


class DocumentSettings(_Model):
    """Settings of one file (``path`` relative to the folder); files not listed are public."""

    path: str
    source: str | None = Field(None, pattern=r"^[A-Za-z0-9_.-]+$")
    document: str | None = Field(None, pattern=r"^[^@#\s]+$")
    title: str | None = None
    visibility: Literal["public", "restricted"] = "public"
    principals: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _principals(self) -> DocumentSettings:
        if self.visibility == "restricted" and not self.principals:
            raise ValueError("a restricted document needs at least one principal who may read it")
        return self


class ProseRelation(_Model):
    """A relation supported by an ordinary sentence of a document (``quote``, found by the builder)."""

    subject: str
    predicate: str
    object: str
    document: str  # the file, relative to the folder
    # The sentence, verbatim; optional: without it (or when an edit changed it) the build uses the
    # sentence of the document that names both ends (chainret.authoring.prose).
    quote: str | None = Field(None, min_length=1)
    occurrence: int | None = Field(None, ge=1)  # which one, when the sentence (or several naming both ends) occurs more than once
    note: str = ""
    expect_invalid: list[str] = Field(default_factory=list)  # a deliberate control (fixture worlds)

    @field_validator("expect_invalid", mode="before")
    @classmethod
    def _one_or_many(cls, v: Any) -> Any:
        return [v] if isinstance(v, str) else v


class SourceExpectAccepted(_Model):
    """An accepted path written as entity IDs (start, bridges, answer): the builder finds the relations."""

    outcome: Literal["accepted_path"]
    path: list[str] = Field(min_length=2)
    packet_chars: int | None = None


class Header(_Model):
    format: Literal["chainret-source/1"] = "chainret-source/1"
    world: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    description: str = ""
    default_source: str = Field("docs", pattern=r"^[A-Za-z0-9_.-]+$")  # for files at the top of the folder
    entities: list[HeaderEntity] = Field(default_factory=list)
    predicates: list[Predicate] = Field(default_factory=list)
    patterns: list[Pattern] = Field(default_factory=list)
    documents: list[DocumentSettings] = Field(default_factory=list)
    relations: list[ProseRelation] = Field(default_factory=list)
    cases: list[dict[str, Any]] = Field(default_factory=list)  # chainret-cases/1 cases; see case_records


def read_utf8(path: Path, what: str) -> tuple[str | None, Issue | None]:
    """The UTF-8 text of a file (BOM dropped), or an issue naming the line of the first bad byte."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, source_issue("unreadable_file", path, None, f"cannot read the {what}: {exc.strerror}")
    try:
        return raw.decode("utf-8").removeprefix("\ufeff"), None
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        return None, source_issue("not_utf8", path, line, f"the {what} is not UTF-8 text (byte {raw[exc.start]:#04x}); save it as UTF-8")


def read_utf8_or_raise(path: Path, what: str) -> str:
    text, problem = read_utf8(path, what)
    if problem is not None:
        raise SourceInvalid([problem])
    assert text is not None
    return text


def _load_yaml(path: Path) -> Any:
    """The header's values, parsed as a catalog is (``chainret.catalog.parse``: bounded depth and
    aliases, a key written twice refused with both lines)."""
    from chainret.catalog.issues import CatalogFileInvalid
    from chainret.catalog.parse import parse_yaml

    text = read_utf8_or_raise(path, "header")
    try:
        return parse_yaml(text, str(path))
    except CatalogFileInvalid as exc:
        raise SourceInvalid(exc.issues) from None


def read_header(path: str | Path, *, check: bool = True) -> Header:
    """Parse and check a header file; ``SourceInvalid`` with every problem, located by line.

    ``check=False`` skips the cross-record checks (``header_issues``): an importer's header that
    names entities the records declare is checked after they are merged in.
    """
    from chainret.catalog.parse import validation_issues, with_lines

    file = Path(path)
    if not file.is_file():
        raise SourceInvalid([source_issue("file_not_found", file, None,
                                          f"no header: a source folder needs a {HEADER_NAME} (chainret catalog init DIR writes one)")])
    data = _load_yaml(file)
    if not isinstance(data, dict):
        raise SourceInvalid([source_issue("wrong_type", file, 1, "the header must be a mapping (format: chainret-source/1, world: …)")])
    if data.get("format", SOURCE_FORMAT) != SOURCE_FORMAT:
        raise SourceInvalid(with_lines([Issue("unknown_format", "error", str(file), "document root", "format",
                                              f"expected {SOURCE_FORMAT!r}, found {data.get('format')!r}")], file))
    try:
        header = Header.model_validate(data)
    except ValidationError as exc:
        issues = validation_issues(exc, data, str(file), Header)
        for i, issue in enumerate(issues):  # a misspelt key: name the closest allowed one
            if issue.code == "unknown_field":
                bad = issue.message.split("'")[1] if "'" in issue.message else ""
                allowed = issue.message.partition("allowed fields: ")[2].split(", ")
                issues[i] = Issue(issue.code, "error", issue.file, issue.location, issue.field,
                                  issue.message + closest(bad, [a for a in allowed if a]))
        raise SourceInvalid(_root_lines(with_lines(issues, file), file)) from None
    problems = header_issues(header, str(file)) if check else []
    if problems:
        raise SourceInvalid(with_lines(problems, file))
    return header


def _root_lines(issues: list[Issue], file: Path) -> list[Issue]:
    """Add the line of a top-level key to issues located at the document root (a misspelt section)."""

    try:
        root = yaml.compose(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return issues
    if not isinstance(root, yaml.MappingNode):
        return issues
    lines = {getattr(k, "value", None): k.start_mark.line + 1 for k, _ in root.value}
    return [i._replace(line=lines.get(i.field)) if i.location == "document root" and i.line is None
            and i.field in lines else i for i in issues]


def header_issues(header: Header, file: str) -> list[Issue]:
    """Cross-record checks: the rules a catalog is loaded with (``chainret.catalog.references``:
    world of each ID, declared types and predicates, typos named), plus the header's own (a file
    listed twice, each case well-formed)."""
    from chainret.catalog.references import declared_issues

    out = declared_issues(header.world, header.entities, header.predicates, header.patterns, header.relations, file)

    def err(code: str, where: str, fld: str, message: str) -> None:
        out.append(Issue(code, "error", file, where, fld, message))

    seen_paths: set[str] = set()
    for i, d in enumerate(header.documents):
        if d.path in seen_paths:
            err("duplicate_id", f"documents[{i}]", "path", f"{d.path!r} is listed twice")
        seen_paths.add(d.path)
    for i, raw in enumerate(header.cases):
        where = f"cases[{i}]" + (f" (id {raw['id']})" if isinstance(raw, dict) and isinstance(raw.get("id"), str) else "")
        try:
            _source_case(raw)
        except ValidationError as exc:
            for detail in exc.errors(include_url=False):
                fld = ".".join(str(p) for p in detail["loc"])
                err("invalid_value" if detail["type"] != "extra_forbidden" else "unknown_field", where, fld,
                    detail["msg"].removeprefix("Value error, "))
        except ValueError as exc:
            err("invalid_value", where, "anchors", str(exc))
    return out


def _source_case(raw: Any) -> tuple[dict[str, Any], SourceExpectAccepted | None, list[tuple[str, str] | None] | None]:
    """A header case -> (case data, the accepted path written as IDs or None, anchors written as
    ``[subject, object]`` pairs or None). The data is checked with placeholders for what the
    builder fills in (relation IDs)."""
    if not isinstance(raw, dict):
        Case.model_validate(raw)  # raises the type error
    data = dict(raw)
    pairs: list[tuple[str, str] | None] | None = None
    anchors = data.get("anchors")
    if isinstance(anchors, list) and any(isinstance(a, list) for a in anchors):
        pairs = []
        for a in anchors:
            if a is None:
                pairs.append(None)
            elif isinstance(a, list) and len(a) == 2 and all(isinstance(x, str) for x in a):
                pairs.append((a[0], a[1]))
            else:
                raise ValueError(f"anchors: each entry is [subject, object] (entity IDs) or null, found {a!r}")
        data["anchors"] = ["?" if p else None for p in pairs]
    expect = data.get("expect")
    path = None
    if isinstance(expect, dict) and expect.get("outcome") == "accepted_path" and "path" in expect:
        path = SourceExpectAccepted.model_validate(expect)
        n = len(path.path) - 1
        Case.model_validate({**data, "expect": {"outcome": "accepted_path", "relations": ["?"] * n, "bridges": path.path[1:]},
                             "anchors": []})
    else:
        Case.model_validate(data)
    return data, path, pairs
