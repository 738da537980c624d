"""Build the newcomer fixture: a small team's Backstage + CODEOWNERS repository with a git history.

Written from the point of view of someone who keeps a catalog the way Backstage's docs suggest and has
never read chainret's rules: the questions in ``questions.yaml`` were written against these records
only. Each commit writes the whole tree for its step (so the script is the single statement of what
the repository holds at each date) with fixed author and committer dates, so the history, and the
view names chainret derives from it (``<date>-<short hash>``), are the same on every run.

Timeline (UTC):

- 2025-11-03  initial catalog; order-service and orders-api owned by the web team
- 2025-12-15  order-service and orders-api move to platform; alice joins payments; *.sql rule (2 owners)
- 2026-01-05  a code-only commit (no record changes)
- 2026-01-20  legacy-reports loses its owner; dave moves to platform; frank and grace join
- 2026-02-10  checkout-service consumes orders-api; carol co-owns checkout code; docs/* owned by bob

Usage: ``python examples/newcomer/make_repo.py DIR`` (DIR must not exist or be empty).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ORG = "northwind"


def _group(name: str, title: str, gtype: str, parent: str | None, children: list[str], email: str) -> str:
    lines = [
        "apiVersion: backstage.io/v1alpha1",
        "kind: Group",
        "metadata:",
        f"  name: {name}",
        f"  description: {title} at Northwind",
        "spec:",
        f"  type: {gtype}",
        "  profile:",
        f"    displayName: {title}",
        f"    email: {email}",
    ]
    if parent:
        lines.append(f"  parent: {parent}")
    lines.append("  children: [" + ", ".join(children) + "]")
    return "\n".join(lines) + "\n"


def _user(name: str, display: str, teams: list[str]) -> str:
    lines = [
        "apiVersion: backstage.io/v1alpha1",
        "kind: User",
        "metadata:",
        f"  name: {name}",
        "spec:",
        "  profile:",
        f"    displayName: {display}",
        f"    email: {name}@{ORG}.example",
    ]
    lines.append("  memberOf: [" + ", ".join(teams) + "]")
    return "\n".join(lines) + "\n"


def _component(
    name: str,
    title: str,
    owner: str | None,
    *,
    ctype: str = "service",
    provides: list[str] | None = None,
    consumes: list[str] | None = None,
    depends: list[str] | None = None,
) -> str:
    lines = [
        "apiVersion: backstage.io/v1alpha1",
        "kind: Component",
        "metadata:",
        f"  name: {name}",
        f"  title: {title}",
        "  annotations:",
        f"    github.com/project-slug: {ORG}/{name}",
        "spec:",
        f"  type: {ctype}",
        "  lifecycle: production",
    ]
    if owner:
        lines.append(f"  owner: {owner}")
    lines.append("  system: storefront")
    for key, values in (("providesApis", provides), ("consumesApis", consumes), ("dependsOn", depends)):
        if values:
            lines.append(f"  {key}:")
            lines.extend(f"    - {v}" for v in values)
    return "\n".join(lines) + "\n"


def _api(name: str, title: str, owner: str) -> str:
    return (
        "apiVersion: backstage.io/v1alpha1\n"
        "kind: API\n"
        "metadata:\n"
        f"  name: {name}\n"
        f"  title: {title}\n"
        "spec:\n"
        "  type: openapi\n"
        "  lifecycle: production\n"
        f"  owner: {owner}\n"
        "  system: storefront\n"
        "  definition: |\n"
        "    openapi: 3.0.0\n"
        f"    info: {{title: {title}, version: 1.0.0}}\n"
        "    paths: {}\n"
    )


def _files(step: int) -> dict[str, str]:
    """The whole tree at ``step`` (1..5)."""
    docs = "\n---\n".join
    files: dict[str, str] = {}

    files["catalog-info.yaml"] = (
        "apiVersion: backstage.io/v1alpha1\n"
        "kind: Location\n"
        "metadata:\n"
        "  name: northwind-root\n"
        "  description: Everything Northwind registers in Backstage\n"
        "spec:\n"
        "  targets:\n"
        "    - ./org/groups.yaml\n"
        "    - ./org/users.yaml\n"
        "    - ./systems/storefront.yaml\n"
        "    - ./infra/shop-db.yaml\n"
        "    - ./web/catalog-info.yaml\n"
        "    - ./services/*/catalog-info.yaml\n"
        "    - ./reports/catalog-info.yaml\n"
    )

    files["org/groups.yaml"] = docs(
        [
            _group(
                "engineering",
                "Engineering",
                "department",
                None,
                ["team-web", "team-payments", "team-platform"],
                f"eng@{ORG}.example",
            ),
            _group("team-web", "Web Team", "team", "engineering", [], f"web@{ORG}.example"),
            _group("team-payments", "Payments Team", "team", "engineering", [], f"payments@{ORG}.example"),
            _group("team-platform", "Platform Team", "team", "engineering", [], f"platform@{ORG}.example"),
        ]
    )

    alice_teams = ["team-web"] if step < 2 else ["team-web", "team-payments"]
    dave_teams = ["team-payments"] if step < 4 else ["team-platform"]
    users = [
        _user("alice", "Alice Nguyen", alice_teams),
        _user("bob", "Bob Marsh", ["team-web"]),
        _user("carol", "Carol Diaz", ["team-payments"]),
        _user("dave", "Dave Okafor", dave_teams),
        _user("erin", "Erin Walsh", ["team-platform"]),
    ]
    if step >= 4:
        users.append(_user("frank", "Frank Li", ["team-platform"]))
        users.append(_user("grace", "Grace Hopkins", []))  # new hire, not on a team yet
    files["org/users.yaml"] = docs(users)

    files["systems/storefront.yaml"] = docs(
        [
            "apiVersion: backstage.io/v1alpha1\n"
            "kind: Domain\n"
            "metadata:\n"
            "  name: commerce\n"
            "  title: Commerce\n"
            "spec:\n"
            "  owner: engineering\n",
            "apiVersion: backstage.io/v1alpha1\n"
            "kind: System\n"
            "metadata:\n"
            "  name: storefront\n"
            "  title: Storefront\n"
            "spec:\n"
            "  owner: team-web\n"
            "  domain: commerce\n",
        ]
    )

    files["infra/shop-db.yaml"] = (
        "apiVersion: backstage.io/v1alpha1\n"
        "kind: Resource\n"
        "metadata:\n"
        "  name: shop-db\n"
        "  title: Shop Database\n"
        "spec:\n"
        "  type: database\n"
        "  owner: team-platform\n"
        "  system: storefront\n"
    )

    files["web/catalog-info.yaml"] = _component(
        "web-shop",
        "Web Shop",
        "team-web",
        ctype="website",
        consumes=["orders-api", "payments-api"],
        depends=["component:search"],
    )

    files["services/checkout/catalog-info.yaml"] = docs(
        [
            _component(
                "checkout-service",
                "Checkout Service",
                "team-payments",
                provides=["payments-api"],
                consumes=["orders-api"] if step >= 5 else None,
                depends=["resource:shop-db"],
            ),
            _api("payments-api", "Payments API", "team-payments"),
        ]
    )

    orders_owner = "team-web" if step < 2 else "team-platform"
    files["services/orders/catalog-info.yaml"] = docs(
        [
            _component(
                "order-service",
                "Order Service",
                orders_owner,
                provides=["orders-api"],
                depends=["resource:shop-db"],
            ),
            _api("orders-api", "Orders API", orders_owner),
        ]
    )

    # A Component and an API that share the name "search" (a real homonym).
    files["services/search/catalog-info.yaml"] = docs(
        [
            _component("search", "Search", "team-web", provides=["search"]),
            _api("search", "Search API", "team-platform"),
        ]
    )

    files["reports/catalog-info.yaml"] = _component(
        "legacy-reports",
        "Legacy Reports",
        "team-web" if step < 4 else None,
        ctype="library",
        consumes=["orders-api"],
    )

    codeowners = [
        "# Northwind code owners. Last matching rule wins.",
        "",
        "# Platform owns everything by default",
        "*                       @northwind/platform",
        "",
        "/web/                   @northwind/web",
    ]
    if step >= 2:
        codeowners += ["", "# Database files need platform and our DBA", "*.sql                   @northwind/platform @erin"]
    codeowners += [
        "",
        "/services/checkout/     @northwind/payments" + (" @carol" if step >= 5 else ""),
    ]
    if step >= 5:
        codeowners += ["", "docs/*                  @bob"]
    files[".github/CODEOWNERS"] = "\n".join(codeowners) + "\n"

    files["README.md"] = "# Northwind storefront\n\nThe shop, its services and their catalog.\n"
    files["web/index.html"] = "<!doctype html><title>Northwind</title>\n"
    files["web/app.js"] = "console.log('northwind');\n" if step < 3 else "console.log('Northwind shop');\n"
    files["services/checkout/main.py"] = "print('checkout')\n"
    files["services/checkout/schema.sql"] = "CREATE TABLE payments (id INT);\n"
    files["services/orders/main.py"] = "print('orders')\n"
    files["services/search/main.py"] = "print('search')\n"
    files["reports/report.py"] = "print('reports')\n"
    files["db/migrations/001_init.sql"] = "CREATE TABLE orders (id INT);\n"
    files["docs/README.md"] = "# Docs\n"
    files["docs/guide/setup.md"] = "# Setup\n"
    if step >= 5:
        files["docs/api.md"] = "# API notes\n"
    return files


COMMITS = [
    (1, "2025-11-03T10:00:00+00:00", "Alice Nguyen", "Initial Backstage catalog and CODEOWNERS"),
    (2, "2025-12-15T09:30:00+00:00", "Erin Walsh", "Move order-service and orders-api to platform; Alice joins payments; DBA reviews SQL"),
    (3, "2026-01-05T14:00:00+00:00", "Bob Marsh", "Tweak the shop banner"),
    (4, "2026-01-20T11:15:00+00:00", "Carol Diaz", "Dave moves to platform; Frank and Grace join; legacy-reports has no owner now"),
    (5, "2026-02-10T16:45:00+00:00", "Carol Diaz", "Checkout reads orders; Carol co-owns checkout code; Bob owns docs"),
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
        email = author.split()[0].lower() + f"@{ORG}.example"
        env = dict(env_base)
        env.update(
            GIT_AUTHOR_NAME=author,
            GIT_AUTHOR_EMAIL=email,
            GIT_COMMITTER_NAME=author,
            GIT_COMMITTER_EMAIL=email,
            GIT_AUTHOR_DATE=date,
            GIT_COMMITTER_DATE=date,
        )
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
