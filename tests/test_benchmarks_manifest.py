"""benchmarks/manifest.yaml names every results page, each command names a module that exists, and each
aim's check is an expression the harness accepts; the benchmarks package imports nothing from the tests
and edits no ``sys.path``. Cheap: nothing here runs a benchmark."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from benchmarks.harness.checkout import child_env, python
from benchmarks.harness.manifest import Aim, judge, load, machine_figures, machine_text, module_of, saved_results
from benchmarks.harness.page import generated_by, machine_line, results_path, write_page

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"


def _pages_missing(pages: set[str]) -> list[str]:
    generated = [ROOT / "docs" / "results.md", *sorted((ROOT / "docs" / "results").glob("*.md"))]
    return [str(p.relative_to(ROOT)) for p in generated if str(p.relative_to(ROOT)) not in pages]


def test_every_results_page_is_in_the_manifest() -> None:
    manifest = load()
    named = {p.page for p in manifest.pages.values()}
    assert _pages_missing(named) == []
    assert [p for p in named if not (ROOT / p).is_file()] == []
    # negative control: a page left out is reported
    assert _pages_missing(named - {"docs/results/store.md"}) == ["docs/results/store.md"]


def test_every_command_names_an_existing_module() -> None:
    missing = [(name, m) for name, page in load().pages.items() for m in page.modules()
               if not m.startswith("benchmarks.") or importlib.util.find_spec(m) is None]
    assert missing == []
    assert importlib.util.find_spec("benchmarks.no_such_page") is None  # negative control


def test_a_command_is_read_through_its_environment_and_nice() -> None:
    assert module_of("CHAINRET_CATALOG=x.yaml python -m benchmarks.ask_instructions --store s.db") == "benchmarks.ask_instructions"
    assert module_of("nice -n 10 python -m benchmarks.decompose_results --with-anchored") == "benchmarks.decompose_results"
    with pytest.raises(ValueError, match="python -m MODULE"):
        module_of("python benchmarks/store_bench.py")


def test_aims_are_judged_from_figures_and_only_read_them() -> None:
    aim = Aim(aim="warm p50 <= 5 ms", source="test", met="all(r['warm_p50_ms'] <= 5 for r in results)")
    assert judge(aim, [{"warm_p50_ms": 0.2}]) == ("met", "")
    assert judge(aim, [{"warm_p50_ms": 7.0}]) == ("not met", "")
    assert judge(aim, None)[0] == "no figures"
    assert judge(aim, [{"other": 1}])[0] == "cannot check"
    at_1m = Aim(aim="at 1M", source="test", met="one(select(results, relations=1000000))['x'] <= 1")
    assert judge(at_1m, [{"relations": 10000, "x": 0}])[0] == "cannot check"  # no 1M figures is not a pass
    # results read inside a generator's body (its own scope): judged, not a NameError
    both = Aim(aim="each store at 1M", source="test", met="all(one(select(results, relations=1))[s] <= 1 for s in ['a', 'b'])")
    assert judge(both, [{"relations": 1, "a": 1, "b": 2}]) == ("not met", "")
    assert judge(both, [{"relations": 1, "a": 1}])[0] == "cannot check"  # a store not measured is not a pass
    manual = Aim(aim="read the page", source="test", check="manual", why_manual="no JSON yet")
    assert judge(manual, {"anything": 1}) == ("manual", "no JSON yet")
    for bad in ("results.__class__", "__import__('os')", "open('x')", "(lambda: 1)()"):
        with pytest.raises(ValidationError, match="not allowed|may be called"):
            Aim(aim="x", source="test", met=bad)
    with pytest.raises(ValidationError, match="check: manual"):
        Aim(aim="x", source="test")


def _harness_offences(source: str) -> list[str]:
    """Imports of the tests (``support``, ``tests``, ``test_*``, ``conftest``) and any use of ``sys.path``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
        out += [f"imports {n}" for n in names if n.split(".")[0] in {"support", "tests", "conftest", "store_worlds"}
                or n.startswith("test_")]
        if isinstance(node, ast.Attribute) and node.attr == "path" and isinstance(node.value, ast.Name) and node.value.id == "sys":
            out.append(f"sys.path (line {node.lineno})")
    return out


def test_the_benchmarks_import_nothing_from_the_tests_and_edit_no_sys_path() -> None:
    bad = {str(p.relative_to(ROOT)): o for p in sorted(BENCHMARKS.rglob("*.py"))
           if (o := _harness_offences(p.read_text(encoding="utf-8")))}
    assert bad == {}
    # negative controls: what the benchmarks used to do is caught
    assert sorted(_harness_offences("import sys\nsys.path.insert(0, 'tests')\nfrom support.paths import use_data_dir\n")) == [
        "imports support.paths", "sys.path (line 2)"]
    assert _harness_offences("def f():\n    from test_store_cli import versions\n") == ["imports test_store_cli"]


def test_a_page_is_written_with_its_figures_and_its_command(tmp_path: Path) -> None:
    page = tmp_path / "speed.md"
    text = f"# Speed\n\n{generated_by('python -m benchmarks.store_bench --sizes 10000')}\n\n{machine_line()}\n"
    write_page(page, text + "\n\n", results=[{"relations": 10000, "warm_p50_ms": 0.2}])
    assert page.read_text(encoding="utf-8") == text
    assert results_path(page).read_text(encoding="utf-8").startswith("[\n {\n  \"relations\": 10000")
    # negative control: a page that does not name its command is refused, and nothing is written
    with pytest.raises(ValueError, match="which command generated it"):
        write_page(tmp_path / "bare.md", "# Speed\n\nsome figures\n", results={"x": 1})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["speed.json", "speed.md"]


def test_a_child_imports_chainret_from_the_checkout_named_and_the_harness_from_here(tmp_path: Path) -> None:
    other = tmp_path / "other"
    for package in ("chainret", "benchmarks"):  # a checkout with a benchmarks package of its own
        (other / package).mkdir(parents=True)
        (other / package / "__init__.py").write_text("", encoding="utf-8")
    probe = "import benchmarks, chainret; print(chainret.__file__); print(benchmarks.__file__)"
    done = subprocess.run(python("-c", probe), env=child_env(other, benchmarks=True), cwd=ROOT,
                          capture_output=True, text=True, check=True)
    chainret_file, benchmarks_file = done.stdout.split()
    assert Path(chainret_file) == other / "chainret" / "__init__.py"
    assert Path(benchmarks_file).resolve() == BENCHMARKS / "__init__.py"
    # negative control: without -P the child's working folder (this checkout) comes before PYTHONPATH
    done = subprocess.run([sys.executable, "-c", probe], env=child_env(other), cwd=ROOT,
                          capture_output=True, text=True, check=True)
    assert Path(done.stdout.split()[0]) == ROOT / "chainret" / "__init__.py"


# The speed pages whose aims `python -m benchmarks check` reads from the JSON their command saves (issue 48).
SPEED_PAGES = ("store", "store_postgres", "records", "cold_cli")


def _writes_figures(source: str) -> bool:
    """Whether a module calls the harness's ``write_page`` (under any name) with ``results=``: the page and
    its JSON written by one call, so neither is ever written without the other."""
    tree = ast.parse(source)
    names = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "benchmarks.harness.page"
             for a in n.names if a.name == "write_page"}
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names
               and any(k.arg == "results" for k in n.keywords) for n in ast.walk(tree))


def test_the_speed_pages_commands_save_their_figures_with_the_page() -> None:
    manifest = load()
    for name in SPEED_PAGES:
        page = manifest.pages[name]
        assert page.results == str(results_path(page.page)), name  # beside the page, where write_page puts it
        spec = importlib.util.find_spec(module_of(page.commands[-1]))
        assert spec is not None and spec.origin is not None
        assert _writes_figures(Path(spec.origin).read_text(encoding="utf-8")), name
    # negative controls: a page written without its figures, or by another writer, is not counted
    assert not _writes_figures("from benchmarks.harness.page import write_page\nwrite_page(p, text)\n")
    assert not _writes_figures("def write_page(p, t, results=None): ...\nwrite_page(p, t, results={})\n")
    assert _writes_figures("from benchmarks.harness.page import write_page as w\nw(p, t, results={})\n")


def _pace_shown(text: str, pace: float) -> bool:
    return f"{pace:.0f} ns" in text or f"| {pace:,.0f} |" in text


def test_each_page_shows_the_pace_its_saved_figures_were_taken_at() -> None:
    """A page and its JSON come from one run: each pace the JSON records is printed on the page (a JSON from
    another run, or a page edited by hand, would show another); the speed pages' figures carry pace and load."""
    manifest = load()
    unpaired = {}
    for name, page in manifest.pages.items():
        results = saved_results(page)
        if results is None:
            assert name not in SPEED_PAGES, f"{name}: no {page.results}"
            continue
        figures = machine_figures(results)
        if name in SPEED_PAGES:
            assert figures["pace_ns"] and figures["load"], f"{page.results} carries no pace or load"
        text = (ROOT / page.page).read_text(encoding="utf-8")
        if missing := [p for p in figures["pace_ns"] if not _pace_shown(text, p)]:
            unpaired[name] = missing
    assert unpaired == {}
    # negative control: another run's pace is not on the page
    store = manifest.pages["store"]
    assert not _pace_shown((ROOT / store.page).read_text(encoding="utf-8"), 123_456.0)


def test_the_machine_figures_are_read_from_a_page_or_each_of_its_sizes() -> None:
    assert machine_text([{"pace_ns": 884.2, "loadavg_start": 1.31}, {"pace_ns": 901.0, "loadavg_start": 2.0}]) == \
        "pace 884-901 ns, load 1.3-2.0"
    assert machine_text({"pace_ns": 272.0, "load_start": [0.5, 0.7, 0.9]}) == "pace 272 ns, load 0.5"
    assert machine_text({"tally": 1}) == ""  # a page that times nothing
