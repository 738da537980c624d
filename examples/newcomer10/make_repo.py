"""Build the tenth newcomer fixture: a parcel-delivery company's Backstage + CODEOWNERS repository.

"Parcelpath", a regional parcel-delivery company, keeps its dispatch, parcel tracking, route planning,
customer apps, billing and platform services in one repository. Two departments: Delivery Engineering
(Dispatch, Tracking, Routing with a Route Research sub-team nobody is on that owns nothing, Customer
Apps, renamed Customer Experience in July, the Performance Guild, which has a person but owns nothing,
Warehouse Systems, dissolved in the May migration, and Courier Tools, created in March with nobody on it
until July) and Core Platform (Infrastructure, Data Platform, Billing, and Identity & Access, which
nobody is on but which owns the auth service and its API). Components of five kinds (``spec.type``:
service, website, library, worker, mobile-app) and resources of four kinds (database, s3-bucket, queue,
cache). One person is on two teams, one leaves, one's display name changes, one moves teams when
Warehouse Systems is dissolved, one moves to Courier Tools, two join, one is on no team throughout, and
a contractor's profile (``org/contractors.yaml``) may only be read by the Finance group (restricted by
``header/chainret.yaml``). The Tracking team and the Tracking system share a display name. One website
is owned by a person rather than a team; after the migration a worker, a bucket, an API and a system
still name ``warehouse``, a group nobody declares any more; a service, a worker and a library never
had an owner, nor have an API, a queue and a bucket; one service loses its owner, one mobile app and
one website change teams; two APIs nobody here provides (a vendor's, and one nobody calls either), two
nobody consumes, one whose consumers grow from none, several whose consumers grow. CODEOWNERS has a
``*`` fallback, a two-owner ``*.sql`` rule at any depth (a team and an e-mail address), rules with a
team and a person or a team and an e-mail address, last-match-wins overlaps (``/tracking/`` then
``/tracking/page/``, ``/routing/`` then ``/routing/eta/``, ``/apps/`` then ``/apps/courier/``,
``/billing/`` and ``/dispatch/`` then ``*.sql``), a rule that loses its owners in the migration and
one that never had any.

``questions.yaml`` was written from this script alone (no phrasing, lexicon or other question set of
chainret's was read). This script is the one statement of the tree at each step: every commit writes
it whole, by a fixed author at a fixed date (``newcomer_repo.build_history``), so that the hashes, and
so the view names, never change between machines.

Timeline (UTC):

- 2025-10-06  step 1: initial catalog and CODEOWNERS (the contractor Jonas Weber on Billing is there
              from the start; the legacy FTP bridge, the notification worker and the payments library
              have no owner, nor have the ETA API, the dispatch job queue and the analytics bucket; Mei
              Chen is on no team; Kwame Asante and Rosa Delgado are on Warehouse Systems)
- 2025-12-15  step 2: Dmitri Volkov joins Infrastructure; the dispatch service starts calling the
              Tracking API and the Parcelpath app the ETA API; a two-owner ``*.sql`` rule
- 2026-03-02  step 3: the Courier Tools team is created (nobody on it) and takes the courier app from
              Customer Apps; the analytics worker starts calling the Tracking API; an ``/apps/courier/``
              rule
- 2026-05-18  step 4: the migration: Warehouse Systems is dissolved (its group removed, but the label
              printer worker, the labels bucket, the Dock Scheduling API and the Warehouse system still
              name it); Kwame Asante leaves (his profile is removed); Rosa Delgado moves to Dispatch; the
              ETA service loses its owner; Ines Moreau's display name becomes Ines Moreau-Blanc; the
              courier app starts calling the ETA API and the Parcelpath app the Billing API;
              ``/warehouse/`` keeps its line with no owners
- 2026-07-27  step 5: Mateo Silva moves from Tracking to Courier Tools; the tracking page moves from
              Tracking to Customer Apps (and ``/tracking/page/`` with it), which is renamed Customer
              Experience; the Parcelpath app starts calling the Auth API; a ``/docs/`` rule with a
              person and an e-mail address
- 2026-10-12  step 6: Hugo Martin joins Data Platform; an on-call line in the README

Usage: ``python examples/newcomer10/make_repo.py DIR`` (DIR must not exist or be empty).
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/: the shared writer of newcomer worlds
from newcomer_repo import Commit, Descriptors, build_history, doc, main  # noqa: E402

DOMAIN = "parcelpath.example"
D = Descriptors(org="parcelpath", repo="delivery", domain=DOMAIN, where="Parcelpath engineering")
_group, _user, _component, _resource = D.group, D.user, D.component, D.resource
_api = partial(D.api, version="3.0.0")  # (name, title, owner, system[, api type])


CODE = {  # the code files, the same at every step (only their paths matter to CODEOWNERS)
    "dispatch/service/main.go": "package main\n",
    "dispatch/service/schema.sql": "CREATE TABLE jobs (id int);\n",
    "dispatch/console/app.tsx": "export {};\n",
    "tracking/service/tracker.py": "print('track')\n",
    "tracking/ingest/ingest.py": "print('ingest')\n",
    "tracking/page/index.html": "<html></html>\n",
    "tracking/notify/notify.py": "print('notify')\n",
    "routing/planner/planner.py": "print('plan')\n",
    "routing/eta/eta.py": "print('eta')\n",
    "libs/geo/geo.py": "print('geo')\n",
    "libs/payments/pay.py": "print('pay')\n",
    "libs/logging/log.py": "print('log')\n",
    "apps/courier/App.kt": "class App\n",
    "apps/customer/App.swift": "struct App {}\n",
    "apps/booking/index.tsx": "export {};\n",
    "billing/invoice.py": "print('invoice')\n",
    "billing/ledger.sql": "CREATE TABLE ledger (id int);\n",
    "billing/run/run.py": "print('run')\n",
    "platform/auth/auth.go": "package auth\n",
    "platform/status/status.html": "<html></html>\n",
    "warehouse/labels/labels.py": "print('labels')\n",
    "legacy/ftp/bridge.pl": "print 'bridge';\n",
    "data/analytics/job.py": "print('analytics')\n",
    "docs/oncall.md": "# Parcelpath on-call handbook\n",
}


def _files(step: int) -> dict[str, str]:
    """The whole tree at ``step`` (1..6)."""
    docs = "\n---\n".join
    files: dict[str, str] = {}
    migrated = step >= 4  # the May migration: Warehouse Systems dissolved

    files["catalog-info.yaml"] = doc("Location", "parcelpath-root",
                                      ["description: Parcelpath's org chart and systems"],
                                      ["targets:", "  - ./org/*.yaml", "  - ./systems.yaml"])

    # -- organisation: two departments -------------------------------------------------------------------
    delivery_children = (["dispatch", "tracking", "routing", "customer-apps", "perf-guild"]
                         + ([] if migrated else ["warehouse"]) + (["courier-tools"] if step >= 3 else []))
    groups = [
        _group("delivery-eng", "Delivery Engineering", "department", None, delivery_children),
        _group("dispatch", "Dispatch", "team", "delivery-eng", []),
        _group("tracking", "Tracking", "team", "delivery-eng", []),  # the Tracking system has the same name
        _group("routing", "Routing", "team", "delivery-eng", ["route-research"]),
        _group("route-research", "Route Research", "sub-team", "routing", []),  # nobody is on it, owns nothing
        _group("customer-apps", "Customer Apps" if step < 5 else "Customer Experience", "team", "delivery-eng", []),
        _group("perf-guild", "Performance Guild", "guild", "delivery-eng", []),  # has a person, owns nothing
        _group("core-platform", "Core Platform", "department", None,
               ["infra", "data-platform", "billing", "identity"]),
        _group("infra", "Infrastructure", "team", "core-platform", []),
        _group("data-platform", "Data Platform", "team", "core-platform", []),
        _group("billing", "Billing", "team", "core-platform", []),
        _group("identity", "Identity & Access", "team", "core-platform", []),  # nobody is on it, owns the auth service
    ]
    if not migrated:
        groups.append(_group("warehouse", "Warehouse Systems", "team", "delivery-eng", []))
    if step >= 3:
        groups.append(_group("courier-tools", "Courier Tools", "team", "delivery-eng", []))  # nobody on it until step 5
    files["org/groups.yaml"] = docs(groups)

    people = [
        _user("priya.raman", "Priya Raman", ["delivery-eng"]),
        _user("tom.eriksen", "Tom Eriksen", ["core-platform"]),
        _user("lena.fischer", "Lena Fischer", ["dispatch"]),
        _user("omar.haddad", "Omar Haddad", ["dispatch", "perf-guild"]),
        _user("grace.li", "Grace Li", ["tracking"]),
        _user("mateo.silva", "Mateo Silva", ["courier-tools"] if step >= 5 else ["tracking"]),
        _user("yuki.tanaka", "Yuki Tanaka", ["routing"]),
        _user("ines.moreau", "Ines Moreau" if step < 4 else "Ines Moreau-Blanc", ["routing"]),
        _user("rosa.delgado", "Rosa Delgado", ["dispatch"] if migrated else ["warehouse"]),
        _user("finn.obrien", "Finn O'Brien", ["customer-apps"]),
        _user("zara.ahmed", "Zara Ahmed", ["infra"]),
        _user("aoife.kelly", "Aoife Kelly", ["data-platform"]),
        _user("sven.larsen", "Sven Larsen", ["billing"]),
        _user("mei.chen", "Mei Chen", []),  # on no team, throughout
    ]
    if step >= 2:
        people.append(_user("dmitri.volkov", "Dmitri Volkov", ["infra"]))
    if not migrated:
        people.append(_user("kwame.asante", "Kwame Asante", ["warehouse"]))
    if step >= 6:
        people.append(_user("hugo.martin", "Hugo Martin", ["data-platform"]))
    files["org/people.yaml"] = docs(people)
    # readable by the Finance group only (header/chainret.yaml)
    files["org/contractors.yaml"] = _user("jonas.weber", "Jonas Weber", ["billing"])

    # -- domain, systems and resources ---------------------------------------------------------------------
    files["systems.yaml"] = docs([
        doc("Domain", "last-mile", ["title: Last-Mile Delivery"], ["owner: delivery-eng"]),
        doc("System", "dispatch-sys", ["title: Dispatch Platform"], ["owner: dispatch", "domain: last-mile"]),
        doc("System", "tracking", ["title: Tracking"], ["owner: tracking", "domain: last-mile"]),
        doc("System", "routing-sys", ["title: Route Planning"], ["owner: routing", "domain: last-mile"]),
        doc("System", "customer-sys", ["title: Customer Channels"], ["owner: customer-apps", "domain: last-mile"]),
        doc("System", "billing-sys", ["title: Billing and Invoicing"], ["owner: billing", "domain: last-mile"]),
        doc("System", "platform-sys", ["title: Platform Services"], ["owner: core-platform", "domain: last-mile"]),
        # still names the dissolved group after the migration
        doc("System", "warehouse-sys", ["title: Warehouse"], ["owner: warehouse", "domain: last-mile"]),
        _resource("dispatch-db", "Dispatch Database", "database", "dispatch", "dispatch-sys"),
        _resource("job-queue", "Dispatch Job Queue", "queue", None, "dispatch-sys"),  # never had an owner
        _resource("tracking-db", "Tracking Database", "database", "tracking", "tracking"),
        _resource("event-queue", "Parcel Events Queue", "queue", "infra", "tracking"),
        _resource("pod-photos", "Proof-of-Delivery Photos", "s3-bucket", "tracking", "tracking"),  # nothing uses it
        _resource("routing-db", "Routing Database", "database", "routing", "routing-sys"),
        _resource("route-cache", "Route Cache", "cache", "infra", "routing-sys"),
        _resource("ledger-db", "Ledger Database", "database", "billing", "billing-sys"),
        _resource("invoice-bucket", "Invoice Archive Bucket", "s3-bucket", "billing", "billing-sys"),
        _resource("label-bucket", "Shipping Labels Bucket", "s3-bucket", "warehouse", "warehouse-sys"),
        _resource("analytics-bucket", "Analytics Bucket", "s3-bucket", None, "platform-sys"),  # never had an owner
    ])

    # -- dispatch --------------------------------------------------------------------------------------------
    files["dispatch/service/catalog-info.yaml"] = docs([
        _component("dispatch-service", "Dispatch Service", "dispatch", "dispatch-sys", provides=["dispatch-api"],
                   consumes=["route-api"] + (["tracking-api"] if step >= 2 else []),
                   depends=["resource:dispatch-db", "resource:job-queue"]),
        _api("dispatch-api", "Dispatch API", "dispatch", "dispatch-sys"),
    ])
    files["dispatch/console/catalog-info.yaml"] = _component(
        "dispatch-console", "Dispatch Console", "dispatch", "dispatch-sys", ctype="website",
        consumes=["dispatch-api", "route-api"])

    # -- tracking ----------------------------------------------------------------------------------------------
    files["tracking/service/catalog-info.yaml"] = docs([
        _component("tracking-service", "Tracking Service", "tracking", "tracking", provides=["tracking-api"],
                   depends=["resource:tracking-db", "resource:event-queue"]),
        _api("tracking-api", "Tracking API", "tracking", "tracking"),
    ])
    files["tracking/ingest/catalog-info.yaml"] = docs([
        _component("scan-ingest", "Scan Ingest Worker", "tracking", "tracking", ctype="worker",
                   provides=["scan-events"], depends=["resource:event-queue", "resource:tracking-db"]),
        _api("scan-events", "Scan Events", "tracking", "tracking", "asyncapi"),
    ])
    files["tracking/page/catalog-info.yaml"] = _component(
        "tracking-page", "Parcel Tracking Page", "tracking" if step < 5 else "customer-apps", "tracking",
        ctype="website", consumes=["tracking-api"])
    files["tracking/notify/catalog-info.yaml"] = _component(  # never had an owner
        "notify-worker", "Notification Worker", None, "tracking", ctype="worker",
        consumes=["tracking-api"], depends=["resource:event-queue"])

    # -- routing -----------------------------------------------------------------------------------------------
    files["routing/planner/catalog-info.yaml"] = docs([
        _component("route-planner", "Route Planner", "routing", "routing-sys", provides=["route-api"],
                   consumes=["maps-api"], depends=["resource:routing-db", "resource:route-cache"]),
        _api("route-api", "Route API", "routing", "routing-sys"),
        _api("maps-api", "Maps API", "routing", "routing-sys"),  # a vendor's: nobody here provides it
    ])
    files["routing/eta/catalog-info.yaml"] = docs([
        _component("eta-service", "ETA Service", None if migrated else "routing", "routing-sys",
                   provides=["eta-api"], consumes=["route-api", "tracking-api"], depends=["resource:route-cache"]),
        _api("eta-api", "ETA API", None, "routing-sys"),  # never had an owner
    ])
    files["libs/geo/catalog-info.yaml"] = _component(
        "geo-lib", "Geo Library", "routing", "routing-sys", ctype="library")

    # -- customer channels -------------------------------------------------------------------------------------
    files["apps/courier/catalog-info.yaml"] = _component(
        "courier-app", "Courier App", "courier-tools" if step >= 3 else "customer-apps", "customer-sys",
        ctype="mobile-app", consumes=["dispatch-api", "route-api"] + (["eta-api"] if migrated else []))
    files["apps/customer/catalog-info.yaml"] = _component(
        "customer-app", "Parcelpath App", "customer-apps", "customer-sys", ctype="mobile-app",
        consumes=["tracking-api"] + (["eta-api"] if step >= 2 else []) + (["billing-api"] if migrated else [])
        + (["auth-api"] if step >= 5 else []))
    files["apps/booking/catalog-info.yaml"] = _component(
        "booking-site", "Booking Site", "customer-apps", "customer-sys", ctype="website",
        consumes=["billing-api", "eta-api"])

    # -- billing -----------------------------------------------------------------------------------------------
    files["billing/catalog-info.yaml"] = docs([
        _component("invoice-service", "Invoice Service", "billing", "billing-sys",
                   provides=["billing-api", "rate-card-api"],
                   depends=["resource:ledger-db", "resource:invoice-bucket"]),
        _api("billing-api", "Billing API", "billing", "billing-sys"),
        _api("rate-card-api", "Rate Card API", "billing", "billing-sys"),  # nobody calls it
    ])
    files["billing/run/catalog-info.yaml"] = _component(
        "invoice-run", "Invoice Run Worker", "billing", "billing-sys", ctype="worker",
        consumes=["billing-api"], depends=["resource:ledger-db", "resource:job-queue"])
    files["libs/payments/catalog-info.yaml"] = _component(  # never had an owner
        "payments-lib", "Payments Library", None, "billing-sys", ctype="library")

    # -- platform ----------------------------------------------------------------------------------------------
    files["platform/auth/catalog-info.yaml"] = docs([
        _component("auth-service", "Auth Service", "identity", "platform-sys", provides=["auth-api"]),
        _api("auth-api", "Auth API", "identity", "platform-sys"),  # first consumer at step 5
    ])
    files["platform/status/catalog-info.yaml"] = _component(  # owned by a person, not a team
        "status-site", "Status Site", "user:zara.ahmed", "platform-sys", ctype="website")
    files["libs/logging/catalog-info.yaml"] = _component(
        "log-lib", "Logging Library", "infra", "platform-sys", ctype="library")
    files["data/analytics/catalog-info.yaml"] = _component(
        "analytics-worker", "Analytics Worker", "data-platform", "platform-sys", ctype="worker",
        consumes=["scan-events"] + (["tracking-api"] if step >= 3 else []), depends=["resource:analytics-bucket"])
    files["legacy/ftp/catalog-info.yaml"] = _component(  # never had an owner
        "ftp-bridge", "Legacy FTP Bridge", None, "platform-sys", consumes=["dispatch-api"])

    # -- warehouse: after the migration the group is gone, these still name it ---------------------------------
    files["warehouse/labels/catalog-info.yaml"] = docs([
        _component("label-printer", "Label Printer Worker", "warehouse", "warehouse-sys", ctype="worker",
                   consumes=["dispatch-api"], depends=["resource:label-bucket"]),
        _api("dock-api", "Dock Scheduling API", "warehouse", "warehouse-sys"),  # nobody provides or calls it
    ])

    # -- CODEOWNERS (GitHub: the last matching rule wins) ---------------------------------------------------
    page_owner = "@parcelpath/tracking" if step < 5 else "@parcelpath/customer-apps"
    codeowners = [
        "# Parcelpath code owners. The last matching rule wins.",
        "",
        "# Fallback: the platform leads review anything not listed below",
        "*                      @parcelpath/platform-leads",
        "",
        "/dispatch/             @parcelpath/dispatch",
        "/tracking/             @parcelpath/tracking @grace-li",
        f"/tracking/page/        {page_owner}",
        "/routing/              @parcelpath/routing",
        "/routing/eta/          @yuki-tanaka",
        "/apps/                 @parcelpath/customer-apps",
    ]
    if step >= 3:
        codeowners += ["/apps/courier/         @parcelpath/courier-tools"]
    codeowners += [
        "/billing/              @parcelpath/billing sven.larsen@parcelpath.example",
        "/libs/                 @parcelpath/platform-leads @zara-ahmed",
        "/platform/             @parcelpath/infra",
        "/data/                 @parcelpath/data-platform",
    ]
    if migrated:
        codeowners += ["", "# Warehouse Systems is gone: nobody reviews its code until a new home is found",
                       "/warehouse/"]
    else:
        codeowners += ["/warehouse/            @parcelpath/warehouse @kwame-asante"]
    if step >= 2:
        codeowners += ["", "# Every SQL file, wherever it is: the database reviewers",
                       "*.sql                  @parcelpath/dba aoife.kelly@parcelpath.example"]
    if step >= 5:
        codeowners += ["", "/docs/                 @priya-raman tom.eriksen@parcelpath.example"]
    codeowners += ["", "# The FTP bridge is being retired: nobody owns it", "/legacy/"]
    files[".github/CODEOWNERS"] = "\n".join(codeowners) + "\n"

    # -- code ----------------------------------------------------------------------------------------------
    files["README.md"] = "# Parcelpath\n\nDispatch, tracking, routing, customer apps, billing and platform.\n" + (
        "\nOn call: #parcel-oncall.\n" if step >= 6 else "")
    files.update(CODE)
    return files


COMMITS: list[Commit] = [
    (1, "2025-10-06T09:30:00+00:00", "Priya Raman", "Initial Backstage catalog and CODEOWNERS"),
    (2, "2025-12-15T14:10:00+00:00", "Zara Ahmed",
     "Dmitri joins Infrastructure; dispatch reads tracking; SQL reviewers"),
    (3, "2026-03-02T10:00:00+00:00", "Priya Raman", "Courier Tools team takes the courier app"),
    (4, "2026-05-18T16:45:00+00:00", "Tom Eriksen", "Migration: Warehouse Systems dissolved; ETA service unowned"),
    (5, "2026-07-27T08:20:00+00:00", "Priya Raman", "Mateo to Courier Tools; tracking page to Customer Experience"),
    (6, "2026-10-12T12:00:00+00:00", "Aoife Kelly", "Hugo joins Data Platform; README on-call line"),
]

# Writes every step of the history into a new git repository at ``root`` (the scorer calls ``build(root)``).
build = partial(build_history, commits=COMMITS, files_at=_files, domain=DOMAIN)

if __name__ == "__main__":
    sys.exit(main(sys.argv, build, __doc__.strip().splitlines()[-1]))
