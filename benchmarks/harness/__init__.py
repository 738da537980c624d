"""What the benchmarks share: one timer (``timing``), one pace and load reader (``machine``), one page
writer (``page``), the manifest reader (``manifest``), and the harnesses the benchmarks and the tests
both drive (local servers, fuzz cases, hostile inputs, the paper's figures ...).

The tests import these from here (tests may import benchmarks); nothing here imports the tests.
"""
