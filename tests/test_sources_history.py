"""git history -> versions and views: as-of answers, old traces keep verifying, incremental re-runs."""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from records_world import EXAMPLE, cli, path_of, valid, verified

from chainret.pipeline.ask import ask
from chainret.catalog.load import load_catalog
from chainret.catalog.views import as_of_view
from chainret.core.errors import UsageError
from chainret.sources.history import history
from chainret.sources.records import write_import

E = "codeowner:acme:"
ARTIST = "component:acme:default.artist-lookup"
FORMATS = ["backstage", "codeowners"]


def _make_repo(where: Path) -> Path:
    spec = importlib.util.spec_from_file_location("make_history", EXAMPLE / "make_history.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.make(where)  # type: ignore[no-any-return]


def _run(repo: Path, out: Path) -> list[str]:
    res = history(repo, out, FORMATS, world="acme")
    if res.result is not None and res.added:
        write_import(res.result, "history (test)")
    return [name for _, name in res.added]


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    return _make_repo(tmp_path / "repo")


def test_each_commit_is_a_view_and_dates_answer_as_of(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "cat" / "catalog.yaml"
    views = _run(repo, out)
    log = subprocess.run(["git", "-C", str(repo), "log", "--reverse", "--format=%cs-%h", "--abbrev=7"],
                         capture_output=True, text=True, check=True).stdout.split()
    assert views == log and len(views) == 3
    valid(out.parent)
    team_a, team_b = [ARTIST, "group:acme:default.team-a"], [ARTIST, "group:acme:default.team-b"]
    assert path_of("Who owns artist-lookup?", out, view="2026-02-01") == team_a
    assert path_of("Who owns artist-lookup?", out, view="2026-03-01") == team_b  # the 20 February commit
    assert path_of("Who owns artist-lookup?", out, view=views[0]) == team_a
    assert path_of("Who owns artist-lookup?", out, view=views[0][-7:]) == team_a  # a commit hash
    assert path_of("Who owns artist-lookup?", out) == team_b
    members = path_of("Who is on the team that owns artist-lookup?", out)
    assert members[-1] == "user:acme:default.nigel.manning"  # joined team-b in the third commit
    assert path_of("Who owns components/catalog-info.yaml?", out, view="2026-02-28")[-1] == E + "team.acme.team-a"
    assert path_of("Who owns components/catalog-info.yaml?", out)[-1] == E + "team.acme.team-b"
    cat = load_catalog(out)
    assert as_of_view(cat.views, "2025-12-31") is None  # before the first commit: no view


def test_new_commits_append_old_traces_verify_and_a_rerun_is_a_no_op(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "cat" / "catalog.yaml"
    first = _run(repo, out)
    old = ask("Who owns artist-lookup?", out, view="2026-02-01")
    assert old.path_ids == [ARTIST, "group:acme:default.team-a"]
    before = out.read_bytes()
    assert _run(repo, out) == [] and out.read_bytes() == before  # nothing new: nothing written

    f = repo / "components" / "catalog-info.yaml"
    f.write_text(f.read_text(encoding="utf-8").replace("  owner: team-b\n  system: artist", "  owner: engineering\n  system: artist"),
                 encoding="utf-8")
    env_date = "2026-04-02T08:00:00+00:00"
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qam", "to engineering"],
                   check=True, env={"GIT_AUTHOR_DATE": env_date, "GIT_COMMITTER_DATE": env_date, "PATH": "/usr/bin:/bin"})
    added = _run(repo, out)
    assert len(added) == 1 and added[0].startswith("2026-04-02-")
    cat = load_catalog(out)
    assert [v.name for v in cat.views] == [*first, *added]
    assert path_of("Who owns artist-lookup?", out) == [ARTIST, "group:acme:default.engineering"]
    assert path_of("Who owns artist-lookup?", out, view="2026-03-31") == [ARTIST, "group:acme:default.team-b"]
    assert verified(old, out) == "evidence_intact"  # the catalog changed; what the old trace cites did not
    changed = {d.document for d in cat.documents if d.version != "v1"}
    assert "components/catalog-info.yaml" in changed and "org/groups.yaml" not in changed  # unchanged files keep v1


def test_the_cli_walks_history_and_asks_by_date(repo: Path, tmp_path: Path) -> None:
    built = cli("catalog", "history", str(repo), "--format", "backstage", "--world", "acme", "--out", "hist", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    assert "3 new views" in " ".join(built.stdout.split())
    views = [v.name for v in load_catalog(tmp_path / "hist" / "catalog.yaml").views]
    told = [line.strip() for line in built.stdout.splitlines() if line.strip().startswith("chainret ")]
    assert told[0].startswith("chainret ask ") and told[0].endswith(f"--catalog hist --view {views[-1]}"), built.stdout
    assert told[1] == f"chainret catalog diff {views[0]} {views[-1]} --catalog hist"
    nxt = cli(*shlex.split(told[0])[1:], "--no-trace", cwd=tmp_path)  # the next step runs as printed
    assert nxt.returncode == 0 and "answer" in nxt.stdout and views[-1] in nxt.stdout, nxt.stdout
    asked = cli("ask", "Who owns artist-lookup?", "--catalog", "hist", "--view", "2026-02-01", "--no-trace", cwd=tmp_path)
    assert asked.returncode == 0 and "Team A" in asked.stdout
    again = cli("catalog", "history", str(repo), "--format", "backstage", "--world", "acme", "--out", "hist", cwd=tmp_path)
    assert again.returncode == 0 and "up to date" in again.stdout
    bad = cli("catalog", "history", str(repo), "--rev", "--upload-pack=x", "--format", "backstage", "--out", "h2", cwd=tmp_path)
    assert bad.returncode == 2 and "--rev" in bad.stderr and not (tmp_path / "h2").exists()


def test_catalog_diff_takes_a_date_or_a_hash_as_view_does(repo: Path, tmp_path: Path) -> None:
    from chainret.authoring.diff import diff_views

    out = tmp_path / "cat" / "catalog.yaml"
    views = _run(repo, out)
    cat = load_catalog(out)
    by_name = diff_views(cat, views[0], views[-1])  # negative control: view names work as they did
    assert (by_name.view_a, by_name.view_b) == (views[0], views[-1]) and by_name.changed
    for a, b in (("2026-02-01", views[-1]), (views[0][-7:], "2026-03-10"), (views[0], views[-1][-7:])):
        d = diff_views(cat, a, b)  # a date: the last commit on or before it; a hash: that commit
        assert (d.view_a, d.view_b) == (views[0], views[-1]) and d.to_dict()["relations"] == by_name.to_dict()["relations"]
    with pytest.raises(UsageError, match=f"no commit on or before 2025-12-31: the first view of this catalog is {views[0]}"):
        diff_views(cat, "2025-12-31", views[-1])
    with pytest.raises(UsageError, match="unknown view 'nope'"):
        diff_views(cat, "nope", views[-1])
    with pytest.raises(UsageError, match="no commit on or before 2025-12-31"):  # --view says it the same way
        ask("Who owns artist-lookup?", out, view="2025-12-31")
    shown = cli("catalog", "diff", "2026-02-01", views[-1][-7:], "--catalog", "cat", cwd=tmp_path)
    assert shown.returncode == 0 and f"{views[0]} -> {views[-1]}" in shown.stdout, shown.stdout + shown.stderr


def test_a_compiled_store_answers_as_of_a_date_too(repo: Path, tmp_path: Path) -> None:
    from chainret.store import compile_store

    out = tmp_path / "cat" / "catalog.yaml"
    _run(repo, out)
    db = tmp_path / "cat.db"
    compile_store(load_catalog(out), db)
    assert path_of("Who owns artist-lookup?", db, view="2026-02-01") == [ARTIST, "group:acme:default.team-a"]
    assert path_of("Who owns artist-lookup?", db, view="2026-03-01") == [ARTIST, "group:acme:default.team-b"]


def test_a_tables_history_is_a_view_per_commit(tmp_path: Path) -> None:
    import shutil

    registry = EXAMPLE.parent / "service-registry"
    src = tmp_path / "records"
    shutil.copytree(registry / "records", src)
    header = src / "chainret.yaml"  # its cases name the example's own views (2026-01, 2026-02): not this history's
    header.write_text(header.read_text(encoding="utf-8").split("\ncases:")[0] + "\n", encoding="utf-8")
    repo = tmp_path / "cmdb"
    (repo / "exports").mkdir(parents=True)
    git = ["git", "-C", str(repo), "-c", "user.name=T", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    for month, when in (("01", "2026-01-31T12:00:00+00:00"), ("02", "2026-02-28T12:00:00+00:00")):
        shutil.copy(registry / "exports" / f"ownership-2026-{month}.csv", repo / "exports" / "ownership.csv")
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-qm", f"export {month}"], check=True,
                       env={"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when, "PATH": "/usr/bin:/bin"})
    out = tmp_path / "cat" / "catalog.yaml"
    res = history(repo, out, ["csv"], path="exports/ownership.csv", src=src, document="cmdb/ownership.md")
    assert [name[:10] for _, name in res.added] == ["2026-01-31", "2026-02-28"] and res.result is not None
    write_import(res.result, "history (test)")
    ask_owner = "Which team owns reservation-gateway?"
    assert path_of(ask_owner, out, view="2026-02-01")[-1] == "team:services:inventory"
    assert path_of(ask_owner, out)[-1] == "team:services:checkout"
    assert history(repo, out, ["csv"], path="exports/ownership.csv", src=src, document="cmdb/ownership.md").added == []
    with pytest.raises(UsageError, match="--document"):
        history(repo, out, ["csv"], path="exports/ownership.csv", src=src)


def test_the_example_readmes_walk_runs_as_written_and_prints_what_it_quotes(tmp_path: Path) -> None:
    readme = (EXAMPLE / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```(\w*)\n(.*?)```", readme, re.DOTALL)
    walk = [line for line in blocks[0][1].splitlines() if line.strip()]
    assert len(walk) == 3 and walk[0].startswith("python examples/backstage/make_history.py")
    outputs = []
    for line in walk:
        argv = shlex.split(line)
        if argv[0] == "python":
            subprocess.run([sys.executable, str(EXAMPLE.parents[1] / argv[1]), *argv[2:]], cwd=tmp_path, check=True,
                           capture_output=True)
            continue
        proc = cli(*argv[1:], cwd=tmp_path)
        assert proc.returncode == 0, (line, proc.stdout, proc.stderr)
        outputs.append(" ".join(proc.stdout.split()))
    for quoted in blocks[1][1].strip().splitlines():  # the history command's output, as the README shows it
        assert " ".join(quoted.split()) in outputs[0]
    answer = re.search(r"\(`(answer +[^`]+)`, `view ([^`]+)`\)", readme)
    assert answer is not None
    assert " ".join(answer.group(1).split()) in outputs[1] and answer.group(2) in outputs[1]
