"""The CLI has one error path: commands raise ChainretError, the root group prints it and exits with its code."""

from __future__ import annotations

import ast
from pathlib import Path

from typer.testing import CliRunner

import chainret.cli
from chainret.cli import app

CLI = Path(chainret.cli.__file__).parent


def test_a_command_error_is_its_message_and_exit_code(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["catalog", "build", str(tmp_path / "missing"), "--out", str(tmp_path / "c.yaml")])
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit)
    assert res.output.startswith("error: ") and "Traceback" not in res.output
    res = CliRunner().invoke(app, ["schema", "nope"])
    assert res.exit_code == 2 and "unknown schema 'nope'" in res.output


def test_no_command_module_catches_chainret_errors_itself() -> None:
    """Only chainret/cli/__init__.py (the root group and main) turns a ChainretError into output."""
    catching = []
    for path in sorted(CLI.glob("*.py")):
        if path.name == "__init__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ExceptHandler) and isinstance(node.type, ast.Name) and node.type.id == "ChainretError":
                catching.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.FunctionDef) and node.name == "_fail":
                catching.append(f"{path.name}:{node.lineno} _fail")
    assert catching == []


def test_one_console_with_markup_off() -> None:
    """Every command prints through render's consoles (markup and emoji off), so data is never parsed as markup."""
    own = []
    for path in sorted(CLI.glob("*.py")):
        if path.name == "render.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Console":
                own.append(f"{path.name}:{node.lineno}")
    assert own == []
