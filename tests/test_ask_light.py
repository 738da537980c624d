"""`chainret ask` stays lean: only what the ask path needs is imported (no numpy, rank_bm25, networkx)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from chainret.pack import get_packer
from chainret.pack.base import NaivePacker

ROOT = Path(__file__).resolve().parents[1]
NOT_ON_THE_ASK_PATH = ("numpy", "rank_bm25", "networkx", "torch", "transformers", "sentence_transformers")


def test_cli_ask_imports_no_numeric_or_graph_stack(tmp_path: Path) -> None:
    code = (
        "import sys, io, contextlib\n"
        "from chainret.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        main(['ask', 'Which contact serves PR-84?', '--no-trace'])\n"
        "    except SystemExit as exc:\n"
        "        assert exc.code in (0, None), exc.code\n"
        f"print(','.join(m for m in {NOT_ON_THE_ASK_PATH!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == ""


def test_the_chain_packet_uses_the_registered_naive_packer() -> None:
    # ask.pack_items calls get_packer("naive"), which must resolve to the numpy-free packer in pack.base.
    assert type(get_packer("naive")) is NaivePacker
