"""``chainret mcp``: an MCP server over stdio (the official ``mcp`` SDK, v2 ``MCPServer``).

Three tools with typed inputs and structured output, over the same ``Service`` as the HTTP API:

* ``ask(request, view?, budget?)`` -> the projected trace and a short answer (a set answer: every member in
  ``answers`` and whether that is all in ``completeness``);
* ``list_patterns()`` -> the catalog's relation patterns and views;
* ``verify_trace(trace)`` -> the differences a replay finds.

Every call answers as the one principal the server was started with (``--principal``): whoever
writes the agent's configuration chooses it, the model cannot, because no tool takes a principal
or a viewer. A refusal comes back as a tool error ``<code>: <message>`` (the same codes and safe
messages as the HTTP API).
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from pydantic import ValidationError

from chainret import __version__
from chainret.server.auth import Identity
from chainret.server.errors import ApiError
from chainret.server.limits import BudgetIn
from chainret.server.service import AskIn, AskOut, PatternsOut, Service, VerifyOut
from chainret.trace.model import Trace

INSTRUCTIONS = (
    "chainret answers relationship requests (e.g. 'Which contact serves PR-84?') by following source-backed "
    "relations through a permission-aware catalog. Call list_patterns to see which requests it understands. "
    "An answer is only an accepted_path outcome; partial_evidence, no_pattern and refused mean there is no "
    "supported answer, and the message says why. Where a relation has several values (members, contacts), "
    "`answers` lists every one found and `completeness` says whether that is all of them; `answer` is only the first."
)
# Set per HTTP request by chainret.server.mcp_http (the bearer token's identity); unset over stdio.
CURRENT_IDENTITY: ContextVar[Identity | None] = ContextVar("chainret_mcp_identity", default=None)


def build_server(service: Service, principal: str | None) -> Any:
    """An ``MCPServer`` whose tools call ``service`` as ``principal`` (over HTTP, ``principal=None``: as ``CURRENT_IDENTITY``, and never without it)."""
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    configured = Identity(principal=principal, key="mcp", via="config") if principal is not None else None

    def identity() -> Identity:
        who = CURRENT_IDENTITY.get() or configured
        if who is None:  # fail closed: an HTTP call that reached a tool without its caller's identity
            raise ToolError("internal_error: this call has no authenticated identity")
        return who

    server = MCPServer("chainret", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING")

    def call(fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except ApiError as exc:
            raise ToolError(f"{exc.code}: {exc.message}") from None
        except ValidationError as exc:
            parts = [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:5]]
            raise ToolError("invalid_request: " + "; ".join(parts)) from None

    @server.tool()
    def ask(request: str, view: str | None = None, budget: BudgetIn | None = None, min_revision: str | None = None) -> AskOut:
        """Answer a relationship request with a supported chain of catalog relations, or say why not.

        Args:
            request: the request words, e.g. "Which contact serves PR-84?".
            view: a view name from list_patterns (default: the catalog's current view).
            budget: optional limits (rows_per_hop, max_searches, max_rows, max_hops, packet_units, packet_chars).
            min_revision: answer from at least this catalog revision (an earlier result's `revision`), or fail with catalog_behind.
        """
        return call(lambda: service.ask(identity(), AskIn(request=request, view=view, viewer=None, budget=budget,
                                                          min_revision=min_revision)))

    @server.tool()
    def list_patterns(min_revision: str | None = None) -> PatternsOut:
        """The relation patterns this catalog answers (with example phrasings) and its views."""
        return call(lambda: service.patterns(identity().principal, min_revision))

    @server.tool()
    def verify_trace(trace: Trace, min_revision: str | None = None) -> VerifyOut:
        """Replay a trace returned by ask against the catalog; lists every difference (none = it still holds).

        Args:
            trace: the `trace` object of an ask result, unchanged.
        """
        return call(lambda: service.verify(identity(), trace, min_revision))

    return server
