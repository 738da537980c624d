"""README's package map is the package: regenerated from its docstrings and files, it reads the same."""

from __future__ import annotations

from support.readme_map import README, render, replaced


def test_the_readme_map_is_fresh() -> None:
    readme = README.read_text(encoding="utf-8")
    assert replaced(readme) == readme, "README's map is stale: run python tests/support/readme_map.py"


def test_a_new_module_makes_the_map_stale(tmp_path, monkeypatch) -> None:
    """Negative control: the map lists every module, so one more file changes it."""
    import support.readme_map as rm

    before = render()
    fake = tmp_path / "chainret"
    for pkg in rm.PACKAGE.iterdir():
        if (pkg / "__init__.py").exists():
            (fake / pkg.name).mkdir(parents=True)
            for f in pkg.iterdir():
                if f.suffix == ".py" or (f / "__init__.py").exists():
                    target = fake / pkg.name / f.name
                    target.mkdir() if f.is_dir() else target.write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
                    if f.is_dir():
                        (target / "__init__.py").write_text("")
    (fake / "engine" / "extra.py").write_text('"""An extra module."""\n')
    monkeypatch.setattr(rm, "PACKAGE", fake)
    assert "extra" in render() and render() != before
