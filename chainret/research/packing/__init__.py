"""Budgeted evidence packing experiments: the packers beyond ``naive``, the submodular objective,
candidates from benchmark questions, reader-token counts, packing runs and diagnostics.

Importing this package registers the research packers (focused, focused-seed, mmr, submodular,
oracle) on ``chainret.pack``'s registry; it imports numpy, never torch or transformers (the
tokenizer and embedder load lazily inside the functions that need them).
"""

from chainret.pack import Candidate, PackContext, Packer, available_packers, get_packer
from chainret.research.packing import packers as _packers  # noqa: F401  (registers the research packers)

__all__ = ["Candidate", "PackContext", "Packer", "available_packers", "get_packer"]
