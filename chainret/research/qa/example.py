"""The one example model every benchmark adapter produces.

Adapters (HotpotQA, 2WikiMultihopQA, MuSiQue, SQuAD, vws-splits) differ in file format only;
downstream code (signals, verification, packing, metrics) sees ``Example`` and nothing else.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Paragraph(_Model):
    """A candidate paragraph. ``idx`` is its position in ``Example.paragraphs``; ``ref`` a stable id."""

    idx: int
    ref: str  # e.g. "hotpotqa:5a8b57f2…#p3"
    title: str
    sentences: list[str]
    is_gold: bool = False
    supporting_sentences: list[int] | None = None  # sentence indices, where the dataset gives them

    @property
    def text(self) -> str:
        return " ".join(s.strip() for s in self.sentences if s.strip())


class SubQuestion(_Model):
    """One hop of a gold decomposition. ``question`` may hold ``#k`` placeholders (1-based)."""

    question: str
    answer: str
    paragraph_idx: int | None = None  # the paragraph supporting this hop


class EvidenceTriple(_Model):
    """2WikiMultihopQA evidence: (subject, relation, object)."""

    subject: str
    relation: str
    object: str


class Example(_Model):
    id: str
    dataset: str  # "hotpotqa", "2wiki", "musique", "squad"
    question: str
    answers: list[str]  # canonical answer first, then aliases
    paragraphs: list[Paragraph]
    qtype: str | None = None  # bridge/comparison (HotpotQA), compositional/inference/… (2Wiki), "single" (SQuAD)
    hops: int | None = None
    decomposition: list[SubQuestion] | None = None  # MuSiQue (and 2Wiki derived from evidences)
    evidences: list[EvidenceTriple] | None = None
    source: str = ""  # "file:line" it was read from
    meta: dict[str, str] = Field(default_factory=dict)

    @property
    def answer(self) -> str:
        return self.answers[0] if self.answers else ""

    @property
    def gold_indices(self) -> list[int]:
        return [p.idx for p in self.paragraphs if p.is_gold]
