"""Build the eleventh newcomer fixture: a retail bank's digital-channels Backstage + CODEOWNERS repository.

"Kestrel Bank", a retail bank, keeps its mobile app, online banking website, payments, cards, identity,
data and customer-support software in one repository. Two departments: Digital Channels (Mobile, Web
Banking, Accounts, Payments with an Open Banking sub-team nobody is on that owns nothing, the Cards Squad,
which nobody is on but which owns the cards service, its API and its database, Customer Insights, renamed
Personalisation in May, Support Tools, and Fraud Prevention, created in the March reorg with nobody on it
until September) and Core Technology (Identity, Cloud Platform, Data Engineering, Application Security,
which has people but owns nothing, and Legacy Integration, dissolved in the March reorg). Components of
five kinds (``spec.type``: service, website, library, mobile-app, worker) and resources of five kinds
(database, s3-bucket, queue, cache, secret). One person is on two teams, two leave, one's display name
changes, one moves when Legacy Integration is dissolved, one moves to Fraud Prevention, two join, one is
on no team throughout, and a contractor's profile (``org/contractors.yaml``) may only be read by the
Security group (restricted by ``header/chainret.yaml``). The Payments team and the Payments system share
a display name. A website is owned by a person rather than a team; after the reorg the export tool, the
exports bucket, the Core Banking API and the Legacy system still name ``legacy-integration``, a group
nobody declares any more; the fax gateway, the notification worker, the webhooks API, the audit-log
bucket and the API gateway key never had an owner; the help chatbot loses its owner in May; the design
system and the fraud scoring service change teams; the mainframe bridge moves to Cloud Platform in the
reorg; the Open Banking API is provided but nobody calls it; the notifications API's callers grow from
none. Five components pull in the JSON toolkit library (``dependsOn``). CODEOWNERS has a ``*`` fallback,
rules with two teams, a team and a person, a team and an e-mail address, last-match-wins overlaps
(``/web/`` then ``/web/statements/``, ``/payments/`` then ``/payments/fraud/``, ``/libs/`` then
``/libs/json/``, ``/payments/`` then ``*.tf``), a rule whose team changes with the fraud service, a rule
that loses its owners in the reorg (``/legacy/``) and one that never had any (``/fax/``).

``questions.yaml`` was written from this script alone (no phrasing, lexicon or other question set of
chainret's was read). This script is the one statement of the tree at each step: every commit writes
it whole, by a fixed author at a fixed date (``newcomer_repo.build_history``), so that the hashes, and
so the view names, never change between machines.

Timeline (UTC):

- 2025-09-15  step 1: initial catalog and CODEOWNERS (the contractor Victor Hale on Payments is there
              from the start; Greta Lind is on no team; Marcus Reid and Paul Young are on Legacy
              Integration; the fax gateway, the notification worker, the webhooks API, the audit-log
              bucket and the API gateway key have no owner)
- 2025-12-01  step 2: Zoe Clarke joins Payments; the payments service starts calling the Fraud API and
              the mobile app the Payments API; a two-owner ``*.tf`` rule
- 2026-03-09  step 3: the reorg: Legacy Integration is dissolved (its group removed, but the export tool,
              the exports bucket, the Core Banking API and the Legacy system still name it); Paul Young
              leaves; Marcus Reid moves to Cloud Platform; the mainframe bridge moves to Cloud Platform;
              the Fraud Prevention team is created (nobody on it); ``/legacy/`` keeps its line with no owners
- 2026-05-26  step 4: Diego Ramos leaves; Olivia Grant's display name becomes Olivia Grant-Hughes;
              Customer Insights is renamed Personalisation; the design system moves from Web Banking to
              Mobile; the help chatbot loses its owner; the support console starts calling the Statements
              API and the mobile app the Notifications API
- 2026-09-07  step 5: Raj Patel moves from Mobile to Fraud Prevention; the fraud scoring service moves
              from Payments to Fraud Prevention (and ``/payments/fraud/`` with it); the chatbot starts
              calling the Cards API and the online banking website the Notifications API
- 2026-11-16  step 6: Felix Wong joins Data Engineering; a security contact line in the README

Usage: ``python examples/newcomer11/make_repo.py DIR`` (DIR must not exist or be empty).
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/: the shared writer of newcomer worlds
from newcomer_repo import Commit, Descriptors, build_history, doc, main  # noqa: E402

DOMAIN = "kestrelbank.example"
D = Descriptors(org="kestrelbank", repo="digital", domain=DOMAIN, where="Kestrel Bank technology")
_group, _user, _component, _resource = D.group, D.user, D.component, D.resource
_api = partial(D.api, version="2.1.0")  # (name, title, owner, system[, api type])


CODE = {  # the code files, the same at every step (only their paths matter to CODEOWNERS)
    "apps/mobile/App.kt": "class App\n",
    "web/banking/index.tsx": "export {};\n",
    "web/statements/statements.py": "print('statements')\n",
    "accounts/service/accounts.go": "package accounts\n",
    "payments/service/pay.go": "package pay\n",
    "payments/fraud/score.py": "print('score')\n",
    "payments/queue.tf": "resource \"aws_sqs_queue\" \"payments\" {}\n",
    "cards/service/cards.go": "package cards\n",
    "identity/auth/auth.go": "package auth\n",
    "libs/json/json.py": "print('json')\n",
    "libs/crypto/crypto.go": "package crypto\n",
    "libs/ui-kit/button.tsx": "export {};\n",
    "data/pipeline/job.py": "print('pipeline')\n",
    "data/recs/recs.py": "print('recs')\n",
    "support/console/app.tsx": "export {};\n",
    "support/chatbot/bot.py": "print('bot')\n",
    "notify/worker.py": "print('notify')\n",
    "legacy/export/export.pl": "print 'export';\n",
    "legacy/bridge/Bridge.java": "class Bridge {}\n",
    "fax/gateway/fax.c": "int main(void) { return 0; }\n",
    "status/index.html": "<html></html>\n",
    "infra/main.tf": "terraform {}\n",
}


def _files(step: int) -> dict[str, str]:
    """The whole tree at ``step`` (1..6)."""
    docs = "\n---\n".join
    files: dict[str, str] = {}
    reorg = step >= 3  # the March reorg: Legacy Integration dissolved

    files["catalog-info.yaml"] = doc("Location", "kestrel-root",
                                      ["description: Kestrel Bank's org chart and systems"],
                                      ["targets:", "  - ./org/*.yaml", "  - ./systems.yaml"])

    # -- organisation: two departments -------------------------------------------------------------------
    digital_children = (["mobile", "web-banking", "accounts", "payments", "cards", "insights", "support-tools"]
                        + (["fraud"] if reorg else []))
    core_children = ["identity", "cloud", "data-eng", "appsec"] + ([] if reorg else ["legacy-integration"])
    groups = [
        _group("digital", "Digital Channels", "department", None, digital_children),
        _group("mobile", "Mobile", "team", "digital", []),
        _group("web-banking", "Web Banking", "team", "digital", []),
        _group("accounts", "Accounts", "team", "digital", []),
        _group("payments", "Payments", "team", "digital", ["open-banking"]),  # the Payments system has the same name
        _group("open-banking", "Open Banking", "sub-team", "payments", []),  # nobody is on it, owns nothing
        _group("cards", "Cards Squad", "squad", "digital", []),  # nobody is on it, owns the cards service
        _group("insights", "Customer Insights" if step < 4 else "Personalisation", "team", "digital", []),
        _group("support-tools", "Support Tools", "team", "digital", []),
        _group("core-tech", "Core Technology", "department", None, core_children),
        _group("identity", "Identity", "team", "core-tech", []),
        _group("cloud", "Cloud Platform", "team", "core-tech", []),
        _group("data-eng", "Data Engineering", "team", "core-tech", []),
        _group("appsec", "Application Security", "team", "core-tech", []),  # has people, owns nothing
    ]
    if not reorg:
        groups.append(_group("legacy-integration", "Legacy Integration", "team", "core-tech", []))
    if reorg:
        groups.append(_group("fraud", "Fraud Prevention", "team", "digital", []))  # nobody on it until step 5
    files["org/groups.yaml"] = docs(groups)

    people = [
        _user("amara.nwosu", "Amara Nwosu", ["digital"]),
        _user("henrik.dahl", "Henrik Dahl", ["core-tech"]),
        _user("lucy.brennan", "Lucy Brennan", ["mobile"]),
        _user("raj.patel", "Raj Patel", ["fraud"] if step >= 5 else ["mobile"]),
        _user("sofia.costa", "Sofia Costa", ["web-banking"]),
        _user("ben.walker", "Ben Walker", ["web-banking", "support-tools"]),
        _user("hannah.berg", "Hannah Berg", ["accounts"]),
        _user("chloe.martin", "Chloe Martin", ["payments"]),
        _user("samir.haddad", "Samir Haddad", ["insights"]),
        _user("ivy.chen", "Ivy Chen", ["support-tools"]),
        _user("kenji.mori", "Kenji Mori", ["identity"]),
        _user("nadia.okafor", "Nadia Okafor", ["cloud"]),
        _user("marcus.reid", "Marcus Reid", ["cloud"] if reorg else ["legacy-integration"]),
        _user("ella.novak", "Ella Novak", ["data-eng"]),
        _user("olivia.grant", "Olivia Grant" if step < 4 else "Olivia Grant-Hughes", ["appsec"]),
        _user("tariq.aziz", "Tariq Aziz", ["appsec"]),
        _user("greta.lind", "Greta Lind", []),  # on no team, throughout
    ]
    if step < 4:
        people.append(_user("diego.ramos", "Diego Ramos", ["payments"]))
    if not reorg:
        people.append(_user("paul.young", "Paul Young", ["legacy-integration"]))
    if step >= 2:
        people.append(_user("zoe.clarke", "Zoe Clarke", ["payments"]))
    if step >= 6:
        people.append(_user("felix.wong", "Felix Wong", ["data-eng"]))
    files["org/people.yaml"] = docs(people)
    # readable by the Security group only (header/chainret.yaml)
    files["org/contractors.yaml"] = _user("victor.hale", "Victor Hale", ["payments"])

    # -- domain, systems and resources ---------------------------------------------------------------------
    files["systems.yaml"] = docs([
        doc("Domain", "retail-banking", ["title: Retail Banking"], ["owner: digital"]),
        doc("System", "everyday-banking", ["title: Everyday Banking"], ["owner: web-banking", "domain: retail-banking"]),
        doc("System", "payments-sys", ["title: Payments"], ["owner: payments", "domain: retail-banking"]),
        doc("System", "cards-sys", ["title: Cards"], ["owner: cards", "domain: retail-banking"]),
        doc("System", "identity-sys", ["title: Identity and Access"], ["owner: identity", "domain: retail-banking"]),
        doc("System", "data-sys", ["title: Data and Insights"], ["owner: data-eng", "domain: retail-banking"]),
        doc("System", "support-sys", ["title: Customer Support"], ["owner: support-tools", "domain: retail-banking"]),
        doc("System", "platform-sys", ["title: Shared Platform"], ["owner: core-tech", "domain: retail-banking"]),
        # still names the dissolved group after the reorg
        doc("System", "legacy-sys", ["title: Legacy Integration"], ["owner: legacy-integration", "domain: retail-banking"]),
        _resource("accounts-db", "Accounts Database", "database", "accounts", "everyday-banking"),
        _resource("statements-bucket", "Statements Bucket", "s3-bucket", "web-banking", "everyday-banking"),
        _resource("payments-db", "Payments Database", "database", "payments", "payments-sys"),
        _resource("payments-queue", "Payments Queue", "queue", "cloud", "payments-sys"),
        _resource("signing-key", "Payment Signing Key", "secret", "payments", "payments-sys"),
        _resource("cards-db", "Cards Database", "database", "cards", "cards-sys"),
        _resource("auth-db", "Auth Database", "database", "identity", "identity-sys"),
        _resource("session-cache", "Session Cache", "cache", "cloud", "identity-sys"),
        _resource("gateway-key", "API Gateway Key", "secret", None, "platform-sys"),  # never had an owner
        _resource("analytics-warehouse", "Analytics Warehouse", "database", "data-eng", "data-sys"),
        _resource("audit-bucket", "Audit Log Bucket", "s3-bucket", None, "platform-sys"),  # no owner, nothing uses it
        _resource("exports-bucket", "Exports Bucket", "s3-bucket", "legacy-integration", "legacy-sys"),
    ])

    # -- everyday banking --------------------------------------------------------------------------------------
    files["apps/mobile/catalog-info.yaml"] = _component(
        "mobile-app", "Kestrel Mobile App", "mobile", "everyday-banking", ctype="mobile-app",
        consumes=["accounts-api", "auth-api"] + (["payments-api"] if step >= 2 else [])
        + (["notifications-api"] if step >= 4 else []),
        depends=["resource:gateway-key", "component:ui-kit"])
    files["web/banking/catalog-info.yaml"] = _component(
        "online-banking", "Online Banking Website", "web-banking", "everyday-banking", ctype="website",
        consumes=["accounts-api", "auth-api", "payments-api", "statements-api"]
        + (["notifications-api"] if step >= 5 else []),
        depends=["resource:gateway-key", "component:ui-kit"])
    files["web/statements/catalog-info.yaml"] = docs([
        _component("statements-service", "Statements Service", "web-banking", "everyday-banking",
                   provides=["statements-api"], consumes=["accounts-api"],
                   depends=["resource:statements-bucket", "component:json-lib"]),
        _api("statements-api", "Statements API", "web-banking", "everyday-banking"),
    ])
    files["accounts/service/catalog-info.yaml"] = docs([
        _component("accounts-service", "Accounts Service", "accounts", "everyday-banking",
                   provides=["accounts-api", "open-banking-api"], consumes=["auth-api"],
                   depends=["resource:accounts-db", "component:json-lib"]),
        _api("accounts-api", "Accounts API", "accounts", "everyday-banking"),
        _api("open-banking-api", "Open Banking API", "accounts", "everyday-banking"),  # nobody calls it
    ])
    files["libs/ui-kit/catalog-info.yaml"] = _component(
        "ui-kit", "Design System", "web-banking" if step < 4 else "mobile", "everyday-banking", ctype="library")

    # -- payments and cards ------------------------------------------------------------------------------------
    files["payments/service/catalog-info.yaml"] = docs([
        _component("payments-service", "Payments Service", "payments", "payments-sys",
                   provides=["payments-api"], consumes=["auth-api", "accounts-api"] + (["fraud-api"] if step >= 2 else []),
                   depends=["resource:payments-db", "resource:payments-queue", "resource:signing-key",
                            "component:json-lib", "component:crypto-lib"]),
        _api("payments-api", "Payments API", "payments", "payments-sys"),
    ])
    files["payments/fraud/catalog-info.yaml"] = docs([
        _component("fraud-scoring", "Fraud Scoring Service", "fraud" if step >= 5 else "payments", "payments-sys",
                   provides=["fraud-api"], depends=["resource:signing-key", "resource:analytics-warehouse"]),
        _api("fraud-api", "Fraud API", "payments", "payments-sys"),
    ])
    files["cards/service/catalog-info.yaml"] = docs([
        _component("cards-service", "Cards Service", "cards", "cards-sys", provides=["cards-api"],
                   consumes=["auth-api"], depends=["resource:cards-db", "component:json-lib"]),
        _api("cards-api", "Cards API", "cards", "cards-sys"),
    ])

    # -- identity and shared libraries -------------------------------------------------------------------------
    files["identity/auth/catalog-info.yaml"] = docs([
        _component("auth-service", "Auth Service", "identity", "identity-sys", provides=["auth-api"],
                   depends=["resource:auth-db", "resource:session-cache", "component:crypto-lib"]),
        _api("auth-api", "Auth API", "identity", "identity-sys"),
    ])
    files["libs/json/catalog-info.yaml"] = _component(
        "json-lib", "JSON Toolkit", "cloud", "platform-sys", ctype="library")
    files["libs/crypto/catalog-info.yaml"] = _component(
        "crypto-lib", "Crypto Library", "identity", "identity-sys", ctype="library")
    files["status/catalog-info.yaml"] = _component(  # owned by a person, not a team
        "status-page", "Service Status Page", "user:nadia.okafor", "platform-sys", ctype="website")

    # -- data ----------------------------------------------------------------------------------------------------
    files["data/pipeline/catalog-info.yaml"] = _component(
        "data-pipeline", "Customer Data Pipeline", "data-eng", "data-sys", ctype="worker",
        consumes=["accounts-api", "cards-api"], depends=["resource:analytics-warehouse", "resource:statements-bucket"])
    files["data/recs/catalog-info.yaml"] = _component(
        "recommendations", "Recommendations Engine", "insights", "data-sys",
        consumes=["accounts-api"], depends=["resource:analytics-warehouse"])

    # -- support -------------------------------------------------------------------------------------------------
    files["support/console/catalog-info.yaml"] = _component(
        "support-console", "Support Console", "support-tools", "support-sys", ctype="website",
        consumes=["accounts-api", "cards-api"] + (["statements-api"] if step >= 4 else []))
    files["support/chatbot/catalog-info.yaml"] = _component(  # loses its owner in May
        "help-chatbot", "Help Chatbot", "support-tools" if step < 4 else None, "support-sys",
        consumes=["accounts-api"] + (["cards-api"] if step >= 5 else []), depends=["component:json-lib"])
    files["notify/catalog-info.yaml"] = docs([  # never had an owner
        _component("notification-worker", "Notification Worker", None, "platform-sys", ctype="worker",
                   provides=["notifications-api", "webhooks-api"], depends=["resource:payments-queue"]),
        _api("notifications-api", "Notifications API", "cloud", "platform-sys"),  # first caller at step 4
        _api("webhooks-api", "Webhooks API", None, "platform-sys"),  # never had an owner, nobody calls it
    ])

    # -- legacy: after the reorg the group is gone, these still name it ----------------------------------------
    files["legacy/export/catalog-info.yaml"] = _component(
        "export-tool", "Legacy Export Tool", "legacy-integration", "legacy-sys", ctype="worker",
        consumes=["core-banking-api"], depends=["resource:exports-bucket", "component:json-lib"])
    files["legacy/bridge/catalog-info.yaml"] = docs([
        _component("mainframe-bridge", "Mainframe Bridge", "cloud" if reorg else "legacy-integration", "legacy-sys",
                   provides=["core-banking-api"]),
        _api("core-banking-api", "Core Banking API", "legacy-integration", "legacy-sys"),
    ])
    files["fax/gateway/catalog-info.yaml"] = _component(  # never had an owner
        "fax-gateway", "Fax Gateway", None, "legacy-sys", consumes=["core-banking-api"])

    # -- CODEOWNERS (GitHub: the last matching rule wins) ---------------------------------------------------
    fraud_owner = "@kestrelbank/fraud" if step >= 5 else "@kestrelbank/payments"
    codeowners = [
        "# Kestrel Bank digital channels: code owners. The last matching rule wins.",
        "",
        "# Fallback: the digital leads review anything not listed below",
        "*                          @kestrelbank/digital-leads",
        "",
        "/apps/mobile/              @kestrelbank/mobile",
        "/web/                      @kestrelbank/web-banking @sofia-costa",
        "/web/statements/           @kestrelbank/web-banking statements-team@kestrelbank.example",
        "/accounts/                 @kestrelbank/accounts",
        "/payments/                 @kestrelbank/payments chloe.martin@kestrelbank.example",
        f"/payments/fraud/           {fraud_owner}",
        "/cards/                    @kestrelbank/cards",
        "/identity/                 @kestrelbank/identity @kestrelbank/appsec",
        "/libs/                     @kestrelbank/cloud",
        "/libs/json/                @nadia-okafor",
        "/data/                     @kestrelbank/data-eng",
        "/support/                  @kestrelbank/support-tools",
    ]
    if reorg:
        codeowners += ["", "# Legacy Integration is gone: nobody reviews its code until it is retired", "/legacy/"]
    else:
        codeowners += ["/legacy/                   @kestrelbank/legacy-integration @paul-young"]
    if step >= 2:
        codeowners += ["", "# Every Terraform file, wherever it is: the cloud reviewers",
                       "*.tf                       @kestrelbank/cloud henrik.dahl@kestrelbank.example"]
    codeowners += ["", "# The fax gateway is being switched off: nobody owns it", "/fax/"]
    files[".github/CODEOWNERS"] = "\n".join(codeowners) + "\n"

    # -- code ----------------------------------------------------------------------------------------------
    files["README.md"] = "# Kestrel Bank digital channels\n\nMobile, web, payments, cards, identity and support.\n" + (
        "\nSecurity contact: #sec-triage.\n" if step >= 6 else "")
    files.update(CODE)
    return files


COMMITS: list[Commit] = [
    (1, "2025-09-15T09:00:00+00:00", "Amara Nwosu", "Initial Backstage catalog and CODEOWNERS"),
    (2, "2025-12-01T13:30:00+00:00", "Chloe Martin", "Zoe joins Payments; payments calls fraud; Terraform reviewers"),
    (3, "2026-03-09T10:15:00+00:00", "Henrik Dahl", "Reorg: Legacy Integration dissolved; Fraud Prevention team"),
    (4, "2026-05-26T15:40:00+00:00", "Amara Nwosu", "Customer Insights becomes Personalisation; design system to Mobile"),
    (5, "2026-09-07T08:50:00+00:00", "Amara Nwosu", "Raj and fraud scoring to Fraud Prevention"),
    (6, "2026-11-16T11:05:00+00:00", "Ella Novak", "Felix joins Data Engineering; README security contact"),
]

# Writes every step of the history into a new git repository at ``root`` (the scorer calls ``build(root)``).
build = partial(build_history, commits=COMMITS, files_at=_files, domain=DOMAIN)

if __name__ == "__main__":
    sys.exit(main(sys.argv, build, __doc__.strip().splitlines()[-1]))
