"""CODEOWNERS -> entities and a rendered document (``catalog import --format codeowners``).

GitHub and GitLab syntax: one rule per line, ``<path pattern> <owner> ...``; owners are ``@user``,
``@org/team`` (GitLab: ``@group/subgroup``) or e-mail addresses; ``#`` starts a comment (at the
start of a line, or after a blank); ``\\#`` and ``\\ `` escape a literal ``#`` or blank in a
pattern. GitLab sections (``[Section]``, ``^[Optional]``, ``[Section][2]``, with default owners
after the header) group rules. Patterns follow gitignore rules: a leading or inner ``/`` anchors
the pattern at the tree's root, otherwise it matches at any depth; ``*`` stays within one folder,
``**`` crosses folders, ``?`` is one character, a trailing ``/`` matches a folder's contents, and a
pattern that names a folder covers everything below it, but one whose last part has a ``*``
names files (``docs/*`` is not ``docs/a/b.md``, as GitHub documents). The **last** matching rule wins (GitLab:
the last one within each section; a path's owners are then those of every section).

Entities: each rule's pattern (type ``rule``; one per section and pattern; a pattern repeated in
one section is governed by its last line, the earlier ones are marked shadowed), each owner (type
``codeowner``: ``team.<org>.<team>``, ``user.<name>``, ``email.<slug>``; never merged with a
Backstage Group or User, whose references differ), and each file of the tree (type ``path``,
named by its path). Relations, in a rendered document whose paragraph per
rule quotes the rule line verbatim with its line number: ``code_owned_by`` / ``code_owner_of``
between the rule and each owner (``many``: a rule has several owners, unlike Backstage's one
``spec.owner``), and ``governed_by`` / ``governs`` between each file and the rule that last
matches it (computed from the tree's file list at this version; GitLab: one per section).
So "Who owns src/payments/api.py?" resolves the path to its ``path`` entity, and the two hops go
path -> rule (``governed_by``) -> owner (``code_owned_by``).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from chainret.catalog.issues import Issue
from chainret.catalog.models import clause_text
from chainret.sources.common import EntityRecord
from chainret.sources.common import issue as _issue

LOCATIONS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS", ".gitlab/CODEOWNERS")  # GitHub's order, then GitLab's
MAX_CODEOWNERS_BYTES = 3 * 1024 * 1024  # GitHub ignores a CODEOWNERS file over 3 MB
SECTION_RE = re.compile(r"^(\^)?\[([^\]]+)\](?:\[(\d+)\])?(?:\s+(.*))?$")
OWNER_RE = re.compile(r"^(@@?[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*|[^@\s]+@[^@\s]+\.[^@\s]+)$")
PATH_TYPE = "path"
RULE_TYPE = "rule"
OWNER_TYPE = "codeowner"


@dataclass
class Rule:
    line: int
    section: str
    pattern: str
    owners: list[str]
    text: str  # the line as written (stripped)
    shadowed_by: int | None = None


@dataclass
class OwnersFile:
    rel: str  # relative to the tree's root
    text: str
    rules: list[Rule] = field(default_factory=list)
    warnings: list[Issue] = field(default_factory=list)
    errors: list[Issue] = field(default_factory=list)


def _tokens(line: str) -> list[str]:
    """Split on unescaped blanks, stop at an unescaped ``#`` that starts a token; unescape ``\\ `` and ``\\#``."""
    out: list[str] = []
    cur = ""
    i = 0
    while i < len(line):
        c = line[i]
        if c == "\\" and i + 1 < len(line):
            cur += line[i + 1]
            i += 2
            continue
        if c.isspace():
            if cur:
                out.append(cur)
                cur = ""
        elif c == "#" and not cur:
            break
        else:
            cur += c
        i += 1
    if cur:
        out.append(cur)
    return out


def parse(text: str, label: str) -> OwnersFile:
    """The rules of a CODEOWNERS text, with problems (by line) as warnings: a bad owner is skipped."""
    of = OwnersFile(rel=label, text=text)
    section, defaults = "", []
    last_in_section: dict[tuple[str, str], Rule] = {}
    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = SECTION_RE.match(line)
        if m and not line.startswith("\\"):
            section = m.group(2).strip()
            defaults = _tokens(m.group(4) or "")
            continue
        toks = _tokens(line)
        if not toks:
            continue
        pattern, owners = toks[0], toks[1:] or list(defaults)
        good = []
        for o in owners:
            if OWNER_RE.match(o):
                good.append(o)
            else:
                of.warnings.append(_issue("invalid_owner", label, n, f"{o!r} is not an owner (@user, @org/team or an "
                                          "e-mail address): skipped", "warning"))
        rule = Rule(n, section, pattern, good, line)
        prev = last_in_section.get((section, pattern))
        if prev is not None:
            prev.shadowed_by = n
        last_in_section[(section, pattern)] = rule
        of.rules.append(rule)
    return of


@lru_cache(maxsize=4096)
def pattern_regex(pattern: str) -> re.Pattern[str]:
    """gitignore-style pattern -> regex over '/'-separated paths relative to the root."""
    dir_only = pattern.endswith("/")
    p = pattern.strip("/")
    anchored = pattern.startswith("/") or "/" in p
    rx, i = "", 0
    while i < len(p):
        if p.startswith("**/", i):
            rx, i = rx + "(?:.*/)?", i + 3
        elif p.startswith("/**", i) and i + 3 == len(p):
            rx, i = rx + "/.*", i + 3
        elif p.startswith("**", i):
            rx, i = rx + ".*", i + 2
        elif p[i] == "*":
            rx, i = rx + "[^/]*", i + 1
        elif p[i] == "?":
            rx, i = rx + "[^/]", i + 1
        elif p[i] == "[" and "]" in p[i + 1:]:
            j = p.index("]", i + 1)
            body = p[i + 1:j].replace("\\", "\\\\")
            rx, i = rx + "[" + ("^" + body[1:] if body.startswith("!") else body) + "]", j + 1
        else:
            rx, i = rx + re.escape(p[i]), i + 1
    last = p.rsplit("/", 1)[-1]
    # A folder's pattern covers everything below it; a last segment with a wildcard names files only
    # (GitHub: ``docs/*`` matches docs/getting-started.md, not docs/build-app/troubleshooting.md).
    tail = "/.*" if dir_only else ("" if "*" in last and "**" not in last else "(?:/.*)?")
    return re.compile(("^" if anchored else "^(?:.*/)?") + (rx if p else "") + tail + "$" if p else "^.*$")


def governing(rules: list[Rule], path: str) -> list[Rule]:
    """The rule that last matches ``path`` in each section (a rule without owners un-owns the path)."""
    best: dict[str, Rule] = {}
    for r in rules:
        if r.shadowed_by is None and pattern_regex(r.pattern).match(path):
            best[r.section] = r
    return [r for r in best.values() if r.owners]


def _slug(text: str) -> str:
    s = re.sub(r"[^a-z0-9_.-]+", "-", text.lower()).strip("-_.")
    if s != text or not s:
        s = (s + "-" if s else "") + hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    return s


def rule_id(world: str, r: Rule) -> str:
    return f"{RULE_TYPE}:{world}:{_slug((r.section + ' ' if r.section else '') + r.pattern)}"


def owner_id(world: str, owner: str) -> str:
    if owner.startswith("@"):
        body = owner.lstrip("@")
        kind = "team" if "/" in body else "user"
        return f"{OWNER_TYPE}:{world}:{kind}.{_slug(body.lower().replace('/', '.'))}"
    return f"{OWNER_TYPE}:{world}:email.{_slug(owner.lower())}"


def path_id(world: str, path: str) -> str:
    return f"{PATH_TYPE}:{world}:{_slug(path)}"


def render(of: OwnersFile, files: list[str], world: str) -> tuple[str, dict[str, EntityRecord]]:
    """The rendered document and the entities it names (rules, owners, governed files)."""
    entities: dict[str, EntityRecord] = {}
    governed: dict[int, list[str]] = {}
    files = [f for f in files if f.isprintable()]
    for path in files:
        for r in governing(of.rules, path):
            governed.setdefault(r.line, []).append(path)
    digest = hashlib.sha256(of.text.encode("utf-8")).hexdigest()
    out = [f"# CODEOWNERS: {of.rel}", "",
           f"Imported by chainret catalog import --format codeowners from {of.rel} (sha256:{digest}, "
           f"{len(of.text.splitlines())} lines, {len(files)} files in the tree): one paragraph per rule; the rule line is quoted "
           "with its line number, then its owners' clauses, then the files whose last matching rule it is.", ""]
    for r in of.rules:
        rid = rule_id(world, r)
        name = f"[{r.section}] {r.pattern}" if r.section else r.pattern
        entities.setdefault(rid, EntityRecord(rid, name, (r.pattern,) if name != r.pattern else (),
                                       f"CODEOWNERS rule {r.pattern!r}" + (f" in section {r.section!r}" if r.section else "")))
        para = [f"Rule {name}: {of.rel} line {r.line}" + (f", section {r.section}" if r.section else "") + ".",
                f"line {r.line}: `{r.text}`"]
        if r.shadowed_by is not None:
            para.append(f"(shadowed by line {r.shadowed_by}, the same pattern later: no relation)")
        elif not r.owners:
            para.append("(no owners: the paths it matches last have no code owner)")
        else:
            for o in r.owners:
                oid = owner_id(world, o)
                entities.setdefault(oid, EntityRecord(oid, o, tuple(a for a in {o.lstrip("@")} if a != o), f"code owner {o}"))
                para.append(clause_text(rid, "code_owned_by", oid))
                para.append(clause_text(oid, "code_owner_of", rid))
            for path in governed.get(r.line, []):
                pid = path_id(world, path)
                entities.setdefault(pid, EntityRecord(pid, path, (), f"file {path}"))
                para.append(f"file {path}: last matching rule")
                para.append(clause_text(pid, "governed_by", rid))
                para.append(clause_text(rid, "governs", pid))
        out.extend([*para, ""])
    return "\n".join(out), entities


def find(root: Path) -> list[str]:
    """Where the CODEOWNERS file of a tree is (GitHub's and GitLab's locations, first found)."""
    return [loc for loc in LOCATIONS if (root / loc).is_file()][:1]


def tree_files(root: Path) -> list[str]:
    """Files of a working tree, '/'-separated, without the .git folder."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if p.is_file() and ".git" not in p.relative_to(root).parts)
