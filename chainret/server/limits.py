"""Server-side limits: budget ceilings, request size, per-identity rate limit, timeouts.

A client may ask for a smaller budget than the library's defaults, or a larger one up to the
server's ceiling; a value above the ceiling is refused (400 ``budget_exceeds_limit``), never
silently lowered. A field the client leaves unset keeps the library's behaviour (defaults; search
and row caps scale with the pattern's hop count) unless that would pass a ceiling, in which case
the server sets it to the ceiling explicitly, so every request runs within the ceilings and its
trace records the budget it ran under.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from chainret.server.errors import ApiError
from chainret.trace.model import Budget

# A set's rows a search may read on to (``Budget.set_rows_per_hop``): the library's default, so a set of up to 25
# values is answered whole here as by the CLI, within the same 40 rows a request.
DEFAULT_CEILING = Budget(rows_per_hop=10, max_searches=8, max_rows=40, max_hops=4, packet_units=8, packet_chars=4000,
                         set_rows_per_hop=25)


class BudgetIn(BaseModel):
    """The budget a client may ask for; every field optional (unset = the library's behaviour)."""

    model_config = ConfigDict(extra="forbid")

    rows_per_hop: int | None = Field(None, ge=1, description="rows returned per search")
    max_searches: int | None = Field(None, ge=1, description="searches per request (default: the pattern's hop count)")
    max_rows: int | None = Field(None, ge=1, description="returned rows per request (default: rows_per_hop x searches)")
    max_hops: int | None = Field(None, ge=1, description="longest pattern allowed")
    packet_units: int | None = Field(None, ge=1, description="units in the final packet")
    packet_chars: int | None = Field(None, ge=1, description="characters in the final packet")


class Limits(BaseModel):
    """Every server-side limit (JSON-serialisable, so worker processes get the same values)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ceiling: Budget = DEFAULT_CEILING
    body_bytes: int = Field(64 * 1024, ge=1, description="largest request body")
    request_chars: int = Field(1000, ge=1, description="longest request text")
    rate: float = Field(20.0, ge=0, description="sustained requests per second per identity (0 = no limit)")
    burst: int = Field(40, ge=1, description="requests an identity may make at once before the rate applies")
    timeout_s: float = Field(15.0, gt=0, description="wall-clock limit per request, queueing for the engine included")
    header_timeout_s: float = Field(10.0, gt=0, description="a request's line and headers must arrive within this (408 and closed after)")
    body_timeout_s: float = Field(10.0, gt=0, description="a request's body must arrive within this, from its headers (408 and closed after)")
    connections: int = Field(500, ge=1, description="connections one server process holds open at once (503 server_busy past it)")
    connections_per_client: int = Field(100, ge=1, description="connections one client address holds open at once (429 too_many_connections past it)")
    streams: int = Field(32, ge=1, description="MCP over HTTP: GET /mcp event streams open at once (503 past it)")
    streams_per_client: int = Field(4, ge=1, description="MCP over HTTP: event streams one identity holds open at once (429 past it)")
    stream_idle_s: float = Field(60.0, gt=0, description="MCP over HTTP: an event stream that sent no event for this long is ended")
    reload_interval_s: float = Field(1.0, ge=0, description="how often a store update is looked for (a request this long after an update sees it)")


def clamp_budget(asked: BudgetIn | dict[str, Any] | None, ceiling: Budget) -> Budget:
    """The budget a request runs under (see the module docstring); 400 when a value passes a ceiling."""
    given = asked.model_dump(exclude_none=True) if isinstance(asked, BudgetIn) else {k: v for k, v in (asked or {}).items() if v is not None}
    over = [f"{k}={v} (maximum {_most(ceiling, k)})" for k, v in given.items() if v > _most(ceiling, k)]
    if over:
        raise ApiError(400, "budget_exceeds_limit", "budget above this server's ceiling: " + ", ".join(over))
    defaults = Budget()
    for k in ("rows_per_hop", "max_hops", "packet_units", "packet_chars"):
        if k not in given and getattr(defaults, k) > getattr(ceiling, k):
            given[k] = getattr(ceiling, k)
    hops = given.get("max_hops", defaults.max_hops)
    if "max_searches" not in given and hops > ceiling.max_searches:  # scaled: one search per hop
        given["max_searches"] = ceiling.max_searches
    searches = given.get("max_searches", hops)
    if "max_rows" not in given and given.get("rows_per_hop", defaults.rows_per_hop) * searches > ceiling.max_rows:
        given["max_rows"] = ceiling.max_rows
    return Budget(**given)


def _most(ceiling: Budget, limit: str) -> int:
    """A ceiling's value for ``limit``; a set's row limit is the row ceiling where the ceiling sets none."""
    if limit == "set_rows_per_hop":
        return ceiling.set_rows_per_hop or ceiling.rows_per_hop
    return int(getattr(ceiling, limit))


def check_budget(budget: Budget, ceiling: Budget) -> None:
    """400 when a complete budget (e.g. a trace's, to be replayed) passes a ceiling."""
    clamp_budget(budget.model_dump(), ceiling)


@dataclass
class RateLimiter:
    """Token buckets per identity key; ``check`` raises 429 with Retry-After when one is empty.

    Called from the event loop only (no lock needed). At most ``max_keys`` buckets are kept; the
    least recently used goes first.
    """

    rate: float
    burst: int
    max_keys: int = 10_000
    _buckets: OrderedDict[str, tuple[float, float]] = field(default_factory=OrderedDict)

    def check(self, key: str, now: float | None = None) -> None:
        if self.rate <= 0:
            return
        now = time.monotonic() if now is None else now
        tokens, last = self._buckets.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            wait = (1.0 - tokens) / self.rate
            raise ApiError(429, "rate_limited", f"too many requests; retry in {wait:.2f} s",
                           {"Retry-After": str(max(1, round(wait + 0.5)))})
        self._buckets[key] = (tokens - 1.0, now)
        self._buckets.move_to_end(key)
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
