"""chainret beside its peers: the same requests on a bare SQLite join (the floor), DuckDB, Ladybug, SpiceDB and chainret.

    python -m benchmarks.peers --sizes 10k --fanout 10,100,1000,10000 --write   # docs/results/peers.md

Needs the ``peers`` extra (``pip install -e '.[peers]'``: DuckDB, Ladybug, spicedb-embedded; SpiceDB also needs
``SPICEDB_LIBRARY_PATH``: docs/benchmarks.md); never a dependency of chainret itself.
"""
