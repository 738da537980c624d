"""What the record readers share: an entity as a reader declares it, and a located problem."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from chainret.catalog.issues import Issue, Severity


@dataclass(frozen=True)
class NameRecord:
    """The labels one record file gives an entity: ``file`` is its path in the tree (``org/users.yaml``).

    A reader who may not read that file's document is not told these labels (``Entity.declared_in``)."""

    file: str
    name: str
    aliases: tuple[str, ...]
    description: str


@dataclass(frozen=True)
class EntityRecord:
    """An entity a record declares: canonical ID, display name, aliases, description, and which
    files declare which of those labels (``sources``, definition first; empty: not tracked)."""

    id: str
    name: str
    aliases: tuple[str, ...]
    description: str
    sources: tuple[NameRecord, ...] = ()


def issue(code: str, file: Path | str, line: int | None, message: str, severity: Severity = "error") -> Issue:
    """A problem at ``file:line`` (``line`` 1-based; None: the whole file)."""
    return Issue(code, severity, str(file), f"line {line}" if line else "", "", message)
