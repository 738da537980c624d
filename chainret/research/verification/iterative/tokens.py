"""Tokens of a question and the entity mentions and capitalised spans in them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass


from chainret.research.verification.decompose import (
    _title_variants,
    norm_name,
)
from chainret.research.verification.iterative.lexicon import _DET, _NAME_GLUE, _STOP_CAPS


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
