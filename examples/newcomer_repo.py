"""What every newcomer world script writes the same way: Backstage descriptors and a dated git history.

A newcomer example's ``make_repo.py`` states its world (who is on which team, what owns what, the
CODEOWNERS file) step by step; how a descriptor is laid out and how the steps become commits with fixed
authors and dates is the same for every world, so it is written once here. Fixed identities and dates
make the commit hashes, and the view names chainret derives from them (``<date>-<short hash>``), the same
on every machine. Plain text, not a YAML library: the layout of each descriptor line is part of what
the importer quotes (line numbers included), so it is written exactly. examples/ is no package: a world
script puts this folder on ``sys.path`` to import this module.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

# (step, ISO date with offset, author's name, commit message)
Commit = tuple[int, str, str, str]


def doc(kind: str, name: str, meta: list[str], spec: list[str]) -> str:
    """One Backstage descriptor: ``metadata.name``, then ``meta`` and ``spec`` lines as given."""
    lines = ["apiVersion: backstage.io/v1alpha1", f"kind: {kind}", "metadata:", f"  name: {name}"]
    lines += [f"  {m}" for m in meta]
    lines.append("spec:")
    lines += [f"  {s}" for s in spec]
    return "\n".join(lines) + "\n"


def block_list(key: str, values: list[str] | None) -> list[str]:
    """A block list field (``key:`` then ``- value`` lines), or nothing."""
    if not values:
        return []
    return [f"{key}:", *(f"  - {v}" for v in values)]


@dataclass(frozen=True)
class Descriptors:
    """The descriptor kinds a world's people and software are written as. ``org``: the GitHub organisation
    in each component's project slug; ``domain``: the e-mail domain; ``where``: the group descriptions' tail."""

    org: str
    repo: str
    domain: str
    where: str

    def group(self, name: str, title: str, gtype: str, parent: str | None, children: list[str],
              members: list[str] | None = None) -> str:
        spec = [f"type: {gtype}", "profile:", f"  displayName: {title}", f"  email: {name}@{self.domain}"]
        if parent:
            spec.append(f"parent: {parent}")
        spec.append("children: [" + ", ".join(children) + "]")
        spec += block_list("members", members)
        return doc("Group", name, [f"description: {title}, {self.where}"], spec)

    def user(self, name: str, display: str, teams: list[str]) -> str:
        spec = ["profile:", f"  displayName: {display}", f"  email: {name}@{self.domain}",
                "memberOf: [" + ", ".join(teams) + "]"]
        return doc("User", name, [], spec)

    def component(self, name: str, title: str, owner: str | None, system: str, *, ctype: str = "service",
                  provides: list[str] | None = None, consumes: list[str] | None = None,
                  depends: list[str] | None = None) -> str:
        spec = [f"type: {ctype}", "lifecycle: production"]
        if owner:
            spec.append(f"owner: {owner}")
        spec.append(f"system: {system}")
        spec += block_list("providesApis", provides) + block_list("consumesApis", consumes) + block_list("dependsOn", depends)
        meta = [f"title: {title}", "annotations:", f"  github.com/project-slug: {self.org}/{self.repo}"]
        return doc("Component", name, meta, spec)

    def api(self, name: str, title: str, owner: str | None, system: str, api_type: str = "openapi",
            version: str = "1.0.0") -> str:
        spec = [f"type: {api_type}", "lifecycle: production", *([f"owner: {owner}"] if owner else []),
                f"system: {system}", "definition: |", "  openapi: 3.0.0",
                f"  info: {{title: {title}, version: {version}}}", "  paths: {}"]
        return doc("API", name, [f"title: {title}"], spec)

    def resource(self, name: str, title: str, rtype: str, owner: str | None, system: str) -> str:
        spec = [f"type: {rtype}", *([f"owner: {owner}"] if owner else []), f"system: {system}"]
        return doc("Resource", name, [f"title: {title}"], spec)


def build_history(root: Path, commits: Sequence[Commit], files_at: Callable[[int], dict[str, str]],
                  domain: str) -> None:
    """Write every step of the history into a new git repository at ``root``: each commit's tree is
    ``files_at(step)`` whole (a file missing from it is deleted), committed by its author at its date."""
    root.mkdir(parents=True, exist_ok=True)
    if any(root.iterdir()):
        raise SystemExit(f"{root} is not empty")
    env_base = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env_base.update({"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull})

    def git(*args: str, env: dict[str, str] | None = None) -> None:
        subprocess.run(["git", *args], cwd=root, check=True, env=env or env_base, stdout=subprocess.DEVNULL)

    git("init", "-q", "-b", "main")
    previous: set[str] = set()
    for step, date, author, message in commits:
        files = files_at(step)
        for gone in previous - set(files):
            (root / gone).unlink()
        for rel, text in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        previous = set(files)
        email = author.lower().replace(" ", ".") + f"@{domain}"
        env = dict(env_base)
        env.update(GIT_AUTHOR_NAME=author, GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_NAME=author,
                   GIT_COMMITTER_EMAIL=email, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
        git("add", "-A", env=env)
        git("commit", "-q", "-m", message, env=env)


def main(argv: list[str], build: Callable[[Path], None], usage: str) -> int:
    """``make_repo.py DIR``: build the world's repository at DIR, else print the usage line."""
    if len(argv) != 2:
        print(usage, file=sys.stderr)
        return 2
    build(Path(argv[1]))
    return 0
