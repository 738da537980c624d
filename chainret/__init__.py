"""chainret: auditable multi-hop retrieval over a versioned, permission-aware relation catalog.

Importing chainret never imports torch, transformers or sentence-transformers; the layers that
need a model load it lazily. The public names below are loaded on first use (PEP 562), so
``import chainret`` (and the CLI, which imports ``chainret.cli``) pays only for what it touches.
"""

from __future__ import annotations

import sys
import types
from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"


def compiled_build() -> bool:
    """True when the optional mypyc build answers: its shared library sits in the package (``setup.py``'s
    ``group_name="chainret.compiled"``). Looked up, not imported."""
    from importlib.util import find_spec

    return find_spec("chainret.compiled__mypyc") is not None

# public name -> the module that defines it
_LAZY = {
    "CatalogInvalid": "chainret.errors",
    "ChainretError": "chainret.errors",
    "DataError": "chainret.errors",
    "MissingExtra": "chainret.errors",
    "ModelError": "chainret.errors",
    "Budget": "chainret.trace",
    "Trace": "chainret.trace",
    "read_trace": "chainret.trace",
    "write_trace": "chainret.trace",
    # `from chainret import ask` gives the function; the module stays importable as chainret.ask
    # (`from chainret.ask import path_names`, importlib.import_module("chainret.ask")).
    "ask": "chainret.ask",
}

if TYPE_CHECKING:
    from chainret.ask import ask
    from chainret.errors import CatalogInvalid, ChainretError, DataError, MissingExtra, ModelError
    from chainret.trace import Budget, Trace, read_trace, write_trace


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'chainret' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # the function `ask` shadows the submodule attribute, as before
    return value


class _Package(types.ModuleType):
    """``chainret.ask`` stays the function once the submodule of that name is imported.

    The import system sets a package's attribute to a submodule after loading it; the eager
    ``from chainret.ask import ask`` used to overwrite that, this keeps the same result lazily."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "ask" and isinstance(value, types.ModuleType):
            value = value.ask
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


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
    "compiled_build",
    "read_trace",
    "write_trace",
]
