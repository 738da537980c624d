"""The guards of issue "Trust at the new edges", each measured by running the CI test that fails without it.

The results pages (``benchmarks/trust.py``, ``benchmarks/robustness.py``) show one row per class of
attack or fault. A row's number is not typed: ``measure`` runs the row's pytest selection in a fresh
interpreter and reads pytest's JUnit report, so the page says how many of the test's checks ran and how
many failed (a failed check is a leak, a traceback, a leftover file... of that class). Each selection is
a test that fails when its guard is switched off (its commit says so) and has a negative control beside it.
Hand-written because pytest has no call that returns a selection's counts without running it in-process,
and in-process runs would share fixtures and module state with the benchmark.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Guard:
    """One class of attack or fault: what goes wrong without the guard, and the tests that show it does not."""

    cls: str
    attack: str
    tests: tuple[str, ...]  # pytest node IDs or files, relative to the repository root
    keyword: str = ""  # a pytest -k expression within ``tests``


@dataclass
class Measured:
    guard: Guard
    checks: int
    failed: int
    skipped: int
    seconds: float

    @property
    def where(self) -> str:
        files = dict.fromkeys(t.split("::")[0] for t in self.guard.tests)
        sel = f" (`-k {self.guard.keyword}`)" if self.guard.keyword else ""
        return ", ".join(f"`{f}`" for f in files) + sel

    def words(self, unit: str) -> str:
        skipped = f"; {self.skipped} skipped" if self.skipped else ""
        return f"**{self.failed}** {unit} ({self.checks} checks run by the test, {self.failed} failed{skipped})"


def measure(guard: Guard, timeout: float = 600) -> Measured:
    """Run the guard's tests in a fresh interpreter; count checks, failures (errors included) and skips."""
    with tempfile.TemporaryDirectory(prefix="chainret-guard-") as tmp:
        report = Path(tmp) / "junit.xml"
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", f"--junitxml={report}",
               *guard.tests, *(["-k", guard.keyword] if guard.keyword else [])]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")])),
               "HF_HUB_OFFLINE": "1"}
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
        seconds = time.perf_counter() - t0
        if not report.exists():
            raise RuntimeError(f"{guard.cls}: pytest wrote no report (exit {proc.returncode}): {proc.stdout[-400:]}")
        suites = ET.parse(report).getroot().iter("testsuite")
        tests = failures = skipped = 0
        for s in suites:
            tests += int(s.get("tests", 0))
            failures += int(s.get("failures", 0)) + int(s.get("errors", 0))
            skipped += int(s.get("skipped", 0))
    if tests == 0:
        raise RuntimeError(f"{guard.cls}: the selection ran no test ({' '.join(cmd[3:])})")
    return Measured(guard, checks=tests - skipped, failed=failures, skipped=skipped, seconds=round(seconds, 1))


HISTORY = "tests/test_sources_history_git.py"

TRUST = (
    Guard("importer leaks", "a public reader asks over a Backstage import that holds restricted files, in memory, over SQLite "
          "(whole and streamed compile) and PostgreSQL stores: names, e-mails, answers, suggestions, patterns, coverage differ "
          "from the same tree without them, or a public PostgreSQL login selects a restricted label",
          ("tests/test_importer_noninterference.py",),
          "not digest_revision_and_views and not bounded and not view_names and not numbering"),
    Guard("view/revision leaks", "the view list, view names and orders, view descriptions, catalog digest and revision token "
          "a public reader is shown change when only a restricted file changes (in memory and over every store)",
          ("tests/test_importer_noninterference.py",), "digest_revision_and_views or view_names or numbering"),
    Guard("symlink escapes", "a CODEOWNERS file (found in the tree or given) that links out of the tree is read",
          ("tests/test_sources_codeowners.py",), "out_of_the_tree"),
    Guard("foreign blobs", "a file name with a newline (or any odd name, link, submodule) makes git history import a blob "
          "the commit does not hold at that path", (HISTORY,), "newline or odd_name or only_the_blobs"),
    Guard("logged secrets", "`catalog grant --password-…` sends the password in a statement the server sees or logs",
          ("tests/test_store_postgres_grant.py",)),
)

# Units of a word only restricted text holds, planted by the planner guard's test; the trust page quotes the count.
N_SECRET = 60
PLANNER = Guard("planner statistics", "a public login reads corpus figures of another class, tells from `EXPLAIN` "
                "estimates whether a word occurs only in restricted text, or counts its rows with `EXPLAIN ANALYZE` over "
                "an index scan of `postings` (a plain read, the engine's hop statement)", ("tests/test_store_postgres_stats.py",))

ROBUSTNESS = (
    Guard("dropped commits", "a submodule named like a descriptor (with or without a commit message that looks like git's "
          "batch answer) empties its commit's view, or a commit's clean descriptors go missing", (HISTORY,),
          "submodule or only_the_blobs"),
    Guard("tracebacks", "odd trees and commit messages in git history (hypothesis property, 6 examples) raise anything "
          "but a typed error", (HISTORY,), "only_the_blobs or submodule_named or not_utf8 or refused_file_name"),
    Guard("unbounded imports", "one file's references, or stacked globstars in a CODEOWNERS pattern, cost more than their bound",
          ("tests/test_importer_noninterference.py", "tests/test_sources_codeowners.py"),
          "bounded or globstars or step_bound"),
    Guard("unbounded streams", "MCP event streams past the per-client and total caps, a body that stops, connections past "
          "the per-address and total caps", ("tests/test_mcp_http.py", "tests/test_connection_caps.py"),
          "capped or body_that_stops or caps"),
    Guard("leftover temporaries", "a SQLite compile, `--replace` or `--update` (finished, failed midway, killed, disk full) "
          "leaves a lock file, temporary copy or journal beside the store", ("tests/test_store_sqlite_writers.py",)),
)
