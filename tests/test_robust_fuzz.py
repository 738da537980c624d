"""CI slice of the catalog fuzzer (the full run is python -m benchmarks.robustness -> docs/results/robustness.md)."""

from __future__ import annotations

from benchmarks.harness.fuzz import CLASSES, check_step, generate, run_case, summarise

N_FILES = 39  # three of each class, in-process, small huge-strings (scale)


def test_fuzz_slice_has_no_traceback_hang_escape_or_misrecord(tmp_path):
    cases = generate(tmp_path, N_FILES, seed=5, scale=0.02)
    assert {c.cls for c in cases} == set(CLASSES)
    results = [run_case(c) for c in cases]
    s = summarise(results)
    assert s.files == N_FILES and s.steps == 3 * N_FILES
    assert s.examples == [], s.examples
    assert (s.tracebacks, s.hangs, s.terminal_escapes, s.markup_interpreted, s.budget_misrecords, s.cycles, s.bad_exit_codes) == (0,) * 7


def test_the_checks_can_fail():
    step = {"argv": ["ask", "--json"], "rc": 0, "seconds": 0.1, "hang": False, "exception": "",
            "stdout": '{"budget": {"max_rows": 6, "max_searches": 2}, "rows_used": 13, "searches_used": 1, "hops": []}',
            "stderr": "\x1b]8;;http://x\x1b\\"}
    probs = check_step(step)
    assert any(p.startswith("terminal escape") for p in probs)
    assert any("budget misrecord" in p for p in probs)
    crashed = {**step, "exception": "Traceback ...\nrich.errors.MarkupError: closing tag", "stderr": "", "stdout": "{}"}
    assert any(p.startswith("traceback") for p in check_step(crashed))
    assert any(p.startswith("hang") for p in check_step({**crashed, "exception": "", "hang": True}))
