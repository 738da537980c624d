"""docs/results.md assembly: order, missing sections, figure links."""

from __future__ import annotations

from pathlib import Path

from benchmarks import results_md


def test_sections_in_order_missing_named_links_rewritten(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "packing.md").write_text("# Packing\n\n![fig](pack.png)\n")
    (tmp_path / "results" / "retrieval.md").write_text("# Retrieval\n\n## Table I\n\n![h](hops.png) [x](https://e.org)\n")
    text = results_md.assemble(tmp_path)
    assert text.index("## Retrieval") < text.index("## Verification") < text.index("## Packing")
    assert "### Table I" in text
    assert "](results/hops.png)" in text and "](results/pack.png)" in text and "(https://e.org)" in text
    assert "Not generated yet" in text.split("## Verification")[1].split("## Packing")[0]


def test_sections_of_any_top_level_nest_at_level_two() -> None:
    assert results_md.demote("## A\n\n### B\n```\n# not a heading\n```") == "## A\n\n### B\n```\n# not a heading\n```"
    assert results_md.demote("# A\n\n## B") == "## A\n\n### B"
