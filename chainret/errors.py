"""One exception tree. Every message is written for the person at the terminal.

The CLI turns any ``ChainretError`` into a one-line message on stderr and
``exit_code``; nothing in this tree should ever surface as a traceback.
"""

from __future__ import annotations


class ChainretError(Exception):
    """Base class: a problem the user can act on."""

    exit_code = 1


class UsageError(ChainretError):
    """The command line or a parameter is wrong (bad flag value, unknown name)."""

    exit_code = 2


class CatalogInvalid(ChainretError):
    """A catalog or world file cannot be loaded: bad syntax, unknown field, wrong type, bad reference."""


class UnknownEntity(ChainretError):
    """An alias or canonical ID does not resolve in the requested view."""


class AmbiguousRequest(ChainretError):
    """An alias resolves to several entities; we refuse to guess."""


class PermissionDenied(ChainretError):
    """The principal may not see what was asked for."""


class BudgetError(ChainretError):
    """A budget parameter is out of range."""


class DataError(ChainretError):
    """A benchmark data file or record is malformed (names file, record and field)."""


class MissingExtra(ChainretError):
    """An optional dependency (torch, transformers, sentence-transformers) is not installed."""


class ModelError(ChainretError):
    """A model could not be loaded or does not behave as its config says (e.g. NLI label order)."""


class TraceMismatch(ChainretError):
    """A replayed trace differs from what the catalog now gives."""
