"""What the base wheel ships: no model weights, no test harnesses; chainret's NLI model is found where it lives."""

from __future__ import annotations

import importlib.machinery
import tomllib
from pathlib import Path

import chainret
from chainret.research.nli import model

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(chainret.__file__).parent


def test_the_package_holds_no_weights_and_no_harnesses() -> None:
    assert [p for p in PACKAGE.rglob("*") if p.suffix in {".safetensors", ".bin", ".pt", ".onnx"}] == []
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    assert not any("models" in pattern for pattern in data["chainret"])
    assert not (PACKAGE / "models").exists()


def test_the_checkout_copy_is_the_default_without_the_model_package(monkeypatch) -> None:
    monkeypatch.setattr(model.importlib.util, "find_spec", lambda name: None)
    path = model.default_model_path()
    assert path == ROOT / "packages" / "chainret-nli-model" / "chainret_nli_model" / "nli-minilm-l6"
    assert (path / "config.json").is_file() and (path / "model.safetensors").is_file()


def test_an_installed_model_package_wins(monkeypatch, tmp_path: Path) -> None:
    origin = tmp_path / "site" / "chainret_nli_model" / "__init__.py"
    spec = importlib.machinery.ModuleSpec("chainret_nli_model", None, origin=str(origin))
    monkeypatch.setattr(model.importlib.util, "find_spec", lambda name: spec if name == "chainret_nli_model" else None)
    assert model.default_model_path() == origin.parent / "nli-minilm-l6"


def test_the_model_package_ships_the_weights() -> None:
    data = tomllib.loads((ROOT / "packages" / "chainret-nli-model" / "pyproject.toml").read_text(encoding="utf-8"))
    assert data["project"]["name"] == "chainret-nli-model"
    assert data["tool"]["setuptools"]["package-data"]["chainret_nli_model"] == ["nli-minilm-l6/*"]
