"""Build the third newcomer fixture: a hospital's lab-systems Backstage + CODEOWNERS repository with a git history.

"Kestrel Valley Hospital" (KVH) runs its laboratory software in two departments: Laboratory
Informatics (the LIS core team, the interfaces team with an on-call sub-team nobody is on yet, and
Digital Pathology) and Clinical Systems (Blood Bank Systems, and a Point-of-Care team created half
way through, whose first member is listed in the group's own ``spec.members``). Two people share the
display name "Alex Morgan", one person's display name changes, one person leaves, one joins on no
team, and a locum's profile (``org/locums.yaml``) may only be read by Medical Staffing (restricted by
``header/chainret.yaml``). One resource names an owner group nobody declares, one component never
had an owner and another loses its owner; one API is consumed by nobody. CODEOWNERS has ``**``
globs, rules with two and three owners and a rule with no owners (GitHub: such a rule un-owns the
paths it matches).

The questions in ``questions.yaml`` were written against this script alone, without reading
chainret's phrasings, lexicon or any other question set. Each commit writes the whole tree for its
step (so this script is the single statement of what the repository holds at each date) with fixed
author and committer identities and dates, so the commit hashes and the view names chainret derives
from them (``<date>-<short hash>``) are the same on every run.

Timeline (UTC):

- 2025-06-16  step 1: initial catalog and CODEOWNERS (the locum Nadia Karim on Blood Bank Systems
              is there from the start; the bedside label printer has no owner)
- 2025-08-04  step 2: Priti Shah also joins the LIS core team; the HL7 gateway starts calling the
              Specimens API; a three-owner ``**/*.sql`` rule
- 2025-10-13  step 3: the clinician results portal moves from LIS Core to Digital Pathology; the
              Point-of-Care team is created (Ben Hughes, his third team) with the glucose meter hub
- 2026-01-19  step 4: Kevin Doyle leaves (his profile is removed); the analyzer bridge loses its
              owner; ``/interfaces/analyzers/`` is now reviewed by Integrations and Sofia Rossi
- 2026-02-23  step 5: Ruth Adler's display name becomes Ruth Brennan; Leo Marsh joins (no team
              yet); the HL7 gateway starts calling the Crossmatch API
- 2026-04-27  step 6: Jamie Lee moves from Digital Pathology to Point-of-Care; a README tweak

Usage: ``python examples/newcomer3/make_repo.py DIR`` (DIR must not exist or be empty).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/: the shared writer of newcomer worlds
from newcomer_repo import build_history, main  # noqa: E402

ORG = "kvh"
DOMAIN = "kestrelvalley.example"


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
    return _doc("Group", name, [f"description: {title}, Kestrel Valley Hospital"], spec)


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
    meta = [f"title: {title}", "annotations:", f"  github.com/project-slug: {ORG}/lab-systems"]
    return _doc("Component", name, meta, spec)


def _api(name: str, title: str, owner: str, system: str) -> str:
    spec = ["type: openapi", "lifecycle: production", f"owner: {owner}", f"system: {system}", "definition: |",
            "  openapi: 3.0.0", f"  info: {{title: {title}, version: 1.4.0}}", "  paths: {}"]
    return _doc("API", name, [f"title: {title}"], spec)


def _resource(name: str, title: str, rtype: str, owner: str, system: str, *,
              dependency_of: list[str] | None = None) -> str:
    spec = [f"type: {rtype}", f"owner: {owner}", f"system: {system}", *_list("dependencyOf", dependency_of)]
    return _doc("Resource", name, [f"title: {title}"], spec)


def _files(step: int) -> dict[str, str]:
    """The whole tree at ``step`` (1..6)."""
    docs = "\n---\n".join
    files: dict[str, str] = {}

    targets = ["./org/*.yaml", "./systems.yaml", "./lis/*/catalog-info.yaml", "./interfaces/*/catalog-info.yaml",
               "./pathology/*/catalog-info.yaml", "./transfusion/*/catalog-info.yaml"]
    if step >= 3:
        targets.append("./point-of-care/catalog-info.yaml")
    files["catalog-info.yaml"] = _doc("Location", "kvh-lab-root",
                                      ["description: Everything the KVH lab systems register in Backstage"],
                                      ["targets:", *(f"  - {t}" for t in targets)])

    # -- organisation: two departments ------------------------------------------------------------------
    clinical_children = ["blood-bank-it"] + (["point-of-care"] if step >= 3 else [])
    groups = [
        _group("lab-informatics", "Laboratory Informatics", "department", None,
               ["lis-core", "integrations", "pathology-apps"]),
        _group("lis-core", "LIS Core Team", "team", "lab-informatics", []),
        _group("integrations", "Interfaces & Integrations", "team", "lab-informatics", ["hl7-oncall"]),
        _group("hl7-oncall", "HL7 On-call Rota", "sub-team", "integrations", []),  # nobody is on it
        _group("pathology-apps", "Digital Pathology", "team", "lab-informatics", []),
        _group("clinical-systems", "Clinical Systems", "department", None, clinical_children),
        _group("blood-bank-it", "Blood Bank Systems", "team", "clinical-systems", []),
    ]
    if step >= 3:
        # its first member is stated by the group (spec.members), not by his profile
        groups.append(_group("point-of-care", "Point-of-Care Testing", "team", "clinical-systems", [],
                             members=["ben.hughes"]))
    files["org/groups.yaml"] = docs(groups)

    people = [
        _user("tomas.novak", "Tomáš Novák", ["lab-informatics"]),
        _user("amara.okafor", "Amara Okafor", ["lis-core"]),
        _user("ben.hughes", "Ben Hughes", ["lis-core", "integrations"]),
        _user("sofia.rossi", "Sofia Rossi", ["integrations"]),
        _user("priti.shah", "Priti Shah", ["pathology-apps"] + (["lis-core"] if step >= 2 else [])),
        _user("jamie.lee", "Jamie Lee", ["pathology-apps"] if step < 6 else ["point-of-care"]),
        _user("alex.morgan", "Alex Morgan", ["blood-bank-it"]),
        _user("alexandra.morgan", "Alex Morgan", ["pathology-apps"]),  # the same display name as alex.morgan
        _user("ruth.adler", "Ruth Adler" if step < 5 else "Ruth Brennan", ["blood-bank-it"]),
        _user("olamide.bello", "Olamide Bello", ["clinical-systems"]),
    ]
    if step < 4:
        people.append(_user("kevin.doyle", "Kevin Doyle", ["integrations"]))
    if step >= 5:
        people.append(_user("leo.marsh", "Leo Marsh", []))  # a new starter, not on a team yet
    files["org/people.yaml"] = docs(people)
    # readable by Medical Staffing only (header/chainret.yaml)
    files["org/locums.yaml"] = _user("nadia.karim", "Nadia Karim", ["blood-bank-it"])

    # -- domain, systems and resources ----------------------------------------------------------------------
    files["systems.yaml"] = docs([
        _doc("Domain", "diagnostics", ["title: Diagnostics"], ["owner: lab-informatics"]),
        _doc("System", "lis", ["title: Laboratory Information System"], ["owner: lis-core", "domain: diagnostics"]),
        _doc("System", "pathology", ["title: Digital Pathology Platform"],
             ["owner: pathology-apps", "domain: diagnostics"]),
        _doc("System", "transfusion", ["title: Transfusion Management"],
             ["owner: blood-bank-it", "domain: diagnostics"]),
        _resource("lis-db", "LIS Database", "database", "lis-core", "lis"),
        _resource("message-queue", "Interface Message Queue", "queue", "integrations", "lis"),
        _resource("slide-store", "Slide Image Store", "s3-bucket", "pathology-apps", "pathology"),
        _resource("bloodbank-db", "Blood Bank Database", "database", "blood-bank-it", "transfusion"),
        # quality-office is not declared anywhere: the Quality Office is not in Backstage
        _resource("qc-archive", "QC Records Archive", "s3-bucket", "quality-office", "lis",
                  dependency_of=["component:results-engine"]),
    ])

    # -- laboratory information system --------------------------------------------------------------------
    files["lis/specimens/catalog-info.yaml"] = docs([
        _component("specimen-tracker", "Specimen Tracker", "lis-core", "lis", provides=["specimens-api"],
                   depends=["resource:lis-db"]),
        _api("specimens-api", "Specimens API", "lis-core", "lis"),
    ])
    files["lis/results/catalog-info.yaml"] = docs([
        _component("results-engine", "Results Engine", "lis-core", "lis", provides=["results-api"],
                   consumes=["specimens-api"], depends=["resource:lis-db"]),
        _api("results-api", "Results API", "lis-core", "lis"),
    ])
    files["lis/portal/catalog-info.yaml"] = _component(
        "results-portal", "Clinician Results Portal", "lis-core" if step < 3 else "pathology-apps", "lis",
        ctype="website", consumes=["results-api"])
    files["interfaces/orders/catalog-info.yaml"] = docs([
        _component("order-intake", "Order Intake", "integrations", "lis", provides=["orders-api"],
                   depends=["resource:message-queue"]),
        _api("orders-api", "Orders API", "integrations", "lis"),
    ])
    gateway_apis = ["results-api", "orders-api"] + (["specimens-api"] if step >= 2 else []) + (
        ["crossmatch-api"] if step >= 5 else [])
    files["interfaces/hl7/catalog-info.yaml"] = _component(
        "hl7-gateway", "HL7 Gateway", "integrations", "lis", consumes=gateway_apis, depends=["resource:message-queue"])
    files["interfaces/analyzers/catalog-info.yaml"] = _component(
        "analyzer-bridge", "Analyzer Bridge", "integrations" if step < 4 else None, "lis",
        consumes=["specimens-api"], depends=["resource:message-queue", "component:specimen-tracker"])

    # -- digital pathology -----------------------------------------------------------------------------
    files["pathology/viewer/catalog-info.yaml"] = _component(
        "slide-viewer", "Slide Viewer", "pathology-apps", "pathology", ctype="website", consumes=["results-api"],
        depends=["resource:slide-store"])
    files["pathology/scanner/catalog-info.yaml"] = docs([
        _component("scanner-sync", "Scanner Sync", "pathology-apps", "pathology", provides=["slide-images-api"],
                   depends=["resource:slide-store"]),
        _api("slide-images-api", "Slide Images API", "pathology-apps", "pathology"),  # nobody calls it
    ])

    # -- transfusion -------------------------------------------------------------------------------------
    files["transfusion/crossmatch/catalog-info.yaml"] = docs([
        _component("crossmatch-service", "Crossmatch Service", "blood-bank-it", "transfusion",
                   provides=["crossmatch-api"], consumes=["results-api"], depends=["resource:bloodbank-db"]),
        _api("crossmatch-api", "Crossmatch API", "blood-bank-it", "transfusion"),
    ])
    files["transfusion/labels/catalog-info.yaml"] = _component(  # never had an owner
        "label-printer", "Bedside Label Printer", None, "transfusion", depends=["component:crossmatch-service"])

    if step >= 3:
        files["point-of-care/catalog-info.yaml"] = _component(
            "glucose-hub", "Glucose Meter Hub", "point-of-care", "lis", consumes=["specimens-api"])

    # -- CODEOWNERS (GitHub: the last matching rule wins) ---------------------------------------------------
    analyzer_owners = "@kvh/integrations @kevin-doyle" if step < 4 else "@kvh/integrations @sofia-rossi"
    codeowners = [
        "# KVH lab systems code owners. The last matching rule wins.",
        "",
        "# Default: the lab informatics leads",
        "*                          @kvh/lab-leads",
        "",
        "/lis/                      @kvh/lis-core",
        "/interfaces/               @kvh/integrations",
        f"/interfaces/analyzers/     {analyzer_owners}",
        "/pathology/                @kvh/pathology-apps",
        "/transfusion/              @kvh/blood-bank-it @ruth-adler",
    ]
    if step >= 2:
        codeowners += ["", "# Schema changes: LIS core, the DBAs and Amara review every one",
                       "**/*.sql                   @kvh/lis-core @kvh/dba @amara-okafor"]
    if step >= 3:
        codeowners += ["/point-of-care/            @kvh/point-of-care @ben-hughes"]
    codeowners += ["", "docs/**                    @tomas-novak", "",
                   "# Third-party code is not ours to review: no owners", "/third_party/"]
    files[".github/CODEOWNERS"] = "\n".join(codeowners) + "\n"

    # -- code ----------------------------------------------------------------------------------------------
    files["README.md"] = "# KVH lab systems\n\nLIS, interfaces, pathology and transfusion software.\n" + (
        "\nQuestions: #lab-informatics on the staff chat.\n" if step >= 6 else "")
    files["lis/specimens/tracker.py"] = "print('specimens')\n"
    files["lis/results/engine.py"] = "print('results')\n"
    files["lis/portal/index.html"] = "<!doctype html><title>Results</title>\n"
    files["lis/db/schema.sql"] = "CREATE TABLE specimen (id INT);\n"
    files["interfaces/orders/intake.py"] = "print('orders')\n"
    files["interfaces/hl7/gateway.py"] = "print('hl7')\n"
    files["interfaces/analyzers/bridge.py"] = "print('analyzers')\n"
    files["pathology/viewer/index.html"] = "<!doctype html><title>Slides</title>\n"
    files["pathology/scanner/sync.py"] = "print('scanner')\n"
    files["transfusion/crossmatch/service.py"] = "print('crossmatch')\n"
    files["transfusion/labels/printer.py"] = "print('labels')\n"
    files["transfusion/db/schema.sql"] = "CREATE TABLE unit (id INT);\n"
    files["infra/queue.tf"] = "# message queue\n"
    files["docs/index.md"] = "# KVH lab systems docs\n"
    files["docs/runbooks/analyzer-offline.md"] = "# When an analyzer goes offline\n"
    files["third_party/hl7lib/parser.py"] = "print('vendored')\n"
    if step >= 3:
        files["point-of-care/hub.py"] = "print('glucose')\n"
    return files


COMMITS = [
    (1, "2025-06-16T09:00:00+00:00", "Tomas Novak", "Initial Backstage catalog and CODEOWNERS"),
    (2, "2025-08-04T14:10:00+00:00", "Priti Shah", "Priti joins LIS core; HL7 gateway reads specimens; SQL reviewers"),
    (3, "2025-10-13T10:30:00+00:00", "Amara Okafor", "Results portal to Digital Pathology; Point-of-Care team"),
    (4, "2026-01-19T08:45:00+00:00", "Sofia Rossi", "Kevin leaves; analyzer bridge unowned; analyzer reviewers"),
    (5, "2026-02-23T16:00:00+00:00", "Ruth Brennan", "Ruth's new surname; Leo joins; gateway calls crossmatch"),
    (6, "2026-04-27T11:20:00+00:00", "Jamie Lee", "Jamie moves to Point-of-Care; README help channel"),
]


def build(root: Path) -> None:
    """Write every step of the history into a new git repository at ``root``."""
    build_history(root, COMMITS, _files, DOMAIN)


if __name__ == "__main__":
    sys.exit(main(sys.argv, build, __doc__.strip().splitlines()[-1]))
