"""git history with a hand-written header (``--src``): one header serves every commit.

A header that declares a document (a restricted ``org/contractors.yaml``) which only a later
commit adds must not cost the earlier commits their views: each is built without the document
and a warning names the document and the commit. The typo check of the header's paths still
refuses a misspelt path (a restricted document declared as ``contractor.yaml`` would be built
public), and the document, once there, stays restricted.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from records_world import cli, imported, valid

import chainret.authoring.build as build_module
import chainret.sources.history as history_module
from chainret.authoring.build import typo_of
from chainret.authoring.header import SourceInvalid
from chainret.catalog.load import load_catalog
from chainret.catalog.models import Catalog
from chainret.pipeline.ask import ask
from chainret.sources.history import HistoryResult, history
from chainret.sources.records import write_import

WORLD = "acme"
CONTRACTORS = "backstage/org/contractors.yaml"
TEAM = "group:acme:default.team-a"
KOFI = "user:acme:default.kofi"


def _descriptor(kind: str, name: str, spec: list[str]) -> str:
    return "\n".join(["apiVersion: backstage.io/v1alpha1", f"kind: {kind}", "metadata:", f"  name: {name}", "spec:",
                      *(f"  {s}" for s in spec)]) + "\n"


GROUPS = _descriptor("Group", "team-a", ["type: team", "children: []"])
USERS = _descriptor("User", "ann", ["memberOf: [team-a]"])
CONTRACTOR = _descriptor("User", "kofi", ["memberOf: [team-a]"])


def _component(lifecycle: str) -> str:
    return _descriptor("Component", "svc", ["type: service", f"lifecycle: {lifecycle}", "owner: team-a"])


# The four commits: the contractors' profiles arrive in the third.
STEPS: list[tuple[str, dict[str, str | None]]] = [
    ("2026-01-05T09:00:00+00:00", {"org/groups.yaml": GROUPS, "comp/catalog-info.yaml": _component("production")}),
    ("2026-02-05T09:00:00+00:00", {"org/users.yaml": USERS}),
    ("2026-03-05T09:00:00+00:00", {"org/contractors.yaml": CONTRACTOR}),
    ("2026-04-05T09:00:00+00:00", {"comp/catalog-info.yaml": _component("experimental")}),
]


def _commit(repo: Path, when: str, files: dict[str, str | None]) -> str:
    for rel, text in files.items():
        target = repo / rel
        if text is None:
            target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    env = {"PATH": os.environ["PATH"], "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    git = ["git", "-C", str(repo), "-c", "user.name=T", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "add", "-A"], check=True, env=env)
    subprocess.run([*git, "commit", "-qm", f"records as of {when[:10]}"], check=True, env=env)
    return subprocess.run([*git, "rev-parse", "HEAD"], check=True, env=env, capture_output=True, text=True).stdout.strip()


def _repo(where: Path, steps: list[tuple[str, dict[str, str | None]]] = STEPS) -> tuple[Path, list[str]]:
    where.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(where)], check=True,
                   env={"PATH": os.environ["PATH"], "HOME": str(where), "GIT_CONFIG_NOSYSTEM": "1"})
    return where, [_commit(where, when, files) for when, files in steps]


def _header(where: Path, path: str = CONTRACTORS) -> Path:
    where.mkdir(parents=True)
    (where / "chainret.yaml").write_text(
        f"format: chainret-source/1\nworld: {WORLD}\ndocuments:\n"
        f"  - path: {path}\n    visibility: restricted\n    principals: [people-ops]\n", encoding="utf-8")
    return where


def _import(repo: Path, out: Path, src: Path, **kw: object) -> HistoryResult:
    res = history(repo, out, ["backstage", "codeowners"], src=src, **kw)  # type: ignore[arg-type]
    if res.result is not None and res.added:
        write_import(res.result, "history (test)")
    return res


def _members(out: Path, view: str, principal: str) -> list[str]:
    """Who is on team-a in ``view`` as ``principal`` sees it (the first commit has no users: no answer)."""
    trace = ask("Who is on team-a?", out, view=view, principal=principal)
    if principal == "public":  # nothing of the restricted document in what the public is told
        assert "kofi" not in trace.model_dump_json().lower(), view
    if trace.outcome != "accepted_path":
        return []
    return sorted(a.id for a in trace.answers or [])


def _contractors_views(cat: Catalog) -> list[bool]:
    """Per view (oldest first), whether it holds the contractors' document."""
    return [any(ref.startswith(CONTRACTORS + "@") for ref in v.documents) for v in cat.views]


def test_a_declared_document_a_commit_lacks_is_absent_from_its_view_not_a_skip(tmp_path: Path) -> None:
    repo, shas = _repo(tmp_path / "repo")
    out = tmp_path / "cat"
    res = _import(repo, out, _header(tmp_path / "header"))
    assert res.skipped == []
    assert [c.sha for c, _ in res.added] == shas  # four commits, four views
    absent = [str(w) for w in res.warnings if w.code == "absent_document"]
    assert len(absent) == 2 and all(w.severity == "warning" for w in res.warnings if w.code == "absent_document")
    for sha, said in zip(shas[:2], absent, strict=True):
        assert f"{CONTRACTORS} is declared here but absent from commit {sha[:7]}" in said, said
        assert str(tmp_path / "header" / "chainret.yaml") in said
    cat = load_catalog(out / "catalog.yaml")
    assert _contractors_views(cat) == [False, False, True, True]
    valid(out)

    # once there, the document is restricted: its relations and labels reach people-ops only
    (doc,) = [d for d in cat.documents if f"{d.source}/{d.document}" == CONTRACTORS]
    assert doc.visibility == "restricted" and doc.principals == ["people-ops"]
    kofi = cat.entities_by_id[KOFI]
    assert [s.document for s in kofi.declared_in] == [f"{doc.source}/{doc.document}"]
    said_by = {r.support.doc_ref for r in cat.relations if KOFI in (r.subject, r.object)}
    assert said_by == {doc.ref}
    for view in ("2026-01-05", "2026-02-05", "2026-03-05", "2026-04-05"):
        assert KOFI not in _members(out, view, "public"), view
    assert _members(out, "2026-02-05", "people-ops") == ["user:acme:default.ann"]  # not there yet, for anyone
    assert _members(out, "2026-03-05", "people-ops") == ["user:acme:default.ann", KOFI]
    assert _members(out, "2026-04-05", "people-ops") == ["user:acme:default.ann", KOFI]


def test_the_cli_says_the_absent_document_per_commit_and_builds_every_view(tmp_path: Path) -> None:
    repo, shas = _repo(tmp_path / "repo")
    _header(tmp_path / "header")
    done = cli("catalog", "history", str(repo), "--format", "backstage", "--format", "codeowners",
               "--src", "header", "--out", "cat", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "skipped commit" not in done.stdout + done.stderr
    assert "4 new views" in " ".join(done.stdout.split())
    for sha in shas[:2]:
        assert f"{CONTRACTORS} is declared here but absent from commit {sha[:7]}" in done.stdout + done.stderr


@pytest.mark.parametrize("guard", ["typo_of", "elsewhere"])
def test_either_guard_alone_keeps_the_early_commits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, guard: str) -> None:
    """The two guards: the typo check compares what differs once shared folders are dropped, and a
    history tells the build which documents another commit holds. Each alone keeps the early commits."""
    if guard == "typo_of":
        monkeypatch.setattr(history_module, "_documents_ever", lambda *a: frozenset())
    else:
        monkeypatch.setattr(build_module, "typo_of", _whole_path_typo)
    repo, shas = _repo(tmp_path / "repo")
    res = _import(repo, tmp_path / "cat", _header(tmp_path / "header"))
    assert res.skipped == [] and len(res.added) == 4


def _whole_path_typo(path: str, present: set[str]) -> str:
    """The typo check as it was: whole paths compared, so a shared folder made any sibling a near miss."""
    from chainret.authoring.header import closest

    return closest(path, present)


def test_negative_control_with_both_guards_off_the_early_commits_are_skipped(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history_module, "_documents_ever", lambda *a: frozenset())
    monkeypatch.setattr(build_module, "typo_of", _whole_path_typo)
    repo, shas = _repo(tmp_path / "repo")
    res = _import(repo, tmp_path / "cat", _header(tmp_path / "header"))
    assert [c.sha for c, _ in res.skipped] == shas[:2]  # the reported bug: no view before the document exists
    assert "dangling_reference" in res.skipped[0][1]


def test_a_later_document_named_like_an_earlier_one_is_absent_not_a_typo(tmp_path: Path) -> None:
    """``team-b.yaml`` beside ``team-a.yaml`` is a near miss by name: only the history knows it is a later file."""
    steps = [*STEPS[:2], ("2026-03-05T09:00:00+00:00", {"org/team-b.yaml": CONTRACTOR}), STEPS[3]]
    steps[0] = (steps[0][0], {"org/team-a.yaml": GROUPS, "comp/catalog-info.yaml": _component("production")})
    repo, shas = _repo(tmp_path / "repo", steps)
    out = tmp_path / "cat"
    res = _import(repo, out, _header(tmp_path / "header", "backstage/org/team-b.yaml"))
    assert res.skipped == [] and len(res.added) == 4
    assert sum(w.code == "absent_document" for w in res.warnings) == 2
    cat = load_catalog(out / "catalog.yaml")
    (doc,) = [d for d in cat.documents if d.document == "org/team-b.yaml"]
    assert doc.visibility == "restricted"


def test_under_a_records_folder_the_history_still_knows_the_later_document(tmp_path: Path) -> None:
    """``--path records``: the paths git names are the repository's; the documents drop the folder."""
    steps = [(when, {f"records/{rel}": text for rel, text in files.items()}) for when, files in STEPS]
    steps[2] = (steps[2][0], {"records/org/team-b.yaml": CONTRACTOR})
    steps[0] = (steps[0][0], {"records/org/team-a.yaml": GROUPS, "records/comp/catalog-info.yaml": _component("production")})
    repo, shas = _repo(tmp_path / "repo", steps)
    res = _import(repo, tmp_path / "cat", _header(tmp_path / "header", "backstage/org/team-b.yaml"), path="records")
    assert res.skipped == [] and len(res.added) == 4
    assert sum(w.code == "absent_document" for w in res.warnings) == 2


def test_one_snapshot_import_reports_the_declared_document_absent(tmp_path: Path) -> None:
    """``catalog import --format backstage --src``: the first month's tree, with the header written for later ones."""
    tree = tmp_path / "tree"
    for rel, text in STEPS[0][1].items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text or "", encoding="utf-8")
    cat = imported(tree, tmp_path / "cat", ["backstage"], src=_header(tmp_path / "header"))
    assert not any(d.document == "org/contractors.yaml" for d in cat.documents) and len(cat.views) == 1


def test_negative_control_a_single_snapshot_cannot_tell_that_name_from_a_typo(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history_module, "_documents_ever", lambda *a: frozenset())
    steps = [*STEPS[:2], ("2026-03-05T09:00:00+00:00", {"org/team-b.yaml": CONTRACTOR}), STEPS[3]]
    steps[0] = (steps[0][0], {"org/team-a.yaml": GROUPS, "comp/catalog-info.yaml": _component("production")})
    repo, shas = _repo(tmp_path / "repo", steps)
    res = _import(repo, tmp_path / "cat", _header(tmp_path / "header", "backstage/org/team-b.yaml"))
    assert [c.sha for c, _ in res.skipped] == shas[:2]


def test_a_misspelt_restricted_path_is_still_an_error_and_nothing_is_built_public(tmp_path: Path) -> None:
    repo, shas = _repo(tmp_path / "repo")
    out = tmp_path / "cat"
    res = _import(repo, out, _header(tmp_path / "header", "backstage/org/contractor.yaml"))
    # the early commits lack both names: absent; the commits that hold contractors.yaml refuse the near miss
    assert [c.sha for c, _ in res.skipped] == shas[2:]
    assert "did you mean 'backstage/org/contractors.yaml'" in res.skipped[0][1], res.skipped[0][1]
    cat = load_catalog(out / "catalog.yaml")
    assert not any(d.document == "org/contractors.yaml" for d in cat.documents)  # never built public
    with pytest.raises(SourceInvalid, match="did you mean 'backstage/org/contractors.yaml'"):
        history(repo, tmp_path / "strict", ["backstage"], src=tmp_path / "header", strict=True)
    assert not (tmp_path / "strict").exists()


def test_re_running_after_new_commits_appends_and_keeps_the_document_restricted(tmp_path: Path) -> None:
    repo, shas = _repo(tmp_path / "repo", STEPS[:2])
    out = tmp_path / "cat"
    header = _header(tmp_path / "header")
    first = _import(repo, out, header)
    assert len(first.added) == 2 and first.skipped == []
    assert sum(w.code == "absent_document" for w in first.warnings) == 2  # no commit holds it yet: absent, no typo
    before = (out / "catalog.yaml").read_text(encoding="utf-8")
    early = load_catalog(out / "catalog.yaml").views

    later = [_commit(repo, when, files) for when, files in STEPS[2:]]
    gone = _commit(repo, "2026-05-05T09:00:00+00:00", {"org/contractors.yaml": None})  # the profiles removed again
    second = _import(repo, out, header)
    assert [c.sha for c, _ in second.added] == [*later, gone] and second.skipped == [] and second.known == 2
    absent = [str(w) for w in second.warnings if w.code == "absent_document"]
    assert len(absent) == 1 and f"absent from commit {gone[:7]}" in absent[0]
    cat = load_catalog(out / "catalog.yaml")
    assert cat.views[:2] == early  # earlier views are never rewritten
    assert _contractors_views(cat) == [False, False, True, True, False]
    (doc,) = [d for d in cat.documents if f"{d.source}/{d.document}" == CONTRACTORS]
    assert doc.visibility == "restricted" and doc.principals == ["people-ops"]
    assert KOFI not in _members(out, "2026-04-05", "public")
    assert KOFI in _members(out, "2026-04-05", "people-ops")
    assert KOFI not in _members(out, "2026-05-05", "people-ops")
    valid(out)
    assert before != (out / "catalog.yaml").read_text(encoding="utf-8")

    after = (out / "catalog.yaml").read_bytes()
    again = _import(repo, out, header)
    assert again.added == [] and again.warnings == [] and (out / "catalog.yaml").read_bytes() == after  # a no-op


def test_the_typo_check_compares_what_differs_after_the_shared_folders() -> None:
    assert typo_of("rota/oncall.md", {"rota/on-call.md", "rota/holidays.md"}) == " (did you mean 'rota/on-call.md'?)"
    assert typo_of("backstage/org/contractors.yaml", {"backstage/org/groups.yaml", "backstage/org/users.yaml"}) == ""
    assert typo_of("backstage/org/contractor.yaml", {"backstage/org/contractors.yaml"}) != ""
    assert typo_of("backstaeg/org/users.yaml", {"backstage/org/users.yaml"}) != ""  # a misspelt folder too
    assert _whole_path_typo("backstage/org/contractors.yaml", {"backstage/org/groups.yaml"}) != ""  # the old check did
