"""Rules with one home (docs/architecture.md): no other module of the package writes one out again.

Each scan reads the package's source as a syntax tree (comments and docstrings may name a rule; code may not
restate it), and each has a negative control: run on the rule's home, it finds the rule there.
"""

from __future__ import annotations

import ast
from pathlib import Path

from chainret.core import words as rules
from chainret.store.base import recompile_advice

PACKAGE = Path(__file__).resolve().parents[1] / "chainret"
WORDS_HOME = PACKAGE / "core" / "words.py"
ADVICE_HOME = PACKAGE / "store" / "base.py"


def _docstrings(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _strings(tree: ast.AST) -> list[ast.Constant]:
    """The string constants of a module's code (f-string pieces included, docstrings left out)."""
    docs = _docstrings(tree)
    return [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def _others(home: Path) -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if p != home]


def _word_rules_typed_in(path: Path) -> list[str]:
    """The word rules a module writes out itself: the joiners or a word pattern as a string, a filler phrase
    of two or more words as a tuple of strings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    patterns = {rules.SEARCH_TOKEN.pattern, rules.REQUEST_WORD.pattern, rules.PLAIN_WORD.pattern,
                rules.NOT_PLAIN_WORD.pattern, "[a-z0-9]+", "[^a-z0-9]+", "[0-9A-Za-z]+", "[A-Za-z0-9]+"}
    found = [f"{path.name}:{s.lineno}: {s.value!r}" for s in _strings(tree) if s.value in patterns or rules.JOINERS in s.value]
    phrases = {f for f in rules.FILLERS if len(f) > 1}
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple) and all(isinstance(e, ast.Constant) for e in node.elts):
            if tuple(e.value for e in node.elts if isinstance(e, ast.Constant)) in phrases:
                found.append(f"{path.name}:{node.lineno}: filler {ast.unparse(node)}")
    return found


def test_no_module_types_a_word_rule_again():
    typed = [hit for path in _others(WORDS_HOME) for hit in _word_rules_typed_in(path)]
    assert typed == [], "a word rule written outside chainret.core.words (import it from there):\n" + "\n".join(typed)


def test_the_word_scan_sees_the_rules_where_they_are_written():  # the negative control of the scan above
    typed = _word_rules_typed_in(WORDS_HOME)
    assert any("'-:_./@#'" in hit for hit in typed)
    assert any("filler ('thank', 'you')" in hit for hit in typed)


def _recompile_advice_in(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{path.name}:{s.lineno}: {s.value!r}" for s in _strings(tree) if "recompile" in s.value.lower()]


def test_the_recompile_advice_is_worded_once():
    typed = [hit for path in _others(ADVICE_HOME) for hit in _recompile_advice_in(path)]
    assert typed == [], "recompile advice written outside chainret.store.base.recompile_advice:\n" + "\n".join(typed)


def test_the_advice_scan_sees_the_advice_where_it_is_written():  # the negative control of the scan above
    assert _recompile_advice_in(ADVICE_HOME)
    assert recompile_advice("x.db") == "recompile the store: chainret catalog compile CATALOG --out x.db --replace"
