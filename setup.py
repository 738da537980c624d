"""The optional compiled build (issue 24): ``CHAINRET_COMPILE=1`` compiles the warm ask's hot modules with mypyc.

    pip install mypy==2.4.1 'setuptools>=70.1' .              # mypyc ships with mypy; the dependencies mypy reads
    CHAINRET_COMPILE=1 pip install --no-build-isolation --no-deps --force-reinstall .   # or: benchmarks/compiled_build.py

Without ``CHAINRET_COMPILE`` this file adds nothing to ``pyproject.toml``: the package is pure Python. The
compiled modules behave as their sources (the same code, type-checked by mypy, compiled to C) and take less
CPU per warm ask (``docs/results/store.md`` measures both builds). mypyc rather than a hand-written extension:
it compiles the annotated code we already have, so there is one source of truth.

An editable install is never compiled: compiled modules beside the sources would hide every later edit.
Modules are chosen for the warm ask's time and for what mypyc's classes allow: no pydantic models (their
metaclass), no class that tests or benchmarks patch per instance (compiled classes have no ``__dict__``),
no base class that other modules subclass, no package ``__init__`` (compiled beside an in-package shared
library, ``chainret.store``'s failed to import its submodules). The store's row types
(``chainret.store.rowdecode``) are NamedTuples: mypyc keeps those boxed, as the tuples they are, where it turns a plain
fixed-length tuple type into a C struct, checking and converting every column on the way in and building a new tuple
on the way out, which cost more than compiling saved.
"""

from __future__ import annotations

import os
import sys

from setuptools import setup

BUILDS = {"bdist_wheel", "build", "build_ext", "install", "editable_wheel", "develop"}  # setup.py commands that build modules
COMPILED = [
    "chainret/pipeline/ask.py",
    "chainret/catalog/clause.py",
    "chainret/catalog/functional.py",
    "chainret/engine/hops.py",
    "chainret/query/interpret.py",
    "chainret/pipeline/packet.py",
    "chainret/catalog/patterns.py",
    "chainret/pipeline/projection.py",
    "chainret/engine/search.py",
    "chainret/catalog/statement.py",
    "chainret/store/hopquery.py",
    "chainret/store/rowdecode.py",
    "chainret/store/sqlview.py",
]


def ext_modules() -> list[object]:
    if os.environ.get("CHAINRET_COMPILE") != "1" or not BUILDS & set(sys.argv[1:]):
        return []  # (reading the metadata, ``dist_info``, needs no compile: mypyc would run twice)
    if {"editable_wheel", "develop"} & set(sys.argv[1:]):
        raise SystemExit("CHAINRET_COMPILE=1 builds a wheel; an editable install stays pure Python (compiled modules beside "
                         "the sources would hide later edits): drop -e, or unset CHAINRET_COMPILE")
    try:
        from mypyc.build import mypycify
    except ImportError:
        raise SystemExit("CHAINRET_COMPILE=1 needs mypyc: pip install mypy==2.4.1, then build with --no-build-isolation") from None
    # The shared library inside the package (chainret/compiled__mypyc...so), not at the top level, where only a
    # path holding the checkout's root would find it (an editable finder maps the package alone).
    # --follow-imports=silent: the modules compiled must type-check; errors in the others they import (the PostgreSQL
    # store without psycopg installed, say) are not the build's business (``mypy chainret`` in CI holds them).
    return list(mypycify(["--follow-imports=silent", *COMPILED], opt_level="3", group_name="chainret.compiled"))


setup(ext_modules=ext_modules())
