"""The noun-phrase grammar's index of head words (``Lexicon._by_start``, ``_head_words``) changes nothing it reads.

The grammar asks every predicate for a head at every position it tries; the index asks only the predicates whose heads
may start with the position's first word. It is a speed bend (a request read every way went from about 1.7 s to 0.35 s
of CPU on a small imported catalog), so it is held here to the grammar without it: the same parses, in the same order,
over random word sequences drawn from each catalog's own words.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chainret.catalog.load import load_catalog
from chainret.query.lexicon import Lexicon, lexicon, type_words

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = [ROOT / "catalogs" / "default.yaml", ROOT / "fixtures" / "supply", ROOT / "fixtures" / "lab"]


class _Everything(dict):
    """Every first word leads to every predicate (the grammar without the index)."""

    def __init__(self, preds: list) -> None:
        super().__init__()
        self.preds = preds

    def get(self, key, default=None):  # noqa: D401 - dict's signature
        return self.preds


def _unindexed(lex: Lexicon, *, broken: str = "") -> Lexicon:
    plain = object.__new__(Lexicon)
    plain.__dict__.update(lex.__dict__)
    if broken:  # the negative control: an index of one-word heads only
        plain._by_start = {}
        for pw in lex.preds:
            for w in {n[0] for n in pw.nouns if len(n) == 1} | type_words(pw.range):
                plain._by_start.setdefault(w, []).append(pw)
        return plain
    plain._by_start = _Everything(lex.preds)
    plain._head_words = {k: (_All(), ranges) for k, (_, ranges) in lex._head_words.items()}
    return plain


class _All(frozenset):
    def __contains__(self, item: object) -> bool:
        return True


def _words(lex: Lexicon) -> list[str]:
    words = {w for pw in lex.preds for n in pw.nouns for w in n}
    words |= {w for pw in lex.preds for v in (*pw.verbs, *pw.passive, *pw.subject_verbs) for w in v.split()}
    words |= {w for pw in lex.preds for w in type_words(pw.range)}
    return sorted(words | {"the", "of", "for", "that", "which", "by", "x-1", "alice's", "team's", "who"})


def _phrases(lex: Lexicon) -> list[list[str]]:
    """Noun phrases of the grammar's shapes in the catalog's own words: "<head> of X", "<head> that <verb> X",
    "<head> <passive> by X", nested once ("<head> of the <head> that <verb> X")."""
    heads = sorted({n for pw in lex.preds for n in pw.nouns} | {(w,) for pw in lex.preds for w in type_words(pw.range)})
    verbs = sorted({v for pw in lex.preds for v in pw.verbs})
    passive = sorted({v for pw in lex.preds for v in pw.passive})
    out = [[*h, "of", "x-1"] for h in heads]
    out += [[*h, "that", *v.split(), "x-1"] for h in heads for v in verbs]
    out += [[*h, v, "by", "x-1"] for h in heads for v in passive]
    out += [[*h, "of", "the", *g, "that", *v.split(), "x-1"] for h in heads[:8] for g in heads[:8] for v in verbs[:3]]
    return out


@pytest.mark.parametrize("folder", CATALOGS, ids=lambda p: p.name)
def test_the_index_gives_the_parses_the_whole_grammar_gives(folder: Path) -> None:
    lex = lexicon(load_catalog(folder))
    plain = _unindexed(lex)
    words = _words(lex)

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.one_of(st.lists(st.sampled_from(words), min_size=1, max_size=7), st.sampled_from(_phrases(lex))))
    def same(tokens: list[str]) -> None:
        assert lex.noun_phrase(tokens, tokens) == plain.noun_phrase(tokens, tokens), tokens

    same()


def test_an_index_that_forgets_longer_heads_is_seen_to_differ() -> None:
    differs = 0
    for folder in CATALOGS:
        lex = lexicon(load_catalog(folder))
        bad = _unindexed(lex, broken="one-word heads")
        differs += sum(lex.noun_phrase(t, t) != bad.noun_phrase(t, t) for t in _phrases(lex))
    assert differs
