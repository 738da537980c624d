"""Build the sixth newcomer fixture: a city water utility's Backstage + CODEOWNERS repository.

"Riverbend Water", a city's water utility, keeps the software behind its distribution network,
treatment plant, smart meters, billing and customer portal in one repository. Two departments: Water
Operations (Network Operations, with a SCADA Security Working Group sub-team nobody is on that still
owns the telemetry historian; Treatment Plant Systems; Water Quality Lab, which lists its people on the
group rather than on the users; Field Services, which has people but owns nothing; and Leak Response,
created half way through) and Customer Services (Billing, Smart Metering, Web and Digital, and Community
Outreach, a team nobody is on that owns nothing). One person's display name changes, one person leaves,
one is on three teams, one moves teams, a graduate starts on no team and later joins Billing, a new
starter stays on no team, and a consultant's profile (``org/consultants.yaml``) may only be read by IT
Security (restricted by ``header/chainret.yaml``). One component names an owner group nobody declares
(the GIS vendor), one component and one resource never had an owner, another component loses its
owner, one component moves teams; one API nobody provides or consumes, one that is provided but never
consumed, several whose consumers grow; a system with nothing in it. CODEOWNERS has a ``*.sql`` rule at
any depth, a ``/leak/**`` rule, rules with two owners, a rule whose second owner changes when its
reviewer leaves, last-match-wins overlaps (``/network/`` then ``/network/valves/``, ``/billing/`` then
``*.sql``, ``/metering/`` then ``/metering/firmware/``), and two rules with no owners, one added later.

The questions in ``questions.yaml`` were written against this script alone, without reading
chainret's phrasings, lexicon or any other question set. Each commit writes the whole tree for its
step (so this script is the single statement of what the repository holds at each date) with fixed
author and committer identities and dates, so the commit hashes and the view names chainret derives
from them (``<date>-<short hash>``) are the same on every run.

Timeline (UTC):

- 2025-09-01  step 1: initial catalog and CODEOWNERS (the consultant Erik Lund on Network Operations is
              there from the start; the firmware updater and the GIS map layers have no owner; the Water
              Quality Lab is Yara Khalil alone; Nadia Rahman, a graduate, is on no team)
- 2025-11-03  step 2: Ben Ortiz joins the Water Quality Lab; the customer portal starts calling the
              Payments API and the GIS sync the Pressure Readings API; a two-owner ``*.sql`` rule
- 2026-01-12  step 3: the Leak Response team is created (Lucia Ferreira, her third team) with the leak
              analyzer, the Leak Alerts API and the Leak Detection system; the outage map moves from Web
              and Digital to Leak Response; a ``/leak/**`` rule
- 2026-03-02  step 4: Greg Novak leaves (his profile is removed); the dosing controller loses its owner;
              ``/plant/`` is now reviewed by Treatment and Fatima Haddad (was Greg Novak); a
              ``/metering/firmware/`` rule with no owners; Ines Duarte's display name becomes Ines
              Duarte-Silva; the leak analyzer starts calling the Meter Reads API
- 2026-05-11  step 5: Kofi Mensah moves from Smart Metering to Leak Response; Jon Baker joins (no team);
              the customer portal starts calling the Outage API
- 2026-07-06  step 6: Nadia Rahman joins Billing; a README tweak

Usage: ``python examples/newcomer6/make_repo.py DIR`` (DIR must not exist or be empty).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/: the shared writer of newcomer worlds
from newcomer_repo import build_history, main  # noqa: E402

ORG = "riverbend"
DOMAIN = "riverbend-water.example"


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
    return _doc("Group", name, [f"description: {title}, Riverbend Water"], spec)


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
    meta = [f"title: {title}", "annotations:", f"  github.com/project-slug: {ORG}/water-services"]
    return _doc("Component", name, meta, spec)


def _api(name: str, title: str, owner: str, system: str, api_type: str = "openapi") -> str:
    spec = [f"type: {api_type}", "lifecycle: production", f"owner: {owner}", f"system: {system}", "definition: |",
            "  openapi: 3.0.0", f"  info: {{title: {title}, version: 2.1.0}}", "  paths: {}"]
    return _doc("API", name, [f"title: {title}"], spec)


def _resource(name: str, title: str, rtype: str, owner: str | None, system: str) -> str:
    spec = [f"type: {rtype}", *([f"owner: {owner}"] if owner else []), f"system: {system}"]
    return _doc("Resource", name, [f"title: {title}"], spec)


def _files(step: int) -> dict[str, str]:
    """The whole tree at ``step`` (1..6)."""
    docs = "\n---\n".join
    files: dict[str, str] = {}

    files["catalog-info.yaml"] = _doc("Location", "riverbend-root",
                                      ["description: The utility's org chart and systems"],
                                      ["targets:", "  - ./org/*.yaml", "  - ./systems.yaml"])

    # -- organisation: two departments -------------------------------------------------------------------
    ops_children = ["network-ops", "treatment", "water-quality", "field-services"] + (["leak-response"] if step >= 3 else [])
    lab_members = ["yara.khalil"] + (["ben.ortiz"] if step >= 2 else [])
    groups = [
        _group("operations", "Water Operations", "department", None, ops_children),
        _group("network-ops", "Network Operations", "team", "operations", ["scada-wg"]),
        _group("scada-wg", "SCADA Security Working Group", "sub-team", "network-ops", []),  # nobody is on it
        _group("treatment", "Treatment Plant Systems", "team", "operations", []),
        # the lab lists its people on the group (the users' memberOf stays empty)
        _group("water-quality", "Water Quality Lab", "team", "operations", [], members=lab_members),
        _group("field-services", "Field Services", "team", "operations", []),  # has people, owns nothing
        _group("customer", "Customer Services", "department", None, ["billing", "metering", "web-team", "outreach"]),
        _group("billing", "Billing", "team", "customer", []),
        _group("metering", "Smart Metering", "team", "customer", []),
        _group("web-team", "Web and Digital", "team", "customer", []),
        _group("outreach", "Community Outreach", "team", "customer", []),  # nobody is on it, owns nothing
    ]
    if step >= 3:
        groups.append(_group("leak-response", "Leak Response", "team", "operations", []))
    files["org/groups.yaml"] = docs(groups)

    people = [
        _user("helen.mbeki", "Helen Mbeki", ["operations"]),
        _user("arjun.kapoor", "Arjun Kapoor", ["customer"]),
        _user("lucia.ferreira", "Lucia Ferreira",
              ["network-ops", "treatment"] + (["leak-response"] if step >= 3 else [])),
        _user("owen.price", "Owen Price", ["network-ops"]),
        _user("fatima.haddad", "Fatima Haddad", ["treatment"]),
        _user("ines.duarte", "Ines Duarte" if step < 4 else "Ines Duarte-Silva", ["billing"]),
        _user("sam.okoro", "Sam Okoro", ["billing"]),
        _user("kofi.mensah", "Kofi Mensah", ["metering"] if step < 5 else ["leak-response"]),
        _user("rachel.stein", "Rachel Stein", ["metering"]),
        _user("tariq.aziz", "Tariq Aziz", ["web-team"]),
        _user("hannah.lee", "Hannah Lee", ["web-team"]),
        _user("pete.walsh", "Pete Walsh", ["field-services"]),
        _user("maria.gomez", "Maria Gomez", ["field-services"]),
        _user("yara.khalil", "Yara Khalil", []),  # on the lab through the group's members
        _user("nadia.rahman", "Nadia Rahman", ["billing"] if step >= 6 else []),  # a graduate: no team until step 6
    ]
    if step >= 2:
        people.append(_user("ben.ortiz", "Ben Ortiz", []))  # on the lab through the group's members
    if step < 4:
        people.append(_user("greg.novak", "Greg Novak", ["treatment"]))
    if step >= 5:
        people.append(_user("jon.baker", "Jon Baker", []))  # a new starter, not on a team yet
    files["org/people.yaml"] = docs(people)
    # readable by IT Security only (header/chainret.yaml)
    files["org/consultants.yaml"] = _user("erik.lund", "Erik Lund", ["network-ops"])

    # -- domain, systems and resources ---------------------------------------------------------------------
    systems = [
        _doc("Domain", "water-services", ["title: Water Services"], ["owner: operations"]),
        _doc("System", "network", ["title: Distribution Network"], ["owner: network-ops", "domain: water-services"]),
        _doc("System", "plant", ["title: Treatment Plant Control"], ["owner: treatment", "domain: water-services"]),
        _doc("System", "billing-platform", ["title: Customer Billing"], ["owner: billing", "domain: water-services"]),
        _doc("System", "ami", ["title: Smart Meter Network"], ["owner: metering", "domain: water-services"]),
        _doc("System", "portal", ["title: Customer Portal"], ["owner: web-team", "domain: water-services"]),
        # nothing is in it
        _doc("System", "flood-warning", ["title: Flood Warning"], ["owner: network-ops", "domain: water-services"]),
    ]
    if step >= 3:
        systems.append(_doc("System", "leak-detection", ["title: Leak Detection"],
                            ["owner: leak-response", "domain: water-services"]))
    systems += [
        _resource("telemetry-historian", "Telemetry Historian", "database", "scada-wg", "plant"),
        _resource("billing-db", "Billing Database", "database", "billing", "billing-platform"),
        _resource("records-archive", "Scanned Records Archive", "s3-bucket", "billing", "billing-platform"),  # nothing uses it
        _resource("meter-db", "Meter Readings Store", "timeseries-db", "metering", "ami"),
        _resource("gis-layers", "GIS Map Layers", "file-share", None, "network"),  # never had an owner
        _resource("lims-db", "Lab Database", "database", "water-quality", "plant"),
    ]
    files["systems.yaml"] = docs(systems)

    # -- distribution network --------------------------------------------------------------------------------
    files["network/pressure/catalog-info.yaml"] = docs([
        _component("pressure-monitor", "Pressure Monitor", "network-ops", "network", provides=["pressure-api"],
                   depends=["resource:telemetry-historian"]),
        _api("pressure-api", "Pressure Readings API", "network-ops", "network"),
    ])
    files["network/valves/catalog-info.yaml"] = docs([
        _component("valve-control", "Valve Control Service", "network-ops", "network", provides=["valve-api"],
                   consumes=["pressure-api"]),
        _api("valve-api", "Valve Command API", "network-ops", "network", "grpc"),
    ])
    # gis-vendor is declared nowhere: the GIS contractor is not in Backstage
    files["network/gis/catalog-info.yaml"] = _component(
        "gis-sync", "GIS Sync", "gis-vendor", "network", ctype="job",
        consumes=["pressure-api"] if step >= 2 else None, depends=["resource:gis-layers"])

    # -- treatment plant -------------------------------------------------------------------------------------
    files["plant/scada/catalog-info.yaml"] = docs([
        _component("scada-gateway", "SCADA Gateway", "treatment", "plant", provides=["plant-api"],
                   depends=["resource:telemetry-historian"]),
        _api("plant-api", "Plant Telemetry API", "treatment", "plant"),
    ])
    files["plant/dosing/catalog-info.yaml"] = _component(
        "dosing-controller", "Chemical Dosing Controller", "treatment" if step < 4 else None, "plant",
        consumes=["plant-api"])
    files["plant/lab/catalog-info.yaml"] = docs([
        _component("sample-tracker", "Sample Tracker", "water-quality", "plant", ctype="website",
                   provides=["lab-results-api"], depends=["resource:lims-db"]),
        _api("lab-results-api", "Lab Results API", "water-quality", "plant"),  # nobody calls it
    ])

    # -- billing ---------------------------------------------------------------------------------------------
    files["billing/engine/catalog-info.yaml"] = docs([
        _component("billing-engine", "Billing Engine", "billing", "billing-platform", provides=["billing-api"],
                   consumes=["meter-reads-api"], depends=["resource:billing-db"]),
        _api("billing-api", "Billing API", "billing", "billing-platform"),
        _api("paperless-api", "Paperless Billing API", "billing", "billing-platform"),  # planned: nobody provides or calls it
    ])
    files["billing/payments/catalog-info.yaml"] = docs([
        _component("payment-gateway", "Payment Gateway", "billing", "billing-platform", provides=["payments-api"],
                   consumes=["billing-api"]),
        _api("payments-api", "Payments API", "billing", "billing-platform"),
    ])

    # -- smart metering --------------------------------------------------------------------------------------
    files["metering/collector/catalog-info.yaml"] = docs([
        _component("meter-collector", "Meter Data Collector", "metering", "ami", provides=["meter-reads-api"],
                   depends=["resource:meter-db"]),
        _api("meter-reads-api", "Meter Reads API", "metering", "ami"),
    ])
    files["metering/firmware/catalog-info.yaml"] = _component(  # never had an owner, uses no API
        "firmware-updater", "Meter Firmware Updater", None, "ami", ctype="job")

    # -- customer portal -------------------------------------------------------------------------------------
    files["portal/web/catalog-info.yaml"] = _component(
        "customer-portal", "Customer Portal Website", "web-team", "portal", ctype="website",
        consumes=["billing-api"] + (["payments-api"] if step >= 2 else []) + (["outage-api"] if step >= 5 else []))
    files["portal/outage/catalog-info.yaml"] = docs([
        _component("outage-map", "Outage Map", "web-team" if step < 3 else "leak-response", "portal",
                   ctype="website", provides=["outage-api"], consumes=["valve-api"], depends=["resource:gis-layers"]),
        _api("outage-api", "Outage API", "web-team", "portal"),
    ])

    # -- leak response ---------------------------------------------------------------------------------------
    if step >= 3:
        files["leak/analyzer/catalog-info.yaml"] = docs([
            _component("leak-analyzer", "Leak Analyzer", "leak-response", "leak-detection",
                       provides=["leak-alerts-api"],
                       consumes=["pressure-api"] + (["meter-reads-api"] if step >= 4 else [])),
            _api("leak-alerts-api", "Leak Alerts API", "leak-response", "leak-detection"),
        ])

    # -- CODEOWNERS (GitHub: the last matching rule wins) ---------------------------------------------------
    plant_owners = "@riverbend/treatment @greg-novak" if step < 4 else "@riverbend/treatment @fatima-haddad"
    codeowners = [
        "# Riverbend Water code owners. The last matching rule wins.",
        "",
        "# Fallback: the digital leads",
        "*                       @riverbend/digital-leads",
        "",
        "/network/               @riverbend/network-ops",
        "/network/valves/        @riverbend/network-ops @owen-price",
        f"/plant/                 {plant_owners}",
        "/billing/               @riverbend/billing @sam-okoro",
        "/metering/              @riverbend/metering",
        "/portal/                @riverbend/web-team",
    ]
    if step >= 2:
        codeowners += ["", "# Every SQL file, wherever it is: the DBAs and Ines",
                       "*.sql                   @riverbend/dba @ines-duarte"]
    if step >= 3:
        codeowners += ["/leak/**                @riverbend/leak-response"]
    if step >= 4:
        codeowners += ["", "# Meter firmware is signed by the vendor: nobody here reviews it", "/metering/firmware/"]
    codeowners += ["", "/docs/                  @helen-mbeki @arjun-kapoor", "",
                   "# Vendored SDKs: no owners", "/vendor/"]
    files[".github/CODEOWNERS"] = "\n".join(codeowners) + "\n"

    # -- code ----------------------------------------------------------------------------------------------
    files["README.md"] = "# Riverbend Water services\n\nNetwork, plant, metering, billing and portal.\n" + (
        "\nOut of hours: #water-oncall.\n" if step >= 6 else "")
    files["network/pressure/monitor.py"] = "print('pressure')\n"
    files["network/valves/control.py"] = "print('valves')\n"
    files["network/gis/sync.py"] = "print('gis')\n"
    files["plant/scada/gateway.c"] = "/* scada */\n"
    files["plant/dosing/dosing.c"] = "/* dosing */\n"
    files["plant/lab/tracker.py"] = "print('samples')\n"
    files["plant/lab/results.sql"] = "SELECT 1;\n"
    files["billing/engine/rates.py"] = "print('rates')\n"
    files["billing/engine/schema.sql"] = "CREATE TABLE bill (id int);\n"
    files["billing/payments/gateway.ts"] = "export {};\n"
    files["metering/collector/collect.go"] = "package collector\n"
    files["metering/firmware/update.c"] = "/* firmware */\n"
    files["portal/web/app.tsx"] = "export {};\n"
    files["portal/outage/map.tsx"] = "export {};\n"
    files["reports/monthly.sql"] = "SELECT 2;\n"
    files["vendor/arcgis/sdk.js"] = "/* vendored */\n"
    files["docs/onboarding.md"] = "# Welcome to Riverbend Water\n"
    if step >= 3:
        files["leak/analyzer/detect.py"] = "print('leaks')\n"
    return files


COMMITS = [
    (1, "2025-09-01T08:15:00+00:00", "Helen Mbeki", "Initial Backstage catalog and CODEOWNERS"),
    (2, "2025-11-03T13:40:00+00:00", "Yara Khalil", "Ben joins the lab; portal takes payments; GIS reads pressure; SQL reviewers"),
    (3, "2026-01-12T09:05:00+00:00", "Lucia Ferreira", "Leak Response team, leak analyzer and system; outage map to Leak Response"),
    (4, "2026-03-02T10:30:00+00:00", "Fatima Haddad", "Greg leaves; dosing controller unowned; plant reviewers; firmware unreviewed"),
    (5, "2026-05-11T15:50:00+00:00", "Kofi Mensah", "Kofi to Leak Response; Jon joins; portal reads outages"),
    (6, "2026-07-06T07:55:00+00:00", "Arjun Kapoor", "Nadia joins Billing; README out-of-hours channel"),
]


def build(root: Path) -> None:
    """Write every step of the history into a new git repository at ``root``."""
    build_history(root, COMMITS, _files, DOMAIN)


if __name__ == "__main__":
    sys.exit(main(sys.argv, build, __doc__.strip().splitlines()[-1]))
