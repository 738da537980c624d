"""chainret: auditable multi-hop retrieval over a versioned, permission-aware relation catalog.

Importing chainret never imports torch, transformers or sentence-transformers; the layers that
need a model load it lazily.
"""

from chainret.errors import (
    AmbiguousRequest,
    CatalogInvalid,
    ChainretError,
    DataError,
    MissingExtra,
    ModelError,
    PermissionDenied,
    UnknownEntity,
)
from chainret.trace import Budget, Trace, read_trace, write_trace

__version__ = "0.1.0"

__all__ = [
    "AmbiguousRequest",
    "Budget",
    "CatalogInvalid",
    "ChainretError",
    "DataError",
    "MissingExtra",
    "ModelError",
    "PermissionDenied",
    "Trace",
    "UnknownEntity",
    "__version__",
    "read_trace",
    "write_trace",
]
