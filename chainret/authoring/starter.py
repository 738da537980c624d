"""``chainret catalog init DIR``: a small starter world that validates and answers out of the box.

It writes a source folder ``DIR/source`` (the header ``chainret.yaml`` and three documents, with
comments saying what to edit) and builds it into ``DIR`` (``catalog.yaml`` + ``cases.yaml``), so
``chainret validate DIR`` and ``chainret ask "Who is on call for Atlas?" --catalog DIR`` work at
once. Rebuild after editing with ``chainret catalog build DIR/source --out DIR``.
"""

from __future__ import annotations

from pathlib import Path

from chainret.core.errors import UsageError

HEADER = """\
# The hand-written header of this source folder: everything chainret cannot read from the files.
# Edit it, then rebuild:  chainret catalog build {src} --out {out}
# Digests, spans, units, relation IDs, versions and views are computed: never type them.
format: chainret-source/1
world: starter            # every entity ID is type:<world>:name
description: Projects, the teams that own them, and who is on call for each team.

# Entities: canonical ID, display name (need not be unique) and aliases people use in requests.
entities:
  - id: project:starter:atlas
    name: Atlas
    aliases: [PRJ-1]
  - id: project:starter:beacon
    name: Beacon
    aliases: [PRJ-2]
  - id: team:starter:platform
    name: Platform team
  - id: team:starter:payments
    name: Payments team
  - id: person:starter:ana
    name: Ana Silva
  - id: person:starter:ben
    name: Ben Okafor

# Predicates: name, the entity types it joins, and whether a subject has one current object.
predicates:
  - name: owned_by
    domain: project
    range: team
    cardinality: functional
  - name: on_call
    domain: team
    range: person
    cardinality: functional

# Patterns: the relationship requests chainret answers (one {{slot}} named after start_type).
patterns:
  - name: on_call_for_project
    start_type: project
    hops: [owned_by, on_call]
    phrasings:
      - who is on call for {{project}}
      - who is on call for project {{project}}

# Per-document settings (optional). Files not listed are public; the first folder of a path is
# the source system (registry/projects.md -> source registry, document projects.md).
documents:
  - path: rota/on-call.md
    title: On-call rota
  # - path: hr/contracts.md
  #   visibility: restricted
  #   principals: [auditor]

# Prose support: a relation cited by an ordinary sentence that names both ends (by ID, name or
# alias). quote is optional; after an edit the build finds the sentence again (--refresh: rewrite it).
relations:
  - subject: team:starter:platform
    predicate: on_call
    object: person:starter:ana
    document: rota/on-call.md
    quote: This week Ana Silva is on call for the Platform team.
  - subject: team:starter:payments
    predicate: on_call
    object: person:starter:ben
    document: rota/on-call.md
    quote: Ben Okafor covers the Payments team until Friday.

# Cases: requests with the outcome you expect (chainret eval {out} runs them). An accepted path is
# written as entity IDs; the builder finds the relations.
cases:
  - id: atlas-on-call
    request: Who is on call for Atlas?
    group: positive
    expect: {{outcome: accepted_path, path: [project:starter:atlas, team:starter:platform, person:starter:ana]}}
  - id: unknown-project
    request: Who is on call for Zephyr?
    group: challenge
    challenge: unknown_entity
    expect: {{outcome: refused, reason: unknown_entity}}
"""

PROJECTS = """\
# Project registry

Each entry says which team owns a project. The REL line under an entry is the clause chainret
cites: REL <subject> | <predicate> | <object>, canonical IDs, one space either side of each bar.
To move a project to another team, edit its REL line (and the sentence), then rebuild.

Atlas (PRJ-1) is the customer portal. It is owned by the Platform team.
REL project:starter:atlas | owned_by | team:starter:platform

Beacon (PRJ-2) is the billing service. It is owned by the Payments team.
REL project:starter:beacon | owned_by | team:starter:payments
"""

ROTA = """\
# On-call rota

This week Ana Silva is on call for the Platform team.

Ben Okafor covers the Payments team until Friday.
"""

HANDBOOK = """\
# Escalation handbook

Page the on-call person first. If nobody answers within fifteen minutes, page the team lead.

Incidents that touch customer data are reported to the security office the same day.
"""


def init(target: str | Path, *, force: bool = False) -> tuple[Path, Path]:
    """Write the starter source folder under ``target/source`` and build it into ``target``.

    Returns (source folder, catalog file). Refuses a non-empty ``target`` unless ``force``.
    """
    from chainret.authoring.build import build
    from chainret.authoring.output import write_build
    from chainret.core.files import write_files

    root = Path(target)
    if root.exists() and not root.is_dir():
        raise UsageError(f"{root} exists and is not a folder")
    if root.is_dir() and any(root.iterdir()) and not force:
        raise UsageError(f"{root} is not empty; choose a new folder (or pass --force to write into it)")
    src = root / "source"
    files = {
        src / "chainret.yaml": HEADER.format(src=src.as_posix(), out=root.as_posix()),
        src / "registry" / "projects.md": PROJECTS,
        src / "rota" / "on-call.md": ROTA,
        src / "handbook" / "escalation.md": HANDBOOK,
    }
    write_files(files)
    result = build(src, root, fresh=True)
    write_build(result, src)
    return src, result.catalog_file
