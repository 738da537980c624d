"""``benchmarks/manifest.yaml``: every results page, the command(s) that write it, and its aims.

As pyserini's ``2cr/*.yaml``: one file says how each page is made and what it must show, so one command
regenerates a page (``python -m benchmarks run PAGE``) and one checks every page's aims against the
figures its command saved beside it (``python -m benchmarks check``), without running anything.

An aim's ``met`` is a Python expression over ``results`` (the page's saved JSON figures) and the helpers
in :data:`HELPERS`. It is the repository's own text, not data: still, it is parsed and only a small set
of expression nodes is allowed (no attribute access, no imports, no lambdas), so an aim cannot do more
than read figures and compare them.
"""

from __future__ import annotations

import ast
import json
import shlex
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

REPO = Path(__file__).resolve().parents[2]
MANIFEST = REPO / "benchmarks" / "manifest.yaml"


class Aim(BaseModel):
    """One aim as the page or the issue states it, and how it is checked."""

    model_config = ConfigDict(extra="forbid")

    aim: str  # the aim in the words of the page or issue, e.g. "warm p50 (SQLite) <= 5 ms"
    source: str  # where it is stated (the page's section, the issue)
    met: str | None = None  # an expression over ``results``; true when the aim is met
    check: Literal["figures", "manual"] = "figures"
    why_manual: str | None = None  # why it cannot be checked from figures (yet)

    @model_validator(mode="after")
    def _one_way(self) -> Aim:
        if self.check == "figures" and not self.met:
            raise ValueError(f"aim {self.aim!r}: give `met` (an expression over results) or `check: manual`")
        if self.check == "manual" and (self.met or not self.why_manual):
            raise ValueError(f"aim {self.aim!r}: a manual aim has no `met` and says why (`why_manual`)")
        if self.met:
            _allowed(self.met)
        return self


class Page(BaseModel):
    """A results page: where it is, the commands that regenerate it (run in order from the repository root)."""

    model_config = ConfigDict(extra="forbid")

    page: str  # relative to the repository root
    commands: list[str] = Field(min_length=1)
    cheap: str | None = None  # the cheapest run that exercises the command (a size or --help): for trying it out
    heavy: bool = False  # hours of CPU, large data or a model: `run` asks for --heavy before running it
    results: str | None = None  # the JSON figures the command saves beside the page
    aims: list[Aim] = []
    note: str | None = None

    def modules(self) -> list[str]:
        """The ``python -m MODULE`` each command runs."""
        return [module_of(c) for c in self.commands + ([self.cheap] if self.cheap else [])]


class Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pages: dict[str, Page]


def load(path: Path = MANIFEST) -> Manifest:
    return Manifest.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def module_of(command: str) -> str:
    """The module a manifest command runs: the word after ``python -m`` (``VAR=x`` and ``nice -n N`` before it)."""
    words = shlex.split(command)
    for i, w in enumerate(words[:-2]):
        if w == "python" and words[i + 1] == "-m":
            return words[i + 2]
    raise ValueError(f"{command!r}: not a `python -m MODULE ...` command")


def _select(items: list[dict[str, Any]], **match: Any) -> list[dict[str, Any]]:
    """The items whose keys equal ``match`` (``select(results, k=None)``)."""
    return [x for x in items if all(x.get(k) == v for k, v in match.items())]


def _get(mapping: dict[str, Any] | None, key: str, default: Any = None) -> Any:
    """``mapping[key]``, or ``default`` where the mapping or the key is absent (a store not measured)."""
    return (mapping or {}).get(key, default)


def _one(items: list[Any]) -> Any:
    """The last of ``items``; none is an error ("cannot check"), not a pass: ``all([])`` would be one."""
    if not items:
        raise IndexError("no figures match")
    return items[-1]


HELPERS: dict[str, Any] = {"all": all, "any": any, "min": min, "max": max, "len": len, "sum": sum, "abs": abs,
                           "sorted": sorted, "select": _select, "get": _get, "one": _one,
                           "None": None, "True": True, "False": False}
_NODES = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub, ast.BinOp, ast.Add, ast.Sub,
          ast.Mult, ast.Div, ast.Compare, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn,
          ast.Is, ast.IsNot, ast.Call, ast.keyword, ast.Name, ast.Load, ast.Store, ast.Constant, ast.Subscript,
          ast.Slice, ast.List, ast.Tuple, ast.GeneratorExp, ast.ListComp, ast.comprehension, ast.IfExp)


def _allowed(expr: str) -> ast.Expression:
    tree = ast.parse(expr, mode="eval")
    for node in ast.walk(tree):
        if not isinstance(node, _NODES):
            raise ValueError(f"{expr!r}: {type(node).__name__} is not allowed in an aim")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in HELPERS):
            raise ValueError(f"{expr!r}: only {sorted(k for k in HELPERS if k[0].islower())} may be called")
    return tree


Verdict = Literal["met", "not met", "no figures", "manual", "cannot check"]


def judge(aim: Aim, results: Any) -> tuple[Verdict, str]:
    """(verdict, detail) for one aim against a page's saved figures (None: none saved)."""
    if aim.check == "manual":
        return "manual", aim.why_manual or ""
    if results is None:
        return "no figures", ""
    assert aim.met is not None
    code = compile(_allowed(aim.met), "<aim>", "eval")
    try:
        # ``results`` among the globals: a generator's body is its own scope, which sees eval's globals but not its locals
        ok = eval(code, {"__builtins__": {}, **HELPERS, "results": results})  # noqa: S307 - checked nodes only
    except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError, NameError) as exc:
        return "cannot check", f"{type(exc).__name__}: {exc} (the figures lack what `met` reads)"
    return ("met" if ok else "not met"), ""


PACE_KEYS = ("pace_ns",)  # CPU ns per step of benchmarks/harness/machine.py's loop, when the figures were taken
LOAD_KEYS = ("load_start", "loadavg_start", "load")  # the 1-minute load average at the start (a number or the 3 of them)


def machine_figures(results: Any) -> dict[str, list[float]]:
    """The pace and start load a page's saved figures carry: at their top or in each item of a list (one per
    size), so ``check`` prints them beside the verdicts, since a time means little without them."""
    items = results if isinstance(results, list) else [results]
    out: dict[str, list[float]] = {"pace_ns": [], "load": []}
    for item in items:
        if not isinstance(item, dict):
            continue
        for want, keys in (("pace_ns", PACE_KEYS), ("load", LOAD_KEYS)):
            value = next((item[k] for k in keys if item.get(k) is not None), None)
            value = value[0] if isinstance(value, list) and value else value
            if isinstance(value, (int, float)):
                out[want].append(float(value))
    return out


def machine_text(results: Any) -> str:
    """``pace 884 ns, load 1.3`` (ranges where the figures hold several runs), or '' when they carry neither."""
    figures = machine_figures(results)

    def span(xs: list[float], fmt: str) -> str:
        lo, hi = format(min(xs), fmt), format(max(xs), fmt)
        return lo if lo == hi else f"{lo}-{hi}"

    parts = ([f"pace {span(figures['pace_ns'], '.0f')} ns"] if figures["pace_ns"] else []) + (
        [f"load {span(figures['load'], '.1f')}"] if figures["load"] else [])
    return ", ".join(parts)


def saved_results(page: Page, root: Path = REPO) -> Any:
    """The page's saved JSON figures, or None when the command has not saved them yet."""
    if not page.results:
        return None
    path = root / page.results
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
