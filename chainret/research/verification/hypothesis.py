"""The hypothesis operator H: a question becomes an object-level declarative proposition.

An NLI model is trained on pairs where premise and hypothesis are both claims about the
world. A hypothesis such as "this text answers Q" or "The answer of Q is something" is a
claim about a text or an answer, out of distribution, and the model degrades into a topic
detector (seed 000, footnote to Table VII: -0.06 AUC). So H rewrites the question itself:

    "Who directed Inception?"            -> "a person directed Inception."        (slot)
    H(..., answer="Christopher Nolan")   -> "Christopher Nolan directed Inception." (oracle)

Rules, not a parser: the forms in HotpotQA / 2Wiki / MuSiQue / SQuAD are few (fronted
who/what/which/when/where/how-many/why, wh in situ, yes/no inversion, "A or B" comparison,
MuSiQue's relational "X >> relation" sub-questions). Anything unrecognised falls back to a
neutral declarative of the question words, never to a meta-statement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["hypothesis", "Hypothesis", "analyse", "relation_question", "RELATION_QUESTIONS"]

_BE = {"is", "are", "was", "were", "am"}
_DO = {"do", "does", "did"}
_HAVE = {"has", "have", "had"}
_MODAL = {"can", "could", "will", "would", "should", "may", "might", "must", "shall"}
_AUX = _BE | _DO | _HAVE | _MODAL
_WH = {"who", "whom", "whose", "what", "which", "when", "where", "why", "how"}
_PREPS = {
    "in", "on", "at", "for", "from", "by", "with", "to", "of", "during", "since", "after", "before",
    "under", "into", "about", "between", "against", "through", "as", "near", "within", "over", "among",
}
_DETS = {"the", "a", "an", "both", "either", "each", "this", "that", "these", "those", "all"}
# Lower-case words that open a yes/no question's predicate ("Are X and Y *both* ...", "Is X *older* ...").
_PRED_CUES = {
    "both", "all", "from", "in", "on", "at", "a", "an", "located", "older", "younger", "taller", "shorter",
    "larger", "smaller", "bigger", "longer", "same", "still", "also", "currently", "ever", "only", "considered",
    "known", "part", "based", "made", "used", "not", "each", "american", "british", "english",
    "named", "found", "formed", "held", "built", "published", "produced", "directed", "written", "released",
    "members", "member", "citizens", "related", "either", "more", "less", "owned",
}
# Base-form verbs that follow the subject under do-support ("Do X and Y *have* ...").
_BASE_VERBS = {
    "have", "share", "play", "live", "come", "work", "star", "originate", "belong", "serve", "hold", "make", "write",
    "direct", "produce", "feature", "include", "use", "win", "appear", "compete", "release", "sing", "perform",
    "contain", "cover", "border", "run", "operate", "own", "publish", "require", "involve", "represent", "flow",
    "begin", "start", "end", "die", "become", "marry", "study", "teach", "attend", "receive", "develop", "found",
    "create", "record", "lead", "manage", "mean", "get", "give", "take", "go", "know", "say", "see", "show",
    "build", "design", "invent", "discover", "occur", "happen", "do", "need", "consist", "rely", "cause", "form",
    "sign", "join", "leave", "return", "move", "grow", "bear", "name", "call", "host", "air", "broadcast", "open",
    "close", "remain", "stay", "seem", "want", "hope", "believe", "consider", "decide", "determine", "describe",
}
_IRREGULAR_PAST = {
    "have": "had", "do": "did", "go": "went", "come": "came", "make": "made", "write": "wrote", "win": "won",
    "sing": "sang", "hold": "held", "lead": "led", "get": "got", "give": "gave", "take": "took", "know": "knew",
    "say": "said", "see": "saw", "build": "built", "begin": "began", "become": "became", "run": "ran",
    "grow": "grew", "bear": "bore", "leave": "left", "teach": "taught", "find": "found", "buy": "bought",
    "bring": "brought", "think": "thought", "fight": "fought", "meet": "met", "sell": "sold", "tell": "told",
    "speak": "spoke", "choose": "chose", "draw": "drew", "fly": "flew", "keep": "kept", "lose": "lost",
    "pay": "paid", "put": "put", "set": "set", "spend": "spent", "stand": "stood", "throw": "threw",
    "wear": "wore", "rise": "rose", "drive": "drove", "fall": "fell", "feel": "felt", "send": "sent",
    "shoot": "shot", "sit": "sat", "steal": "stole", "swim": "swam", "break": "broke", "eat": "ate",
    "forget": "forgot", "hear": "heard", "hide": "hid", "let": "let", "mean": "meant", "read": "read",
    "ride": "rode", "ring": "rang", "shake": "shook", "shine": "shone", "sleep": "slept", "strike": "struck",
    "understand": "understood", "wake": "woke", "withdraw": "withdrew", "overthrow": "overthrew", "be": "was",
}
_PARTICIPLE_IRREGULAR = {
    "born", "known", "held", "built", "made", "written", "given", "shown", "taken", "won", "sung", "led",
    "sold", "found", "founded", "begun", "become", "grown", "drawn", "chosen", "spoken", "thrown", "run",
    "set", "put", "sent", "brought", "bought", "taught", "thought", "fought", "told", "kept", "lost", "paid",
    "buried", "named", "called", "located", "based", "released", "established", "created", "formed", "played",
}
# How + adjective: what the slot stands for.
_HOW_ADJ = {
    "old": "of some age", "long": "of some length", "tall": "of some height", "far": "some distance away",
    "big": "of some size", "large": "of some size", "high": "of some height", "deep": "of some depth",
    "wide": "of some width", "often": "with some frequency", "much": "some amount",
}


@dataclass(frozen=True)
class Hypothesis:
    """The proposition and the form H recognised (kept for tests and per-type reporting)."""

    text: str
    form: str  # "wh-subject", "wh-object", "wh-adverbial", "wh-in-situ", "yes-no", "comparison", "relation", "fallback"


def hypothesis(question: str, answer: str | None = None) -> str:
    """Return H(question): the slot version, or the oracle version when ``answer`` is given."""
    return analyse(question, answer).text


def analyse(question: str, answer: str | None = None) -> Hypothesis:
    """H with the recognised form. ``answer`` (gold) fills the slot: the oracle variant."""
    q = _clean(question)
    if not q:
        return Hypothesis("", "fallback")
    if ">>" in q:
        subj, _, rel = q.partition(">>")
        q = _clean(relation_question(subj.strip(), rel.strip()))
        out = _dispatch(q, answer)
        return Hypothesis(out.text, "relation")
    return _dispatch(q, answer)


def _dispatch(q: str, answer: str | None) -> Hypothesis:
    comp = _comparison(q, answer)
    if comp is not None:
        return comp
    words = q.split()
    first = words[0].lower()
    if first in _AUX and len(words) > 2 and _lower(words[1]) not in _WH:
        return _finish(_yes_no(words, answer), "yes-no")
    wh = _find_wh(words)
    if wh is None:
        return _finish(q, "fallback")
    start, end = wh  # the wh-phrase is words[start:end]
    if start == 1 and _lower(words[0]) in _PREPS:
        return _fronted(words, 0, end, answer)  # "In what country did ...": the preposition travels with the slot
    if start > 0:
        return _finish(_in_situ(words, start, end, answer), "wh-in-situ")
    return _fronted(words, start, end, answer)


# ---------------------------------------------------------------------------------------------
# wh-phrases


def _find_wh(words: list[str]) -> tuple[int, int] | None:
    """Locate the first wh-word (not a relative 'which/who' after a noun) and its phrase end."""
    for i, w in enumerate(words):
        lw = _lower(w)
        if lw not in _WH:
            continue
        if i > 0 and lw in {"who", "which", "that", "where", "when", "whose"} and not _wh_licensed(words, i):
            continue  # a relative clause ("the woman who portrayed ..."), not the question word
        return i, _wh_end(words, i)
    return None


def _wh_licensed(words: list[str], i: int) -> bool:
    prev = _lower(words[i - 1])
    # "in which county", "for what", "is which" ... : an interrogative in situ
    if words[i - 1].endswith(","):
        return True  # "Between A and B, which ..." : the question word after an introductory phrase
    if prev in _PREPS or prev in _BE or prev in {"and", "or", "as", "the"}:
        return i == len(words) - 1 or _lower(words[i]) in {"which", "what", "whom", "whose"}
    return False


def _wh_end(words: list[str], i: int) -> int:
    lw = _lower(words[i])
    j = i + 1
    if lw in {"what", "which", "whose"}:
        # the head noun phrase: stop before an auxiliary, a verb-looking word or a clause boundary
        while j < len(words):
            t = words[j]
            tl = _lower(t)
            prev = _lower(words[j - 1])
            if tl in _AUX or tl in _WH or tl == "that":
                break
            if j > i + 1 and _verbish(tl) and not t[:1].isupper():
                break
            if j > i + 1 and tl in {"the", "a", "an"} and prev not in _PREPS and prev != "and":
                break  # "Which country the composer of ... is from?" : a new subject starts
            if j > i + 1 and t[:1].isupper() and not words[j - 1][:1].isupper() and prev not in _PREPS | {"the", "and"}:
                break  # "Which country Nido Taniam's father ..." : a new subject starts
            j += 1
            if t.endswith(",") and (j >= len(words) or not words[j][:1].isupper()):
                break  # "What Finnish Christmas figure, which ..." ; but "Imperial County, California" goes on
        return j
    if lw == "how" and j < len(words):
        nxt = _lower(words[j])
        if nxt in {"many", "much"}:
            j += 1
            while j < len(words) and _lower(words[j]) not in _AUX and not _verbish(_lower(words[j])):
                j += 1
            return j
        if nxt in _HOW_ADJ:
            return j + 1
    return j


_TIME_NOUNS = {"year", "years", "decade", "century", "month", "date", "day"}


def _filler(words: list[str], start: int, end: int, answer: str | None, appositive: bool = False) -> tuple[str, str]:
    """(slot text, kind) for the wh-phrase. kind: 'np' (a noun phrase) or 'adv' (an adverbial)."""
    phrase = words[start:end]
    prep = ""
    if _lower(phrase[0]) in _PREPS:
        prep, phrase = phrase[0].lower(), phrase[1:]
    wh = _lower(phrase[0])
    rest = " ".join(phrase[1:]).rstrip(",")
    if wh in {"who", "whom"}:
        np = answer if answer else "a person"
    elif wh == "whose":
        owner = f"{answer}'s" if answer else "a person's"
        np = f"{owner} {rest}".strip()
    elif wh in {"what", "which"} and not prep and rest and _lower(rest.split()[0]) in _TIME_NOUNS:
        return (_date_pp(answer) if answer else f"in {_article(rest)} {rest}"), "adv"
    elif wh in {"what", "which"}:
        if answer and len(rest.split()) >= 2 and appositive:
            np = f"{answer}, {_article(rest)} {rest},"  # keep what the question says about the slot
        elif answer:
            np = answer
        elif rest:
            np = f"{_article(rest)} {rest}"
        else:
            np = "something"
    elif wh == "when":
        return (_date_pp(answer) if answer else "at some time"), "adv"
    elif wh == "where":
        return (f"in {answer}" if answer else "in some place"), "adv"
    elif wh == "why":
        return (f"because of {answer}" if answer else "for some reason"), "adv"
    elif wh == "how":
        adj = _lower(phrase[1]) if len(phrase) > 1 else ""
        if adj in {"many", "much"}:
            noun = " ".join(phrase[2:])
            if answer:
                np = answer if (not noun or noun.lower() in answer.lower() or not _numeric(answer)) else f"{answer} {noun}"
            else:
                np = f"some number of {noun}".strip() if adj == "many" else f"some amount of {noun}".strip()
        elif adj in _HOW_ADJ:
            if answer and adj in {"old", "long", "tall", "high", "deep", "wide", "far"} and adj not in answer.lower():
                return f"{answer} {'away' if adj == 'far' else adj}", "adv"
            return (answer if answer else _HOW_ADJ[adj]), "adv"
        else:
            return (f"by {answer}" if answer else "in some way"), "adv"
    else:
        np = answer or "something"
    if prep:
        if wh in {"what", "which"} and answer and rest and _lower(rest.split()[0]) in _TIME_NOUNS:
            return _date_pp(answer), "adv"
        return f"{prep} {np}", "adv"
    return np, "np"


def _fronted(words: list[str], start: int, end: int, answer: str | None) -> Hypothesis:
    slot, kind = _filler(words, start, end, answer)
    rest = words[end:]
    if not rest:
        return _finish(slot, "wh-subject")
    head = _lower(rest[0])
    if head in _DO:
        # "Who did X marry?" -> "X married a person" ; "When did X die?" -> "X died at some time"
        body = _do_support(rest[1:], head)
        return _finish(_attach(body, slot, kind), "wh-object" if kind == "np" else "wh-adverbial")
    if kind == "adv" or (head in _AUX and _ends_open(rest)):
        # "Where was X born?" -> "X was born in some place"; "What is X known as?" -> "X is known as something"
        if head in _AUX:
            body = _invert(rest)
        else:
            body = " ".join(rest)
        return _finish(_attach(body, slot, kind), "wh-adverbial" if kind == "adv" else "wh-object")
    if head in _AUX or _verbish(head) or head in _PREPS or head in {"which", "who", "that"} or (
        rest[0][:1].islower() and head not in _DETS
    ):
        # subject question: "Who directed Inception?", "Which region ... was the city where ..."
        slot, _ = _filler(words, start, end, answer, appositive=True)
        return _finish(f"{slot} {' '.join(rest)}", "wh-subject")
    # "Which country Nido Taniam's father is from?" : the clause follows, the slot goes to its gap (the end)
    return _finish(_attach(" ".join(rest), slot, kind), "wh-object")


def _in_situ(words: list[str], start: int, end: int, answer: str | None) -> str:
    slot, _ = _filler(words, start, end, answer)
    before = " ".join(words[:start])
    after = " ".join(words[end:])
    return f"{before} {slot} {after}".strip()


# ---------------------------------------------------------------------------------------------
# yes/no and comparison


def _yes_no(words: list[str], answer: str | None) -> str:
    aux, rest = words[0].lower(), words[1:]
    split = _predicate_start(rest, aux in _DO)
    subj, pred = " ".join(rest[:split]), rest[split:]
    if aux in _DO:
        if pred:
            pred = [_inflect(pred[0], aux)] + pred[1:]
        verb_phrase = " ".join(pred)
        neg = f"{'did' if aux == 'did' else ('does' if aux == 'does' else 'do')} not "
        if _is_no(answer):
            return f"{subj} {neg}{' '.join([_base(pred[0])] + pred[1:]) if pred else ''}"
        return f"{subj} {verb_phrase}"
    neg = " not" if _is_no(answer) else ""
    return f"{subj} {aux}{neg} {' '.join(pred)}"


def _predicate_start(rest: list[str], do_support: bool) -> int:
    for i, t in enumerate(rest):
        if i == 0:
            continue
        tl = _lower(t)
        prev_cap = rest[i - 1][:1].isupper() or rest[i - 1][:1].isdigit() or rest[i - 1].endswith(")")
        if do_support and tl in _BASE_VERBS:
            return i
        if do_support:
            continue
        if not do_support and tl in {"the", "a", "an"} and prev_cap:
            if tl == "the" and i + 1 < len(rest) and _lower(rest[i + 1]) != "same" and rest[i + 1][:1].isupper():
                continue  # "Are X and the Y ..." inside a name list
            return i
        if not do_support and (tl in _PRED_CUES or (tl.endswith("ed") and len(tl) > 4)) and (prev_cap or tl in {"both", "all"}):
            if tl == "both" and i == 0:
                continue
            return i
        if not do_support and tl == "of" and i + 2 < len(rest) and _lower(rest[i + 1]) == "the" and _lower(rest[i + 2]) == "same":
            return i
    if do_support:
        # no known verb: the first lower-case word after a name ("did Rudolf Hess *stop* ...")
        for i, t in enumerate(rest[1:], start=1):
            prev = rest[i - 1]
            if t[:1].islower() and (prev[:1].isupper() or prev[:1] in "#(" or prev[:1].isdigit() or prev.endswith(")")):
                return i
    return len(rest)


_COMP_RE = re.compile(r"^(?P<main>.+?),?\s+(?P<a>[^,]+?)\s+or\s+(?P<b>[^,]+?)$")


def _comparison(q: str, answer: str | None) -> Hypothesis | None:
    """"Who was born first, A or B?" -> "Of A and B, a person was born first." (oracle: "A was born first, before B")."""
    if " or " not in q or "," not in q:
        return None
    m = _COMP_RE.match(q)
    if not m or "," not in q[: m.start("a")]:
        return None
    main, a, b = m.group("main").strip().rstrip(","), m.group("a").strip(), m.group("b").strip()
    mw = main.split()
    if not mw or (_lower(mw[0]) not in _WH and _lower(mw[0]) not in _AUX):
        return None
    if _lower(mw[0]) in _AUX:  # "Are X or Y ..., A or B" is rare; treat as yes/no over the main clause
        return None
    if answer:
        other = b if _same(answer, a) else a if _same(answer, b) else None
        inner = _dispatch(main, answer).text.rstrip(".")
        if other is not None:
            return Hypothesis(f"{inner}, not {other}.", "comparison")
        return Hypothesis(f"Of {a} and {b}, {inner}.", "comparison")
    inner = _dispatch(main, None).text.rstrip(".")
    inner = _decap(inner)
    return Hypothesis(f"Of {a} and {b}, {inner}.", "comparison")


# ---------------------------------------------------------------------------------------------
# helpers


def _do_support(rest: list[str], aux: str) -> str:
    split = _predicate_start(rest, True)
    if split >= len(rest):
        return " ".join(rest)
    verb = _inflect(rest[split], aux)
    return " ".join(rest[:split] + [verb] + rest[split + 1 :])


def _invert(rest: list[str]) -> str:
    """"was X born" -> "X was born": move the auxiliary after the subject."""
    aux, body = rest[0], rest[1:]
    for i, t in enumerate(body):
        if i == 0:
            continue
        tl = _lower(t)
        if tl in _PARTICIPLE_IRREGULAR or (tl.endswith("ed") and len(tl) > 3 and not t[:1].isupper()) or tl in {"known", "used"}:
            return " ".join(body[:i] + [aux] + body[i:])
    return " ".join(body + [aux])


def _attach(body: str, slot: str, kind: str) -> str:
    body = body.strip()
    if kind == "np" and body.split() and _lower(body.split()[-1]) in _BE:
        return f"{body} {slot}"
    return f"{body} {slot}"


def _ends_open(rest: list[str]) -> bool:
    """The clause misses an object/complement at its end ("known as", "born in", "named after")."""
    if any(_lower(t) in {"where", "who", "which", "that", "whose", "when"} for t in rest[1:]):
        return False  # the open end belongs to a relative clause ("... the city where X is located")
    last = _lower(rest[-1])
    return last in _PREPS or last in _PARTICIPLE_IRREGULAR or (last.endswith("ed") and len(last) > 3)


def _inflect(verb: str, aux: str) -> str:
    v = verb.lower() if verb[:1].islower() else verb
    if aux == "did":
        if v in _IRREGULAR_PAST:
            return _IRREGULAR_PAST[v]
        if v.endswith("e"):
            return v + "d"
        if len(v) <= 4 and re.search(r"[^aeiou][aeiou][bdgmnpt]$", v):
            return v + v[-1] + "ed"  # stop -> stopped
        if re.search(r"[^aeiou]y$", v):
            return v[:-1] + "ied"
        return v + "ed"
    if aux == "does":
        if v == "have":
            return "has"
        if v == "do":
            return "does"
        if re.search(r"(s|sh|ch|x|z|o)$", v):
            return v + "es"
        if re.search(r"[^aeiou]y$", v):
            return v[:-1] + "ies"
        return v + "s"
    return v


def _base(verb: str) -> str:
    inverse = {v: k for k, v in _IRREGULAR_PAST.items()}
    if verb in inverse:
        return inverse[verb]
    if verb == "has":
        return "have"
    for suffix, repl in (("ied", "y"), ("ies", "y"), ("ed", ""), ("es", ""), ("s", "")):
        if verb.endswith(suffix) and len(verb) > len(suffix) + 2:
            return verb[: -len(suffix)] + repl
    return verb


_PAST_FORMS = set(_IRREGULAR_PAST.values()) - {"read", "put", "set", "let", "found", "left"}


def _verbish(tl: str) -> bool:
    return (
        tl in _BASE_VERBS
        or tl in _PARTICIPLE_IRREGULAR
        or tl in _PAST_FORMS
        or (tl.endswith("ed") and len(tl) > 4)
    )


def _article(noun_phrase: str) -> str:
    first = noun_phrase.split()[0].lower()
    if first.endswith("s") and not first.endswith("ss") and len(first) > 3:
        return "some"
    return "an" if first[:1] in "aeiou" else "a"


def _date_pp(answer: str | None) -> str:
    a = (answer or "").strip()
    if a.split() and a.split()[0].lower() in _PREPS | {"during", "around", "circa", "about"}:
        return a
    if re.fullmatch(r"\d{3,4}s?", a):
        return f"in {a}"
    if re.search(r"\d", a) and re.search(r"[A-Za-z]", a):
        return f"on {a}"
    return f"in {a}"


def _numeric(s: str) -> bool:
    return bool(re.fullmatch(r"[\d,.\s]+|[a-z]+(-[a-z]+)?", s.strip().lower()))


def _is_no(answer: str | None) -> bool:
    return answer is not None and answer.strip().lower() in {"no", "false"}


def _same(a: str, b: str) -> bool:
    norm = lambda s: re.sub(r"[^a-z0-9]", "", s.lower())  # noqa: E731
    return norm(a) == norm(b)


def _lower(token: str) -> str:
    return token.lower().strip(",;:\"'")


def _decap(text: str) -> str:
    words = text.split()
    if words and words[0] in {"A", "An", "Some", "Something"}:
        words[0] = words[0].lower()
    return " ".join(words)


def _clean(question: str) -> str:
    q = " ".join(question.replace("\u00a0", " ").split())
    q = q.rstrip(" ?.!").strip()
    return q


def _finish(text: str, form: str) -> Hypothesis:
    t = " ".join(text.split()).strip(" ,")
    t = re.sub(r"\s+([,;:])", r"\1", t)
    t = re.sub(r",\s*,", ",", t)
    if t and not t.endswith("."):
        t += "."
    if t[:1].islower() and not t.startswith(("a ", "an ", "some")):
        t = t[0].upper() + t[1:]
    return Hypothesis(t, form)


# ---------------------------------------------------------------------------------------------
# relations (MuSiQue "X >> relation", 2Wiki evidence triples)

RELATION_QUESTIONS: dict[str, str] = {
    "director": "Who directed {s}?",
    "father": "Who is the father of {s}?",
    "mother": "Who is the mother of {s}?",
    "spouse": "Who is the spouse of {s}?",
    "child": "Who is a child of {s}?",
    "sibling": "Who is a sibling of {s}?",
    "date of birth": "When was {s} born?",
    "date of death": "When did {s} die?",
    "place of birth": "Where was {s} born?",
    "place of death": "Where did {s} die?",
    "place of burial": "Where was {s} buried?",
    "cause of death": "What did {s} die of?",
    "country of citizenship": "Which country is {s} a citizen of?",
    "country of origin": "Which country does {s} come from?",
    "country": "Which country is {s} in?",
    "publication date": "When was {s} released?",
    "inception": "When was {s} founded?",
    "performer": "Who performed {s}?",
    "composer": "Who composed the music for {s}?",
    "author": "Who wrote {s}?",
    "screenwriter": "Who wrote the screenplay of {s}?",
    "producer": "Who produced {s}?",
    "creator": "Who created {s}?",
    "publisher": "Who published {s}?",
    "presenter": "Who presented {s}?",
    "educated at": "Where was {s} educated?",
    "employer": "Who employed {s}?",
    "award received": "Which award did {s} receive?",
    "has part": "What is a part of {s}?",
    "part of": "What is {s} part of?",
    "member of": "What is {s} a member of?",
    "member of sports team": "Which team did {s} play for?",
    "member of political party": "Which political party was {s} a member of?",
    "located in the administrative territorial entity": "Where is {s} located?",
    "location": "Where is {s} located?",
    "work location": "Where did {s} work?",
    "headquarters location": "Where is the headquarters of {s}?",
    "shares border with": "Which place shares a border with {s}?",
    "capital": "What is the capital of {s}?",
    "capital of": "What is {s} the capital of?",
    "contains administrative territorial entity": "Which place is located in {s}?",
    "owned by": "Who owns {s}?",
    "operator": "Who operates {s}?",
    "manufacturer": "Who manufactured {s}?",
    "cast member": "Who starred in {s}?",
    "record label": "Which record label released {s}?",
    "named after": "Who is {s} named after?",
    "religion": "What religion does {s} follow?",
    "located on terrain feature": "Which terrain feature is {s} on?",
    "crosses": "What does {s} cross?",
    "position held": "Which position did {s} hold?",
    "followed by": "What followed {s}?",
    "follows": "What did {s} follow?",
    "location of formation": "Where was {s} formed?",
    "licensed to broadcast to": "Which place is {s} licensed to broadcast to?",
    "continent": "Which continent is {s} on?",
    "instrument": "Which instrument does {s} play?",
    "winner": "Who won {s}?",
    "part of the series": "Which series is {s} part of?",
    "original broadcaster": "Which network first broadcast {s}?",
    "platform": "Which platform is {s} available on?",
    "occupation": "What is the occupation of {s}?",
    "genre": "What genre is {s}?",
    "developer": "Who developed {s}?",
    "founded by": "Who founded {s}?",
    "parent organization": "What is the parent organization of {s}?",
    "mouth of the watercourse": "Where does {s} flow into?",
    "languages spoken, written or signed": "Which language does {s} speak?",
    "editor": "Who edited {s}?",
    "doctoral advisor": "Who was the doctoral advisor of {s}?",
    "stepparent": "Who is the stepparent of {s}?",
}


def relation_question(subject: str, relation: str) -> str:
    """A natural question for (subject, relation, ?), e.g. ("Inception", "director") -> "Who directed Inception?"."""
    rel = " ".join(relation.lower().split())
    template = RELATION_QUESTIONS.get(rel)
    if template is None:
        # Unseen relation: an object-level "What is the <relation> of <subject>?" (H makes it
        # "something is the <relation> of <subject>."), still a claim about the world.
        template = "What is the " + rel + " of {s}?"
    return template.format(s=subject.strip())
