"""Where a header's prose relation is said in its document: the sentence that supports it.

A prose relation names a fact (subject, predicate, object) and the document that says it; its
``quote`` is optional. The build looks for the supporting sentence so that editing that sentence
does not need a header edit in the same round:

- a ``quote`` that occurs verbatim is used as written (the span, and so the relation ID, are as before);
- no ``quote``: the one sentence of the document that names both ends (by ID, display name or
  alias) supports it; several such sentences are an error listing them (``occurrence`` or a
  ``quote`` picks one);
- a ``quote`` that no longer occurs (the sentence was edited): when the fact's words are still
  there (one sentence names both ends, or one is clearly the closest to the old quote) that
  sentence supports it and the build says so in a note; otherwise it is an error saying which end
  is no longer named, the nearest passage, and what that passage names instead (a changed fact).

Sentences are split by a small rule (``sentences``), not an NLP library: the split must be the
same on every machine and explainable in an error, and a quote may be any passage of one unit.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from chainret.catalog.models import Entity, mention_terms, mentions, unit_spans
from chainret.catalog.quotes import line_col, line_of

# A sentence ends after . ! or ? followed by blanks; a line that starts a list item or a heading
# starts a new sentence even without a full stop before it.
_BOUNDARY = re.compile(r"(?<=[.!?])\s+|\n(?=[ \t]*(?:[-*+]|\d+[.)]|#+)[ \t])")
_MARKER = re.compile(r"^(?:[-*+]|\d+[.)]|#+)[ \t]+")
# How much closer to a stale quote the chosen sentence must be than the next one.
_CLEAR_LEAD = 0.15
# A sentence that names both ends but denies something is never taken on its own: "Ana is no
# longer on call for Platform" names both ends too. Quoting it verbatim still makes it the support.
_NEGATION = re.compile(r"\b(?:not|no|never|nobody|none|neither|nor|without|formerly|former|previously|stopped)\b|n't\b",
                       re.IGNORECASE)


@dataclass(frozen=True)
class Located:
    """A prose relation's support: its span in the text, the quote, and a note when the header's quote was stale."""

    span: tuple[int, int]
    quote: str
    note: str = ""


class NotLocated(Exception):
    """Why no sentence supports the relation (``field``: the header field to fix)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def sentences(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of ``text``, within one unit (paragraph), list markers left out."""
    out: list[tuple[int, int]] = []
    for a, b in unit_spans(text):
        pos = a
        for m in [*_BOUNDARY.finditer(text, a, b), None]:
            end = m.start() if m is not None else b
            piece = text[pos:end]
            lead = len(piece) - len(piece.lstrip())
            marker = _MARKER.match(piece[lead:])
            start = pos + lead + (marker.end() if marker else 0)
            stop = pos + len(piece.rstrip())
            if stop > start:
                out.append((start, stop))
            if m is not None:
                pos = m.end()
    return out


def _ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, " ".join(a.split()), " ".join(b.split()), autojunk=False).ratio()


def _names(ent: Entity) -> str:
    return " or ".join(repr(t) for t in mention_terms(ent))


def _listed(text: str, spans: list[tuple[int, int]]) -> str:
    return "; ".join(f"{line_col(text, a)}: {_shown(text[a:b])}" for a, b in spans[:5]) + (
        f"; and {len(spans) - 5} more" if len(spans) > 5 else "")


def _shown(s: str) -> str:
    s = " ".join(s.split())
    return repr(s if len(s) <= 160 else s[:157] + "...")


def locate(text: str, document: str, quote: str | None, occurrence: int | None, subject: Entity, obj: Entity,
           entities: list[Entity]) -> Located:
    """The support of one prose relation in ``text`` (see the module docstring), or ``NotLocated``."""
    naming = [s for s in sentences(text) if mentions(text[s[0]:s[1]], subject) and mentions(text[s[0]:s[1]], obj)]
    both = [s for s in naming if not _NEGATION.search(text[s[0]:s[1]])]
    denied = [s for s in naming if s not in both]
    if not both and denied:
        raise NotLocated("quote", f"{'the quote no longer occurs in ' + document + '; ' if quote else ''}the sentences of "
                                  f"{document} that name both ends deny something ({_listed(text, denied)}), so none is "
                                  "taken on its own: if one does support the relation, quote it verbatim; if the fact "
                                  "changed, change or remove the relation")
    if quote is None:
        if not both:
            raise NotLocated("document", f"no sentence of {document} names both {subject.id} (by {_names(subject)}) and "
                                         f"{obj.id} (by {_names(obj)}); {_instead(text, subject, obj, entities)}")
        if occurrence is not None:
            if occurrence > len(both):
                raise NotLocated("occurrence", f"{len(both)} sentence(s) of {document} name both ends, not {occurrence}")
            a, b = both[occurrence - 1]
        elif len(both) > 1:
            raise NotLocated("quote", f"{len(both)} sentences of {document} name both ends: {_listed(text, both)}; "
                                      "quote the one that supports the relation (or add occurrence: N, 1 = the first)")
        else:
            a, b = both[0]
        return Located((a, b), text[a:b])
    # a stale quote: the sentence that replaced it, if the fact's words are still there
    ranked = sorted(both, key=lambda s: (-_ratio(quote, text[s[0]:s[1]]), s))
    if not ranked:
        raise NotLocated("quote", f"the quote no longer occurs in {document}, and no sentence there names both "
                                  f"{subject.id} (by {_names(subject)}) and {obj.id} (by {_names(obj)}); "
                                  f"{_instead(text, subject, obj, entities, quote)}")
    if len(ranked) > 1 and _ratio(quote, text[slice(*ranked[0])]) - _ratio(quote, text[slice(*ranked[1])]) < _CLEAR_LEAD:
        raise NotLocated("quote", f"the quote no longer occurs in {document}; {len(ranked)} sentences there name both ends, "
                                  f"none clearly the edited one: {_listed(text, sorted(ranked))}; quote the one that supports it")
    a, b = ranked[0]
    note = (f"the quote no longer occurs in {document}; the fact's words are still at {line_col(text, a)}, and that sentence "
            f"now supports it: {_shown(text[a:b])} (update the quote in the header, or leave quote out)")
    return Located((a, b), text[a:b], note)


def _instead(text: str, subject: Entity, obj: Entity, entities: list[Entity], quote: str | None = None) -> str:
    """The nearest passage, and whom it names in place of the end it lacks (a fact that changed)."""
    spans = sentences(text)
    if not spans:
        return "the document has no text"

    def score(s: tuple[int, int]) -> tuple[float, int]:
        piece = text[s[0]:s[1]]
        named = mentions(piece, subject) + mentions(piece, obj)
        return (named + (_ratio(quote, piece) if quote else 0.0), -s[0])
    a, b = max(spans, key=score)
    piece = text[a:b]
    said = f"nearest passage (line {line_of(text, a)}): {_shown(piece)}"
    for missing, kept in ((obj, subject), (subject, obj)):
        if mentions(piece, kept) and not mentions(piece, missing):
            others = [e for e in entities if e.type == missing.type and e.id != missing.id and mentions(piece, e)]
            if others:
                role = "object" if missing is obj else "subject"
                return (f"{said}, which names {', '.join(f'{e.name} ({e.id})' for e in others)} where the relation has "
                        f"{missing.name} ({missing.id}): if the fact changed, set {role}: {others[0].id} in the header")
    return said
