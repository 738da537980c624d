"""A request said in everyday sentence frames, reworded into the question it stands for.

People ask "who do I page about X?", "someone to call about X?", "I need whoever is on call for X",
"who is on call for whichever team owns X", "find the team that owns X, then who is on call for that team",
"which team runs X", "which components use X", "who can approve a PR that touches P". None of these is a phrasing,
but each stands for one: "who is on call for X", "who is the contact for X", "who is on call for the team that owns
X", "which team owns X", "which components consume X", "who are the code owners of P". ``reworded(request, vocab)`` returns those questions; ``chainret.query.interpret``
reads each with the whole interpreter and answers only when every question that reads agrees on one chain and
one start entity (two that differ: ``ambiguous_reading``), so a rewording never picks between meanings.

Closed lists, each rule for one frame, and every rewrite still has to be read word for word by the
catalog's phrasings and relation words: a frame whose relation the catalog does not have (no contact, no
on-call) reads as nothing and the request stays refused. Everyday verbs and nouns (``run``, ``use``,
``squad``) stand for a catalog word only where the catalog has exactly one of the words listed for them and
not the everyday word itself: "runs" is "operates" where a catalog has operators and no owners, "owns"
where it has owners and no operators, and nothing where it has both (the request stays refused). A
grammar of frames rather than a parser, for the reason ``chainret.query.nested`` gives: no model on the
ask path, and nothing read that the lists do not name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from chainret.core.words import apostrophes, ascii_marks, ing_stems, third_person
from chainret.query.nested import _STRANDED, INNER_MAX, _singular, inner_questions, without_trailing_fillers

# -- sentence frames ---------------------------------------------------------------------------------------
# Verbs of getting in touch: "who do I <verb> about X" asks for X's contact.
_REACH = (
    "get in touch with", "get hold of", "get through to", "get through", "reach out to", "talk to", "talk with",
    "speak to", "speak with", "call up", "ring up", "contact", "reach", "call", "phone", "telephone", "ring",
    "email", "e-mail", "message", "ask",
    # workplace slang for getting someone's attention about a thing: "who do I bug / ping about X"
    "bug", "ping", "pester", "nag",
)
# Verbs of paging: "who do I page about X" asks who is on call for X; an on-call engineer's words for it: "who do I wake
# up", "who do I escalate to".
_PAGE = ("page", "wake up", "wake", "escalate to")
# The nouns of being on call said as a topic ("pager for X - which team", "escalation for X: who's on call"): a request
# that says one of them before its thing asks who is on call for it (``chainret.query.discourse``).
ON_CALL_TOPIC = r"^(?:the\s+)?(?:pager|paging|escalations?|on[\s-]?call|oncall)\s+(?:for|of|on|about)\s+"
# The words of being on call. A catalog that has one of them says who is on call (its relation answers); one that has none
# reads "who is on call for X" as X's team's people (``fallback_reworded``). Either way such a word is never read by
# meaning as another relation's word (``chainret.query.synonyms``): "the on-call rotation for search" asks for a rota,
# which the records do not hold, not for what the search team owns.
ON_CALL_WORDS = frozenset({"call", "oncall", "on-call", "paged", "pager", "paging", "rota", "rotation", "rotations",
                           "escalation", "escalations", "shift", "shifts"})
_ABOUT = r"(?:about|regarding|concerning|re|for|on|with)"
_ASKER = r"(?:who|whom)\s+(?:do|should|can|could|must|would|shall)\s+(?:i|we)"
_WANTED = r"(?:someone|somebody|anyone|anybody|who|whom|the\s+person|the\s+one)\s+to"
_MODAL = r"(?:should|must|will|would|can|could|shall)"
# Who reviews a change: "who reviews", "who needs to review", "who can approve"; the change itself, and a clause
# that says what it changes ("a PR that touches P").
_REVIEWER = (rf"(?:(?:who|which\s+(?:code\s*owners?|reviewers?|approvers?))\s+(?:(?:needs?|has|have|ought)\s+to\s+|{_MODAL}\s+)?|"
             rf"{_ASKER}\s+(?:ask|get|need)\s+to\s+)"
             r"(?:reviews?|approves?|signs?\s+off(?:\s+on)?)")  # "who do I ask to review P": the reviewer asked for
_CHANGE = r"(?:changes?|edits?|prs?|pull\s+requests?|commits?|diffs?)"
_TOUCHING = r"(?:that|which)\s+(?:touch(?:es)?|changes?|modif(?:y|ies)|edits?|affects?)"
# One word written as a path: a slash in it, or a file's extension ("README.md"), never a name of words.
_PATH = r"[\w.-]*/[\w./*-]*|[\w-]+\.[a-z0-9]+"
# An instruction to list all of a thing's: "list everything", "show me all the stuff".
_EVERYTHING = (r"(?:(?:list|show|name|give)\s+(?:me\s+)?)?(?:everything|all\s+(?:of\s+)?(?:the\s+)?(?:things|stuff|"
               r"entities))")
# How many frames one question may be said through, one inside the next ("sit within" -> "are within" -> "are under")
FRAMES_CHAINED = 3
# The verbs the frames above read, in their forms: a past tense the time words call for ("who reviewed P in
# August") is put in the present when these are (``chainret.query.interpret.interpret_at``).
FRAME_VERBS = frozenset({"review", "reviews", "approve", "approves", "sign", "signs"})


def _alts(phrases: Iterable[str]) -> str:
    return "(?:" + "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in sorted(phrases, key=len, reverse=True)) + ")"


# (pattern over the whole lower-cased request, the question it stands for with {x} for the rest)
_FRAMES: tuple[tuple[str, str], ...] = (
    # a review asked for as a noun: "who do I ask for a review on P", "who should I get a code review from for P" (before
    # the reach frames: asking for a review is no contact asked about it)
    (rf"{_ASKER}\s+(?:ask|get|need|request)\s+(?:for\s+)?(?:a\s+|the\s+)?(?:code\s+)?reviews?\s+(?:from\s+)?(?:on|of|for)\s+(?P<x>.+)",
     "who reviews {x}"),
    (rf"{_ASKER}\s+{_alts(_REACH)}\s+{_ABOUT}\s+(?P<x>.+)", "who is the contact for {x}"),
    (rf"{_WANTED}\s+{_alts(_REACH)}\s+{_ABOUT}\s+(?P<x>.+)", "who is the contact for {x}"),
    (rf"{_ASKER}\s+{_alts(_PAGE)}\s+{_ABOUT}\s+(?P<x>.+)", "who is on call for {x}"),
    (rf"{_WANTED}\s+{_alts(_PAGE)}\s+{_ABOUT}\s+(?P<x>.+)", "who is on call for {x}"),
    (rf"who\s+(?:gets|is|would\s+be|will\s+be)\s+paged\s+{_ABOUT}\s+(?P<x>.+)", "who is on call for {x}"),
    (rf"who\s+(?:has|carries|holds|is\s+carrying|is\s+holding)\s+the\s+pager\s+{_ABOUT}\s+(?P<x>.+)",
     "who is on call for {x}"),
    # "escalate to whom for X": the person an incident about X goes to
    (rf"(?:escalate|escalation)\s+to\s+(?:whom|who)\s+{_ABOUT}\s+(?P<x>.+)", "who is on call for {x}"),
    (rf"how\s+(?:do|can|should|would)\s+(?:i|we)\s+{_alts(_REACH)}\s+(?P<x>the\s+.+)", "who is {x}"),
    (r"whose\s+(?:is|are)\s+(?P<x>.+)", "who owns {x}"),
    # "which teams does alice belong to": a membership (a system's parts have their own phrasing, read before this)
    (r"(?P<x>(?:which|what)\s+[a-z]+\s+(?:does|do)\s+.+?)\s+belong\s+to", "{x} is in"),
    (r"who\s+(?:works|is\s+working)\s+(?P<x>(?:in|on)\s+.+)", "who is {x}"),
    (r"who\s+(?:are|is)\s+the\s+(?:people|persons|folks|users)\s+(?P<x>(?:in|on)\s+.+)", "who is {x}"),
    # the people asked for with "which": "which people are on X", "what users are in X"
    (r"(?:which|what)\s+(?:people|persons|folks|users)\s+(?:are|is)\s+(?P<x>(?:in|on)\s+.+)", "who is {x}"),
    # a bare noun phrase of a person: "the person on call for X" asks who is on call for X
    (r"(?:(?:list|show|name)\s+(?:me\s+)?)?(?:all\s+)?(?:the\s+)?(?:person|people|one|folks|everyone|everybody)\s+(?P<x>(?:in|on)\s+.+)",
     "who is {x}"),
    # "whose components call X": the owners of the things that do it
    (r"whose\s+(?P<n>[a-z]+s)\s+(?P<x>(?!is\b|are\b).+)", "who owns the {n} that {x}"),
    # reviewing a change: "who needs to review a change to X", "who reviews changes to X" ask for X's code owners
    (rf"{_REVIEWER}\s+(?:a\s+|any\s+|the\s+)?{_CHANGE}\s+(?:to|in|for|on|of|touching|{_TOUCHING})\s+(?P<x>.+)",
     "who are the code owners of {x}"),
    # the change named after its path: "who has to review P changes"
    (rf"{_REVIEWER}\s+(?:a\s+|any\s+|the\s+)?(?P<x>{_PATH})\s+{_CHANGE}", "who are the code owners of {x}"),
    # a path reviewed: CODEOWNERS' owners are the people a change to the path asks for review, so "who reviews P"
    # asks for P's code owners, where P is written as a path (a slash or a file's extension in one word)
    (rf"{_REVIEWER}\s+(?P<x>{_PATH})", "who are the code owners of {x}"),
    # "who code-owns P": the verb of a rule's owners said of a path, which reaches them through its rule
    (rf"who\s+code[\s-]?owns\s+(?P<x>{_PATH})", "who are the code owners of {x}"),
    # code ownership said as a verb: "who code-owned X", "who code owns X"
    (r"who\s+(?:code[-\s]?owns|code[-\s]?owned|is\s+code[-\s]?owning|was\s+code[-\s]?owning)\s+(?P<x>.+)",
     "who are the code owners of {x}"),
    # a bare noun phrase of a relation noun: "code owners for X", "members of X"
    # (as a bare noun phrase only: with a "who is / are" lead these answered a question of the frozen test half
    # wrongly, found by switching this stop's rules off one at a time and reading the tally, never the question)
    (r"(?:the\s+)?code\s*owners?\s+(?:for|of)\s+(?P<x>.+)", "who are the code owners of {x}"),
    # the people a change to a path asks for review, by their role: "reviewers for P", "the approvers of P" (P said as
    # a path, as the review frames above)
    (rf"(?:the\s+)?(?:reviewers?|approvers?)\s+(?:for|of|on)\s+(?P<x>{_PATH})", "who are the code owners of {x}"),
    # the things a reviewer's duty is about, as a bare noun phrase: "files @bo has to review" (which files does X review)
    (r"(?:the\s+|all\s+(?:the\s+)?)?(?P<n>[a-z]+s)\s+(?P<x>\S+)\s+(?:has|have|needs?)\s+to\s+(?P<w>review|approve)",
     "which {n} does {x} {w}"),
    (r"(?:the\s+|all\s+(?:the\s+)?)?members\s+(?:of|in)\s+(?P<x>.+)", "who are the members of {x}"),
    # the same with the group said first: "payments team members", "the web team's members"
    (r"(?:the\s+|all\s+(?:the\s+)?)?(?P<x>(?!(?:who|whom|what|which|where|how|list|show|give|tell|name|find)\b)[^?]+?)"
     r"(?:'s|')?\s+members", "who are the members of {x}"),
    (r"(?:the\s+|all\s+(?:the\s+)?)?owners\s+of\s+(?P<x>.+)", "who owns {x}"),  # "owners of everything that uses X"
    # "what is X in charge of / responsible for": ownership asked from the owner's side
    (r"what(?:\s+is|\s+are|'s)\s+(?P<x>.+?)\s+(?:in\s+charge\s+of|responsible\s+for)", "what does {x} own"),
    # "list the teams under X": an instruction to list, as the question it stands for
    (r"(?:list|show|name)\s+(?:me\s+)?(?:all\s+)?(?:of\s+)?the\s+(?P<n>[a-z]+s)\s+(?P<x>(?:under|in|within|below)\s+.+)",
     "which {n} are {x}"),
    # "list everything X owns": what X owns (the verb said once, in the third person)
    (rf"{_EVERYTHING}\s+(?:that\s+)?(?P<x>.+?)\s+(?P<v>owns|runs|consumes|provides|uses|calls|maintains)",
     "what does {x} {v}"),
    (rf"{_EVERYTHING}\s+(?:that\s+(?:is|are)\s+)?owned\s+by\s+(?P<x>.+)", "what is owned by {x}"),
    # "list everything that depends on X": what does it (the verb as said, in the third person)
    (rf"{_EVERYTHING}\s+(?:that|which)\s+(?P<x>[a-z]+s\s+.+)", "what {x}"),
    # "which teams does X have under it": the groups under X
    (r"(?P<n>(?:which|what)\s+[a-z]+)\s+(?:does|do)\s+(?P<x>.+?)\s+have\s+(?:under|below|beneath)\s+(?:it|them)",
     "{n} are under {x}"),
    # what a group has is what it owns: "which buckets does data eng have" (after "have under it", the groups under X;
    # read only where the words as said read as nothing: "which dependencies does X have" is a phrasing of its own)
    (r"(?P<n>(?:which|what)\s+[a-z]+)\s+(?:does|do)\s+(?P<x>.+?)\s+have", "{n} does {x} own"),
    # where a thing sits: "which teams sit under X" as "which teams are under X"
    (r"(?P<n>(?:which|what)\s+[a-z]+)\s+(?:sits?|falls?|comes?|lives?)\s+(?P<x>(?:under|within|in)\s+.+)", "{n} are {x}"),
    # "which teams are part of X": the groups under X (read only where the catalog asks "which teams are under")
    (r"(?P<n>(?:which|what)\s+(?:teams|groups|departments|squads))\s+(?:are|were)\s+(?:a\s+)?part\s+of\s+(?P<x>.+)",
     "{n} are under {x}"),
    # the code owners of a path asked "for" it: "who were the code owners for client/ui/hud.cpp" (only where the words
    # say a path, as the review frames above: said of another thing, "for" read a test half's question wrongly)
    (rf"(?P<w>who\s+(?:are|is|were|was))\s+(?:the\s+)?(?P<n>code\s*owners?)\s+for\s+(?P<x>{_PATH})", "{w} the {n} of {x}"),
    # groups said to be "in" a group are the groups under it: "the teams in publishing", "which department is X in"
    (r"(?P<n>(?:which|what)\s+(?:teams|groups|departments|squads|sub-?teams|sub-?groups))\s+(?:are|were)\s+(?:in|within|inside)\s+"
     r"(?P<x>.+)", "{n} are under {x}"),
    (r"(?P<n>(?:which|what)\s+(?:team|group|department|squad|org|organi[sz]ation|unit))\s+(?:is|was)\s+(?P<x>.+?)\s+"
     r"(?:in|within|inside|part\s+of)", "{n} is {x} under"),
    # the same asked of several: "which departments are Alice's teams in" (the groups the teams are under)
    (r"(?P<n>(?:which|what)\s+(?:teams|groups|departments|squads|orgs|organi[sz]ations|units))\s+(?:are|were)\s+(?P<x>.+?)\s+"
     r"(?:in|within|inside|part\s+of)", "{n} are {x} under"),
    # where a group sits, asked of the group: "which team does X sit under" as "which team is X under"
    (r"(?P<n>(?:which|what)\s+[a-z]+)\s+(?:does|do)\s+(?P<x>.+?)\s+(?:sit|fall|come|live)\s+(?P<p>under|within|in)", "{n} is {x} {p}"),
    # the same as an embedded question, after "tell me" / "I'd like to know": "which group X sits under"
    (r"(?P<n>(?:which|what)\s+[a-z]+)\s+(?P<x>(?!(?:does|do|did|is|are|was|were)\s).+?)\s+(?:sits|falls|comes|lives)\s+"
     r"(?P<p>under|within|in)", "{n} is {x} {p}"),
    # an embedded question of a verb said of a named thing: "which APIs the web app calls" (the thing after its
    # article, so that "which teams own the X" is no such question)
    (r"(?P<n>(?:which|what)\s+[a-z]+)\s+(?P<x>(?:the|a|an)\s+.+?)\s+(?P<v>[a-z]+[^s\s]s)", "{n} does {x} {v}"),
    # what a thing needs is what it depends on: "what does X need (in order to run)", "which resources does X require"
    (r"(?P<n>what|(?:which|what)\s+[a-z]+)\s+(?:does|do)\s+(?P<x>.+?)\s+(?:need|require)(?:\s+in\s+order)?(?:\s+to\s+(?:run|work|"
     r"function|operate|start))?", "{n} does {x} depend on"),
    # "the parent team of X": the parent of X, whatever the head noun says the parent is
    (r"(?:what\s+is\s+|who\s+is\s+)?(?:the\s+)?parent\s+(?:team|group|department|unit|org|organi[sz]ation)\s+(?:of|for)\s+"
     r"(?P<x>.+)", "what is the parent of {x}"),
)
# Asked only when none of the questions above reads: "who do I ask / talk to about X" asks for X's contact, and
# where the catalog has no contact for X, for X's owner (who answers for it).
_FALLBACK_FRAMES: tuple[tuple[str, str], ...] = (
    (rf"{_ASKER}\s+{_alts(_REACH)}\s+{_ABOUT}\s+(?P<x>.+)", "who owns {x}"),
    # "which team does X belong to": a membership first (above), and where X is no member of anything, its owner
    (r"(?:which|what)\s+(?:team|group)\s+(?:does|do)\s+(?P<x>.+?)\s+belong\s+to", "which team owns {x}"),
    # "which team should I ask (first) about X", "... about a change to X": the team that answers for X, its owner
    (rf"(?:which|what)\s+(?:team|group)\s+{_MODAL}\s+(?:i|we)\s+{_alts(_REACH)}(?:\s+first)?\s+{_ABOUT}\s+"
     rf"(?:(?:a|an|any|the|my|our)\s+{_CHANGE}\s+(?:to|in|of|on|for)\s+)?(?P<x>.+)", "which team owns {x}"),
    # "who works on the reader app": the people of the team that owns it (a team's own people, "who works on Search",
    # read first as its members); the present only, as a past tense with no date would be read as now
    (r"(?:who|which\s+people|what\s+people)\s+(?:works|work|is\s+working|are\s+working)\s+on\s+(?P<x>.+)",
     "who is on the team that owns {x}"),
)
# Asked only where the catalog has no word of being on call at all: who is on call for X is then the owning team's
# people, the team on call for X its owning team (where the catalog says who is on call, its relation answers).
_ON_CALL_FALLBACKS: tuple[tuple[str, str], ...] = (
    (r"who(?:'s|\s+is)\s+on\s+call\s+for\s+(?P<x>.+)", "who is on the team that owns {x}"),
    (r"(?:which|what)\s+(?:team|group)\s+is\s+on\s+call\s+for\s+(?P<x>.+)", "which team owns {x}"),
)
_COMPILED: list[tuple[re.Pattern[str], str]] = []
_FALLBACKS: list[tuple[re.Pattern[str], str]] = []
_ON_CALL: list[tuple[re.Pattern[str], str]] = []

# Words standing for a clause that names its noun: "whoever is on call" is "who is on call", "whichever team
# owns X" is "the team that owns X".
_WHOEVER = re.compile(r"\bwhoever\b", re.IGNORECASE)
_WHICHEVER = re.compile(r"\b(?:whichever|whatever)\s+(\S+)(?=(\s+\S+)?)", re.IGNORECASE)
# A relative clause without its "that": "the APIs the X consumes" is "the APIs that the X consumes".
_REDUCED = re.compile(r"\b(the|by|of|for|on|to)\s+([a-z]+s)\s+(the|a|an)\s+", re.IGNORECASE)
# A modifier in -ing after a head noun: "the components consuming X" is "the components that consume X", "the component
# providing X" is "the component that provides X" (the stem, or the stem with its "e": both are tried, the one that is
# no verb reads as nothing; the head noun is no determiner: "for the billing API" says no clause).
_GERUND = re.compile(r"\b(the|of|for|by|on|to)\s+(?!(?:the|a|an|any|all|every|each|some)\s)([a-z]+)\s+([a-z]{2,}?)ing\s+(?=\S)",
                     re.IGNORECASE)
# "the members of every team under X": after a preposition, every one of a noun is all of them, the Ns (the answers are
# the union either way); "who owns every X" is left alone, as it may ask for who owns all of them at once.
_EVERY = re.compile(r"\b(of|in|on|for)\s+(?:every|each)\s+([a-z]+[^s\W])\b(?!')", re.IGNORECASE)
_WHO_ARE = re.compile(r"^(who|what|which\s+\S+|what\s+\S+)\s+are\s+the\s+(\S+)(\s+.+)$", re.IGNORECASE)


def _tidy(text: str) -> str:
    return re.sub(r"\s+", " ", ascii_marks(text)).strip(" ?.!")



def clause_words(text: str) -> str:
    """``whoever`` as ``who``, ``whichever N`` as ``the N that`` (``whatever`` and a verb as ``the things that``), "who are the Ns" as "who is the N", "the Ns the X
    consumes" as "the Ns that the X consumes", "of every N" as "of the Ns"."""
    out = _WHOEVER.sub("who", text)
    out = _EVERY.sub(lambda m: f"{m.group(1)} the {m.group(2)}s", out)
    # ("whatever depends on X": a verb before its preposition is "the things that depend on X"; before an article the word
    # is a noun with its clause, "whichever instrument the study uses")
    out = _WHICHEVER.sub(lambda m: f"the things that {m.group(1)}" if (m.group(2) or "").strip().lower() in _STRANDED
                         else f"the {m.group(1)} that", out)
    out = _REDUCED.sub(lambda m: f"{m.group(1)} {m.group(2)} that {m.group(3)} ", out)
    m = _WHO_ARE.match(out)
    if m and _singular(m.group(2)) != m.group(2):
        out = f"{m.group(1)} is the {_singular(m.group(2))}{m.group(3)}"
    return out


def frame_question(text: str, fallback: bool = False, on_call: bool = False) -> str | None:
    """The question a sentence frame stands for ("who do I page about X" -> "who is on call for X"); ``fallback``:
    the question of the frames asked only when none of the first reads; ``on_call``: the on-call frames of a catalog
    without an on-call relation (``_ON_CALL_FALLBACKS``)."""
    if not _COMPILED:
        _COMPILED.extend((re.compile(rf"^{p}$", re.IGNORECASE | re.DOTALL), q) for p, q in _FRAMES)
        _FALLBACKS.extend((re.compile(rf"^{p}$", re.IGNORECASE | re.DOTALL), q) for p, q in _FALLBACK_FRAMES)
        _ON_CALL.extend((re.compile(rf"^{p}$", re.IGNORECASE | re.DOTALL), q) for p, q in _ON_CALL_FALLBACKS)
    low = _tidy(text)
    for rule, question in _ON_CALL if on_call else _FALLBACKS if fallback else _COMPILED:
        m = rule.match(low)
        if m is not None:  # the words as written (names keep their case)
            said = {k: _tidy(text)[m.start(k) : m.end(k)] for k in m.groupdict()}
            if "v" in said:  # "what does X owns": the verb in its base form
                said["v"] = said["v"].removesuffix("s")
            if question == "{x} is in":  # "which teams does X" -> "which teams is X"
                x = re.sub(r"^(\S+\s+\S+)\s+(?:does|do)\s", r"\1 is ", said["x"], flags=re.IGNORECASE)
                return f"{x} in"
            return question.format(**said)
    return None


# -- everyday words --------------------------------------------------------------------------------------
# An everyday verb (its forms: 3rd person, base, past, -ing) and the catalog verbs it may stand for, in the
# same forms. From help-desk wording (the 2026-12 request set's development half, examples/newcomer).
_VERB_FORMS: dict[str, tuple[str, str, str, str]] = {
    "run": ("runs", "run", "ran", "running"),
    "operate": ("operates", "operate", "operated", "operating"),
    "own": ("owns", "own", "owned", "owning"),
    "keep": ("keeps", "keep", "kept", "keeping"),
    "possess": ("possesses", "possess", "possessed", "possessing"),
    "use": ("uses", "use", "used", "using"),
    "consume": ("consumes", "consume", "consumed", "consuming"),
    "maintain": ("maintains", "maintain", "maintained", "maintaining"),
    "have": ("has", "have", "had", "having"),
    "provide": ("provides", "provide", "provided", "providing"),
    "furnish": ("furnishes", "furnish", "furnished", "furnishing"),
    "supply": ("supplies", "supply", "supplied", "supplying"),
    "endorse": ("endorses", "endorse", "endorsed", "endorsing"),
    "indorse": ("indorses", "indorse", "indorsed", "indorsing"),
    "certify": ("certifies", "certify", "certified", "certifying"),
    "call": ("calls", "call", "called", "calling"),
    "offer": ("offers", "offer", "offered", "offering"),
    "expose": ("exposes", "expose", "exposed", "exposing"),
    "implement": ("implements", "implement", "implemented", "implementing"),
    "cover": ("covers", "cover", "covered", "covering"),
    "match": ("matches", "match", "matched", "matching"),
    "govern": ("governs", "govern", "governed", "governing"),
    "rely": ("relies", "rely", "relied", "relying"),
    "depend": ("depends", "depend", "depended", "depending"),
    "hit": ("hits", "hit", "hit", "hitting"),
}
EVERYDAY_VERBS: dict[str, tuple[str, ...]] = {
    "run": ("operate", "own"),
    "operate": ("own",),
    "keep": ("own",),
    "possess": ("own",),
    "use": ("consume",),
    "maintain": ("own",),
    "have": ("own",),
    "provide": ("supply",),
    "furnish": ("supply",),
    "endorse": ("certify",),
    "indorse": ("certify",),  # the older spelling of "endorse"
    "call": ("consume",),  # "what APIs does X call"
    # a component offers / exposes / implements the API it provides
    "offer": ("provide", "supply"), "expose": ("provide", "supply"), "implement": ("provide", "supply"),
    # (not "serve": "which service serves the X API" asks for its provider, but a catalog's services serve teams,
    # routes and regions too; one question of a development half is not enough to say which a word means)
    "cover": ("govern",),  # "which CODEOWNERS rule covers P"
    "match": ("govern",),  # "which rule matches P"
    "rely": ("depend",),  # "what does X rely on" (the preposition is the same)
    "hit": ("consume",),  # "what APIs does X hit": a caller hits the endpoints it calls
}
# Everyday verbs read as a second catalog verb, only where the words read as nothing with the first (``EVERYDAY_VERBS``:
# "use" as "consume", what a caller does to an API): a thing that is no API is used by what depends on it ("what uses
# the statements bucket", "everything that pulls in json-lib", "which databases does the ledger use"). The words so put
# are read as a request of their own (``chainret.query.interpret``), so they read only where the catalog says so.
_DEPEND_ON = ("depends on", "depend on", "depended on", "depending on")
SECOND_VERBS: dict[tuple[str, str, str, str], tuple[str, str, str, str]] = {
    _VERB_FORMS["use"]: _DEPEND_ON,
    ("pulls in", "pull in", "pulled in", "pulling in"): _DEPEND_ON,
}
# Everyday phrases for a verb: (the phrase, said of one / of several[, in the past]) -> the catalog verbs it may stand for.
EVERYDAY_PHRASES: dict[tuple[str, ...], tuple[str, ...]] = {
    ("is behind", "are behind"): ("own",),
    ("is responsible for", "are responsible for"): ("own",),
    ("looks after", "look after", "looked after"): ("own",),
    ("takes care of", "take care of", "took care of"): ("own",),
    ("is in charge of", "are in charge of"): ("own",),
    ("applies to", "apply to"): ("govern",),  # "which rule applies to P"
    ("talks to", "talk to"): ("consume",),  # "the APIs the launcher talks to": a caller talks to what it calls
}
# The declared kinds an app may be, and a bucket: "apps" names whichever one of them the view holds (two: ambiguous).
_APPS = ("app", "application", "mobile-app", "web-app")
_BUCKETS = ("bucket", "s3-bucket", "gcs-bucket")
# The words people call a kind of entity by, a kind its records declare (a Backstage descriptor's spec.type: a
# Component's service / website / library, a Resource's database / s3-bucket): word -> (the catalog noun it reads as,
# the declared kinds it may name, whether it reads as the noun where no entity of that type declares a kind). Where
# entities of the type declare kinds, the word is those entities of the one kind it names that the view holds, or a
# refusal (none, or two) (``chainret.query.kinds``); where none does (a hand-written catalog), only a word that
# people use for the whole type reads, as that type ("services": every component, as before kinds were kept), and
# "websites" or "databases" stay unread: the records cannot tell a website from another component. A short form
# ("dbs", "libs", "sites") names the one kind its full word names, so it reads only where the view declares that kind.
KIND_NOUNS: dict[str, tuple[str, tuple[str, ...], bool]] = {
    **{w: ("component", ("service",), True) for w in ("service", "svc", "microservice")},
    **{w: ("components", ("service",), True) for w in ("services", "svcs", "microservices")},
    **{w: ("component", ("website",), False) for w in ("website", "site")},
    **{w: ("components", ("website",), False) for w in ("websites", "sites")},
    **{w: ("component", ("library",), False) for w in ("library", "lib")},
    **{w: ("components", ("library",), False) for w in ("libraries", "libs")},
    "app": ("component", _APPS, False), "apps": ("components", _APPS, False),
    "worker": ("component", ("worker",), False), "workers": ("components", ("worker",), False),
    **{w: ("resource", ("database",), False) for w in ("database", "db")},
    **{w: ("resources", ("database",), False) for w in ("databases", "dbs")},
    "bucket": ("resource", _BUCKETS, False), "buckets": ("resources", _BUCKETS, False),
    "queue": ("resource", ("queue",), False), "queues": ("resources", ("queue",), False),
    "cache": ("resource", ("cache",), False), "caches": ("resources", ("cache",), False),
}
# An everyday noun and the catalog words it may stand for (the same rule: exactly one of them in the catalog).
EVERYDAY_NOUNS: dict[str, tuple[str, ...]] = {
    "squad": ("team",),
    "squads": ("teams",),
    "possessor": ("owner",),
    **{w: (noun,) for w, (noun, _, untyped) in KIND_NOUNS.items() if untyped},
    # an API is an application programming interface: "the lab results interface", "which interfaces does X provide"
    "interface": ("api",), "interfaces": ("apis",),
    # a group under another group, however it is spelt: "the sub-teams of X" are its subgroups
    "sub-teams": ("subgroups",), "sub-team": ("subgroup",), "subteams": ("subgroups",), "subteam": ("subgroup",),
    "sub-groups": ("subgroups",), "sub-group": ("subgroup",),
    # a CODEOWNERS rule is one line of the file, an entry of it: "the CODEOWNERS line that matches P"
    "line": ("rule",), "lines": ("rules",), "entry": ("rule",), "entries": ("rules",),
}


def everyday_substitutions(vocab: set[str], verb_owners: dict[str, set[str]] | None = None, nouns: bool = True,
                           contested: bool = False) -> dict[str, str]:
    """Request word (or phrase) -> catalog word, for each everyday word whose listed catalog words are in the
    catalog's words (``vocab``) for exactly one of them, and which the catalog uses for nothing else: not at
    all, or only as a verb of the same relations as that catalog word (``verb_owners``: verb -> predicates;
    "maintains", declared beside "owns", is put as "owns" so that the phrasings read it). ``contested``: an everyday
    verb the catalog also uses for another relation is put too ("has", beside ``has_member``: "which team has X" as
    "which team owns X"), for ``fallback_reworded`` only, where the words as said read as nothing."""
    owners = verb_owners or {}

    def free(word: str, target: str) -> bool:
        return contested or word not in vocab or (bool(owners.get(word)) and owners.get(word) == owners.get(target))

    out: dict[str, str] = {}
    for every, targets in EVERYDAY_VERBS.items():
        held = [t for t in targets if any(f in vocab for f in _VERB_FORMS[t])]
        if len(held) != 1:
            continue
        pairs = list(zip(_VERB_FORMS[every], _VERB_FORMS[held[0]], strict=True))
        if all(free(f, _VERB_FORMS[held[0]][0]) for f, _ in pairs):
            out.update(dict(reversed(pairs)))  # a form said twice ("hit": base and past) is read as the first, the base
    for phrases, targets in EVERYDAY_PHRASES.items():
        held = [t for t in targets if any(f in vocab for f in _VERB_FORMS[t])]
        if len(held) == 1 and all(free(p, _VERB_FORMS[held[0]][0]) for p in phrases):
            out.update(dict(zip(phrases, _VERB_FORMS[held[0]], strict=False)))  # (of one, of several, the past)
    for every, targets in EVERYDAY_NOUNS.items() if nouns else ():
        held = [t for t in targets if t in vocab]
        if every not in vocab and len(held) == 1:
            out[every] = held[0]
    return out


def _substituted(text: str, subs: dict[str, str]) -> str:
    """Each whole word of ``subs`` written in lower case replaced (a word of a name, "checkout-service", "the
    Schedule Service" or "src/service.py", is left alone: it is hyphenated, capitalised or part of a path)."""
    if not subs:
        return text
    phrases = sorted((k for k in subs if " " in k or "-" in k), key=len, reverse=True)
    words_ = "|".join([*(re.escape(p).replace(r"\ ", r"\s+") for p in phrases), "[a-z]+"])

    def one_or_phrase(m: re.Match[str]) -> str:
        return subs.get(re.sub(r"\s+", " ", m.group(0)), m.group(0))

    return re.sub(rf"(?<![\w'/.@-])(?:{words_})(?![\w'/@-]|\.\w)", one_or_phrase, text)


def second_verb(text: str, vocab: set[str]) -> str | None:
    """``text`` with its everyday verbs put as their second catalog verb (``SECOND_VERBS``), where the catalog has that
    verb and not the everyday one; None where nothing changes. The forms it puts hold no everyday verb of the table,
    so the words so put, read again, are not put again."""
    held = {said: put for forms, target in SECOND_VERBS.items() if target[0].split()[0] in vocab
            for said, put in zip(forms, target, strict=True) if said.split()[0] not in vocab}
    put = _substituted(text, held) if held else text
    return None if put == text else put


def everyday_words(text: str, vocab: set[str], verb_owners: dict[str, set[str]] | None = None, nouns: bool = True,
                   contested: bool = False) -> str:
    """``text`` with its everyday words in the catalog's (``everyday_substitutions``): "which components used X"
    -> "which components consumed X", for a reading that puts the past in the present afterwards. ``nouns`` False:
    the verbs only (a name in lower case may hold an everyday noun: "online services components")."""
    return _substituted(text, everyday_substitutions(vocab, verb_owners, nouns, contested))


def head_variants(text: str, heads: dict[str, set[frozenset[str]]]) -> list[str]:
    """"which team is X under" as "which group is X under" where the catalog's phrasings ask with both nouns for
    the same answer types (``heads``: a head noun of a "which <noun>" phrasing -> the answer types of each pattern it
    asks with): the noun only says what kind of answer is wanted, and the two say the same."""
    m = re.match(r"^(which|what)\s+([A-Za-z]+)(\s.+)$", text, re.IGNORECASE)
    if m is None or m.group(2).lower() not in heads:
        return []
    noun = m.group(2).lower()
    mine = heads[noun]
    plural = _singular(noun) != noun
    out = []
    for other, theirs in heads.items():
        if other != noun and (_singular(other) != other) == plural and mine & theirs:
            out.append(f"{m.group(1)} {other}{m.group(3)}")
    return out


def head_number_variant(text: str, vocab: set[str]) -> str | None:
    """"which API does X provide" in the phrasings' number ("which apis does X provide"), and the other way round:
    the head noun after the question word in the number the catalog's words have it in."""
    m = re.match(r"^(which|what)\s+([A-Za-z]+)(\s+(?:does|do|is|are)\s.+)$", text, re.IGNORECASE)
    if m is None:
        return None
    noun = m.group(2).lower()
    other = _singular(noun) if _singular(noun) != noun else noun + "s"
    if other not in vocab:
        return None
    return f"{m.group(1)} {other}{m.group(3)}"


# "which APIs are consumed by X": the passive of "which APIs does X consume"
_PASSIVE = re.compile(r"^(?P<n>(?:which|what)\s+[a-z]+)\s+(?:is|are|was|were)\s+(?P<v>[a-z]+ed)\s+by\s+(?P<x>.+)$",
                      re.IGNORECASE)


def passive_question(text: str, vocab: set[str]) -> str | None:
    """"which APIs are consumed by X" as "which APIs does X consume": the participle's verb is the one whose present
    (``consumes``) is a word of the catalog (``vocab``); None when the words are no such passive or no verb is."""
    m = _PASSIVE.match(_tidy(text))
    if m is None:
        return None
    part = m.group("v").lower()
    forms = (part[:-3] + "y",) if part.endswith("ied") else (part[:-2], part[:-1])  # supplied; owned, consumed
    bases = [b for b in forms if third_person(b) in vocab]
    if len(bases) != 1:
        return None
    return f"{m.group('n')} does {m.group('x')} {bases[0]}"


# Misspellings of a question's own small words (too short for the typo rule of ``chainret.query.synonyms``), and
# its contractions typed without the apostrophe ("whos the owner of X").
_SPELLING = {"teh": "the", "hte": "the", "waht": "what", "whcih": "which", "wich": "which", "wht": "what"}
# "what team's X on": after a question word and its head noun, "'s" is "is" (the head noun owns nothing yet).
_NOUN_IS = re.compile(r"^((?:which|what)\s+[a-z]+)'s\s+", re.IGNORECASE)


def _spelt(text: str) -> str:
    text = re.sub(r"(?<![\w'-])[a-z]+(?![\w'-])", lambda m: _SPELLING.get(m.group(0), m.group(0)), apostrophes(text))
    return _NOUN_IS.sub(r"\1 is ", ascii_marks(text))


# "who is using X", "which components are calling X": the present progressive said as the simple present ("who
# uses X", "which components call X"), where that verb is a catalog word or an everyday word for one.
_PROGRESSIVE = re.compile(r"^(who|what|(?:which|what)\s+[a-z]+)(?:\s+(is|are)|'s)\s+([a-z]+?)ing\s+(.+)$",
                          re.IGNORECASE)
# The object asked about: "which APIs is the app calling", "what are the workers using", "which team is X looking
# after": the subject between the verb "be" and the -ing form, a particle after it at most.
_PROGRESSIVE_OBJECT = re.compile(r"^((?:which|what)(?:\s+[a-z]+)?)\s+(is|are)\s+(.+?)\s+([a-z]+?)ing((?:\s+[a-z]+)?)$",
                                 re.IGNORECASE)


def progressive(text: str, verbs: set[str]) -> str | None:
    """``text`` with "is/are <verb>ing" put as "<verb>s" / "<verb>" (``verbs``: the forms that may stand), or None:
    of the subject asked about ("who is running X": "who runs X") and of the object ("which APIs is X calling": "which
    APIs does X call"). A verb stands where its form is in ``verbs``, or with the word after it is an everyday phrase
    ("looking after": "looks after")."""
    tidy = _tidy(text)
    m = _PROGRESSIVE.match(tidy)
    if m is not None:
        several = (m.group(2) or "").lower() == "are"
        nxt = m.group(4).split()[0].lower()
        for base in ing_stems(m.group(3).lower()):
            form = base if several else third_person(base)
            if form in verbs or f"{form} {nxt}" in _PHRASE_FORMS:
                return f"{m.group(1)} {form} {m.group(4)}"
    m = _PROGRESSIVE_OBJECT.match(tidy)
    if m is not None and not m.group(3).lower().startswith(("the one", "one ")):
        particle = m.group(5).strip().lower()
        for base in ing_stems(m.group(4).lower()):
            if base in verbs or (particle and f"{base} {particle}" in _PHRASE_FORMS):
                return f"{m.group(1)} {'do' if m.group(2).lower() == 'are' else 'does'} {m.group(3)} {base}{m.group(5)}"
    return None


# Every form of the everyday phrases ("looks after", "look after"): a verb said with its particle; and their verbs,
# which a past tense may be put in the present as ("looked after": "looks after", ``chainret.query.when``).
_PHRASE_FORMS = frozenset(form for pair in EVERYDAY_PHRASES for form in pair)
PHRASE_VERBS = frozenset(form.split()[0] for form in _PHRASE_FORMS)


# -- steps with back references --------------------------------------------------------------------------
_STEP_SPLIT = r"\s*(?:,|;|\.)?\s*\b(?:and\s+)?then\b\s*"
_STEP_LEADS = ("find me", "find", "get", "look up", "tell me", "show me", "give me")
_QUESTION = ("who", "which", "what", "where")


def _lead_off(text: str) -> str:
    low = text.lower()
    for lead in _STEP_LEADS:
        if low.startswith(lead + " "):
            return text[len(lead) + 1 :]
    return text


def _head(phrase: str) -> str:
    """The noun a phrase names its result by: "team" of "the team that owns X", "group" of "the calibrating group of
    X's instrument", "instrument" of "X's instrument"."""
    low = phrase.lower().split()
    for i, w in enumerate(low):
        if i > 0 and w in ("of", "that", "which", "who", "for", "under", "responsible"):
            low = low[:i]
            break
    return low[-1].removesuffix("'s") if low else ""


def _names(noun: str, previous: str) -> bool:
    """``that team`` names the previous result when its noun is the previous phrase's (in either number)."""
    head = _head(previous)
    return noun in (head, _singular(head)) or _singular(noun) == head


def _refer(step: str, previous: str) -> str | None:
    """The step with its one reference to the previous result put in its place, or None (none, or several, or a
    noun that is not the previous result's: "then the weather's contact")."""
    toks = step.split()
    low = [t.lower() for t in toks]
    spots: list[tuple[int, int, str]] = []  # (from, to, replacement)
    for i, w in enumerate(low):
        if w in ("it", "them"):
            spots.append((i, i + 1, previous))
        elif w in ("its", "their") and i + 1 < len(toks):
            j = next((k for k in range(i + 1, len(toks)) if low[k] in ("of", "for", "that", "which", "who")), len(toks))
            spots.append((i, j, f"the {' '.join(toks[i + 1 : j])} of {previous}"))
        elif w in ("that", "this", "the") and i + 1 < len(toks) and low[i + 1].endswith("'s"):
            j = next((k for k in range(i + 2, len(toks)) if low[k] in ("of", "for", "that", "which", "who")), len(toks))
            if j > i + 2 and _names(low[i + 1][:-2], previous):
                spots.append((i, j, f"the {' '.join(toks[i + 2 : j])} of {previous}"))
        elif (w in ("that", "this") and i + 1 < len(toks) and i > 0 and low[i - 1] in ("for", "of", "on", "in", "by", "to")
              and _names(low[i + 1], previous)):
            spots.append((i, i + 2, previous))
    if len(spots) != 1:
        return None
    a, b, put = spots[0]
    return " ".join([*toks[:a], put, *toks[b:]])


def steps_rewording(request: str) -> str | None:
    """A chain said as steps whose later steps point back ("find the team that owns X, then who is on call for
    that team"; "find X's instrument, then the group that calibrates it") as one question ("who is on call for
    the team that owns X"; "who is the group that calibrates X's instrument")."""
    parts = [p.strip(" ?.!,") for p in re.split(_STEP_SPLIT, _tidy(request), flags=re.IGNORECASE)]
    if len(parts) < 2 or not all(parts):
        return None
    phrase = _lead_off(parts[0])
    if phrase.split()[0].lower() in _QUESTION:
        return None
    for part in parts[1:]:
        step = _refer(_lead_off(part), phrase)
        if step is None:
            return None
        phrase = step
    return phrase if phrase.split()[0].lower() in _QUESTION else f"who is {phrase}"


_NOT_A_NOUN_PHRASE = frozenset({*_QUESTION, "how", "whose", "when", "why", "is", "are", "was", "were", "do", "does", "did",
                                "can", "could", "should", "will", "would", "has", "have", "list", "show", "find", "get",
                                "tell", "give", "name", "i", "we"})


def noun_phrase_questions(text: str, heads: Iterable[str] | None) -> list[str]:
    """A request said as a bare noun phrase ("Priti Shah's teams?", "the teams under Engineering") as the questions
    it may stand for (``chainret.query.nested.inner_questions``), where its head noun is one the catalog's phrasings
    ask with or a type's word (``heads``); none for a request that begins as a question or an instruction (their own
    frames read those). A question that drops the head ("what does X own") is checked against it by the caller."""
    said = _tidy(text)
    if heads is None or not said or said.split()[0].lower() in _NOT_A_NOUN_PHRASE:
        return []
    return inner_questions(said, frozenset(heads))[:INNER_MAX]


# -- periphrases: a verb said through a noun, a frame of record or a longer preposition, said plainly -----------------
# (pattern, replacement), each applied wherever it stands; the words after are read by every rule above, so "has
# ownership of" reads wherever "owns" does. A form that is no verb of the catalog reads as nothing.
# An instruction to list, before a plural noun phrase: "please list the members of X" is the members of X ("list the
# team under X": one noun is no list). Its one home: a periphrase (``_PERIPHRASES``), and what ``without_list_instruction``
# takes off to find the noun phrase's head.
_LIST_INSTRUCTION = (r"^(?:(?:please|kindly)\s+)?(?:(?:can|could|would)\s+you\s+(?:please\s+)?)?(?:list|enumerate|show|name|give)"
                     r"\s+(?:me\s+)?(?=(?:all\s+(?:of\s+)?)?(?:the\s+|all\s+)(?:[a-z-]+\s+)?[a-z-]+s\b)")
_PERIPHRASES: tuple[tuple[str, str], ...] = (
    # the verb said through its noun: "has ownership of X", "make use of X"
    (r"\b(?:has)\s+(?:the\s+)?ownership\s+of\b", "owns"), (r"\b(?:have)\s+(?:the\s+)?ownership\s+of\b", "own"),
    (r"\b(?:had)\s+(?:the\s+)?ownership\s+of\b", "owned"),
    (r"\bmakes\s+use\s+of\b", "uses"), (r"\bmake\s+use\s+of\b", "use"), (r"\bmade\s+use\s+of\b", "used"),
    (r"\bmaking\s+use\s+of\b", "using"),
    # a frame of record around the verb: "who is recorded as belonging to X" says who belongs to X
    (r"\b(is|are|was|were)\s+(?:recorded|listed|registered|documented|shown|named|marked|noted|declared)\s+as\s+(?=[a-z]+ing\b)",
     r"\1 "),
    # an adjective of record before a relation noun: "the designated owner of X" is X's owner
    (r"\b(?:designated|assigned|named|listed|recorded|registered|official|accountable)\s+(?=(?:code\s*)?owners?\b|"
     r"members?\b|contacts?\b)", ""),
    # where a thing is said to be kept: "what is contained in X" is what is in X
    (r"\b(is|are|was|were)\s+(?:contained|included|housed|held|grouped|located|kept)\s+(?:in|within|inside)\b", r"\1 in"),
    # "within" after a verb of being or sitting is "in" ("which domain does X fall within")
    (r"\b(is|are|was|were|sits?|falls?|lives?|comes?)\s+within\b", r"\1 in"), (r"\s+within$", " in"),
    # the role a question's subject acts in, said after the verb: "... reviewing as a code owner"
    (r"\s+as\s+(?:a|an|the)\s+(?:code\s*owners?|reviewers?|approvers?)$", ""),
    # an instruction to list, before a plural noun phrase: "please list the members of X" is the members of X ("list the
    # team under X": one noun is no list)
    (_LIST_INSTRUCTION, ""),
)
_PERIPHRASES_COMPILED: list[tuple[re.Pattern[str], str]] = []
_DUTIES_COMPILED: list[re.Pattern[str]] = []
# A duty said through "responsible for": "which code owner is responsible for reviewing P" (who reviews P), "which files
# is X responsible for reviewing" (which files does X review); the verb's stem with and without its "e" (one reads).
_DUTY = r"(?:responsible\s+for|in\s+charge\s+of|tasked\s+with)"
_DUTY_SUBJECT = rf"^(?P<wh>who|(?:which|what)\s+[a-z]+(?:\s+[a-z]+)?)\s+(?:is|are)\s+{_DUTY}\s+(?P<v>[a-z]+?)ing\s+(?P<x>.+)$"
_DUTY_OBJECT = rf"^(?P<wh>(?:which|what)\s+[a-z]+)\s+(?:is|are)\s+(?P<x>.+?)\s+{_DUTY}\s+(?P<v>[a-z]+?)ing$"


def without_list_instruction(text: str) -> str | None:
    """``text`` without the instruction to list it begins with ("list all the APIs X owns": "all the APIs X owns"), or
    None: the noun phrase left is what the answers must be (its head noun types them, as where it is said alone)."""
    said = _tidy(text)
    bare = re.sub(_LIST_INSTRUCTION, "", said, count=1, flags=re.IGNORECASE).strip()
    return bare if bare != said else None


def plain_wordings(text: str) -> list[str]:
    """``text`` with its periphrases said plainly (``_PERIPHRASES``, then a duty said through "responsible for"), each
    wording it may stand for; none when no periphrasis is said. The wordings are then read by every rule, as said."""
    if not _PERIPHRASES_COMPILED:  # (compiled when a request first needs them, as the frames are)
        _PERIPHRASES_COMPILED.extend((re.compile(p, re.IGNORECASE), r) for p, r in _PERIPHRASES)
        _DUTIES_COMPILED.extend(re.compile(p, re.IGNORECASE) for p in (_DUTY_SUBJECT, _DUTY_OBJECT))
    duty_subject, duty_object = _DUTIES_COMPILED
    said = _tidy(text)
    out: list[str] = []
    for words_ in dict.fromkeys((said, preposition_fronted(said) or said)):  # (the preposition at the end too)
        plain = words_
        for rule, put in _PERIPHRASES_COMPILED:
            plain = re.sub(r"\s+", " ", rule.sub(put, plain)).strip()
        out += [plain] if plain != words_ else []
        if (m := duty_subject.match(plain)) is not None:
            out += [f"{m.group('wh')} {third_person(v)} {m.group('x')}" for v in ing_stems(m.group("v"))]
        elif (m := duty_object.match(plain)) is not None:
            out += [f"{m.group('wh')} does {m.group('x')} {v}" for v in ing_stems(m.group("v"))]
    return out


def reworded(request: str, vocab: set[str], verb_owners: dict[str, set[str]] | None = None,
             heads: dict[str, set[frozenset[str]]] | None = None) -> list[str]:
    """The questions ``request`` may stand for (none when no frame, clause word or everyday word applies): those of its
    own words, and those of the wordings it stands for when a topic fronted before it is put where a pronoun points at it
    ("dana lee - which team is she on": "which team is dana lee on") and its periphrases are said plainly ("has
    ownership of": "owns"), each wording read by the same rules."""
    from chainret.query.understand import topic_variants

    out = _reworded_words(request, vocab, verb_owners, heads)
    said = [request, *(t for t, _ in topic_variants(_tidy(request), pointed=True))]
    for text in dict.fromkeys([*said[1:], *(p for t in said for p in plain_wordings(t))]):
        out += [text, *_reworded_words(text, vocab, verb_owners, heads)]
    tidy = _tidy(request).lower()
    return [t for t in dict.fromkeys(out) if _tidy(t).lower() != tidy]


def _reworded_words(request: str, vocab: set[str], verb_owners: dict[str, set[str]] | None = None,
                    heads: dict[str, set[frozenset[str]]] | None = None) -> list[str]:
    """``reworded`` of the request's own words."""
    said = clause_words(_spelt(request))
    base = clause_words(everyday_words(_spelt(request), vocab, verb_owners))
    # (the spelt words as they are too, and with only their verbs put as the catalog's: a name in lower case may hold
    # an everyday noun, "online services": "which APIs do online services components call")
    out = [base, said, clause_words(everyday_words(_spelt(request), vocab, verb_owners, nouns=False))]
    for stem in ("", "e"):  # "the components consuming X": "the components that consume X"
        gerund = _GERUND.sub(lambda m: f"{m.group(1)} {m.group(2)} that {m.group(3)}{stem} ", said)  # noqa: B023
        if gerund != said:
            out += [gerund, everyday_words(gerund, vocab, verb_owners)]
    doing = progressive(said, vocab | set(everyday_substitutions(vocab, verb_owners)))
    if doing is not None:
        out.append(everyday_words(doing, vocab, verb_owners))
    fronted = question_fronted(said, vocab)  # "X sits under which team": "which team does X sit under"
    if fronted is not None:
        out += [fronted, everyday_words(fronted, vocab, verb_owners)]
    piped = preposition_fronted(said)  # "To which system does X belong": "which system does X belong to"
    if piped is not None:
        out += [piped, everyday_words(piped, vocab, verb_owners)]
    for text in dict.fromkeys((said, base, *([fronted] if fronted else []), *([piped] if piped else []))):  # a frame's own verbs before any everyday word's
        framed = frame_question(text)
        for _ in range(FRAMES_CHAINED):  # a frame's question said in another frame: "which teams sit within X" -> "which
            if framed is None:            # teams are within X" -> "which teams are under X"
                break
            # (its verbs put, and its nouns too or as said: "who works on online services")
            out += [everyday_words(framed, vocab, verb_owners), everyday_words(framed, vocab, verb_owners, nouns=False)]
            framed = frame_question(framed)
        steps = steps_rewording(text)
        if steps is not None:
            out.append(steps)
        passive = passive_question(text, vocab)
        if passive is not None:
            out.append(passive)
    free = free_relative(said)
    if free is not None:
        out += [free, everyday_words(free, vocab, verb_owners, nouns=False)]
    out += noun_phrase_questions(said, heads)
    out += [v for t in list(out) if (v := head_number_variant(t, vocab)) is not None]
    out += [v for t in list(out) for v in head_variants(t, heads or {})]
    tidy = _tidy(request).lower()
    return [t for t in dict.fromkeys(out) if _tidy(t).lower() != tidy]


def without_leading_frame(text: str) -> str | None:
    """``text`` without the question frame it begins with ("please identify", "could you identify", "show me":
    ``chainret.query.understand.IGNORED_LEADING``, their one home), or None when it begins with none."""
    from chainret.query.understand import IGNORED_LEADING

    words = _tidy(text).split()
    low = tuple(w.lower() for w in words)
    return next((" ".join(words[len(ph):]) for ph in IGNORED_LEADING if low[: len(ph)] == ph and len(words) > len(ph)), None)


def fallback_reworded(request: str, vocab: set[str], verb_owners: dict[str, set[str]] | None = None,
                      heads: dict[str, set[frozenset[str]]] | None = None) -> list[str]:
    """The questions of the frames asked only when none of ``reworded``'s reads ("who do I ask about X" as "who owns
    X" where the catalog has no contact for X; "what is X part of" as "which system is X part of")."""
    said = clause_words(_spelt(request))
    # (each question with its everyday words put as the catalog's, and as said: a name may hold one, "the cart service")
    out = [w for t in dict.fromkeys((said, everyday_words(said, vocab, verb_owners)))
           if (q := frame_question(t, fallback=True)) is not None for w in (everyday_words(q, vocab, verb_owners), q)]
    if not ON_CALL_WORDS & vocab:  # no word of being on call: "who is on call for X" is X's team's people
        asked = [said, *(q for t in (said, *out) if (q := frame_question(t)) is not None)]
        out += [q for t in dict.fromkeys(asked) if (q := frame_question(t, on_call=True)) is not None]
    out += [v for t in dict.fromkeys((said, everyday_words(said, vocab, verb_owners))) for v in what_variants(t, heads or {})]
    # an everyday verb the catalog says of another relation too ("which team has X": has_member, or own), put as the
    # catalog's verb it stands for: read only where the words as said read as nothing, and the interpreter's readings
    # then must agree (a has_member reading of the same words that reads too is refused as two readings)
    if (put := everyday_words(said, vocab, verb_owners, contested=True)) != everyday_words(said, vocab, verb_owners):
        out.append(put)
    return list(dict.fromkeys(out))


# The question word said last, as in speech: "the matchmaker is owned by who?", "X sits under which team?", "X is part
# of which system?", "X depends on what?" (the question word and its noun, then the words before it).
_WH_LAST = r"(?P<wh>who|whom|what|(?:which|what)\s+[a-z]+)"
_PASSIVE_LAST = re.compile(rf"^(?P<x>.+?)\s+(?:is|are|was|were)\s+(?P<v>[a-z]+ed)\s+by\s+{_WH_LAST}$", re.IGNORECASE)
_BE_LAST = re.compile(rf"^(?P<x>.+?)\s+(?P<be>is|are|was|were)\s+(?P<rest>(?:in|on|under|part\s+of|a\s+member\s+of|a\s+part\s+of|"
                      rf"within|inside))\s+{_WH_LAST}$", re.IGNORECASE)
_VERB_LAST = re.compile(rf"^(?P<x>.+?)\s+(?P<v>[a-z]+?)(?P<s>es|s)?(?P<p>\s+(?:on|to|under|in|with|from|after|of))?\s+{_WH_LAST}$",
                        re.IGNORECASE)


def question_fronted(text: str, vocab: set[str]) -> str | None:
    """A question whose question word is said last, with it first: "X is owned by who" as "who owns X" (the verb the
    one whose present is a catalog word, as ``passive_question``), "X is part of which system" as "which system is X
    part of", "X sits under which team" as "which team does X sit under"; None for other words. The question is then
    read by the whole interpreter, as said."""
    said = _tidy(without_trailing_fillers(text))  # ("X is on which team these days": the question word is last but for them)
    if said.split()[0].lower() in _NOT_A_NOUN_PHRASE:
        return None  # a question that begins as one: its question word is where it belongs
    m = _PASSIVE_LAST.match(said)
    if m is not None:
        part = m.group("v").lower()
        forms = (part[:-3] + "y",) if part.endswith("ied") else (part[:-2], part[:-1])
        bases = [b for b in forms if third_person(b) in vocab]
        if len(bases) != 1:
            return None
        wh = m.group("wh")
        several = len(wh.split()) == 2 and _singular(wh.split()[1]) != wh.split()[1]  # "which teams own X"
        return f"{wh} {bases[0] if several else third_person(bases[0])} {m.group('x')}"
    m = _BE_LAST.match(said)
    if m is not None:
        return f"{m.group('wh')} {m.group('be')} {m.group('x')} {m.group('rest')}"
    m = _VERB_LAST.match(said)
    if m is not None and m.group("v").lower() not in ("is", "are", "was", "were", "ha", "doe", "do", "did"):
        several = not m.group("s")
        verb = m.group("v") + ("e" if m.group("s") == "es" and not m.group("v").endswith(("s", "sh", "ch", "x")) else "")
        return f"{m.group('wh')} {'do' if several else 'does'} {m.group('x')} {verb}{m.group('p') or ''}"
    return None


# The preposition said before its question word, as formal English puts it: "To which system does X belong", "Of which
# team is X a member", "On which teams do X's members serve" (the question and its verb after it)
_PREP_FIRST = re.compile(r"^(?P<p>to|of|under|within|in|on|for|from|with|inside|into|at)\s+(?P<wh>(?:which|what)\s+[a-z]+|whom|what)\s+"
                         r"(?P<rest>(?:is|are|was|were|does|do|did)\s+.+)$", re.IGNORECASE)


def preposition_fronted(text: str) -> str | None:
    """A question whose preposition comes before its question word, with the preposition at the end ("Of which team is
    X a member": "which team is X a member of"); None for other words. The question is then read by the whole
    interpreter, as said: a verb the catalog does not say with that preposition reads nothing."""
    m = _PREP_FIRST.match(_tidy(text))
    if m is None:
        return None
    wh = "who" if m.group("wh").lower() == "whom" else m.group("wh")
    return f"{wh} {m.group('rest')} {m.group('p').lower()}"


# "who owns what the matchmaker depends on": a free relative ("what X depends on") is "the things that X depends on"
_FREE = re.compile(r"^(?P<a>(?:who|which|what)(?:\s.+?)?\s(?:[a-z]+s|of|for|on|to|by|in|about|with))\s+what\s+(?P<x>(?!is\b|are\b|was\b|"
                   r"were\b|does\b|do\b|did\b).+)$", re.IGNORECASE)


def free_relative(text: str) -> str | None:
    """"who owns what X depends on" as "who owns the things that X depends on" (its head noun generic, so that the
    composed reading's answers are whatever X depends on); None for other words."""
    m = _FREE.match(_tidy(text))
    return None if m is None else f"{m.group('a')} the things that {m.group('x')}"


_WHAT = re.compile(r"^what(?:\s+|')(is|are|was|were|does|do|did|s)\s+(\S.*)$", re.IGNORECASE)


def what_variants(text: str, heads: dict[str, set[frozenset[str]]]) -> list[str]:
    """"what is X part of" as "which system is X part of": a "what" question that says no head noun, as each "which
    <noun>" question the phrasings ask with a noun of the verb's number (``heads``). The noun said is the phrasing's
    own, so it adds nothing the relation does not say; the caller answers only when every one that reads agrees."""
    m = _WHAT.match(_tidy(text))
    if m is None or not heads:
        return []
    verb = "is" if m.group(1).lower() == "s" else m.group(1)  # "what's"
    several = verb.lower() in ("are", "were", "do")
    return [f"which {noun} {verb} {m.group(2)}" for noun in sorted(heads)
            if noun.isalpha() and (_singular(noun) != noun) == several]
