"""Records where they already live -> catalogs, versions and views, with no entity typed by hand.

- ``backstage``: Backstage descriptor files (``catalog-info.yaml``, Location targets);
- ``codeowners``: GitHub / GitLab CODEOWNERS rules and the files they govern;
- ``records``: a tree at one version -> a snapshot -> a build into the catalog at ``--out``;
- ``history``: every git commit that changed the records -> a document version and a view.

The CLI (``chainret.cli.import_cmds``: ``catalog import --format``, ``catalog history``) is a thin
layer over these.
"""
