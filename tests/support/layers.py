"""The package's stage order, bottom first: what the import-layer test enforces and README's map lists."""

from __future__ import annotations

# The stage packages, bottom first: a package may import its own modules and those of the tiers below, never
# one beside or above it. This is the order README's map lists them in.
LAYERS: list[set[str]] = [
    {"core"},  # codes, errors, limits, atomic writes, safe display, stable JSON, word rules, session
    {"catalog", "trace", "pack"},  # the records and their rules; the trace model; the packing interface
    {"engine", "authoring"},  # search, support check, hops; source folders -> catalog
    {"store", "sources"},  # memory / SQLite / PostgreSQL readers (they implement the engine's HopReader); importers
    {"query"},  # words -> pattern and start entity (reads entity names through a store)
    {"pipeline"},  # ask: interpret, hop, pack, project; the text routes
    {"evaluate", "research"},  # fixture cases, request sets, validate; the research layers
    {"verify"},  # trace verify: replays a request through the pipeline and the case harness
    {"render"},  # a trace as HTML (shows what verify says)
    {"server"},  # serve, mcp, /ui
    {"cli"},  # the thin typer app over all of the above
]
