"""Build the fifth newcomer fixture: a video game studio's Backstage + CODEOWNERS repository.

"Copperleaf Games" keeps its online services, build pipeline, game client and player-insights
services in one repository. Two departments: Game Engineering (Online Services, with a Netcode
Working Group sub-team nobody is on that still owns the relay fleet; Build and Tools; Client Tech;
Quality Assurance, which owns nothing and lists its members on the group; and Live Ops, created half
way through) and Publishing (Player Support, Analytics, and Localization, a team nobody is on that
owns nothing). One person's display name changes, one person leaves, one is on three teams, one moves
teams, one intern starts on no team and later joins QA, one starts on no team and stays there, and a
vendor's profile (``org/vendors.yaml``) may only be read by Studio Ops (restricted by
``header/chainret.yaml``). One resource names an owner group nobody declares, one component and one
resource never had an owner, another component loses its owner, one component moves teams; one API
nobody provides or consumes, one that is provided but never consumed, one whose consumers grow over
time; a system with nothing in it. CODEOWNERS has a ``*.shader`` rule at any depth, rules with two and
three owners, a rule whose second owner changes when its reviewer leaves, last-match-wins overlaps
(``/online/`` then ``/online/matchmaker/``, ``/client/`` then ``*.shader`` then ``/client/legacy/``),
and two rules with no owners, one of them added later.

The questions in ``questions.yaml`` were written against this script alone, without reading
chainret's phrasings, lexicon or any other question set. Each commit writes the whole tree for its
step (so this script is the single statement of what the repository holds at each date) with fixed
author and committer identities and dates, so the commit hashes and the view names chainret derives
from them (``<date>-<short hash>``) are the same on every run.

Timeline (UTC):

- 2025-08-04  step 1: initial catalog and CODEOWNERS (the vendor Marco Rossi on Online Services is
              there from the start; the mod uploader and the symbol store have no owner; QA is Bo
              Lindqvist alone; Ella Park, an intern, is on no team)
- 2025-10-13  step 2: Nia Thompson joins QA; the lobby gateway starts calling the Player Profile API;
              a three-owner ``*.shader`` rule
- 2025-12-01  step 3: the Live Ops team is created (Kenji Watanabe, his third team) with the live
              event scheduler, the Live Events API and an empty Esports Tools system; the asset cooker
              moves from Build and Tools to Client Tech
- 2026-02-09  step 4: Lars Berg leaves (his profile is removed); the crash reporter loses its owner;
              ``/client/`` is now reviewed by Client Tech and Priya Raman (was Lars Berg); a
              ``/client/legacy/`` rule with no owners; Dana Okafor's display name becomes Dana
              Okafor-Reid; the ticket bridge starts calling the Crash Report API
- 2026-04-20  step 5: Sasha Ivanova moves from Analytics to Live Ops; Yusuf Demir joins (no team);
              the launcher starts calling the Live Events API
- 2026-06-08  step 6: Ella Park joins QA; a README tweak

Usage: ``python examples/newcomer5/make_repo.py DIR`` (DIR must not exist or be empty).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/: the shared writer of newcomer worlds
from newcomer_repo import build_history, main  # noqa: E402

ORG = "copperleaf"
DOMAIN = "copperleaf.example"


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
    return _doc("Group", name, [f"description: {title}, Copperleaf Games"], spec)


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
    meta = [f"title: {title}", "annotations:", f"  github.com/project-slug: {ORG}/game-services"]
    return _doc("Component", name, meta, spec)


def _api(name: str, title: str, owner: str, system: str, api_type: str = "openapi") -> str:
    spec = [f"type: {api_type}", "lifecycle: production", f"owner: {owner}", f"system: {system}", "definition: |",
            "  openapi: 3.0.0", f"  info: {{title: {title}, version: 1.4.0}}", "  paths: {}"]
    return _doc("API", name, [f"title: {title}"], spec)


def _resource(name: str, title: str, rtype: str, owner: str | None, system: str, *,
              dependency_of: list[str] | None = None) -> str:
    spec = [f"type: {rtype}", *([f"owner: {owner}"] if owner else []), f"system: {system}",
            *_list("dependencyOf", dependency_of)]
    return _doc("Resource", name, [f"title: {title}"], spec)


def _files(step: int) -> dict[str, str]:
    """The whole tree at ``step`` (1..6)."""
    docs = "\n---\n".join
    files: dict[str, str] = {}

    files["catalog-info.yaml"] = _doc("Location", "copperleaf-root",
                                      ["description: The studio's org chart and systems"],
                                      ["targets:", "  - ./org/*.yaml", "  - ./systems.yaml"])

    # -- organisation: two departments -------------------------------------------------------------------
    eng_children = ["online-services", "build-tools", "client-tech", "qa"] + (["live-ops"] if step >= 3 else [])
    qa_members = ["bo.lindqvist"] + (["nia.thompson"] if step >= 2 else []) + (["ella.park"] if step >= 6 else [])
    groups = [
        _group("engineering", "Game Engineering", "department", None, eng_children),
        _group("online-services", "Online Services", "team", "engineering", ["netcode-wg"]),
        _group("netcode-wg", "Netcode Working Group", "sub-team", "online-services", []),  # nobody is on it
        _group("build-tools", "Build and Tools", "team", "engineering", []),
        _group("client-tech", "Client Tech", "team", "engineering", []),
        # QA lists its people on the group (the users' memberOf stays empty); it owns nothing
        _group("qa", "Quality Assurance", "team", "engineering", [], members=qa_members),
        _group("publishing", "Publishing", "department", None, ["player-support", "analytics", "localization"]),
        _group("player-support", "Player Support", "team", "publishing", []),
        _group("analytics", "Analytics", "team", "publishing", []),
        _group("localization", "Localization", "team", "publishing", []),  # nobody is on it, owns nothing
    ]
    if step >= 3:
        groups.append(_group("live-ops", "Live Ops", "team", "engineering", []))
    files["org/groups.yaml"] = docs(groups)

    people = [
        _user("rafa.molina", "Rafa Molina", ["engineering"]),
        _user("gwen.hall", "Gwen Hall", ["publishing"]),
        _user("kenji.watanabe", "Kenji Watanabe", ["online-services", "build-tools"] + (["live-ops"] if step >= 3 else [])),
        _user("olu.adeyemi", "Olu Adeyemi", ["online-services"]),
        _user("mei.chen", "Mei Chen", ["build-tools"]),
        _user("priya.raman", "Priya Raman", ["client-tech"]),
        _user("dana.okafor", "Dana Okafor" if step < 4 else "Dana Okafor-Reid", ["client-tech"]),
        _user("sasha.ivanova", "Sasha Ivanova", ["analytics"] if step < 5 else ["live-ops"]),
        _user("amara.nwosu", "Amara Nwosu", ["analytics"]),
        _user("tom.fisher", "Tom Fisher", ["player-support"]),
        _user("bo.lindqvist", "Bo Lindqvist", []),  # on QA through the group's members
        _user("ella.park", "Ella Park", []),  # an intern: on no team until QA lists her (step 6)
    ]
    if step >= 2:
        people.append(_user("nia.thompson", "Nia Thompson", []))  # on QA through the group's members
    if step < 4:
        people.append(_user("lars.berg", "Lars Berg", ["client-tech"]))
    if step >= 5:
        people.append(_user("yusuf.demir", "Yusuf Demir", []))  # a new starter, not on a team yet
    files["org/people.yaml"] = docs(people)
    # readable by Studio Ops only (header/chainret.yaml)
    files["org/vendors.yaml"] = _user("marco.rossi", "Marco Rossi", ["online-services"])

    # -- domain, systems and resources ---------------------------------------------------------------------
    systems = [
        _doc("Domain", "live-game", ["title: Live Game"], ["owner: engineering"]),
        _doc("System", "online", ["title: Online Services Platform"], ["owner: online-services", "domain: live-game"]),
        _doc("System", "pipeline", ["title: Build Pipeline"], ["owner: build-tools", "domain: live-game"]),
        _doc("System", "client", ["title: Game Client"], ["owner: client-tech", "domain: live-game"]),
        _doc("System", "insights", ["title: Player Insights"], ["owner: analytics", "domain: live-game"]),
        _doc("System", "player-care", ["title: Player Care"], ["owner: player-support", "domain: live-game"]),
    ]
    if step >= 3:  # nothing is in it yet
        systems.append(_doc("System", "esports", ["title: Esports Tools"], ["owner: live-ops", "domain: live-game"]))
    systems += [
        _resource("match-db", "Match History Database", "database", "online-services", "online"),
        _resource("profile-db", "Player Profile Database", "database", "online-services", "online"),
        _resource("relay-fleet", "Relay Server Fleet", "compute-pool", "netcode-wg", "online",
                  dependency_of=["component:lobby-gateway"]),
        _resource("artifact-store", "Build Artifact Store", "s3-bucket", "build-tools", "pipeline"),
        # platform-partners is declared nowhere: the console partner team is not in Backstage
        _resource("console-devkits", "Console Devkit Pool", "hardware", "platform-partners", "pipeline",
                  dependency_of=["component:build-farm"]),
        _resource("symbol-store", "Symbol Store", "storage", None, "client",  # never had an owner
                  dependency_of=["component:crash-reporter"]),
        _resource("event-lake", "Event Lake", "data-lake", "analytics", "insights"),
        _resource("forums-db", "Legacy Forums Database", "database", "player-support", "player-care"),  # nothing uses it
    ]
    files["systems.yaml"] = docs(systems)

    # -- online ----------------------------------------------------------------------------------------------
    files["online/matchmaker/catalog-info.yaml"] = docs([
        _component("matchmaker", "Matchmaker", "online-services", "online",
                   provides=["matchmaking-api", "leaderboard-api"], consumes=["player-profile-api"],
                   depends=["resource:match-db"]),
        _api("matchmaking-api", "Matchmaking API", "online-services", "online", "grpc"),
        _api("leaderboard-api", "Leaderboard API", "online-services", "online"),  # nobody calls it
    ])
    files["online/profile/catalog-info.yaml"] = docs([
        _component("player-profile", "Player Profile Service", "online-services", "online",
                   provides=["player-profile-api"], depends=["resource:profile-db"]),
        _api("player-profile-api", "Player Profile API", "online-services", "online"),
        _api("store-api", "Store API", "online-services", "online"),  # planned: nobody provides or calls it
    ])
    files["online/lobby/catalog-info.yaml"] = _component(
        "lobby-gateway", "Lobby Gateway", "online-services", "online",
        consumes=["matchmaking-api"] + (["player-profile-api"] if step >= 2 else []))
    files["online/mods/catalog-info.yaml"] = _component(  # never had an owner
        "mod-uploader", "Mod Uploader", None, "online")

    # -- build pipeline --------------------------------------------------------------------------------------
    files["pipeline/farm/catalog-info.yaml"] = docs([
        _component("build-farm", "Build Farm", "build-tools", "pipeline", provides=["build-api"],
                   depends=["resource:artifact-store"]),
        _api("build-api", "Build API", "build-tools", "pipeline"),
    ])
    files["pipeline/cooker/catalog-info.yaml"] = _component(
        "asset-cooker", "Asset Cooker", "build-tools" if step < 3 else "client-tech", "pipeline", ctype="tool",
        consumes=["build-api"])

    # -- game client -----------------------------------------------------------------------------------------
    files["client/launcher/catalog-info.yaml"] = _component(
        "launcher", "Game Launcher", "client-tech", "client", ctype="desktop-app",
        consumes=["player-profile-api"] + (["events-api"] if step >= 5 else []))
    files["client/crash/catalog-info.yaml"] = docs([
        _component("crash-reporter", "Crash Reporter", "client-tech" if step < 4 else None, "client",
                   provides=["crash-api"]),
        _api("crash-api", "Crash Report API", "client-tech", "client"),
    ])

    # -- player insights and care ----------------------------------------------------------------------------
    files["insights/ingest/catalog-info.yaml"] = docs([
        _component("telemetry-ingest", "Telemetry Ingest", "analytics", "insights", provides=["telemetry-api"],
                   depends=["resource:event-lake"]),
        _api("telemetry-api", "Telemetry API", "analytics", "insights"),
    ])
    files["insights/dashboard/catalog-info.yaml"] = _component(
        "kpi-dashboard", "KPI Dashboard", "analytics", "insights", ctype="website", consumes=["telemetry-api"],
        depends=["resource:event-lake"])
    files["care/bridge/catalog-info.yaml"] = _component(
        "ticket-bridge", "Ticket Bridge", "player-support", "player-care",
        consumes=["player-profile-api"] + (["crash-api"] if step >= 4 else []))

    # -- live ops ---------------------------------------------------------------------------------------------
    if step >= 3:
        files["liveops/scheduler/catalog-info.yaml"] = docs([
            _component("event-scheduler", "Live Event Scheduler", "live-ops", "online", provides=["events-api"],
                       consumes=["telemetry-api"], depends=["component:lobby-gateway"]),
            _api("events-api", "Live Events API", "live-ops", "online"),
        ])

    # -- CODEOWNERS (GitHub: the last matching rule wins) ---------------------------------------------------
    client_owners = "@copperleaf/client-tech @lars-berg" if step < 4 else "@copperleaf/client-tech @priya-raman"
    codeowners = [
        "# Copperleaf Games code owners. The last matching rule wins.",
        "",
        "# Fallback: the engineering leads",
        "*                       @copperleaf/eng-leads",
        "",
        "/online/                @copperleaf/online-services",
        "/online/matchmaker/     @copperleaf/online-services @olu-adeyemi",
        "/pipeline/              @copperleaf/build-tools @mei-chen",
        f"/client/                {client_owners}",
        "/insights/              @copperleaf/analytics",
        "/care/                  @copperleaf/player-support @tom-fisher",
    ]
    if step >= 2:
        codeowners += ["", "# Shaders: the rendering group, Priya and Kenji look at every one",
                       "*.shader                @copperleaf/rendering @priya-raman @kenji-watanabe"]
    if step >= 3:
        codeowners += ["/liveops/               @copperleaf/live-ops"]
    if step >= 4:
        codeowners += ["", "# The old client UI is frozen: nobody reviews it", "/client/legacy/"]
    codeowners += ["", "/docs/                  @rafa-molina @gwen-hall", "",
                   "# Third-party SDKs come from their vendors: no owners", "/third_party/"]
    files[".github/CODEOWNERS"] = "\n".join(codeowners) + "\n"

    # -- code ----------------------------------------------------------------------------------------------
    files["README.md"] = "# Copperleaf Games services\n\nOnline, build, client and insights services.\n" + (
        "\nOn call: #studio-oncall.\n" if step >= 6 else "")
    files["online/matchmaker/queue.go"] = "package matchmaker\n"
    files["online/profile/profile.go"] = "package profile\n"
    files["online/lobby/gateway.go"] = "package lobby\n"
    files["online/mods/upload.go"] = "package mods\n"
    files["pipeline/farm/agent.py"] = "print('farm')\n"
    files["pipeline/cooker/cook.py"] = "print('cook')\n"
    files["pipeline/cooker/shaders/bloom.shader"] = "// bloom\n"
    files["client/launcher/main.cpp"] = "int main() { return 0; }\n"
    files["client/crash/reporter.cpp"] = "// crash reporter\n"
    files["client/render/water.shader"] = "// water\n"
    files["client/ui/hud.cpp"] = "// hud\n"
    files["client/legacy/old_menu.cpp"] = "// old menu\n"
    files["insights/ingest/ingest.py"] = "print('ingest')\n"
    files["insights/dashboard/kpis.sql"] = "SELECT 1;\n"
    files["care/bridge/bridge.py"] = "print('tickets')\n"
    files["third_party/fmod/fmod.h"] = "/* vendored */\n"
    files["docs/onboarding.md"] = "# Welcome to Copperleaf\n"
    if step >= 3:
        files["liveops/scheduler/scheduler.py"] = "print('events')\n"
    return files


COMMITS = [
    (1, "2025-08-04T09:30:00+00:00", "Rafa Molina", "Initial Backstage catalog and CODEOWNERS"),
    (2, "2025-10-13T14:10:00+00:00", "Bo Lindqvist", "Nia joins QA; lobby reads player profiles; shader reviewers"),
    (3, "2025-12-01T10:00:00+00:00", "Kenji Watanabe", "Live Ops team, event scheduler, esports system; cooker to Client Tech"),
    (4, "2026-02-09T08:45:00+00:00", "Priya Raman", "Lars leaves; crash reporter unowned; client reviewers; legacy UI frozen"),
    (5, "2026-04-20T16:20:00+00:00", "Sasha Ivanova", "Sasha to Live Ops; Yusuf joins; launcher reads live events"),
    (6, "2026-06-08T11:05:00+00:00", "Bo Lindqvist", "Ella joins QA; README on-call channel"),
]


def build(root: Path) -> None:
    """Write every step of the history into a new git repository at ``root``."""
    build_history(root, COMMITS, _files, DOMAIN)


if __name__ == "__main__":
    sys.exit(main(sys.argv, build, __doc__.strip().splitlines()[-1]))
