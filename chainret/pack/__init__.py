"""Budgeted evidence packing: candidates, packers, the submodular objective and diagnostics.

Importing this package never imports torch or transformers; the tokenizer and embedder load
lazily inside the functions that need them.
"""

from chainret.pack.base import Candidate, PackContext, Packer
from chainret.pack.registry import available_packers, get_packer

__all__ = ["Candidate", "PackContext", "Packer", "available_packers", "get_packer"]
