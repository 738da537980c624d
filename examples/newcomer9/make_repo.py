"""Build the ninth newcomer fixture: a mid-size online shop's Backstage + CODEOWNERS repository.

"Shopwave", a mid-size e-commerce company, keeps its storefront, payments, product information and
platform tooling in one repository. Two departments: Commerce Engineering (Checkout, Payments with a
Fraud Squad sub-team nobody is on that still owns the fraud feature store, Catalog, the Accessibility
Guild, which nobody is on and which owns nothing, and Growth, which has a person but owns nothing and
moves to Platform Engineering in the reorg) and Platform Engineering (Site Reliability, Data
Engineering, and Mobile, created in the reorg). Components of several kinds (``spec.type``: service,
website, library, mobile-app, worker) and resources of several kinds (database, s3-bucket, cache,
search-index). One person is on two teams, one leaves, one's display name changes, one moves teams in
the reorg, one starts on no team and later joins Data Engineering, one is on no team throughout, and a
contractor's profile (``org/contractors.yaml``) may only be read by the Security group (restricted by
``header/chainret.yaml``). One website is owned by a person rather than a team, one worker names an
owner group nobody declares (``risk-team``), a service, a website and a library never had an owner,
one API and one bucket have no owner, one service loses its owner, another service and its API move
teams, the mobile app moves teams in the reorg; one API nobody provides or consumes, one provided but
never consumed, one whose consumers grow from none, several whose consumers grow; a system with
nothing in it. CODEOWNERS has a ``*`` fallback, a two-owner ``*.sql`` rule at any depth, a
``/mobile/**`` rule, rules with two owners, a rule whose second owner changes when its reviewer
leaves, last-match-wins overlaps (``/storefront/`` then ``/storefront/checkout/``, ``/catalog/`` then
``/catalog/search/``, ``/payments/`` then ``/payments/refunds/``, ``/storefront/`` and ``/payments/``
then ``*.sql``), and two rules with no owners, one added later.

The questions in ``questions.yaml`` were written against this script alone, without reading
chainret's phrasings, lexicon or any other question set. Each commit writes the whole tree for its
step (so this script is the single statement of what the repository holds at each date) with fixed
author and committer identities and dates, so the commit hashes and the view names chainret derives
from them (``<date>-<short hash>``) are the same on every run.

Timeline (UTC):

- 2025-09-15  step 1: initial catalog and CODEOWNERS (the contractor Kofi Mensah on Payments is there
              from the start; the legacy promotions service, the gift card site and the HTTP client
              library have no owner, nor have the Refunds API and the invoice archive; Jun Park is on
              Checkout; Ella Brooks is on no team)
- 2025-12-08  step 2: Sam Ortiz joins (no team); the refund service starts calling the Payments API; a
              two-owner ``*.sql`` rule
- 2026-02-23  step 3: the reorg: the Mobile team is created under Platform Engineering and Jun Park
              moves to it from Checkout; the Shopwave app moves from Checkout to Mobile and starts
              calling the Search API; Growth moves from Commerce to Platform Engineering; the
              inventory sync worker starts depending on the orders database; a ``/mobile/**`` rule
- 2026-06-29  step 4: Diego Ramos leaves (his profile is removed); the refund service loses its owner;
              the search service and the Search API move from Catalog to Data Engineering (and
              ``/catalog/search/`` with them); ``/payments/`` is now reviewed by Payments and Sara
              Kowalski (was Diego Ramos); a ``/payments/refunds/`` rule with no owners; Aisha Khan's
              display name becomes Aisha Khan-Reid; the Shopwave app starts calling the Orders API
- 2026-08-31  step 5: the merchant admin portal starts calling the Merchant Payouts API; a ``/docs/``
              rule with two people
- 2026-09-28  step 6: Sam Ortiz joins Data Engineering; a README tweak

Usage: ``python examples/newcomer9/make_repo.py DIR`` (DIR must not exist or be empty).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/: the shared writer of newcomer worlds
from newcomer_repo import Commit, Descriptors, build_history, doc, main  # noqa: E402

ORG = "shopwave"
DOMAIN = "shopwave.example"
D = Descriptors(org=ORG, repo="shop", domain=DOMAIN, where="Shopwave engineering")
_doc, _group, _user, _component, _resource = doc, D.group, D.user, D.component, D.resource


def _api(name: str, title: str, owner: str | None, system: str, api_type: str = "openapi") -> str:
    return D.api(name, title, owner, system, api_type, version="2.1.0")


CODE = {  # the code files, the same at every step (only their paths matter to CODEOWNERS)
    "storefront/web/app.tsx": "export {};\n",
    "storefront/checkout/pay.tsx": "export {};\n",
    "storefront/cart/cart.go": "package cart\n",
    "storefront/orders/orders.py": "print('orders')\n",
    "storefront/orders/schema.sql": "CREATE TABLE orders (id int);\n",
    "storefront/giftcards/index.html": "<html></html>\n",
    "libs/ui-kit/index.ts": "export {};\n",
    "libs/money/money.ts": "export {};\n",
    "libs/http-client/client.ts": "export {};\n",
    "mobile/app/App.kt": "class App\n",
    "payments/gateway/gateway.java": "class Gateway {}\n",
    "payments/gateway/ledger.sql": "CREATE TABLE ledger (id int);\n",
    "payments/refunds/refunds.py": "print('refunds')\n",
    "payments/fraud/model.py": "print('score')\n",
    "catalog/products/products.py": "print('products')\n",
    "catalog/search/search.py": "print('search')\n",
    "catalog/inventory/sync.py": "print('sync')\n",
    "catalog/admin/admin.tsx": "export {};\n",
    "platform/status/status.html": "<html></html>\n",
    "legacy/promo/promo.php": "<?php echo 'promo';\n",
    "docs/runbook.md": "# Shopwave runbook\n",
}


def _files(step: int) -> dict[str, str]:
    """The whole tree at ``step`` (1..6)."""
    docs = "\n---\n".join
    files: dict[str, str] = {}
    reorg = step >= 3

    files["catalog-info.yaml"] = _doc("Location", "shopwave-root",
                                      ["description: Shopwave's org chart and systems"],
                                      ["targets:", "  - ./org/*.yaml", "  - ./systems.yaml"])

    # -- organisation: two departments -------------------------------------------------------------------
    commerce_children = ["checkout", "payments", "catalog-team", "accessibility-guild"] + ([] if reorg else ["growth"])
    platform_children = ["sre", "data-eng"] + (["mobile", "growth"] if reorg else [])
    groups = [
        _group("commerce", "Commerce Engineering", "department", None, commerce_children),
        _group("checkout", "Checkout", "team", "commerce", []),
        _group("payments", "Payments", "team", "commerce", ["fraud"]),
        _group("fraud", "Fraud Squad", "sub-team", "payments", []),  # nobody is on it, owns the fraud feature store
        _group("catalog-team", "Catalog", "team", "commerce", []),
        _group("accessibility-guild", "Accessibility Guild", "team", "commerce", []),  # nobody is on it, owns nothing
        _group("growth", "Growth", "team", "platform" if reorg else "commerce", []),  # has a person, owns nothing
        _group("platform", "Platform Engineering", "department", None, platform_children),
        _group("sre", "Site Reliability", "team", "platform", []),
        _group("data-eng", "Data Engineering", "team", "platform", []),
    ]
    if reorg:
        groups.append(_group("mobile", "Mobile", "team", "platform", []))
    files["org/groups.yaml"] = docs(groups)

    people = [
        _user("maya.lindqvist", "Maya Lindqvist", ["commerce"]),
        _user("raj.patel", "Raj Patel", ["platform"]),
        _user("chloe.martin", "Chloe Martin", ["checkout"]),
        _user("ben.okoro", "Ben Okoro", ["checkout", "payments"]),
        _user("sara.kowalski", "Sara Kowalski", ["payments"]),
        _user("hana.sato", "Hana Sato", ["catalog-team"]),
        _user("lucas.meyer", "Lucas Meyer", ["catalog-team"]),
        _user("nina.berg", "Nina Berg", ["growth"]),
        _user("tomasz.nowak", "Tomasz Nowak", ["sre"]),
        _user("aisha.khan", "Aisha Khan" if step < 4 else "Aisha Khan-Reid", ["sre"]),
        _user("felix.wagner", "Felix Wagner", ["data-eng"]),
        _user("jun.park", "Jun Park", ["mobile"] if reorg else ["checkout"]),
        _user("ella.brooks", "Ella Brooks", []),  # on no team, throughout
    ]
    if step >= 2:
        people.append(_user("sam.ortiz", "Sam Ortiz", ["data-eng"] if step >= 6 else []))  # no team until step 6
    if step < 4:
        people.append(_user("diego.ramos", "Diego Ramos", ["payments"]))
    files["org/people.yaml"] = docs(people)
    # readable by the Security group only (header/chainret.yaml)
    files["org/contractors.yaml"] = _user("kofi.mensah", "Kofi Mensah", ["payments"])

    # -- domain, systems and resources ---------------------------------------------------------------------
    files["systems.yaml"] = docs([
        _doc("Domain", "online-shop", ["title: Online Shop"], ["owner: commerce"]),
        _doc("System", "storefront", ["title: Storefront"], ["owner: checkout", "domain: online-shop"]),
        _doc("System", "payments-platform", ["title: Payments Platform"], ["owner: payments", "domain: online-shop"]),
        _doc("System", "product-info", ["title: Product Information"], ["owner: catalog-team", "domain: online-shop"]),
        _doc("System", "platform-tools", ["title: Platform Tooling"], ["owner: platform", "domain: online-shop"]),
        # nothing is in it
        _doc("System", "observability", ["title: Observability"], ["owner: sre", "domain: online-shop"]),
        _resource("orders-db", "Orders Database", "database", "checkout", "storefront"),
        _resource("session-cache", "Session Cache", "cache", "sre", "storefront"),
        _resource("payments-db", "Payments Database", "database", "payments", "payments-platform"),
        _resource("fraud-db", "Fraud Feature Store", "database", "fraud", "payments-platform"),
        # never had an owner, nothing depends on it
        _resource("invoice-archive", "Invoice Archive", "s3-bucket", None, "payments-platform"),
        _resource("catalog-db", "Catalog Database", "database", "catalog-team", "product-info"),
        _resource("product-images", "Product Images Bucket", "s3-bucket", "catalog-team", "product-info"),
        _resource("search-index", "Search Index", "search-index", "data-eng", "product-info"),
        _resource("clickstream-bucket", "Clickstream Bucket", "s3-bucket", "data-eng", "product-info"),  # nothing uses it
    ])

    # -- storefront ------------------------------------------------------------------------------------------
    files["storefront/web/catalog-info.yaml"] = _component(
        "storefront-web", "Storefront Website", "checkout", "storefront", ctype="website",
        consumes=["cart-api", "catalog-api", "search-api"], depends=["resource:product-images"])
    files["storefront/checkout/catalog-info.yaml"] = _component(
        "checkout-web", "Checkout Website", "checkout", "storefront", ctype="website", consumes=["cart-api", "payments-api"])
    files["storefront/cart/catalog-info.yaml"] = docs([
        _component("cart-service", "Cart Service", "checkout", "storefront", provides=["cart-api"],
                   consumes=["catalog-api"], depends=["resource:session-cache"]),
        _api("cart-api", "Cart API", "checkout", "storefront"),
    ])
    files["storefront/orders/catalog-info.yaml"] = docs([
        _component("order-service", "Order Service", "checkout", "storefront", provides=["orders-api"],
                   consumes=["payments-api", "cart-api"], depends=["resource:orders-db"]),
        _api("orders-api", "Orders API", "checkout", "storefront"),
    ])
    files["storefront/giftcards/catalog-info.yaml"] = _component(  # never had an owner
        "gift-card-site", "Gift Card Site", None, "storefront", ctype="website", consumes=["payments-api"])
    files["libs/ui-kit/catalog-info.yaml"] = _component(
        "ui-kit", "Shopwave UI Kit", "checkout", "storefront", ctype="library")
    files["mobile/app/catalog-info.yaml"] = _component(
        "storefront-app", "Shopwave App", "mobile" if reorg else "checkout", "storefront", ctype="mobile-app",
        consumes=["cart-api", "catalog-api"] + (["search-api"] if reorg else []) + (["orders-api"] if step >= 4 else []))

    # -- payments --------------------------------------------------------------------------------------------
    files["payments/gateway/catalog-info.yaml"] = docs([
        _component("payment-gateway", "Payment Gateway", "payments", "payments-platform",
                   provides=["payments-api", "payouts-api"], consumes=["fraud-api"], depends=["resource:payments-db"]),
        _api("payments-api", "Payments API", "payments", "payments-platform"),
        _api("payouts-api", "Merchant Payouts API", "payments", "payments-platform"),  # first consumer at step 5
        # planned: nobody provides or calls it
        _api("loyalty-api", "Loyalty Points API", "payments", "payments-platform"),
    ])
    files["payments/refunds/catalog-info.yaml"] = docs([
        _component("refund-service", "Refund Service", "payments" if step < 4 else None, "payments-platform",
                   provides=["refunds-api"], consumes=["orders-api"] + (["payments-api"] if step >= 2 else []),
                   depends=["resource:orders-db"]),
        _api("refunds-api", "Refunds API", None, "payments-platform"),  # never had an owner
    ])
    # risk-team is declared nowhere: the risk analysts are not in Backstage
    files["payments/fraud/catalog-info.yaml"] = docs([
        _component("fraud-scorer", "Fraud Scorer", "risk-team", "payments-platform", ctype="worker",
                   provides=["fraud-api"], depends=["resource:fraud-db"]),
        _api("fraud-api", "Fraud Score API", "payments", "payments-platform"),
    ])
    files["libs/money/catalog-info.yaml"] = _component(
        "money-lib", "Money Library", "payments", "payments-platform", ctype="library")

    # -- product information ---------------------------------------------------------------------------------
    search_owner = "catalog-team" if step < 4 else "data-eng"
    files["catalog/products/catalog-info.yaml"] = docs([
        _component("product-service", "Product Service", "catalog-team", "product-info", provides=["catalog-api"],
                   depends=["resource:catalog-db", "resource:product-images"]),
        _api("catalog-api", "Catalog API", "catalog-team", "product-info"),
    ])
    files["catalog/search/catalog-info.yaml"] = docs([
        _component("search-service", "Search Service", search_owner, "product-info", provides=["search-api"],
                   consumes=["catalog-api"], depends=["resource:search-index"]),
        _api("search-api", "Search API", search_owner, "product-info"),
    ])
    files["catalog/inventory/catalog-info.yaml"] = docs([
        _component("inventory-sync", "Inventory Sync Worker", "catalog-team", "product-info", ctype="worker",
                   provides=["inventory-events"], consumes=["catalog-api"],
                   depends=["resource:catalog-db"] + (["resource:orders-db"] if reorg else [])),
        _api("inventory-events", "Inventory Events", "catalog-team", "product-info", "asyncapi"),  # nobody consumes it
    ])
    files["catalog/admin/catalog-info.yaml"] = _component(
        "admin-portal", "Merchant Admin Portal", "catalog-team", "product-info", ctype="website",
        consumes=["catalog-api", "orders-api", "refunds-api"] + (["payouts-api"] if step >= 5 else []))

    # -- platform tooling ------------------------------------------------------------------------------------
    files["platform/status/catalog-info.yaml"] = _component(  # owned by a person, not a team
        "status-page", "Status Page", "user:tomasz.nowak", "platform-tools", ctype="website")
    files["libs/http-client/catalog-info.yaml"] = _component(  # never had an owner
        "http-client", "HTTP Client Library", None, "platform-tools", ctype="library")
    files["legacy/promo/catalog-info.yaml"] = _component(  # never had an owner
        "legacy-promo-service", "Legacy Promotions Service", None, "platform-tools", consumes=["cart-api"])

    # -- CODEOWNERS (GitHub: the last matching rule wins) ---------------------------------------------------
    payments_owners = "@shopwave/payments @diego-ramos" if step < 4 else "@shopwave/payments @sara-kowalski"
    codeowners = [
        "# Shopwave code owners. The last matching rule wins.",
        "",
        "# Fallback: the platform leads review anything not listed below",
        "*                         @shopwave/platform-leads",
        "",
        "/storefront/              @shopwave/checkout",
        "/storefront/checkout/     @shopwave/checkout @chloe-martin",
        f"/payments/                {payments_owners}",
        "/catalog/                 @shopwave/catalog-team",
        f"/catalog/search/          @shopwave/{search_owner}",
        "/libs/                    @shopwave/checkout @shopwave/payments",
        "/platform/                @shopwave/sre @tomasz-nowak",
    ]
    if step >= 2:
        codeowners += ["", "# Every SQL file, wherever it is: the database team and Felix",
                       "*.sql                     @shopwave/dba @felix-wagner"]
    if reorg:
        codeowners += ["/mobile/**                @shopwave/mobile"]
    if step >= 4:
        codeowners += ["", "# Refunds are frozen while the new refund flow is designed: nobody reviews them",
                       "/payments/refunds/"]
    if step >= 5:
        codeowners += ["", "/docs/                    @maya-lindqvist @raj-patel"]
    codeowners += ["", "# The old promotions code: nobody owns it", "/legacy/"]
    files[".github/CODEOWNERS"] = "\n".join(codeowners) + "\n"

    # -- code ----------------------------------------------------------------------------------------------
    files["README.md"] = "# Shopwave\n\nStorefront, payments, product information and platform tooling.\n" + (
        "\nIncidents: #shop-incidents.\n" if step >= 6 else "")
    files.update(CODE)
    return files


COMMITS: list[Commit] = [
    (1, "2025-09-15T09:00:00+00:00", "Maya Lindqvist", "Initial Backstage catalog and CODEOWNERS"),
    (2, "2025-12-08T13:20:00+00:00", "Raj Patel", "Sam joins; refunds call the Payments API; SQL reviewers"),
    (3, "2026-02-23T10:05:00+00:00", "Maya Lindqvist", "Reorg: Mobile team takes the app, Growth moves to Platform"),
    (4, "2026-06-29T15:40:00+00:00", "Sara Kowalski", "Diego leaves; refund service unowned; search to Data Engineering"),
    (5, "2026-08-31T08:15:00+00:00", "Raj Patel", "Admin portal reads payouts; docs reviewers"),
    (6, "2026-09-28T11:30:00+00:00", "Felix Wagner", "Sam joins Data Engineering; README incidents line"),
]


def build(root: Path) -> None:
    """Write every step of the history into a new git repository at ``root``."""
    build_history(root, COMMITS, _files, DOMAIN)


if __name__ == "__main__":
    sys.exit(main(sys.argv, build, __doc__.strip().splitlines()[-1]))
