"""Source folder -> catalog: ``build(src, out)`` and ``write_build(result)``.

A source folder holds plain text files (``.md``, ``.markdown``, ``.txt``, ``.text``, ``.rst``) and
one header, ``chainret.yaml`` (``chainret.authoring.header``). Each file is one document: the first
folder of its path is the source system (``registry/services.md`` -> source ``registry``,
document ``services.md``; files at the top use the header's ``default_source``). Names starting
with ``.`` or ``_`` are skipped, as are the build outputs.

For every file the builder computes the digest (sha256 of the UTF-8 text, CRLF read as LF) and
finds its relations:

* **clause** support: each line that reads ``REL subject | predicate | object`` is one relation,
  its span that line (without surrounding blanks);
* **prose** support: each header ``relations`` entry names a document and quotes an ordinary
  sentence; the builder finds the span (the quote must occur exactly once, or ``occurrence``
  picks one) and checks that the sentence names both the subject and the object (by canonical
  ID, display name or alias).

Relation IDs are derived from content (``<predicate>-<12 hex>`` of subject, predicate, object,
support kind, document, version, digest, span and quote), so a rebuild gives the same IDs.

**Versions and views.** When ``out`` already holds a catalog, a file whose text, settings and
relations equal an existing version keeps that version (and its relation records); any other
file becomes a new version (``v<n+1>``) of its document. When the set of document versions differs
from the current view, a new view (``v<n>`` or the name given) is added with a larger order and
becomes current; earlier views, versions and relations are never modified, so ``--view`` on an
earlier name answers as before and traces written against it still replay.

Every problem (a quote not found or found twice, an unknown entity, a non-UTF-8 file, a header
typo) is collected into one ``SourceInvalid`` naming file and line; nothing is written then.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import sys
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chainret.authoring.header import (
    HEADER_NAME,
    Header,
    SourceInvalid,
    closest,
    read_header,
    read_utf8,
    source_issue,
)
from chainret.catalog.cases import CaseFile
from chainret.catalog.issues import CatalogFileInvalid, Issue, Severity
from chainret.catalog.models import (
    Catalog,
    Entity,
    Predicate,
    Relation,
    SourceDocument,
    Support,
    View,
    mention_terms,
    mentions,
    next_view_name,
    parse_clause,
    sha256_digest,
    unit_spans,
)
from chainret.catalog.quotes import line_col, line_of, occurrences

TEXT_SUFFIXES = {".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain",
                 ".text": "text/plain", ".rst": "text/x-rst"}
CATALOG_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass
class SourceFile:
    """One file of the folder, read and named."""

    path: str  # relative, with '/'
    file: Path
    source: str
    document: str
    title: str
    representation: str
    visibility: str
    principals: list[str]
    text: str

    @property
    def doc_id(self) -> str:
        return f"{self.source}/{self.document}"

    @property
    def digest(self) -> str:
        return sha256_digest(self.text)


@dataclass(frozen=True, slots=True)  # slots: a large import holds one per relation until the build is done
class Draft:
    """A relation found in a file, before its document version is known."""

    subject: str
    predicate: str
    object: str
    kind: str
    span: tuple[int, int]
    quote: str
    note: str = ""
    expect_invalid: tuple[str, ...] = ()

    def signature(self) -> tuple[Any, ...]:
        return (self.subject, self.predicate, self.object, self.kind, self.span, self.quote, self.expect_invalid, self.note)


@dataclass
class BuildResult:
    """What a build produced and what changed since the previous catalog at ``out``."""

    catalog: Catalog
    catalog_file: Path
    cases: CaseFile | None
    cases_file: Path
    changed: bool  # the catalog differs from the one at ``out``
    view: str  # the current view after the build
    new_view: str | None = None
    new_versions: list[str] = field(default_factory=list)
    kept_versions: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # documents of the previous view with no file now
    notes: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # files that are not text documents
    stale_quotes: dict[int, str] = field(default_factory=dict)  # header relations[i] -> the sentence now quoted
    findings: list[Issue] = field(default_factory=list)  # the notes that name a record (stale quote, absent document)
    absent_documents: list[str] = field(default_factory=list)  # paths the header declares that this snapshot lacks


def output_paths(out: str | os.PathLike[str]) -> tuple[Path, Path]:
    """(catalog file, cases file) for ``--out``: a ``.yaml``/``.yml``/``.json`` file, else a directory."""
    p = Path(out)
    if p.suffix in CATALOG_SUFFIXES:
        cases = p.with_name("cases" + p.suffix if p.stem == "catalog" else f"{p.stem}.cases{p.suffix}")
        return p, cases
    return p / "catalog.yaml", p / "cases.yaml"


# -- reading the folder -------------------------------------------------------------------------------
def read_text(file: Path) -> tuple[str | None, Issue | None]:
    """A document's UTF-8 text with CRLF read as LF, or the issue naming the line of its first bad byte."""
    text, problem = read_utf8(file, "file")
    return (None, problem) if text is None else (text.replace("\r\n", "\n").replace("\r", "\n"), None)


def _title(text: str, fallback: str) -> str:
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return fallback


def scan(src: Path, header: Header, skip: Iterable[Path] = (), overrides: dict[str, str] | None = None,
         elsewhere: Collection[str] = ()) -> tuple[list[SourceFile], list[str], list[Issue]]:
    """The folder's documents in path order, the files skipped, and the problems found.

    A path under ``documents:`` that this snapshot lacks is absent (a note), unless it looks like a
    file that is here and not listed: then it is a typo, an error (a restricted document declared
    under a misspelt path would otherwise be built public). ``elsewhere``: paths that another
    snapshot of the same records holds (a git history's other commits); such a path is a document
    this snapshot does not have yet, or no longer, never a typo, whatever its neighbours are called.
    """
    skip_set = {p.resolve() for p in skip}
    settings = {d.path: d for d in header.documents}
    files: list[SourceFile] = []
    skipped: list[str] = []
    issues: list[Issue] = []
    overrides = dict(overrides or {})
    found: dict[str, Path] = {}
    for file in sorted(src.rglob("*")):
        rel = file.relative_to(src)
        if any(part.startswith((".", "_")) for part in rel.parts) or not file.is_file():
            continue
        if rel.as_posix() == HEADER_NAME or file.resolve() in skip_set:
            continue
        if file.suffix.lower() not in TEXT_SUFFIXES:
            skipped.append(rel.as_posix())
            continue
        found[rel.as_posix()] = file
    for path in overrides:
        found.setdefault(path, src / path)
    listed = {d.path for d in header.documents}
    for i, d in enumerate(header.documents):
        if d.path not in found:
            hint = "" if d.path in elsewhere else typo_of(d.path, set(found) - listed)  # a file the header does not list
            if hint:
                issues.append(Issue("dangling_reference", "error", str(src / HEADER_NAME), f"documents[{i}]", "path",
                                    f"no text file {d.path!r} in {src}{hint}"))
            else:  # one header serves every snapshot: a document this one lacks is reported, not an error
                issues.append(Issue("absent_document", "info", str(src / HEADER_NAME), f"documents[{i}]", "path",
                                    f"{d.path} is absent from this snapshot of {src}: not built"))
    names: dict[str, str] = {}
    for path in sorted(found):
        file = found[path]
        label = str(file)
        if path in overrides:
            text: str | None = overrides[path]
        else:
            text, problem = read_text(file)
            if problem is not None:
                issues.append(problem)
                continue
        assert text is not None
        parts = path.split("/")
        conf = settings.get(path)
        source = (conf.source if conf and conf.source else None) or (parts[0] if len(parts) > 1 else header.default_source)
        document = (conf.document if conf and conf.document else None) or ("/".join(parts[1:]) if len(parts) > 1 else parts[0])
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", source) or not re.fullmatch(r"[^@#\s]+", document):
            issues.append(source_issue("invalid_value", label, None,
                                       f"cannot name a document after this path: folder and file names may use no spaces, '@' or '#' "
                                       f"(set source/document for it under documents: in {HEADER_NAME})"))
            continue
        doc_id = f"{source}/{document}"
        if doc_id in names:
            issues.append(source_issue("duplicate_id", label, None, f"document {doc_id} is also {names[doc_id]}"))
            continue
        names[doc_id] = path
        files.append(SourceFile(
            path=path, file=file, source=source, document=document,
            title=(conf.title if conf and conf.title else None) or _title(text, document),
            representation=TEXT_SUFFIXES.get(Path(path).suffix.lower(), "text/markdown"),
            visibility=conf.visibility if conf else "public",
            principals=list(conf.principals) if conf else [],
            text=text,
        ))
    return files, skipped, issues


def typo_of(path: str, present: set[str]) -> str:
    """`` (did you mean 'x'?)`` when ``path`` is a near miss of one of the ``present`` paths, else ``""``.

    The paths are compared on what is left once the folders they share are dropped
    (``oncall.md`` with ``on-call.md``; ``org/contractors.yaml`` with ``org/groups.yaml`` is
    ``contractors.yaml`` with ``groups.yaml``, no near miss): compared whole, a long shared folder
    made any sibling look like a typo, and a document a header declares for a later snapshot was
    refused as a misspelling of its neighbour."""
    parts = path.split("/")
    for other in sorted(present):
        theirs = other.split("/")
        shared = 0
        while shared < min(len(parts), len(theirs)) - 1 and parts[shared] == theirs[shared]:
            shared += 1
        if closest("/".join(parts[shared:]), ["/".join(theirs[shared:])]):
            return f" (did you mean {other!r}?)"
    return ""


# -- relations -----------------------------------------------------------------------------------------
class _Types:
    """Entity and predicate lookups for checking a relation where it is written."""

    def __init__(self, entities: list[Entity], predicates: list[Predicate]) -> None:
        self.entities = {e.id: e for e in entities}
        self.predicates = {p.name: p for p in predicates}
        self._types = {p.name: (p.domain_types, p.range_types) for p in predicates}

    def problems(self, subject: str, predicate: str, obj: str) -> list[str]:
        subj, ob, types = self.entities.get(subject), self.entities.get(obj), self._types.get(predicate)
        if subj is not None and ob is not None and types is not None and subj.type in types[0] and ob.type in types[1]:
            return []  # (a relation of a large import: the words below are for the few that are wrong)
        out = []
        for role, value in (("subject", subject), ("object", obj)):
            if value not in self.entities:
                out.append(f"unknown {role} {value!r}: declare it under entities: in {HEADER_NAME}{closest(value, set(self.entities))}")
        pred = self.predicates.get(predicate)
        if pred is None:
            out.append(f"unknown predicate {predicate!r}{closest(predicate, set(self.predicates))}")
            return out
        subj, ob = self.entities.get(subject), self.entities.get(obj)
        if subj is not None and subj.type not in pred.domain_types:
            out.append(f"{predicate!r} starts at a {pred.domain}, but {subject} is a {subj.type}")
        if ob is not None and ob.type not in pred.range_types:
            out.append(f"{predicate!r} ends at a {pred.range}, but {obj} is a {ob.type}")
        return out


def clause_drafts(sf: SourceFile, types: _Types) -> tuple[list[Draft], list[Issue]]:
    """One relation per ``REL s | p | o`` line of a file."""
    drafts: list[Draft] = []
    issues: list[Issue] = []
    pos = 0
    for n, line in enumerate(sf.text.split("\n"), 1):
        body = line.strip()
        if body.startswith("REL ") or body == "REL":
            start = pos + (len(line) - len(line.lstrip()))
            parsed = parse_clause(body)
            if parsed is None:
                issues.append(source_issue("malformed_clause", sf.file, n,
                                           f"a clause line must read 'REL subject | predicate | object' (one space either side of each '|'), found {body!r}"))
            else:
                problems = types.problems(*parsed)
                issues.extend(source_issue("invalid_clause", sf.file, n, p) for p in problems)
                if not problems:
                    # interned: an entity's ID is cited by many relations (one string, not one per clause)
                    subject, predicate, obj = (sys.intern(x) for x in parsed)
                    drafts.append(Draft(subject, predicate, obj, "clause", (start, start + len(body)), body))
        pos += len(line) + 1
    return drafts, issues


def nearest_text(text: str, quote: str) -> str:
    """The passage of ``text`` most like ``quote``, with its line (for a 'quote not found' error)."""
    target = " ".join(quote.split())
    best, best_ratio, best_line = "", 0.0, 0
    offset = 0
    for n, line in enumerate(text.split("\n"), 1):
        for piece in {line.strip(), *re.split(r"(?<=[.!?])\s+", line.strip())}:
            if not piece:
                continue
            ratio = difflib.SequenceMatcher(None, target, piece, autojunk=False).ratio()
            if ratio > best_ratio:
                best, best_ratio, best_line = piece, ratio, n
        offset += len(line) + 1
    if not best:
        return "the document has no text"
    shown = best if len(best) <= 160 else best[:157] + "..."
    return f"nearest passage (line {best_line}): {shown!r}"


def prose_drafts(header: Header, files: list[SourceFile], types: _Types, header_file: Path,
                 elsewhere: Collection[str] = ()) -> tuple[dict[str, list[Draft]], list[Issue], ProseOutcome]:
    """The header's prose relations, located in their documents (``chainret.authoring.prose``).

    Errors and notes (``info``: a stale quote whose sentence was found, a document absent from this
    snapshot) come back as issues; ``ProseOutcome`` says which (subject, object) pairs failed or
    are absent, for the same round's case check. A document neither here nor declared is a typo
    when it looks like one that is here (``typo_of``), unless another snapshot holds it (``elsewhere``)."""
    from chainret.authoring.prose import NotLocated, locate
    from chainret.catalog.parse import with_lines

    by_path = {sf.path: sf for sf in files}
    absent_paths = {d.path for d in header.documents if d.path not in by_path}
    out: dict[str, list[Draft]] = {}
    issues: list[Issue] = []
    outcome = ProseOutcome(absent_documents=sorted(absent_paths))

    for i, pr in enumerate(header.relations):
        said = len(issues)
        try:
            fact = f"{pr.subject} {pr.predicate} {pr.object}"

            def err(fld: str, message: str, code: str = "invalid_quote", severity: Severity = "error", i: int = i) -> None:
                issues.append(Issue(code, severity, str(header_file), f"relations[{i}]", fld, message))

            sf = by_path.get(pr.document)
            if sf is None:
                # declared under documents: (or like no file here): absent from this snapshot; like a file here: a typo
                hint = "" if pr.document in absent_paths or pr.document in elsewhere else typo_of(pr.document, set(by_path))
                if hint:
                    err("document", f"no text document {pr.document!r} in the folder{hint}", "dangling_reference")
                else:
                    err("document", f"{fact}: its document {pr.document} is absent from this snapshot; not built",
                        "absent_document", "info")
                    outcome.absent[(pr.subject, pr.object)] = pr.document
                    outcome.absent_documents = sorted({*outcome.absent_documents, pr.document})
                continue
            problems = types.problems(pr.subject, pr.predicate, pr.object)
            for p in problems:
                err("subject", p, "invalid_relation")
            if problems:
                continue
            starts = occurrences(sf.text, pr.quote) if pr.quote is not None else []
            if not starts and (pr.quote is None or "prose_mismatch" not in pr.expect_invalid):
                try:
                    found = locate(sf.text, pr.document, pr.quote, pr.occurrence, types.entities[pr.subject],
                                   types.entities[pr.object], list(types.entities.values()))
                except NotLocated as exc:
                    err(exc.field, f"{fact}: {exc.message}")
                    continue
                if found.note:
                    err("quote", f"{fact}: {found.note}", "stale_quote", "info")
                    outcome.stale[i] = found.quote
                out.setdefault(sf.path, []).append(Draft(pr.subject, pr.predicate, pr.object, "prose", found.span, found.quote,
                                                         pr.note, tuple(pr.expect_invalid)))
                continue
            assert pr.quote is not None
            if not starts:
                err("quote", f"the quote does not occur in {pr.document}; {nearest_text(sf.text, pr.quote)}")
                continue
            if pr.occurrence is not None:
                if pr.occurrence > len(starts):
                    err("occurrence", f"the quote occurs {len(starts)} time(s) in {pr.document}, not {pr.occurrence}")
                    continue
                start = starts[pr.occurrence - 1]
            elif len(starts) > 1:
                at = "; ".join(f"{line_col(sf.text, s)} (offset {s})" for s in starts)
                err("quote", f"the quote occurs {len(starts)} times in {pr.document}: at {at}; "
                             "quote more of the sentence, or add occurrence: N (1 = the first)")
                continue
            else:
                start = starts[0]
            span = (start, start + len(pr.quote))
            if not any(a <= span[0] and span[1] <= b for a, b in unit_spans(sf.text)):
                err("quote", f"the quote crosses a blank line in {pr.document} (line {line_of(sf.text, start)}); "
                             "a quote must lie within one paragraph")
                continue
            missing = [(role, types.entities[getattr(pr, role)]) for role in ("subject", "object")
                       if not mentions(pr.quote, types.entities[getattr(pr, role)])]
            if missing and "prose_mismatch" not in pr.expect_invalid:
                for role, ent in missing:
                    names = ", ".join(repr(t) for t in mention_terms(ent))
                    err("quote", f"the quote does not mention the {role} {ent.id} (by any of {names}); "
                                 "prose support must name both ends of the relation")
                continue
            out.setdefault(sf.path, []).append(Draft(pr.subject, pr.predicate, pr.object, "prose", span, pr.quote,
                                                     pr.note, tuple(pr.expect_invalid)))
        finally:  # every way out of the loop body: an error said here marks the pair failed
            if any(x.severity == "error" for x in issues[said:]):
                outcome.failed.setdefault((pr.subject, pr.object), i)

    return out, with_lines(issues, header_file), outcome


@dataclass
class ProseOutcome:
    """Which prose relations (by subject, object) failed (-> header index) or are absent (-> document)."""

    failed: dict[tuple[str, str], int] = field(default_factory=dict)
    absent: dict[tuple[str, str], str] = field(default_factory=dict)
    absent_documents: list[str] = field(default_factory=list)  # declared by the header, not in this snapshot
    stale: dict[int, str] = field(default_factory=dict)  # header relation index -> the sentence that now supports it


def relation_id(d: Draft, doc: SourceDocument) -> str:
    """``<predicate>-<12 hex>``: a hash of the relation's content and the document version it cites."""
    key = "\x1f".join([d.subject, d.predicate, d.object, d.kind, doc.ref, doc.digest, f"{d.span[0]}:{d.span[1]}", d.quote])
    return f"{d.predicate}-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:12]}"


# Every field is set, so every record shares one fields-set (pydantic gives each validated instance
# its own set: 728 bytes twice per relation, a third of a 245k-relation import's memory).
# (A set, not a frozenset: ``model_copy(update=...)`` adds to the copy's, ``TrustedModel.__copy__``.)
_SUPPORT_FIELDS = set(Support.model_fields)
_RELATION_FIELDS = set(Relation.model_fields)


def _relation(d: Draft, doc: SourceDocument) -> Relation:
    """The record of a draft in a document version, built without re-validation: every value comes
    from a validated document and a parsed clause or checked quote, and the span is ordered."""
    support = Support.model_construct(_SUPPORT_FIELDS, source=doc.source, document=doc.document, version=doc.version,
                                      representation=doc.representation, digest=doc.digest, span=d.span, quote=d.quote,
                                      kind=d.kind)  # type: ignore[arg-type]
    return Relation.model_construct(_RELATION_FIELDS, id=relation_id(d, doc), subject=d.subject,
                                    predicate=d.predicate, object=d.object, support=support, note=d.note,
                                    expect_invalid=list(d.expect_invalid))


def _existing_signature(rels: list[Relation]) -> list[tuple[Any, ...]]:
    return sorted((r.subject, r.predicate, r.object, r.support.kind, tuple(r.support.span), r.support.quote,
                   tuple(r.expect_invalid), r.note) for r in rels)


def _next_version(versions: list[str]) -> str:
    numbers = [int(m.group(1)) for v in versions if (m := re.fullmatch(r"v(\d+)", v))]
    n = max(numbers, default=0) + 1
    while f"v{n}" in versions:
        n += 1
    return f"v{n}"


# -- the build ---------------------------------------------------------------------------------------
def check_view_name(name: str) -> str:
    """``name`` if it may name a view, else a ``UsageError`` (exit 2) that shows the allowed form.

    The rule lives on ``View.name`` (``chainret.catalog.models``); a ``View`` is built with the name
    so that rule is the only one, and its pattern is quoted from pydantic's error rather than restated.
    Without this, ``--view 'a b'`` failed only after the whole build, as a pydantic traceback.
    """
    from pydantic import ValidationError

    from chainret.core.errors import UsageError
    from chainret.core.textsafe import short_repr

    try:
        View(name=name, documents=[])
    except ValidationError as exc:
        ctx = next((e.get("ctx") or {} for e in exc.errors() if e["loc"] == ("name",)), {})
        form = f"match {ctx['pattern']}" if "pattern" in ctx else "be a string"
        raise UsageError(f"--view {short_repr(name)} is not a view name: a view name must {form} "
                         "(no spaces or markup), e.g. v3 or 2026-03-01") from None
    return name


def build(src: str | os.PathLike[str], out: str | os.PathLike[str], *, view: str | None = None,
          overrides: dict[str, str] | None = None, fresh: bool = False, parsed: Header | None = None,
          previous: Catalog | None = None, check: bool = True, elsewhere: Collection[str] = ()) -> BuildResult:
    """Build the catalog (and cases) of a source folder against the catalog already at ``out``.

    ``overrides`` maps a relative path to a text used instead of the file (``catalog import``
    renders a table this way before anything is written). ``fresh`` ignores the catalog at ``out``;
    ``parsed`` is the header already read (else it is read from the folder); ``previous`` is the
    catalog to add to, already in memory (``chainret.sources.history`` chains commits this way);
    ``check=False`` leaves out the whole-catalog checks of ``chainret validate`` (every view, every
    relation: a history checks once, after its last commit, instead of after each). ``elsewhere``:
    document paths another snapshot of the same records holds (``scan``): absent here, not typos.
    Raises ``SourceInvalid`` (every problem, by file and line) or ``UsageError``.
    """
    from chainret.catalog.load import load_catalog
    from chainret.catalog.references import reference_issues
    from chainret.core.errors import UsageError

    if view is not None:
        check_view_name(view)  # before anything is read or written: the name is refused even when no view is added
    src_dir = Path(src)
    if not src_dir.is_dir():
        raise UsageError(f"{src_dir}: not a folder (expected a source folder with {HEADER_NAME})")
    header_file = src_dir / HEADER_NAME
    header = parsed if parsed is not None else read_header(header_file)
    parsed = None  # (``header`` holds it; its entities are let go once they are the catalog's: see below)
    catalog_file, cases_file = output_paths(out)
    if previous is None and catalog_file.exists() and not fresh:
        try:
            previous = load_catalog(catalog_file)
        except CatalogFileInvalid as exc:
            raise SourceInvalid([Issue("unreadable_output", "error", str(catalog_file), "", "",
                                       "the catalog already at --out does not load, so versions cannot be added to it "
                                       f"(fix it, or move it away): {exc.issues[0]}")]) from None
    if previous is not None:
        if previous.world != header.world:
            raise UsageError(f"{catalog_file} holds world {previous.world!r}, but {header_file} says {header.world!r}; "
                             "choose another --out")
    files, skipped, issues = scan(src_dir, header, skip=(catalog_file, cases_file), overrides=overrides, elsewhere=elsewhere)
    entities = [e.entity() for e in header.entities]
    types = _Types(entities, list(header.predicates))
    drafts: dict[str, list[Draft]] = {}
    for sf in files:
        found, problems = clause_drafts(sf, types)
        drafts[sf.path] = found
        issues.extend(problems)
    prose, problems, outcome = prose_drafts(header, files, types, header_file, elsewhere)
    issues.extend(problems)
    for path, extra in prose.items():
        drafts[path] = [*drafts[path], *extra]
    findings = [i for i in issues if i.severity != "error"]
    issues = [i for i in issues if i.severity == "error"]
    if issues:  # the cases the failed relations leave stale are said in this round too
        from chainret.catalog.parse import with_lines

        issues += _stale_cases(header, files, drafts, previous, view, catalog_file, cases_file, header_file, outcome)
        raise SourceInvalid(with_lines(issues, header_file))

    del types  # its lookups: a large import's entities are held once, by the catalog
    # The header's own records of its entities go too (what is left of it is read for its cases): a
    # 50,000-component import held each of its 72,500 entities twice while it made its relations.
    header = header.model_copy(update={"entities": []})
    result = _assemble(header, files, drafts, previous, view, catalog_file, cases_file, entities)
    del drafts, prose, files, entities  # (consumed: the relation records hold what the checks need)
    result.skipped = skipped
    result.notes[:0] = [str(i) for i in findings]
    result.findings = findings
    result.absent_documents = outcome.absent_documents
    result.stale_quotes = dict(outcome.stale)
    problems = reference_issues(result.catalog, str(catalog_file))
    problems += catalog_errors(result.catalog, str(catalog_file)) if check else []
    if problems:
        raise SourceInvalid(problems)
    from chainret.authoring.cases import header_cases

    result.cases = header_cases(header, result.catalog, header_file, cases_file, catalog_file,
                                failed=outcome.failed, absent=outcome.absent,
                                absent_documents=outcome.absent_documents, notes=result.notes)
    return result


def _stale_cases(header: Header, files: list[SourceFile], drafts: dict[str, list[Draft]], previous: Catalog | None,
                 view: str | None, catalog_file: Path, cases_file: Path, header_file: Path, outcome: ProseOutcome) -> list[Issue]:
    """The header cases that would fail on what did build: said beside the errors that cause them,
    so one round names both the relation and the case to update."""
    from chainret.authoring.cases import header_cases
    from chainret.core.errors import CatalogInvalid, UsageError

    if not header.cases:
        return []
    try:
        partial = _assemble(header, files, drafts, previous, view, catalog_file, cases_file)
        header_cases(header, partial.catalog, header_file, cases_file, catalog_file, failed=outcome.failed,
                     absent=outcome.absent, absent_documents=outcome.absent_documents, notes=[])
    except SourceInvalid as exc:
        return [i for i in exc.issues if i.location.startswith("cases[")]
    except (CatalogInvalid, UsageError, ValueError):  # the partial build is not a catalog: the errors above say why
        return []
    return []


def _assemble(header: Header, files: list[SourceFile], drafts: dict[str, list[Draft]], previous: Catalog | None,
              view_name: str | None, catalog_file: Path, cases_file: Path, entities: list[Entity] | None = None) -> BuildResult:
    """The catalog of these files' drafts added to ``previous``. ``drafts`` is consumed (each file's
    entry is removed once its records are made: a large import held them all until the end)."""
    from chainret.core.errors import UsageError

    prev_docs = list(previous.documents) if previous else []
    prev_rels = list(previous.relations) if previous else []
    prev_views = list(previous.views) if previous else []
    versions: dict[str, list[SourceDocument]] = {}
    for d in prev_docs:
        versions.setdefault(d.doc_id, []).append(d)
    rels_by_ref: dict[str, list[Relation]] = {}
    for r in prev_rels:
        rels_by_ref.setdefault(r.support.doc_ref, []).append(r)

    documents, relations = list(prev_docs), list(prev_rels)
    snapshot: list[str] = []
    new_versions: list[str] = []
    kept: list[str] = []
    for sf in files:  # (each file's drafts are let go once its records are made)
        mine = sorted(drafts.pop(sf.path), key=lambda d: (d.span, d.kind, d.subject, d.predicate, d.object))
        earlier = versions.get(sf.doc_id, [])
        want = sorted(d.signature() for d in mine) if earlier else []  # (what an earlier version's records must equal)
        match = next((d for d in earlier
                      if d.text == sf.text and d.title == sf.title and d.representation == sf.representation
                      and d.visibility == sf.visibility and list(d.principals) == sf.principals
                      and _existing_signature(rels_by_ref.get(d.ref, [])) == want), None)
        if match is not None:
            snapshot.append(match.ref)
            kept.append(match.ref)
            continue
        version = _next_version([d.version for d in versions.get(sf.doc_id, [])])
        doc = SourceDocument(source=sf.source, document=sf.document, version=version, representation=sf.representation,
                             title=sf.title, text=sf.text, digest=sf.digest, visibility=sf.visibility,  # type: ignore[arg-type]
                             principals=sf.principals)
        documents.append(doc)
        versions.setdefault(sf.doc_id, []).append(doc)
        relations.extend(_relation(d, doc) for d in mine)
        snapshot.append(doc.ref)
        new_versions.append(doc.ref)

    current = previous.current_view if previous else None
    notes: list[str] = []
    views = list(prev_views)
    new_view = None
    in_snapshot = {ref.rpartition("@")[0] for ref in snapshot}
    dropped = [ref for ref in (current.documents if current else []) if ref.rpartition("@")[0] not in in_snapshot]
    if current is None or set(current.documents) != set(snapshot):
        taken = {v.name for v in views}
        if view_name is not None and view_name in taken:
            raise UsageError(f"view {view_name!r} already exists in {catalog_file}; views are never rewritten, choose a new name")
        name = view_name if view_name is not None else next_view_name([v.name for v in views])
        marked = any(v.current for v in views)
        if marked:  # a hand-marked current view would outrank the new one: move the mark
            views = [v.model_copy(update={"current": False}) if v.current else v for v in views]
            notes.append("the 'current' mark moved from an earlier view to the new one")
        order = max((v.order for v in views), default=0) + 1
        desc = f"built from {len(snapshot)} documents ({len(new_versions)} new versions)"
        views.append(View(name=name, order=order, current=marked, documents=snapshot, description=desc))
        new_view = name
    elif view_name is not None:
        notes.append(f"nothing changed since view {current.name!r}, so no view {view_name!r} was added")

    # Entities and predicates are catalog-wide: the header's, plus any an earlier version still uses.
    entities = list(entities) if entities is not None else [e.entity() for e in header.entities]
    known = {e.id for e in entities}
    for e in previous.entities if previous else []:
        if e.id not in known and any(e.id in (r.subject, r.object) for r in prev_rels):
            entities.append(e)
            known.add(e.id)
            notes.append(f"entity {e.id} is no longer in the header but earlier versions cite it; kept")
    predicates = list(header.predicates)
    pnames = {p.name for p in predicates}
    for p in previous.predicates if previous else []:
        if p.name not in pnames and any(r.predicate == p.name for r in prev_rels):
            predicates.append(p)
            notes.append(f"predicate {p.name} is no longer in the header but earlier versions use it; kept")
    catalog = Catalog(world=header.world, description=header.description, entities=entities,
                      predicates=predicates, documents=documents, relations=relations, views=views,
                      patterns=list(header.patterns))
    changed = previous is None or catalog.digest() != previous.digest()
    final = catalog.current_view
    return BuildResult(catalog=catalog, catalog_file=catalog_file, cases=None, cases_file=cases_file, changed=changed,
                       view=final.name if final else "", new_view=new_view, new_versions=new_versions,
                       kept_versions=kept, dropped=dropped, notes=notes)


def catalog_errors(catalog: Catalog, file: str) -> list[Issue]:
    from chainret.catalog.checks import check_catalog

    return [i for i in check_catalog(catalog, file) if i.severity == "error"]
