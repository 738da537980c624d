"""Does a string under chainret/ quote a held-out request? (the test halves' guard, one home).

A test half (a request set's test.yaml, the newcomer2 questions) is only scored, never tuned on: a
string constant or data file of the package that contains one of its requests verbatim, case and
spacing aside, would be tuning on it.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path


def norm(text: str) -> str:
    return " ".join(text.casefold().split())


@lru_cache(maxsize=2)
def chainret_strings(root: Path) -> tuple[str, ...]:
    """Every string constant of the package's Python files and the text of its data files, normalised
    (read once per test session: each test half's guard scans the same package)."""
    out: list[str] = []
    for path in sorted(root.rglob("*")):
        if path.suffix == ".py":
            tree = ast.parse(path.read_text(encoding="utf-8"))
            out += [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        elif path.suffix in (".yaml", ".yml", ".txt", ".json", ".md"):
            out.append(path.read_text(encoding="utf-8"))
    return tuple(norm(s) for s in out)


def quoted(requests: list[str], strings: list[str] | tuple[str, ...]) -> list[str]:
    """The requests that some (normalised) string contains. The strings are searched as one text joined
    by NUL, which no request holds, so a match never spans two strings (one search per request)."""
    text = "\0".join(strings)
    return [r for r in requests if "\0" not in norm(r) and norm(r) in text]
