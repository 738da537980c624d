"""git history -> document versions and views (``chainret catalog history``).

Every commit that changed the records (``git log --reverse [REV] -- PATH``, oldest first) is read
as a snapshot of the tree at that commit (``git ls-tree`` + ``git cat-file --batch``, plain git
through subprocess, nothing fetched) and built into the catalog: a record file that changed
becomes a new document version, and the commit a new view named ``<commit date>-<short hash>``
(UTC committer date), whose description holds the full hash. ``--format csv`` walks one table
(``--path``) instead, rendered at each commit as ``catalog import`` renders it (``--src``, ``--document``). The whole-catalog checks of
``chainret validate`` (every view, every relation) run once, after the last commit, not per commit. ``--view 2026-03-01`` then answers
as of the last commit on or before that day, ``--view <hash>`` as of that commit
(``chainret.catalog.views.as_of_view``).

Incremental: commits already in the catalog at ``--out`` (by the hash in a view's description)
are not read again, so re-running the command after new commits appends only those, and
re-running it with none is a no-op. Earlier views are never rewritten, so traces asked on them
keep verifying.

One header (``--src``) serves every commit: a document it declares that a commit lacks is left
out of that commit's view with a warning naming both (``_absent``), and the build is told which
documents other commits hold (``_documents_ever``), so a document added later is not refused as a
misspelling of its neighbour.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from chainret.authoring.build import BuildResult, catalog_errors, output_paths
from chainret.authoring.header import HEADER_NAME, SourceInvalid
from chainret.catalog.issues import Issue
from chainret.catalog.models import Catalog
from chainret.core.errors import UsageError
from chainret.core.progress import Progress, no_progress
from chainret.sources.codeowners import find as codeowners_found
from chainret.sources.common import issue
from chainret.sources.codeowners import LOCATIONS as CODEOWNERS_LOCATIONS
from chainret.sources.records import Snapshot, default_world, document_path, import_snapshot, read_snapshot
from chainret.core.textsafe import visible

COMMIT_RE = re.compile(r"^commit ([0-9a-f]{40})\b")
_LOG_ENTRY = re.compile(rb"([0-9a-f]{40}|[0-9a-f]{64}) (-?\d+)")  # git log --format="%H %ct"
RECORD_SUFFIXES = (".yaml", ".yml")
TABLE_SUFFIXES = (".csv", ".tsv", ".jsonl", ".ndjson")  # what chainret.authoring.tables reads


@dataclass(frozen=True)
class Commit:
    sha: str
    date: datetime  # committer date, UTC

    @property
    def view_name(self) -> str:
        return f"{self.date.strftime('%Y-%m-%d')}-{self.sha[:7]}"


@dataclass
class HistoryResult:
    result: BuildResult | None  # the last build (None when no commit was new)
    catalog_file: Path
    added: list[tuple[Commit, str]] = field(default_factory=list)  # (commit, view name)
    unchanged: list[Commit] = field(default_factory=list)  # new commits whose records rendered the same
    skipped: list[tuple[Commit, str]] = field(default_factory=list)  # commits whose records did not import
    known: int = 0  # commits already in the catalog
    warnings: list[Issue] = field(default_factory=list)


def _git(repo: Path, *args: str, stdin: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(["git", "-C", str(repo), *args], input=stdin, capture_output=True, check=False, timeout=600)
    except FileNotFoundError:
        raise UsageError("git is not installed (chainret catalog history reads the repository with plain git)") from None
    if done.returncode != 0:
        msg = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UsageError(f"git {args[0]} failed in {repo}: {msg[0] if msg else 'exit ' + str(done.returncode)}")
    return done.stdout


def commits(repo: Path, rev: str | None, path: str) -> list[Commit]:
    """Commits that changed ``path`` (oldest first), in ``rev`` (a range ``A..B`` or a ref) or HEAD."""
    if rev is not None and (rev.startswith("-") or not re.fullmatch(r"[\w./@^~:-]+", rev)):
        raise UsageError(f"--rev {rev!r}: expected a revision or range such as main, v1..v2 or abc123..HEAD")
    out = _git(repo, "log", "-z", "--reverse", "--format=%H %ct", *([rev] if rev else []), "--", path or ".")
    found = []
    for entry in out.split(b"\0"):  # -z: one commit per NUL-ended entry, whatever its message holds
        if not entry.strip():
            continue
        m = _LOG_ENTRY.fullmatch(entry.strip())
        if m is None:
            raise UsageError(f"git log: unexpected output {visible(entry[:120].decode('utf-8', 'replace'))}")
        found.append(Commit(m.group(1).decode("ascii"), datetime.fromtimestamp(int(m.group(2)), tz=UTC)))
    return found


_OID = re.compile(rb"[0-9a-f]{40}|[0-9a-f]{64}")  # SHA-1 or SHA-256 repositories
_FILE_MODES = (b"100644", b"100755")  # a regular file; 120000 is a symbolic link, 160000 a submodule (gitlink)


@dataclass(frozen=True)
class _Entry:
    mode: bytes
    type: bytes
    oid: bytes
    path: str  # as UTF-8; a name that is not UTF-8 is skipped (replacement characters could make two names one)
    utf8: bool = True


def _tree(repo: Path, sha: str) -> list[_Entry]:
    """Every entry of the commit's tree, from ``git ls-tree -r -z --full-tree``.

    NUL-delimited (``-z``): a path is whatever lies between the tab and the NUL, so a newline,
    tab or quote in a file name cannot shift one entry into the next. Submodules are entries too
    (mode 160000, type ``commit``): ``-r`` does not enter them.
    """
    out = []
    for raw in _git(repo, "ls-tree", "-r", "-z", "--full-tree", sha).split(b"\0"):
        if not raw:
            continue
        meta, tab, name = raw.partition(b"\t")
        fields = meta.split(b" ")
        if not tab or len(fields) != 3 or not _OID.fullmatch(fields[2]):
            raise UsageError(f"git ls-tree {sha}: unexpected output {visible(raw[:120].decode('utf-8', 'replace'))}")
        try:
            out.append(_Entry(fields[0], fields[1], fields[2], name.decode("utf-8")))
        except UnicodeDecodeError:
            out.append(_Entry(fields[0], fields[1], fields[2], name.decode("utf-8", "replace"), utf8=False))
    return out


def _blobs(repo: Path, oids: list[bytes]) -> dict[bytes, bytes]:
    """The contents of the blobs ``oids`` (``git cat-file --batch``, one request per object id).

    Only object ids go to git's input, never a path: a file name cannot add a request. Each answer
    is checked to be the object asked for, a blob, with its size; anything else is refused rather
    than read further (a reply out of step would put one file's content under another's name).
    """
    wanted = list(dict.fromkeys(oids))
    if not wanted:
        return {}
    out = _git(repo, "cat-file", "--batch", stdin=b"".join(o + b"\n" for o in wanted))
    found: dict[bytes, bytes] = {}
    pos = 0
    for oid in wanted:
        eol = out.find(b"\n", pos)
        head = out[pos:eol].split(b" ") if eol >= 0 else []
        if len(head) != 3 or head[0] != oid or head[1] != b"blob" or not head[2].isdigit() \
                or eol + 1 + int(head[2]) >= len(out):  # the body and the newline after it must be there
            shown = visible(out[pos:pos + 120].split(b"\n")[0].decode("utf-8", "replace"))
            raise UsageError(f"git cat-file: expected blob {oid.decode()}, found {shown or 'nothing'}")
        size = int(head[2])
        found[oid] = out[eol + 1: eol + 1 + size]
        pos = eol + 1 + size + 1
    return found


def _materialize(repo: Path, c: Commit, dest: Path, wanted: str) -> tuple[list[str], list[Issue]]:
    """Write the record files of commit ``c`` under ``dest``; return every path of the tree (for
    CODEOWNERS) and warnings: a symbolic link or a submodule where a record file would be is
    skipped (its blob is a link target, or it has no blob: neither is a record), and so is a file
    whose name is not UTF-8; the rest is kept."""
    entries = _tree(repo, c.sha)
    prefix = wanted.strip("/") + "/" if wanted.strip("/") not in ("", ".") else ""
    records = [e for e in entries if (e.path.startswith(prefix) and e.path.endswith(RECORD_SUFFIXES))
               or e.path.endswith("CODEOWNERS") or e.path == wanted.strip("/")]  # --format csv: the table itself
    warnings: list[Issue] = []
    files = []
    for e in records:
        if e.type == b"blob" and e.mode in _FILE_MODES and e.utf8:
            files.append(e)
            continue
        what = "a submodule" if e.mode == b"160000" else "a symbolic link" if e.mode == b"120000" else \
            "a file name that is not UTF-8" if e.utf8 is False else f"not a file (mode {e.mode.decode('ascii', 'replace')})"
        warnings.append(issue("not_a_regular_file", f"{c.sha[:7]}:{visible(e.path)}", None,
                              f"{what}, not read as a record (the commit's other files are)", "warning"))
    content = _blobs(repo, [e.oid for e in files])
    for e in files:
        target = dest / e.path
        if not target.resolve().is_relative_to(dest.resolve()):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content[e.oid])
    return [e.path for e in entries], warnings


def _documents_ever(repo: Path, rev: str | None, path: str, formats: list[str]) -> frozenset[str]:
    """The paths of the documents (``backstage/org/users.yaml``, ``codeowners/CODEOWNERS``) that
    some commit of ``rev`` renders: every file a commit there added, changed or removed (``git log
    --name-only --no-renames``; a file no commit of the range touched is in all of its snapshots).

    A header serves every commit: a document it declares that one commit lacks but another holds
    was added later (or removed), so that commit reports it absent and is built; only a path that
    no commit holds can be a misspelling of a neighbour (``chainret.authoring.build.scan``)."""
    specs = [path or "."] + (list(CODEOWNERS_LOCATIONS) if path and "codeowners" in formats else [])
    out = _git(repo, "log", "-z", "--no-renames", "--name-only", "--format=", *([rev] if rev else []), "--", *specs)
    prefix = path.strip("/") + "/" if path.strip("/") not in ("", ".") else ""
    found: set[str] = set()
    for raw in out.split(b"\0"):
        name = raw.strip(b"\n").decode("utf-8", "replace")
        if "backstage" in formats and name.startswith(prefix) and name.endswith(RECORD_SUFFIXES):
            found.add(document_path("backstage", name[len(prefix):]))
        if "codeowners" in formats and name.endswith("CODEOWNERS"):
            found.add(document_path("codeowners", name if path else name[len(prefix):]))
    return frozenset(found)


def _known_commits(cat: Catalog | None) -> set[str]:
    return {m.group(1) for v in (cat.views if cat else []) if (m := COMMIT_RE.match(v.description))}


def history(repo: str | os.PathLike[str], out: str | os.PathLike[str], formats: list[str], *, rev: str | None = None,
            path: str = "", src: Path | None = None, world: str | None = None, strict: bool = False,
            document: str | None = None, progress: Progress = no_progress) -> HistoryResult:
    """Build every new commit that changed the records into the catalog at ``out`` (the caller writes).
    ``progress`` hears of each commit as it is imported (the new ones: those not in the catalog yet).

    ``formats == ["csv"]``: ``path`` is a table file (CSV/TSV/JSON Lines, as ``catalog import``
    reads it), rendered at each commit as ``document`` of the source folder ``src``.
    """
    from chainret.catalog.load import load_catalog

    repo_dir = Path(repo)
    if not repo_dir.is_dir():
        raise UsageError(f"{repo_dir}: not a folder (expected a git repository)")
    top = Path(os.fsdecode(_git(repo_dir, "rev-parse", "--show-toplevel").removesuffix(b"\n")))  # one line, kept whole
    if path and (path.startswith("/") or ".." in Path(path).parts):
        raise UsageError(f"--path {path!r}: expected a path inside the repository, relative to its top")
    table = None
    if "csv" in formats:
        table = _table_setup(formats, path, src, document)
    catalog_file, _ = output_paths(out)
    previous = load_catalog(catalog_file) if catalog_file.exists() else None
    world = world or (previous.world if previous else None) or default_world(formats, src)
    known = _known_commits(previous)
    todo = commits(top, rev, path)
    res = HistoryResult(result=None, catalog_file=catalog_file, known=sum(c.sha in known for c in todo))
    cat = previous
    new = [c for c in todo if c.sha not in known]
    elsewhere = _documents_ever(top, rev, path, formats) if new and table is None and src is not None else frozenset()
    for n, c in enumerate(new):
        progress("importing commits", n, len(new), "commits")
        with tempfile.TemporaryDirectory(prefix="chainret-history-") as tmp:
            root = Path(tmp)
            files, skipped = _materialize(top, c, root, path)
            res.warnings += skipped
            records = root / path if path else root
            if not records.exists():
                res.skipped.append((c, f"no {path} in this commit"))
                continue
            if table is not None:
                try:
                    built = _table_build(table, records, out, c, cat)
                except SourceInvalid as exc:
                    if strict:
                        raise SourceInvalid([_at(c, i, tmp) for i in exc.issues]) from None
                    res.skipped.append((c, f"{len(exc.issues)} problem(s), first: {_at(c, exc.issues[0], tmp)}"))
                    continue
                cat = _record(res, c, built)
                continue
            # CODEOWNERS patterns are relative to the repository's top, whatever --path says
            tree_formats = [f for f in formats if f != "codeowners"] if path else formats
            snap = read_snapshot(records, tree_formats, world, files=files) if tree_formats else Snapshot()
            if path and "codeowners" in formats and codeowners_found(root):
                snap.merge(read_snapshot(root, ["codeowners"], world, files=files))
        res.warnings += [_at(c, w, tmp) for w in snap.warnings]
        try:
            built = import_snapshot(snap, out, world=world, src=src, view=c.view_name, strict=strict, previous=cat,
                                    view_description=f"commit {c.sha} {c.date.isoformat()}", check=False,
                                    elsewhere=elsewhere)
        except SourceInvalid as exc:
            if strict:
                raise SourceInvalid([_at(c, i, tmp) for i in exc.issues]) from None
            res.skipped.append((c, f"{len(exc.issues)} problem(s), first: {_at(c, exc.issues[0], tmp)}"))
            continue
        res.warnings += _absent(c, built, src)
        cat = _record(res, c, built)
    if res.result is not None and res.added:  # the checks of `chainret validate`, once, over every view
        progress("checking the catalog", 0, None, "")
        problems = catalog_errors(res.result.catalog, str(catalog_file))
        if problems:
            raise SourceInvalid(problems)
    return res


def _record(res: HistoryResult, c: Commit, built: BuildResult) -> Catalog:
    res.result = built
    if built.new_view:
        res.added.append((c, built.new_view))
    else:
        res.unchanged.append(c)
    return built.catalog


def _absent(c: Commit, built: BuildResult, src: Path | None) -> list[Issue]:
    """One warning per document the header declares that commit ``c`` lacks: built without it, not skipped."""
    header = str(src / HEADER_NAME) if src is not None else HEADER_NAME
    return [Issue("absent_document", "warning", header, "", "",
                  f"{doc} is declared here but absent from commit {c.sha[:7]} ({c.date.date()}): "
                  f"view {c.view_name} is built without it")
            for doc in built.absent_documents]


def _at(c: Commit, i: Issue, tmp: str) -> Issue:
    """An issue about a file of the temporary checkout, named ``<short hash>:<path>`` (the path in the
    repository, its control characters escaped: a file name is data and may hold a newline)."""
    return Issue(i.code, i.severity, f"{c.sha[:7]}:{visible(_rel(i.file, tmp))}", i.location, i.field, i.message, i.line)


@dataclass(frozen=True)
class _Table:
    src: Path
    document: str
    title: str


def _table_setup(formats: list[str], path: str, src: Path | None, document: str | None) -> _Table:
    if formats != ["csv"]:
        raise UsageError("--format csv walks one table's history: it does not combine with backstage or codeowners")
    if src is None or document is None or not path:
        raise UsageError("--format csv needs --path TABLE (the table's path in the repository), --src FOLDER "
                         "(the header that declares its entities) and --document PATH (where it is rendered)")
    if Path(path).suffix.lower() not in TABLE_SUFFIXES:
        raise UsageError(f"--path {path!r}: expected a table ({', '.join(TABLE_SUFFIXES)})")
    if not document.endswith((".md", ".markdown", ".txt")) or document.startswith(("/", ".")) or ".." in Path(document).parts:
        raise UsageError(f"--document must be a relative .md path inside the folder, e.g. cmdb/ownership.md; found {document!r}")
    return _Table(src, document, Path(path).stem.replace("_", " ").replace("-", " ").capitalize())


def _table_build(table: _Table, file: Path, out: str | os.PathLike[str], c: Commit, previous: Catalog | None) -> BuildResult:
    """The table as it was at commit ``c``, rendered (``catalog import``'s rendering) and built as a new view."""
    from chainret.authoring.build import build
    from chainret.authoring.header import HEADER_NAME, read_header
    from chainret.authoring.tables import read_table, render_table
    from chainret.sources.records import described

    header = read_header(table.src / HEADER_NAME)
    text = render_table(read_table(file, header), title=table.title)
    built = build(table.src, out, view=c.view_name, overrides={table.document: text}, parsed=header, previous=previous,
                  check=False)
    return described(built, f"commit {c.sha} {c.date.isoformat()}")


def _rel(text: str, tmp: str) -> str:
    """A message about a file in the temporary checkout, with the checkout's path dropped."""
    return text.replace(tmp.rstrip("/") + "/", "").replace(tmp, ".")
