"""``python -m benchmarks.X --help`` prints the script's usage and does nothing else.

The manifest's cheap runs and a newcomer's first try both start with ``--help``; a script that read its
arguments by hand took the flag for nothing and ran the whole job (rewriting its page, taking screenshots,
starting PostgreSQL). Every benchmark script with a ``__main__`` block is run with ``--help`` in one
child process (runpy, stdout captured): each must exit 0 having printed ``usage:``, and no file under the
repository may change while they run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Run in a child: for each module, run it as __main__ with argv [--help]; report (exit code, printed usage).
_DRIVER = r"""
import contextlib, io, json, runpy, sys
out = {}
for name in sys.argv[1:]:
    sys.argv = [name, "--help"]
    buf = io.StringIO()
    code = 0
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
        try:
            runpy.run_module(name, run_name="__main__", alter_sys=True)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        except BaseException as error:  # a script that ran its job and failed: reported, not raised
            code = repr(error)
    out[name] = [code, "usage:" in buf.getvalue()]
sys.__stdout__.write(json.dumps(out))
"""


def _scripts(root: Path) -> list[str]:
    """Every benchmark module that runs as a script (a ``__main__`` block), as a dotted name."""
    return sorted(
        ".".join(path.relative_to(root).with_suffix("").parts)
        for path in (root / "benchmarks").rglob("*.py")
        if 'if __name__ == "__main__"' in path.read_text(encoding="utf-8")
    )


def _help_of(modules: list[str], root: Path) -> dict[str, list[object]]:
    env = {**os.environ, "PYTHONPATH": str(root), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", _DRIVER, *modules], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def _tree_state(root: Path) -> dict[str, int]:
    """Size and modification time of every file under the repository's docs/, examples/ and fixtures/."""
    return {str(p): p.stat().st_mtime_ns ^ p.stat().st_size for top in ("docs", "examples", "fixtures", "traces")
            for p in (root / top).rglob("*") if p.is_file()}


def test_every_benchmark_script_answers_help_and_writes_nothing() -> None:
    modules = _scripts(ROOT)
    assert "benchmarks.newcomer_score" in modules and "benchmarks.results_md" in modules and len(modules) > 30
    before = _tree_state(ROOT)
    got = _help_of(modules, ROOT)
    assert {m: v for m, v in got.items() if v != [0, True]} == {}
    assert _tree_state(ROOT) == before


def test_a_script_that_reads_its_arguments_by_hand_is_caught(tmp_path: Path) -> None:
    # negative control: a script that ignores --help and writes its page is reported by the same driver
    bench = tmp_path / "benchmarks"
    bench.mkdir()
    (bench / "__init__.py").write_text("")
    (bench / "by_hand.py").write_text(
        "import sys, pathlib\n"
        "def main(argv):\n"
        "    pathlib.Path(__file__).with_name('page.md').write_text('rewritten')\n"
        "    print('wrote page.md' if '--check' not in argv else '')\n"
        'if __name__ == "__main__":\n    main(sys.argv[1:])\n')
    (bench / "with_parser.py").write_text(
        "import argparse, sys\n"
        'if __name__ == "__main__":\n    argparse.ArgumentParser().parse_args(sys.argv[1:])\n')
    got = _help_of(_scripts(tmp_path), tmp_path)
    assert got == {"benchmarks.by_hand": [0, False], "benchmarks.with_parser": [0, True]}
    assert (bench / "page.md").read_text() == "rewritten"
