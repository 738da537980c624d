"""Catalogs from your own records: a source folder (plain files + one header) -> a catalog.

- ``header``: the hand-written header (``chainret.yaml``, ``chainret-source/1``) and ``SourceInvalid``;
- ``build``: source folder -> catalog + cases, with versions and views (``chainret catalog build``);
- ``tables``: CSV / JSON Lines -> a registry document, one clause per row (``chainret catalog import``);
- ``diff``: what changed between two views (``chainret catalog diff``);
- ``lock``: recompute digests and spans of a hand-edited catalog (``chainret catalog lock``);
- ``starter``: the starter world of ``chainret catalog init``.

The CLI (``chainret.cli.catalog_cmds``) is a thin layer over these.
"""
