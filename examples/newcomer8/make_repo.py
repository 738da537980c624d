"""Build the eighth newcomer fixture: a regional hospital network's IT Backstage + CODEOWNERS repository.

"Harbourview Health", a regional hospital network, keeps the software behind its patient portal, lab
results feed, imaging archive, billing and staff sign-on in one repository. Two departments: Clinical
Systems (Patient Portal, Lab Integration with an HL7 Interface Working Group sub-team nobody is on that
still owns the HL7 message queue, Imaging Operations, Clinical Informatics, which has people but owns
nothing, and Telehealth, created part way through) and Business Systems (Revenue Cycle, Identity and
Access, Patient Access, which lists its people on the group rather than on the users and owns nothing,
and the Privacy Office, which nobody is on and which owns nothing). One person's display name changes,
one leaves, one is on three teams, one moves teams, one starts on no team and later joins Revenue Cycle,
a new starter stays on no team, and a contractor's profile (``org/contractors.yaml``) may only be read by
the Information Governance group (restricted by ``header/chainret.yaml``). One component is owned by a
person rather than a team, one names an owner group nobody declares (the fax vendor), one component and
one resource never had an owner, one API has no owner, another component loses its owner, one moves
teams; one API nobody provides or consumes, two that are provided but never consumed, several whose
consumers grow; a system with nothing in it. CODEOWNERS has a ``*`` fallback, a ``*.sql`` rule at any
depth, a ``/telehealth/**`` rule, rules with two owners, a rule whose second owner changes when its
reviewer leaves, last-match-wins overlaps (``/portal/`` then ``/portal/appointments/``, ``/lab/`` then
``/lab/hl7/``, ``/lab/`` and ``/billing/`` then ``*.sql``, ``/imaging/`` then ``/imaging/dicom/``), and
two rules with no owners, one added later.

The questions in ``questions.yaml`` were written against this script alone, without reading
chainret's phrasings, lexicon or any other question set. Each commit writes the whole tree for its
step (so this script is the single statement of what the repository holds at each date) with fixed
author and committer identities and dates, so the commit hashes and the view names chainret derives
from them (``<date>-<short hash>``) are the same on every run.

Timeline (UTC):

- 2025-10-06  step 1: initial catalog and CODEOWNERS (the contractor Victor Hahn on Imaging Operations is
              there from the start; the DICOM router and the scanned consent forms have no owner, nor
              has the Referral Intake API; Patient Access is Bella Chen alone; Zoe Martin is on no team)
- 2025-12-01  step 2: Omar Farouk joins Patient Access; the portal website starts calling the Imaging
              Archive API and the Referral Intake API; a two-owner ``*.sql`` rule
- 2026-02-09  step 3: the Telehealth team is created (Amira Saleh, her third team) with the video visits
              service, the Video Visit API and the Virtual Care system; the imaging viewer moves from
              Imaging Operations to the Patient Portal team; a ``/telehealth/**`` rule
- 2026-04-13  step 4: Marcus Hale leaves (his profile is removed); the specimen tracker loses its owner;
              ``/imaging/`` is now reviewed by Imaging Operations and Priya Nair (was Marcus Hale); an
              ``/imaging/dicom/`` rule with no owners; Ruth Okafor's display name becomes Ruth
              Okafor-Lane; the billing engine starts calling the Lab Results API
- 2026-06-15  step 5: Elena Petrova moves from Identity and Access to Telehealth; Leo Grant joins (no
              team); the portal website starts calling the Video Visit API and the video visits service
              the Appointments API
- 2026-08-03  step 6: Zoe Martin joins Revenue Cycle; a README tweak

Usage: ``python examples/newcomer8/make_repo.py DIR`` (DIR must not exist or be empty).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/: the shared writer of newcomer worlds
from newcomer_repo import Commit, Descriptors, build_history, doc, main  # noqa: E402

ORG = "harbourview"
DOMAIN = "harbourview-health.example"
D = Descriptors(org=ORG, repo="hospital-it", domain=DOMAIN, where="Harbourview Health IT")
_doc, _group, _user, _component, _resource = doc, D.group, D.user, D.component, D.resource


def _api(name: str, title: str, owner: str | None, system: str, api_type: str = "openapi") -> str:
    return D.api(name, title, owner, system, api_type, version="1.4.0")


def _files(step: int) -> dict[str, str]:
    """The whole tree at ``step`` (1..6)."""
    docs = "\n---\n".join
    files: dict[str, str] = {}

    files["catalog-info.yaml"] = _doc("Location", "harbourview-root",
                                      ["description: The network's IT org chart and systems"],
                                      ["targets:", "  - ./org/*.yaml", "  - ./systems.yaml"])

    # -- organisation: two departments -------------------------------------------------------------------
    clinical_children = ["portal-team", "lab-integration", "imaging-ops", "clinical-informatics"] + (
        ["telehealth"] if step >= 3 else [])
    access_members = ["bella.chen"] + (["omar.farouk"] if step >= 2 else [])
    groups = [
        _group("clinical", "Clinical Systems", "department", None, clinical_children),
        _group("portal-team", "Patient Portal", "team", "clinical", []),
        _group("lab-integration", "Lab Integration", "team", "clinical", ["hl7-wg"]),
        _group("hl7-wg", "HL7 Interface Working Group", "sub-team", "lab-integration", []),  # nobody is on it
        _group("imaging-ops", "Imaging Operations", "team", "clinical", []),
        _group("clinical-informatics", "Clinical Informatics", "team", "clinical", []),  # has people, owns nothing
        _group("business", "Business Systems", "department", None,
               ["revenue-cycle", "identity", "patient-access", "privacy-office"]),
        _group("revenue-cycle", "Revenue Cycle", "team", "business", []),
        _group("identity", "Identity and Access", "team", "business", []),
        # Patient Access lists its people on the group (the users' memberOf stays empty); it owns nothing
        _group("patient-access", "Patient Access", "team", "business", [], members=access_members),
        _group("privacy-office", "Privacy Office", "team", "business", []),  # nobody is on it, owns nothing
    ]
    if step >= 3:
        groups.append(_group("telehealth", "Telehealth", "team", "clinical", []))
    files["org/groups.yaml"] = docs(groups)

    people = [
        _user("grace.obi", "Grace Obi", ["clinical"]),
        _user("daniel.reyes", "Daniel Reyes", ["business"]),
        _user("amira.saleh", "Amira Saleh",
              ["portal-team", "lab-integration"] + (["telehealth"] if step >= 3 else [])),
        _user("tom.becker", "Tom Becker", ["portal-team"]),
        _user("li.wei", "Li Wei", ["lab-integration"]),
        _user("priya.nair", "Priya Nair", ["imaging-ops"]),
        _user("sofia.rossi", "Sofia Rossi", ["clinical-informatics"]),
        _user("ken.adams", "Ken Adams", ["clinical-informatics"]),
        _user("ruth.okafor", "Ruth Okafor" if step < 4 else "Ruth Okafor-Lane", ["revenue-cycle"]),
        _user("james.dunn", "James Dunn", ["revenue-cycle"]),
        _user("elena.petrova", "Elena Petrova", ["identity"] if step < 5 else ["telehealth"]),
        _user("noah.kim", "Noah Kim", ["identity"]),
        _user("bella.chen", "Bella Chen", []),  # on Patient Access through the group's members
        _user("zoe.martin", "Zoe Martin", ["revenue-cycle"] if step >= 6 else []),  # no team until step 6
    ]
    if step >= 2:
        people.append(_user("omar.farouk", "Omar Farouk", []))  # on Patient Access through the group's members
    if step < 4:
        people.append(_user("marcus.hale", "Marcus Hale", ["imaging-ops"]))
    if step >= 5:
        people.append(_user("leo.grant", "Leo Grant", []))  # a new starter, not on a team yet
    files["org/people.yaml"] = docs(people)
    # readable by Information Governance only (header/chainret.yaml)
    files["org/contractors.yaml"] = _user("victor.hahn", "Victor Hahn", ["imaging-ops"])

    # -- domain, systems and resources ---------------------------------------------------------------------
    systems = [
        _doc("Domain", "patient-care", ["title: Patient Care"], ["owner: clinical"]),
        _doc("System", "patient-portal", ["title: Patient Portal"], ["owner: portal-team", "domain: patient-care"]),
        _doc("System", "lab-results", ["title: Lab Results Feed"], ["owner: lab-integration", "domain: patient-care"]),
        _doc("System", "imaging", ["title: Imaging Archive"], ["owner: imaging-ops", "domain: patient-care"]),
        _doc("System", "patient-billing", ["title: Patient Billing"], ["owner: revenue-cycle", "domain: patient-care"]),
        _doc("System", "identity-platform", ["title: Staff Sign-On"], ["owner: identity", "domain: patient-care"]),
        # nothing is in it
        _doc("System", "bed-management", ["title: Bed Management"], ["owner: clinical", "domain: patient-care"]),
    ]
    if step >= 3:
        systems.append(_doc("System", "virtual-care", ["title: Virtual Care"],
                            ["owner: telehealth", "domain: patient-care"]))
    systems += [
        _resource("hl7-queue", "HL7 Message Queue", "message-queue", "hl7-wg", "lab-results"),
        _resource("lab-db", "Lab Results Database", "database", "lab-integration", "lab-results"),
        _resource("pacs-store", "PACS Image Store", "object-store", "imaging-ops", "imaging"),
        _resource("billing-db", "Billing Database", "database", "revenue-cycle", "patient-billing"),
        _resource("claims-archive", "Claims Archive", "s3-bucket", "revenue-cycle", "patient-billing"),  # nothing uses it
        _resource("scanned-forms", "Scanned Consent Forms", "file-share", None, "patient-portal"),  # never had an owner
        _resource("staff-directory", "Staff Directory", "ldap", "identity", "identity-platform"),
    ]
    files["systems.yaml"] = docs(systems)

    # -- patient portal --------------------------------------------------------------------------------------
    files["portal/web/catalog-info.yaml"] = _component(
        "portal-web", "Patient Portal Website", "portal-team", "patient-portal", ctype="website",
        consumes=["lab-results-api", "billing-api", "sso-api", "appointments-api"]
        + (["imaging-api", "referral-api"] if step >= 2 else []) + (["video-api"] if step >= 5 else []))
    # owned by a person, not a team
    files["portal/appointments/catalog-info.yaml"] = docs([
        _component("appointment-service", "Appointment Service", "user:tom.becker", "patient-portal",
                   provides=["appointments-api"]),
        _api("appointments-api", "Appointments API", "portal-team", "patient-portal"),
    ])
    files["portal/ui-kit/catalog-info.yaml"] = _component(  # uses and offers no API
        "portal-ui-kit", "Portal UI Kit", "portal-team", "patient-portal", ctype="library")

    # -- lab results feed ------------------------------------------------------------------------------------
    files["lab/engine/catalog-info.yaml"] = docs([
        _component("lab-interface-engine", "Lab Interface Engine", "lab-integration", "lab-results",
                   provides=["lab-results-api", "lab-orders-api"], depends=["resource:hl7-queue", "resource:lab-db"]),
        _api("lab-results-api", "Lab Results API", "lab-integration", "lab-results"),
        _api("lab-orders-api", "Lab Orders Feed", "lab-integration", "lab-results", "asyncapi"),  # nobody calls it
    ])
    files["lab/specimens/catalog-info.yaml"] = _component(
        "specimen-tracker", "Specimen Tracker", "lab-integration" if step < 4 else None, "lab-results",
        ctype="website", consumes=["lab-results-api"])
    # fax-vendor is declared nowhere: the fax contractor is not in Backstage
    files["lab/fax/catalog-info.yaml"] = docs([
        _component("fax-gateway", "Referral Fax Gateway", "fax-vendor", "lab-results", provides=["referral-api"],
                   depends=["resource:scanned-forms"]),
        _api("referral-api", "Referral Intake API", None, "lab-results"),  # never had an owner
    ])

    # -- imaging archive -------------------------------------------------------------------------------------
    files["imaging/pacs/catalog-info.yaml"] = docs([
        _component("pacs-gateway", "PACS Gateway", "imaging-ops", "imaging", provides=["imaging-api"],
                   depends=["resource:pacs-store"]),
        _api("imaging-api", "Imaging Archive API", "imaging-ops", "imaging"),
    ])
    files["imaging/viewer/catalog-info.yaml"] = _component(
        "imaging-viewer", "Imaging Viewer", "imaging-ops" if step < 3 else "portal-team", "imaging",
        ctype="website", consumes=["imaging-api", "sso-api"])
    files["imaging/dicom/catalog-info.yaml"] = _component(  # never had an owner, uses no API
        "dicom-router", "DICOM Router", None, "imaging", ctype="job", depends=["resource:pacs-store"])

    # -- billing ---------------------------------------------------------------------------------------------
    files["billing/engine/catalog-info.yaml"] = docs([
        _component("billing-engine", "Billing Engine", "revenue-cycle", "patient-billing", provides=["billing-api"],
                   consumes=["lab-results-api"] if step >= 4 else None, depends=["resource:billing-db"]),
        _api("billing-api", "Billing API", "revenue-cycle", "patient-billing"),
        # planned: nobody provides or calls it
        _api("price-transparency-api", "Price Transparency API", "revenue-cycle", "patient-billing"),
    ])
    files["billing/claims/catalog-info.yaml"] = docs([
        _component("claims-submitter", "Insurance Claims Submitter", "revenue-cycle", "patient-billing", ctype="job",
                   provides=["claims-api"], consumes=["billing-api"]),
        _api("claims-api", "Insurance Claims API", "revenue-cycle", "patient-billing"),  # nobody calls it
    ])

    # -- staff sign-on ---------------------------------------------------------------------------------------
    files["identity/sso/catalog-info.yaml"] = docs([
        _component("sso-service", "Single Sign-On Service", "identity", "identity-platform", provides=["sso-api"],
                   depends=["resource:staff-directory"]),
        _api("sso-api", "Single Sign-On API", "identity", "identity-platform"),
    ])

    # -- telehealth ------------------------------------------------------------------------------------------
    if step >= 3:
        files["telehealth/video/catalog-info.yaml"] = docs([
            _component("video-visits", "Video Visits Service", "telehealth", "virtual-care", provides=["video-api"],
                       consumes=["sso-api"] + (["appointments-api"] if step >= 5 else [])),
            _api("video-api", "Video Visit API", "telehealth", "virtual-care"),
        ])

    # -- CODEOWNERS (GitHub: the last matching rule wins) ---------------------------------------------------
    imaging_owners = "@harbourview/imaging-ops @marcus-hale" if step < 4 else "@harbourview/imaging-ops @priya-nair"
    codeowners = [
        "# Harbourview Health IT code owners. The last matching rule wins.",
        "",
        "# Fallback: the IT leads review anything not listed below",
        "*                         @harbourview/it-leads",
        "",
        "/portal/                  @harbourview/portal-team",
        "/portal/appointments/     @harbourview/portal-team @tom-becker",
        "/lab/                     @harbourview/lab-integration @li-wei",
        "/lab/hl7/                 @harbourview/hl7-wg",
        f"/imaging/                 {imaging_owners}",
        "/billing/                 @harbourview/revenue-cycle",
        "/identity/                @harbourview/identity",
    ]
    if step >= 2:
        codeowners += ["", "# Every SQL file, wherever it is: the database team and Ruth",
                       "*.sql                     @harbourview/dba @ruth-okafor"]
    if step >= 3:
        codeowners += ["/telehealth/**            @harbourview/telehealth"]
    if step >= 4:
        codeowners += ["", "# The DICOM router is maintained by the modality vendor: nobody here reviews it",
                       "/imaging/dicom/"]
    codeowners += ["", "/docs/                    @grace-obi @daniel-reyes", "",
                   "# Vendored libraries: no owners", "/vendor/"]
    files[".github/CODEOWNERS"] = "\n".join(codeowners) + "\n"

    # -- code ----------------------------------------------------------------------------------------------
    files["README.md"] = "# Harbourview Health IT\n\nPortal, lab feed, imaging archive, billing and sign-on.\n" + (
        "\nOut of hours: page the IT service desk.\n" if step >= 6 else "")
    files["portal/web/app.tsx"] = "export {};\n"
    files["portal/appointments/booking.py"] = "print('booking')\n"
    files["portal/ui-kit/index.ts"] = "export {};\n"
    files["lab/engine/router.py"] = "print('hl7 routing')\n"
    files["lab/engine/schema.sql"] = "CREATE TABLE result (id int);\n"
    files["lab/hl7/mapping.py"] = "print('mapping')\n"
    files["lab/specimens/tracker.tsx"] = "export {};\n"
    files["lab/fax/inbound.py"] = "print('fax')\n"
    files["imaging/pacs/gateway.java"] = "class Gateway {}\n"
    files["imaging/viewer/viewer.tsx"] = "export {};\n"
    files["imaging/dicom/router.py"] = "print('dicom')\n"
    files["billing/engine/charges.py"] = "print('charges')\n"
    files["billing/claims/submit.py"] = "print('claims')\n"
    files["billing/reports/aging.sql"] = "SELECT 1;\n"
    files["identity/sso/server.go"] = "package sso\n"
    files["vendor/hl7lib/parser.js"] = "/* vendored */\n"
    files["docs/onboarding.md"] = "# Welcome to Harbourview Health IT\n"
    if step >= 3:
        files["telehealth/video/call.ts"] = "export {};\n"
    return files


COMMITS: list[Commit] = [
    (1, "2025-10-06T08:20:00+00:00", "Grace Obi", "Initial Backstage catalog and CODEOWNERS"),
    (2, "2025-12-01T14:10:00+00:00", "Daniel Reyes", "Omar joins Patient Access; portal reads imaging and referrals; SQL reviewers"),
    (3, "2026-02-09T09:45:00+00:00", "Amira Saleh", "Telehealth team, video visits and Virtual Care; imaging viewer to the portal team"),
    (4, "2026-04-13T11:00:00+00:00", "Priya Nair", "Marcus leaves; specimen tracker unowned; imaging reviewers; DICOM unreviewed"),
    (5, "2026-06-15T16:30:00+00:00", "Elena Petrova", "Elena to Telehealth; Leo joins; portal and video visits call more APIs"),
    (6, "2026-08-03T07:40:00+00:00", "Grace Obi", "Zoe joins Revenue Cycle; README out-of-hours line"),
]


def build(root: Path) -> None:
    """Write every step of the history into a new git repository at ``root``."""
    build_history(root, COMMITS, _files, DOMAIN)


if __name__ == "__main__":
    sys.exit(main(sys.argv, build, __doc__.strip().splitlines()[-1]))
