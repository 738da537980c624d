"""How long work says how far it has got: one callback the library calls, a no-op by default.

Imports (``chainret.sources``) and compiles (``chainret.store``) take ``progress=`` and call it as
they go: ``progress(stage, done, total, unit)``, e.g. ``("importing commits", 12, 300, "commits")``
or ``("reading the catalog", 4_194_304, 90_000_000, "bytes")``; ``total`` is None while it is not
known (a spinner, not a bar). A new ``stage`` string means the previous stage is over.

The library stays free of any terminal library: the CLI passes a callback that drives rich's
progress bar on a terminal and passes ``no_progress`` in a pipe (``chainret.cli.progress``).
Loops that run per record report every ``EVERY`` records, so the callback costs nothing measurable.
"""

from __future__ import annotations

from typing import Protocol

EVERY = 1000  # a per-record loop reports once per this many records


class Progress(Protocol):
    """Called with the stage, how much of it is done, its total (None: not known) and the unit counted."""

    def __call__(self, stage: str, done: int, total: int | None = None, unit: str = "") -> None: ...


def no_progress(stage: str, done: int, total: int | None = None, unit: str = "") -> None:
    """The default: report nothing."""
