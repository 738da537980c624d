"""git history: what git's output holds is read as git wrote it, whatever a file name or a commit message says.

Repositories are built with git's plumbing (``hash-object``, ``update-index -z --index-info``), so
a tree can hold any name git allows (newline, tab, unicode), a symbolic link or a submodule entry,
without a working tree that must hold them. Each imported document is checked against the blob
that its commit holds at its path (the rendered document quotes the sha256 of that blob's text).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from records_world import cli

from chainret.authoring.header import SourceInvalid
from chainret.catalog.load import load_catalog
from chainret.core.errors import ChainretError
from chainret.sources.history import history
from chainret.sources.records import write_import

DESCRIPTOR = "apiVersion: backstage.io/v1alpha1\nkind: Group\nmetadata:\n  name: {name}\nspec:\n  type: team\n  children: []\n"
COMMIT_OF = re.compile(r"^commit ([0-9a-f]{40}) ")
QUOTED = re.compile(r"from (.+?) \(sha256:([0-9a-f]{64}), \d+ lines\)", re.DOTALL)


def group(name: str) -> bytes:
    return DESCRIPTOR.format(name=name).encode("utf-8")


class Repo:
    """A git repository whose commits are written from a model: path -> file bytes, link or submodule.

    Each commit is one ``git fast-import`` run: its paths are C-quoted, so any name git allows can be
    written, and no working tree has to hold it.
    """

    def __init__(self, where: Path) -> None:
        self.path = where
        self.head: str | None = None  # the next commit's parent (main's tip)
        self.trees: dict[str, dict[str | bytes, tuple[str, bytes]]] = {}  # commit -> path -> (kind, content)
        subprocess.run(["git", "init", "-q", "-b", "main", str(where)], check=True, env=self._env())

    def _env(self) -> dict[str, str]:
        return {"PATH": os.environ["PATH"], "HOME": str(self.path), "GIT_CONFIG_NOSYSTEM": "1"}

    def git(self, *args: str, stdin: bytes | None = None) -> bytes:
        return subprocess.run(["git", "-C", str(self.path), *args], input=stdin, capture_output=True, check=True,
                              env=self._env()).stdout

    def commit(self, tree: dict[str | bytes, tuple[str, bytes]], message: str = "records") -> str:
        """A commit on main whose tree is exactly ``tree``: ("file", bytes), ("link", target) or ("submodule", id)."""
        when = 1767268800 + 86400 * len(self.trees)  # 2026-01-01 12:00 UTC, a day per commit
        msg = message.encode("utf-8")
        stream = [b"commit refs/heads/main\n", f"committer T <t@example.com> {when} +0000\n".encode("ascii"),
                  f"data {len(msg)}\n".encode("ascii"), msg, b"\n"]
        stream += [f"from {self.head}\n".encode("ascii")] if self.head else []
        stream.append(b"deleteall\n")
        for path, (kind, content) in tree.items():
            quoted = b'"' + b"".join(bytes([c]) if 32 < c < 127 and c not in b'"\\' else b"\\%03o" % c
                                     for c in (path if isinstance(path, bytes) else path.encode("utf-8"))) + b'"'
            if kind == "submodule":
                stream.append(b"M 160000 " + content + b" " + quoted + b"\n")
            else:
                mode = b"120000" if kind == "link" else b"100644"
                stream += [b"M " + mode + b" inline " + quoted + b"\n", f"data {len(content)}\n".encode("ascii"), content, b"\n"]
        self.git("fast-import", "--quiet", "--force", stdin=b"".join(stream))
        self.head = self.git("rev-parse", "refs/heads/main").decode("ascii").strip()
        self.trees[self.head] = tree
        return self.head


def imported(out: Path) -> dict[str, dict[str, str]]:
    """commit -> backstage document path -> the sha256 its rendered text quotes, for every view."""
    cat = load_catalog(out)
    docs = {d.ref: d for d in cat.documents}
    found: dict[str, dict[str, str]] = {}
    for v in cat.views:
        m = COMMIT_OF.match(v.description)
        assert m is not None, v.description
        for ref in v.documents:
            d = docs[ref]
            if d.source == "backstage":
                q = QUOTED.search(d.text)
                assert q is not None and q.group(1) == d.document, d.text[:200]
                found.setdefault(m.group(1), {})[d.document] = q.group(2)
    return found


def text_digest(blob: bytes) -> str:
    """The sha256 a rendered descriptor quotes: of the blob's text as the reader normalises it."""
    text = blob.decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def build(repo: Repo, out: Path, **kw: object) -> list[str]:
    res = history(repo.path, out, ["backstage"], world="w", **kw)  # type: ignore[arg-type]
    if res.result is not None and res.added:
        write_import(res.result, "history (test)")
    return [str(w) for w in res.warnings]


def held(repo: Repo, out: Path) -> None:
    """Every imported document's digest is the one of the blob its commit holds at that path (a regular file)."""
    for sha, docs in imported(out).items():
        for path, digest in docs.items():
            kind, content = repo.trees[sha][path]
            assert kind == "file", (sha, path, kind)
            assert digest == text_digest(content), (sha, path)


# -- 1. a file name with a newline cannot add a request to git's batch ---------------------------------------------

def test_a_newline_in_a_file_name_cannot_import_another_branchs_blob(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    base = repo.commit({"a/catalog-info.yaml": ("file", group("team-a"))})
    side = repo.commit({"x/catalog-info.yaml": ("file", group("forged"))})  # then dropped from main
    repo.head = base  # the side commit is on no branch the history walks
    forged = f"0\n{side}:x/catalog-info.yaml"  # old: "<commit>:0" (missing) then "<side>:x/catalog-info.yaml" went to git
    repo.commit({"a/catalog-info.yaml": ("file", group("team-a")), forged: ("file", group("decoy")),
                 "b/catalog-info.yaml": ("file", group("team-b"))})
    out = tmp_path / "cat" / "catalog.yaml"
    build(repo, out)
    cat = load_catalog(out)
    assert not any("forged" in e.id for e in cat.entities)
    held(repo, out)


def test_without_the_odd_name_the_same_commit_imports_every_file(tmp_path: Path) -> None:  # negative control
    repo = Repo(tmp_path / "repo")
    repo.commit({"a/catalog-info.yaml": ("file", group("team-a"))})
    sha = repo.commit({"a/catalog-info.yaml": ("file", group("team-a")), "b/catalog-info.yaml": ("file", group("team-b"))})
    out = tmp_path / "cat" / "catalog.yaml"
    build(repo, out)
    assert set(imported(out)[sha]) == {"a/catalog-info.yaml", "b/catalog-info.yaml"}
    held(repo, out)


# -- 2 and 3. a submodule entry is skipped with a warning; a commit message is never read as git's answer ----------

@pytest.mark.parametrize("message", ["plain", "x blob notanumber\n\nx blob 12\ny commit 40"])
def test_a_submodule_named_like_a_descriptor_is_skipped_and_the_rest_kept(tmp_path: Path, message: str) -> None:
    repo = Repo(tmp_path / "repo")
    inner = repo.commit({"notes.txt": ("file", b"not records\n")}, message=message)  # the submodule points here
    kept = {f"{t}/catalog-info.yaml": ("file", group(f"team-{t}")) for t in "bcdefg"}  # enough to reach the message
    sha = repo.commit({"a/catalog-info.yaml": ("submodule", inner.encode("ascii")), **kept})
    out = tmp_path / "cat" / "catalog.yaml"
    warnings = build(repo, out)  # old: the view held no document; with the message, ValueError
    assert set(imported(out)[sha]) == set(kept)
    held(repo, out)
    assert any(f"{sha[:7]}:a/catalog-info.yaml" in w and "submodule" in w for w in warnings), warnings


def test_a_submodule_elsewhere_warns_of_nothing(tmp_path: Path) -> None:  # negative control
    repo = Repo(tmp_path / "repo")
    inner = repo.commit({"notes.txt": ("file", b"x blob notanumber\n")}, message="x blob notanumber")
    sha = repo.commit({"vendor/lib": ("submodule", inner.encode("ascii")), "b/catalog-info.yaml": ("file", group("team-b"))})
    out = tmp_path / "cat" / "catalog.yaml"
    assert build(repo, out) == []
    assert set(imported(out)[sha]) == {"b/catalog-info.yaml"}


def test_a_symbolic_link_named_like_a_descriptor_is_skipped_with_a_warning(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    sha = repo.commit({"a/catalog-info.yaml": ("link", b"../b/catalog-info.yaml"),
                       "b/catalog-info.yaml": ("file", group("team-b"))})
    out = tmp_path / "cat" / "catalog.yaml"
    warnings = build(repo, out)
    assert set(imported(out)[sha]) == {"b/catalog-info.yaml"}
    assert any("a/catalog-info.yaml" in w and "symbolic link" in w for w in warnings), warnings


def test_a_file_name_that_is_not_utf8_is_skipped_with_a_warning(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")  # two names that would both read as "\ufffd/catalog-info.yaml"
    sha = repo.commit({b"\xff/catalog-info.yaml": ("file", group("x")), b"\xfe/catalog-info.yaml": ("file", group("y")),
                       "b/catalog-info.yaml": ("file", group("team-b"))})
    out = tmp_path / "cat" / "catalog.yaml"
    warnings = build(repo, out)
    assert set(imported(out)[sha]) == {"b/catalog-info.yaml"}
    assert sum("not UTF-8" in w for w in warnings) == 2, warnings


# -- 4. a refused file name is named as the repository names it, escaped -------------------------------------------

def test_a_refused_file_name_is_the_repository_path_shown_escaped(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    first = repo.commit({"a/catalog-info.yaml": ("file", group("team-a"))})
    odd = repo.commit({"a/catalog-info.yaml": ("file", group("team-a")), "we\nird/catalog-info.yaml": ("file", group("w"))})
    res = history(repo.path, tmp_path / "cat", ["backstage"], world="w")
    assert [c.sha for c, _ in res.added] == [first]
    (skipped, why), = res.skipped
    assert skipped.sha == odd and f"{odd[:7]}:we\\nird/catalog-info.yaml" in why and "chainret-" not in why, why
    with pytest.raises(SourceInvalid) as err:
        history(repo.path, tmp_path / "cat2", ["backstage"], world="w", strict=True)
    assert [i.file for i in err.value.issues] == [f"{odd[:7]}:we\\nird/catalog-info.yaml"]
    proc = cli("catalog", "history", str(repo.path), "--format", "backstage", "--strict", "--out", "c3", cwd=tmp_path)
    assert proc.returncode == 2 and "we\\nird/catalog-info.yaml" in proc.stderr and "chainret-" not in proc.stderr


def test_a_refused_file_name_with_a_space_names_the_repository_path_too(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    odd = repo.commit({"we ird/catalog-info.yaml": ("file", group("w"))})
    res = history(repo.path, tmp_path / "cat", ["backstage"], world="w")
    (skipped, why), = res.skipped
    assert skipped.sha == odd and f"{odd[:7]}:we ird/catalog-info.yaml:" in why and "chainret-" not in why, why


# -- the property: whatever the tree holds, a document is the blob its commit holds there -------------------------

NAMES = ["a/catalog-info.yaml", "b/c/catalog-info.yaml", "tab\there/catalog-info.yaml", "new\nline/catalog-info.yaml",
         "ünïcødé/catalog-info.yaml", "日本/catalog-info.yaml", "q\"uote/catalog-info.yaml", "back\\slash/catalog-info.yaml",
         "groups.yaml", "sp ace/catalog-info.yaml", ".hidden/catalog-info.yaml", "img/logo.png", "data/blob.yaml"]
KINDS = st.sampled_from(["file", "file", "file", "binary", "link", "submodule", "crlf"])


@st.composite
def histories(draw: st.DrawFn) -> list[dict[str, str]]:
    """Two or three commits: each a map of path -> kind, drawn from odd names (renames happen as one path
    leaves and another arrives with the same content)."""
    return draw(st.lists(st.dictionaries(st.sampled_from(NAMES), KINDS, min_size=1, max_size=5), min_size=2, max_size=3))


def content(path: str, kind: str, sub: str) -> tuple[str, bytes]:
    name = "g-" + hashlib.sha1(path.encode("utf-8")).hexdigest()[:8]  # one entity per path: no duplicate definitions
    if kind == "binary":
        return "file", b"\x00\xff\xfe binary \x80"
    if kind == "link":
        return "link", b"../a/catalog-info.yaml"
    if kind == "submodule":
        return "submodule", sub.encode("ascii")
    body = group(name)
    return "file", body.replace(b"\n", b"\r\n") if kind == "crlf" else body


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(histories())
def test_any_tree_imports_only_the_blobs_its_commits_hold(tmp_path_factory: pytest.TempPathFactory,
                                                          commits: list[dict[str, str]]) -> None:
    where = tmp_path_factory.mktemp("fuzz")
    repo = Repo(where / "repo")
    sub = repo.commit({"x blob notanumber": ("file", b"x blob notanumber\n")}, message="x blob notanumber\ny blob 3")
    for spec in commits:
        repo.commit({p: content(p, k, sub) for p, k in spec.items()}, message="x blob notanumber")
    out = where / "cat" / "catalog.yaml"
    try:
        res = history(repo.path, out, ["backstage"], world="w")
    except ChainretError:
        return  # a typed refusal (for instance the whole catalog's checks): never anything else
    if res.result is not None and res.added:
        write_import(res.result, "history (test)")
        held(repo, out)
        for sha, docs in imported(out).items():  # nothing lost: every clean descriptor of a commit with a view
            clean = {p for p, (k, c) in repo.trees[sha].items() if k == "file" and p.endswith("/catalog-info.yaml")
                     and not re.search(r"[\s@#]", p) and not p.startswith(".") and c.startswith(b"apiVersion")}
            assert clean <= set(docs), (sha, clean, docs)
