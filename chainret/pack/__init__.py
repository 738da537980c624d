"""The packing interface: candidates, packers and their registry (``naive`` packs the chain packet).

Importing this package imports nothing heavy (no numpy). The research packers, token counts and
packing runs live in ``chainret.research.packing``, which registers its packers here on import.
"""

from chainret.pack.base import Candidate, PackContext, Packer
from chainret.pack.registry import available_packers, get_packer

__all__ = ["Candidate", "PackContext", "Packer", "available_packers", "get_packer"]
