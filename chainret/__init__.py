"""chainret: auditable multi-hop retrieval over a versioned, permission-aware relation catalog.

Importing chainret never imports torch, transformers or sentence-transformers; the layers that
need a model load it lazily.
"""

__version__ = "0.1.0"

from chainret.errors import (  # noqa: E402 - __version__ first: modules below may read it
    CatalogInvalid,
    ChainretError,
    DataError,
    MissingExtra,
    ModelError,
)
from chainret.trace import Budget, Trace, read_trace, write_trace  # noqa: E402

# `from chainret import ask` gives the function; the module stays importable as chainret.ask
# (`from chainret.ask import path_names`, importlib.import_module("chainret.ask")).
from chainret.ask import ask  # noqa: E402 - after the light names above


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
