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


def inside_tree(root: Path, path: Path) -> bool:
    """Whether ``path`` (under ``root``) still lies inside the tree once every symlink on the way is
    followed: a record reader never reads a file through a link out of the tree (a ``CODEOWNERS`` or
    ``docs`` link to ``/etc`` would otherwise end up quoted in the catalog). A path that cannot be
    resolved (a link loop) is not inside."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # ELOOP and friends; RuntimeError: a loop on Python < 3.13
        return False
