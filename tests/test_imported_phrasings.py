"""Every phrasing and relation word chainret generates or ships is spelt as English (or is one of the catalog's names).

``chainret patterns`` once listed *who api provids X*, *who api consums X* and *governer*: the lexicon
inflects a predicate's ``X_by`` name by rule, and English is not regular. The imported predicates now
declare their words (``chainret.sources.records.WORDS``), and a declared word on the name's stem
stands in for the guess (``chainret.query.lexicon.predicate_words``).

The word list is ``english-words`` (Webster's 2nd and GCIDE, a test dependency: base forms only), so a
word is also accepted as a regular inflection of a listed word (*owns*, *owning*, *supplies*): never
by an ``-er`` suffix, or *governer* (``govern`` + ``er``) would pass.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import pytest
from records_world import EXAMPLE, ROOT, imported

from chainret.authoring.header import read_header
from chainret.catalog.load import load_catalog
from chainret.catalog.models import Predicate
from chainret.catalog.patterns import PhrasingError, _parsed
from chainret.query.lexicon import Lexicon, predicate_words, words_of

# Spellings the word list lacks: British forms the lexicon offers for a type (``TYPE_WORDS``).
EXTRA = {"organisation"}


@cache
def english() -> frozenset[str]:
    """The word list; without ``english-words`` the check is skipped, but never in CI (``CI=true``)."""
    if os.environ.get("CI") == "true":
        import english_words as words
    else:
        words = pytest.importorskip("english_words", reason="the spelling check needs english-words (pip install -e '.[test]')")
    return frozenset(words.get_english_words_set(["web2", "gcide"], lower=True))


def _listed(word: str, known: set[str]) -> bool:
    """``word`` is in the word list or the catalog's names, or a regular inflection of one."""
    def has(w: str) -> bool:
        return w in known or w in english()

    if has(word):
        return True
    bases: list[str] = []
    if word.endswith("ies"):
        bases.append(word[:-3] + "y")
    if word.endswith("es"):
        bases.append(word[:-2])
    if word.endswith("s"):
        bases.append(word[:-1])
    for suffix in ("ing", "ed"):
        if word.endswith(suffix):
            base = word[: -len(suffix)]
            bases += [base, base + "e", base[:-1] if len(base) > 2 and base[-1] == base[-2] else base]
            if suffix == "ed" and base.endswith("i"):
                bases.append(base[:-1] + "y")
    return any(has(b) for b in bases)


def _names(predicates: Iterable[Predicate], start_types: Iterable[str]) -> set[str]:
    """The catalog's own words: its types and the parts of its predicate names (``subcomponent``, ``codeowner``)."""
    out = set(EXTRA)
    for p in predicates:
        out.update(p.name.split("_"))
        for t in (*p.domain.split("|"), *p.range.split("|")):
            out.update(t.split("_"))
    for t in start_types:
        out.update(t.split("_"))
    return out


def misspelt(predicates: list[Predicate], patterns: list) -> list[str]:
    """Each phrasing word and relation word (as ``chainret patterns`` lists them) that is not spelt as English."""
    known = _names(predicates, [p.start_type for p in patterns])
    said: list[tuple[str, str]] = []
    for pat in patterns:
        for ph in pat.phrasings:
            try:
                said += [(w, ph) for w in _parsed(ph, pat.start_type)[0]]
            except PhrasingError:
                continue
    for pw in Lexicon(predicates).preds:
        for phrase in words_of(pw):
            said += [(w.lower(), f"{pw.name}: {phrase}") for w in re.findall(r"[A-Za-z]+", phrase) if w != "X"]
    return sorted({f"{w!r} in {where!r}" for word, where in said for w in re.split(r"[-'/.]", word)
                   if w and not w.isdigit() and not _listed(w, known)})


def _shipped() -> list[tuple[str, list[Predicate], list]]:
    out = []
    for path in [ROOT / "catalogs" / "default.yaml", *sorted((ROOT / "fixtures").glob("*/catalog.yaml"))]:
        cat = load_catalog(path)
        out.append((path.relative_to(ROOT).as_posix(), list(cat.predicates), list(cat.patterns)))
    for path in sorted([*(ROOT / "examples").glob("*/*/chainret.yaml"), *(ROOT / "fixtures").glob("*/*/chainret.yaml")]):
        header = read_header(path, check=False)
        out.append((path.relative_to(ROOT).as_posix(), list(header.predicates), list(header.patterns)))
    return out


SHIPPED = _shipped()


@pytest.mark.parametrize(("name", "predicates", "patterns"), SHIPPED, ids=[name for name, _, _ in SHIPPED])
def test_the_shipped_catalogs_and_headers_are_spelt_as_english(name: str, predicates: list[Predicate], patterns: list) -> None:
    assert misspelt(predicates, patterns) == []


def test_an_imported_backstage_and_codeowners_catalog_is_spelt_as_english(tmp_path: Path) -> None:
    cat = imported(EXAMPLE / "records", tmp_path / "catalog.yaml", ["backstage", "codeowners"])
    assert {"api_provided_by", "api_consumed_by", "governed_by", "code_owned_by"} <= {p.name for p in cat.predicates}
    assert misspelt(list(cat.predicates), list(cat.patterns)) == []


def test_the_check_catches_a_misspelt_guess() -> None:
    """Negative control: the lexicon's guess for an undeclared ``api_provided_by`` is misspelt, and the check says so."""
    bare = [Predicate(name="api_provided_by", domain="api", range="component"),
            Predicate(name="governed_by", domain="path", range="rule")]
    found = " ".join(misspelt(bare, []))
    assert "'provids'" in found and "'governer'" in found


def test_a_declared_word_on_the_stem_corrects_the_guess_and_other_words_extend_it() -> None:
    provided = predicate_words(Predicate(name="api_provided_by", domain="api", range="component",
                                         verbs=["provides", "providing"]))
    assert "provides" in provided.verbs and not any("provids" in v for v in provided.verbs)
    assert ("providing", "component") in provided.nouns and ("api providing", "component") not in provided.nouns
    governed = predicate_words(Predicate(name="governed_by", domain="path", range="rule", nouns=["governing rule"]))
    assert ("governer",) not in governed.nouns and ("governing", "rule") in governed.nouns
    # a declared word on another stem adds to the guess, which stays (maintains beside owns)
    owned = predicate_words(Predicate(name="owned_by", domain="service", range="team", verbs=["maintains"],
                                      nouns=["steward"]))
    assert {"owns", "owning", "maintains"} <= owned.verbs and {("owner",), ("steward",)} <= owned.nouns
