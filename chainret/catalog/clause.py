"""The catalog's plain-text forms: the clause that supports a relation and the refs of documents and units.

Kept apart from the models (``chainret.catalog.models`` re-exports them): the clause's text form has one
home, plain functions on strings that the engine calls on every hop and that need nothing of pydantic.
"""

from __future__ import annotations

from typing import Final

CLAUSE_PREFIX: Final = "REL "
CLAUSE_SEP: Final = " | "


def clause_text(subject: str, predicate: str, obj: str) -> str:
    """The literal clause that must support a relation: ``REL s | p | o``."""
    return f"{CLAUSE_PREFIX}{subject}{CLAUSE_SEP}{predicate}{CLAUSE_SEP}{obj}"


def parse_clause(text: str) -> tuple[str, str, str] | None:
    """``REL s | p | o`` -> (s, p, o); None when ``text`` is not exactly one clause."""
    if not text.startswith(CLAUSE_PREFIX) or "\n" in text:
        return None
    parts = text[len(CLAUSE_PREFIX) :].split(CLAUSE_SEP)
    if len(parts) != 3:
        return None
    s, p, o = parts
    if not s or not p or not o or s != s.strip() or p != p.strip() or o != o.strip():
        return None
    return s, p, o


def doc_ref(source: str, document: str, version: str) -> str:
    return f"{source}/{document}@{version}"


def unit_ref(doc_ref: str, index: int) -> str:
    """``source/document@version#uN``: unit ``index`` (1-based) of a document version."""
    return f"{doc_ref}#u{index}"
