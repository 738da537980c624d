"""``Issue``: one finding of the loader or validator, with a stable code and a location."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, NamedTuple

from chainret.core.errors import CatalogInvalid

Severity = Literal["error", "warning", "info"]


class _IssueFields(NamedTuple):
    code: str  # stable, e.g. "dangling_reference", "clause_mismatch", "contradiction"
    severity: Severity
    file: str
    location: str  # the record, e.g. "relations[3] (id rel-7)", or "line 12" for syntax errors
    field: str  # dotted field path inside the record ("support.span"), "" when not one field
    message: str  # what was expected and what was found
    line: int | None = None  # 1-based line of the record/field in a YAML file, when known


class Issue(_IssueFields):
    """A finding: an immutable record (a named tuple: the loader is on the cold ``chainret ask`` path, where
    building a dataclass costs about 1 ms at import). ``issue._replace(line=...)`` gives a copy."""

    __slots__ = ()

    def __new__(cls, code: str, severity: Severity, file: str, location: str, field: str, message: str,
                line: int | None = None) -> Issue:
        # Size-limited and terminal-safe: a message never carries a whole (huge or hostile) value.
        from chainret.core.textsafe import clip, visible

        return super().__new__(cls, code, severity, file, clip(visible(location), 200), clip(visible(field), 200),
                               clip(visible(message), 600), line)

    def __str__(self) -> str:
        loc = self.location
        if self.line and self.location and not self.location.startswith("line "):
            loc = f"{self.location} (line {self.line})"
        where = ", ".join(p for p in (loc, f"field {self.field}" if self.field else "") if p)
        return f"{self.file}: {where}: {self.message} [{self.code}]" if where else f"{self.file}: {self.message} [{self.code}]"

    def to_dict(self) -> dict[str, str]:
        return dict(self._asdict())


class CatalogFileInvalid(CatalogInvalid):
    """A catalog or cases file failed to load; ``issues`` lists every problem found."""

    def __init__(self, issues: list[Issue]) -> None:
        self.issues = issues
        super().__init__(issue_list(issues, "loading catalog files"))


def issue_list(issues: list[Issue], context: str, render: Callable[[Issue], str] = str, shown: int = 20) -> str:
    """``N problems <context>:`` then the first ``shown`` issues, one per line, and how many more."""
    lines = "\n".join(f"  {render(i)}" for i in issues[:shown])
    more = f"\n  … and {len(issues) - shown} more" if len(issues) > shown else ""
    noun = "problem" if len(issues) == 1 else "problems"
    return f"{len(issues)} {noun} {context}:\n{lines}{more}"
