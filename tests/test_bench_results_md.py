"""docs/results.md assembly: order, missing sections, figure links."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import results_md


def test_sections_in_order_missing_named_links_rewritten(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "packing.md").write_text("# Packing\n\n![fig](pack.png)\n")
    (tmp_path / "results" / "retrieval.md").write_text("# Retrieval\n\n## Table I\n\n![h](hops.png) [x](https://e.org)\n")
    text = results_md.assemble(tmp_path)
    assert text.index("## Retrieval") < text.index("## Verification") < text.index("## Packing")
    assert "### Table I" in text
    assert "](results/hops.png)" in text and "](results/pack.png)" in text and "(https://e.org)" in text
    missing = text.split("## Verification")[1].split("## Packing")[0]
    assert "Not generated yet: run `python -m benchmarks.verify_results --batch-size 8" in missing  # the manifest's command


def test_every_section_has_its_command_in_the_manifest() -> None:
    assert {name: results_md.command_of(name).startswith("`") for name in results_md.SECTIONS} == dict.fromkeys(results_md.SECTIONS, True)
    with pytest.raises(KeyError, match="not in benchmarks/manifest.yaml"):  # negative control
        results_md.command_of("no-such-page")


def test_sections_of_any_top_level_nest_at_level_two() -> None:
    assert results_md.demote("## A\n\n### B\n```\n# not a heading\n```") == "## A\n\n### B\n```\n# not a heading\n```"
    assert results_md.demote("# A\n\n## B") == "## A\n\n### B"
