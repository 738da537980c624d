"""Write (or check) the decomposer's frozen MuSiQue split, benchmarks/splits/musique_decomposer.json (issue 27).

    python -m benchmarks.decompose_split           # write the file (only when it does not exist yet)
    python -m benchmarks.decompose_split --check   # redraw from the data and compare with the committed file

The split is frozen: once committed it is never redrawn (``--force`` exists for a deliberate, announced redraw,
which voids every figure reported on the held-out parts). How it is drawn: chainret/research/verification/split.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks.harness.paths import use_data_dir

ROOT = Path(__file__).resolve().parents[1]

use_data_dir()

from chainret.core.files import atomic_write_text  # noqa: E402
from chainret.research.verification.split import SPLIT_PATH, build_split, load_split  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="redraw and compare with the committed file; exit 1 on a difference")
    ap.add_argument("--force", action="store_true", help="overwrite an existing split (voids the held-out parts)")
    args = ap.parse_args()
    split = build_split()
    if args.check:
        same = load_split() == split["parts"]
        print(f"{SPLIT_PATH}: {'matches the data' if same else 'DIFFERS from a redraw'}")
        return 0 if same else 1
    if SPLIT_PATH.exists() and not args.force:
        print(f"{SPLIT_PATH} exists and is frozen; --check compares it, --force redraws it", file=sys.stderr)
        return 1
    SPLIT_PATH.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(SPLIT_PATH, json.dumps(split, indent=1) + "\n")
    print(f"wrote {SPLIT_PATH}: " + ", ".join(f"{k} {v}" for k, v in split["counts"].items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
