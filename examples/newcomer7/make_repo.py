"""Build the seventh newcomer fixture: an airline crew-scheduling department's Backstage + CODEOWNERS repository.

"Skyline Air", a mid-size airline, keeps the software behind its crew rosters, pairings, the union-rules
engine, the crew app and crew pay in one repository. Two departments: Crew Scheduling (Rostering;
Pairings Optimisation, which lists its people on the group rather than on the users; Union Rules Engine,
with a Fatigue Risk Working Group sub-team nobody is on that still owns the fatigue scores store; and
Disruption Management, created half way through) and Crew Digital (Crew Apps; Payroll Engineering;
Integrations, which has people but owns nothing; and Training Records, a team nobody is on that owns
nothing). One person's display name changes, one person leaves, one is on three teams, one moves teams,
a graduate starts on no team and later joins Payroll Engineering, a new starter stays on no team, and a
union secondee's profile (``org/secondees.yaml``) may only be read by HR partners (restricted by
``header/chainret.yaml``). One component names an owner group nobody declares (the travel vendor), one
component, one API and one resource never had an owner, another component loses its owner, one
component moves teams; one API nobody provides or consumes, one provided but never consumed, several
whose consumers grow; a system with nothing in it. CODEOWNERS has a ``*.sql`` rule at any depth, a
``/disruption/**`` rule, rules with two owners, a rule whose second owner changes when its reviewer
leaves, last-match-wins overlaps (``/apps/`` then ``/apps/notify/``, ``/payroll/`` then ``*.sql`` and
``/payroll/allowances/``, ``/rostering/`` then ``/rostering/export/``), and three rules with no owners,
one added later.

The questions in ``questions.yaml`` were written against this script alone, without reading
chainret's phrasings, lexicon or any other question set. Each commit writes the whole tree for its
step (so this script is the single statement of what the repository holds at each date) with fixed
author and committer identities and dates, so the commit hashes and the view names chainret derives
from them (``<date>-<short hash>``) are the same on every run.

Timeline (UTC):

- 2025-10-06  step 1: initial catalog and CODEOWNERS (the union secondee Hana Sato on the Union Rules
              Engine is there from the start; the legacy roster export, the crew documents bucket and
              the Crew Training API have no owner; Pairings Optimisation is Chen Wei alone; Kemi Adeyemi,
              a graduate, is on no team)
- 2025-12-01  step 2: Sofia Russo joins Pairings Optimisation; the crew app starts calling the Crew Pay
              API, the pairing optimiser the Union Rules API and the hotel booker the Roster API; a
              two-owner ``*.sql`` rule
- 2026-02-09  step 3: the Disruption Management team is created (Priya Nair, her third team) with the
              disruption recovery service, the Disruption API and the Disruption Recovery system; the crew
              notifications service moves from Crew Apps to Disruption Management; ``/disruption/**`` and
              ``/apps/notify/`` rules
- 2026-04-13  step 4: Dan Murphy leaves (his profile is removed); the fatigue calculator loses its owner;
              ``/rules/`` is now reviewed by the Union Rules Engine and Aisha Bello (was Dan Murphy); a
              ``/payroll/allowances/`` rule with no owners; Marta Kowalska's display name becomes Marta
              Kowalska-Byrne; the disruption recovery service starts calling the Pairings API
- 2026-06-15  step 5: Joe Finch moves from Crew Apps to Disruption Management; Ben Carter joins (no
              team); the crew app starts calling the Disruption API
- 2026-08-03  step 6: Kemi Adeyemi joins Payroll Engineering; a README tweak

Usage: ``python examples/newcomer7/make_repo.py DIR`` (DIR must not exist or be empty).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/: the shared writer of newcomer worlds
from newcomer_repo import Commit, Descriptors, build_history, doc, main  # noqa: E402

DOMAIN = "skyline-air.example"
D = Descriptors(org="skyline", repo="crew-scheduling", domain=DOMAIN, where="Skyline Air crew scheduling")
_doc, _group, _user, _component, _resource = doc, D.group, D.user, D.component, D.resource


def _api(name: str, title: str, owner: str | None, system: str, api_type: str = "openapi") -> str:
    return D.api(name, title, owner, system, api_type, version="1.4.0")


def _files(step: int) -> dict[str, str]:
    """The whole tree at ``step`` (1..6)."""
    docs = "\n---\n".join
    files: dict[str, str] = {}

    files["catalog-info.yaml"] = _doc("Location", "skyline-root",
                                      ["description: Crew scheduling's org chart and systems"],
                                      ["targets:", "  - ./org/*.yaml", "  - ./systems.yaml"])

    # -- organisation: two departments -------------------------------------------------------------------
    scheduling_children = ["rostering", "pairings", "rules-engine"] + (["disruption"] if step >= 3 else [])
    # Pairings lists its people on the group (the users' memberOf stays empty)
    pairings_members = ["chen.wei"] + (["sofia.russo"] if step >= 2 else [])
    groups = [
        _group("scheduling", "Crew Scheduling", "department", None, scheduling_children),
        _group("rostering", "Rostering", "team", "scheduling", []),
        _group("pairings", "Pairings Optimisation", "team", "scheduling", [], members=pairings_members),
        _group("rules-engine", "Union Rules Engine", "team", "scheduling", ["fatigue-wg"]),
        _group("fatigue-wg", "Fatigue Risk Working Group", "sub-team", "rules-engine", []),  # nobody is on it
        _group("crew-digital", "Crew Digital", "department", None,
               ["crew-apps", "payroll-eng", "integrations", "training-records"]),
        _group("crew-apps", "Crew Apps", "team", "crew-digital", []),
        _group("payroll-eng", "Payroll Engineering", "team", "crew-digital", []),
        _group("integrations", "Integrations", "team", "crew-digital", []),  # has people, owns nothing
        _group("training-records", "Training Records", "team", "crew-digital", []),  # nobody is on it, owns nothing
    ]
    if step >= 3:
        groups.append(_group("disruption", "Disruption Management", "team", "scheduling", []))
    files["org/groups.yaml"] = docs(groups)

    people = [
        _user("grace.okafor", "Grace Okafor", ["scheduling"]),
        _user("tom.reilly", "Tom Reilly", ["crew-digital"]),
        _user("priya.nair", "Priya Nair", ["rostering", "rules-engine"] + (["disruption"] if step >= 3 else [])),
        _user("liam.walsh", "Liam Walsh", ["rostering"]),
        _user("chen.wei", "Chen Wei", []),  # on Pairings through the group's members
        _user("aisha.bello", "Aisha Bello", ["rules-engine"]),
        _user("marta.kowalska", "Marta Kowalska" if step < 4 else "Marta Kowalska-Byrne", ["crew-apps"]),
        _user("joe.finch", "Joe Finch", ["crew-apps"] if step < 5 else ["disruption"]),
        _user("ravi.shah", "Ravi Shah", ["payroll-eng"]),
        _user("ellen.park", "Ellen Park", ["payroll-eng"]),
        _user("niamh.doyle", "Niamh Doyle", ["integrations"]),
        _user("oscar.lind", "Oscar Lind", ["integrations"]),
        _user("kemi.adeyemi", "Kemi Adeyemi", ["payroll-eng"] if step >= 6 else []),  # a graduate: no team until step 6
    ]
    if step >= 2:
        people.append(_user("sofia.russo", "Sofia Russo", []))  # on Pairings through the group's members
    if step < 4:
        people.append(_user("dan.murphy", "Dan Murphy", ["rules-engine"]))
    if step >= 5:
        people.append(_user("ben.carter", "Ben Carter", []))  # a new starter, not on a team yet
    files["org/people.yaml"] = docs(people)
    # readable by HR partners only (header/chainret.yaml)
    files["org/secondees.yaml"] = _user("hana.sato", "Hana Sato", ["rules-engine"])

    # -- domain, systems and resources ---------------------------------------------------------------------
    systems = [
        _doc("Domain", "crew-management", ["title: Crew Management"], ["owner: scheduling"]),
        _doc("System", "rosters", ["title: Crew Rostering"], ["owner: rostering", "domain: crew-management"]),
        _doc("System", "pairing-system", ["title: Pairing Optimisation"], ["owner: pairings", "domain: crew-management"]),
        _doc("System", "union-rules", ["title: Union Rules"], ["owner: rules-engine", "domain: crew-management"]),
        _doc("System", "crew-mobile", ["title: Crew Mobile"], ["owner: crew-apps", "domain: crew-management"]),
        _doc("System", "crew-pay", ["title: Crew Pay"], ["owner: payroll-eng", "domain: crew-management"]),
        # nothing is in it
        _doc("System", "standby", ["title: Standby Planning"], ["owner: rostering", "domain: crew-management"]),
    ]
    if step >= 3:
        systems.append(_doc("System", "disruption-recovery", ["title: Disruption Recovery"],
                            ["owner: disruption", "domain: crew-management"]))
    systems += [
        _resource("roster-db", "Roster Database", "database", "rostering", "rosters"),
        _resource("fatigue-db", "Fatigue Scores Store", "database", "fatigue-wg", "union-rules"),
        _resource("pairings-cache", "Pairings Cache", "redis", "pairings", "pairing-system"),
        _resource("pay-ledger", "Pay Ledger", "database", "payroll-eng", "crew-pay"),
        _resource("payslip-archive", "Payslip Archive", "s3-bucket", "payroll-eng", "crew-pay"),  # nothing uses it
        _resource("crew-docs", "Crew Documents Bucket", "s3-bucket", None, "crew-mobile"),  # never had an owner
    ]
    files["systems.yaml"] = docs(systems)

    # -- rostering -------------------------------------------------------------------------------------------
    files["rostering/builder/catalog-info.yaml"] = docs([
        _component("roster-builder", "Roster Builder", "rostering", "rosters", provides=["roster-api"],
                   consumes=["rules-api", "pairings-api"], depends=["resource:roster-db"]),
        _api("roster-api", "Roster API", "rostering", "rosters"),
    ])
    files["rostering/export/catalog-info.yaml"] = _component(  # never had an owner, uses no API
        "roster-export", "Legacy Roster Export", None, "rosters", ctype="job")
    # travel-vendor is declared nowhere: the hotel booking contractor is not in Backstage
    files["rostering/hotels/catalog-info.yaml"] = _component(
        "hotel-booker", "Layover Hotel Booker", "travel-vendor", "rosters",
        consumes=["roster-api"] if step >= 2 else None)

    # -- pairings --------------------------------------------------------------------------------------------
    files["pairings/optimiser/catalog-info.yaml"] = docs([
        _component("pairing-optimiser", "Pairing Optimiser", "pairings", "pairing-system", provides=["pairings-api"],
                   consumes=["rules-api"] if step >= 2 else None, depends=["resource:pairings-cache"]),
        _api("pairings-api", "Pairings API", "pairings", "pairing-system", "grpc"),
    ])

    # -- union rules -----------------------------------------------------------------------------------------
    files["rules/engine/catalog-info.yaml"] = docs([
        _component("rules-service", "Union Rules Service", "rules-engine", "union-rules", provides=["rules-api"],
                   depends=["resource:fatigue-db"]),
        _api("rules-api", "Union Rules API", "rules-engine", "union-rules"),
    ])
    files["rules/fatigue/catalog-info.yaml"] = _component(
        "fatigue-calc", "Fatigue Calculator", "rules-engine" if step < 4 else None, "union-rules", ctype="library",
        depends=["resource:fatigue-db"])

    # -- crew apps -------------------------------------------------------------------------------------------
    files["apps/mobile/catalog-info.yaml"] = docs([
        _component("crew-app", "Crew App", "crew-apps", "crew-mobile", ctype="website",
                   consumes=["roster-api", "training-api"] + (["pay-api"] if step >= 2 else [])
                   + (["disruption-api"] if step >= 5 else []),
                   depends=["resource:crew-docs"]),
        _api("training-api", "Crew Training API", None, "crew-mobile"),  # never had an owner; nobody provides it
    ])
    files["apps/notify/catalog-info.yaml"] = docs([
        _component("crew-notify", "Crew Notifications", "crew-apps" if step < 3 else "disruption", "crew-mobile",
                   provides=["notify-api"], consumes=["roster-api"]),
        _api("notify-api", "Crew Notifications API", "crew-apps", "crew-mobile"),  # nobody calls it
    ])

    # -- crew pay --------------------------------------------------------------------------------------------
    files["payroll/calc/catalog-info.yaml"] = docs([
        _component("pay-calc", "Crew Pay Calculator", "payroll-eng", "crew-pay", provides=["pay-api"],
                   consumes=["roster-api"], depends=["resource:pay-ledger"]),
        _api("pay-api", "Crew Pay API", "payroll-eng", "crew-pay"),
        _api("payslip-api", "Payslip API", "payroll-eng", "crew-pay"),  # planned: nobody provides or calls it
    ])
    files["payroll/allowances/catalog-info.yaml"] = _component(
        "allowances-lib", "Allowances Library", "payroll-eng", "crew-pay", ctype="library")

    # -- disruption management -------------------------------------------------------------------------------
    if step >= 3:
        files["disruption/recovery/catalog-info.yaml"] = docs([
            _component("disruption-service", "Disruption Recovery Service", "disruption", "disruption-recovery",
                       provides=["disruption-api"],
                       consumes=["roster-api"] + (["pairings-api"] if step >= 4 else [])),
            _api("disruption-api", "Disruption API", "disruption", "disruption-recovery"),
        ])

    # -- CODEOWNERS (GitHub: the last matching rule wins) ---------------------------------------------------
    rules_owners = "@skyline/rules-engine @dan-murphy" if step < 4 else "@skyline/rules-engine @aisha-bello"
    codeowners = [
        "# Skyline Air crew scheduling code owners. The last matching rule wins.",
        "",
        "# Fallback: the crew platform leads",
        "*                       @skyline/crew-platform-leads",
        "",
        "/rostering/             @skyline/rostering",
        "# the legacy export: nobody reviews it",
        "/rostering/export/",
        "/pairings/              @skyline/pairings @chen-wei",
        f"/rules/                 {rules_owners}",
        "/apps/                  @skyline/crew-apps",
        "/payroll/               @skyline/payroll-eng @ravi-shah",
    ]
    if step >= 2:
        codeowners += ["", "# Every SQL file, wherever it is: the DBAs and Ellen",
                       "*.sql                   @skyline/dba @ellen-park"]
    if step >= 3:
        codeowners += ["/disruption/**          @skyline/disruption", "/apps/notify/           @skyline/disruption"]
    if step >= 4:
        codeowners += ["", "# Allowances follow the union agreement text: nobody here reviews them", "/payroll/allowances/"]
    codeowners += ["", "/docs/                  @grace-okafor @tom-reilly", "",
                   "# Vendored solver binaries: no owners", "/third_party/"]
    files[".github/CODEOWNERS"] = "\n".join(codeowners) + "\n"

    # -- code ----------------------------------------------------------------------------------------------
    files["README.md"] = "# Skyline Air crew scheduling\n\nRosters, pairings, union rules, crew app and pay.\n" + (
        "\nOut of hours: #crew-sched-oncall.\n" if step >= 6 else "")
    files["rostering/builder/build.py"] = "print('roster')\n"
    files["rostering/builder/roster.sql"] = "SELECT 1;\n"
    files["rostering/export/export.py"] = "print('export')\n"
    files["rostering/hotels/book.py"] = "print('hotels')\n"
    files["pairings/optimiser/solve.py"] = "print('pairings')\n"
    files["rules/engine/rules.kt"] = "fun main() {}\n"
    files["rules/fatigue/fatigue.py"] = "print('fatigue')\n"
    files["apps/mobile/App.tsx"] = "export {};\n"
    files["apps/notify/push.ts"] = "export {};\n"
    files["payroll/calc/pay.go"] = "package calc\n"
    files["payroll/calc/ledger.sql"] = "CREATE TABLE pay (id int);\n"
    files["payroll/allowances/allowances.py"] = "print('allowances')\n"
    files["reports/hours.sql"] = "SELECT 2;\n"
    files["third_party/solver/solver.bin.txt"] = "vendored\n"
    files["docs/onboarding.md"] = "# Welcome to crew scheduling\n"
    if step >= 3:
        files["disruption/recovery/recover.py"] = "print('recover')\n"
    return files


COMMITS: list[Commit] = [
    (1, "2025-10-06T08:20:00+00:00", "Grace Okafor", "Initial Backstage catalog and CODEOWNERS"),
    (2, "2025-12-01T14:10:00+00:00", "Chen Wei", "Sofia joins pairings; app shows pay; optimiser reads rules; SQL reviewers"),
    (3, "2026-02-09T09:45:00+00:00", "Priya Nair", "Disruption Management team, recovery service and system; notifications move"),
    (4, "2026-04-13T11:05:00+00:00", "Aisha Bello", "Dan leaves; fatigue calculator unowned; rules reviewers; allowances unreviewed"),
    (5, "2026-06-15T16:30:00+00:00", "Joe Finch", "Joe to Disruption Management; Ben joins; app shows disruptions"),
    (6, "2026-08-03T07:40:00+00:00", "Tom Reilly", "Kemi joins Payroll Engineering; README out-of-hours channel"),
]


def build(root: Path) -> None:
    """Write every step of the history into a new git repository at ``root``."""
    build_history(root, COMMITS, _files, DOMAIN)


if __name__ == "__main__":
    sys.exit(main(sys.argv, build, __doc__.strip().splitlines()[-1]))
