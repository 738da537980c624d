"""The iteration: template, retrieve, bridge, repeat (``IterativeDecomposer``), and the rule chain."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from chainret.research.verification.decompose import (
    decompose_2wiki,
    norm_name,
)
from chainret.research.verification.hypothesis import relation_question
from chainret.research.verification.iterative.lexicon import JOIN_PENALTY, MAX_HOPS, SHORTLIST
from chainret.research.verification.iterative.data import BridgeChoice, Candidate, Embed, HopStep, IterativeDecomposition
from chainret.research.verification.iterative.tokens import _Tok, _cap_spans, _mentions, _tokens
from chainret.research.verification.iterative.descriptors import _descriptors, _detok, _innermost, _replace, _shell_only, subquestion_of
from chainret.research.verification.iterative.bridges import CandidateIndex, _display_title, _names, bridge_candidates


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
