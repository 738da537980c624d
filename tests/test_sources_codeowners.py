"""CODEOWNERS -> a catalog: gitignore-style matching, last match wins, GitLab sections, quoted rule lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from records_world import EXAMPLE, imported, path_of, quoted_lines_hold, valid, verified

from chainret.pipeline.ask import ask
from chainret.sources.codeowners import governing, parse, pattern_regex

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
])
def test_patterns_match_like_gitignore(pattern: str, matches: list[str], misses: list[str]) -> None:
    rx = pattern_regex(pattern)
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
