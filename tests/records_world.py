"""Helpers of the records-importer tests (Backstage, CODEOWNERS, git history): import, ask, verify."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from chainret.pipeline.ask import ask
from chainret.catalog.load import load_catalog
from chainret.catalog.models import Catalog
from chainret.verify.replay import verify
from chainret.sources.records import import_snapshot, read_snapshot, write_import
from chainret.trace.model import Trace
from chainret.evaluate.validate import validate_paths

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "backstage"


def descriptor(kind: str, name: str, spec: str = "", title: str = "") -> str:
    """One Backstage descriptor (``spec.type``, then ``spec``'s lines as given), for a test's own small tree: a
    Component is a service (so "services" reads as every component of the tree), anything else of type ``x``."""
    meta = f"  name: {name}\n" + (f"  title: {title}\n" if title else "")
    kind_of = "service" if kind == "Component" else "x"
    return f"apiVersion: backstage.io/v1alpha1\nkind: {kind}\nmetadata:\n{meta}spec:\n  type: {kind_of}\n{spec}"


def user(name: str, display: str, teams: Sequence[str] = ()) -> str:
    """A Backstage User descriptor with its display name (what a person is called in a request) and the groups it
    says it is a member of (``spec.memberOf``), where given."""
    member_of = f"  memberOf: [{', '.join(teams)}]\n" if teams else ""
    return (f"apiVersion: backstage.io/v1alpha1\nkind: User\nmetadata:\n  name: {name}\nspec:\n"
            f"  profile:\n    displayName: {display}\n{member_of}")


def answer_names(request: str, catalog: Path) -> set[str]:
    """The answers of an accepted, verified ask, each ID's last part (a set answer's every member, else the path's end)."""
    trace = ask(request, catalog)
    assert trace.outcome == "accepted_path", (request, trace.outcome, trace.reason)
    assert verify(trace, catalog).ok
    return {i.rpartition(":")[2] for i in ({a.id for a in trace.answers} if trace.answers else {(trace.path_ids or [""])[-1]})}


def unread(request: str, catalog: Path) -> bool:
    """Whether the ask gives no accepted path (a near wording a rule must leave alone)."""
    return ask(request, catalog).outcome != "accepted_path"


def imported(tree: Path, out: Path, formats: list[str], world: str = "acme", **kw: object) -> Catalog:
    """Import ``tree`` into ``out`` through the library (as ``catalog import --format`` does) and load it back."""
    snap = read_snapshot(tree, formats, world)
    result = import_snapshot(snap, out, world=world, **kw)  # type: ignore[arg-type]
    write_import(result, "import (test)")
    return load_catalog(result.catalog_file)


def records_catalog(root: Path, descriptors: list[str], files: dict[str, str] | None = None) -> Path:
    """A test's own small records tree at ``root`` (one ``catalog-info.yaml`` of these descriptors, and each of ``files``
    by its relative path: a CODEOWNERS file and the files it covers), imported as Backstage, plus CODEOWNERS where a
    file of that name is given; the catalog file written beside the tree."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in (files or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "catalog-info.yaml").write_text("\n---\n".join(descriptors), encoding="utf-8")
    out = root.parent / "cat.yaml"
    imported(root, out, ["backstage", "codeowners"] if "CODEOWNERS" in (files or {}) else ["backstage"])
    return out


def path_of(request: str, catalog: Path, view: str | None = None) -> list[str]:
    trace = ask(request, catalog, view=view)
    assert trace.outcome == "accepted_path", (request, trace.outcome, trace.model_dump(mode="json").get("reason"))
    assert trace.path_ids is not None
    return trace.path_ids


def verified(trace: Trace, catalog: Path) -> str:
    v = verify(trace, catalog)
    assert v.ok, v.differences
    return v.status


def valid(path: Path) -> None:
    reports = validate_paths([path])
    errors = [str(i) for r in reports for i in r.issues if i.severity == "error"]
    assert reports and all(r.valid for r in reports), errors


def quoted_lines_hold(cat: Catalog, files: dict[str, str]) -> int:
    """Every relation's unit quotes, just before its clause, a source line that is verbatim the file's line.

    ``files``: document name (as rendered) -> the record file's text. Returns the relations checked.
    """
    checked = 0
    for rel in cat.relations:
        unit = cat.supporting_unit(rel)
        assert unit is not None, rel.id
        doc = cat.documents_by_ref[rel.support.doc_ref]
        assert doc.text[rel.support.span[0]:rel.support.span[1]] == rel.support.quote == rel.clause
        before = doc.text[unit.start:rel.support.span[0]]
        quotes = re.findall(r"^line (\d+): `(.*)`$", before, re.MULTILINE)
        assert quotes, (rel.id, before)
        n, quoted = int(quotes[-1][0]), quotes[-1][1]
        source = files[rel.support.document].split("\n")
        assert source[n - 1].strip() == quoted, (rel.id, n, quoted)
        checked += 1
    return checked


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CHAINRET_TRACE_DIR": str(cwd / "traces"), "COLUMNS": "200", "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.run([sys.executable, "-m", "chainret", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    return proc


# A set answer: team-a of the Backstage example has two members (has_member is many-valued), one of them with a
# display name that is markup and a bidi override (data, shown escaped on every surface, never obeyed).
TEAM_A = "group:acme:default.team-a"
SET_REQUEST = "Who is on team-a?"
HOSTILE_MEMBER = '<b onmouseover="alert(1)">Janelle</b>\u202eDawe'
MEMBERS = {"user:acme:default.breanna.davison": "Breanna Davison", "user:acme:default.janelle.dawe": HOSTILE_MEMBER}


def set_world(tmp: Path) -> Path:
    """The Backstage example's records, one member renamed to ``HOSTILE_MEMBER``, imported: the catalog file."""
    import json
    import shutil

    tree = tmp / "records"
    shutil.copytree(EXAMPLE / "records", tree)
    users = tree / "org" / "users.yaml"
    text = users.read_text(encoding="utf-8")
    assert "displayName: Janelle Dawe" in text
    users.write_text(text.replace("displayName: Janelle Dawe", f"displayName: {json.dumps(HOSTILE_MEMBER)}"), encoding="utf-8")
    out = tmp / "catalog" / "catalog.yaml"
    imported(tree, out, ["backstage"])
    return out
