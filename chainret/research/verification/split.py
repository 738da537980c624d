"""The decomposer's frozen development / held-out split of MuSiQue dev (issue 27).

The iterative decomposer's rules were written while reading MuSiQue questions. From issue 27 on they
are tuned on development questions only, and two parts are never looked at except to report:

- ``eval-dev`` / ``eval-heldout``: the 292 questions with paragraphs (the later-hop AUC set), halved.
  Nothing (rule, word list, constant, comment, test) may be tuned on ``eval-heldout``.
- ``coverage-dev`` / ``coverage-unseen``: the other 2,125 MuSiQue-Ans dev questions, which have no
  paragraphs here, so only the rules' output (share decomposed, hops found against the gold hop
  count) can be checked on them. ``coverage-unseen`` is for reporting only.

How it was made (``make_split``): each group's ids are split by gold hop count (2, 3, 4); within a
hop count the sorted ids are shuffled with ``random.Random(f"{SEED}:{group}:{hops}")`` and the
first ceil(n/2) go to the development part. The split is committed as
``benchmarks/splits/musique_decomposer.json`` (written by ``python -m benchmarks.decompose_split``)
and frozen: tests check that the file is unchanged and its parts disjoint.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from chainret.core.errors import DataError

SEED = 27
PARTS = ("eval-dev", "eval-heldout", "coverage-dev", "coverage-unseen")
SPLIT_PATH = Path(__file__).resolve().parents[3] / "benchmarks" / "splits" / "musique_decomposer.json"
REFERENCE = "musique/reference_no_paragraphs/peterbaile__lag/dev.json"
DESCRIPTION = (
    "Frozen development/held-out split of the 2,417 MuSiQue-Ans dev questions for the iterative decomposer "
    "(issue 27). eval-dev / eval-heldout halve the 292 questions with paragraphs (the later-hop AUC set); "
    "coverage-dev / coverage-unseen halve the other 2,125 (no paragraphs: rule coverage only). Rules, word "
    "lists, constants, comments and tests may be tuned on the -dev parts only; eval-heldout and "
    "coverage-unseen are for reporting. Made by make_split: per group and gold hop count, the sorted ids are "
    f"shuffled with random.Random(f'{{seed}}:{{group}}:{{hops}}') (seed {SEED}) and the first ceil(n/2) are dev."
)


def make_split(evaluated: Iterable[tuple[str, int]], others: Iterable[tuple[str, int]], seed: int = SEED) -> dict[str, list[str]]:
    """``{part: sorted ids}`` from (id, gold hop count) pairs of the evaluated questions and the others."""
    out: dict[str, list[str]] = {}
    for group, pairs, (dev, held) in (("evaluated", evaluated, PARTS[:2]), ("unparagraphed", others, PARTS[2:])):
        by_hops: dict[int, list[str]] = {}
        for qid, hops in pairs:
            by_hops.setdefault(hops, []).append(qid)
        a: list[str] = []
        b: list[str] = []
        for hops in sorted(by_hops):
            ids = sorted(set(by_hops[hops]))
            random.Random(f"{seed}:{group}:{hops}").shuffle(ids)
            k = (len(ids) + 1) // 2
            a += ids[:k]
            b += ids[k:]
        out[dev], out[held] = sorted(a), sorted(b)
    return out


def reference_records(data_dir: str | Path | None = None) -> list[dict[str, Any]]:
    """All MuSiQue-Ans dev records without paragraphs (id, question, question_decomposition, answer)."""
    from chainret.research.qa.datasets import default_data_dir

    path = Path(data_dir or default_data_dir()) / REFERENCE
    if not path.is_file():
        raise DataError(f"{path}: the MuSiQue dev reference file is missing (see the data folder's SOURCE.md)")
    recs = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(recs, list) or not all(isinstance(r, dict) and "id" in r and "question" in r for r in recs):
        raise DataError(f"{path}: expected a JSON array of records with 'id' and 'question'")
    return recs


def build_split(data_dir: str | Path | None = None, seed: int = SEED) -> dict[str, Any]:
    """The split file's content, drawn from the data (the 292 evaluated ids and the reference)."""
    from chainret.research.qa.datasets import load_examples

    evaluated = {e.id for e in load_examples("musique", data_dir=str(data_dir) if data_dir else None).examples}
    ref = reference_records(data_dir)
    hops = {r["id"]: len(r.get("question_decomposition") or []) for r in ref}
    missing = sorted(evaluated - hops.keys())
    if missing:
        raise DataError(f"evaluated MuSiQue ids missing from the reference: {missing[:3]}")
    parts = make_split([(q, hops[q]) for q in evaluated], [(q, h) for q, h in hops.items() if q not in evaluated], seed)
    return {"description": DESCRIPTION, "seed": seed, "reference": REFERENCE,
            "counts": {p: len(v) for p, v in parts.items()}, "parts": parts}


def load_split(path: str | Path = SPLIT_PATH) -> dict[str, list[str]]:
    """``{part: ids}`` from the committed split file."""
    p = Path(path)
    if not p.is_file():
        raise DataError(f"{p}: the decomposer split file is missing (python -m benchmarks.decompose_split writes it)")
    data = json.loads(p.read_text(encoding="utf-8"))
    parts = data.get("parts") if isinstance(data, dict) else None
    if not isinstance(parts, dict) or set(parts) != set(PARTS):
        raise DataError(f"{p}: expected 'parts' with exactly {', '.join(PARTS)}")
    return {k: list(parts[k]) for k in PARTS}


def part_of(split: dict[str, list[str]]) -> dict[str, str]:
    """id -> part name."""
    return {q: name for name, ids in split.items() for q in ids}
