"""Packers by name: ``get_packer(name)``, ``available_packers()``.

``naive`` is registered by ``chainret.pack.base`` (the chain packet's packer; the ``chainret ask`` path
relies on it importing nothing heavy). The research packers (focused, mmr, submodular, oracle) register
themselves when ``chainret.research.packing`` is imported; the retriever never imports it.
"""

from __future__ import annotations

from chainret.core.errors import UsageError
from chainret.pack.base import _REGISTRY, Packer


def available_packers() -> list[str]:
    """The registered packers' names."""
    return sorted(_REGISTRY)


def get_packer(name: str) -> Packer:
    """Return a fresh packer by name among the registered ones (``naive``, plus the research packers
    once ``chainret.research.packing`` is imported)."""
    try:
        return _REGISTRY[name]()
    except KeyError:
        raise UsageError(
            f"unknown packer {name!r}; choose one of: {', '.join(sorted(_REGISTRY))}"
        ) from None
