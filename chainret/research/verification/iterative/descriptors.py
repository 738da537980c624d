"""Descriptors: the noun phrases that stand for an unknown entity, and the sub-question each asks."""

from __future__ import annotations

from dataclasses import dataclass


from chainret.research.verification.iterative.lexicon import _ATTRIBUTE, _AUX, _DET, _ENTITY_NOUNS, _NAME_GLUE, _NUM, _ORG, _PERSON, _PERSON_NOUNS, _PLACE, _PRENOMINAL, _REL1, _REL_PREP, _TIME, _WH, _WORK_TYPES
from chainret.research.verification.iterative.tokens import _Tok, _is_cap


@dataclass
class _Desc:
    start: int  # token span [start, end) in the current question
    end: int
    head: list[str]  # the descriptor's noun words ("record label")
    kind: str  # of | clause | possessive | prenominal | bare | implicit
    entity: tuple[int, int] | None  # the known entity it contains (token span)
    fill: str = "{}"  # how the bridge replaces the span ("is {}": "which county [was X born]" -> "which county is B")
    query: str | None = None  # the sub-question when the span does not spell it (implicit descriptors)

    def answer_type(self) -> str:
        words = set(self.head)
        if words & _TIME:
            return "time"
        if words & _NUM:
            return "number"
        if words & _PLACE:
            return "place"
        if words & _PERSON:
            return "person"
        return "thing"


def _descriptors(toks: list[_Tok], entities: list[tuple[int, int, str]]) -> list[_Desc]:
    """Every descriptor the rules find in the question (possibly nested)."""
    ent_at = {a: (a, b) for a, b, _ in entities}
    in_ent = {i for a, b, _ in entities for i in range(a, b)}
    low = [t.low for t in toks]
    out: list[_Desc] = []
    n = len(toks)

    def entity_from(i: int) -> tuple[int, int] | None:
        while i < n and toks[i].text in {'"', "“", "'"}:
            i += 1
        if i < n and i in ent_at:
            return ent_at[i]
        if i + 1 < n and low[i] in _DET | _WORK_TYPES and (i + 1) in ent_at:
            return ent_at[i + 1]  # "the Alcazar", "film Harbor Nights"
        k = i + (i < n and low[i] in _DET)
        k += k < n and toks[k].text.isdigit()
        if k + 1 < n and k > i and low[k] in _WORK_TYPES and (k + 1) in ent_at:
            return ent_at[k + 1]  # "the 1931 film Harbor Nights"
        return None

    for i, t in enumerate(toks):
        if i in in_ent:
            continue
        # possessive: ENT 's rel-noun(s)
        if t.text == "'s" and (i - 1) in in_ent:
            a = next(a for a, b, _ in entities if a <= i - 1 < b)
            j = i + 1
            head: list[str] = []
            while (j < n and len(head) < 3 and toks[j].text.isalpha() and toks[j].text[0].islower()
                   and low[j] not in _REL1 | _REL_PREP | _AUX | _DET and not (head and _participle(low[j]))):
                head.append(low[j])
                j += 1
            head = _trim_head(head)
            j = i + 1 + len(head)
            if head and _entity_head(head, strict=True):
                out.append(_Desc(a, j, head, "possessive", (a, i)))
            continue
        if low[i] not in _DET:
            continue
        # prenominal: the ENT rel-noun
        e = ent_at.get(i + 1)
        if not (e and e[1] < n and low[e[1]] in _PRENOMINAL | _PERSON_NOUNS):
            e = _title_before_noun(toks, i + 1)
        if e and e[1] < n and low[e[1]] in _PRENOMINAL | _PERSON_NOUNS:
            j = e[1] + 1
            while j < n and low[j] in _PRENOMINAL | _PERSON_NOUNS:
                j += 1
            if j < n and low[j] in _REL1 - {"when", "where"}:  # "the Acme executive who resigned": the clause too
                desc = _clause(toks, i, j, low[e[1] : j], entities)
                if desc:
                    out.append(desc)
                    continue
            out.append(_Desc(i, j, low[e[1] : j], "prenominal", e))
            continue
        # the + noun words + relativizer
        j = i + 1
        head = []
        while (j < n and len(head) < 4 and toks[j].text.isalpha() and toks[j].text[0].islower()
               and low[j] not in _REL1 | _REL_PREP | _AUX | _DET and not (head and _participle(low[j]))):
            head.append(low[j])
            j += 1
            if (j + 2 < n and low[j] == "of" and toks[j + 1].text.isalpha() and toks[j + 1].text[0].islower()
                    and low[j + 1] not in _DET and low[j + 2] in _REL1):
                head += ["of", low[j + 1]]
                j += 2
        place_clause = bool(head) and j < n and low[j] == "where" and head[-1] in _PLACE  # "the area where X is"
        if not head or j >= n or not (_entity_head(head) or place_clause):
            continue
        if _participle(low[j]) and j + 1 < n and low[j + 1] in _REL_PREP:  # "the person featured on X"
            desc = _clause(toks, i, j - 1, head, entities)
            if desc:
                out.append(desc)
            continue
        if low[j] == "of":
            if not _entity_head(head, strict=True):
                continue
            ent = entity_from(j + 1)
            if ent and ent[1] < n and toks[ent[1]].text == "'s":
                continue  # "the capital of [X's headquarters location]": the possessive comes first
            if ent:
                out.append(_Desc(i, ent[1], head, "of", ent))
            elif not _desc_starts_at(toks, j + 1):
                end = _boundary(toks, j + 1)
                if end > j + 1:
                    out.append(_Desc(i, end, head, "of", None))
            continue
        if entity_from(j) and not (j in ent_at and j + 1 < n and toks[j].text and low[ent_at[j][1] - 1] in _PRENOMINAL):
            # reduced relative: "the person Hallett's constant was named after", "the city KQRX-FM serves"
            desc = _clause(toks, i, j - 1, head, entities)
            if desc:
                out.append(desc)
            continue
        if low[j] in _REL_PREP and low[j] != "of" and entity_from(j + 1):
            ent = entity_from(j + 1)
            assert ent is not None
            if ent[1] < n and low[ent[1]] in _REL1:  # "the town in Oregon where Ida Merrow was born"
                desc = _clause(toks, i, ent[1], head + [low[j]], entities)
                if desc:
                    out.append(desc)
            elif not (ent[1] < n and toks[ent[1]].text == "'s"):  # "the actress in Harbor Nights"
                out.append(_Desc(i, ent[1], head, "of", ent))
            continue
        if low[j] in _REL_PREP and low[j] != "of" and head[-1] in _PERSON_NOUNS | _ORG:
            # "the player with the most goals in Lorn League history": a prepositional phrase, then its entity
            k = j + 1
            while k < n and toks[k].text.isalpha() and toks[k].text.islower() and low[k] not in _REL1 | _AUX:
                k += 1
            ent = ent_at.get(k)
            if ent and k > j + 1 and low[k - 1] in _REL_PREP and not (ent[1] < n and toks[ent[1]].text == "'s"):
                out.append(_Desc(i, ent[1], head, "of", ent))
                continue
        r = j + 1 if (low[j] in _REL_PREP and j + 1 < n and low[j + 1] in {"which", "whom"}) else j
        if low[r] not in _REL1:
            continue
        desc = _clause(toks, i, r, head, entities)
        if desc:
            out.append(desc)
    out += _implicit_places(toks, entities)
    # bare "where X was born" / "who wrote X" (no noun head)
    for i in range(len(toks)):
        if i > 0 and low[i] in {"where", "who"} and low[i - 1] in _REL_PREP | {"of"} and not any(d.start <= i < d.end for d in out):
            d = _clause(toks, i, i, ["where" if low[i] == "where" else "who"], entities)
            if d:
                d.kind = "bare"
                out.append(d)
    return out


_TITLE_GLUE = _REL_PREP | _DET | _NAME_GLUE | {"and", "or", "-", "–", ":", "&", "'s", "is", "are", "you", "me", "my", "your"}
_UNITS = {"county", "district", "borough", "province", "region", "state", "oblast", "municipality", "territory", "entity",
          "area", "parish", "prefecture"}  # administrative units a birthplace lies in
_ORIGIN = {"born": "born", "died": "die", "formed": "formed", "founded": "founded"}


def _implicit_places(toks: list[_Tok], entities: list[tuple[int, int, str]]) -> list[_Desc]:
    """"Which county was X born in?", "In which district did X die?": the unit is asked of X's birthplace (or place
    of death, formation), an entity the question never names; hop 1 is "Where was X born?"."""
    low = [t.low for t in toks]
    n = len(toks)
    out = []
    for a, b, _ in entities:
        verb = low[b] if b < n else ""
        if verb not in _ORIGIN and not (verb in {"die", "form"} and a > 0 and low[a - 1] == "did"):
            continue
        ent = _detok(toks[a:b])
        query = (f"Where did {ent} die?" if verb in {"died", "die"} else
                 f"Where was {ent} formed?" if verb == "form" else f"Where was {ent} {_ORIGIN[verb]}?")
        if a >= 3 and low[a - 1] in {"was", "is", "did"} and low[a - 2] in _UNITS and low[a - 3] in {"what", "which"}:
            out.append(_Desc(a - 1, b + 1, ["place"], "implicit", (a, b), fill="is {}", query=query))
    return out


def _title_before_noun(toks: list[_Tok], a: int) -> tuple[int, int] | None:
    """A title with lowercase words inside ("the Walk on By cast member", "the 1999 Open - Singles winner"): from a
    capitalised token to the capitalised token before a relation noun, only title words in between."""
    if a >= len(toks) or not _is_cap(toks[a].text):
        return None
    for k in range(a + 1, min(a + 10, len(toks))):
        t = toks[k]
        if t.text.islower() and t.low in _PRENOMINAL | _PERSON_NOUNS:
            return (a, k) if _is_cap(toks[k - 1].text) else None
        if not (_is_cap(t.text) or t.low in _TITLE_GLUE):
            return None
    return None


def _trim_head(head: list[str]) -> list[str]:
    """The noun phrase ends at its last entity noun: "birthplace fall" is "birthplace" and a verb."""
    known = [k for k, w in enumerate(head) if w in _ENTITY_NOUNS]
    return head[: known[-1] + 1] if known else head


def _entity_head(head: list[str], strict: bool = False) -> bool:
    """Does the descriptor name an entity one can retrieve (not an attribute: "the role of", "the source of")?

    ``strict`` (possessive and "of" descriptors, where "the name of X" is common): the head must be a
    known entity noun or an agent noun ("abolisher", "discoverer"); otherwise any noun but an attribute.
    """
    noun = head[-1]  # the head noun decides; modifiers ("original", "voice", "first") do not
    if noun in _ATTRIBUTE:
        return False
    if noun in _PERSON | _PLACE | _ORG or noun.endswith(("er", "or", "ist", "ian")):
        return True  # an entity or agent noun ("the highest goal scorer", "the first governor")
    if set(head) & _ATTRIBUTE:
        return False
    return not strict


def _desc_starts_at(toks: list[_Tok], i: int) -> bool:
    return i < len(toks) and toks[i].low in _DET


def _boundary(toks: list[_Tok], i: int) -> int:
    """First punctuation (or the end) from token i."""
    while i < len(toks) and (toks[i].text[0].isalnum() or toks[i].text == "'s"):
        i += 1
    return i


def _clause(toks: list[_Tok], start: int, r: int, head: list[str], entities: list[tuple[int, int, str]]) -> _Desc | None:
    """``the <head> <rel> ...``: where the relative clause ends, and its entity."""
    n = len(toks)
    low = [t.low for t in toks]
    stop = _boundary(toks, r + 1)
    for a, b, _ in sorted(entities):
        if a < stop < b:
            stop = _boundary(toks, b)
    inside = [(a, b) for a, b, _ in entities if r < a and b <= stop]
    subj = next(((a, b) for a, b in inside if a in (r + 1, r + 2) and (a == r + 1 or low[r + 1] in _DET)), None)
    if subj is not None:  # the entity is the clause's subject: "where Ida Merrow was born"
        j = subj[1]
        rest = [t for t in toks[j:stop]]
        verbs = [t for t in rest if _participle(t.low)]
        aux_part = j + 1 < n and low[j] in _AUX and _participle(low[j + 1])
        if not aux_part and 0 < len(rest) <= 7 and len(verbs) <= 1 and not any(t.low in _REL1 for t in rest):
            j = stop  # "is a member of", "ranks sixth by revenue"
        elif j < n and low[j] in _AUX:
            j += 1
            if j < n and low[j] == "not":
                j += 1
            if j < n and toks[j].text.isalpha() and toks[j].text[0].islower() and low[j] not in _REL_PREP | _DET:
                j += 1
            if j < n and low[j] in _REL_PREP and (j + 1 >= n or not toks[j + 1].text[0].isalnum()):
                j += 1
        elif j < n and toks[j].text.isalpha() and toks[j].text[0].islower() and low[j] not in _REL_PREP | _DET:
            j += 1  # "where X lived"
        return _Desc(start, j, head, "clause", subj)
    if inside:  # the entity is an object: "the school that owns The Harbor Gazette"
        a, b = inside[0]  # the verb's first object, then its prepositional complements
        end = b
        ent_end = {a: b for a, b, _ in entities}
        while True:
            while end < stop and (toks[end].text[0].isdigit() or _is_cap(toks[end].text)):
                end += 1  # a name continued by a model number or a capitalised word the entity list lacks
            if end + 1 < stop and low[end] in _REL_PREP and (end + 1 in ent_end or (low[end + 1] in _DET and end + 2 in ent_end)):
                end = ent_end[end + 1] if end + 1 in ent_end else ent_end[end + 2]  # "who plays Anna in Frozen Lake"
                continue
            break
        return _Desc(start, end, head, "clause", inside[0])
    if stop > r + 1:
        do_support = any(t.low in {"did", "does", "do"} for t in toks[1:3]) and start > 1
        if do_support and stop >= n - 1:  # "When did [the man who ... empire] die?": the bare verb is the question's
            end = stop - 1 - (low[stop - 1] in _REL_PREP)
            if end > r + 1 and toks[end - 1].text.islower():
                return _Desc(start, end, head, "clause", None)
        inverted = 2 <= start <= 4 and low[0] in _WH and low[start - 1] in {"was", "is", "were", "are"}
        if inverted and stop >= n - 1:  # "When was [the comet that ... oxygen] discovered to be ...?"
            verb = next((k for k in range(stop - 1, r + 2, -1) if _participle(low[k]) and low[k - 1] not in _AUX), None)
            if verb is not None:
                return _Desc(start, verb, head, "clause", None)
        return _Desc(start, stop, head, "clause", None)
    return None


def _participle(w: str) -> bool:
    return w.endswith(("ed", "en", "wn")) or w in {"born", "made", "held", "built", "won", "led", "sold", "found", "set",
                                                   "run", "sung", "written", "known", "located", "based"}


def _innermost(descs: list[_Desc]) -> _Desc | None:
    """A descriptor containing no other; prefer one with a known entity, then the rightmost."""
    inner = [d for d in descs if not any(o is not d and d.start <= o.start and o.end <= d.end and (o.start, o.end) != (d.start, d.end) for o in descs)]
    if not inner:
        return None
    return min(inner, key=lambda d: (d.entity is None, -d.end))  # English nests rightwards


def _shell_only(toks: list[_Tok], d: _Desc) -> bool:
    """"Who is [the president of X]?", "What is the name of [the bridge in X]?": the descriptor is what
    the question asks for; replacing it would leave no question."""
    rest = [t.low for k, t in enumerate(toks) if not (d.start <= k < d.end) and t.text[0].isalnum()]
    return all(w in _WH | _AUX | _DET | {"of", "name", "names", "title", "called", "known"} for w in rest)


def subquestion_of(toks: list[_Tok], d: _Desc) -> str:
    """Hop k's natural sub-question for a descriptor (also its retrieval query)."""
    if d.query is not None:
        return d.query
    span = toks[d.start : d.end]
    text = _detok(span)
    if d.kind == "possessive":
        return f"What is {text}?"
    if d.kind == "prenominal":
        ent = _detok(toks[d.entity[0] : d.entity[1]]) if d.entity else ""
        return f"{'Who' if d.answer_type() == 'person' else 'What'} is the {' '.join(d.head)} of {ent}?"
    if d.kind == "bare":
        return text[0].upper() + text[1:] + "?"
    words = text.split()
    if words and words[0].lower() in _DET:
        words = words[1:]
    if d.kind == "of":
        return f"{'Who' if d.answer_type() == 'person' else 'What'} is the {' '.join(words)}?"
    return f"Which {' '.join(words)}?"


def _detok(toks: list[_Tok]) -> str:
    s = ""
    for k, t in enumerate(toks):
        shown = t.shown or t.text
        if k and (t.text == "'s" or (not t.text[0].isalnum() and t.text not in {"(", "\"", "“"})):
            s += shown
        elif k:
            s += " " + shown
        else:
            s += shown
    return s


def _replace(question: str, toks: list[_Tok], d: _Desc, value: str) -> str:
    a, b = toks[d.start].start, toks[d.end - 1].end
    return " ".join((question[:a] + d.fill.format(value) + question[b:]).split())
