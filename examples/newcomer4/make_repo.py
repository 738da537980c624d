"""Build the fourth newcomer fixture: a university's research-computing Backstage + CODEOWNERS repository.

"Northfield University Research Computing" (NURC) keeps its cluster, research-software and research-data
services in one repository. Two departments: Research Computing Services (HPC Operations, with a
Storage Crew sub-team nobody is on; Research Software Engineering; Research Data Services; and an AI
Platform team created half way through) and Library Digital Scholarship (Repository Curation). Two
people share the display name "Pat Nguyen", one person's display name changes, one person leaves,
one joins on no team, one is on three teams, one moves teams, and a contractor's profile
(``org/contractors.yaml``) may only be read by Research HR (restricted by ``header/chainret.yaml``).
One resource names an owner group nobody declares, one component never had an owner and another
loses its owner, one moves teams; one API is consumed by nobody. CODEOWNERS has ``**`` globs, rules
with two and three owners, a rule whose second owner changes, and a rule with no owners (GitHub:
such a rule un-owns the paths it matches).

The questions in ``questions.yaml`` were written against this script alone, without reading
chainret's phrasings, lexicon or any other question set. Each commit writes the whole tree for its
step (so this script is the single statement of what the repository holds at each date) with fixed
author and committer identities and dates, so the commit hashes and the view names chainret derives
from them (``<date>-<short hash>``) are the same on every run.

Timeline (UTC):

- 2025-07-07  step 1: initial catalog and CODEOWNERS (the contractor Ivan Petrov on HPC Operations is
              there from the start; the license server has no owner)
- 2025-09-15  step 2: Hana Sato also joins Research Data Services; Repository Ingest starts calling
              the Datasets API; a three-owner ``**/*.sql`` rule
- 2025-11-10  step 3: the AI Platform team is created (Chris Lin, his third team) with the GPU queue
              and the GPU nodes; the Notebook Hub moves from Research Software to AI Platform
- 2026-01-26  step 4: Sam Okoro leaves (his profile is removed); the transfer helper loses its owner;
              ``/hpc/scheduler/`` is now reviewed by HPC Operations and Dev Patel (was Sam Okoro)
- 2026-03-16  step 5: Jo Reyes's display name becomes Jo Alvarez; Noor Ali joins (no team yet);
              Usage Reports starts calling the Datasets API
- 2026-05-04  step 6: Taylor Brooks moves from Research Data Services to AI Platform; a README tweak

Usage: ``python examples/newcomer4/make_repo.py DIR`` (DIR must not exist or be empty).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/: the shared writer of newcomer worlds
from newcomer_repo import build_history, main  # noqa: E402

ORG = "nurc"
DOMAIN = "northfield.example"


def _doc(kind: str, name: str, meta: list[str], spec: list[str]) -> str:
    lines = ["apiVersion: backstage.io/v1alpha1", f"kind: {kind}", "metadata:", f"  name: {name}"]
    lines += [f"  {m}" for m in meta]
    lines.append("spec:")
    lines += [f"  {s}" for s in spec]
    return "\n".join(lines) + "\n"


def _list(key: str, values: list[str] | None) -> list[str]:
    """A block list field (``key:`` then ``- value`` lines), or nothing."""
    if not values:
        return []
    return [f"{key}:", *(f"  - {v}" for v in values)]


def _group(name: str, title: str, gtype: str, parent: str | None, children: list[str],
           members: list[str] | None = None) -> str:
    spec = [f"type: {gtype}", "profile:", f"  displayName: {title}", f"  email: {name}@{DOMAIN}"]
    if parent:
        spec.append(f"parent: {parent}")
    spec.append("children: [" + ", ".join(children) + "]")
    spec += _list("members", members)
    return _doc("Group", name, [f"description: {title}, Northfield University"], spec)


def _user(name: str, display: str, teams: list[str]) -> str:
    spec = ["profile:", f"  displayName: {display}", f"  email: {name}@{DOMAIN}", "memberOf: [" + ", ".join(teams) + "]"]
    return _doc("User", name, [], spec)


def _component(name: str, title: str, owner: str | None, system: str, *, ctype: str = "service",
               provides: list[str] | None = None, consumes: list[str] | None = None,
               depends: list[str] | None = None) -> str:
    spec = [f"type: {ctype}", "lifecycle: production"]
    if owner:
        spec.append(f"owner: {owner}")
    spec.append(f"system: {system}")
    spec += _list("providesApis", provides) + _list("consumesApis", consumes) + _list("dependsOn", depends)
    meta = [f"title: {title}", "annotations:", f"  github.com/project-slug: {ORG}/research-computing"]
    return _doc("Component", name, meta, spec)


def _api(name: str, title: str, owner: str, system: str) -> str:
    spec = ["type: openapi", "lifecycle: production", f"owner: {owner}", f"system: {system}", "definition: |",
            "  openapi: 3.0.0", f"  info: {{title: {title}, version: 2.1.0}}", "  paths: {}"]
    return _doc("API", name, [f"title: {title}"], spec)


def _resource(name: str, title: str, rtype: str, owner: str, system: str, *,
              dependency_of: list[str] | None = None) -> str:
    spec = [f"type: {rtype}", f"owner: {owner}", f"system: {system}", *_list("dependencyOf", dependency_of)]
    return _doc("Resource", name, [f"title: {title}"], spec)


def _files(step: int) -> dict[str, str]:
    """The whole tree at ``step`` (1..6)."""
    docs = "\n---\n".join
    files: dict[str, str] = {}

    targets = ["./org/*.yaml", "./systems.yaml", "./hpc/*/catalog-info.yaml", "./software/*/catalog-info.yaml",
               "./data/*/catalog-info.yaml", "./repository/*/catalog-info.yaml"]
    if step >= 3:
        targets.append("./ai/*/catalog-info.yaml")
    files["catalog-info.yaml"] = _doc("Location", "nurc-root",
                                      ["description: Everything Northfield Research Computing registers in Backstage"],
                                      ["targets:", *(f"  - {t}" for t in targets)])

    # -- organisation: two departments -------------------------------------------------------------------
    rc_children = ["hpc-ops", "research-software", "data-services"] + (["ai-platform"] if step >= 3 else [])
    groups = [
        _group("research-computing", "Research Computing Services", "department", None, rc_children),
        _group("hpc-ops", "HPC Operations", "team", "research-computing", ["storage-crew"]),
        _group("storage-crew", "Storage Crew", "sub-team", "hpc-ops", []),  # nobody is on it
        _group("research-software", "Research Software Engineering", "team", "research-computing", []),
        _group("data-services", "Research Data Services", "team", "research-computing", []),
        _group("library-digital", "Library Digital Scholarship", "department", None, ["repo-curation"]),
        _group("repo-curation", "Repository Curation", "team", "library-digital", []),
    ]
    if step >= 3:
        groups.append(_group("ai-platform", "AI Platform", "team", "research-computing", []))
    files["org/groups.yaml"] = docs(groups)

    people = [
        _user("marta.kowalski", "Marta Kowalski", ["research-computing"]),
        _user("dev.patel", "Dev Patel", ["hpc-ops"]),
        _user("chris.lin", "Chris Lin", ["hpc-ops", "research-software"] + (["ai-platform"] if step >= 3 else [])),
        _user("jo.reyes", "Jo Reyes" if step < 5 else "Jo Alvarez", ["research-software"]),
        _user("taylor.brooks", "Taylor Brooks", ["data-services"] if step < 6 else ["ai-platform"]),
        _user("pat.nguyen", "Pat Nguyen", ["data-services"]),
        _user("patricia.nguyen", "Pat Nguyen", ["repo-curation"]),  # the same display name as pat.nguyen
        _user("hana.sato", "Hana Sato", ["repo-curation"] + (["data-services"] if step >= 2 else [])),
        _user("grace.owusu", "Grace Owusu", ["library-digital"]),
    ]
    if step < 4:
        people.append(_user("sam.okoro", "Sam Okoro", ["hpc-ops"]))
    if step >= 5:
        people.append(_user("noor.ali", "Noor Ali", []))  # a new starter, not on a team yet
    files["org/people.yaml"] = docs(people)
    # readable by Research HR only (header/chainret.yaml)
    files["org/contractors.yaml"] = _user("ivan.petrov", "Ivan Petrov", ["hpc-ops"])

    # -- domain, systems and resources ---------------------------------------------------------------------
    files["systems.yaml"] = docs([
        _doc("Domain", "research-infrastructure", ["title: Research Infrastructure"], ["owner: research-computing"]),
        _doc("System", "hpc", ["title: HPC Cluster"], ["owner: hpc-ops", "domain: research-infrastructure"]),
        _doc("System", "research-data", ["title: Research Data Platform"],
             ["owner: data-services", "domain: research-infrastructure"]),
        _doc("System", "repository", ["title: Institutional Repository"],
             ["owner: repo-curation", "domain: research-infrastructure"]),
        _resource("slurm-db", "Slurm Accounting Database", "database", "hpc-ops", "hpc"),
        _resource("scratch-fs", "Scratch Filesystem", "filesystem", "storage-crew", "hpc"),
        _resource("alloc-db", "Allocations Database", "database", "research-software", "hpc"),
        _resource("dataset-store", "Research Data Store", "s3-bucket", "data-services", "research-data"),
        # library-preservation is not declared anywhere: Preservation is not in Backstage
        _resource("tape-archive", "Tape Archive", "tape-library", "library-preservation", "research-data",
                  dependency_of=["component:transfer-helper"]),
    ] + ([_resource("gpu-nodes", "GPU Nodes", "compute-pool", "ai-platform", "hpc",
                    dependency_of=["component:gpu-queue"])] if step >= 3 else []))

    # -- HPC -------------------------------------------------------------------------------------------------
    files["hpc/scheduler/catalog-info.yaml"] = docs([
        _component("scheduler-bridge", "Scheduler Bridge", "hpc-ops", "hpc", provides=["scheduler-api"],
                   depends=["resource:slurm-db"]),
        _api("scheduler-api", "Scheduler API", "hpc-ops", "hpc"),
    ])
    files["hpc/portal/catalog-info.yaml"] = _component(
        "job-portal", "Job Portal", "hpc-ops", "hpc", ctype="website", consumes=["scheduler-api"],
        depends=["resource:scratch-fs"])

    # -- research software -------------------------------------------------------------------------------
    files["software/allocations/catalog-info.yaml"] = docs([
        _component("allocation-tracker", "Allocation Tracker", "research-software", "hpc",
                   provides=["allocations-api"], consumes=["scheduler-api"], depends=["resource:alloc-db"]),
        _api("allocations-api", "Allocations API", "research-software", "hpc"),
    ])
    files["software/notebooks/catalog-info.yaml"] = _component(
        "notebook-hub", "Notebook Hub", "research-software" if step < 3 else "ai-platform", "hpc",
        ctype="website", consumes=["scheduler-api"], depends=["resource:scratch-fs"])
    usage_apis = ["allocations-api", "scheduler-api"] + (["datasets-api"] if step >= 5 else [])
    files["software/reports/catalog-info.yaml"] = _component(
        "usage-reports", "Usage Reports", "research-software", "hpc", consumes=usage_apis)
    files["software/license/catalog-info.yaml"] = _component(  # never had an owner
        "license-server", "License Server", None, "hpc", depends=["component:job-portal"])

    # -- research data --------------------------------------------------------------------------------------
    files["data/catalog/catalog-info.yaml"] = docs([
        _component("dataset-catalog", "Dataset Catalog", "data-services", "research-data",
                   provides=["datasets-api"], depends=["resource:dataset-store"]),
        _api("datasets-api", "Datasets API", "data-services", "research-data"),
    ])
    files["data/transfer/catalog-info.yaml"] = _component(
        "transfer-helper", "Globus Transfer Helper", "data-services" if step < 4 else None, "research-data",
        consumes=["datasets-api"], depends=["resource:dataset-store", "component:dataset-catalog"])

    # -- institutional repository -----------------------------------------------------------------------------
    files["repository/ingest/catalog-info.yaml"] = docs([
        _component("repo-ingest", "Repository Ingest", "repo-curation", "repository", provides=["deposit-api"],
                   consumes=["datasets-api"] if step >= 2 else None),
        _api("deposit-api", "Deposit API", "repo-curation", "repository"),  # nobody calls it
    ])

    # -- AI platform -----------------------------------------------------------------------------------------
    if step >= 3:
        files["ai/gpu/catalog-info.yaml"] = _component(
            "gpu-queue", "GPU Queue", "ai-platform", "hpc", consumes=["scheduler-api"])

    # -- CODEOWNERS (GitHub: the last matching rule wins) ---------------------------------------------------
    scheduler_owners = "@nurc/hpc-ops @sam-okoro" if step < 4 else "@nurc/hpc-ops @dev-patel"
    codeowners = [
        "# Northfield Research Computing code owners. The last matching rule wins.",
        "",
        "# Default: the RC leads",
        "*                        @nurc/rc-leads",
        "",
        "/hpc/                    @nurc/hpc-ops",
        f"/hpc/scheduler/          {scheduler_owners}",
        "/software/               @nurc/research-software",
        "/data/                   @nurc/data-services @taylor-brooks",
        "/repository/             @nurc/repo-curation @grace-owusu",
    ]
    if step >= 2:
        codeowners += ["", "# Schema changes: RSE, the DBAs and Jo review every one",
                       "**/*.sql                 @nurc/research-software @nurc/dbas @jo-reyes"]
    if step >= 3:
        codeowners += ["/ai/                     @nurc/ai-platform @chris-lin"]
    codeowners += ["", "docs/**                  @marta-kowalski", "",
                   "# Vendored plugins are upstream's: no owners", "/vendor/"]
    files[".github/CODEOWNERS"] = "\n".join(codeowners) + "\n"

    # -- code ----------------------------------------------------------------------------------------------
    files["README.md"] = "# Northfield Research Computing\n\nCluster, research software and research data services.\n" + (
        "\nHelp: #rc-help on the university chat.\n" if step >= 6 else "")
    files["hpc/scheduler/bridge.py"] = "print('scheduler')\n"
    files["hpc/portal/index.html"] = "<!doctype html><title>Jobs</title>\n"
    files["hpc/db/accounting.sql"] = "CREATE TABLE job (id INT);\n"
    files["software/allocations/tracker.py"] = "print('allocations')\n"
    files["software/allocations/schema.sql"] = "CREATE TABLE allocation (id INT);\n"
    files["software/notebooks/hub.py"] = "print('notebooks')\n"
    files["software/reports/report.py"] = "print('reports')\n"
    files["software/license/lmgrd.py"] = "print('licenses')\n"
    files["data/catalog/catalog.py"] = "print('datasets')\n"
    files["data/transfer/transfer.py"] = "print('transfer')\n"
    files["repository/ingest/ingest.py"] = "print('ingest')\n"
    files["infra/storage.tf"] = "# scratch and data store\n"
    files["docs/index.md"] = "# Research Computing docs\n"
    files["docs/hpc/quickstart.md"] = "# Your first Slurm job\n"
    files["vendor/slurm-plugins/plugin.c"] = "/* vendored */\n"
    if step >= 3:
        files["ai/gpu/queue.py"] = "print('gpu')\n"
    return files


COMMITS = [
    (1, "2025-07-07T09:00:00+00:00", "Marta Kowalski", "Initial Backstage catalog and CODEOWNERS"),
    (2, "2025-09-15T13:40:00+00:00", "Hana Sato", "Hana joins data services; ingest reads datasets; SQL reviewers"),
    (3, "2025-11-10T10:15:00+00:00", "Chris Lin", "AI Platform team, GPU queue and nodes; notebook hub to AI Platform"),
    (4, "2026-01-26T08:30:00+00:00", "Dev Patel", "Sam leaves; transfer helper unowned; scheduler reviewers"),
    (5, "2026-03-16T15:05:00+00:00", "Jo Alvarez", "Jo's new surname; Noor joins; usage reports read datasets"),
    (6, "2026-05-04T11:50:00+00:00", "Taylor Brooks", "Taylor moves to AI Platform; README help channel"),
]


def build(root: Path) -> None:
    """Write every step of the history into a new git repository at ``root``."""
    build_history(root, COMMITS, _files, DOMAIN)


if __name__ == "__main__":
    sys.exit(main(sys.argv, build, __doc__.strip().splitlines()[-1]))
