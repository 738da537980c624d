"""``Issue``: one finding of the loader or validator, with a stable code and a location."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Literal

from chainret.errors import CatalogInvalid

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Issue:
    code: str  # stable, e.g. "dangling_reference", "clause_mismatch", "contradiction"
    severity: Severity
    file: str
    location: str  # the record, e.g. "relations[3] (id rel-7)", or "line 12" for syntax errors
    field: str  # dotted field path inside the record ("support.span"), "" when not one field
    message: str  # what was expected and what was found
    line: int | None = None  # 1-based line of the record/field in a YAML file, when known

    def __post_init__(self) -> None:
        # Size-limited and terminal-safe: a message never carries a whole (huge or hostile) value.
        from chainret.textsafe import clip, visible

        for name, limit in (("location", 200), ("field", 200), ("message", 600)):
            value = getattr(self, name)
            safe = clip(visible(value), limit)
            if safe != value:
                object.__setattr__(self, name, safe)

    def __str__(self) -> str:
        loc = self.location
        if self.line and self.location and not self.location.startswith("line "):
            loc = f"{self.location} (line {self.line})"
        where = ", ".join(p for p in (loc, f"field {self.field}" if self.field else "") if p)
        return f"{self.file}: {where}: {self.message} [{self.code}]" if where else f"{self.file}: {self.message} [{self.code}]"

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


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
