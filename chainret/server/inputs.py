"""What a served request may hold, checked at the edge, before anything reads it.

A trace sent to ``POST /trace/verify`` or the MCP ``verify_trace`` tool is the client's JSON: the
``Trace`` model types its own fields, but ``meta`` is free-form, and the library reads some of its
keys (``principal``, ``viewer``, ``view``, ``projected``, ``backtrack``, ``catalog``) as the types
it writes them with. ``TraceMeta`` types those keys; ``json_problem`` refuses what JSON carries but
no answer can (a lone surrogate, a non-finite number, nesting deeper than ``MAX_DEPTH``), because a
response that quoted it back could not be encoded. Both raise plain messages, never the input.

``VerifyIn`` is the body of ``POST /trace/verify``: a trace as ``/ask`` returned it, bare or as
``{"trace": ..., "min_revision": ...}`` (the MCP tool's shape; ``min_revision`` optional).
"""

from __future__ import annotations

import math
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from chainret.trace.model import Trace

MAX_DEPTH = 64  # a trace /ask returns nests about 8 deep
_SURROGATE = re.compile("[\ud800-\udfff]")


def json_problem(value: Any, max_depth: int = MAX_DEPTH) -> str | None:
    """Why ``value`` (parsed JSON) cannot be served, or None. Iterative: deep input cannot crash it."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            return f"the JSON nests deeper than {max_depth} levels"
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return "a string holds invalid Unicode (a lone surrogate, e.g. \\ud800)"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return "a number is not finite (NaN or Infinity is not JSON)"
        elif isinstance(item, dict):
            for k, v in item.items():
                stack.append((k, depth + 1))
                stack.append((v, depth + 1))
        elif isinstance(item, (list, tuple)):
            stack.extend((v, depth + 1) for v in item)
    return None


class TraceMeta(BaseModel):
    """The ``meta`` keys the server and the replay read, typed as ``ask`` writes them; others pass."""

    model_config = ConfigDict(extra="allow", strict=True)

    principal: str = Field("public", max_length=64)
    viewer: str | None = Field(None, max_length=64)
    view: str | None = Field(None, max_length=128)
    projected: bool = True
    backtrack: bool = True
    catalog: str | None = Field(None, max_length=4096)
    world: str | None = Field(None, max_length=256)


def meta_problem(meta: Any) -> str | None:
    """Why a trace's ``meta`` cannot be read as ``TraceMeta``, or None (locations only, never values)."""
    try:
        TraceMeta.model_validate(meta)
    except ValidationError as exc:
        return "; ".join(f"meta.{'.'.join(map(str, e['loc'])) or '?'}: {e['msg']}" for e in exc.errors()[:5])
    return None


def trace_problem(trace: Trace) -> str | None:
    """``json_problem`` and ``meta_problem`` of a validated trace (for callers that skip ``VerifyIn``)."""
    return json_problem(trace.model_dump(mode="python")) or meta_problem(trace.meta)


class VerifyIn(BaseModel):
    """POST /trace/verify: a trace ``/ask`` returned, bare or as ``{"trace": ...}``."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"description": "a trace, or {\"trace\": trace}"})

    trace: Trace
    min_revision: str | None = Field(None, max_length=80, description="replay against at least this catalog revision (409 catalog_behind if not)")

    @model_validator(mode="before")
    @classmethod
    def _shape(cls, data: Any) -> Any:
        problem = json_problem(data)
        if problem is not None:
            raise ValueError(problem)
        if isinstance(data, dict) and not ("trace" in data and set(data) <= {"trace", "min_revision"}):
            return {"trace": data}  # a bare trace (it always has "request" and "outcome", never "trace")
        return data

    @model_validator(mode="after")
    def _meta(self) -> VerifyIn:
        problem = meta_problem(self.trace.meta)
        if problem is not None:
            raise ValueError(problem)
        return self
