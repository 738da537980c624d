"""chainret beside its peers: the same requests on a bare SQLite join (the floor), DuckDB, Ladybug, SpiceDB and chainret.

    python -m benchmarks.peers --sizes 10k --fanout 10,100,1000,10000 --write   # docs/results/peers.md
    python -m benchmarks.peers sets --sizes 10k --members 10,100,1000,10000 --write   # docs/results/sets.md

Needs the ``peers`` extra (``pip install -e '.[peers]'``: DuckDB, Ladybug, spicedb-embedded; SpiceDB also needs
``SPICEDB_LIBRARY_PATH``: docs/benchmarks.md); never a dependency of chainret itself.
"""
import sys

if sys.argv[1:2] == ["sets"]:
    from benchmarks.peers.sets import main as sets_main

    sys.exit(sets_main(sys.argv[2:]))

from benchmarks.peers.run import main

sys.exit(main())
