"""A coverage ask read by its parts: [lead] [subject noun phrase] [lack phrase] [tail].

"which of our services lack owners", "could you tell me whether any components are missing an owner", "does every team
have members", "svcs nobody owns rn", "are all people on a team": each part is read on its own, from a closed list of
its forms, and the ask is said again in the one wording per meaning that ``chainret.query.gaps``'s grammars read
("components have no owner", "teams have no members", "users are not on any team"). So a new lead, a new name for a
type or a new way of saying "has none" is one entry in one list, and every other part reads with it: the forms
compose, where a list of whole-sentence templates reads only the sentences someone wrote down.

A part of no listed form reads nothing (``reframe`` returns None and the request stays as it was), so a request that
says more than a coverage ask ("components with no owner that use X") is never read as one. The politeness and
filler words are those of the one list (``chainret.core.words.FILLERS``), the leading question frames those of
``chainret.query.understand.IGNORED_LEADING``; only the words a coverage ask adds are listed here.

Regular expressions rather than a parser library: the grammar is a few dozen closed word lists in a fixed order, and a
parser library would add a dependency and its import to every ask for nothing a regex cannot say. They are compiled
when a request first needs them, not when the module is imported (the cold ``chainret ask`` stays cheap).
"""

from __future__ import annotations

import re

from chainret.core.words import FILLERS
# -- the subject: the words people call a type by, and the noun the coverage grammars read it as ----------------------
# The type nouns, and the words people call a type by. An everyday word for a catalog word ("service", "svc",
# "interface", "squad") is read through chainret.query.frames.EVERYDAY_NOUNS, its one home, as the chain reading reads
# it. Words that name a kind of component (website, library, app: ``KIND_NOUNS``) are left out: "which websites have
# no owner" is not every component with none; where the records declare kinds, chainret.query.kinds reads the word
# as its type noun before this reader, and keeps the rows of that kind.
SUBJECT_NOUNS: dict[str, str] = {
    **{w: "components" for w in ("component", "components")},
    **{w: "apis" for w in ("api", "apis")},
    **{w: w if w.endswith("s") else w + "s" for w in ("resource", "resources", "system", "systems", "domain", "domains")},
    **{w: "entities" for w in ("entity", "entities")},
    **{w: "things" for w in ("thing", "things")},
    **{w: w for w in ("anything", "something", "stuff", "what")},
    # groups, by the words people call a team by
    **{w: "teams" for w in ("team", "teams")},
    **{w: "groups" for w in ("group", "groups")},
    **{w: "departments" for w in ("department", "departments")},
    **{w: "sub-teams" for w in ("sub-team", "sub-teams", "subteam", "subteams", "sub-group", "sub-groups", "subgroup",
                                "subgroups", "child-teams")},
    # people, by the words people call them by (the coverage grammars read "people" as the catalog's people types)
    **{w: "people" for w in ("people", "person", "persons", "user", "users", "engineer", "engineers", "folks", "folk",
                             "employee", "employees", "staff", "developer", "developers", "devs", "humans",
                             "individuals", "accounts")},
    **{w: "anyone" for w in ("anyone", "anybody", "someone", "somebody", "everyone", "everybody")},
    "who": "anyone",  # the question word as the subject: "who is on no team" (only a person's lack goes with it)
    # code: a CODEOWNERS rule and the files it covers; a folder is a rule's pattern ("/vendor/"), so folders with no
    # owner are the rules of none, and files with no owner the files (the coverage report's files without a code owner)
    **{w: "codeowners rules" for w in ("rule", "rules", "entry", "entries", "line", "lines", "pattern", "patterns",
                                       "glob", "globs", "folder", "folders", "directory", "directories", "dirs")},
    **{w: "files" for w in ("file", "files", "path", "paths", "code")},
}
# Two words for one subject noun: "staff members", "system components", "code ownership rules"
_COMPOUNDS: dict[str, str] = {
    "staff members": "people", "staff member": "people", "team members": "people", "team member": "people",
    "system components": "components", "system component": "components", "software components": "components",
    "software component": "components", "catalog entries": "entities", "catalog entry": "entities",
    "catalog entities": "entities", "catalog entity": "entities", "code ownership rules": "codeowners rules",
    "code ownership rule": "codeowners rules", "ownership rules": "codeowners rules", "ownership rule": "codeowners rules",
    "code paths": "files", "code path": "files", "child teams": "sub-teams", "child team": "sub-teams",
}
_GROUP_NOUNS = frozenset({"teams", "groups", "departments", "sub-teams"})
_PEOPLE_NOUNS = frozenset({"people", "anyone"})
_OWNED_NOUNS = frozenset({"components", "apis", "resources", "systems", "domains", "entities", "things", "anything",
                          "something", "stuff", "what"})
_CODE_NOUNS = frozenset({"codeowners rules", "files"})

# -- the lead: how an ask opens (after IGNORED_LEADING's frames: "please", "could you tell me", "i need", ...) --------
_LEADS = (r"(?:(?:can|could|would)\s+you\s+(?:please\s+)?(?:list|show|find|identify|name|check|tell\s+me|give\s+me|"
          r"pull\s+up|get\s+me)|please|list(?:\s+out)?|show|name|identify|enumerate|get|pull\s+up|check|"
          r"(?:a|the)\s+(?:full\s+|complete\s+)?list\s+of|"
          r"(?:let\s+me\s+know|tell\s+me|check|see)|whether|if|which|what|is\s+it\s+(?:the\s+case|true)\s+that|"
          r"(?:what|which)\s+are\s+(?:the|our)|(?:are|is)\s+there|do\s+we\s+have|have\s+we\s+got|do\s+you\s+have|"
          r"(?:are|is|were|was|do|does|did)(?=\s+(?:any|anything|something)\b))")
_LEAD = re.compile(rf"^{_LEADS}\s+")
# A question about every member of the subject ("does every team have members", "are all components owned"): its
# answer is the members for which it does not hold, so its positive phrase is read as the lack it denies.
_EVERY = re.compile(r"^(?:(?:do|does|did|have|has|are|is|were|was)\s+(?:every|each|all(?:\s+(?:of\s+)?(?:the|our))?)\s+|"
                    r"(?:is|are|was|were|do|does|did|has|have)\s+(?=everyone\b|everybody\b))")
_DET = r"(?:(?:all|every|each|any|some|the|our|an?|of\s+the|of\s+our)\s+)*"
# Where the records are kept, by any of their names ("in the catalogue", "in codeowners", "in the directory")
_PLACES = r"catalog|catalogue|backstage|records|codeowners(?:\s+file)?|directory|org\s+chart"
# -- the tail: where and when, said after the ask ("in the catalog", "at all", "yet"), besides the filler list ------
_TAIL = re.compile(rf"\s+(?:at\s+all|yet|anywhere|so\s+far|any\s?more|(?:in|on)\s+(?:the\s+|our\s+)?(?:{_PLACES}|org|company)|"
                   rf"(?:listed|registered)\s+(?:in|on)\s+(?:the\s+|our\s+)?(?:{_PLACES}))$")


# "has none of an owner", every form: the verb's, the preposition's, the adjective's, the passive, "nobody owns"
_AN = r"(?:an?\s+|any\s+|a\s+single\s+|one\s+|even\s+one\s+|at\s+least\s+one\s+|some\s+|its\s+|their\s+)?"
# an owner, with what says it is on record ("a designated owner", "an assigned owner"); a file's owner is its reviewer too
_OWNER = (r"(?:(?:designated|assigned|named|listed|recorded|declared|defined|specified|known|valid|responsible|clear)\s+)?"
          r"(?:owners?|owning\s+teams?|owner\s+teams?|team\s+owners?|owner\s+groups?|code\s*owners?|reviewers?|approvers?)")
_NOBODY = r"(?:nobody|no\s+one|no-one|noone|no\s+team|no\s+group|not\s+anyone|not\s+a\s+single\s+team)"
_ANYONE = rf"(?:anyone|anybody|any\s+team|a\s+team|any\s+group|a\s+group|someone|somebody|anything|(?:an?\s+|any\s+){_OWNER})"
_BE = r"(?:(?:are|is|were|was)\s+)?"
_STILL = r"(?:(?:still|currently)\s+)?"
_WHO = r"(?:(?:that|which|who)\s+)?"
_NO_OWNER_FORMS = (
    rf"(?:have|has|had|with)\s+(?:no|zero|0)\s+{_OWNER}(?:\s+(?:set|assigned|specified|defined|declared|listed|given|at\s+all))?",
    rf"(?:do|does|did)\s+not\s+have\s+{_AN}{_OWNER}(?:\s+(?:set|assigned|specified|listed))?",
    rf"(?:have|has)\s+not\s+got\s+{_AN}{_OWNER}",
    rf"{_BE}(?:without\s+{_AN}|w/o\s+{_AN}|with\s+no\s+){_OWNER}",
    rf"(?:for\s+which|whose)\s+(?:no\s+{_OWNER}|owners?\s+(?:is|are)\s+not)\s+(?:(?:is|are|was|has\s+been|have\s+been)\s+)?"
    r"(?:recorded|set|listed|declared|given|assigned|defined|specified|named|known)",
    rf"(?:name|names|list|lists)\s+no\s+{_OWNER}",
    rf"(?:do|does|did)\s+not\s+(?:name|list)\s+(?:anyone|anybody|{_AN}{_OWNER})",
    rf"(?:have|has|had)\s+not\s+been\s+(?:assigned|given)\s+{_AN}{_OWNER}",
    rf"{_BE}not\s+(?:assigned|given)\s+{_AN}{_OWNER}",
    r"(?:have|has|had|with)\s+(?:nobody|no\s+one|no\s+team)\s+(?:assigned|listed|named|responsible)",
    rf"(?:lack|lacks|lacked|lacking|(?:are|is|were|was)\s+(?:lacking|missing)|missing)\s+{_AN}{_OWNER}",
    r"(?:do|does|did)\s+not\s+have\s+(?:anyone|anybody|a\s+team|any\s+team|someone)\s+owning\s+(?:it|them)",
    r"(?:have|has|with)\s+(?:nobody|no\s+one|no\s+team)\s+owning\s+(?:it|them)",
    rf"{_NOBODY}\s+(?:owns|own|owned|is\s+owning|has\s+claimed|claims|has)",
    rf"(?:do|does|did)\s+{_NOBODY}\s+own",
    rf"{_BE}(?:not|never)\s+(?:owned|claimed|covered)(?:\s+by\s+{_ANYONE})?",
    rf"{_BE}(?:owned|claimed)\s+by\s+(?:nobody|no\s+one|no\s+team|no\s+group)",
    rf"{_BE}(?:unowned|ownerless|orphaned|orphans|unclaimed|unassigned)",
    rf"{_BE}not\s+(?:assigned|attributed)\s+to\s+(?:any|an?)\s+(?:teams?|owners?|groups?)",
    rf"{_BE}(?:assigned|attributed)\s+to\s+no\s+(?:teams?|owners?|groups?)",
    r"(?:do|does|did)\s+not\s+belong\s+to\s+(?:any|an?)\s+(?:teams?|owners?|groups?)(?:\s+(?:at\s+all))?",
    r"belongs?\s+to\s+no\s+(?:teams?|groups?|owners?)",
)
# "has no members", every form (said of a group)
_MEMBER = r"(?:members?|people|persons|users|folks|engineers|one|body|humans|staff)"
_ON = r"(?:\s+(?:on|in)\s+(?:it|them))?"
_NO_MEMBERS_FORMS = (
    rf"(?:have|has|had|with)\s+(?:no|zero|0)\s+{_MEMBER}(?:\s+(?:listed|assigned|at\s+all))?{_ON}",
    rf"(?:have|has|had|with)\s+(?:nobody|no\s+one|no-one|noone){_ON}",
    rf"(?:do|does|did)\s+not\s+have\s+{_AN}(?:members?|people|persons|users|folks|engineers|person|user|engineer){_ON}",
    rf"(?:do|does|did)\s+not\s+have\s+(?:anyone|anybody|someone|somebody){_ON}",
    rf"{_BE}without\s+{_AN}(?:members?|people|persons|users|folks|engineers|person|user|engineer|anyone|anybody){_ON}",
    rf"(?:lack|lacks|lacking|are\s+lacking|is\s+lacking|missing|are\s+missing|is\s+missing)\s+{_AN}(?:members?|people|users)",
    r"(?:nobody|no\s+one|no-one|noone)\s+(?:is|are|was|were)\s+(?:on|in|part\s+of|a\s+member\s+of)",
    r"(?:nobody|no\s+one|no-one|noone)\s+(?:belongs|belong|works)\s+(?:to|on|in)",
    r"(?:do|does|did)\s+(?:nobody|no\s+one)\s+(?:belong\s+to|work\s+(?:on|in))",
    rf"{_BE}(?:empty|unstaffed|unpopulated)",
)
# "is on no team", every form (said of a person)
_TEAM = r"(?:teams?|groups?|squads?)"
_NO_TEAM_FORMS = (
    rf"{_BE}not\s+(?:on|in|part\s+of|a\s+part\s+of|a\s+member\s+of|members\s+of|assigned\s+to|placed\s+on)\s+{_AN}{_TEAM}",
    rf"{_BE}(?:on|in|part\s+of|a\s+member\s+of|members\s+of|assigned\s+to)\s+no\s+{_TEAM}",
    rf"(?:do|does|did)\s+not\s+(?:belong\s+to|have)\s+{_AN}{_TEAM}",
    rf"(?:have|has|had|with)\s+(?:no|zero|0)\s+{_TEAM}",
    rf"belongs?\s+to\s+no\s+{_TEAM}",
    rf"{_BE}without\s+{_AN}{_TEAM}",
    rf"{_BE}(?:teamless|unassigned)",
    rf"(?:have|has|had)\s+not\s+been\s+(?:placed|put|added|assigned)\s+(?:on|in|to)\s+{_AN}{_TEAM}",
    rf"{_BE}not\s+(?:placed|put|added)\s+(?:on|in|to)\s+{_AN}{_TEAM}",
)
_MEANINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("owner", _NO_OWNER_FORMS), ("members", _NO_MEMBERS_FORMS), ("team", _NO_TEAM_FORMS))
# The adjective before its noun: "unowned services", "empty squads", "teamless engineers"
_ADJECTIVES = {"unowned": "owner", "ownerless": "owner", "orphaned": "owner", "orphan": "owner", "unclaimed": "owner",
               "empty": "members", "unstaffed": "members", "teamless": "team", "unassigned": "owner"}
# The adjectives of a lack of an owner ("unowned", "orphaned"), as a place said after one is read
OWNERLESS_WORDS = frozenset(w for w, meaning in _ADJECTIVES.items() if meaning == "owner")
# The positive phrase a question about every member asks ("does every team have members"), and the lack it denies
_HAS_FORMS: tuple[tuple[str, str], ...] = (
    ("owner", rf"(?:have|has|got)\s+(?:an?\s+|at\s+least\s+one\s+|some\s+)?{_OWNER}(?:\s+(?:set|assigned|listed))?"),
    ("owner", r"(?:are|is)?\s*(?:owned|claimed)(?:\s+by\s+(?:someone|somebody|a\s+team|some\s+team|a\s+group))?"),
    ("owner", r"(?:have|has)\s+(?:someone|somebody|a\s+team)\s+owning\s+(?:it|them)"),
    ("owner", rf"(?:list|lists|name|names)\s+(?:an?\s+|at\s+least\s+one\s+|some\s+){_OWNER}"),
    ("members", r"(?:are|is)?\s*(?:staffed|populated)"),
    ("members", rf"(?:have|has|got)\s+{_AN}(?:members?|people|persons?|users?|folks|engineers?|"
                rf"someone|somebody|anyone){_ON}"),
    ("team", rf"(?:are|is)?\s*(?:on|in|part\s+of|a\s+member\s+of|members\s+of|assigned\s+to)\s+(?:an?|some|at\s+least\s+one)\s+{_TEAM}"),
    ("team", rf"(?:have|has|belong\s+to|belongs\s+to)\s+(?:an?|some|at\s+least\s+one)\s+{_TEAM}"),
)
_COMPILED: dict[str, re.Pattern[str]] = {}


def _rule(name: str, pattern: str) -> re.Pattern[str]:
    if name not in _COMPILED:
        _COMPILED[name] = re.compile(pattern)
    return _COMPILED[name]


def _meanings(lack: str) -> set[str]:
    """Every meaning of ``lack`` (the words after the subject): "are not assigned to any team" is a component's
    owner and a person's team; the subject decides."""
    return {meaning for meaning, forms in _MEANINGS
            if _rule(meaning, rf"^{_STILL}{_WHO}{_STILL}(?:{'|'.join(forms)})$").match(lack)}


def _positives(phrase: str) -> set[str]:
    """Every lack a positive phrase denies ("have an owner": owner)."""
    return {m for m, form in _HAS_FORMS if _rule(f"has:{form}", rf"^(?:{form})$").match(phrase)}


def _strip(text: str) -> str:
    """``text`` without the leading frames and the filler and tail words (each list's one home)."""
    from chainret.query.understand import IGNORED_LEADING

    words = text.split()
    changed = True
    while changed and words:
        changed = False
        for ph in IGNORED_LEADING:  # (longest first)
            if tuple(words[: len(ph)]) == ph and len(words) > len(ph):
                words, changed = words[len(ph):], True
                break
        shorter = _without_a_filler(words)  # at either end: "please list ...", "... right now thanks"
        if shorter is not None:
            words, changed = shorter, True
        tail = _rule("tail", _TAIL.pattern).search(" ".join(words))
        if tail is not None and tail.start() > 0:
            words, changed = " ".join(words)[: tail.start()].split(), True
    return " ".join(words)


def _without_a_filler(words: list[str]) -> list[str] | None:
    """``words`` without one filler phrase (``FILLERS``) at either end, or None where neither end is one (the last word
    is kept)."""
    for ph in FILLERS:
        if tuple(words[-len(ph):]) == ph and len(words) > len(ph):
            return words[: -len(ph)]
        if tuple(words[: len(ph)]) == ph and len(words) > len(ph):
            return words[len(ph):]
    return None


def without_fillers(text: str) -> str:
    """``text`` without the filler phrases at its ends ("broken owner refs today": "today" is the current
    view anyway), read by every coverage grammar so that a filler reads alike wherever a coverage ask is read."""
    words = text.split()
    while (shorter := _without_a_filler(words)) is not None:
        words = shorter
    return " ".join(words)


def _subject(text: str) -> tuple[str, str] | None:
    """The subject noun (as the coverage grammars read it) and the words after it, or None."""
    adjectives = "|".join(_ADJECTIVES)
    compounds = "|".join(w.replace(" ", r"\s+") for w in _COMPOUNDS)
    m = _rule("subject", rf"^{_DET}(?:(?P<adj>{adjectives})\s+)?(?P<noun>codeowners\s+(?:rules?|entries|entry|lines?|files?|paths?)|"
                          rf"{compounds}|[a-z][a-z-]*)(?P<rest>(?:\s+.*)?)$").match(text)
    if m is None:
        return None
    noun = re.sub(r"\s+", " ", m.group("noun"))
    said = ("codeowners rules" if noun.startswith("codeowners") and not noun.endswith(("files", "file", "paths", "path"))
            else "files" if noun.startswith("codeowners") else _COMPOUNDS.get(noun) or _subject_noun(noun))
    adj = m.group("adj") or ""
    if said is None:
        return None
    rest = m.group("rest").strip()
    rest = _rule("where", rf"^(?:(?:in|on)\s+(?:the\s+|our\s+)?(?:{_PLACES})\s+|there\s+)").sub("", rest)
    return said, f"{_ADJECTIVES[adj]} {rest}".strip() if adj else rest


def _subject_noun(word: str) -> str | None:
    """The subject noun a word says: a type noun's own, or the one an everyday word stands for (``EVERYDAY_NOUNS``)."""
    from chainret.query.frames import EVERYDAY_NOUNS

    if word in SUBJECT_NOUNS:
        return SUBJECT_NOUNS[word]
    targets = EVERYDAY_NOUNS.get(word, ())
    return SUBJECT_NOUNS.get(targets[0]) if len(targets) == 1 else _misspelt(word)


MISSPELT_MIN_LETTERS = 7  # a shorter word one letter from a type noun is as often another word ("terms": teams)


def _misspelt(word: str) -> str | None:
    """The subject noun a long word one letter edit from one of its spellings stands for ("compnents": components),
    where every spelling that near says the same noun; None otherwise (the names' own typo rule,
    ``chainret.query.understand.osa_distance``, with the tightest bound: a subject noun is a closed list)."""
    from chainret.query.understand import osa_distance

    if len(word) < MISSPELT_MIN_LETTERS or not word.isalpha():
        return None
    said = {SUBJECT_NOUNS[w] for w in SUBJECT_NOUNS if len(w) >= MISSPELT_MIN_LETTERS and osa_distance(word, w, 1) <= 1}
    return said.pop() if len(said) == 1 else None


def reframe(text: str) -> str | None:
    """``text`` (a request as ``chainret.query.gaps`` plains it) said again in the one wording per meaning the coverage
    grammars read ("could you tell me which svcs are missing an owner": "components have no owner"), or None when a
    part is of no listed form, the lack is of no listed meaning, or the meaning does not go with the subject (a
    person's team said of a component). A lack of another relation ("APIs no component calls") is no meaning listed here:
    the relation grammar of ``chainret.query.gaps`` reads it with the subject said as its noun."""
    text = _strip(re.sub(r"[,;!?]+(?=\s|$)", " ", text))
    text = re.sub(r"\s+", " ", text).strip()
    every = False
    while not every:
        if (m := _rule("every", _EVERY.pattern).match(text)) is not None:  # "does every team have members"
            text, every = text[m.end():], True
        elif (m := _rule("lead", _LEAD.pattern).match(text)) is not None:
            text = text[m.end():]
        else:
            break
    text = _strip(text)
    # "each interface is used by a component", "every team has members": the quantifier said as the determiner; read
    # so only where its positive reads (else "list all components without an owner" is a list of them all)
    each = None if every else _rule("each", r"^(?:every|each|all(?:\s+(?:of\s+)?(?:the|our))?)\s+(?=(?:(?!that\s|which\s|who\s)\S+\s+){1,3}(?:is|are|has|have)\b)").match(text)
    if each is not None and (said := _reframed(text[each.end():], True)) is not None:
        return said
    return _reframed(text, every)


def _reframed(text: str, every: bool) -> str | None:
    """``reframe`` of the words from the subject on; ``every``: a question about every member of the subject."""
    parts = _subject(text)
    if parts is None:
        return None
    noun, rest = parts
    if noun not in _CODE_NOUNS and _rule("code-owner", r"\b(?:reviewers?|approvers?|code\s*owners?)\b").search(rest):
        return None  # (a reviewer is a file's owner, no component's)
    meanings = _positives(rest) if every else {rest} if rest in _ADJECTIVES.values() else _meanings(rest)
    # (the adjective alone, "unowned services", "empty squads", is its meaning)
    said = {f"{noun} have no owner" for m in meanings if m == "owner" and noun in _OWNED_NOUNS | _CODE_NOUNS}
    said |= {f"{noun} have no members" for m in meanings if m == "members" and noun in _GROUP_NOUNS}
    said |= {"people not on any team" for m in meanings if m == "team" and noun in _PEOPLE_NOUNS}
    if said or meanings:
        return said.pop() if len(said) == 1 else None
    if text.split(maxsplit=1)[0] == "who":
        return None  # ("who owns nothing" may ask for teams as well as people: the question word names no one type)
    # a lack of another relation: the subject said as its noun, the lack in the form the relation grammar reads
    rest = _rule("who", r"^(?:that|which|who)\s+").sub("", rest)
    if noun in _CODE_NOUNS or not rest:
        return None
    if every:  # "does every component provide an API", "is each API used by a component": those that do not
        if rest.split()[0] in ("with", "without", "w/o", "lacking", "missing", "no", "not", "nobody", "nothing"):
            return None  # (a lack, not the positive a question about every member asks)
        m = _rule("passive", r"^(?:(?:is|are)\s+)?(?P<pp>[a-z]+ed)\s+by\s+(?:an?|some|any|at\s+least\s+one)\s+(?P<u>[a-z]+)$").match(rest)
        be = rest.split()[0] in ("is", "are", "was", "were")  # (a copula's positive is read by the passive alone)
        lack = f"are not {m.group('pp')} by any {m.group('u')}" if m is not None else None if be else denied_absence(rest)
        return f"{noun} that {lack}" if lack is not None else None
    for form, lack in _RELATION_FORMS:
        m = _rule(f"rel:{form}", form).match(rest)
        if m is not None:
            rest = lack.format(**m.groupdict())
            break
    held = _rule("held", r"^have\s+no\s+(?P<u>[a-z]+)$").match(rest)
    if noun in _GROUP_NOUNS and held is not None and _subject_noun(held.group("u")) in _OWNED_NOUNS:
        from chainret.query.nested import _POSSESSING  # a team has what it owns, as "the team's components" says

        return f"{noun} that {_POSSESSING} no {held.group('u')}"
    if m is not None:
        return f"{noun} that {rest}"
    if (verb := _everyday_lack(rest)) is not None:
        return f"{noun} that {verb}"
    return f"{noun} that {rest}"


def _everyday_lack(rest: str) -> str | None:
    """An everyday phrase for a verb said with its lack ("are responsible for nothing", "are not in charge of anything",
    "look after nothing") as the one catalog verb it stands for (``chainret.query.frames.EVERYDAY_PHRASES``, its
    home), in the form the relation grammar reads ("own nothing")."""
    from chainret.query.frames import EVERYDAY_PHRASES

    for phrases, verbs in EVERYDAY_PHRASES.items():
        if len(verbs) != 1:
            continue
        for phrase in phrases:
            bare = re.sub(r"^(?:is|are)\s+", "", phrase)  # "is responsible for": "responsible for", said after a copula
            said = r"\s+".join(re.escape(w) for w in bare.split())
            be = r"(?:are|is|were|was)\s+" if bare != phrase else None
            if re.fullmatch(rf"(?:{be})?{said}\s+nothing" if be else rf"{said}\s+nothing", rest):
                return f"{verbs[0]} nothing"
            if re.fullmatch(rf"(?:(?:do|does|did)\s+|{be})not\s+{said}\s+anything" if be else
                            rf"(?:do|does|did)\s+not\s+{said}\s+anything", rest):
                return f"do not {verbs[0]} anything"
    return None


# A lack of another relation said in a form the relation grammar (``chainret.query.gaps``) reads another way: the
# agent said as "nobody" ("consumed by nobody"), the preposition's "no" ("in no system"), "zero", "not ... a single".
_RELATION_FORMS: tuple[tuple[str, str], ...] = (
    (r"^(?:are|is|were|was)\s+(?P<pp>[a-z]+ed)\s+by\s+(?:nobody|no\s+one|nothing|no\s+[a-z]+)$", "are not {pp} by anything"),
    (r"^(?:are|is|were|was)\s+(?P<prep>in|on|under|part\s+of)\s+no\s+(?P<u>[a-z]+)$", "are not {prep} any {u}"),
    (r"^(?:have|has|had|with)\s+(?:zero|0)\s+(?P<u>[a-z]+)$", "have no {u}"),
    (r"^(?:are|is|were|was)\s+(?:unused|not\s+used)$", "are not used by anything"),
    # the preposition fronted: "on which no component depends"
    (r"^(?P<p>on|to|from|with)\s+which\s+(?P<who>nobody|no\s+one|nothing|no\s+[a-z]+)\s+(?P<v>[a-z]+)$", "{who} {v} {p}"),
    (r"^(?:contain|contains|hold|holds|include|includes)\s+nothing$", "have nothing in them"),
    (r"^(?:have|has)\s+not\s+got\s+(?:any|a\s+single|an?)\s+(?P<u>[a-z]+)$", "have no {u}"),
    # the question's order: "which APIs is nobody calling"
    (r"^(?:is|are|was|were)\s+(?P<who>nobody|no\s+one|nothing)\s+(?P<ing>[a-z]+ing)(?P<p>(?:\s+(?:on|to|from|with))?)$",
     "{who} is {ing}{p}"),
    (r"^(?:do|does|did)\s+not\s+have\s+(?:any|a\s+single|an?)\s+(?P<u>[a-z]+)$", "have no {u}"),
)


# a presence: "own stuff", "have members", "own a component", "call some APIs" -> the absence it denies
_SOME = r"(?:stuff|something|things|anything|some\s+stuff|some\s+things)"
_PRESENCE: tuple[tuple[re.Pattern[str], str], ...] = (
    # the passive: "are provided", "is consumed by something" -> "are not provided by anything"
    (re.compile(rf"^(?:are|is|were|was)\s+(?P<pp>[a-z]+ed)(?:\s+by\s+(?:{_SOME}|someone|somebody|an?\s+[a-z]+|some\s+[a-z]+))?$"),
     "are not {pp} by anything"),
    (re.compile(rf"^(?P<v>(?!(?:are|is|were|was|do|does|did)$)[a-z]+)(?P<p>\s+(?:on|to|from|with))?\s+{_SOME}$"),
     "do not {v}{p} anything"),
    (re.compile(rf"^(?:have|has|had)\s+{_AN}(?P<u>[a-z]+)$"), "have no {u}"),
    (re.compile(r"^(?P<v>(?!(?:are|is|were|was|do|does|did|have|has|had)$)[a-z]+)(?P<p>\s+(?:on|to|from|with))?\s+"
                r"(?:an?\s+|some\s+|any\s+)?(?P<u>[a-z]+)$"), "do not {v}{p} any {u}"),
)


def denied_absence(presence: str) -> str | None:
    """The absence a presence clause denies ("own stuff": "do not own anything"), or None when it is no presence
    (said here, where a question about every member is read, and by ``chainret.query.gaps``'s contrasts)."""
    from chainret.query.nested import _base  # (the base form of the verb: "owns" -> "own")

    for rule, absence in _PRESENCE:
        m = rule.match(presence)
        if m is not None:
            g = {k: (v or "") for k, v in m.groupdict().items()}
            if g.get("v"):
                g["v"] = _base(g["v"])
            return absence.format(**g)
    return None
