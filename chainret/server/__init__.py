"""Serving chainret to other programs: an HTTP API (``chainret serve``) and an MCP server (``chainret mcp``).

The principal of a served request comes from authentication, never from the request:

* ``auth``: the token file (sha256 hashes of bearer tokens -> principal and the narrower viewers
  it may ask for), the optional trusted identity header, and ``Identity``;
* ``limits``: budget ceilings, body size, per-identity rate limit, timeouts;
* ``service``: the catalog loaded once per process and the three operations (ask, patterns,
  verify) over the library API, shared by both front ends; engine calls run on one engine thread;
* ``app``: the FastAPI application (needs the ``serve`` extra: fastapi, uvicorn);
* ``mcp``: the MCP server over stdio (needs the ``mcp`` extra).

Nothing here is imported by ``import chainret`` or ``chainret ask``; only ``app`` and ``mcp``
import their frameworks.
"""
