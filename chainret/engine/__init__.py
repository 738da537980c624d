"""The hop engine: lexical search over readable units (``search``), the support check (``statement``) and the
bounded hop search (``hops``). Stores implement its ``HopWorld``."""
