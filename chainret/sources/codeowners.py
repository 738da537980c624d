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
the last one within each section; a path's owners are then those of every section). A line GitHub
rejects (``!`` negation, a ``[ ]`` range, the pattern ``/``) is reported with its line and column and
left out (``pattern_problem``); matching is a bounded segment automaton (``PathPattern``,
``RuleIndex``); a CODEOWNERS file reached through a link out of the tree is never read (``read``).

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
from chainret.sources.common import EntityRecord, NameRecord, inside_tree
from chainret.sources.common import issue as _issue

LOCATIONS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS", ".gitlab/CODEOWNERS")  # GitHub's order, then GitLab's
MAX_CODEOWNERS_BYTES = 3 * 1024 * 1024  # GitHub ignores a CODEOWNERS file over 3 MB
SECTION_RE = re.compile(r"^(\^)?\[([^\]]+)\](?:\[(\d+)\])?(?:\s+(.*))?$")
OWNER_RE = re.compile(r"^(@@?[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*|[^@\s]+@[^@\s]+\.[^@\s]+)$")
# The line a rule with no (valid) owners gets in its rendered paragraph (``chainret catalog coverage`` lists them).
NO_OWNERS_NOTE = "(no owners: the paths it matches last have no code owner)"
# The head of the paragraph that lists the files no rule matches (known, with no code owner).
UNMATCHED_HEAD = "Files no rule matches:"
# Stands for "the CODEOWNERS document itself" in an entity's sources; the importer puts the document's path there.
UNMATCHED_SOURCE = "<codeowners>"
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
    """Split on unescaped blanks, stop at an unescaped ``#`` that starts a token; unescape ``\\ `` and ``\\#``.

    Any other escape (``\\*``, ``\\?``, ``\\[``) is kept as written: the matcher reads it as that
    character taken literally, as gitignore does."""
    out: list[str] = []
    cur = ""
    i = 0
    while i < len(line):
        c = line[i]
        if c == "\\" and i + 1 < len(line):
            cur += line[i + 1] if line[i + 1] == "#" or line[i + 1].isspace() else line[i:i + 2]
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


def _unescaped(text: str, chars: str) -> int | None:
    """The index of the first of ``chars`` in ``text`` that no backslash escapes (None: there is none)."""
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] in chars:
            return i
        i += 1
    return None


def pattern_problem(line: str) -> tuple[int, str, str] | None:
    """Why GitHub rejects the pattern of a rule line (already stripped), as its CODEOWNERS errors API
    reports it: ``(column, message, suggestion)``, column 1-based in ``line``; None for a usable pattern.

    GitHub documents that three gitignore rules do not work in CODEOWNERS and marks such a line as an
    error ("Invalid pattern"), skipping it: ``!`` negation and ``[ ]`` character ranges; the pattern
    ``/`` never matches anything. chainret leaves such a rule out rather than half-interpreting it
    (a ``[ ]`` was once read as a regular-expression class: ``[z-a]`` crashed the import)."""
    if line.startswith("!"):
        return 1, "negation with `!` does not work in CODEOWNERS", \
            "list the paths that keep their owners, or add a later rule without owners to un-own a path"
    raw = line[:_unescaped(line, " \t") or len(line)]
    at = _unescaped(raw, "[")
    if at is not None:
        return at + 1, "a `[ ]` character range does not work in CODEOWNERS", \
            "write one rule per name the range stands for (`*.c` and `*.h` for `*.[ch]`)"
    if not raw.strip("/"):
        return 1, f"the pattern `{raw}` will never match anything", "did you mean `*` instead?"
    return None


def parse(text: str, label: str) -> OwnersFile:
    """The rules of a CODEOWNERS text, with problems (by line) as warnings: a bad owner is skipped, a
    line whose pattern GitHub rejects (``pattern_problem``) is left out, reported with its line and column."""
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
        bad = pattern_problem(line)
        if bad is not None:
            column = bad[0] + len(raw) - len(raw.lstrip())
            of.warnings.append(Issue("invalid_pattern", "warning", label, f"line {n}, column {column}", "",
                                     f"Invalid pattern: {bad[1]}: `{line}`; the rule is left out (GitHub skips the "
                                     f"line too). Suggestion: {bad[2]}", n))
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


_ANY = 0  # an element that matches any number (0 or more) of path segments
_ONE = 1  # an element that matches exactly one segment, whatever it is
Element = int | str | re.Pattern[str]  # _ANY, _ONE, a literal segment, or a segment glob


def _segment_glob(part: str) -> str | re.Pattern[str]:
    """One segment of a pattern: its literal text (no wildcard), or a regex over one segment.

    The regex has no backtracking to speak of: ``*``-separated pieces are found leftmost in turn,
    each inside an atomic group (``(?>.*?piece)``), which is the greedy algorithm of glob matching
    (it is exact for ``*`` and ``?``: the leftmost place of a piece leaves the most room for the
    rest), so a segment is matched in O(length of segment x length of glob)."""
    pieces: list[str] = [""]
    i = 0
    while i < len(part):
        c = part[i]
        if c == "\\" and i + 1 < len(part):
            pieces[-1] += re.escape(part[i + 1])
            i += 2
            continue
        if c == "*":
            pieces.append("")
        else:
            pieces[-1] += "." if c == "?" else re.escape(c)
        i += 1
    if len(pieces) == 1 and "?" not in part:
        return re.sub(r"\\(.)", r"\1", part)
    if len(pieces) == 1:
        return re.compile(pieces[0] + r"\Z", re.DOTALL)
    middle = "".join(f"(?>.*?{p})" for p in pieces[1:-1] if p)
    return re.compile(pieces[0] + middle + ".*" + pieces[-1] + r"\Z", re.DOTALL)


class PathPattern:
    """A CODEOWNERS pattern compiled to a sequence of path-segment elements, matched by running the
    set of reachable positions over the path's segments (a segment automaton).

    Why hand-written: the pattern used to become one regular expression with a ``(?:.*/)?`` per
    ``**/``, which backtracks exponentially (one rule of ``**/`` x14 over a path 24 folders deep ran
    past a minute). pathspec and wcmatch, the maintained matchers, compile to regular expressions
    of the same shape, and implement gitignore's rules, not CODEOWNERS' (``docs/*`` must not
    match ``docs/a/b.md``; no ``!``, no ``[ ]``). Here a match costs at most
    (segments + 1) x (elements + 1) steps (``steps`` counts them), each one segment glob
    (``_segment_glob``, linear too), whatever the pattern.

    Semantics (gitignore's, with GitHub's exceptions): a leading or inner ``/`` anchors at the root,
    otherwise any depth; ``**`` as a whole segment is any number of folders (trailing ``/**``: at least
    one more segment); ``*`` and ``?`` stay within a segment (so does ``**`` inside a segment, as in
    gitignore); ``\\x`` is ``x`` literally; a trailing ``/`` matches what is below a folder only; a
    pattern whose last segment has a ``*`` (and is not ``**``) names files; any other covers what is
    below it too.
    """

    __slots__ = ("pattern", "elems", "literals", "first", "steps")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.steps = 0
        dir_only = pattern.endswith("/") and not pattern.endswith("\\/")
        p = pattern.strip("/")
        anchored = pattern.startswith("/") or "/" in p
        parts = p.split("/")
        elems: list[Element] = [] if anchored else [_ANY]
        for i, part in enumerate(parts):
            if part == "**":
                elems += [_ONE, _ANY] if i == len(parts) - 1 and i > 0 else [_ANY]
            else:
                elems.append(_segment_glob(part))
        last = parts[-1]
        if dir_only:
            elems += [_ONE, _ANY]
        elif _unescaped(last, "*") is None or last == "**":
            elems.append(_ANY)
        self.elems: tuple[Element, ...] = tuple(e for i, e in enumerate(elems) if not (e == _ANY and i and elems[i - 1] == _ANY))
        # Cheap refusals before the automaton runs: the literal segments the path must have, and the
        # literal first segment of an anchored pattern.
        self.literals = frozenset(e for e in self.elems if isinstance(e, str))
        self.first = self.elems[0] if isinstance(self.elems[0], str) else None

    def match(self, path: str) -> bool:
        segs = path.split("/")
        return self.match_segments(segs, frozenset(segs))

    def match_segments(self, segs: list[str], present: frozenset[str]) -> bool:
        """Whether the path (its segments, and their set) matches; ``steps`` grows by the work done."""
        if (self.first is not None and segs[0] != self.first) or not self.literals <= present:
            return False
        elems, n = self.elems, len(self.elems)
        states = self._closure(1)
        for seg in segs:
            nxt = 0
            for i in range(n):
                if not states >> i & 1:
                    continue
                self.steps += 1
                e = elems[i]
                if e == _ANY:
                    nxt |= 1 << i
                elif e == _ONE or e == seg or (isinstance(e, re.Pattern) and e.match(seg)):
                    nxt |= 1 << (i + 1)
            states = self._closure(nxt)
            if not states:
                return False
        return bool(states >> n & 1)

    def _closure(self, states: int) -> int:
        for i, e in enumerate(self.elems):
            if states >> i & 1 and e == _ANY:
                states |= 1 << (i + 1)
        return states


@lru_cache(maxsize=65536)
def compile_pattern(pattern: str) -> PathPattern:
    """The compiled matcher of a (valid, see ``pattern_problem``) CODEOWNERS pattern."""
    return PathPattern(pattern)


class RuleIndex:
    """The rules of a file, indexed so that a path is matched against the few rules that can match it.

    Every rule that has a literal segment (``/src/payments/``, ``**/logs``) is filed under its last
    one: it can only match a path that has that segment. A rule without one whose pattern ends in
    a literal tail (``*.js``) is filed under that tail: it can only match a path whose last segment
    ends with it. The rest (``*``, ``**/a*/``) are tried on every path. 10,000 rules over 1,000 files
    took minutes when each file was matched against each rule; a path is now matched against its
    candidates only, each with ``PathPattern``'s bounded automaton."""

    def __init__(self, rules: list[Rule]) -> None:
        self.rules = [r for r in rules if r.shadowed_by is None]
        self.by_segment: dict[str, list[int]] = {}
        self.by_suffix: dict[str, list[int]] = {}
        self.always: list[int] = []
        for i, r in enumerate(self.rules):
            pat = compile_pattern(r.pattern)
            lits = [e for e in pat.elems if isinstance(e, str)]
            tail = _literal_tail(r.pattern) if not isinstance(pat.elems[-1], int) else ""
            if lits:
                self.by_segment.setdefault(lits[-1], []).append(i)
            elif tail:
                self.by_suffix.setdefault(tail, []).append(i)
            else:
                self.always.append(i)

    def governing(self, path: str) -> list[Rule]:
        """The rule that last matches ``path`` in each section (a rule without owners un-owns the path)."""
        return [r for r in self.last_matching(path) if r.owners]

    def last_matching(self, path: str) -> list[Rule]:
        """The rule that last matches ``path`` in each section, with or without owners (file order)."""
        segs = path.split("/")
        present = frozenset(segs)
        name = segs[-1]
        cands = list(self.always)
        for seg in present:
            cands += self.by_segment.get(seg, ())
        if self.by_suffix:
            for k in range(len(name)):
                cands += self.by_suffix.get(name[k:], ())
        best: dict[str, Rule] = {}
        for i in sorted(set(cands), reverse=True):
            r = self.rules[i]
            if r.section not in best and compile_pattern(r.pattern).match_segments(segs, present):
                best[r.section] = r
        return list(reversed(best.values()))


def _literal_tail(pattern: str) -> str:
    """The literal text a pattern ends with after its last wildcard (``*.js`` -> ``.js``; "" if none)."""
    last = pattern.rstrip("/").rsplit("/", 1)[-1]
    tail = re.split(r"[*?]", last)[-1]
    return "" if "\\" in tail or tail == last else tail


def governing(rules: list[Rule], path: str) -> list[Rule]:
    """The rule that last matches ``path`` in each section (a rule without owners un-owns the path)."""
    return RuleIndex(rules).governing(path)


def _slug(text: str) -> str:
    """An ID part for ``text``: lower-case letters and digits joined by single ``-``, ``_`` or ``.``, plus
    a hash of ``text`` where that changed it.

    A run of joiners becomes one ``-``: the search index keeps an ID whole as one token only where
    each joiner is followed by a letter or digit (``chainret.core.words.SEARCH_TOKEN``), and a hop searches
    for its entity's ID as that one token. ``/lib/**/*.js`` used to give ``rule:…:lib-.js-…`` (and
    ``src/__init__.py`` ``path:…:src-__init__.py-…``), which the index splits in two: the hop
    found no unit and such a rule or file was never answerable."""
    s = re.sub(r"[-_.]{2,}", "-", re.sub(r"[^a-z0-9_.-]+", "-", text.lower())).strip("-_.")
    if s != text or not s:
        s = (s + "-" if s else "") + hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    return s


RULE_HEAD = re.compile(r"Rule (?P<name>.+): \S.* line (?P<line>\d+)(?:, section (?P<section>.*))?\.$")


def rule_of_unit(world: str, unit_text: str) -> tuple[str, str] | None:
    """The ID and name of the rule whose paragraph (``render``) this unit is, else None: how a coverage row
    about a rule without owners names the rule's entity, which no clause of its paragraph names (it has none),
    and which takes part in no relation, so a reader's reduced catalog does not hold it. The ID is ``rule_id``
    of the rule the head line states, the one the importer gave it."""
    m = RULE_HEAD.match(unit_text.split("\n", 1)[0])
    if m is None:
        return None
    name, section = m.group("name"), m.group("section") or ""
    pattern = name.removeprefix(f"[{section}] ") if section else name
    return rule_id(world, Rule(int(m.group("line")), section, pattern, [], pattern)), name


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
    """The rendered document and the entities it names (rules, owners, files).

    A file is governed by the rules that last match it with owners; a file whose last matching rules all
    have none is governed by those (the rule un-owns it: "who owns docs/a.md" follows it to a rule with no
    owner, instead of finding no such path); a file no rule matches is listed in a last paragraph of its
    own, so the file is known, with no relation: "it has no code owner", never "no such path"."""
    entities: dict[str, EntityRecord] = {}
    governed: dict[int, list[str]] = {}
    unmatched: list[str] = []
    files = [f for f in files if f.isprintable()]
    index = RuleIndex(of.rules)
    for path in files:
        last = index.last_matching(path)
        for r in [r for r in last if r.owners] or last:
            governed.setdefault(r.line, []).append(path)
        if not last:
            unmatched.append(path)
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
        else:
            if not r.owners:
                para.append(NO_OWNERS_NOTE)
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
    if unmatched:
        out.append(f"{UNMATCHED_HEAD} {len(unmatched)} files of the tree that no rule matches, with no code owner:")
        for path in unmatched:
            pid = path_id(world, path)
            entities.setdefault(pid, EntityRecord(pid, path, (), f"file {path}", (NameRecord(UNMATCHED_SOURCE, path, (), f"file {path}"),)))
            out.append(f"file {path} ({pid}): no rule matches it")
        out.append("")
    return "\n".join(out), entities


def find(root: Path) -> list[str]:
    """Where the CODEOWNERS file of a tree is (GitHub's and GitLab's locations, first found); a
    location that is a link out of the tree is passed over (``outside``)."""
    return [loc for loc in LOCATIONS if (root / loc).is_file() and inside_tree(root, root / loc)][:1]


def outside(root: Path) -> list[Issue]:
    """A warning for each CODEOWNERS location of the tree that is a link out of it (not read)."""
    return [_issue("outside_tree", root / loc, None, "the CODEOWNERS file resolves outside the tree (through a link): "
                   "not read", "warning") for loc in LOCATIONS
            if (root / loc).exists() and not inside_tree(root, root / loc)]


def read(root: Path, rel: str) -> tuple[OwnersFile | None, list[Issue]]:
    """The parsed CODEOWNERS file at ``root / rel``, or None and the error that refuses it: a link out
    of the tree (as the Backstage reader refuses one, ``common.inside_tree``), a file over GitHub's
    3 MB, one that is not UTF-8 text."""
    file = root / rel
    if not inside_tree(root, file):
        return None, [_issue("outside_tree", file, None, "the CODEOWNERS file resolves outside the tree "
                             f"{root} (through a link): not read")]
    if not file.is_file():
        return None, [_issue("not_a_regular_file", file, None, "a CODEOWNERS file must be a regular file")]
    try:
        if file.stat().st_size > MAX_CODEOWNERS_BYTES:
            return None, [_issue("file_too_large", file, None, f"expected at most {MAX_CODEOWNERS_BYTES} bytes (GitHub's limit)")]
        text = file.read_bytes().decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n")
    except OSError as exc:
        return None, [_issue("unreadable_file", file, None, f"cannot read the CODEOWNERS file: {exc.strerror}")]
    except UnicodeDecodeError:
        return None, [_issue("not_utf8", file, None, "the CODEOWNERS file is not UTF-8 text")]
    of = parse(text, str(file))
    of.rel = rel
    return of, []


def tree_files(root: Path) -> list[str]:
    """Files of a working tree, '/'-separated, without the .git folder."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if p.is_file() and ".git" not in p.relative_to(root).parts)
