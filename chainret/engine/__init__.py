"""The hop engine: lexical search over readable units (``search``), what the engine reads of a catalog (``reader``:
stores implement ``reader.HopReader``) and the bounded hop search (``hops``), which applies the catalog's support
check (``chainret.catalog.statement``) at every hop."""
