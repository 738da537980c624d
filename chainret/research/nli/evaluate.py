"""Accuracy and confusion matrices of an NLI model on the held-out evaluation sets."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from chainret.research.nli.data import EVAL_SETS, load_eval
from chainret.research.nli.model import CANONICAL, NLIModel


@dataclass
class SetResult:
    name: str
    accuracy: float
    n: int
    confusion: list[list[int]]  # rows gold, columns predicted, both in CANONICAL order
    seconds: float
    limit: int | None

    def to_dict(self) -> dict:
        return {"accuracy": round(self.accuracy, 4), "n": self.n, "confusion": self.confusion,
                "seconds": round(self.seconds, 1), "limit": self.limit}


def confusion_matrix(gold: np.ndarray, pred: np.ndarray) -> list[list[int]]:
    m = np.zeros((3, 3), dtype=int)
    np.add.at(m, (gold, pred), 1)
    return m.tolist()


def evaluate(model: NLIModel, sets: list[str] | None = None, limit: int | None = None,
             data_dir: str | os.PathLike[str] | None = None, batch_size: int = 32,
             progress: Callable[[SetResult], None] | None = None) -> dict[str, SetResult]:
    """Score each set (``limit``: same seeded sample of that many pairs for every model)."""
    results: dict[str, SetResult] = {}
    for name in sets or list(EVAL_SETS):
        pairs = load_eval(name, data_dir, limit=limit)
        t0 = time.time()
        probs = model.predict_proba([(p.premise, p.hypothesis) for p in pairs], batch_size=batch_size)
        gold = np.array([p.label for p in pairs], dtype=int)
        pred = probs.argmax(1) if len(pairs) else np.zeros(0, dtype=int)
        res = SetResult(name, float((pred == gold).mean()) if len(pairs) else 0.0, len(pairs),
                        confusion_matrix(gold, pred), time.time() - t0, limit)
        results[name] = res
        if progress:
            progress(res)
    return results


__all__ = ["CANONICAL", "SetResult", "confusion_matrix", "evaluate"]
