"""The decomposer's frozen split and rule coverage (issue 27), and the rule that no evaluated question is quoted.

The split tests need no data (the fixture is committed); the tests that compare the split, the code or the
word lists with the MuSiQue questions skip, saying so, when the benchmark data is not present.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from chainret.research.verification import decompose
from chainret.research.verification.iterative import bridges, decomposer, descriptors, lexicon, tokens
from chainret.research.verification.coverage import at_mix, coverage, question_coverage, within
from chainret.research.verification.split import PARTS, REFERENCE, SPLIT_PATH, build_split, load_split, make_split
from benchmarks.harness.paths import absent, data_dir

ROOT = Path(__file__).resolve().parents[1]
NO_DATA = absent("musique") or ("" if (data_dir() / REFERENCE).is_file() else f"{data_dir() / REFERENCE} absent")
needs_data = pytest.mark.skipif(bool(NO_DATA), reason=NO_DATA or "present")

# sha256 of the committed parts (json, sorted keys). Frozen: if this changes, the held-out parts were re-drawn
# and everything reported on them since issue 27 is void.
FROZEN_SHA256 = "3214b40d1afd05ac85c65da0089c2776a2dcdd0494e7523f08e6081477b91d0f"


def _parts_digest(parts: dict[str, list[str]]) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def test_split_file_is_frozen_and_its_parts_disjoint():
    split = load_split()
    assert _parts_digest(split) == FROZEN_SHA256
    seen: dict[str, str] = {}
    for name in PARTS:
        assert split[name] == sorted(split[name]) and len(set(split[name])) == len(split[name])
        for q in split[name]:
            assert q not in seen, f"{q} is in {seen.get(q)} and {name}"
            seen[q] = name
    assert [len(split[p]) for p in PARTS] == [146, 146, 1063, 1062]
    meta = json.loads(SPLIT_PATH.read_text())
    assert meta["seed"] == 27 and "eval-heldout" in meta["description"]


def test_make_split_halves_each_hop_count_and_depends_on_the_seed():
    ev = [(f"e{i}", 2 + i % 3) for i in range(30)]
    ot = [(f"o{i}", 2 + i % 3) for i in range(31)]
    a = make_split(ev, ot, seed=5)
    assert a == make_split(list(reversed(ev)), list(reversed(ot)), seed=5)  # input order does not matter
    for dev, held, pairs in (("eval-dev", "eval-heldout", ev), ("coverage-dev", "coverage-unseen", ot)):
        hops = dict(pairs)
        for h in (2, 3, 4):
            n_dev = sum(hops[q] == h for q in a[dev])
            n_held = sum(hops[q] == h for q in a[held])
            assert n_dev + n_held == sum(x == h for x in hops.values()) and 0 <= n_dev - n_held <= 1
        assert not set(a[dev]) & set(a[held])
    assert make_split(ev, ot, seed=6) != a


@needs_data
def test_split_redraws_identically_from_the_data():
    """The 292 with paragraphs are exactly the eval parts; every other dev question is in a coverage part."""
    assert build_split()["parts"] == load_split()


def test_rule_coverage_counts_descriptors_without_paragraphs():
    # synthetic questions (no MuSiQue question is quoted in code or tests)
    assert question_coverage("Where was the performer of Lonely Harbor born?", 2)["hops_equal_gold"]
    row = question_coverage("In which county was the founder of Kestrel Mills born?", 3)
    assert row["hops_found"] == 3 and row["hops_equal_gold"]
    row = question_coverage("Who owns Kestrel Mills?", 2)
    assert not row["decomposed"] and row["fewer"]
    cov = coverage([{"question": "Who owns Kestrel Mills?", "question_decomposition": [{}, {}]},
                    {"question": "Where was the performer of Lonely Harbor born?", "question_decomposition": [{}, {}]},
                    {"question": "Who founded the label of the Lonely Harbor singer?", "question_decomposition": [{}, {}, {}]}])
    assert cov["undecomposed"]["k"] == 1 and cov["by_hops"]["2"]["undecomposed"]["k"] == 1
    assert cov["by_hops"]["3"]["hops_equal_gold"]["k"] == 1
    assert cov["by_composition"]["natural"]["n"] == 2 and cov["by_composition"]["relation"]["n"] == 0
    rel = coverage([{"question": "Who owns Kestrel Mills?", "question_decomposition": [{"question": "Kestrel Mills >> owner"},
                                                                                      {"question": "#1 >> owner"}]}])
    assert rel["by_composition"]["relation"]["undecomposed"]["k"] == 1
    # re-weighting to a 3-hop-only mix gives the 3-hop share (0 undecomposed); an even mix averages the strata
    assert at_mix(cov, {"3": 10})["value"] == 0.0
    assert at_mix(cov, {"2": 5, "3": 5})["value"] == pytest.approx(0.25)
    assert within(0.1, {"low": 0.05, "high": 0.2}) and not within(0.3, {"low": 0.05, "high": 0.2})


def _evaluated_and_others() -> tuple[list[dict], list[dict]]:
    from chainret.research.verification.split import reference_records

    split = load_split()
    ev = set(split["eval-dev"]) | set(split["eval-heldout"])
    ref = reference_records()
    return [r for r in ref if r["id"] in ev], [r for r in ref if r["id"] not in ev]


_W = re.compile(r"[A-Za-z0-9]+")


def _texts(r: dict) -> list[str]:
    return [r["question"], *(s.get("question", "") for s in r.get("question_decomposition") or [])]


def _windows(text: str, common: set[str], n: int = 4) -> set[str]:
    """Lower-cased n-word windows holding a name: a word after the question's first that is capitalised or has a
    digit and that the other questions never use in lower case ("Harlow" in "Harlow County", not "County")."""
    raw = _W.findall(text)
    out = set()
    for i in range(len(raw) - n + 1):
        if any((w[0].isupper() or w[0].isdigit()) and w.lower() not in common
               for k, w in enumerate(raw[i : i + n]) if i + k > 0):
            out.add(" ".join(w.lower() for w in raw[i : i + n]))
    return out


@needs_data
def test_no_evaluated_question_is_quoted_in_code_or_tests():
    """Neither chainret/ nor tests/ quotes one of the 292 evaluated questions (or their gold sub-questions):
    no 4-word window with a name in it that only the evaluated questions contain."""
    evaluated, others = _evaluated_and_others()
    other_texts = [t for r in others for t in _texts(r)]
    common = {w for t in other_texts for w in _W.findall(t) if w.islower()}
    seen_elsewhere = set().union(*(_windows(t, set()) for t in other_texts))
    sources = {p: " " + " ".join(w.lower() for w in _W.findall(p.read_text(encoding="utf-8"))) + " "
               for d in ("chainret", "tests") for p in (ROOT / d).rglob("*.py")}
    found = []
    for r in evaluated:
        for t in _texts(r):
            probes = sorted(_windows(t, common) - seen_elsewhere)
            for p, text in sources.items():
                hit = next((w for w in probes if f" {w} " in text), None)
                if hit:
                    found.append(f"{p.relative_to(ROOT)} quotes {r['id']} ({hit!r})")
    assert not found, "\n".join(found)


def _word_lists() -> dict[str, set[str]]:
    out = {}
    for mod in (lexicon, tokens, descriptors, bridges, decomposer, decompose):  # the word lists' homes
        for name, value in vars(mod).items():
            if name.startswith("_") and not name.startswith("__") and isinstance(value, (set, frozenset, dict, tuple, list)) and value and all(
                    isinstance(x, str) for x in value):
                out[f"{mod.__name__}.{name}"] = {w.lower() for x in value for w in _W.findall(x)}
    return out


@needs_data
def test_no_word_list_entry_occurs_only_in_the_evaluated_questions():
    """A word-list entry that the 292 evaluated questions contain and none of the other 2,125 serves the evaluated set."""
    evaluated, others = _evaluated_and_others()
    ev_words = {w.lower() for r in evaluated for t in _texts(r)[:1] for w in _W.findall(t)}
    other_words = {w.lower() for r in others for t in _texts(r)[:1] for w in _W.findall(t)}
    only = {name: sorted(words & ev_words - other_words) for name, words in _word_lists().items()}
    assert not {k: v for k, v in only.items() if v}
