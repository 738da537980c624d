"""The hop engine: lexical search over readable units (``search``), the support check (``statement``), what the engine reads of a catalog (``reader``) and the
bounded hop search (``hops``). Stores implement ``reader.HopReader``."""
