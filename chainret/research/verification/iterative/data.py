"""What the decomposer may read (``Candidate``: title and text, never gold) and what it returns."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np



Embed = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class Candidate:
    """What the decomposer sees of a candidate paragraph: its title and text, nothing else."""

    idx: int
    title: str
    text: str

    @property
    def passage(self) -> str:
        return f"{self.title}. {self.text}" if self.title else self.text


def candidates_of(example: Any) -> list[Candidate]:
    """An example's paragraphs as the decomposer may see them (title and text; no gold flag, no answer)."""
    return [Candidate(p.idx, p.title, p.text) for p in example.paragraphs]


@dataclass
class BridgeChoice:
    name: str
    how: str  # title | anchor-title | name | value
    prior: float
    evidence: float = 0.0  # fused retrieval score of the filled next sub-question's best anchor
    next_anchor: int | None = None

    @property
    def score(self) -> float:
        return self.prior + self.evidence


@dataclass
class HopStep:
    """One hop: the filled sub-question, its anchor, and the bridge read from it."""

    hop: int
    template: str  # hop k's sub-question with earlier bridges as #j
    subquestion: str  # filled
    anchor: int
    anchor_title: str
    anchor_score: float
    bridge: str
    bridge_how: str
    answer_type: str
    alternatives: list[dict[str, Any]] = field(default_factory=list)  # runner-up bridges with their scores


@dataclass
class IterativeDecomposition:
    question: str
    mode: str  # "2wiki-relations" | "surface" | "none"
    steps: list[HopStep]
    final_template: str  # the later hop's sub-question with #k placeholders
    final_question: str  # the later hop's filled sub-question: the hypothesis source

    @property
    def bridges(self) -> dict[int, str]:
        return {s.hop: s.bridge for s in self.steps}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
