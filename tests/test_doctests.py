"""The docstring examples in chainret run and print what they say (doctest), and none is left out."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import chainret

ROOT = Path(chainret.__file__).parent
# Every chainret module with a ``>>>`` example; the model one needs the models extra.
MODULES = ["chainret.pipeline.ask", "chainret.engine.search", "chainret.research.nli.model"]
NEEDS_MODELS = {"chainret.research.nli.model"}


def test_every_module_with_an_example_is_run() -> None:
    with_examples = set()
    for path in ROOT.rglob("*.py"):
        if ">>> " in path.read_text(encoding="utf-8"):
            parts = ["chainret", *path.relative_to(ROOT).with_suffix("").parts]
            with_examples.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    assert with_examples == set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    if name in NEEDS_MODELS:
        pytest.importorskip("torch", reason="the models extra is not installed")
    module = importlib.import_module(name)
    tests = [t for t in doctest.DocTestFinder().find(module) if t.examples]
    assert tests, f"{name} has no doctest examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (output above)"
