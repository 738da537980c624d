"""``model_construct`` in one short Python path, for models the engine builds from values already checked.

A warm ask builds about sixteen trace and catalog models (a search's hits, each hop, the anchors read
from the store, the packet, the coverage, the trace). Their values are rows the store validated when it
was compiled (an entity, an anchor's source, version, span and quote) or values the engine computed
under static types that mypy checks at every call site. Validating them again is cheap in a loop but not
within an ask: each model has its own validator in pydantic-core, and between two asks SQLite, the engine and
the serialiser push those out of the processor's caches, so a dozen models cost about a fifth of a compiled
warm ask (callgrind: 26% of its instructions under the models' ``__init__``). ``Record.model_construct``
(``chainret.core.record``) is one small function for every model: a copy of the class's defaults updated
with the given values, the instance validation would build with its fields in declaration order.

The check stays in the tests: with ``CHAINRET_CHECK_TRUSTED=1`` (set by the test suite's conftest, read
once at import) every ``model_construct`` of a ``TrustedModel`` also validates the same values and fails
on any difference (a value of another type, an unknown field, a broken constraint), so the golden
traces, the parity suites and the fuzzers check every construction the engine makes. Input from outside
never takes this path: requests, catalog files and stored traces are validated where they come in.
"""

from __future__ import annotations

import os
from typing import Any

from chainret.core import record
from chainret.core.record import ConfigDict, Record

CHECK = os.environ.get("CHAINRET_CHECK_TRUSTED", "") not in ("", "0")


class TrustedModel(Record):
    """A record whose ``model_construct`` is checked against validation under ``CHAINRET_CHECK_TRUSTED``."""

    model_config = ConfigDict()


def _check_trusted(cls: type[Record], built: Record, values: dict[str, Any]) -> None:
    """``record.check_hook``: a ``TrustedModel``'s construction checked while ``CHECK`` holds (a test may turn it off)."""
    if CHECK and issubclass(cls, TrustedModel):
        _check(cls, built, values)


if CHECK:  # (set only here: a process that does not check pays nothing per construction)
    record.check_hook = _check_trusted


def _check(cls: type[Record], built: Record, values: dict[str, Any]) -> None:
    """Fail unless validating ``values`` gives the same instance, value for value and type for type."""
    checked = cls(**values)
    a, b = built.__dict__, checked.__dict__
    if list(a) != list(b):
        raise AssertionError(f"{cls.__name__}.model_construct: fields {list(a)} differ from the validated {list(b)}")
    for name, value in b.items():
        if type(a[name]) is not type(value) or a[name] != value:
            raise AssertionError(
                f"{cls.__name__}.model_construct: {name}={a[name]!r} ({type(a[name]).__name__}) but validation gives "
                f"{value!r} ({type(value).__name__})"
            )
