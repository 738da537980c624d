"""The package's imports form no circle, and the catalog layer never imports the engine.

Every ``import`` in every module counts, function-level ones included: a lazy import used to dodge
a circle is still a circle. Imports of modules outside chainret (torch, uvicorn, ...) are not
edges. A submodule's import of its own parent package is not an edge either (Python initialises
the parent first anyway).
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

import chainret

ROOT = Path(chainret.__file__).parent
# What the catalog layer may import besides itself: the bottom of the package.
CATALOG_MAY_IMPORT = {"chainret.budget", "chainret.bulk", "chainret.codes", "chainret.errors", "chainret.functional", "chainret.session", "chainret.textsafe"}


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = ["chainret", *path.relative_to(ROOT).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _targets(module: str, path: Path, node: ast.Import | ast.ImportFrom, known: dict[str, Path]) -> set[str]:
    names: list[str] = []
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            pkg = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
            pkg = pkg[: len(pkg) - (node.level - 1)]
            base = ".".join([*pkg, *([node.module] if node.module else [])])
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
    found = set()
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name and name != module and not module.startswith(name + "."):
            found.add(name)
    return found


def import_graph() -> nx.DiGraph:
    known = _modules()
    g = nx.DiGraph()
    g.add_nodes_from(known)
    for module, path in known.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                g.add_edges_from((module, t) for t in _targets(module, path, node, known))
    return g


def test_the_walk_sees_function_level_imports() -> None:
    g = import_graph()
    assert g.has_edge("chainret.ask", "chainret.hops")  # top level
    assert g.has_edge("chainret.pack.registry", "chainret.pack.packers")  # inside get_packer's helper
    assert g.has_edge("chainret.pack.packers", "chainret.pack.base")
    assert g.number_of_nodes() > 80


def test_no_import_circle() -> None:
    g = import_graph()
    circles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert circles == [], f"import circles: {circles}; e.g. {next(nx.simple_cycles(g), None)}"


def test_catalog_never_imports_the_engine() -> None:
    g = import_graph()
    bad = {
        (m, t)
        for m, t in g.edges
        if m.startswith("chainret.catalog") and not t.startswith("chainret.catalog") and t not in CATALOG_MAY_IMPORT
    }
    assert bad == set()


def test_the_bottom_imports_nothing_from_chainret() -> None:
    g = import_graph()
    for m in ("chainret.codes", "chainret.budget"):
        assert list(g.successors(m)) == [], m


def test_chainret_ask_is_the_function_and_the_module_stays_importable() -> None:
    import importlib
    import inspect

    from chainret import ask

    assert inspect.isfunction(ask) and ask.__module__ == "chainret.ask"
    module = importlib.import_module("chainret.ask")
    assert module.ask is ask and inspect.ismodule(module)


def test_no_exception_class_is_dead() -> None:
    """Every ChainretError subclass is raised or caught somewhere outside errors.py."""
    from chainret import errors

    names = {n for n, v in vars(errors).items() if isinstance(v, type) and issubclass(v, errors.ChainretError)}
    used: set[str] = set()
    for path in ROOT.rglob("*.py"):
        if path.parent == ROOT and path.name in ("errors.py", "__init__.py"):
            continue  # defined and re-exported there; used means raised, caught or checked elsewhere
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Name) and node.id in names:
                used.add(node.id)
            elif isinstance(node, ast.alias) and node.name in names:
                used.add(node.name)
    assert names - used - {"ChainretError"} == set()


def test_the_qa_side_imports_downward() -> None:
    """qa (adapters, metrics, signals) sits under verify and pack, which sit under bench (the runs)."""
    g = import_graph()

    def package(m: str) -> str:
        return ".".join(m.split(".")[:2])

    above = {
        "chainret.qa": {"chainret.verify", "chainret.pack", "chainret.bench", "chainret.cli", "chainret.server"},
        "chainret.verify": {"chainret.bench", "chainret.cli", "chainret.server"},
        "chainret.pack": {"chainret.bench", "chainret.verify", "chainret.cli", "chainret.server"},
        "chainret.nli": {"chainret.qa", "chainret.verify", "chainret.pack", "chainret.bench", "chainret.cli"},
    }
    bad = sorted((a, b) for a, b in g.edges() if package(b) in above.get(package(a), set()))
    assert bad == []
