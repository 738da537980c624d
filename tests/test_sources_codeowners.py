"""CODEOWNERS -> a catalog: gitignore-style matching, last match wins, GitLab sections, quoted rule lines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from records_world import EXAMPLE, cli, imported, path_of, quoted_lines_hold, valid, verified

from chainret.pipeline.ask import ask
from chainret.authoring.header import SourceInvalid
from chainret.core.errors import UsageError
from chainret.sources.codeowners import RuleIndex, compile_pattern, governing, parse
from chainret.sources.records import import_snapshot, read_snapshot

E = "codeowner:acme:"


@pytest.mark.parametrize(("pattern", "matches", "misses"), [
    ("*", ["a.py", "src/a/b.py"], []),
    ("*.js", ["app.js", "src/web/app.js"], ["app.jsx"]),
    ("/docs/", ["docs/a.md", "docs/x/y.md"], ["src/docs/a.md", "docs"]),
    ("apps/", ["apps/a", "x/apps/b/c"], ["apps"]),
    ("docs/*", ["docs/a.md"], ["docs/x/y.md", "src/docs/a.md"]),
    ("/build/logs/", ["build/logs/a.log"], ["x/build/logs/a.log"]),
    ("**/logs", ["logs/a", "deep/er/logs/b"], ["catalogs/x"]),
    ("src/**/api.py", ["src/api.py", "src/a/b/api.py"], ["lib/src/api.py"]),
    ("/src/payments", ["src/payments/api.py", "src/payments"], ["src/payments-old/x"]),
    ("file?.txt", ["file1.txt"], ["file10.txt"]),
    ("src/*/*.py", ["src/api/main.py"], ["src/main.py", "src/a/b/main.py"]),
    ("/lib/**/*.js", ["lib/a.js", "lib/a/b/c.js"], ["x/lib/a.js", "lib/a/b.jsx"]),
    ("docs/**", ["docs/a", "docs/a/b"], ["docs", "x/docs/a"]),
    ("src/a**b.py", ["src/ab.py", "src/axxb.py"], ["src/a/b.py"]),  # ** inside a segment is *
    (r"\*.md", ["*.md", "x/*.md"], ["a.md"]),  # an escaped wildcard is literal
    ("docs/!notes.md", ["docs/!notes.md"], ["docs/notes.md"]),  # ! inside a pattern is literal
])
def test_patterns_match_like_gitignore(pattern: str, matches: list[str], misses: list[str]) -> None:
    rx = compile_pattern(pattern)
    assert all(rx.match(p) for p in matches), [p for p in matches if not rx.match(p)]
    assert not any(rx.match(p) for p in misses), [p for p in misses if rx.match(p)]


def test_last_match_wins_sections_escapes_and_comments() -> None:
    of = parse("# comment\n*  @acme/all\n/src/ @acme/src  # trailing comment\n\\#notes.md @ana\n"
               "docs/my\\ file.md ana@example.com\n/src/ @acme/src2\n/src/legacy/\nbad-owner.py acme\n"
               "[Security][2] @acme/sec\n/src/payments/\n^[Docs]\n*.md @acme/docs\n", "CODEOWNERS")
    rules = {(r.section, r.pattern): r for r in of.rules}
    first, last = [r for r in of.rules if r.pattern == "/src/"]
    assert (first.shadowed_by, first.owners, last.shadowed_by, last.owners) == (6, ["@acme/src"], None, ["@acme/src2"])
    assert rules[("", "#notes.md")].owners == ["@ana"] and ("", "docs/my file.md") in rules
    assert rules[("Security", "/src/payments/")].owners == ["@acme/sec"]  # the section's default owners
    assert [w.location for w in of.warnings] == ["line 8"] and "not an owner" in of.warnings[0].message

    def owners(path: str) -> list[str]:
        return sorted(o for r in governing(of.rules, path) for o in r.owners)

    assert owners("src/payments/api.py") == ["@acme/sec", "@acme/src2"]  # one rule per section
    assert owners("src/legacy/x.py") == []  # the last match has no owners: un-owned
    assert owners("README.md") == ["@acme/all", "@acme/docs"]
    assert owners("#notes.md") == ["@acme/docs", "@ana"]


def test_who_owns_a_path_follows_its_last_matching_rule(tmp_path: Path) -> None:
    out = tmp_path / "cat.yaml"
    cat = imported(EXAMPLE / "records", out, ["codeowners"])
    valid(tmp_path)
    text = (EXAMPLE / "records" / ".github" / "CODEOWNERS").read_text(encoding="utf-8")
    assert quoted_lines_hold(cat, {".github/CODEOWNERS": text}) == len(cat.relations)
    playback = path_of("Who owns systems/playback.yaml?", out)
    assert playback[1] == next(e.id for e in cat.entities if e.name == "/systems/playback.yaml")  # not '*'
    owners = {r.object for r in cat.relations if r.subject == playback[1] and r.predicate == "code_owned_by"}
    assert playback[2] in owners == {E + "team.acme.team-b", E + "email.nigel-example.com-ec2963a3"}  # either answers
    assert path_of("Who owns systems/artist-engagement.yaml?", out)[2] == E + "team.acme.platform"
    assert path_of("Who owns components/catalog-info.yaml?", out)[2] == E + "team.acme.team-b"
    assert verified(ask("Who owns systems/playback.yaml?", out), out) == "verified"


def _ref_glob(g: str, s: str) -> bool:
    """Reference: a segment glob (``*``, ``?``, literal) against one segment, by plain recursion."""
    if not g:
        return not s
    if g[0] == "*":
        return _ref_glob(g[1:], s) or (bool(s) and _ref_glob(g, s[1:]))
    return bool(s) and (g[0] == "?" or g[0] == s[0]) and _ref_glob(g[1:], s[1:])


def _ref_match(pattern: str, path: str) -> bool:
    """Reference matcher, written from the documented rules segment by segment (exponential, obviously right)."""
    dir_only, p = pattern.endswith("/"), pattern.strip("/")
    anchored, pats, segs = pattern.startswith("/") or "/" in p, p.split("/"), path.split("/")
    last = pats[-1]
    files_only = "*" in last and last != "**"

    def tail_ok(j: int) -> bool:
        left = len(segs) - j
        return left >= 1 if dir_only else left == 0 if files_only else True

    def m(i: int, j: int) -> bool:
        if i == len(pats):
            return tail_ok(j)
        if pats[i] == "**":
            first = j + 1 if i == len(pats) - 1 and i > 0 else j  # a trailing /** needs one more segment
            return any(m(i + 1, k) for k in range(first, len(segs) + 1))
        return j < len(segs) and _ref_glob(re.sub(r"\*+", "*", pats[i]), segs[j]) and m(i + 1, j + 1)

    return m(0, 0) if anchored else any(m(0, k) for k in range(len(segs)))


_PATTERN = st.lists(st.sampled_from(["a", "b", "*", "?", "**", "a*", "*b", "a?b", "**", "/"]), min_size=1, max_size=6).map("".join)
_PATH = st.lists(st.lists(st.sampled_from("ab"), min_size=1, max_size=3).map("".join), min_size=1, max_size=5).map("/".join)


@settings(max_examples=150, deadline=None)
@given(_PATTERN, st.lists(_PATH, min_size=1, max_size=4))
def test_the_segment_automaton_agrees_with_a_reference_matcher_within_its_step_bound(pattern: str, paths: list[str]) -> None:
    if not pattern.strip("/"):
        return  # "/" is an invalid pattern (below)
    pat = compile_pattern(pattern)
    for path in paths:
        before = pat.steps
        assert pat.match(path) == _ref_match(pattern, path), (pattern, path, pat.elems)
        assert pat.steps - before <= (path.count("/") + 1) * (len(pat.elems) + 1)


def test_stacked_globstars_match_in_bounded_steps() -> None:
    """One rule of **/ x14 over a path 24 folders deep ran past a minute as a regular expression."""
    pat = compile_pattern("**/" * 14 + "a/*.z")
    path = "a/" * 24 + "b.y"
    assert not pat.match(path) and pat.steps <= 25 * (len(pat.elems) + 1)
    assert pat.match("a/" * 24 + "b.z")  # control: the same rule still matches where it should
    piece = compile_pattern("*a*a*a*a*a*a*a*a*a*a*b")  # within one segment: no polynomial backtracking either
    assert not piece.match("a" * 5000) and piece.match("a" * 5000 + "b")


def test_a_rule_index_matches_only_the_candidate_rules() -> None:
    """10,000 rules x 1,000 files ran for minutes; each file now tries the rules that can match it."""
    text = "* @acme/all\n" + "".join(f"/src/m{i}/ @acme/t{i}\n*.e{i} @acme/e{i}\nsrc/**/f{i}.py @acme/f{i}\n"
                                      for i in range(700))
    of = parse(text, "CODEOWNERS")
    index = RuleIndex(of.rules)
    for pat in {compile_pattern(r.pattern) for r in of.rules}:
        pat.steps = 0
    assert [r.pattern for r in index.governing("src/m7/f9.py")] == ["src/**/f9.py"]
    assert [r.pattern for r in index.governing("lib/x.e42")] == ["*.e42"]
    assert [r.pattern for r in index.governing("README.md")] == ["*"]
    assert sum(compile_pattern(r.pattern).steps for r in of.rules) <= 40  # not 2,101 rules per path
    assert [r.pattern for r in governing(of.rules, "src/m7/f9.py")] == ["src/**/f9.py"]


@pytest.mark.parametrize(("line", "column", "what"), [
    ("!*.log @acme/ops", 1, "negation"),
    ("[]a] @acme/ops", 1, "character range"),
    ("src/[z-a].py @acme/ops", 5, "character range"),
    ("  src/[!].py @acme/ops", 7, "character range"),
    ("Python/ceval*.[ch] @acme/ops", 15, "character range"),
    ("/ @acme/ops", 1, "never match anything"),
])
def test_a_pattern_github_rejects_is_reported_with_line_and_column_and_left_out(line: str, column: int, what: str) -> None:
    of = parse(f"* @acme/all\n{line}\ndocs/!notes.md @acme/docs\n", "CODEOWNERS")
    assert [r.pattern for r in of.rules] == ["*", "docs/!notes.md"]  # control: an inner ! is a literal character
    (w,) = of.warnings
    assert (w.code, w.severity, w.location, w.line) == ("invalid_pattern", "warning", f"line 2, column {column}", 2)
    assert "Invalid pattern" in w.message and what in w.message and "Suggestion:" in w.message


def test_an_invalid_pattern_imports_without_it_or_fails_with_strict(tmp_path: Path) -> None:
    root = tmp_path / "t"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("x\n", encoding="utf-8")
    (root / "CODEOWNERS").write_text("* @acme/all\nsrc/[z-a].py @acme/bad\n", encoding="utf-8")
    snap = read_snapshot(root, ["codeowners"], "acme")
    assert [w.code for w in snap.warnings] == ["invalid_pattern"] and "acme/bad" not in snap.documents["codeowners/CODEOWNERS"]
    with pytest.raises(SourceInvalid):
        import_snapshot(snap, tmp_path / "cat.yaml", world="acme", strict=True)
    proc = cli("catalog", "import", str(root), "--format", "codeowners", "--strict", "--out", str(tmp_path / "c2.yaml"),
               cwd=tmp_path)
    assert proc.returncode == 2 and "invalid_pattern" in proc.stdout + proc.stderr
    assert not (tmp_path / "c2.yaml").exists()


def _tree_with_links(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    (outside / "docs").mkdir(parents=True)
    (outside / "passwd").write_text("root:x:0:0:root:/root:/bin/bash @acme/x\n", encoding="utf-8")
    (outside / "docs" / "CODEOWNERS").write_text("root:x:0:0:root:/root:/bin/bash @acme/x\n", encoding="utf-8")
    root = tmp_path / "t"
    root.mkdir()
    (root / "a.py").write_text("x\n", encoding="utf-8")
    return root, outside


def test_a_codeowners_link_out_of_the_tree_is_not_read(tmp_path: Path) -> None:
    root, outside = _tree_with_links(tmp_path)
    (root / "CODEOWNERS").symlink_to(outside / "passwd")
    (root / "docs").symlink_to(outside / "docs")
    with pytest.raises(UsageError, match="links out of the tree"):
        read_snapshot(root, ["codeowners"], "acme")
    (root / ".github").mkdir()
    (root / ".github" / "owners.txt").write_text("* @acme/all\n", encoding="utf-8")
    (root / "CODEOWNERS").unlink()
    (root / "CODEOWNERS").symlink_to(root / ".github" / "owners.txt")  # control: a link inside the tree is read
    snap = read_snapshot(root, ["codeowners"], "acme")
    assert [w.code for w in snap.warnings] == ["outside_tree"]  # the docs/ link, passed over
    assert list(snap.documents) == ["codeowners/CODEOWNERS"] and "@acme/all" in snap.documents["codeowners/CODEOWNERS"]
    assert not any("root:x" in text for text in snap.documents.values())


def test_a_codeowners_file_given_that_links_out_of_the_tree_is_refused(tmp_path: Path) -> None:
    root, outside = _tree_with_links(tmp_path)
    (root / "CODEOWNERS").symlink_to(outside / "passwd")
    snap = read_snapshot(root / "CODEOWNERS", ["codeowners"], "acme")
    assert [e.code for e in snap.errors] == ["outside_tree"] and not snap.documents
    proc = cli("catalog", "import", str(root / "CODEOWNERS"), "--format", "codeowners", "--out", str(tmp_path / "c.yaml"),
               cwd=tmp_path)
    assert proc.returncode == 2 and "root:x" not in proc.stdout + proc.stderr and not (tmp_path / "c.yaml").exists()


def test_glob_rules_and_dunder_files_are_answerable(tmp_path: Path) -> None:
    """A rule or file whose ID had two joiners in a row (``lib-.js``, ``src-__init__.py``) was split in two
    by the search index's tokenizer, so the hop that searched for it found nothing."""
    root = tmp_path / "t"
    for rel in ("src/api/main.py", "lib/a/b/c.js", "pkg/__init__.py", "README.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n", encoding="utf-8")
    (root / "CODEOWNERS").write_text("* @acme/all\nsrc/*/*.py @acme/py\n/lib/**/*.js @acme/js\n/README.md @acme/docs\n",
                                     encoding="utf-8")
    out = tmp_path / "cat.yaml"
    imported(root, out, ["codeowners"])
    assert path_of("Who owns src/api/main.py?", out)[2] == E + "team.acme.py"
    assert path_of("Who owns lib/a/b/c.js?", out)[2] == E + "team.acme.js"
    assert path_of("Who owns pkg/__init__.py?", out)[2] == E + "team.acme.all"
    assert path_of("Who owns README.md?", out)[1] == "rule:acme:readme.md-95e0a42d"  # control: a plain ID is unchanged


def test_a_code_owners_files_are_those_whose_last_matching_rule_names_them(tmp_path: Path) -> None:
    """"which files is @ana a code owner of": each rule naming her, then the files it is the last match of; a file a later
    rule takes over is not hers (the negative control: the same file under the rule that names her first)."""
    root = tmp_path / "tree"
    (root / "docs" / "api").mkdir(parents=True)
    for name in ("docs/guide.md", "docs/api/ref.md", "main.py"):
        (root / name).write_text("x\n", encoding="utf-8")
    (root / "CODEOWNERS").write_text("* @acme/all\n/docs/ @ana\n/docs/api/ @acme/api\n", encoding="utf-8")
    out = tmp_path / "cat.yaml"
    imported(root, out, ["codeowners"])

    def files(words: str) -> set[str]:
        trace = ask(words, out)
        assert trace.outcome == "accepted_path", (words, trace.reason)
        assert verified(trace, out) == "verified"
        return {i.partition(":")[2].partition(":")[2] for i in ({a.id for a in trace.answers} if trace.answers else
                                                                {(trace.path_ids or [""])[-1]})}

    ana = files("which files is @ana a code owner of")
    assert len(ana) == 1 and next(iter(ana)).startswith("docs-guide.md")  # not docs/api/ref.md: /docs/api/ is its last match
    assert files("which files does @ana review") == ana
    assert files("which files does the /docs/ rule govern") == ana
    assert len(files("which files is @acme/api a code owner of")) == 1
    assert ask("which files is @nobody a code owner of", out).outcome != "accepted_path"


def test_a_file_with_no_code_owner_is_known_and_said_to_have_none(tmp_path: Path) -> None:
    """A file whose last matching rule names no owner, or that no rule matches, is a file of the tree with no code
    owner: "who owns it" is refused as having none (its rule, or its declaration, cited), never as naming no path."""
    root = tmp_path / "tree"
    for name in ("docs/guide.md", "src/app.py", "tools/build.sh", "vendor/lib.c"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n", encoding="utf-8")
    # no "*" rule: tools/build.sh matches nothing; /docs/ un-owns docs/guide.md; GitLab-style sections are left out
    (root / "CODEOWNERS").write_text("/src/ @acme/app\n/docs/ @acme/docs\n/docs/\n/vendor/ @acme/v\n/vendor/ \n", encoding="utf-8")
    snap = read_snapshot(root, ["codeowners"], "acme")
    text = next(iter(snap.documents.values()))
    assert "file docs/guide.md: last matching rule" in text and "file tools/build.sh (path:acme:tools-build.sh-" in text
    out = tmp_path / "cat.yaml"
    imported(root, out, ["codeowners"])
    assert path_of("Who owns src/app.py?", out)[2] == E + "team.acme.app"  # control: an owned file answers as before
    under_ownerless = ask("Who owns docs/guide.md?", out)
    assert under_ownerless.outcome != "accepted_path"
    assert [h.predicate for h in under_ownerless.hops] == ["governed_by", "code_owned_by"]  # it reached the ownerless rule
    assert path_of("which rule governs docs/guide.md", out)[1].startswith("rule:acme:docs-")
    unmatched = ask("Who owns tools/build.sh?", out)
    assert unmatched.reason is not None and unmatched.reason.code == "unrelated_entity"
    assert "has no governing rule" in unmatched.reason.message and "codeowners/CODEOWNERS@" in unmatched.reason.message
    unknown = ask("Who owns tools/deploy.sh?", out)  # control: a file the tree does not have is still no known path
    assert unknown.reason is not None and unknown.reason.code == "unknown_entity"
