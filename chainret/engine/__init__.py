"""The hop engine: lexical search over readable units (``search``) and the bounded hop search (``hops``), which
applies the catalog's support check (``chainret.catalog.statement``) at every hop. Stores implement its ``HopWorld``."""
