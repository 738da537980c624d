"""Build the optional compiled chainret (``setup.py``: ``CHAINRET_COMPILE=1``, mypyc).

    python -m benchmarks.compiled_build --out .compiled       # a folder of its own; about 4 min on 2 cores
    PYTHONPATH=.compiled python -c "import chainret.engine.hops as h; print(h.__file__)"   # ...hops.cpython-311-x86_64-linux-gnu.so
    python -m benchmarks.compiled_build --inplace             # beside the sources (a throwaway checkout: CI)
    python -m benchmarks.compiled_build --clean               # remove what --inplace wrote

``--out``: the folder holds chainret only (its dependencies come from the environment that runs it); put
it first on ``PYTHONPATH`` to run the compiled build instead of the sources (``benchmarks/store_bench.py
--compiled DIR`` measures it beside them). ``--inplace`` writes the compiled modules next to their
sources, where they hide every later edit of those files until ``--clean``: ``.ci/run`` uses it on its
fresh clone to run the test suite on the compiled build with the repository's paths (the default
catalog) unchanged. The build runs mypy over the package (mypyc compiles what mypy has checked), so it
needs the ``[test]`` extra's pinned mypy in this environment; it is checked by importing a compiled
module, and the script exits 1 when that import finds the sources instead.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def compiled_module(folder: Path) -> str:
    """The file ``chainret.engine.hops`` is imported from when ``folder`` is first on the path (run from elsewhere)."""
    out = subprocess.run([sys.executable, "-c", "import chainret.engine.hops as h; print(h.__file__)"], cwd=tempfile.gettempdir(),
                         env={**os.environ, "PYTHONPATH": str(folder)}, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def _need_mypyc() -> None:
    try:
        import mypyc  # noqa: F401
    except ImportError:
        sys.exit("the compiled build needs mypyc: pip install mypy==2.4.1 (the [test] extra pins it)")


def compiled_files() -> list[Path]:
    """What ``--inplace`` wrote: the compiled modules beside their sources and mypyc's shared library (in the package)."""
    return sorted(ROOT.glob("chainret/**/*.so"))


def _fresh_build_dir() -> None:
    """Drop setuptools' ``build/``: a module compiled by an earlier build (one since left out of ``setup.py``'s
    list) would otherwise be copied into this build beside the sources it no longer matches."""
    shutil.rmtree(ROOT / "build", ignore_errors=True)


def build_inplace() -> str:
    _need_mypyc()
    _fresh_build_dir()
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=ROOT,
                   env={**os.environ, "CHAINRET_COMPILE": "1"}, check=True)
    return compiled_module(ROOT)


def build(out: Path) -> str:
    _need_mypyc()
    import setuptools

    if tuple(int(x) for x in setuptools.__version__.split(".")[:2]) < (70, 1):  # older ones need the wheel package to build one
        sys.exit(f"building the wheel needs setuptools >= 70.1 (found {setuptools.__version__}): pip install 'setuptools>=70.1'")
    _fresh_build_dir()
    with tempfile.TemporaryDirectory(prefix="chainret-wheel-") as tmp:
        subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps", "-w", tmp, str(ROOT)],
                       cwd=ROOT, env={**os.environ, "CHAINRET_COMPILE": "1"}, check=True)
        wheel = next(Path(tmp).glob("chainret-*.whl"))
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(out), str(wheel)], check=True)
    return compiled_module(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    how = ap.add_mutually_exclusive_group()
    how.add_argument("--out", type=Path, default=ROOT / ".compiled", help="folder to install the compiled build into (replaced)")
    how.add_argument("--inplace", action="store_true", help="compile beside the sources (they hide later edits until --clean)")
    how.add_argument("--clean", action="store_true", help="remove the compiled modules --inplace wrote")
    args = ap.parse_args()
    if args.clean:
        for f in compiled_files():
            f.unlink()
            print(f"removed {f.relative_to(ROOT)}")
        return
    where = build_inplace() if args.inplace else build(args.out.resolve())
    if not where.endswith(".so"):
        sys.exit(f"the build did not compile: chainret.engine.hops imports from {where}")
    print(f"compiled build {'beside the sources' if args.inplace else f'in {args.out}'}: chainret.engine.hops is {where}")


if __name__ == "__main__":
    main()
