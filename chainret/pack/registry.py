"""Packers by name: ``get_packer(name)``, ``available_packers()``.

``naive`` is registered by ``chainret.pack.base``, so asking for it never imports the numpy-based
packers of ``chainret.pack.packers`` (the ``chainret ask`` path relies on that); any other name
imports that module, which registers the rest.
"""

from __future__ import annotations

from chainret.errors import UsageError
from chainret.pack.base import _REGISTRY, Packer


def available_packers() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)


def get_packer(name: str) -> Packer:
    """Return a fresh packer by name: naive, focused, mmr, submodular, oracle.

    ``naive`` lives in ``chainret.pack.base``, so asking for it never imports the numpy-based packers
    (the ``chainret ask`` path relies on that).
    """
    if name not in _REGISTRY:
        _load_builtin()
    try:
        return _REGISTRY[name]()
    except KeyError:
        raise UsageError(
            f"unknown packer {name!r}; choose one of: {', '.join(sorted(_REGISTRY))}"
        ) from None


def _load_builtin() -> None:
    # The other packers live in packers.py; importing registers them (numpy only, no torch).
    from chainret.pack import packers  # noqa: F401
