"""The package's imports form no circle, its stage packages import only the stages below them (``LAYERS``),
and the retriever never imports the research layers (``chainret.research``), the harnesses
(``benchmarks.harness``) or the test helpers (``tests/support``).

Every ``import`` in every module counts, function-level ones included: a lazy import used to dodge
a circle is still a circle. Imports of modules outside chainret (torch, uvicorn, ...) are not
edges. A submodule's import of its own parent package is not an edge either (Python initialises
the parent first anyway).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import networkx as nx

import chainret
from support.layers import LAYERS

ROOT = Path(chainret.__file__).parent
RESEARCH = "chainret.research"
# The CLI's research commands (`chainret bench ...`, `chainret nli ...`): the one place outside
# chainret.research that may import it (inside the commands, so `chainret ask` never loads it).
RESEARCH_CLI = {"chainret.cli.bench_cmds", "chainret.cli.bench_pack_cmds", "chainret.cli.bench_verify_cmds", "chainret.cli.nli_cmds"}
# Top-level names of what is not shipped: the test helpers (tests/support, importable as `support`),
# the tests and the benchmarks (the harnesses included: benchmarks.harness).
NOT_SHIPPED = {"support", "tests", "benchmarks", "conftest"}


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


@functools.cache
def _tree(path: Path) -> ast.Module:
    """A module's syntax tree, parsed once per test session (the tests only read it; ~0.5 s per walk of the package)."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def _graph() -> nx.DiGraph:
    known = _modules()
    g = nx.DiGraph()
    g.add_nodes_from(known)
    for module, path in known.items():
        for node in ast.walk(_tree(path)):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                g.add_edges_from((module, t) for t in _targets(module, path, node, known))
    return g


def import_graph() -> nx.DiGraph:
    """The package's import graph: built once, and each test gets its own copy (none sees another's edits)."""
    return _graph().copy()


def test_the_walk_sees_function_level_imports() -> None:
    g = import_graph()
    assert g.has_edge("chainret.pipeline.ask", "chainret.engine.hops")  # top level
    assert g.has_edge("chainret.research.packing.candidates", "chainret.research.packing.packers")  # inside a function
    assert g.has_edge("chainret.research.packing.packers", "chainret.pack.base")
    assert g.has_edge("chainret.cli.bench_pack_cmds", "chainret.research.packing.run")  # inside the command
    assert g.number_of_nodes() > 80


def test_no_import_circle() -> None:
    g = import_graph()
    circles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert circles == [], f"import circles: {circles}; e.g. {next(nx.simple_cycles(g), None)}"


def _tier(module: str) -> int:
    package = module.split(".")[1]
    return next(i for i, tier in enumerate(LAYERS) if package in tier)


def test_the_layers_name_every_stage_package() -> None:
    packages = {p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()}
    assert packages == set().union(*LAYERS)
    assert sorted(p.name for p in ROOT.glob("*.py")) == ["__init__.py", "__main__.py"]  # no flat modules


def test_each_stage_imports_only_the_stages_below_it() -> None:
    g = import_graph()
    bad = sorted(
        (m, t)
        for m, t in g.edges
        if m.count(".") > 1 and t.count(".") > 1 and m.split(".")[1] != t.split(".")[1] and _tier(t) >= _tier(m)
    )
    assert bad == [], f"imports across or up the layers: {bad}"


def test_the_layer_check_catches_an_upward_import() -> None:
    """Negative control: an edge from the catalog up to the engine is reported."""
    g = import_graph()
    g.add_edge("chainret.catalog.models", "chainret.engine.hops")
    m, t = "chainret.catalog.models", "chainret.engine.hops"
    assert g.has_edge(m, t) and _tier(t) >= _tier(m)


def test_the_bottom_imports_nothing_from_chainret() -> None:
    """The codes and the record base import nothing of chainret; the budget only the record base it is built on."""
    g = import_graph()
    for m in ("chainret.core.codes", "chainret.core.record"):
        assert list(g.successors(m)) == [], m
    assert list(g.successors("chainret.core.budget")) == ["chainret.core.record"]


def test_chainret_ask_is_the_function_and_the_module_stays_importable() -> None:
    import importlib
    import inspect

    from chainret import ask

    assert inspect.isfunction(ask) and ask.__module__ == "chainret.pipeline.ask"
    module = importlib.import_module("chainret.pipeline.ask")
    assert module.ask is ask and inspect.ismodule(module)


def test_no_exception_class_is_dead() -> None:
    """Every ChainretError subclass is raised or caught somewhere outside errors.py."""
    from chainret.core import errors

    names = {n for n, v in vars(errors).items() if isinstance(v, type) and issubclass(v, errors.ChainretError)}
    used: set[str] = set()
    for path in ROOT.rglob("*.py"):
        if path.parent.name == "core" and path.name == "errors.py" or path == ROOT / "__init__.py":
            continue  # defined and re-exported there; used means raised, caught or checked elsewhere
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Name) and node.id in names:
                used.add(node.id)
            elif isinstance(node, ast.alias) and node.name in names:
                used.add(node.name)
    assert names - used - {"ChainretError"} == set()


def test_the_retriever_never_imports_the_research_layers() -> None:
    """Everything outside chainret.research (and the CLI's research commands) stays clear of it."""
    g = import_graph()
    assert any(m.startswith(RESEARCH + ".") for m in g)  # the layout this test encodes exists
    bad = sorted(
        (m, t)
        for m, t in g.edges
        if t.startswith(RESEARCH) and not m.startswith(RESEARCH) and m not in RESEARCH_CLI
    )
    assert bad == [], f"retriever modules importing chainret.research: {bad}"


def test_the_research_cli_imports_the_research_layers_lazily() -> None:
    """The research commands import chainret.research inside the commands only, so `chainret ask` never does."""
    for module in sorted(RESEARCH_CLI):
        tree = _tree(_modules()[module])
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        names = [a.name for n in top if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in top if isinstance(n, ast.ImportFrom)]
        assert not [n for n in names if n.startswith(RESEARCH)], module


def test_nothing_shipped_imports_the_harnesses() -> None:
    """No chainret module imports tests/support (``support``), the tests or the benchmarks (their harnesses), and the
    harnesses that used to live in the package are gone from it."""
    bad = []
    for module, path in _modules().items():
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Import):
                bad += [(module, a.name) for a in node.names if a.name.split(".")[0] in NOT_SHIPPED]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                if node.module.split(".")[0] in NOT_SHIPPED:
                    bad.append((module, node.module))
    assert bad == []
    gone = {"chainret.fuzz", "chainret.audit", "chainret.worldgen", "chainret.server.local", "chainret.pack.report"}
    assert gone & set(_modules()) == set()


def test_the_research_side_imports_downward() -> None:
    """qa (adapters, metrics, signals) sits under verification and packing, which sit under bench (the
    runs); nli (the model) under all of them."""
    g = import_graph()

    def package(m: str) -> str:
        parts = m.split(".")
        return ".".join(parts[:3] if parts[1:2] == ["research"] else parts[:2])

    qa, ver, pack, bench, nli = (f"{RESEARCH}.{p}" for p in ("qa", "verification", "packing", "bench", "nli"))
    above = {
        qa: {ver, pack, bench, "chainret.cli", "chainret.server"},
        ver: {bench, "chainret.cli", "chainret.server"},
        pack: {bench, ver, "chainret.cli", "chainret.server"},
        nli: {qa, ver, pack, bench, "chainret.cli"},
    }
    bad = sorted((a, b) for a, b in g.edges() if package(b) in above.get(package(a), set()))
    assert bad == []


def test_the_sql_store_parts_sit_below_the_store() -> None:
    """store/sql.py's parts (fragments, view, reader store, index) never import the store itself."""
    g = import_graph()
    parts = ["chainret.store.sqlrows", "chainret.store.sqlview", "chainret.store.sqlreader", "chainret.store.sqlindex"]
    assert all(p in g for p in parts)
    assert [(p, t) for p in parts for t in g.successors(p) if t == "chainret.store.sql"] == []


def test_a_request_does_not_climb_to_the_store_package_for_its_caches() -> None:
    """The view caches (chainret.store.caches) sit in the store beside the in-memory store that owns them, and
    the engine modules reach a catalog through the reader protocol (store.base), never the in-memory store."""
    g = import_graph()
    assert "chainret.store.caches" in g
    engine = ["chainret.pipeline.ask", "chainret.engine.hops", "chainret.pipeline.projection", "chainret.query.interpret", "chainret.pipeline.packet", "chainret.store.caches"]
    assert [(m, t) for m in engine for t in g.successors(m) if t == "chainret.store.memory"] == []
