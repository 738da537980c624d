"""Decomposition without an LLM: relation hops from question text, bridges from the retrieval anchor.

Two pieces, both deterministic and auditable:

* ``decompose_2wiki(question)``: 2WikiMultihopQA compositional and inference questions are
  built from relation templates ("Where was the director of film X born?",
  "Who is X's paternal grandfather?"). A table of outer and inner relation phrases turns the
  question into ``Decomposition(entity, relations)``: chainret's relation-pattern idea
  (catalog/patterns) applied to text. None when no pattern matches (never a guess).
* ``extract_bridge(anchor, candidates, relation)``: the bridge entity an anchor paragraph names:
  a title of another retrieved paragraph mentioned in the anchor's text (nearest to a cue
  word of the relation, e.g. "directed by" for director), else the capitalised span after
  such a cue. The later hop's placeholder is resolved with it; the gold answer is never used.

``evidence_decomposition`` turns 2Wiki ``evidences`` triples into gold sub-questions (the
counterpart of MuSiQue's ``question_decomposition``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chainret.research.qa.example import Example, Paragraph, SubQuestion
from chainret.research.verification.hypothesis import relation_question

_INNER_REL = {
    "director": "director", "performer": "performer", "composer": "composer", "father": "father",
    "mother": "mother", "husband": "spouse", "wife": "spouse", "spouse": "spouse", "child": "child",
    "son": "child", "daughter": "child", "sibling": "sibling", "brother": "sibling", "sister": "sibling",
    "presenter": "presenter", "founder": "founded by", "producer": "producer", "author": "author", "writer": "author", "creator": "creator", "publisher": "publisher",
}
_INNER_WORDS = "|".join(sorted(_INNER_REL, key=len, reverse=True))
_INNER = [
    re.compile(rf"^(?:the )?(?P<rel>{_INNER_WORDS}) of (?:the )?(?:film |song |album |book |work |novel |play )?(?P<e>.+)$", re.I),
    re.compile(rf"^(?P<e>.+?)'s (?P<rel>{_INNER_WORDS})$", re.I),
    re.compile(r"^the company that (?P<rel>published) (?P<e>.+)$", re.I),
]
_OUTER: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^Where was (?P<np>.+) born$", re.I), "place of birth"),
    (re.compile(r"^When was (?P<np>.+) born$", re.I), "date of birth"),
    (re.compile(r"^When is (?P<np>.+)'s birthday$", re.I), "date of birth"),
    (re.compile(r"^Where did (?P<np>.+) die$", re.I), "place of death"),
    (re.compile(r"^When did (?P<np>.+) die$", re.I), "date of death"),
    (re.compile(r"^Why did (?P<np>.+) die$", re.I), "cause of death"),
    (re.compile(r"^Where was (?P<np>.+) buried$", re.I), "place of burial"),
    (re.compile(r"^(?:What|Where|When) (?:is|was) the (?P<rel>place of birth|place of death|place of burial|date of birth|date of death|cause of death) of (?P<np>.+)$", re.I), ""),
    (re.compile(r"^What is the nationality of (?P<np>.+)$", re.I), "country of citizenship"),
    (re.compile(r"^What nationality (?:is|was) (?P<np>.+)$", re.I), "country of citizenship"),
    (re.compile(r"^Which country (?P<np>.+) (?:is|was) from$", re.I), "country of citizenship"),
    (re.compile(r"^Where did (?P<np>.+) (?:graduate from|study|go to school|get (?:his|her|their) education)$", re.I), "educated at"),
    (re.compile(r"^Where does (?P<np>.+) work(?: at)?$", re.I), "employer"),
    (re.compile(r"^Which award (?:did )?(?P<np>.+) (?:receive|received|win|won|get|got|earn|earned)$", re.I), "award received"),
    (re.compile(r"^What is the award that (?P<np>.+) (?:received|won|got|earned)$", re.I), "award received"),
    (re.compile(r"^When was (?P<np>.+) (?:founded|established|created)$", re.I), "inception"),
    (re.compile(rf"^Who is the (?P<rel>{_INNER_WORDS}) of (?P<np>.+)$", re.I), ""),
    (re.compile(rf"^Who is (?P<np>.+?)'s (?P<rel>{_INNER_WORDS})$", re.I), ""),
]
COMPOSITE = {
    "paternal grandfather": ("father", "father"),
    "paternal grandmother": ("father", "mother"),
    "maternal grandfather": ("mother", "father"),
    "maternal grandmother": ("mother", "mother"),
    "father-in-law": ("spouse", "father"),
    "mother-in-law": ("spouse", "mother"),
    "stepmother": ("father", "spouse"),
    "stepfather": ("mother", "spouse"),
    "sibling-in-law": ("spouse", "sibling"),
    "son-in-law": ("child", "spouse"),
    "daughter-in-law": ("child", "spouse"),
    "grandchild": ("child", "child"),
    "uncle": ("father", "sibling"),
    "aunt": ("father", "sibling"),
}
_KIN = "|".join(sorted(map(re.escape, COMPOSITE), key=len, reverse=True))
_INFERENCE = [
    re.compile(rf"^Who (?:is|was) the (?P<kin>{_KIN}) of (?P<e>.+)$", re.I),
    re.compile(rf"^Who (?:is|was) (?P<e>.+?)'s (?P<kin>{_KIN})$", re.I),
]
_REL_NOUN = {"place of birth": "place of birth", "place of death": "place of death", "place of burial": "place of burial",
             "date of birth": "date of birth", "date of death": "date of death", "cause of death": "cause of death"}
# Words near which a paragraph names the object of a relation ("directed by X", "son of X").
CUES: dict[str, tuple[str, ...]] = {
    "director": ("directed by", "director", "film by", "directed"),
    "performer": ("performed by", "recorded by", "by", "singer", "artist", "band"),
    "composer": ("music by", "composed by", "score by", "composer", "music"),
    "father": ("son of", "daughter of", "child of", "father", "born to"),
    "mother": ("son of", "daughter of", "child of", "mother", "born to"),
    "spouse": ("married", "wife of", "husband of", "wife", "husband", "spouse", "widow"),
    "child": ("son", "daughter", "children", "father of", "mother of"),
    "sibling": ("brother", "sister", "sibling"),
    "publisher": ("published by", "publisher"),
    "producer": ("produced by", "producer"),
    "author": ("written by", "by", "author"),
}


@dataclass(frozen=True)
class Decomposition:
    """``entity`` followed through ``relations`` (first hop first)."""

    entity: str
    relations: tuple[str, ...]

    def subquestions(self) -> list[str]:
        """Natural sub-questions, later hops with ``#k`` placeholders (MuSiQue's convention)."""
        out = [relation_question(self.entity, self.relations[0])]
        out += [relation_question(f"#{i}", r) for i, r in enumerate(self.relations[1:], start=1)]
        return out


def _clean(q: str) -> str:
    return " ".join(q.split()).rstrip(" ?.")


def decompose_2wiki(question: str) -> Decomposition | None:
    """Relation hops of a 2Wiki compositional/inference question, or None if no pattern fits."""
    q = _clean(question)
    for pat in _INFERENCE:
        m = pat.match(q)
        if m:
            return Decomposition(m.group("e").strip(), COMPOSITE[m.group("kin").lower()])
    for pat, rel2 in _OUTER:
        m = pat.match(q)
        if not m:
            continue
        outer = rel2 or m.group("rel").lower()
        outer = _INNER_REL.get(outer, _REL_NOUN.get(outer, outer))
        inner = _inner(m.group("np").strip())
        if inner is None:
            continue
        entity, rel1 = inner
        return Decomposition(entity, (rel1, outer))
    return None


def _inner(np: str) -> tuple[str, str] | None:
    for pat in _INNER:
        m = pat.match(np)
        if m:
            rel = m.group("rel").lower()
            return m.group("e").strip(), ("publisher" if rel == "published" else _INNER_REL[rel])
    return None


def evidence_decomposition(ex: Example) -> list[SubQuestion] | None:
    """Gold sub-questions from 2Wiki ``evidences`` for a two-hop chain (E r1 B)(B r2 A); else None.

    Comparison questions have parallel, not chained, triples and get None.
    """
    ev = ex.evidences or []
    if len(ev) != 2 or not _same_entity(ev[0].object, ev[1].subject):
        return None
    first, second = ev
    return [
        SubQuestion(question=relation_question(first.subject, first.relation), answer=first.object,
                    paragraph_idx=_title_match(ex.paragraphs, first.subject, gold_only=True)),
        SubQuestion(question=relation_question("#1", second.relation), answer=second.object,
                    paragraph_idx=_title_match(ex.paragraphs, second.subject, gold_only=True)),
    ]


# ----------------------------------------------------------------------------- names and bridges


def norm_name(s: str) -> str:
    s = re.sub(r"\s*\([^)]*\)\s*", " ", s)  # "Euphoria (Usher Song)" -> "Euphoria"
    s = s.lower().replace("’", "'")
    s = re.sub(r"[^a-z0-9' ]+", " ", _strip_accents(s))
    return " ".join(s.split())


def _strip_accents(s: str) -> str:
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


def _same_entity(a: str, b: str) -> bool:
    na, nb = norm_name(a), norm_name(b)
    if na == nb:
        return True
    ta, tb = set(na.split()), set(nb.split())
    return bool(ta and tb) and len(ta & tb) / min(len(ta), len(tb)) >= 0.6


def _title_match(paragraphs: list[Paragraph], name: str, *, gold_only: bool) -> int | None:
    pool = [p for p in paragraphs if p.is_gold or not gold_only]
    for p in pool:
        if norm_name(p.title) == norm_name(name):
            return p.idx
    best, best_overlap = None, 0.0
    tn = set(norm_name(name).split())
    for p in pool:
        tp = set(norm_name(p.title).split())
        if tn and tp:
            ov = len(tn & tp) / min(len(tn), len(tp))
            if ov > best_overlap:
                best, best_overlap = p.idx, ov
    return best if best_overlap >= 0.6 else None


def extract_bridge(
    anchor: Paragraph, candidates: list[Paragraph], relation: str | None = None, exclude: tuple[str, ...] = ()
) -> tuple[str, str]:
    """(bridge name, how it was found) from the anchor paragraph's text.

    "title": another candidate's title mentioned in the anchor (nearest to a relation cue);
    "cue": the capitalised words after a relation cue; "anchor-title": nothing found, the
    anchor's own title (the hypothesis then asks about the first-hop entity).
    """
    text = anchor.text
    low = _strip_accents(text.lower())
    cues = CUES.get(relation or "", ())
    cue_pos = [m.end() for c in cues for m in re.finditer(rf"\b{re.escape(c)}\b", low)]
    skip = {norm_name(anchor.title)} | {norm_name(x) for x in exclude}
    mentions: list[tuple[float, int, str]] = []
    norm_text = " " + norm_name(text) + " "
    for p in candidates:
        nt = norm_name(p.title)
        if p.idx == anchor.idx or not nt or nt in skip:
            continue
        variant = next((v for v in _title_variants(p.title) if f" {v} " in norm_text and v not in skip), None)
        if variant is None:
            continue
        pos = low.find(variant.split()[0]) if _find_pos(low, p.title) < 0 else _find_pos(low, p.title)
        dist = min((abs(pos - c) for c in cue_pos), default=10_000.0) if pos >= 0 else 10_000.0
        mentions.append((dist, pos if pos >= 0 else 10_000, p.title))
    if mentions:
        mentions.sort()
        return mentions[0][2], "title"
    for c in cues:
        m = re.search(rf"\b{re.escape(c)}\s+((?:[A-Z][\w.'\-]*)(?:\s+(?:[A-Z][\w.'\-]*|de|van|von|da|of|la|le|del|bin|ibn)){{0,5}})", _strip_accents(text))
        if m:
            name = m.group(1).strip()
            if norm_name(name) not in skip:
                return name, "cue"
    return anchor.title, "anchor-title"


def _title_variants(title: str) -> list[str]:
    """"Mountrail County, North Dakota" is also mentioned as "Mountrail County"."""
    full = norm_name(title)
    head = norm_name(title.split(",")[0])
    out = [full]
    if head and head != full and (len(head.split()) >= 2 or len(head) >= 6):
        out.append(head)
    return out


def _find_pos(low_text: str, title: str) -> int:
    t = re.sub(r"\s*\([^)]*\)\s*", " ", title).strip().lower()
    return low_text.find(_strip_accents(t))
