"""Make a small git repository whose history reassigns owners: the input of ``chainret catalog history``.

    python examples/backstage/make_history.py /tmp/acme-repo

Three commits of the records in ``examples/backstage/records`` (fixed dates and author, so the
hashes are the same on every machine):

1. 2026-01-15  the tree, with artist-lookup owned by team-a and /components/ owned by @acme/team-a;
2. 2026-02-20  artist-lookup moves to team-b (components/catalog-info.yaml, line 10);
3. 2026-03-10  CODEOWNERS: /components/ moves to @acme/team-b; a user joins team-b.

The last commit is the tree as it is in ``records/``. Plain git, nothing fetched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

RECORDS = Path(__file__).resolve().parent / "records"
STEPS = [
    ("2026-01-15T09:00:00+00:00", "Initial Acme records",
     {"components/catalog-info.yaml": ("  owner: team-b\n  system: artist-engagement-portal\n  providesApis",
                                       "  owner: team-a\n  system: artist-engagement-portal\n  providesApis"),
      ".github/CODEOWNERS": ("/components/              @acme/team-b", "/components/              @acme/team-a"),
      "org/users.yaml": ("memberOf:\n    - group:default/team-b\n", "memberOf: [team-a]\n")}),
    ("2026-02-20T14:30:00+00:00", "artist-lookup moves to team-b",
     {".github/CODEOWNERS": ("/components/              @acme/team-b", "/components/              @acme/team-a"),
      "org/users.yaml": ("memberOf:\n    - group:default/team-b\n", "memberOf: [team-a]\n")}),
    ("2026-03-10T11:15:00+00:00", "CODEOWNERS: /components/ to team-b; Nigel joins team-b", {}),
]


def _git(repo: Path, *args: str, date: str | None = None) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Acme Records", "GIT_AUTHOR_EMAIL": "records@example.com",
           "GIT_COMMITTER_NAME": "Acme Records", "GIT_COMMITTER_EMAIL": "records@example.com",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def make(repo: Path) -> Path:
    """Create the repository at ``repo`` (which must not exist or be empty)."""
    if repo.exists() and any(repo.iterdir()):
        raise SystemExit(f"{repo} exists and is not empty")
    repo.mkdir(parents=True, exist_ok=True)
    _git(repo, "init", "-q", "-b", "main")
    for date, message, edits in STEPS:
        for src in sorted(RECORDS.rglob("*")):
            if src.is_file():
                rel = src.relative_to(RECORDS).as_posix()
                text = src.read_text(encoding="utf-8")
                if rel in edits:
                    old, new = edits[rel]
                    assert old in text, (rel, old)
                    text = text.replace(old, new)
                target = repo / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", message, date=date)
    return repo


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    where = make(Path(sys.argv[1]))
    print(f"made {where}: {len(STEPS)} commits")
    if shutil.which("git"):
        subprocess.run(["git", "-C", str(where), "log", "--format=%h %cs %s"], check=False)
