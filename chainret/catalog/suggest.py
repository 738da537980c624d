"""Did you mean: the closest known names for an unknown one (principals, views, patterns, paths).

``did_you_mean(word, choices)`` is the wording every "unknown X" message uses; ``check_principal``
(and ``chainret.catalog.views.check_view``) are the usage errors (exit 2) for names a catalog does not know. Entity
suggestions live in ``chainret.query.understand.suggest_entities`` (they must stay within what the
principal may know); principals, views and patterns are catalog-wide names, not records.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from chainret.core.errors import UsageError

PUBLIC = "public"


def closest(word: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """The choices closest to ``word`` (case-insensitive; an exact case-insensitive match first)."""
    pool = list(dict.fromkeys(choices))
    folded = {c.casefold(): c for c in pool}
    exact = [folded[word.casefold()]] if word.casefold() in folded and folded[word.casefold()] != word else []
    from difflib import get_close_matches  # only when a name is unknown: not imported on the ask path

    near = get_close_matches(word.casefold(), list(folded), n=n, cutoff=0.6)
    return list(dict.fromkeys(exact + [folded[c] for c in near]))[:n]


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` or ``""``."""
    near = closest(word, choices)
    if not near:
        return ""
    return "; did you mean " + " or ".join(repr(c) for c in near) + "?"


class NamesPrincipals(Protocol):
    """A catalog reader (``chainret.store.base.CatalogReader``): what ``known_principals`` reads of it."""

    def principals(self) -> frozenset[str]: ...


def known_principals(catalog: NamesPrincipals) -> list[str]:
    """``public`` and every principal a document of the catalog (any version) names."""
    return [PUBLIC, *sorted(catalog.principals() - {PUBLIC})]


def check_principal(catalog: NamesPrincipals, principal: str | None, flag: str = "--principal") -> None:
    """UsageError (exit 2) for a principal no document of the catalog names (a typo reads nothing)."""
    if principal is None:
        return
    known = known_principals(catalog)
    if principal in known:
        return
    raise UsageError(f"unknown principal {principal!r} for {flag}: no document of this catalog names it"
                     f"{did_you_mean(principal, known)} (known: {', '.join(known)})")
