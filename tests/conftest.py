"""Shared test settings: offline models, and a clear skip where the benchmark data folder is absent."""

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def _nli_data_present() -> bool:
    from chainret.errors import ChainretError
    from chainret.nli.data import nli_data_dir

    try:
        return nli_data_dir().is_dir()
    except ChainretError:
        return False


needs_nli_data = pytest.mark.skipif(
    not _nli_data_present(), reason="NLI data folder absent (set CHAINRET_DATA_DIR or put ../shared/data beside the repo)"
)
