"""Coverage asks in people's words: "which components have no owner", "unowned files", "owners that resolve to
nothing", "teams with no members".

``read_gap_request(request)`` reads such a request as one section of the ownership coverage report
(``chainret.pipeline.ownership``, the report ``chainret catalog coverage`` prints) and the entity types it
asks about, or None. A closed grammar of question frames (a type noun, then *have no owner*, *are
unowned*, *does nobody own*, *with no members*, ...): words outside it are no coverage ask, so a request
that says more ("which components have no owner and use X") is never answered as if it said less.
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from chainret.core.words import ascii_marks

GapKind = Literal["no_owner", "rules_without_owners", "undeclared_owners", "groups_without_members"]

# Type nouns of the entities whose descriptor must name an owner (Backstage's), singular and plural.
_OWNED_TYPES: dict[str, tuple[str, ...]] = {
    "component": ("component",), "api": ("api",), "resource": ("resource",), "system": ("system",),
    "domain": ("domain",), "entity": ("component", "api", "resource", "system", "domain"),
    "thing": ("component", "api", "resource", "system", "domain"),
}
_CODE = r"(?:paths?|files?|rules?|codeowners\s+rules?|code\s+paths?)"
_GROUPS = r"(?:groups?|teams?)"
_T = r"(?P<t>components?|apis?|resources?|systems?|domains?|entities|entity|things?)"
_LEAD = r"(?:(?:which|what|list|show(?:\s+me)?|find|are\s+there\s+any)\s+)?(?:all\s+)?(?:the\s+|any\s+)?"
_NO_OWNER = r"(?:no\s+owners?|no\s+one\s+owning\s+(?:it|them)|nobody\s+owning\s+(?:it|them))"
_RULES: tuple[tuple[GapKind, str], ...] = (
    ("no_owner", rf"{_LEAD}{_T}\s+(?:have|has|had|with)\s+{_NO_OWNER}"),
    ("no_owner", rf"{_LEAD}{_T}\s+without\s+(?:an?\s+|any\s+)?owners?"),
    ("no_owner", rf"{_LEAD}{_T}\s+(?:are|is|were|was)\s+(?:unowned|not\s+owned(?:\s+by\s+(?:anyone|anybody|any\s+team))?)"),
    ("no_owner", rf"{_LEAD}{_T}\s+(?:do|does)\s+(?:nobody|no\s+one|no\s+team)\s+own"),
    ("no_owner", rf"{_LEAD}unowned\s+{_T}"),
    ("rules_without_owners", rf"{_LEAD}unowned\s+{_CODE}"),
    ("rules_without_owners", rf"{_LEAD}{_CODE}\s+(?:have|has|had|with)\s+no\s+(?:code\s*)?owners?"),
    ("rules_without_owners", rf"{_LEAD}{_CODE}\s+without\s+(?:an?\s+|any\s+)?(?:code\s*)?owners?"),
    ("rules_without_owners", rf"{_LEAD}{_CODE}\s+(?:are|is|were|was)\s+(?:unowned|not\s+owned(?:\s+by\s+(?:anyone|anybody))?)"),
    ("undeclared_owners", rf"{_LEAD}owners?\s+(?:that|which)\s+(?:resolve|resolves|point|points|refer|refers)\s+to\s+nothing"),
    ("undeclared_owners", rf"{_LEAD}owners?\s+(?:that|which)\s+(?:do|does)\s+not\s+(?:resolve|exist)"),
    ("undeclared_owners", rf"{_LEAD}(?:undeclared|dangling|unresolved)\s+owners?"),
    ("undeclared_owners", rf"{_LEAD}owners?\s+(?:that\s+are\s+|which\s+are\s+)?not\s+declared(?:\s+anywhere)?"),
    ("groups_without_members", rf"{_LEAD}{_GROUPS}\s+(?:have|has|had|with)\s+no\s+members?"),
    ("groups_without_members", rf"{_LEAD}{_GROUPS}\s+without\s+(?:any\s+)?members?"),
    ("groups_without_members", rf"{_LEAD}empty\s+{_GROUPS}"),
)
_COMPILED: list[tuple[GapKind, re.Pattern[str]]] = []


class GapRequest(NamedTuple):
    """A coverage ask: the report section, and the entity types asked about (empty: the section's own)."""

    kind: GapKind
    types: tuple[str, ...] = ()


def read_gap_request(request: str) -> GapRequest | None:
    """The coverage section (and types) ``request`` asks for, or None when it is no coverage ask."""
    text = ascii_marks(request).lower().replace("n't", " not")  # (marks first: "don\u2019t" is "do not" too)
    text = re.sub(r"\s+", " ", text).strip(" ?.!")
    if not any(w in text for w in ("own", "member", "empty", "declared", "nothing", "dangling")):
        return None  # (most requests: nothing to compile or try)
    if not _COMPILED:
        _COMPILED.extend((kind, re.compile(rf"^{rule}$")) for kind, rule in _RULES)
    for kind, rule in _COMPILED:
        m = rule.match(text)
        if m is None:
            continue
        noun = (m.groupdict().get("t") or "").removesuffix("s") or ""
        noun = "entity" if noun == "entitie" else noun
        return GapRequest(kind, _OWNED_TYPES.get(noun, ()))
    return None
