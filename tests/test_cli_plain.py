"""``chainret.cli.plain`` writes what rich writes (issue 24): the readable trace summary of every golden
trace and of live asks (names, suggestions, refusals, tolerant readings, hostile text), at widths from
a phone to a wide terminal, quiet or not. Where plain text cannot be sure (a table wide enough to be
drawn as one, a character rich measures with its Unicode tables) it answers None and rich prints.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.cells import cell_len

from chainret.pipeline.ask import answer
from chainret.catalog.load import default_catalog_path, load_world
from chainret.cli import plain
from chainret.cli.render import make_console, render_trace
from chainret.trace.model import read_trace

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = sorted((ROOT / "traces").rglob("*.json"))
WIDTHS = (8, 13, 20, 27, 33, 40, 47, 55, 63, 72, 79, 80, 81, 96, 110, 118, 119, 120, 140, 200)
REQUESTS = (
    "Which contact serves PR-84?",
    "Which contact serves Rowan?",
    "Who supplies the northern desk with lunch?",
    "which contact serves pr84",
    "Please, which contact serves the project PR-84?",
    "Which contact serves PR-84\u202e\x1b[31m?\t",
    "Which contact serves プロジェクト?",
    "Which contact serves PR-84? " + "very-long-word-" * 12,
)


def _rich(trace, width: int, **kw) -> str:
    buf = io.StringIO()
    render_trace(trace, out=make_console(file=buf, width=width), **kw)
    return buf.getvalue()


def _compare(trace, **kw) -> int:
    """Plain == rich at every width where plain answers; how many widths it answered."""
    answered = 0
    for width in WIDTHS:
        text = plain.plain_text(plain.trace_items(trace, **kw), width)
        if text is not None:
            assert text == _rich(trace, width, **kw), (trace.request, width)
            answered += 1
    return answered


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden_trace_summaries_match_rich(path: Path) -> None:
    trace = read_trace(path)
    assert _compare(trace) >= 10 and _compare(trace, quiet=True) == len(WIDTHS)


@pytest.fixture(scope="module")
def catalog():
    return load_world(default_catalog_path()).catalog


@pytest.mark.parametrize("request_text", REQUESTS)
def test_live_asks_match_rich(catalog, request_text: str) -> None:
    for principal, viewer in (("public", None), ("auditor", None), ("public", "auditor")):
        result = answer(request_text, catalog, principal=principal, viewer=viewer)
        kw = {"names": result.names, "suggestions": result.suggestions}
        answered = _compare(result.trace, **kw)
        if "プ" not in request_text:
            assert answered >= 5, request_text


def test_wide_characters_and_tables_are_left_to_rich(catalog) -> None:
    trace = answer("Which contact serves プロジェクト?", catalog).trace
    assert plain.plain_text(plain.trace_items(trace), 80) is None  # rich measures these two cells wide
    wide = answer("Which contact serves PR-84?", catalog).trace
    assert plain.plain_text(plain.trace_items(wide), 200) is None  # a drawn table
    assert plain.plain_text(plain.trace_items(wide), 80) is not None  # records


def test_one_cell_characters_are_one_cell_to_rich() -> None:
    assert all(cell_len(ch) == 1 for ch in plain._ONE_CELL)


def test_trace_written_line_matches_rich() -> None:
    from chainret.cli.render import t

    for path in ("/tmp/x.json", "/very/long/" + "d" * 150 + "/trace file.json", "/tmp/écrit.json"):
        for width in WIDTHS:
            buf = io.StringIO()
            make_console(file=buf, width=width).print(t("trace written to ", path))
            assert plain.plain_text([["trace written to ", path]], width) == buf.getvalue()
