"""One exception tree. Every message is written for the person at the terminal.

The CLI turns any ``ChainretError`` into a one-line message on stderr and
``exit_code``; nothing in this tree should ever surface as a traceback.

Exit codes (one table for every command; ``chainret --help`` and the README show it):

* 0: done; ``ask`` found an accepted path, ``validate`` found every world valid, ``trace verify``
  replayed the trace unchanged, ``eval`` met every expectation;
* 1: done, and the answer is no: ``ask`` refused, found no complete path or no pattern;
  ``validate`` found an invalid world; ``trace verify`` found a difference; ``eval`` missed one;
* 2: usage or input problem: a bad flag or value, an input file that is missing, unreadable,
  special or malformed (catalog, cases, trace, data), an output path that cannot be written;
* 3: environment problem: an optional extra (torch & co.) or a model is missing or broken;
* 130: interrupted.
"""

from __future__ import annotations


EXIT_OK, EXIT_NO, EXIT_USAGE, EXIT_ENVIRONMENT, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_CODES = (
    (EXIT_OK, "done: an accepted path / valid / replay matches / expectations met"),
    (EXIT_NO, "done, the answer is no: refused, no complete path, no pattern / invalid / replay differs / expectation missed"),
    (EXIT_USAGE, "usage or input problem: bad flag, missing/unreadable/malformed input file, unwritable output path"),
    (EXIT_ENVIRONMENT, "environment problem: an optional extra or a model is missing or broken"),
    (EXIT_INTERRUPTED, "interrupted"),
)
# The model extra, with the CPU torch pin first (a bare `torch` requirement pulls a multi-GB CUDA build).
INSTALL_MODELS = "pip install torch==2.13.0 && pip install 'chainret[models]'"


class ChainretError(Exception):
    """Base class: a problem the user can act on."""

    exit_code = EXIT_USAGE


class UsageError(ChainretError):
    """The command line or a parameter is wrong (bad flag value, unknown name)."""


class CatalogInvalid(ChainretError):
    """A catalog or world file cannot be loaded: bad syntax, unknown field, wrong type, bad reference."""


class BudgetError(ChainretError):
    """A budget parameter is out of range."""


class DataError(ChainretError):
    """A benchmark data file or record is malformed (names file, record and field)."""


class MissingExtra(ChainretError):
    """An optional dependency is not installed; ``extra`` names the extra that brings it."""

    exit_code = EXIT_ENVIRONMENT

    def __init__(self, message: str, extra: str = "models") -> None:
        super().__init__(message)
        self.extra = extra


class ModelError(ChainretError):
    """A model could not be loaded or does not behave as its config says (e.g. NLI label order)."""

    exit_code = EXIT_ENVIRONMENT


class OutputError(ChainretError):
    """An output path cannot be written: a directory, a special file or link, a missing or unwritable parent."""
