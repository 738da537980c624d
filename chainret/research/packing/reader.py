"""Reader interface: plug a model in to turn packed contexts into EM/F1.

No reader model is available offline in this project, so nothing here runs one; the packing
benchmark reports reader-independent diagnostics only. A user with a model implements
``Reader`` (any object with ``name`` and ``answer(question, context) -> str``) and calls
``score_traces`` on the ``traces.jsonl`` that ``chainret bench pack`` wrote.

Example:
    class MyReader:
        name = "qwen2.5-3b"
        def answer(self, question: str, context: str) -> str:
            return generate(f"Context:\\n{context}\\n\\nQuestion: {question}\\nAnswer:")

    score_traces(MyReader(), read_traces("runs/pack/hotpotqa/traces.jsonl"))
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Protocol, runtime_checkable

from chainret.research.qa.metrics import em_f1
from chainret.core.errors import DataError
from chainret.trace.model import Trace


@runtime_checkable
class Reader(Protocol):
    name: str

    def answer(self, question: str, context: str) -> str: ...


def read_traces(path: str | Path) -> list[Trace]:
    """The JSON-lines traces of a pack run."""
    p = Path(path)
    out = []
    for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(Trace.from_json(line))
        except ValueError as exc:
            raise DataError(f"{p}:{n}: not a chainret trace: {str(exc).splitlines()[0]}") from None
    return out


def score_traces(reader: Reader, traces: Iterable[Trace], keys: Iterable[str] | None = None) -> dict[str, dict[str, float]]:
    """Mean EM and F1 of ``reader`` on each packet key ("packer@budget"), over the traces given."""
    wanted = set(keys) if keys is not None else None
    sums: dict[str, list[float]] = {}
    for t in traces:
        answers = list(t.meta.get("answers", []))
        for key, packet in t.packets.items():
            if wanted is not None and key not in wanted:
                continue
            em, f1 = em_f1(reader.answer(t.request, packet.text), answers)
            acc = sums.setdefault(key, [0.0, 0.0, 0.0])
            acc[0] += em
            acc[1] += f1
            acc[2] += 1
    return {k: {"em": v[0] / v[2], "f1": v[1] / v[2], "n": v[2]} for k, v in sorted(sums.items())}
