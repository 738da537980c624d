"""Build the second newcomer fixture: a ferry operator's Backstage + CODEOWNERS repository with a git history.

"Harbourline" runs passenger ferries. Its catalog has two departments with nested teams, entities in
two Backstage namespaces (``default`` for the digital side, ``ops`` for fleet technology), people who
sit on several teams, two people with the same display name, a contractor whose profile only People
Ops may read (``org/contractors.yaml``, restricted by ``header/chainret.yaml``), an owner reference
to a group nobody has declared, an unowned component, and a CODEOWNERS file with ``**`` globs,
multi-owner rules and a rule with no owners (GitHub documents that such a rule un-owns the paths it
matches).

The questions in ``questions.yaml`` were written against this script alone, without reading
chainret's phrasings, lexicon or any other question set. Each commit writes the whole tree for its
step (so this script is the single statement of what the repository holds at each date) with fixed
author and committer identities and dates, so the commit hashes and the view names chainret derives
from them (``<date>-<short hash>``) are the same on every run.

Timeline (UTC):

- 2025-09-08  step 1: initial catalog and CODEOWNERS (the contractors file, Kofi Mensah on Booking,
              is there from the start)
- 2025-10-21  step 2: the Apps team takes over the web portal from Booking; Tobi also joins Vessel
              Tracking (his third team); a three-owner ``*.tf`` rule
- 2025-12-02  step 3: Priya Nair joins Booking
- 2026-01-14  step 4: the ops reshuffle: Lena Fischer leaves (her profile is removed), manifest-builder
              moves from Crew Scheduling to Vessel Tracking, the check-in kiosk loses its owner,
              ``/ops/crew/`` is now reviewed by Crew Scheduling and Sam Osei
- 2026-02-26  step 5: notifications-worker starts calling the Bookings API (its fifth consumer); Sam
              King moves from Booking to Apps; Noor Haddad joins (no team yet)
- 2026-03-30  step 6: Dana Wright's display name becomes Dana Whitfield; a README tweak

Usage: ``python examples/newcomer2/make_repo.py DIR`` (DIR must not exist or be empty).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ORG = "harbourline"
DOMAIN = f"{ORG}.example"


def _doc(kind: str, name: str, namespace: str | None, meta: list[str], spec: list[str]) -> str:
    lines = ["apiVersion: backstage.io/v1alpha1", f"kind: {kind}", "metadata:", f"  name: {name}"]
    if namespace:
        lines.append(f"  namespace: {namespace}")
    lines += [f"  {m}" for m in meta]
    lines.append("spec:")
    lines += [f"  {s}" for s in spec]
    return "\n".join(lines) + "\n"


def _list(key: str, values: list[str] | None) -> list[str]:
    """A block list field (``key:`` then ``- value`` lines), or nothing."""
    if not values:
        return []
    return [f"{key}:", *(f"  - {v}" for v in values)]


def _group(name: str, title: str, gtype: str, parent: str | None, children: list[str], *, namespace: str | None = None) -> str:
    spec = [f"type: {gtype}", "profile:", f"  displayName: {title}", f"  email: {name}@{DOMAIN}"]
    if parent:
        spec.append(f"parent: {parent}")
    spec.append("children: [" + ", ".join(children) + "]")
    return _doc("Group", name, namespace, [f"description: {title} at Harbourline"], spec)


def _user(name: str, display: str, teams: list[str]) -> str:
    spec = ["profile:", f"  displayName: {display}", f"  email: {name}@{DOMAIN}", "memberOf: [" + ", ".join(teams) + "]"]
    return _doc("User", name, None, [], spec)


def _component(name: str, title: str, owner: str | None, system: str, *, ctype: str = "service",
               namespace: str | None = None, provides: list[str] | None = None, consumes: list[str] | None = None,
               depends: list[str] | None = None) -> str:
    spec = [f"type: {ctype}", "lifecycle: production"]
    if owner:
        spec.append(f"owner: {owner}")
    spec.append(f"system: {system}")
    spec += _list("providesApis", provides) + _list("consumesApis", consumes) + _list("dependsOn", depends)
    meta = [f"title: {title}", "annotations:", f"  github.com/project-slug: {ORG}/ferries"]
    return _doc("Component", name, namespace, meta, spec)


def _api(name: str, title: str, owner: str, system: str, *, namespace: str | None = None) -> str:
    spec = ["type: openapi", "lifecycle: production", f"owner: {owner}", f"system: {system}", "definition: |",
            "  openapi: 3.0.0", f"  info: {{title: {title}, version: 2.1.0}}", "  paths: {}"]
    return _doc("API", name, namespace, [f"title: {title}"], spec)


def _resource(name: str, title: str, rtype: str, owner: str, system: str, *, namespace: str | None = None,
              dependency_of: list[str] | None = None) -> str:
    spec = [f"type: {rtype}", f"owner: {owner}", f"system: {system}", *_list("dependencyOf", dependency_of)]
    return _doc("Resource", name, namespace, [f"title: {title}"], spec)


def _files(step: int) -> dict[str, str]:
    """The whole tree at ``step`` (1..6)."""
    docs = "\n---\n".join
    files: dict[str, str] = {}

    targets = ["./org/*.yaml", "./systems/booking-platform.yaml", "./booking/*/catalog-info.yaml",
               "./apps/*/catalog-info.yaml", "./ops/catalog-info.yaml", "./ops/*/catalog-info.yaml"]
    files["catalog-info.yaml"] = _doc("Location", "harbourline-root", None,
                                      ["description: Everything Harbourline registers in Backstage"],
                                      ["targets:", *(f"  - {t}" for t in targets)])

    # -- organisation: two departments, in two namespaces --------------------------------------------
    files["org/groups.yaml"] = docs([
        _group("digital", "Digital", "department", None, ["booking", "apps"]),
        _group("booking", "Booking Team", "team", "digital", []),
        _group("apps", "Apps Team", "team", "digital", ["apps-release"]),
        _group("apps-release", "Release Crew", "sub-team", "apps", []),
        _group("fleet-tech", "Fleet Technology", "department", None, ["vessel-tracking", "crewing"], namespace="ops"),
        _group("vessel-tracking", "Vessel Tracking", "team", "fleet-tech", [], namespace="ops"),
        _group("crewing", "Crew Scheduling", "team", "fleet-tech", [], namespace="ops"),
    ])

    tobi = ["apps", "apps-release"] + (["ops/vessel-tracking"] if step >= 2 else [])
    people = [
        _user("marta.halvorsen", "Marta Halvorsen", ["booking"]),
        _user("tobi.adeyemi", "Tobi Adeyemi", tobi),
        _user("sam.king", "Sam King", ["booking"] if step < 5 else ["apps"]),
        _user("sam.osei", "Sam Osei", ["ops/crewing"]),
        _user("chris.park", "Chris Park", ["apps"]),
        _user("christopher.park", "Chris Park", ["ops/crewing"]),  # the same display name as chris.park
        _user("ines.duarte", "Inês Duarte", ["booking"]),
        _user("raj.menon", "Raj Menon", ["ops/vessel-tracking"]),
        _user("olu.bakare", "Olu Bakare", ["apps-release"]),
        _user("dana.wright", "Dana Wright" if step < 6 else "Dana Whitfield", ["digital"]),
    ]
    if step < 4:
        people.append(_user("lena.fischer", "Lena Fischer", ["ops/crewing"]))
    if step >= 3:
        people.append(_user("priya.nair", "Priya Nair", ["booking"]))
    if step >= 5:
        people.append(_user("noor.haddad", "Noor Haddad", []))  # a new hire, not on a team yet
    files["org/people.yaml"] = docs(people)
    # readable by People Ops only (header/chainret.yaml)
    files["org/contractors.yaml"] = _user("kofi.mensah", "Kofi Mensah", ["booking"])

    # -- the digital side (namespace default) ---------------------------------------------------------
    files["systems/booking-platform.yaml"] = docs([
        _doc("Domain", "harbourline-services", None, ["title: Harbourline Services"], ["owner: digital"]),
        _doc("System", "booking-platform", None, ["title: Booking Platform"],
             ["owner: booking", "domain: harbourline-services"]),
        _resource("bookings-db", "Bookings Database", "database", "booking", "booking-platform"),
        # data-platform is not declared anywhere yet (the team is still being set up)
        _resource("ticket-archive", "Ticket Archive", "s3-bucket", "data-platform", "booking-platform",
                  dependency_of=["component:booking-engine"]),
    ])
    files["booking/engine/catalog-info.yaml"] = docs([
        _component("booking-engine", "Booking Engine", "booking", "booking-platform", provides=["bookings-api"],
                   consumes=["payments-api"], depends=["resource:bookings-db", "component:payment-adapter"]),
        _api("bookings-api", "Bookings API", "booking", "booking-platform"),
    ])
    files["booking/payments/catalog-info.yaml"] = docs([
        _component("payment-adapter", "Payment Adapter", "booking", "booking-platform", provides=["payments-api"],
                   depends=["resource:bookings-db"]),
        _api("payments-api", "Payments API", "booking", "booking-platform"),
    ])
    files["apps/web/catalog-info.yaml"] = _component(
        "web-portal", "Passenger Web Portal", "booking" if step < 2 else "apps", "booking-platform", ctype="website",
        consumes=["bookings-api", "ops/timetable-api"])
    files["apps/mobile/catalog-info.yaml"] = _component(
        "mobile-app", "Harbourline App", "apps", "booking-platform", ctype="mobile-app",
        consumes=["bookings-api", "ops/timetable-api", "ops/vessel-positions-api"])
    files["apps/kiosk/catalog-info.yaml"] = _component(
        "checkin-kiosk", "Check-in Kiosk", "apps" if step < 4 else None, "booking-platform",
        consumes=["bookings-api"])
    files["apps/notifications/catalog-info.yaml"] = _component(
        "notifications-worker", "Notifications Worker", "apps-release", "booking-platform",
        consumes=["bookings-api"] if step >= 5 else None)

    # -- fleet technology (namespace ops: unqualified references resolve in ops) -------------------------
    files["ops/catalog-info.yaml"] = docs([
        _doc("System", "fleet", "ops", ["title: Fleet Systems"],
             ["owner: vessel-tracking", "domain: default/harbourline-services"]),
        _resource("fleet-db", "Fleet Database", "database", "vessel-tracking", "fleet", namespace="ops"),
        _api("timetable-api", "Timetable API", "vessel-tracking", "fleet", namespace="ops"),
        _api("vessel-positions-api", "Vessel Positions API", "vessel-tracking", "fleet", namespace="ops"),
    ])
    files["ops/schedule/catalog-info.yaml"] = _component(
        "schedule-service", "Schedule Service", "vessel-tracking", "fleet", namespace="ops",
        provides=["timetable-api"], consumes=["vessel-positions-api"], depends=["resource:fleet-db"])
    files["ops/ais/catalog-info.yaml"] = _component(
        "ais-ingest", "AIS Ingest", "vessel-tracking", "fleet", namespace="ops",
        provides=["vessel-positions-api"], depends=["resource:fleet-db"])
    files["ops/crew/catalog-info.yaml"] = _component(
        "manifest-builder", "Manifest Builder", "crewing" if step < 4 else "vessel-tracking", "fleet",
        namespace="ops", consumes=["default/bookings-api"], depends=["resource:fleet-db"])

    # -- CODEOWNERS (GitHub: the last matching rule wins) ---------------------------------------------------
    crew_owners = "@harbourline/crewing @lena-fischer" if step < 4 else "@harbourline/crewing @sam-osei"
    codeowners = [
        "# Harbourline code owners. The last matching rule wins.",
        "",
        "# Anything not listed below goes to the digital leads",
        "*                        @harbourline/digital-leads",
        "",
        "/booking/                @harbourline/booking",
        "/apps/                   @harbourline/apps",
        "/apps/**/android/        @harbourline/apps-release @olu-bakare",
        "/ops/                    @harbourline/vessel-tracking",
        f"/ops/crew/               {crew_owners}",
    ]
    if step >= 2:
        codeowners += ["", "# Terraform: fleet, SRE and Raj review every change",
                       "*.tf                     @harbourline/vessel-tracking @harbourline/sre @raj-menon"]
    codeowners += ["", "docs/**                  @dana-wright", "",
                   "# Vendored code is not ours to review: no owners", "/vendor/"]
    files[".github/CODEOWNERS"] = "\n".join(codeowners) + "\n"

    # -- code ----------------------------------------------------------------------------------------------
    files["README.md"] = "# Harbourline ferries\n\nBooking, apps and fleet systems.\n" + (
        "\nAsk #help-digital or #help-fleet.\n" if step >= 6 else "")
    files["booking/engine/main.py"] = "print('booking engine')\n"
    files["booking/payments/adapter.py"] = "print('payments')\n"
    files["booking/db/schema.sql"] = "CREATE TABLE bookings (id INT);\n"
    files["apps/web/index.html"] = "<!doctype html><title>Harbourline</title>\n"
    files["apps/mobile/android/build.gradle"] = "// android build\n"
    files["apps/mobile/ios/AppDelegate.swift"] = "// ios\n"
    files["apps/kiosk/android/MainActivity.kt"] = "// kiosk\n"
    files["apps/notifications/worker.py"] = "print('notify')\n"
    files["ops/schedule/service.py"] = "print('schedule')\n"
    files["ops/ais/ingest.py"] = "print('ais')\n"
    files["ops/crew/manifest.py"] = "print('manifest')\n"
    files["ops/infra/main.tf"] = "# fleet infra\n"
    files["infra/network.tf"] = "# network\n"
    files["docs/index.md"] = "# Harbourline docs\n"
    files["docs/runbooks/ferry-delay.md"] = "# When a sailing is delayed\n"
    files["vendor/ais-sdk/client.py"] = "print('vendored')\n"
    return files


COMMITS = [
    (1, "2025-09-08T09:00:00+00:00", "Dana Wright", "Initial Backstage catalog and CODEOWNERS"),
    (2, "2025-10-21T15:30:00+00:00", "Tobi Adeyemi", "Apps takes over the web portal; Tobi joins Vessel Tracking; Terraform reviewers"),
    (3, "2025-12-02T11:00:00+00:00", "Marta Halvorsen", "Priya joins Booking"),
    (4, "2026-01-14T10:00:00+00:00", "Raj Menon", "Ops reshuffle: Lena leaves, manifest-builder to Vessel Tracking, kiosk unowned"),
    (5, "2026-02-26T16:20:00+00:00", "Olu Bakare", "Notifications read bookings; Sam King moves to Apps; Noor joins"),
    (6, "2026-03-30T08:45:00+00:00", "Dana Whitfield", "Dana's new surname; README help channels"),
]


def build(root: Path) -> None:
    """Write every step of the history into a new git repository at ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    if any(root.iterdir()):
        raise SystemExit(f"{root} is not empty")
    env_base = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env_base.update({"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull})

    def git(*args: str, env: dict[str, str] | None = None) -> None:
        subprocess.run(["git", *args], cwd=root, check=True, env=env or env_base, stdout=subprocess.DEVNULL)

    git("init", "-q", "-b", "main")
    previous: set[str] = set()
    for step, date, author, message in COMMITS:
        files = _files(step)
        for gone in previous - set(files):
            (root / gone).unlink()
        for rel, text in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        previous = set(files)
        email = author.lower().replace(" ", ".") + f"@{DOMAIN}"
        env = dict(env_base)
        env.update(GIT_AUTHOR_NAME=author, GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_NAME=author,
                   GIT_COMMITTER_EMAIL=email, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
        git("add", "-A", env=env)
        git("commit", "-q", "-m", message, env=env)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    build(Path(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
