"""chainret: auditable multi-hop retrieval over a versioned, permission-aware relation catalog.

Importing chainret never imports torch, transformers or sentence-transformers; the layers that
need a model load it lazily. The public names below are loaded on first use (PEP 562), so
``import chainret`` (and the CLI, which imports ``chainret.cli``) pays only for what it touches.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"


# public name -> the module that defines it
_LAZY = {
    "CatalogInvalid": "chainret.core.errors",
    "ChainretError": "chainret.core.errors",
    "DataError": "chainret.core.errors",
    "MissingExtra": "chainret.core.errors",
    "ModelError": "chainret.core.errors",
    "Budget": "chainret.trace.model",
    "Trace": "chainret.trace.model",
    "read_trace": "chainret.trace.model",
    "write_trace": "chainret.trace.model",
    # the function; its module is chainret.pipeline.ask, so the name has one meaning
    "ask": "chainret.pipeline.ask",
}

if TYPE_CHECKING:
    from chainret.pipeline.ask import ask
    from chainret.core.errors import CatalogInvalid, ChainretError, DataError, MissingExtra, ModelError
    from chainret.trace.model import Budget, Trace, read_trace, write_trace


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'chainret' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "Budget",
    "CatalogInvalid",
    "ChainretError",
    "DataError",
    "MissingExtra",
    "ModelError",
    "Trace",
    "__version__",
    "ask",
    "read_trace",
    "write_trace",
]
