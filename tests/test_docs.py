"""The README's commands stay true: CI runs the same test command, and every command is documented."""

import re
from pathlib import Path

from typer.main import get_command

from chainret.cli import app

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _bash_blocks(text: str) -> list[str]:
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", text, flags=re.S)]


def test_readme_has_the_two_setup_commands():
    blocks = _bash_blocks(README)
    assert any('chainret ask "Which contact serves PR-84?"' in b for b in blocks)
    assert any("pytest" in b and "torch==2.13.0" in b for b in blocks)


def test_ci_runs_exactly_the_readme_test_command():
    test_cmd = next(b for b in _bash_blocks(README) if "pytest" in b)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_cmd in ci.splitlines()


def test_every_command_is_documented_and_has_help():
    root = get_command(app)
    for name, cmd in root.commands.items():  # type: ignore[attr-defined]
        assert f"chainret {name}" in README, f"README does not mention `chainret {name}`"
        assert (cmd.help or cmd.short_help), f"`chainret {name}` has no help text"
