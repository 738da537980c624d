"""The ask path imports only what a request needs (issue 24): no baselines, no case files, no other
command's module, no typer or click (``chainret.cli.ask_run`` reads the arguments), no rich (plain
text where it is rich's very output: a pipe or a file), no ``importlib.metadata`` (pydantic's plugin
scan), no YAML reader for a compiled store.

Checked in a fresh interpreter, the way ``chainret ask`` starts: the CLI module, then one ask. The
single-command root ``main`` runs a top-level command through must read exactly like the whole app.
"""

import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

import chainret.cli as cli

REQUEST = "Which contact serves PR-84?"
NOT_ON_ASK_PATH = ("chainret.pipeline.baselines", "chainret.catalog.cases", "chainret.evaluate.cases", "chainret.verify.replay",
                   "chainret.render.html", "chainret.server", "torch", "transformers", "sentence_transformers",
                   "chainret.verify.signing", "chainret.verify.offline", "cryptography", "rfc8785")  # signing: the `sign` extra
# The command modules `chainret ask` never needs: their commands are not built when ask runs.
# What the ask path used to import and no longer does (the CLI framework, the renderer, the plugin scan).
NOT_ON_FAST_PATH = ("typer", "click", "rich", "chainret.cli.render", "chainret.cli.ask_cmds", "importlib.metadata",
                    "email", "pydantic.plugin._loader")
# What only a store's writer needs (``chainret.store.sqlite`` loads them with its first write).
STORE_WRITERS = ("chainret.store.compile", "fcntl", "shutil", "tempfile")
OTHER_COMMANDS = ("chainret.cli.catalog_cmds", "chainret.cli.bench_cmds", "chainret.cli.bench_pack_cmds",
                  "chainret.cli.bench_verify_cmds", "chainret.cli.nli_cmds", "chainret.cli.serve_cmds",
                  "chainret.cli.store_cmds", "chainret.cli.import_cmds")


@pytest.fixture(autouse=True, scope="module")
def _warm_catalog_cache(tmp_path_factory):
    """The probes ask as a user's second ask does: the default catalog's checked parse remembered (a private cache,
    filled by one ask first), and without the suite's check of every unchecked construction (which validates, so
    loads pydantic: ``chainret.core.trusted``)."""
    _PROBE_ENV["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    _modules_after(f"from chainret.cli import main\ntry:\n    main(['ask', {REQUEST!r}, '--no-trace'])\nexcept SystemExit:\n    pass")


_PROBE_ENV = {k: v for k, v in os.environ.items() if k != "CHAINRET_CHECK_TRUSTED"}


def _modules_after(code: str) -> set[str]:
    """The modules loaded after ``code`` in a fresh interpreter (a stand-in module counts only if it is the real one)."""
    probe = (f"{code}\nimport sys\n"
             "real = [m for m, mod in sys.modules.items() if getattr(mod, '__spec__', None) is not None]\n"
             "sys.stderr.write('\\n@@' + ' '.join(real))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=_PROBE_ENV)
    return set(out.stderr.rsplit("@@", 1)[1].split())


def _cli_ask(*args: str) -> set[str]:
    return _modules_after(
        "from chainret.cli import main\n"
        f"try:\n    main(['ask', {REQUEST!r}, '--no-trace', *{list(args)!r}])\n"
        "except SystemExit as exc:\n    assert exc.code in (0, None), exc.code\n"
    )


def _loaded(mods: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if n in mods or any(m.startswith(n + ".") for m in mods))


def test_import_chainret_loads_no_engine():
    mods = _modules_after("import chainret")
    assert "chainret.pipeline.ask" not in mods and "chainret.trace.model" not in mods and "pydantic" not in mods


def test_import_cli_builds_no_command():
    mods = _modules_after("import chainret.cli")
    assert _loaded(mods, ("rich", "pydantic", "chainret.cli.ask_cmds", "chainret.cli.render", *OTHER_COMMANDS)) == []


def test_public_names_still_load():
    mods = _modules_after("from chainret import ask, Trace, ChainretError\nimport chainret\nassert callable(chainret.ask)")
    assert {"chainret.pipeline.ask", "chainret.trace.model"} <= mods


def test_ask_path_skips_baselines_cases_and_other_commands():
    mods = _cli_ask()
    assert "chainret.engine.hops" in mods and "chainret.cli.plain" in mods  # the request really ran and was printed
    assert _loaded(mods, NOT_ON_ASK_PATH + OTHER_COMMANDS) == []


def test_ask_imports_no_cli_framework_no_rich_no_plugin_scan():
    """Default output (to a pipe, as here) and --json: typer, click, rich and importlib.metadata stay out."""
    for args in ((), ("--json",), ("-q",)):
        mods = _cli_ask(*args)
        assert "chainret.engine.hops" in mods
        assert _loaded(mods, NOT_ON_FAST_PATH) == [], args


NO_PYDANTIC = ("pydantic", "pydantic_core", "annotated_types", "typing_extensions", "typing_inspection")


def test_import_chainret_and_an_ask_import_no_pydantic(tmp_path):
    """Issue 47: ``import chainret``, ``chainret.cli`` and a ``chainret ask`` (the default catalog read back checked,
    each output mode; a compiled store) import no pydantic: the records build their pydantic half on first
    validation (``chainret.core.record``). Negative controls: the same probe sees pydantic where a catalog is
    validated (a first ask, with no remembered catalog) and where a module that uses pydantic is imported."""
    assert _loaded(_modules_after("import chainret\nchainret.Trace, chainret.Budget, chainret.ask"), NO_PYDANTIC) == []
    assert _loaded(_modules_after("import chainret.cli"), NO_PYDANTIC) == []
    for args in ((), ("--json",), ("-q",)):
        mods = _cli_ask(*args)
        assert "chainret.engine.hops" in mods and _loaded(mods, NO_PYDANTIC) == [], args
    from chainret.catalog.load import default_catalog_path, load_world
    from chainret.store import compile_store

    db = tmp_path / "default.db"
    compile_store(load_world(default_catalog_path()).catalog, db)
    for args in ((), ("--json",)):
        mods = _cli_ask(*args, "--catalog", str(db))
        assert "chainret.store.sqlite" in mods and _loaded(mods, NO_PYDANTIC) == [], args
    first = dict(_PROBE_ENV, XDG_CACHE_HOME=str(tmp_path / "empty"))
    probe = (f"from chainret.cli import main\ntry:\n    main(['ask', {REQUEST!r}, '--no-trace'])\nexcept SystemExit:\n    pass\n"
             "import sys\nsys.stderr.write('@@' + str('pydantic' in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=first)
    assert out.stderr.rsplit("@@", 1)[1] == "True"  # the first ask validated the catalog
    assert "pydantic" in _loaded(_modules_after("import chainret.catalog.cases"), NO_PYDANTIC)


def test_ask_json_imports_no_rich():
    mods = _cli_ask("--json")
    assert "chainret.engine.hops" in mods
    assert _loaded(mods, ("rich", "chainret.cli.render", *NOT_ON_ASK_PATH, *OTHER_COMMANDS)) == []


def test_ask_that_writes_its_trace_builds_no_dataclass_and_loads_no_tempfile(tmp_path):
    """A default ``chainret ask`` (trace file written) loads neither ``tempfile`` (and with it ``shutil``, ``bz2``,
    ``lzma``) nor ``difflib``, and builds no dataclass of chainret's own: each of those cost the cold ask about
    1 ms (a dataclass) to 6 ms (``tempfile``) at this machine's pace (issue 24)."""
    probe = (
        "import os, sys\n"
        f"os.environ['CHAINRET_TRACE_DIR'] = {str(tmp_path)!r}\n"
        "from chainret.cli import main\n"
        f"try:\n    main(['ask', {REQUEST!r}])\n"
        "except SystemExit as exc:\n    assert exc.code in (0, None), exc.code\n"
        "built = sorted(f'{m}.{n}' for m, mod in list(sys.modules.items()) if m.startswith('chainret')\n"
        "               for n, v in vars(mod).items() if isinstance(v, type) and v.__module__ == m\n"
        "               and '__dataclass_fields__' in vars(v))\n"
        "sys.stderr.write('\\n@@' + ' '.join(built) + '@@' + ' '.join(sys.modules))"
    )
    # The first ask with an empty cache parses the catalog and remembers it (``chainret.catalog.parse``: a write that
    # loaded ``tempfile`` until it wrote as ``chainret.core.files`` does); the second reads it back.
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    for run in ("cache miss", "cache hit"):
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env)
        built, mods = out.stderr.rsplit("@@", 2)[1:]
        assert list(tmp_path.glob("*.json")), "the ask wrote no trace file"
        assert built.split() == [], run
        assert _loaded(set(mods.split()), ("tempfile", "shutil", "difflib")) == [], run
    assert list((tmp_path / "cache").rglob("*.json"))  # (the first run did write the cache)


def test_ask_help_and_a_usage_error_still_go_through_typer():
    for args in (["ask", "--help"], ["ask", "--bogus", REQUEST]):
        mods = _modules_after(f"from chainret.cli import main\ntry:\n    main({args!r})\nexcept SystemExit:\n    pass\n")
        assert "typer" in mods and "chainret.cli.ask_cmds" in mods


def test_ask_on_a_compiled_store_reads_no_yaml(tmp_path):
    from chainret.catalog.load import default_catalog_path, load_world
    from chainret.store import compile_store

    db = tmp_path / "default.db"
    compile_store(load_world(default_catalog_path()).catalog, db)
    for args in (("--json",), ()):
        mods = _cli_ask(*args, "--catalog", str(db))
        assert "chainret.store.sqlite" in mods
        assert _loaded(mods, ("yaml", "chainret.catalog.load", *NOT_ON_FAST_PATH, *NOT_ON_ASK_PATH, *OTHER_COMMANDS,
                              *STORE_WRITERS)) == []
    # Negative control: a write loads the writers' modules, and the probe sees them.
    wrote = _modules_after("from chainret.catalog.load import default_catalog_path, load_world\n"
                           "from chainret.store import compile_store\n"
                           f"compile_store(load_world(default_catalog_path()).catalog, {str(tmp_path / 'again.db')!r})")
    assert _loaded(wrote, STORE_WRITERS) == list(STORE_WRITERS)


def test_cases_still_load_on_demand():
    mods = _modules_after("from chainret.catalog import Case, load_cases\nassert Case.__name__ == 'Case'")
    assert "chainret.catalog.cases" in mods


def test_every_alone_command_is_a_top_level_command():
    from typer.main import get_command

    top = get_command(cli.app).commands  # type: ignore[attr-defined]
    assert set(cli._ALONE) <= set(top)
    for name in cli._ALONE:  # the one-command root holds that command alone, the same one the app lists
        alone = get_command(cli._app_for(name)).commands  # type: ignore[attr-defined]
        assert list(alone) == [name] and alone[name].help == top[name].help


@pytest.mark.parametrize(("name", "args"), [
    *((name, args) for name in sorted(cli._ALONE) for args in (["--help"], ["--no-such-flag"])),
    ("ask", []), ("ask", ["--rows-per-hop", "x", REQUEST]), ("ask", ["--rows-per-hop", "0", REQUEST]),
    ("trace", []), ("trace", ["show"]), ("eval", []),
])
def test_alone_root_reads_like_the_whole_app(name, args):
    """Help, usage errors and exit codes through the one-command root equal the whole app's."""
    runner = CliRunner()
    whole = runner.invoke(cli.app, [name, *args], prog_name="chainret")
    alone = runner.invoke(cli._app_for(name), [name, *args], prog_name="chainret")
    assert whole.exit_code != 0 or args == ["--help"]
    assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output)


def _collections_in_ask(setup: str = "") -> tuple[int, int]:
    """(cyclic collections during one ``chainret ask`` through ``main``, objects frozen after it), in a fresh interpreter."""
    probe = (
        "import gc, sys\n"
        "from chainret.cli import main\n"
        f"{setup}\n"
        "seen = []\n"
        "gc.callbacks.append(lambda phase, info: seen.append(info['generation']) if phase == 'stop' else None)\n"
        f"try:\n    main(['ask', {REQUEST!r}, '--no-trace'])\n"
        "except SystemExit as exc:\n    assert exc.code in (0, None), exc.code\n"
        "sys.stderr.write(f'\\n@@{len(seen)} {gc.get_freeze_count()}')"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    runs, frozen = out.stderr.rsplit("@@", 1)[1].split()
    return int(runs), int(frozen)


def test_ask_runs_no_cyclic_collection_and_leaves_its_objects_frozen():
    """``main`` runs an ask with the cyclic collector paused and freezes what it built (``chainret.cli._ask_fast``): the
    collections during the imports and the interpreter's last collection at exit walked tens of thousands of new
    objects and freed next to nothing. Negative control: with the pause and the freeze switched off the same ask
    runs dozens of collections and freezes nothing."""
    runs, frozen = _collections_in_ask()
    assert runs <= 3 and frozen > 10_000, (runs, frozen)  # (a few while main reads the arguments, before the pause)
    off = ("import contextlib, chainret.core.bulk\n"
           "chainret.core.bulk.paused_gc = contextlib.nullcontext\n"
           "gc.freeze = lambda: None")
    runs_off, frozen_off = _collections_in_ask(off)
    assert runs_off > 20 and frozen_off == 0, (runs_off, frozen_off)


def _trace_serializer_built(tmp_path, setup: str = "") -> tuple[bool, bool]:
    """(``Trace``'s pydantic serializer built, orjson loaded) after a ``chainret ask --json`` that writes its trace."""
    probe = (
        "import os, sys\n"
        f"os.environ['CHAINRET_TRACE_DIR'] = {str(tmp_path)!r}\n"
        f"{setup}\n"
        "from chainret.cli import main\n"
        f"try:\n    main(['ask', {REQUEST!r}, '--json'])\n"
        "except SystemExit as exc:\n    assert exc.code in (0, None), exc.code\n"
        "from chainret.trace.model import Trace\n"
        "sys.stderr.write(f\"\\n@@{Trace.__pydantic_complete__} {'orjson' in sys.modules}\")"
    )
    env = {k: v for k, v in os.environ.items() if k != "CHAINRET_CHECK_TRUSTED"}  # (the suite's check builds every model)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env)
    built, orjson = out.stderr.rsplit("@@", 1)[1].split()
    return built == "True", orjson == "True"


def test_ask_json_builds_no_trace_serializer_and_loads_no_orjson(tmp_path):
    """A CLI ask writes at most two documents (``--json``'s answer, the trace file): ``chainret.core.stablejson``
    dumps them without building ``Trace``'s serializer (``plain_dump``) and encodes them without orjson.
    Negative control: with those first documents counted as later ones, orjson is loaded, and the serializer is built
    where orjson's walk of the models themselves (``direct_json``) is switched off too."""
    assert _trace_serializer_built(tmp_path / "a") == (False, False)
    assert list((tmp_path / "a").glob("*.json")), "the ask wrote no trace file"
    assert _trace_serializer_built(tmp_path / "b", "import chainret.core.stablejson as s\ns._FIRST = 0") == (False, True)
    later = "import chainret.core.stablejson as s\ns._FIRST = 0\ns.direct_json = lambda model: None"
    assert _trace_serializer_built(tmp_path / "c", later) == (True, True)
