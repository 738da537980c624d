"""Shared test settings: offline models, and a clear skip where the benchmark data folder is absent."""

import os

import pytest

from benchmarks.harness.paths import absent, use_data_dir

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# Every fast model_construct of the engine (chainret.core.trusted) is also validated and compared, suite-wide.
os.environ.setdefault("CHAINRET_CHECK_TRUSTED", "1")
# The CLI tests give each command its own width (``COLUMNS`` in the runner's environment). rich reads ``COLUMNS``
# each time only where it was unset when the console was made; pytest-xdist's workers export ``COLUMNS=80``, which
# would fix every table at 80 columns for the whole worker. A terminal's width is still read when nothing sets it.
os.environ.pop("COLUMNS", None)
# chainret has no default data folder: the tests pass ../shared/data (or the caller's CHAINRET_DATA_DIR).
use_data_dir()

needs_nli_data = pytest.mark.skipif(bool(absent("nli")), reason=absent("nli") or "NLI data present")
