"""Iterative decomposition without an LLM: one hop at a time, join on the bridge, search again.

What chainret's chain retriever does over a catalog, done over a question's candidate paragraphs:

1. **Template** (rules over the question's surface, no gold): find the innermost *descriptor*, the
   noun phrase that stands for an unknown entity ("the performer of Lonely Harbor",
   "the Paper Lanterns performer", "Tomas Verhoef's birthplace", "the school that owns The Harbor
   Gazette", "the state where Ida Merrow was born"). It becomes hop k's sub-question; the
   question with the descriptor replaced by ``#k`` is the template of what remains. 2Wiki
   compositional/inference questions use the typed relation slots of
   ``decompose.decompose_2wiki`` instead ("Who directed X?" then "Where was #1 born?").
2. **Retrieve** with the filled sub-question (embedding cosine fused with BM25 over the question's
   own candidates); the top unused paragraph is hop k's *anchor*.
3. **Bridge**: candidates are spans of the anchor that are titles of other candidates, the anchor's
   own title, and capitalised names (typed by the answer type the descriptor asks for: no dates
   for "the actor", no people for "when"). Each candidate fills the *next* sub-question; the one
   whose filled next sub-question retrieves the most confident next anchor wins (plus a small
   prior for how it was found and for sitting near the descriptor's relation words), not the
   first one by position.
4. Repeat on the filled question until no descriptor is left (or the outer question is just
   "Who is [descriptor]?"). The last filled question is the later hop's sub-question.

Only the question text and the candidates' titles and texts are read (``Candidate``); the gold
decomposition, answers and gold flags never reach this module (tests/test_verify_decomp*.py checks
that stripping them leaves the output unchanged).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from chainret.research.verification.decompose import (
    _same_entity,
    _strip_accents,
    _title_variants,
    decompose_2wiki,
    norm_name,
)
from chainret.research.verification.hypothesis import relation_question

Embed = Callable[[Sequence[str]], np.ndarray]

MAX_HOPS = 3  # substitutions; MuSiQue's deepest questions have four hops
BM25_WEIGHT = 0.15  # fused score: cosine + BM25_WEIGHT * bm25 / max(bm25)
PRIOR = {"title": 0.06, "anchor-title": 0.04, "name": 0.0, "value": 0.0}
CUE_BONUS = 0.03
TYPE_BONUS = 0.02
JOIN_PENALTY = 0.1  # no other candidate names the bridge: the chain cannot continue through it  # a person is named by two words or more
SHORTLIST = 8  # bridge candidates whose filled next sub-question is retrieved

_REL1 = {"that", "who", "whom", "which", "whose", "where", "when"}
_REL_PREP = {"in", "by", "of", "at", "from", "for", "to", "with", "on", "under", "through", "after", "about", "into",
             "over", "behind", "near", "during"}
_DET = {"the", "a", "an"}
_AUX = {"is", "was", "are", "were", "has", "had", "have", "does", "did", "do", "be", "been", "being"}
_WH = {"who", "what", "which", "when", "where", "why", "how", "whom", "whose", "in", "on", "at", "during", "from"}
_STOP_CAPS = {"The", "A", "An", "In", "On", "At", "Of", "And", "For", "He", "She", "It", "They", "His", "Her", "Its",
              "This", "That", "These", "Those", "After", "Before", "During", "When", "While", "As", "By", "From",
              "With", "Who", "What", "Which", "Where", "Why", "How", "There", "Their", "Following", "Although",
              "Since", "Today", "However", "Also", "According", "Between", "Under", "Until", "Both", "Some", "Many"}
_NAME_GLUE = {"of", "de", "van", "von", "da", "la", "le", "del", "bin", "ibn", "the", "du", "y", "di", "der"}
_NOT_PERSON = {"animation", "records", "company", "university", "pictures", "studios", "studio", "inc", "corporation",
               "group", "club", "party", "river", "county", "city", "state", "states", "kingdom", "republic", "church",
               "school", "college", "entertainment", "productions", "films", "music", "network", "award", "awards",
               "tournament", "league", "championship", "festival", "museum", "island", "islands", "mountains", "war"}
# Relation nouns that may follow an entity ("the Paper Lanterns performer").
_PRENOMINAL = {
    "performer", "singer", "band", "director", "author", "writer", "creator", "composer", "producer", "owner",
    "founder", "publisher", "developer", "manufacturer", "designer", "artist", "actor", "actress", "star",
    "narrator", "host", "presenter", "label", "team", "studio", "company", "network", "member", "members",
    "player", "character", "album", "song", "film", "show", "series", "novel", "book", "game", "record",
}
_PERSON = {
    "who", "whom", "person", "actor", "actress", "performer", "singer", "director", "author", "writer", "creator",
    "composer", "producer", "founder", "president", "spouse", "wife", "husband", "player", "governor",
    "leader", "artist", "father", "mother", "son", "daughter", "brother", "sister", "sibling", "king", "queen",
    "emperor", "man", "woman", "narrator", "presenter", "host", "owner", "coach", "manager",
    "minister", "mayor", "senator", "representative", "prime", "star", "girlfriend", "partner",
    "inventor", "developer", "designer", "winner", "champion", "monarch", "ruler", "physicist",
    "scientist", "musician", "band", "group", "cast", "character",
}
_PLACE = {
    "where", "city", "country", "state", "county", "region", "place", "location", "town", "capital", "birthplace",
    "continent", "island", "area", "province", "district", "village", "nation", "municipality", "territory",
}
_ORG = {
    "company", "organization", "organisation", "team", "label", "school", "university", "college", "band", "group",
    "party", "network", "studio", "league", "club", "body", "river", "mountain", "sea", "lake", "ocean", "water",
    "entity", "institution", "agency", "government", "army", "military", "branch", "empire", "dynasty",
    "album", "song", "film", "movie", "show", "series", "book", "novel", "work", "game", "character", "language",
    "religion", "denomination", "currency", "sport", "station", "channel", "newspaper", "magazine", "publisher",
    "manufacturer", "developer", "brand", "airline", "platform", "console", "system", "ship", "vehicle", "division",
    "conference", "federation", "colony", "kingdom", "republic", "union", "alliance", "church", "order", "tribe",
    "people", "ethnic", "family", "house", "building", "stadium", "arena", "airport", "park", "bridge", "street",
    "record", "records", "headquarters", "owner", "parent", "subsidiary", "successor", "predecessor", "member",
    "one", "performer", "creator", "founder",
}
# Heads that name an attribute of the entity, the question's last hop itself, never a bridge.
_ATTRIBUTE = {
    "role", "voice", "source", "name", "title", "percentage", "number", "date", "year", "type", "kind", "part", "size",
    "population", "enrollment", "length", "meaning", "advantages", "advantage", "average", "salary", "rank", "position",
    "term", "terms", "original", "span", "amount", "age", "height", "area", "time", "first", "last", "majority",
    "price", "cost", "value", "total", "rate", "share", "color", "colour", "motto", "nickname", "abbreviation",
    "symbol", "official", "reason", "cause", "result", "outcome", "goal", "aim", "idea", "theme", "subject",
    "topic", "plot", "style", "genre", "version", "form", "status", "level", "degree", "score", "end",
    "beginning", "start", "history", "origin", "way", "method", "process", "effect", "impact", "response", "reaction",
    "highest", "lowest", "largest", "smallest", "biggest", "most", "least", "elevation", "distance", "depth", "width",
    "ranking", "rule", "border", "center", "centre", "power", "letter", "chapter", "corner", "career", "third", "second", "fourth", "fifth", "ranked", "percent", "era", "period", "life", "death",
}
# Kin and counterpart nouns: people named through another person ("the child of X", "X's opponent").
_PERSON |= {"child", "children", "parent", "parents", "grandfather", "grandmother", "grandson", "granddaughter",
            "uncle", "aunt", "nephew", "niece", "cousin", "opponent", "rival", "executive", "member"}
_PERSON_NOUNS = _PERSON - {"who", "whom"}
_ENTITY_NOUNS = _PERSON_NOUNS | _PLACE | _ORG
_WORK_TYPES = {"film", "song", "album", "book", "novel", "play", "work", "series", "show", "band", "company", "single"}
_TIME = {"when", "year", "date", "day", "month", "century", "decade"}
_NUM = {"many", "much", "number", "percentage", "population", "long", "old"}
_FUNCTION = {"and", "or", "of", "in", "on", "at", "by", "for", "to", "with", "from", "as", "is", "was", "are", "were",
             "has", "had", "who", "which", "that", "the", "a", "an", "after", "before", "since", "until", "he",
             "she", "it", "they", "his", "her", "its", "their"}
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]


# ----------------------------------------------------------------------------- data the decomposer may read


@dataclass(frozen=True)
class Candidate:
    """What the decomposer sees of a candidate paragraph: its title and text, nothing else."""

    idx: int
    title: str
    text: str

    @property
    def passage(self) -> str:
        return f"{self.title}. {self.text}" if self.title else self.text


def candidates_of(example: Any) -> list[Candidate]:
    """An example's paragraphs as the decomposer may see them (title and text; no gold flag, no answer)."""
    return [Candidate(p.idx, p.title, p.text) for p in example.paragraphs]


@dataclass
class BridgeChoice:
    name: str
    how: str  # title | anchor-title | name | value
    prior: float
    evidence: float = 0.0  # fused retrieval score of the filled next sub-question's best anchor
    next_anchor: int | None = None

    @property
    def score(self) -> float:
        return self.prior + self.evidence


@dataclass
class HopStep:
    """One hop: the filled sub-question, its anchor, and the bridge read from it."""

    hop: int
    template: str  # hop k's sub-question with earlier bridges as #j
    subquestion: str  # filled
    anchor: int
    anchor_title: str
    anchor_score: float
    bridge: str
    bridge_how: str
    answer_type: str
    alternatives: list[dict[str, Any]] = field(default_factory=list)  # runner-up bridges with their scores


@dataclass
class IterativeDecomposition:
    question: str
    mode: str  # "2wiki-relations" | "surface" | "none"
    steps: list[HopStep]
    final_template: str  # the later hop's sub-question with #k placeholders
    final_question: str  # the later hop's filled sub-question: the hypothesis source

    @property
    def bridges(self) -> dict[int, str]:
        return {s.hop: s.bridge for s in self.steps}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ----------------------------------------------------------------------------- tokens and mentions


_TOK = re.compile(r"[\w][\w'’.\-&]*|[^\w\s]")


@dataclass
class _Tok:
    text: str
    start: int
    end: int
    shown: str | None = None  # the source's spelling when ``text`` normalises it (a plural possessive's "'")

    @property
    def low(self) -> str:
        return self.text.lower()


def _tokens(s: str) -> list[_Tok]:
    out = []
    for m in _TOK.finditer(s):
        t = m.group(0)
        if len(t) > 1 and t[-1] == "." and not re.fullmatch(r"(?:[A-Z]\.)+|[A-Z][a-z]{0,3}\.", t):
            out.append(_Tok(t[:-1], m.start(), m.end() - 1))  # sentence-final dot
            out.append(_Tok(".", m.end() - 1, m.end()))
            continue
        if re.fullmatch(r".+['’]s", t) and len(t) > 2:  # possessive split: "Smith's" -> "Smith", "'s"
            out.append(_Tok(t[:-2], m.start(), m.end() - 2))
            out.append(_Tok("'s", m.end() - 2, m.end()))
            continue
        if re.fullmatch(r"[A-Z].*s['’]", t) and len(t) > 2:  # plural possessive: "Rangers'" -> "Rangers", "'s"
            out.append(_Tok(t[:-1], m.start(), m.end() - 1))
            out.append(_Tok("'s", m.end() - 1, m.end(), shown=t[-1]))
            continue
        out.append(_Tok(t, m.start(), m.end()))
    return out


def _norm_tok(t: str) -> str:
    return norm_name(t).replace("'", "")


def _mentions(toks: list[_Tok], names: Sequence[str]) -> list[tuple[int, int, str]]:
    """Token spans [a, b) of ``names`` (title variants, case-insensitive, punctuation ignored), longest first."""
    keep = [i for i, t in enumerate(toks) if _norm_tok(t.text)]  # word tokens only: "Harbor Nights: Part 2"
    ntoks = [_norm_tok(toks[i].text) for i in keep]
    found: list[tuple[int, int, str]] = []
    seqs: list[tuple[list[str], str]] = []
    for name in names:
        for v in _title_variants(name):
            v = re.sub(r"(\w)'s\b", r"\1 s", v)  # "mach's principle" as the question's tokens "Mach", "'s", …
            seq = [w.replace("'", "") for w in v.split() if w.replace("'", "")]
            if seq and (len(seq) > 1 or len(seq[0]) >= 3):
                seqs.append((seq, name))
    seqs.sort(key=lambda x: -len(x[0]))
    taken: set[int] = set()
    for seq, name in seqs:
        m = len(seq)
        for a in range(len(ntoks) - m + 1):
            if ntoks[a : a + m] == seq and not taken & set(range(a, a + m)):
                found.append((keep[a], keep[a + m - 1] + 1, name))
                taken |= set(range(a, a + m))
    return sorted(found)


def _cap_spans(toks: list[_Tok], skip_first: bool = True) -> list[tuple[int, int]]:
    """Capitalised name spans (``Ida Merrow``, ``Kestrel Mills``, ``University of Lorn``)."""
    spans = []
    i = 0
    while i < len(toks):
        t = toks[i].text
        title_start = (t in _STOP_CAPS and 0 < i and toks[i - 1].low in _DET and toks[i - 1].text.islower()
                       and i + 1 < len(toks) and _is_cap(toks[i + 1].text))  # "the In Bloom Again performer"
        if _is_cap(t) and (t not in _STOP_CAPS or title_start):
            j = i + 1
            while j < len(toks) and (
                _is_cap(toks[j].text) or ((toks[j].low in _NAME_GLUE or toks[j].text == "'s") and j + 1 < len(toks)
                                          and _is_cap(toks[j + 1].text))  # "Mary Ann's Cafe" is one name
            ):
                j += 1
            spans.append((i, j))
            i = j
        else:
            i += 1
    return spans


def _is_cap(t: str) -> bool:
    return bool(t) and (t[0].isupper() or (t[0].isdigit() and any(c.isalpha() for c in t))) and t not in {"I"}


# ----------------------------------------------------------------------------- descriptors (templates)


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


# ----------------------------------------------------------------------------- retrieval over the candidates


class CandidateIndex:
    """Embedding cosine fused with BM25 over one question's candidates."""

    def __init__(self, cands: list[Candidate], embed: Embed, pvecs: np.ndarray | None = None) -> None:
        from rank_bm25 import BM25Plus

        from chainret.research.qa.signals import tokenize

        self.cands = cands
        self.embed = embed
        self.pvecs = pvecs if pvecs is not None else embed([c.passage for c in cands])
        self._tok = tokenize
        self.bm25 = BM25Plus([tokenize(c.passage) or ["<empty>"] for c in cands])

    def scores(self, queries: Sequence[str]) -> np.ndarray:
        """(len(queries), len(cands)) fused scores."""
        qv = self.embed(list(queries))
        cos = qv @ self.pvecs.T
        out = np.empty_like(cos)
        for i, q in enumerate(queries):
            b = np.asarray(self.bm25.get_scores(self._tok(q)), dtype=float)
            out[i] = cos[i] + BM25_WEIGHT * (b / b.max() if b.max() > 0 else b)
        return out

    @staticmethod
    def best(row: np.ndarray, exclude: set[int]) -> tuple[int, float]:
        order = np.argsort(-row, kind="mergesort")
        for i in order:
            if int(i) not in exclude:
                return int(i), float(row[i])
        return int(order[0]), float(row[order[0]])


# ----------------------------------------------------------------------------- bridges


def bridge_candidates(anchor: Candidate, cands: list[Candidate], answer_type: str, relation_words: Sequence[str],
                      exclude: Sequence[str], question: str = "") -> list[BridgeChoice]:
    """Names the anchor offers as hop k's answer, with a prior (how found + near the relation words).

    Never a name the question (as filled so far) already contains, an earlier bridge, a month, or a
    value of the wrong type; a lone capitalised word opening a sentence or used as an adjective
    ("Later", "American actor") is no name.
    """
    skip = {norm_name(x) for x in exclude if norm_name(x)}
    q_norm = norm_name(question)
    text = anchor.text
    low = _strip_accents(text.lower())
    cue_pos = [m.start() for w in relation_words for m in re.finditer(rf"\b{re.escape(w[:5])}", low)] if relation_words else []
    out: dict[str, BridgeChoice] = {}

    def add(name: str, how: str, pos: int) -> None:
        key = norm_name(name)
        if not key or any(key == s or _same_entity(key, s) for s in skip) or f" {key} " in f" {q_norm} ":
            return
        if not _type_ok(name, answer_type) or key in _MONTHS:
            return
        near = bool(pos >= 0 and cue_pos and min(abs(pos - c) for c in cue_pos) <= 60)
        prior = PRIOR[how] + (CUE_BONUS if near else 0.0)
        if answer_type == "person" and (set(key.split()) & _NOT_PERSON or "," in name or any(c.isdigit() for c in name)):
            return  # "Fenwick, Oregon", "Lantern (1990 film)" name no person
        if how == "name" and answer_type == "person":
            prior += TYPE_BONUS if len(key.split()) >= 2 else -TYPE_BONUS
        if key not in out or out[key].prior < prior:
            out[key] = BridgeChoice(name, how, prior)

    norm_text = " " + _norm_text(text) + " "
    for c in cands:
        if c.idx == anchor.idx or not norm_name(c.title):
            continue
        variant = next((v for v in _title_variants(c.title) if f" {v} " in norm_text), None)
        if variant is not None:
            add(_display_title(c.title), "title", low.find(variant.split()[0]))
    add(anchor.title if answer_type == "place" else _display_title(anchor.title), "anchor-title", -1)
    toks = _tokens(text)
    for a, b in _cap_spans(toks):
        name = text[toks[a].start : toks[b - 1].end]
        if b - a == 1 and (a == 0 or toks[a - 1].text in {".", "!", "?", ";", ":"} or (
                b < len(toks) and toks[b].text.isalpha() and toks[b].text[0].islower() and toks[b].low not in _FUNCTION)):
            continue  # "Later, ...", "American actor"
        if len(name) >= 3 or name.isupper():
            add(name, "name", toks[a].start)
    if answer_type in {"time", "number"}:
        pat = r"\b(?:\d{1,2} )?(?:" + "|".join(_MONTHS) + r")?(?: \d{1,2},)? ?\d{3,4}\b" if answer_type == "time" else r"\b\d[\d,.]*\b"
        for m in re.finditer(pat, text, re.IGNORECASE):
            add(m.group(0).strip(), "value", m.start())
    return list(out.values())


def _names(c: Candidate, name: str) -> bool:
    key = norm_name(name)
    return bool(key) and (f" {key} " in f" {norm_name(c.title)} " or f" {key} " in f" {_norm_text(c.text)} ")


def _norm_text(text: str) -> str:
    """``norm_name`` for running text: parentheses are words there ("(born 1929 in Fenwick)"), not a title's gloss."""
    return norm_name(text.replace("(", " ").replace(")", " "))


def _display_title(title: str) -> str:
    """"Lantern (Mara Ellison song)" is named "Lantern" in a question."""
    return re.sub(r"\s*\([^)]*\)\s*", " ", title).strip() or title


def _type_ok(name: str, answer_type: str) -> bool:
    numeric = bool(re.fullmatch(r"[\d\s,.%\-–]+|(?:\d{1,2} )?[A-Za-z]+ \d{1,2},? \d{4}|\d{1,2} [A-Za-z]+ \d{4}", name.strip()))
    if answer_type in {"time", "number"}:
        return numeric or answer_type == "number"
    return not numeric


# ----------------------------------------------------------------------------- the iteration


class IterativeDecomposer:
    """Decompose one question over its candidates, hop by hop (see the module docstring)."""

    def __init__(self, embed: Embed, *, max_hops: int = MAX_HOPS) -> None:
        self.embed = embed
        self.max_hops = max_hops

    def decompose(self, question: str, cands: list[Candidate], *, dataset: str = "musique",
                  pvecs: np.ndarray | None = None) -> IterativeDecomposition:
        index = CandidateIndex(cands, self.embed, pvecs)
        if dataset.startswith("2wiki"):
            rel = decompose_2wiki(question)
            if rel is not None:
                return self._relations(question, rel.entity, rel.relations, cands, index)
        return self._surface(question, cands, index)

    # -- 2Wiki: typed relation slots
    def _relations(self, question: str, entity: str, relations: tuple[str, ...], cands: list[Candidate],
                   index: CandidateIndex) -> IterativeDecomposition:
        steps: list[HopStep] = []
        subject = entity
        used: set[int] = set()
        linked = [c.idx for c in cands if norm_name(c.title) == norm_name(entity)]
        for k, rel in enumerate(relations[:-1], start=1):
            subq = relation_question(subject, rel)
            row = index.scores([subq])[0]
            anchor, a_score = (linked[0], float(row[linked[0]])) if (k == 1 and linked) else index.best(row, used)
            used.add(anchor)

            def fill_next(b: str, rel_next: str = relations[k]) -> str:
                return relation_question(b, rel_next)

            choice, alts = self._choose(cands[anchor], cands, index, "person" if rel in _PERSON_RELS else "thing",
                                        rel.split(), [entity, subject], fill_next, used, question=question)
            steps.append(HopStep(k, relation_question(subject if k == 1 else f"#{k - 1}", rel), subq, anchor,
                                 cands[anchor].title, a_score, choice.name, choice.how, "person", alts))
            subject = choice.name
        final_t = relation_question(f"#{len(relations) - 1}", relations[-1])
        return IterativeDecomposition(question, "2wiki-relations", steps, final_t, relation_question(subject, relations[-1]))

    # -- MuSiQue and anything else: descriptors over the surface
    def _surface(self, question: str, cands: list[Candidate], index: CandidateIndex) -> IterativeDecomposition:
        titles = [c.title for c in cands]
        q = " ".join(question.split())
        template = q
        known: list[str] = []  # bridges substituted so far (entities of the filled question)
        steps: list[HopStep] = []
        used: set[int] = set()
        qtoks = _tokens(q)
        # the question's own words for the candidates it names: "Alder Creek Township", not the whole title
        # "Alder Creek Township, Pell County, North Dakota" (whose other parts may be the bridge)
        named = [_detok(qtoks[a:b]) for a, b, _ in _mentions(qtoks, titles)]
        for k in range(1, self.max_hops + 1):
            toks = _tokens(q)
            ents = _mentions(toks, known + titles) + _extra_caps(toks, known + titles)
            d = _innermost(_descriptors(toks, ents))
            if d is None or _shell_only(toks, d):
                break
            subq = subquestion_of(toks, d)
            row = index.scores([subq])[0]
            anchor, a_score = index.best(row, used)
            if d.entity is not None:  # entity linking: the candidate titled with the descriptor's entity
                ent = norm_name(_detok(toks[d.entity[0] : d.entity[1]]))
                linked = [c.idx for c in cands if c.idx not in used and norm_name(c.title) == ent]
                if linked:
                    anchor, a_score = linked[0], float(row[linked[0]])
            used.add(anchor)
            rel_words = [w for w in d.head if len(w) > 3]
            rel_words += [t.low for t in toks[d.start : d.end] if t.low.isalpha() and len(t.low) > 4 and t.text[0].islower()]
            exclude = named + known + ([_detok(toks[d.entity[0] : d.entity[1]])] if d.entity else [])

            def fill_next(b: str, q: str = q, toks: list[_Tok] = toks, d: Any = d) -> str:
                nq = _replace(q, toks, d, b)
                ntoks = _tokens(nq)
                ents = _mentions(ntoks, [b, *known, *titles]) + _extra_caps(ntoks, [b, *known, *titles])
                nd = _innermost(_descriptors(ntoks, ents))
                if nd is not None and not _shell_only(ntoks, nd) and norm_name(b) in norm_name(_detok(ntoks[nd.start : nd.end])):
                    return subquestion_of(ntoks, nd)
                return nq

            choice, alts = self._choose(cands[anchor], cands, index, d.answer_type(), rel_words, exclude, fill_next, used,
                                        question=q)
            steps.append(HopStep(k, _templated(subq, known), subq, anchor, cands[anchor].title, a_score, choice.name,
                                 choice.how, d.answer_type(), alts))
            template = template.replace(_templated(_detok(toks[d.start : d.end]), known), d.fill.format(f"#{k}"), 1)
            q = _replace(q, toks, d, choice.name)
            known.append(choice.name)
        return IterativeDecomposition(question, "surface" if steps else "none", steps, template, q)

    def _choose(self, anchor: Candidate, cands: list[Candidate], index: CandidateIndex, answer_type: str,
                rel_words: Sequence[str], exclude: Sequence[str], fill_next: Callable[[str], str],
                used: set[int], question: str = "") -> tuple[BridgeChoice, list[dict[str, Any]]]:
        options = bridge_candidates(anchor, cands, answer_type, rel_words, exclude, question)
        if not options:
            return BridgeChoice(_display_title(anchor.title), "anchor-title", 0.0), []
        options.sort(key=lambda o: -o.prior)
        options = options[:SHORTLIST]
        rows = index.scores([fill_next(o.name) for o in options])
        for o, row in zip(options, rows):
            # join on the bridge: the next anchor must name it (as chain hops join on an entity)
            joined = {c.idx for c in cands if c.idx not in used and c.idx != anchor.idx and _names(c, o.name)}
            if joined:
                o.next_anchor, o.evidence = index.best(row, used | ({c.idx for c in cands} - joined))
            else:
                o.next_anchor, o.evidence = index.best(row, used)
                o.evidence -= JOIN_PENALTY
        options.sort(key=lambda o: -o.score)
        alts = [{"name": o.name, "how": o.how, "prior": round(o.prior, 4), "evidence": round(o.evidence, 4),
                 "next_anchor": o.next_anchor} for o in options[:4]]
        return options[0], alts


_PERSON_RELS = {"director", "performer", "composer", "father", "mother", "spouse", "child", "sibling", "producer",
                "author", "creator", "presenter", "founded by"}


def _extra_caps(toks: list[_Tok], names: Sequence[str]) -> list[tuple[int, int, str]]:
    """Capitalised spans of the question not already matched to a candidate title: entities too."""
    taken = {i for a, b, _ in _mentions(toks, names) for i in range(a, b)}
    out = []
    for a, b in _cap_spans(toks):
        if not taken & set(range(a, b)):
            out.append((a, b, _detok(toks[a:b])))
    return out


def _templated(text: str, known: list[str]) -> str:
    """``text`` with the bridges found so far written back as their ``#j`` placeholders."""
    for j, b in sorted(enumerate(known, start=1), key=lambda x: -len(x[1])):
        text = text.replace(b, f"#{j}")
    return text


def next_subquestion(question: str, names: Sequence[str] = ()) -> tuple[str, str] | None:
    """(hop's sub-question, the descriptor it replaces) for the innermost descriptor of ``question``, or None.

    ``names`` are the entity names known to the caller (candidate titles, earlier bridges); capitalised
    spans count as entities too. The rules alone, no retrieval: what ``IterativeDecomposer`` fills hop by hop.
    """
    toks = _tokens(" ".join(question.split()))
    d = _innermost(_descriptors(toks, _mentions(toks, list(names)) + _extra_caps(toks, list(names))))
    if d is None or _shell_only(toks, d):
        return None
    return subquestion_of(toks, d), _detok(toks[d.start : d.end])


PLACEHOLDERS = ("Zorvath", "Quellin", "Marbek", "Tostrel")  # made-up names standing for the bridges


def rule_chain(question: str, names: Sequence[str] = (), max_hops: int = MAX_HOPS) -> list[str]:
    """The descriptors the rules alone find, innermost first, each replaced by a placeholder name before
    the next is sought: what ``IterativeDecomposer`` would substitute, without paragraphs to fill them
    (rule coverage on questions that have none)."""
    q = " ".join(question.split())
    known: list[str] = []
    found: list[str] = []
    for k in range(max_hops):
        toks = _tokens(q)
        pool = [*names, *known]
        d = _innermost(_descriptors(toks, _mentions(toks, pool) + _extra_caps(toks, pool)))
        if d is None or _shell_only(toks, d):
            break
        found.append(_detok(toks[d.start : d.end]))
        q = _replace(q, toks, d, PLACEHOLDERS[k % len(PLACEHOLDERS)])
        known.append(PLACEHOLDERS[k % len(PLACEHOLDERS)])
    return found
