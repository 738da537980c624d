"""Engine-level relation values for tests that build a ``HopWorld`` by hand."""

from __future__ import annotations

from typing import Any

from chainret.engine.reader import Rel
from chainret.trace.model import Anchor


def rel(rid: str, s: str, p: str, o: str, unit: str | None, **flags: Any) -> Rel:
    """A relation supported by its own ``REL`` clause in unit ``unit`` (None: no unit in the view)."""
    quote = f"REL {s} | {p} | {o}"
    support = Anchor(unit_ref=unit or "", relation_id=rid, source="src", document="doc.md", version="v1",
                     representation="text/markdown", digest="sha256:" + "0" * 64, span=(0, len(quote)), quote=quote)
    return Rel(rid, s, p, o, support, **flags)
