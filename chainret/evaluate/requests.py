"""Scoring interpretation on a request set: correct / wrong / missed per world (issue 23).

A request set (``fixtures/requests/*.yaml``, format ``chainret-requests/1``) lists requests over
named worlds, each with what it must be read as: ``paraphrase`` and ``multihop`` requests name the
pattern and the canonical start ID; ``refuse`` requests must get no interpretation (no pattern, an
unknown or ambiguous entity, ...). Each request is asked through ``chainret.pipeline.ask.ask`` (projected
for the principal, as the CLI does) and only its interpretation is scored:

* correct: the expected pattern and start ID (paraphrase, multihop), or no interpretation (refuse);
* wrong: an interpretation that differs from the expected one, or any interpretation of a
  must-refuse request (the figure that must stay 0);
* missed: no interpretation of a request that has one (a refusal where an answer was possible).

A world is a catalog path, or ``registry`` + ``exports``: the registry's records folder built into a
temporary catalog with each export imported in turn as a new view, as the README's walk does
(nothing is written under the registry).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from chainret.core.errors import ChainretError

Kind = Literal["paraphrase", "multihop", "refuse"]
KINDS: tuple[Kind, ...] = ("paraphrase", "multihop", "refuse")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class WorldRef(_Model):
    catalog: str | None = None  # a catalog path, relative to the repository root
    registry: str | None = None  # a source folder with records/ and exports/ (the example registry)
    # with registry: the tables imported in turn as cmdb/ownership.md, each as a new view (name: path)
    exports: dict[str, str] | None = None
    # or a records folder imported as `catalog import RECORDS --format F --src SRC` (the Backstage example)
    records: str | None = None
    formats: list[str] | None = None
    src: str | None = None

    @model_validator(mode="after")
    def _one(self) -> WorldRef:
        if sum(x is not None for x in (self.catalog, self.registry, self.records)) != 1:
            raise ValueError("a world names one of catalog, registry (with exports) or records (with formats)")
        if self.records is not None and not self.formats:
            raise ValueError("a records world names its formats")
        if self.registry is not None and not self.exports:
            raise ValueError("a registry world names its exports")
        return self


class RequestCase(_Model):
    world: str
    kind: Kind
    request: str
    pattern: str | None = None
    start: str | None = None
    why: str | None = None  # refuse: what makes it a must-refuse request
    principal: str = "public"
    view: str | None = None
    # optional, for the stricter sets (fixtures/requests-2026-12): what else the outcome must show
    expect_view: str | None = None  # the view a dated request must be read in ("who owned X in January 2026")
    reason: str | None = None  # refuse: the reason code it must be refused with (e.g. no_pattern)
    suggest: str | None = None  # refuse: an entity ID the refusal must offer ("did you mean ...")
    source: str | None = None  # who or what wrote the wording (user / wordnet / public)
    cite: str | None = None  # public wording: the page it is modelled on

    @model_validator(mode="after")
    def _expect(self) -> RequestCase:
        if self.kind == "refuse" and (self.pattern or self.start):
            raise ValueError(f"{self.request!r}: a refuse request names no pattern or start")
        if self.kind != "refuse" and (self.reason or self.suggest):
            raise ValueError(f"{self.request!r}: only a refuse request names a reason or a suggestion")
        if self.kind != "refuse" and not (self.pattern and self.start):
            raise ValueError(f"{self.request!r}: a {self.kind} request names its pattern and start")
        return self


class RequestSet(_Model):
    format: Literal["chainret-requests/1"]
    part: str
    worlds: dict[str, WorldRef]
    requests: list[RequestCase] = Field(min_length=1)

    @model_validator(mode="after")
    def _worlds(self) -> RequestSet:
        unknown = sorted({r.world for r in self.requests} - set(self.worlds))
        if unknown:
            raise ValueError(f"requests name undeclared worlds: {', '.join(unknown)}")
        return self


def load_request_set(path: str | Path) -> RequestSet:
    p = Path(path)
    try:
        return RequestSet.model_validate(yaml.safe_load(p.read_text(encoding="utf-8")))
    except OSError as exc:
        raise ChainretError(f"{p}: cannot read the request set: {exc.strerror or exc}") from None
    except (yaml.YAMLError, ValidationError) as exc:
        raise ChainretError(f"{p}: not a valid request set: {' '.join(str(exc).splitlines()[:3])}") from None


def open_world(ref: WorldRef, root: Path) -> Any:
    """The catalog a world names (a registry world is built in a temporary folder, nothing written)."""
    from chainret.store import resolve_catalog

    if ref.catalog is not None:
        return resolve_catalog(str(root / ref.catalog))
    if ref.records is not None:
        return _imported_world(ref, root)
    from chainret.authoring.build import build
    from chainret.authoring.header import HEADER_NAME, read_header
    from chainret.authoring.tables import read_table, render_table

    from chainret.authoring.output import write_build

    assert ref.registry is not None and ref.exports
    src = root / ref.registry / "records"
    header = read_header(src / HEADER_NAME)
    with tempfile.TemporaryDirectory(prefix="chainret-requests-") as tmp:
        for view, table in ref.exports.items():  # as `catalog import ... --out DIR --view V`, in turn
            text = render_table(read_table(root / ref.registry / table, header), title="Ownership")
            result = build(src, Path(tmp) / "catalog", view=view, overrides={"cmdb/ownership.md": text}, parsed=header)
            write_build(result, src)  # writes only under the temporary --out folder
        return resolve_catalog(result.catalog)


def _imported_world(ref: WorldRef, root: Path) -> Any:
    """``catalog import RECORDS --format ... --src SRC --out TMP``, read back (nothing written under RECORDS)."""
    from chainret.sources.records import default_world, import_snapshot, read_snapshot, write_import
    from chainret.store import resolve_catalog

    assert ref.records is not None and ref.formats
    src = root / ref.src if ref.src else None
    world = default_world(ref.formats, src)
    with tempfile.TemporaryDirectory(prefix="chainret-requests-") as tmp:
        snap = read_snapshot(root / ref.records, ref.formats, world)
        result = import_snapshot(snap, Path(tmp) / "catalog", world=world, src=src, view=None, strict=False)
        write_import(result, "import")
        return resolve_catalog(str(result.catalog_file))


@dataclass(frozen=True)
class Scored:
    case: RequestCase
    verdict: Literal["correct", "wrong", "missed"]
    got: str  # "pattern start" or the outcome/reason code


def score_case(case: RequestCase, catalog: Any, session: Any = None) -> Scored:
    from chainret.pipeline.ask import ask

    trace = ask(case.request, catalog, view=case.view, principal=case.principal, session=session)
    it = trace.interpretation
    got = f"{it.pattern} {it.start_id}" if it is not None else str(trace.reason.code if trace.reason else trace.outcome)
    if case.kind == "refuse":
        if it is not None:
            return Scored(case, "wrong", got)
        # refused, but not as the set asks (another reason, or without the expected suggestion): missed
        details = str(trace.reason.details) if trace.reason else ""
        ok = (case.reason is None or got == case.reason) and (case.suggest is None or case.suggest in details)
        return Scored(case, "correct" if ok else "missed", got)
    if it is None:
        return Scored(case, "missed", got)
    ok = it.pattern == case.pattern and it.start_id == case.start
    ok = ok and (case.expect_view is None or it.view == case.expect_view)
    if case.expect_view is not None:
        got = f"{got} @{it.view}"
    return Scored(case, "correct" if ok else "wrong", got)


def score_set(rs: RequestSet, root: Path) -> list[Scored]:
    from chainret.core.session import Session

    out: list[Scored] = []
    for world in dict.fromkeys(r.world for r in rs.requests):
        catalog = open_world(rs.worlds[world], root)
        session = Session()
        out.extend(score_case(c, catalog, session) for c in rs.requests if c.world == world)
    return out


def tally(results: Sequence[Scored]) -> dict[str, dict[str, dict[str, int]]]:
    """world -> kind -> {correct, wrong, missed, n}; world ``all`` sums them."""
    table: dict[str, dict[str, dict[str, int]]] = {}
    for r in results:
        for w in (r.case.world, "all"):
            cell = table.setdefault(w, {}).setdefault(r.case.kind, {"n": 0, "correct": 0, "wrong": 0, "missed": 0})
            cell["n"] += 1
            cell[r.verdict] += 1
    return table
