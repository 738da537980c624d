"""The packing interface: naive packer, budget guard, determinism, errors."""

import pytest

from chainret.core.errors import BudgetError, UsageError
from chainret.pack import Candidate, get_packer


def _c(ref: str, cost: int, rel: float) -> Candidate:
    return Candidate(ref=ref, text=ref, cost=cost, doc_id=ref[0], span=None, relevance=rel)


def test_naive_takes_by_relevance_and_skips_what_does_not_fit():
    cands = [_c("a", 5, 0.2), _c("b", 8, 0.9), _c("c", 3, 0.5), _c("d", 2, 0.1)]
    assert get_packer("naive").pack(cands, 12) == [1, 2]
    assert get_packer("naive").pack(cands, 13) == [1, 2, 3]
    assert get_packer("naive").pack(cands, 13, max_items=1) == [1]


def test_naive_never_takes_a_first_pick_dearer_than_the_budget():
    cands = [_c("big", 1000, 1.0), _c("small", 10, 0.1)]
    assert get_packer("naive").pack(cands, 900) == [1]
    assert get_packer("naive").pack(cands, 5) == []


def test_ties_break_by_index():
    cands = [_c("a", 1, 0.5), _c("b", 1, 0.5), _c("c", 1, 0.5)]
    assert get_packer("naive").pack(cands, 2) == [0, 1]


def test_bad_requests_are_named():
    with pytest.raises(BudgetError, match="budget is -1"):
        get_packer("naive").pack([], -1)
    with pytest.raises(BudgetError, match=r"\('x'\) has cost -3"):
        get_packer("naive").pack([_c("x", -3, 1.0)], 10)
    with pytest.raises(UsageError, match="unknown packer 'nope'"):
        get_packer("nope")


def test_packing_never_imports_torch_or_transformers():
    import subprocess
    import sys

    code = (
        "import sys; from chainret.research.packing import Candidate, get_packer; "
        "[get_packer(n).pack([Candidate('a', 'x y', 3, 'd', None, 1.0)], 5) for n in ('naive', 'focused', 'mmr', 'submodular', 'oracle')]; "
        "print(sorted(m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"
