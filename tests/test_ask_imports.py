"""The ask path imports only what a request needs (issue 24): no baselines, no case files.

Checked in a fresh interpreter, the way ``chainret ask`` starts: the CLI module, then one ask.
"""

import subprocess
import sys

NOT_ON_ASK_PATH = ("chainret.baselines", "chainret.catalog.cases", "chainret.evaluate", "torch", "transformers")


def _modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_import_chainret_loads_no_engine():
    mods = _modules_after("import chainret")
    assert "chainret.ask" not in mods and "chainret.trace" not in mods and "pydantic" not in mods


def test_public_names_still_load():
    mods = _modules_after("from chainret import ask, Trace, ChainretError\nimport chainret\nassert callable(chainret.ask)")
    assert {"chainret.ask", "chainret.trace"} <= mods


def test_ask_path_skips_baselines_and_cases():
    mods = _modules_after(
        "from chainret.cli import main\n"
        "try:\n    main(['ask', 'Which contact serves PR-84?', '--json', '--no-trace'])\n"
        "except SystemExit as exc:\n    assert exc.code in (0, None), exc.code\n"
    )
    assert "chainret.hops" in mods  # the request really ran
    assert sorted(m for m in NOT_ON_ASK_PATH if m in mods) == []


def test_cases_still_load_on_demand():
    mods = _modules_after("from chainret.catalog import Case, load_cases\nassert Case.__name__ == 'Case'")
    assert "chainret.catalog.cases" in mods
