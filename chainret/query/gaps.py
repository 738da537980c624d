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
from functools import lru_cache
from typing import Literal, NamedTuple

from chainret.core.words import apostrophes, ascii_marks, third_person
from chainret.query.lacks import OWNERLESS_WORDS, denied_absence, reframe, without_fillers

GapKind = Literal["no_owner", "rules_without_owners", "undeclared_owners", "groups_without_members", "owned_by_undeclared"]

# Type nouns of the entities whose descriptor must name an owner (Backstage's), singular and plural.
_OWNED_TYPES: dict[str, tuple[str, ...]] = {
    "component": ("component",), "api": ("api",), "resource": ("resource",), "system": ("system",),
    "domain": ("domain",), "entity": ("component", "api", "resource", "system", "domain"),
    "thing": ("component", "api", "resource", "system", "domain"),
}
# A subject said without a type noun ("what has no owner", "is there anything without an owner"): every owned type.
for _word in ("what", "anything", "something", "stuff"):
    _OWNED_TYPES[_word] = _OWNED_TYPES["thing"]
_CODE = r"(?:(?:codeowners\s+)?(?:paths?|files?|rules?|entry|entries|lines?|patterns?|globs?)|code\s+paths?)"
# "sub-teams", "subgroups", "child teams": only groups under another group
_GROUPS = r"(?P<g>(?:sub-?|child\s+)?(?:groups?|teams?))"
_T = r"(?P<t>components?|apis?|resources?|systems?|domains?|entities|entity|things?|what|anything|something|stuff)"
_LEAD = (r"(?:(?:which|what|list|show(?:\s+me)?|find|(?:are|is)\s+there(?:\s+any)?|do\s+we\s+have(?:\s+any)?)\s+)?"
         r"(?:all\s+|every\s+|each\s+)?(?:the\s+|any\s+|an?\s+|of\s+the\s+|of\s+our\s+|our\s+)?")
# A relative clause between the type noun and what it lacks: "components that have no owner".
_REL = r"(?:\s+(?:that|which|who))?"
# Words for "has none": "lack", "are missing", "do not have".
_LACK = r"(?:lacks?|lacking|(?:are|is)\s+missing|missing|(?:do|does)\s+not\s+have|(?:have|has)\s+not\s+got)"
# An owner the catalog does not declare, said of the owner: "a team that isn't in the catalog", "a group that
# does not exist", "an owner that is not declared".
_SOMEONE = r"(?:an?\s+|some\s+)?(?:teams?|groups?|owners?|users?|someone|somebody)"
# "in the catalog", "in Backstage", "in the records": the place the catalog's records are kept, by any of its names
_RECORDS = r"(?:in|on)\s+(?:the\s+)?(?:catalog|backstage|records|directory|org\s+chart)"
# (an owner that once was: "a team that no longer exists", "a group that is gone", "a team that has been deleted")
_GONE = (r"(?:(?:do|does)\s+not\s+exist\s+any\s?more|no\s+longer\s+exists?|(?:is|are)\s+(?:gone|deleted|removed)|"
         r"(?:has|have)\s+(?:been\s+)?(?:gone|deleted|removed))")
_NOT_THERE_BARE = (rf"(?:(?:is|are)\s+not\s+(?:(?:(?:set\s+up|registered|listed|defined|declared)\s+)?{_RECORDS}|declared(?:\s+anywhere)?|defined(?:\s+anywhere)?|known)|"
                   rf"{_GONE}(?:\s+{_RECORDS})?|"
                   rf"(?:do|does)\s+not\s+exist(?:\s+{_RECORDS}|\s+anywhere)?|(?:is|are)\s+(?:missing|absent)\s+from\s+"
                   r"(?:the\s+)?(?:catalog|backstage|records))")
_NOT_THERE = rf"(?:that|which|who)\s+{_NOT_THERE_BARE}"
# the positive a question about every member asks: "(a team) that still exists", "that is declared in the catalog"
_STILL_THERE = (rf"(?:that|which|who)\s+(?:still\s+)?(?:exists?(?:\s+{_RECORDS}|\s+any\s?more)?|(?:is|are)\s+(?:still\s+)?"
                rf"(?:declared|defined|known|registered|listed)(?:\s+{_RECORDS}|\s+anywhere)?|(?:is|are)\s+(?:still\s+)?{_RECORDS})")
_ALL = r"(?:every|each|all(?:\s+(?:of\s+)?(?:the|our))?|any)\s+"
# an owner the catalog does not declare, said either way: "a team that isn't in the catalog", "a nonexistent team"
_GHOST = (rf"(?:{_SOMEONE}\s+{_NOT_THERE}|(?:an?\s+|some\s+)?(?:nonexistent|non-existent|missing|unknown|undeclared|"
          r"undefined|unresolved)\s+(?:teams?|groups?|owners?))")
_NO_OWNER = (r"(?:no\s+owners?(?:\s+(?:set|assigned|specified|defined|declared|listed|given))?|no\s+one\s+owning\s+(?:it|them)|"
             r"nobody\s+owning\s+(?:it|them))")
# "which systems have a component with no owner": the things that hold an entity of no owner
_U = _T.replace("?P<t>", "?P<u>")
_HOLD = r"(?:have|has|contain|contains|include|includes)\s+(?:an?\s+|any\s+|some\s+)?"
_OWNERLESS = (r"(?:with\s+no\s+owners?|without\s+(?:an?\s+|any\s+)?owners?|(?:that|which)\s+(?:has|have)\s+no\s+owners?|"
              r"(?:that|which)\s+(?:is|are)\s+(?:unowned|ownerless|not\s+owned))")
# an owner as the records name it: "owners", "owner references", "owner fields"
_OWNER_REF = r"(?:owners?(?:\s+(?:references?|refs?|entries|entry|fields?|values?|names?))?)"
# a reference that resolves to nothing, said of the reference: "broken", "dangling" ("owner refs that are broken")
_BROKEN = r"(?:broken|dangling|unresolved|unresolvable|invalid)"
# a reference that resolves to nothing, said with its verb: "resolve to nothing", "point nowhere", "lead to nothing"
_LEADS_NOWHERE = r"(?:resolve|resolves|point|points|refer|refers|lead|leads|go|goes)\s+(?:(?:to|at)\s+nothing|nowhere)"
_RULES: tuple[tuple[GapKind, str], ...] = (
    ("no_owner", rf"{_LEAD}{_T}{_REL}\s+{_HOLD}{_U}\s+{_OWNERLESS}"),
    ("no_owner", rf"{_LEAD}{_T}{_REL}\s+{_HOLD}(?:unowned|ownerless)\s+{_U}"),
    ("no_owner", rf"{_LEAD}{_T}{_REL}\s+(?:have|has|had|with)\s+{_NO_OWNER}"),
    ("no_owner", rf"{_LEAD}{_T}\s+without\s+(?:an?\s+|any\s+)?owners?"),
    ("no_owner", rf"{_LEAD}{_T}{_REL}\s+{_LACK}\s+(?:an?\s+|any\s+)?owners?"),
    ("no_owner", rf"{_LEAD}{_T}{_REL}\s+(?:are|is|were|was)\s+(?:unowned|ownerless|orphaned|orphans|"
                 r"not\s+owned(?:\s+by\s+(?:anyone|anybody|any\s+team))?)"),
    ("no_owner", rf"{_LEAD}{_T}\s+(?:do|does)\s+(?:nobody|no\s+one|no\s+team)\s+own"),
    ("no_owner", rf"{_LEAD}(?:unowned|ownerless|orphaned|orphan)\s+{_T}"),
    ("rules_without_owners", rf"{_LEAD}unowned\s+{_CODE}"),
    ("rules_without_owners", rf"{_LEAD}{_CODE}{_REL}\s+(?:have|has|had|with)\s+no\s+(?:code\s*)?owners?"),
    ("rules_without_owners", rf"{_LEAD}{_CODE}{_REL}\s+{_LACK}\s+(?:an?\s+|any\s+)?(?:code\s*)?owners?"),
    ("rules_without_owners", rf"{_LEAD}{_CODE}\s+without\s+(?:an?\s+|any\s+)?(?:code\s*)?owners?"),
    ("rules_without_owners", rf"{_LEAD}{_CODE}{_REL}\s+(?:do|does)\s+not\s+(?:list|name)\s+(?:anyone|anybody|an?\s+owner|any\s+owners?)"),
    ("rules_without_owners", rf"{_LEAD}{_CODE}\s+with\s+(?:nobody|no\s+one)(?:\s+(?:on|in)\s+(?:it|them)|\s+(?:listed|assigned|named))?"),
    ("rules_without_owners", rf"{_LEAD}{_CODE}\s+(?:are|is|were|was)\s+(?:unowned|not\s+owned(?:\s+by\s+(?:anyone|anybody))?)"),
    # a file's code owner reviews it: "files nobody reviews", "which paths does no one review"
    ("rules_without_owners", rf"{_LEAD}{_CODE}{_REL}\s+(?:(?:do|does)\s+(?:nobody|no\s+one)\s+review|(?:nobody|no\s+one)\s+reviews)"),
    # "which paths are not covered by CODEOWNERS": no rule of the file gives the path an owner
    ("rules_without_owners", rf"{_LEAD}{_CODE}{_REL}\s+(?:are|is|were|was)\s+not\s+covered\s+(?:by|in)\s+(?:the\s+)?"
                             r"codeowners(?:\s+file)?"),
    ("undeclared_owners", rf"{_LEAD}{_OWNER_REF}{_REL}\s+{_LEADS_NOWHERE}"),
    ("undeclared_owners", rf"{_LEAD}{_OWNER_REF}{_REL}\s+(?:do|does)\s+not\s+(?:resolve|exist)(?:\s+anywhere|\s+{_RECORDS})?"),
    ("undeclared_owners", rf"{_LEAD}(?:undeclared|dangling|unresolved)\s+{_OWNER_REF}"),
    ("undeclared_owners", rf"{_LEAD}{_OWNER_REF}\s+(?:that\s+are\s+|which\s+are\s+)?not\s+declared(?:\s+anywhere)?"),
    ("undeclared_owners", rf"{_LEAD}{_OWNER_REF}{_REL}\s+{_NOT_THERE_BARE}"),
    ("undeclared_owners", rf"{_LEAD}{_OWNER_REF}{_REL}\s+(?:point|points|refer|refers)\s+(?:at|to)\s+{_GHOST}"),
    ("undeclared_owners", rf"{_LEAD}{_OWNER_REF}{_REL}\s+(?:are|is)\s+{_BROKEN}"),  # "which owner refs are broken"
    ("undeclared_owners", rf"{_LEAD}{_BROKEN}\s+{_OWNER_REF}"),  # "broken owner refs"
    ("groups_without_members", rf"{_LEAD}{_GROUPS}{_REL}\s+(?:have|has|had|with)\s+(?:no|zero|0)\s+members?"),
    ("groups_without_members", rf"{_LEAD}{_GROUPS}{_REL}\s+{_LACK}\s+(?:any\s+)?(?:members?|people|persons|users|folks)"),
    ("groups_without_members", rf"{_LEAD}{_GROUPS}\s+without\s+(?:any\s+)?members?"),
    ("groups_without_members", rf"{_LEAD}empty\s+{_GROUPS}"),
    ("groups_without_members", rf"{_LEAD}{_GROUPS}{_REL}\s+(?:nobody|no\s+one)\s+(?:is|was|are|were)\s+(?:on|in)"),
    # "teams with nobody on them", "groups with no one in it"
    ("groups_without_members", rf"{_LEAD}{_GROUPS}(?:{_REL}\s+(?:have|has|had)|\s+with)\s+(?:nobody|no\s+one|no\s+people|no\s+users)"
                               r"(?:\s+(?:on|in)\s+(?:it|them))?"),
    # "which teams are empty": a group holds its members
    ("groups_without_members", rf"{_LEAD}{_GROUPS}{_REL}\s+(?:are|is|were|was)\s+empty"),
    # the entities that name such an owner: "which resources are owned by a team that isn't in the catalog"
    ("owned_by_undeclared", rf"{_LEAD}{_T}(?:{_REL}\s+(?:are|is|were|was))?\s+(?:owned\s+by|assigned\s+to|attributed\s+to)\s+{_GHOST}"),
    ("owned_by_undeclared", rf"{_LEAD}{_T}{_REL}\s+(?:have|has|had|with|names?|lists?|declares?|gives?)\s+(?:an?\s+)?owners?\s+{_NOT_THERE}"),
    # the entity's owner reference said with its verb: "components whose owner ref points nowhere"
    ("owned_by_undeclared", rf"{_LEAD}{_T}\s+whose\s+{_OWNER_REF}\s+{_LEADS_NOWHERE}"),
    ("owned_by_undeclared", rf"{_LEAD}{_T}\s+whose\s+owners?\s+(?:(?:is|are)\s+(?:undeclared|unresolved)|{_NOT_THERE_BARE})"),
    # the entity names such an owner: "components that point at an owner that doesn't exist", "with a broken owner ref"
    ("owned_by_undeclared", rf"{_LEAD}{_T}{_REL}\s+(?:point|points|refer|refers)\s+(?:at|to)\s+{_GHOST}"),
    ("owned_by_undeclared", rf"{_LEAD}{_T}{_REL}\s+(?:have|has|had|with)\s+(?:an?\s+)?{_BROKEN}\s+{_OWNER_REF}"),
    ("owned_by_undeclared", rf"{_LEAD}{_T}\s+whose\s+{_OWNER_REF}\s+(?:is|are)\s+{_BROKEN}"),
    # a question about every member: "are all domains owned by a group that still exists", "does each API have an owner
    # that exists": those that are not; an entity of no owner is not either, so it is answered only where none is such
    ("owned_by_undeclared", rf"(?P<every>(?:is|are)\s+{_ALL}){_T}\s+owned\s+by\s+{_SOMEONE}\s+{_STILL_THERE}"),
    ("owned_by_undeclared", rf"(?P<every>(?:do|does)\s+{_ALL}){_T}\s+have\s+(?:an?\s+)?owners?\s+{_STILL_THERE}"),
    # without a type noun: "what's owned by a team that isn't in Backstage" (every type that names an owner)
    ("owned_by_undeclared", rf"(?:what(?:'s|\s+is|\s+are)|which\s+things\s+are|anything)\s+owned\s+by\s+{_GHOST}"),
)
_COMPILED: list[tuple[GapKind, re.Pattern[str]]] = []
# Which of the code nouns a CODEOWNERS ask said: the files (and paths, code) or the rules (entries, lines, patterns)
_FILE_WORD = re.compile(r"\b(?:files?|paths?|code)\b")
_RULE_WORD = re.compile(r"\b(?:rules?|entry|entries|lines?|patterns?|globs?)\b")


class GapRequest(NamedTuple):
    """A coverage ask: the report section, and the entity types asked about (empty: the section's own)."""

    kind: GapKind
    types: tuple[str, ...] = ()
    under: bool = False  # groups only: those under another group ("sub-teams")
    holders: tuple[str, ...] = ()  # the types of what holds such an entity ("which systems have a component with no owner")
    # CODEOWNERS only: the files were asked about ("unowned files", "paths nobody owns"), not the rules: the report's
    # files without a code owner answer (``chainret.pipeline.ownership.gap_rows``)
    files: bool = False
    # files only: the folder the files were asked under ("which files below billing/ lack a code owner"), as said,
    # without its slashes; the rows are the files below it, and a folder no file of the view is under reads as nothing
    folder: str = ""
    # a question about every member ("are all domains owned by a group that exists"): an entity that names no owner
    # fails it as well as one whose owner is declared nowhere; answered only where no entity of its types names none
    every: bool = False


def _plain(request: str) -> str:
    """A request as the coverage rules read it: ASCII marks, lower case, "n't" as " not", single spaces, no end
    punctuation (marks first: "don\u2019t" is "do not" too)."""
    text = apostrophes(ascii_marks(request)).lower().replace("n't", " not")
    text = re.sub(r"\b(what|which|who|that)'s\b", r"\1 is", text)  # ("what's unowned": the subject, then its copula)
    text = re.sub(r"\s+", " ", text).strip(" ?.!")
    text = without_fillers(_FILLER.sub("", text))
    return re.sub(r"\s+at\s+all$", "", text)


# Words that add nothing to a coverage ask: "actually", "currently", "rn" (right now), and where the things are kept
# said after the subject ("anything in the catalog with no owner").
_FILLER = re.compile(r"\s+(?:actually|really|currently|right\s+now|rn|at\s+the\s+moment|atm|even)\b(?!-)|"
                     r"(?<=[a-z])\s+(?:in|on)\s+(?:the\s+)?(?:catalog|backstage)(?=\s+(?:with|without|that|which|who|have|has|had|"
                     r"lack|lacks|lacking|missing|nobody|no\s+one|nothing)\b)")


def read_gap_request(request: str) -> GapRequest | None:
    """The coverage section (and types) ``request`` asks for, or None when it is no coverage ask, or when its words
    read as two sections (``unsure_gap``)."""
    text = _plain(request)
    readings = _readings(text)
    if len({r.kind for r in readings}) > 1:
        return None
    return readings[0] if readings else _coordinated(text) or _in_folder(text)


def unsure_gap(request: str) -> tuple[GapKind, ...]:
    """The sections ``request`` reads as where its words read as two ("resources whose owner isn't declared": no owner
    is declared, or the owner named is declared nowhere), else (). Said by its parts, the ask reads as one; as said,
    as another: neither is sure, so the ask is refused rather than answered by the reading tried first."""
    kinds = tuple(dict.fromkeys(r.kind for r in _readings(_plain(request))))
    return kinds if len(kinds) > 1 else ()


@lru_cache(maxsize=256)
def _readings(text: str) -> tuple[GapRequest, ...]:
    """The sections ``text`` (plain) reads as: by its parts, in the one wording of its meaning ("could you list the svcs
    missing an owner": ``chainret.query.lacks.reframe``), and as said. Kept for the text: ``unsure_gap`` and
    ``read_gap_request`` read the same words one after the other (the ask, and each half of a joined ask)."""
    said = [t for t in (reframe(text), text) if t is not None]
    if not any(w in t for t in said for w in ("own", "member", "empty", "declared", "nothing", "dangling", "orphan", "nobody",
                                              "no one", "no people", "no users", "people", "users", "exist")):
        return ()  # (most requests: nothing to compile or try)
    if not _COMPILED:
        _COMPILED.extend((kind, re.compile(rf"^{rule}$")) for kind, rule in _RULES)
    return tuple(found for t in said if (found := _gap_of(t)) is not None)


# A folder of the tree, said after a preposition: "under payments/", "in the /storefront/checkout folder", "inside
# docs". The place words (the catalog, CODEOWNERS itself) name no folder unless said with its slash ("in catalog/").
_FOLDER = re.compile(r"\s+(?:under|in|within|inside|below|beneath)\s+(?:the\s+)?(?P<dir>\.?/?[a-z0-9_.-]+(?:/[a-z0-9_.-]+)*/?)"
                     r"(?:\s+(?:folder|directory|dir|subtree|tree))?(?=\s|$)")
_NO_FOLDER = frozenset({"catalog", "catalogue", "backstage", "records", "codeowners", "repo", "repository", "it", "them",
                        "there", "here", "total", "all", "general", "particular", "view"})


def _in_folder(text: str) -> GapRequest | None:
    """A files ask said of one folder ("which files below billing/ lack a code owner", "unowned paths in the docs
    folder"): the ask without the folder read by the grammars above as the files section, the folder kept; None where
    no folder is said, the ask without it is no files ask, or two folders read (each said place could be it)."""
    found = []
    for m in _FOLDER.finditer(text):
        folder = m.group("dir").strip("/").removeprefix("./")
        if not folder or folder.startswith(".") or (folder in _NO_FOLDER and not m.group("dir").endswith("/")):
            # (a place word is a folder only said as one: "in catalog/")
            continue
        rest = f"{text[: m.start()]}{text[m.end():]}"
        gap = next((g for t in (reframe(rest), rest) if t is not None and (g := _gap_of(t)) is not None), None)
        if gap is not None and gap.files:
            found.append(gap._replace(folder=folder))
    return found[0] if len(found) == 1 else None


# Two type nouns joined: "the unowned resources and apis", "components or apis without an owner"
_AND = re.compile(r"^(?P<pre>(?:.*\s)?)(?P<a>[a-z]+)\s+(?:and|or|&|plus)\s+(?:the\s+)?(?P<b>[a-z]+)(?P<post>(?:\s.*)?)$")


def _coordinated(text: str) -> GapRequest | None:
    """A coverage ask of two type nouns joined by "and" / "or", read as the ask of each: one section of the types of
    both, where both read as the same section of entity types (nothing held, no sub-teams); else None."""
    m = _AND.match(text)
    if m is None:
        return None
    asks = [read_gap_request(f"{m.group('pre')}{m.group(k)}{m.group('post')}") for k in ("a", "b")]
    first, second = asks
    if first is None or second is None or first.kind != second.kind or not first.types or not second.types:
        return None
    if first.holders or second.holders or first.under or second.under or first.files or second.files:
        return None
    return GapRequest(first.kind, tuple(dict.fromkeys((*first.types, *second.types))))


def _gap_of(text: str) -> GapRequest | None:
    """The first coverage section ``text`` (plain) reads as, or None."""
    for kind, rule in _COMPILED:
        m = rule.match(text)
        if m is None:
            continue
        nouns = [("entity" if n == "entitie" else n) for n in ((m.groupdict().get(k) or "").removesuffix("s") for k in ("t", "u"))]
        under = (m.groupdict().get("g") or "").startswith(("sub", "child"))
        if m.groupdict().get("u"):  # "systems" hold "a component" of no owner
            return GapRequest(kind, _OWNED_TYPES.get(nouns[1], ()), under, _OWNED_TYPES.get(nouns[0], ()))
        files = kind == "rules_without_owners" and _FILE_WORD.search(text) is not None and _RULE_WORD.search(text) is None
        return GapRequest(kind, _OWNED_TYPES.get(nouns[0], ()), under, files=files, every=bool(m.groupdict().get("every")))
    return None


# -- "which T has no <relation>": any relation the catalog's phrasings name -------------------------------
class AbsenceRequest(NamedTuple):
    """A coverage ask about any relation: the type noun as said ("users"), and positive questions about one
    entity (``{x}``) that name the relation ("which team is {x} on"), read by the catalog's own phrasings."""

    noun: str
    positives: tuple[str, ...]
    # the type noun of what the entity lacks, as said ("components" of "which teams own no components"): only a
    # relation to an entity of the types it names counts (empty, or a noun that names no type: any relation does)
    objects: str = ""
    # the lacking noun names the relation itself ("which components have no team": the team of a component, its
    # owner): its type narrows the relation's range only by the noun's word, and is answered only where that changes
    # no row (``chainret.pipeline.ownership.absence_rows``)
    named_relation: bool = False


_ANY = r"(?:any|an?|some|a\s+single|one\s+single|even\s+one)"
_NOBODY = r"(?:nobody|no\s+one|nothing|no\s+(?P<u>[a-z]+))"
_PREP = r"(?P<prep>in|on|under|part\s+of|a\s+member\s+of|members\s+of|a\s+part\s+of)"
_N = r"(?P<t>[a-z]+)"
# "which components have no dependencies listed": the catalog lists what it holds, so the word adds nothing
_LISTED_WORDS = r"(?:listed|recorded|declared|given|stated|assigned|set|specified|defined)"
_LISTED = rf"(?:\s+{_LISTED_WORDS})?"
# The people a catalog holds, said without a type noun ("is anyone not on a team"): the noun they stand for, and
# the type words a catalog names its people by. Only here: as a type word everywhere, "person" read "manager of
# X" as "person of X" (a member).
_PEOPLE = {"anyone": "people", "anybody": "people", "someone": "people", "somebody": "people", "who": "people"}
PEOPLE_TYPE_WORDS = {"people": ("user", "person")}
_ABSENCE: tuple[tuple[str, tuple[str, ...]], ...] = (
    # "which users aren't on any team" -> which team is {x} on
    (rf"{_LEAD}{_N}\s+(?:are|is)\s+not\s+{_PREP}\s+{_ANY}\s+(?P<u>[a-z]+)", ("which {u} is {x} {prep}",)),
    # "is anyone not on a team" -> which team is {x} on, of the people
    (rf"(?:is|are)\s+(?:there\s+)?(?P<t>anyone|anybody|someone|somebody)\s+(?:who\s+is\s+)?not\s+{_PREP}\s+{_ANY}\s+"
     r"(?P<u>[a-z]+)", ("which {u} is {x} {prep}",)),
    # "who isn't on any team", "people not on a team" (no verb) -> which team is {x} on
    (rf"(?P<t>who)\s+(?:is|are|was|were)\s+not\s+{_PREP}\s+{_ANY}\s+(?P<u>[a-z]+)", ("which {u} is {x} {prep}",)),
    (rf"{_LEAD}{_N}\s+(?:(?:who|that|which)\s+(?:are|is)\s+)?not\s+{_PREP}\s+{_ANY}\s+(?P<u>[a-z]+)", ("which {u} is {x} {prep}",)),
    # "which apis does nobody consume" -> who consumes {x}
    (rf"{_LEAD}{_N}{_REL}\s+(?:do|does|did)\s+{_NOBODY}\s+(?P<v>[a-z]+)(?P<p>\s+(?:on|to|from|with))?",
     ("who {vs}{p} {x}", "what {vs}{p} {x}", "which {u} {vs}{p} {x}")),
    # the same without "does": "(any) APIs nobody uses", "components nothing depends on" (the verb said as it is)
    (rf"{_LEAD}{_N}{_REL}\s+{_NOBODY}\s+(?P<w>(?!is$|was$|has$)[a-z]+s)(?P<p>\s+(?:on|to|from|with))?",
     ("who {vs}{p} {x}", "what {vs}{p} {x}", "which {u} {vs}{p} {x}")),
    # "which components don't provide any API" -> which api does {x} provide
    (rf"{_LEAD}{_N}{_REL}\s+(?:do|does|did)\s+not\s+(?P<v>[a-z]+)(?P<p>\s+(?:on|to|from|with))?\s+{_ANY}\s+(?P<u>[a-z]+)",
     ("which {u} does {x} {v}{p}", "what {u} does {x} {v}{p}", "what does {x} {v}{p}")),
    # the progressive and the past: "APIs nobody is calling", "APIs no one used" -> who calls / uses {x}
    (rf"{_LEAD}{_N}{_REL}\s+{_NOBODY}\s+(?:is|are|was|were)\s+(?P<ing>[a-z]+ing)(?P<p>\s+(?:on|to|from|with))?",
     ("who {ivs}{p} {x}", "what {ivs}{p} {x}", "who {ivs2}{p} {x}", "what {ivs2}{p} {x}")),
    (rf"{_LEAD}{_N}{_REL}\s+{_NOBODY}\s+(?P<pp>[a-z]+ed)(?P<p>\s+(?:on|to|from|with))?",
     ("who {pvs}{p} {x}", "what {pvs}{p} {x}", "who {pvs2}{p} {x}", "what {pvs2}{p} {x}")),
    # "a system with nothing in it" -> what is in {x}
    (rf"{_LEAD}{_N}(?:{_REL}\s+(?:have|has)|\s+with)\s+nothing\s+(?P<prep>in|on|under)\s+(?:it|them)", ("what is {prep} {x}",)),
    # the passive: "which APIs aren't used by anything", "APIs not consumed by any component" -> who uses {x}
    (rf"{_LEAD}{_N}(?:{_REL}\s+(?:are|is|were|was))?\s+not\s+(?P<pp>[a-z]+ed)\s+by\s+(?:anything|anyone|anybody|any\s+[a-z]+|"
     r"an?\s+[a-z]+)", ("who {pvs} {x}", "what {pvs} {x}", "who {pvs2} {x}", "what {pvs2} {x}")),
    # the passive without its agent: "APIs that aren't consumed", "which resources are never used"
    (rf"{_LEAD}{_N}(?:{_REL}\s+)?\s*(?:are|is|were|was)\s+(?:not|never)(?:\s+(?:even|ever))?\s+(?P<pp>[a-z]+ed)",
     ("who {pvs} {x}", "what {pvs} {x}", "who {pvs2} {x}", "what {pvs2} {x}")),
    # "which resources have nothing depending on them" -> what depends on {x}
    (rf"{_LEAD}{_N}{_REL}\s+(?:have|has|with)\s+(?:nothing|nobody|no\s+one)\s+(?P<ing>[a-z]+ing)(?P<p>\s+(?:on|to|from|with))?\s+"
     r"(?:it|them)", ("who {ivs}{p} {x}", "what {ivs}{p} {x}", "who {ivs2}{p} {x}", "what {ivs2}{p} {x}")),
    # what a thing holds: "which systems contain no components" -> what is in {x}, of the components
    (rf"{_LEAD}{_N}{_REL}\s+(?:contain|contains|hold|holds|include|includes)\s+no\s+(?P<u>[a-z]+)", ("what is in {x}", "what is part of {x}")),
    # "which domains are empty" -> what is in {x} (a group's members are read by the report's own rule first)
    (rf"{_LEAD}{_N}{_REL}\s+(?:are|is|were|was)\s+empty", ("what is in {x}", "what is part of {x}")),
    # "are there any empty systems": the adjective before its noun (an empty team is read by the report's own rule first)
    (rf"{_LEAD}empty\s+{_N}", ("what is in {x}", "what is part of {x}")),
    # "unused APIs" -> who uses {x}
    (rf"{_LEAD}unused\s+{_N}", ("who uses {x}", "what uses {x}")),
    # "which teams own nothing", "components that depend on nothing" -> what does {x} own / depend on
    (rf"{_LEAD}{_N}{_REL}\s+(?P<v>(?!(?:have|has|had|are|is|were|was|do|does|did)\s)[a-z]+)(?P<p>\s+(?:on|to|from|with))?\s+nothing",
     ("what does {x} {vb}{p}",)),
    # "which teams own no components" -> which components does {x} own, of the components
    (rf"{_LEAD}{_N}{_REL}\s+(?P<v>(?!(?:have|has|had|are|is|were|was|with|do|does|did)\s)[a-z]+)\s+no\s+(?P<u>[a-z]+)",
     ("which {u} does {x} {vb}", "what {u} does {x} {vb}", "what does {x} {vb}")),
    # "which teams don't own anything (at all)" -> what does {x} own
    (rf"{_LEAD}{_N}{_REL}\s+(?:do|does|did)\s+not\s+(?P<v>[a-z]+)(?P<p>\s+(?:on|to|from|with))?\s+anything", ("what does {x} {v}{p}",)),
    # "which components have no dependencies", "systems without a domain" -> what is the domain of {x}
    (rf"{_LEAD}{_N}{_REL}\s+(?:have|has|with)\s+(?:no|zero|0)\s+(?P<u>[a-z]+(?:\s+(?!{_LISTED_WORDS}$)[a-z]+)?){_LISTED}", ("what is the {u} of {x}", "who is the {u} of {x}",
                                                                              "which {u} does {x} have")),
    (rf"{_LEAD}{_N}\s+without\s+(?:an?\s+|any\s+)?(?P<u>[a-z]+(?:\s+[a-z]+)?)", ("what is the {u} of {x}", "who is the {u} of {x}",
                                                                                "which {u} does {x} have")),
)
_ABSENCE_COMPILED: list[tuple[re.Pattern[str], tuple[str, ...]]] = []


def _base_form(verb: str) -> str:
    """"own" of "owns" or "own" (a type noun's number decides the verb's: "which team owns", "which teams own")."""
    from chainret.query.nested import _base

    return _base(verb) if verb else ""


def read_absence_request(request: str) -> AbsenceRequest | None:
    """"Which T <has no relation>" as the type noun and positive questions about one T, or None. Read only when
    ``read_gap_request`` reads nothing: the ownership report's own sections keep their rules."""
    text = _plain(request)
    if not _ABSENCE_COMPILED:
        _ABSENCE_COMPILED.extend((re.compile(rf"^{rule}$"), qs) for rule, qs in _ABSENCE)
    said = [t for t in (reframe(text), text) if t is not None]  # by its parts first (``read_gap_request``)
    return next((found for t in said if (found := _absence_of(t)) is not None), None)


def _absence_of(text: str) -> AbsenceRequest | None:
    """The absence ``text`` (plain) reads as, or None."""
    for rule, questions in _ABSENCE_COMPILED:
        m = rule.match(text)
        if m is None:
            continue
        g = {k: (v or "") for k, v in m.groupdict().items()}
        verb = g.get("v", "")
        # the verb in the third person ("consume" -> "consumes", or as said: "uses") and in its base form
        fill = {**g, "vs": g.get("w") or (third_person(verb) if verb else ""), "vb": _base_form(verb), "x": "{x}"}
        if g.get("prep") == "members of":  # "users that aren't members of a team": one user is a member of it
            fill["prep"] = "a member of"
        if g.get("pp"):  # a participle's verb in the third person, of either base form ("used": uses; "owned": owns)
            part = g["pp"]
            bases = (part[:-3] + "y", part[:-3] + "y") if part.endswith("ied") else (part[:-2], part[:-1])
            fill |= {"pvs": third_person(bases[0]), "pvs2": third_person(bases[1])}
        if g.get("ing"):  # "calling": calls; "using": uses (the stem, or the stem with its "e")
            stem = g["ing"][:-3]
            fill |= {"ivs": third_person(stem), "ivs2": third_person(stem + "e")}
        out = tuple(dict.fromkeys(q.format(**fill) for q in questions if all(g.get(k) for k in re.findall(r"{(\w+)}", q)
                                                                               if k not in ("x", "vs", "vb", "p", "pvs", "pvs2", "ivs", "ivs2"))))
        objects = g.get("u", "") if "{vs}" not in questions[0] else ""  # (what does it, not what it lacks)
        named = objects != "" and "{u} of {x}" in questions[0]
        return AbsenceRequest(_PEOPLE.get(g["t"], g["t"]), out, objects, named) if out else None
    return None


# "Ts that neither V1 nor V2 any N" (components, consume, provide, API): two absences of one type noun, both to hold
_NEITHER = re.compile(r"^(?P<lead>.+?)\s+(?:(?P<rel>that|which|who)\s+)?neither\s+(?P<a>[a-z]+)\s+nor\s+(?P<b>[a-z]+)\s+(?P<rest>.+)$")


# "Ts with neither an N1 nor an N2", "Ts that have neither N1 nor N2": two lacks of a held noun, each "with no N"
_NEITHER_HELD = re.compile(r"^(?P<lead>.+?)\s+(?:with|(?:(?:that|which|who)\s+)?(?:have|has))\s+neither\s+(?:an?\s+|any\s+)?"
                           r"(?P<a>[a-z]+)\s+nor\s+(?:an?\s+|any\s+)?(?P<b>[a-z]+)$")


def _neither_held(m: re.Match[str]) -> tuple[GapRequest | AbsenceRequest, GapRequest | AbsenceRequest] | None:
    """"components with neither a system nor an owner" as the two asks "components with no system", "... with no owner",
    each read by the grammars above; None where a half reads as nothing, or both as one."""
    first, second = (_one_ask(f"{m.group('lead')} with no {m.group(k)}") for k in ("a", "b"))
    return (first, second) if first is not None and second is not None and first != second else None


# "Ts that have no members and own nothing": two lacks of one subject joined by "and", both to hold (the lead as a
# contrast's: ``_BUT``)
_AND_LACKS = re.compile(r"^(?P<lead>(?:which|what)\s+[a-z-]+|.+?\s+(?:that|which|who)|(?:(?:are|is)\s+there\s+(?:any\s+)?)?"
                        r"[a-z-]+)\s+(?P<a>.+?)\s+and\s+(?:also\s+)?(?P<b>.+)$")


def read_neither_request(request: str) -> tuple[GapRequest | AbsenceRequest, GapRequest | AbsenceRequest] | None:
    """"Ts that neither V1 nor V2 any N" as the two absence asks it joins ("... that do not V1 any N",
    "... that do not V2 any N"), each read by ``read_absence_request`` and of the same type noun; or two lacks joined by
    "and" ("groups that have no members and own nothing"), each half read by the grammars above with the lead; else
    None. The rows are those of both (``chainret.pipeline.ownership.neither_trace``)."""
    text = _plain(request)
    if " neither " not in f" {text} ":
        return _both_lacks(text)
    held = _NEITHER_HELD.match(text)
    if held is not None:
        return _neither_held(held)
    m = _NEITHER.match(text)
    if m is None:
        return None
    rel = m.group("rel") or "that"
    asks = [read_absence_request(f"{m.group('lead')} {rel} do not {m.group(v)} {m.group('rest')}") for v in "ab"]
    first, second = asks
    if first is None or second is None or first.noun != second.noun or first == second:
        return None
    return first, second


def _both_lacks(text: str) -> tuple[GapRequest | AbsenceRequest, GapRequest | AbsenceRequest] | None:
    """Two lacks joined by "and" ("which teams have no members and own nothing"), each read with the lead as an ask of
    its own; None where a half reads as no lack (a presence or a name: "components with no owner and use X")."""
    m = _AND_LACKS.match(text) if " and " in text else None
    if m is None:
        return None
    first, second = _one_ask(f"{m.group('lead')} {m.group('a')}"), _one_ask(f"{m.group('lead')} {m.group('b')}")
    return (first, second) if first is not None and second is not None and first != second else None


# "Ts that V1 nothing but (still) V2 something" / "Ts that V2 things but V1 nothing" / "Ts with N2 but no N1": an absence and a
# presence of one type noun. The presence is read as the absence it denies ("own stuff": "do not own anything"; "have
# members": "have no members"), so both halves go through the closed grammars above, and the rows are those of the
# absence that are no rows of the denied one.
_BUT = re.compile(r"^(?P<lead>(?:which|what)\s+[a-z]+|.+?\s+(?:that|which|who)|(?:(?:are|is)\s+there\s+(?:any\s+)?)?[a-z]+)\s+"
                  r"(?P<a>.+?)\s+but\s+(?:still\s+|also\s+|(?:do|does)\s+(?!not\b))*(?P<b>.+)$")
_COPULA = re.compile(r"^(?:are|is|were|was)\s+")
# "teams with nobody on them that still own something": a clause of "still" says the contrast "but" says
_STILL = re.compile(r"\s+(?:(?:that|which|who|and|yet)\s+(?:do\s+|does\s+)?still|nonetheless|nevertheless|even\s+so)\s+")
_WITH_BUT = re.compile(r"^(?P<lead>.+?)\s+with\s+(?P<a>(?:an?\s+|some\s+)?[a-z]+)\s+but\s+(?:no|without(?:\s+any)?)\s+(?P<b>[a-z]+)$")
def _one_ask(text: str) -> GapRequest | AbsenceRequest | None:
    return None if unsure_gap(text) else read_gap_request(text) or read_absence_request(text)


class ContrastRequest(NamedTuple):
    """"Groups that own things but have no members": the absence asked for, and the absence the presence denies (its
    rows are left out)."""

    lacking: GapRequest | AbsenceRequest
    denied: GapRequest | AbsenceRequest


def read_contrast_request(request: str) -> ContrastRequest | None:
    """An absence and a presence of one type noun joined by *but* (either first), each half read by the grammars
    above (the presence as the absence it denies); None when the words are no such pair or a half reads as nothing."""
    text = _STILL.sub(" but still ", _plain(request))
    if " but " not in text:
        return _with_that(text)
    m = _BUT.match(text)
    if m is not None:
        lead, a, b = m.group("lead"), m.group("a"), m.group("b")
        be = _COPULA.match(a)
        if be is not None and _COPULA.match(b) is None and b.split()[0] in ("not", "never"):
            b = f"{be.group(0)}{b}"  # "are provided but never consumed": the second half's copula is the first's
        found = []
        for lacks, has in ((a, b), (b, a)):
            denied = denied_absence(has)
            if denied is None:
                continue
            first, second = _one_ask(f"{lead} {lacks}"), _one_ask(f"{lead} {denied}")
            if first is not None and second is not None and first != second and _one_ask(f"{lead} {has}") is None:
                found.append(ContrastRequest(first, second))
        return found[0] if len(found) == 1 else None
    m = _WITH_BUT.match(text)
    if m is None:
        return _with_that(text)
    has = re.sub(r"^(?:an?|some)\s+", "", m.group("a"))
    first, second = _one_ask(f"{m.group('lead')} with no {m.group('b')}"), _one_ask(f"{m.group('lead')} with no {has}")
    return ContrastRequest(first, second) if first is not None and second is not None and first != second else None


# "is there a team with people on it that owns nothing": the presence said as "with", the absence as a clause
_WITH_THAT = re.compile(r"^(?P<lead>.+?)\s+with\s+(?P<a>(?:an?\s+|some\s+)?[a-z]+)(?:\s+(?:on|in)\s+(?:it|them))?\s+"
                        r"(?P<rel>that|which|who)\s+(?P<b>.+)$")


def _with_that(text: str) -> ContrastRequest | None:
    """A presence said with "with" and an absence as a relative clause ("a team with people on it that owns nothing"):
    the absence's rows that are no rows of the absence the presence denies ("have no people"); None otherwise."""
    m = _WITH_THAT.match(text)
    if m is None:
        return None
    has = re.sub(r"^(?:an?|some)\s+", "", m.group("a"))
    denied = denied_absence(f"have {has}")
    if denied is None or _one_ask(f"{m.group('lead')} with {m.group('a')}") is not None:
        return None  # (no presence: "with no owner" is itself a lack)
    first, second = _one_ask(f"{m.group('lead')} {m.group('rel')} {m.group('b')}"), _one_ask(f"{m.group('lead')} {denied}")
    return ContrastRequest(first, second) if first is not None and second is not None and first != second else None


# -- a coverage ask over part of the catalog: "unowned components in system S", "which of T's APIs have no consumers" ----
# Words that put a coverage ask's type noun inside a set named by a relation: "the components in S", "the teams under
# G", "the sub-teams of G". The words after one, up to where the ask goes on, name the set's entity.
_WITHIN = frozenset({"in", "under", "within", "inside", "of", "from"})
# The words a lack of an owner ends in ("unowned", "nobody owns"): a place said after one is said of the whole ask
_OWNERLESS_ENDS = OWNERLESS_WORDS | {"own", "owns", "owned"}
# "which of G's APIs have no consumers": the set said as a possessive after "which of"
_WHICH_OF = re.compile(r"^(?P<lead>which|what)\s+of\s+(?P<x>.+?)'s\s+(?P<t>[a-z-]+)\s+(?P<rest>.+)$")


class ScopedRequest(NamedTuple):
    """A coverage ask said of part of the catalog: the ask without the scope (read by the grammars above), the scope
    as a noun phrase of the ask's own type noun ("components in S", "G's APIs": read by the interpreter), and that
    noun."""

    ask: GapRequest | AbsenceRequest
    scope: str
    noun: str


def read_scoped_request(request: str) -> list[ScopedRequest]:
    """Every way ``request`` splits into a coverage ask and a scope of its type noun ("unowned components in the plant
    system": "unowned components", and "components in the plant system"); the caller answers only where exactly one
    split reads (its scope as a set of the noun's types), so a split never picks between meanings. Empty when none."""
    text = _plain(request)
    toks = text.split()
    splits: list[tuple[str, str, str]] = []  # (ask, scope, noun)
    m = _WHICH_OF.match(text)
    if m is not None:
        splits.append((f"{m.group('lead')} {m.group('t')} {m.group('rest')}", f"{m.group('x')}'s {m.group('t')}", m.group("t")))
    for i, w in enumerate(toks):
        if w not in _WITHIN or i == 0 or toks[i - 1] in _WITHIN:
            continue
        for j in range(i + 2, len(toks) + 1):  # the scope's entity: the words after the preposition, up to j
            splits.append((" ".join([*toks[:i], *toks[j:]]), " ".join([toks[i - 1], w, *toks[i + 1 : j]]), toks[i - 1]))
            if toks[i - 1] in _OWNERLESS_ENDS:
                # "what's unowned in S", "is there anything nobody owns in S": the ask ends in its lack, of no object
                # noun the place could be said of ("APIs with no consumers in S" may be consumers in S: not read so),
                # so the scope is anything in S, of the ask's own types (``scope_members``)
                splits.append((" ".join([*toks[:i], *toks[j:]]), " ".join(["anything", w, *toks[i + 1 : j]]), "anything"))
    out = []
    for ask_text, scope, noun in splits:
        ask = _one_ask(ask_text)
        if ask is not None:
            out.append(ScopedRequest(ask, scope, noun))
    return out
