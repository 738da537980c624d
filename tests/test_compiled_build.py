"""The optional compiled build (``setup.py``, ``CHAINRET_COMPILE=1``): what it refuses and what it compiles.

The build itself takes minutes: ``.ci/run`` builds it and runs the suite on it. These check the rules
around it, in seconds.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _setup(*args: str, compile_: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CHAINRET_COMPILE": "1"} if compile_ else {k: v for k, v in os.environ.items() if k != "CHAINRET_COMPILE"}
    return subprocess.run([sys.executable, "setup.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def _compiled_list() -> list[str]:
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "COMPILED" for t in node.targets):
            return [ast.literal_eval(e) for e in node.value.elts]  # type: ignore[attr-defined]
    raise AssertionError("setup.py has no COMPILED list")


def test_an_editable_install_is_never_compiled() -> None:
    before = sorted(ROOT.glob("chainret/**/*.so"))
    out = _setup("develop", "--help")
    assert out.returncode != 0
    assert "editable install stays pure Python" in out.stderr + out.stdout
    assert sorted(ROOT.glob("chainret/**/*.so")) == before


def test_reading_the_metadata_compiles_nothing() -> None:
    out = _setup("--name")  # what pip's metadata step amounts to: no mypyc run (it would take minutes)
    assert out.returncode == 0 and out.stdout.strip().splitlines()[-1] == "chainret"


def test_without_the_switch_the_build_is_pure_python() -> None:
    out = _setup("--name", compile_=False)
    assert out.returncode == 0 and "mypyc" not in out.stderr


def test_every_compiled_module_exists_and_defines_no_model_or_base_class() -> None:
    modules = _compiled_list()
    assert modules and len(set(modules)) == len(modules)
    sources = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in (ROOT / "chainret").rglob("*.py")}
    for rel in modules:
        assert rel in sources, f"setup.py compiles {rel}, which does not exist"
        assert not rel.endswith("__init__.py"), f"{rel}: a compiled package module failed to import its submodules"
        tree = ast.parse(sources[rel])
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            bases = {ast.unparse(b) for b in cls.bases}
            assert not any(b.endswith("Model") for b in bases), f"{rel}: {cls.name} is a pydantic model (mypyc cannot compile its metaclass)"
            subclassed = [other for other, text in sources.items() if other != rel and f"({cls.name})" in text]
            assert not subclassed, f"{rel}: {cls.name} is subclassed in {subclassed} (a compiled base refuses interpreted subclasses)"
