"""Generate the service-ownership example: a records folder and two monthly CMDB exports.

    python examples/service-registry/generate.py          # rewrite records/ and exports/
    python examples/service-registry/generate.py --check  # exit 1 if a written file would change

The records are fictional but shaped like a real registry: one page per service (what it does,
its dependencies, how to operate it), one page per team (mission, who carries the pager this
month, written as prose), runbooks that mention services in passing, and the header
``records/chainret.yaml`` (entities, predicates, patterns, the on-call sentences quoted as prose
support, cases). Ownership is not in the pages: it comes from the CMDB export
(``exports/ownership-2026-01.csv``, then ``ownership-2026-02.csv`` with some services reassigned
and two decommissioned), imported with ``chainret catalog import``. A few legacy services are
missing from the CMDB; their pages say who owns them, quoted as prose support.

Deterministic (seeded); edit this script, not the generated files.
"""

from __future__ import annotations

import csv
import io
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORLD = "services"

TEAMS = {
    "payments": ("Payments", ["payment", "refund", "ledger", "payout", "card"]),
    "checkout": ("Checkout", ["checkout", "cart", "basket", "order"]),
    "identity": ("Identity", ["login", "session", "token", "account"]),
    "search": ("Search", ["search", "ranking", "query", "suggest"]),
    "catalog": ("Catalog", ["catalog", "product", "media", "taxonomy"]),
    "fulfilment": ("Fulfilment", ["picking", "packing", "warehouse", "slotting"]),
    "logistics": ("Logistics", ["shipment", "carrier", "tracking", "routing"]),
    "billing": ("Billing", ["invoice", "tax", "subscription", "dunning"]),
    "data-platform": ("Data Platform", ["events", "lake", "pipeline", "schema"]),
    "observability": ("Observability", ["metrics", "logs", "tracing", "alerting"]),
    "networking": ("Networking", ["edge", "dns", "mesh", "ingress"]),
    "storage": ("Storage", ["blob", "backup", "volume", "snapshot"]),
    "mobile": ("Mobile", ["push", "app-config", "device", "release"]),
    "web": ("Web", ["storefront", "render", "assets", "seo"]),
    "growth": ("Growth", ["referral", "campaign", "experiment", "coupon"]),
    "fraud": ("Fraud", ["risk", "velocity", "chargeback", "review"]),
    "support-tools": ("Support Tools", ["ticket", "chat", "macro", "escalation"]),
    "pricing": ("Pricing", ["price", "promotion", "currency", "quote"]),
    "inventory": ("Inventory", ["stock", "reservation", "replenish", "forecast"]),
    "notifications": ("Notifications", ["email", "sms", "template", "preference"]),
    "ml-platform": ("ML Platform", ["feature", "model", "training", "serving"]),
    "security": ("Security", ["secrets", "audit", "scanner", "policy"]),
    "devex": ("Developer Experience", ["build", "deploy", "sandbox", "docs"]),
    "partners": ("Partners", ["partner", "affiliate", "feed", "onboarding"]),
}
SUFFIXES = ["api", "worker", "gateway", "scheduler", "store", "indexer", "exporter", "sync", "router", "cache"]
FIRST = ["Ana", "Ben", "Chloe", "Dana", "Emil", "Farah", "Goran", "Hana", "Ivo", "Jonas", "Kira", "Luca", "Maya",
         "Nils", "Olga", "Priya", "Quinn", "Rosa", "Sami", "Tomas", "Una", "Viktor", "Wen", "Yara", "Zane", "Aiko",
         "Bruno", "Carmen", "Dmitri", "Elif", "Felix", "Greta", "Hugo", "Ines", "Jamal", "Keiko", "Lena", "Marco"]
LAST = ["Silva", "Okafor", "Martin", "Reyes", "Novak", "Haddad", "Petrov", "Sato", "Costa", "Berg", "Kowalski",
        "Rossi", "Nair", "Jensen", "Moreau", "Fischer", "Tanaka", "Duarte", "Larsen", "Mendes", "Varga", "Yilmaz"]
VERBS = ["serves", "stores", "computes", "publishes", "validates", "schedules", "aggregates", "routes", "caches", "exports"]
TIERS = ["tier 1", "tier 2", "tier 3"]
LEGACY = 8  # services missing from the CMDB export: their pages say who owns them (prose support)


def _people(rng: random.Random) -> list[tuple[str, str]]:
    names = sorted({f"{first} {last}" for first in FIRST for last in LAST})
    chosen = rng.sample(names, 60)
    return [(f"person:{WORLD}:{n.lower().replace(' ', '-')}", n) for n in sorted(chosen)]


def _services(rng: random.Random) -> list[dict[str, str]]:
    out = []
    code = 1000
    for team, (_, nouns) in TEAMS.items():
        combos = [f"{n}-{s}" for n in nouns for s in SUFFIXES]
        for name in sorted(rng.sample(combos, rng.randint(7, 11))):
            code += rng.randint(1, 9)
            out.append({"name": name, "id": f"service:{WORLD}:{name}", "code": f"SVC-{code}", "team": team,
                        "tier": rng.choice(TIERS), "verb": rng.choice(VERBS)})
    return out


def _service_page(svc: dict[str, str], deps: list[str], owner_line: str | None) -> str:
    what = svc["name"].replace("-", " ")
    paras = [
        f"# {svc['name']}",
        f"{svc['name']} ({svc['code']}) {svc['verb']} {what} data for the rest of the platform. It is a {svc['tier']} service.",
        "Dependencies: " + ", ".join(deps) + "." if deps else "Dependencies: none outside its own datastore.",
        (f"Operating notes: restart {svc['name']} with a rolling deploy; never scale it below two replicas. "
         "Dashboards and alerts are linked from the observability catalogue."),
    ]
    if owner_line:
        paras.insert(2, owner_line)
    return "\n\n".join(paras) + "\n"


def _team_page(team: str, label: str, oncall: str, n_services: int) -> str:
    return "\n\n".join([
        f"# {label} team",
        f"The {label} team builds and runs {n_services} services. Its backlog and roadmap live in the planning tool.",
        f"{oncall} carries the pager for the {label} team this month.",
        "Escalation: page the on-call engineer first; after fifteen minutes without an answer, page the engineering manager.",
    ]) + "\n"


def _runbook(rng: random.Random, i: int, services: list[dict[str, str]]) -> str:
    picks = rng.sample(services, 3)
    names = ", ".join(s["name"] for s in picks)
    return "\n\n".join([
        f"# Runbook {i:03d}: {rng.choice(['latency spike', 'error budget burn', 'queue backlog', 'certificate expiry', 'disk pressure'])}",
        f"Seen on {names}. Check the dependency graph first: the symptom often starts one hop upstream.",
        "Mitigate by shedding non-critical traffic, then page the owning team of the first failing service.",
        f"Last reviewed during incident INC-{rng.randint(2000, 9999)}.",
    ]) + "\n"


def _csv(rows: list[dict[str, str]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=["subject", "predicate", "object", "text"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def _yaml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def outputs() -> dict[Path, str]:
    rng = random.Random(20260101)
    people = _people(rng)
    services = _services(rng)
    teams = list(TEAMS)
    oncall = {team: people[i * 2 + rng.randint(0, 1)] for i, team in enumerate(teams)}
    legacy = {s["id"] for s in rng.sample(services, LEGACY)}
    out: dict[Path, str] = {}
    rec = HERE / "records"
    relations: list[str] = []
    for svc in services:
        deps = [d["name"] for d in rng.sample(services, rng.randint(0, 3)) if d is not svc]
        owner_line = None
        if svc["id"] in legacy:
            label = TEAMS[svc["team"]][0]
            owner_line = f"Ownership: {svc['name']} predates the CMDB; the {label} team has owned it since 2019."
            relations.append(
                f"  - subject: {svc['id']}\n    predicate: owned_by\n    object: team:{WORLD}:{svc['team']}\n"
                f"    document: services/{svc['name']}.md\n    quote: {_yaml_str(owner_line)}\n")
        out[rec / "services" / f"{svc['name']}.md"] = _service_page(svc, deps, owner_line)
    for team in teams:
        label = TEAMS[team][0]
        pid, pname = oncall[team]
        out[rec / "teams" / f"{team}.md"] = _team_page(team, label, pname, sum(s["team"] == team for s in services))
        relations.append(
            f"  - subject: team:{WORLD}:{team}\n    predicate: on_call\n    object: {pid}\n"
            f"    document: teams/{team}.md\n    quote: {_yaml_str(f'{pname} carries the pager for the {label} team this month.')}\n")
    for i in range(1, 41):
        out[rec / "runbooks" / f"runbook-{i:03d}.md"] = _runbook(rng, i, services)

    # The CMDB exports: January, then February with reassignments and two decommissioned services.
    def row(svc: dict[str, str], team: str) -> dict[str, str]:
        return {"subject": svc["name"], "predicate": "owned_by", "object": TEAMS[team][0] + " team",
                "text": f"{svc['name']} ({svc['code']}, {svc['tier']}) is owned by the {TEAMS[team][0]} team; "
                        f"cost centre CC-{svc['code'][4:]}; registered in the CMDB."}

    in_cmdb = [s for s in services if s["id"] not in legacy]
    jan = [row(s, s["team"]) for s in in_cmdb]
    moved = rng.sample(in_cmdb, 15)
    gone = {s["id"] for s in rng.sample([s for s in in_cmdb if s not in moved], 2)}
    feb_team = {s["id"]: rng.choice([t for t in teams if t != s["team"]]) for s in moved}
    feb = [row(s, feb_team.get(s["id"], s["team"])) for s in in_cmdb if s["id"] not in gone]
    rng.shuffle(feb)  # exports come in any order; the rendered document does not depend on it
    out[HERE / "exports" / "ownership-2026-01.csv"] = _csv(jan)
    out[HERE / "exports" / "ownership-2026-02.csv"] = _csv(feb)

    # The header.
    ents = [f"  - {{id: team:{WORLD}:{t}, name: {TEAMS[t][0]} team, aliases: [{TEAMS[t][0]}]}}\n" for t in teams]
    ents += [f"  - {{id: {s['id']}, name: {s['name']}, aliases: [{s['code']}]}}\n" for s in services]
    ents += [f"  - {{id: {pid}, name: {pname}}}\n" for pid, pname in people]
    first = in_cmdb[0]
    mover = moved[0]
    leg = next(s for s in services if s["id"] in legacy)
    cases = f"""\
  - id: cmdb-then-rota
    request: Who is on call for {first['name']}?
    view: 2026-01
    group: positive
    expect: {{outcome: accepted_path, path: [{first['id']}, team:{WORLD}:{first['team']}, {oncall[first['team']][0]}]}}
  - id: moved-in-february-as-of-january
    request: Who is on call for {mover['code']}?
    view: 2026-01
    group: positive
    expect: {{outcome: accepted_path, path: [{mover['id']}, team:{WORLD}:{mover['team']}, {oncall[mover['team']][0]}]}}
  - id: legacy-prose-owner
    request: Which team owns {leg['name']}?
    view: 2026-01
    group: positive
    expect: {{outcome: accepted_path, path: [{leg['id']}, team:{WORLD}:{leg['team']}]}}
  - id: unknown-service
    request: Who is on call for teleport-api?
    view: 2026-01
    group: challenge
    challenge: unknown_entity
    expect: {{outcome: refused, reason: unknown_entity}}
"""
    header = (
        "# Generated by examples/service-registry/generate.py: the hand-written header of the records folder.\n"
        "# Build: see examples/service-registry/README.md. Ownership comes from the CMDB export (catalog import).\n"
        f"format: chainret-source/1\nworld: {WORLD}\n"
        "description: Service ownership registry - services, their owning teams (CMDB export) and who is on call.\n"
        "entities:\n" + "".join(ents)
        + "predicates:\n"
        "  - {name: owned_by, domain: service, range: team, cardinality: functional, verbs: [maintains, looks after]}\n"
        "  - {name: on_call, domain: team, range: person, cardinality: functional, nouns: [pager, on-call engineer]}\n"
        "patterns:\n"
        "  - name: on_call_for_service\n    start_type: service\n    hops: [owned_by, on_call]\n    phrasings:\n"
        "      - who is on call for {service}\n      - who is on call for service {service}\n"
        "  - name: owner_of_service\n    start_type: service\n    hops: [owned_by]\n    phrasings:\n"
        "      - which team owns {service}\n"
        "documents:\n  - {path: runbooks/runbook-001.md, visibility: restricted, principals: [sre]}\n"
        "relations:\n" + "".join(relations) + "cases:\n" + cases
    )
    out[rec / "chainret.yaml"] = header
    return out


def main(argv: list[str]) -> int:
    from chainret.authoring.output import sync_command

    return sync_command(outputs(), HERE, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
