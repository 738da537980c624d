"""Score ``chainret ask`` on a newcomer question set and write its page under docs/results/.

    python -m benchmarks.newcomer_score            # print the table, write docs/results/newcomer.md
    python -m benchmarks.newcomer_score --check    # exit 1 if the page is stale
    python -m benchmarks.newcomer_score --show     # also print every question that is not right
    python -m benchmarks.newcomer_score --pass-views  # also pass a dated question's date as the view
    python -m benchmarks.newcomer_score --example examples/newcomer2 [--check] [--show]
                                                   # the test half: docs/results/newcomer2.md

examples/newcomer holds a team's Backstage + CODEOWNERS repository (``make_repo.py``, five dated
commits) and 80 questions about it in a newcomer's own words (``questions.yaml``), written from the
records alone before chainret's phrasings were read. This script builds the repository in a temporary
folder, imports its history as a user would (``chainret catalog history REPO --format backstage
--format codeowners --world newcomer``), asks every question through ``chainret.pipeline.ask.answer``
with the default budget as ``public`` (a question whose words carry its date is asked in those words
alone; one whose date is only in the file is asked at that date; else at the newest commit) and scores
the whole answer set, not only the interpretation.

examples/newcomer2 is the frozen test half, written blind the same way (90 questions, six commits; never
tuned on). Its question file has ``asked_on`` (the day the questions are taken to be asked) and no
question has a ``view``: a question's time is in its words only, and every question is asked at the
newest commit, with ``asked_on`` passed as ``today`` (the reference day of relative words such as "last
month"). Its ``header/`` folder (a ``--src`` header) makes a file restricted. examples/newcomer3,
examples/newcomer4, examples/newcomer5, examples/newcomer6, examples/newcomer7, examples/newcomer8, examples/newcomer9, examples/newcomer10 and examples/newcomer11 are development halves written blind the same way
(``asked_on``, a header; tuned on); their pages say so (``TEST_HALF`` names the test half). The page is ``docs/results/<example folder>.md``. The verdicts:

- right: accepted and the answer set equals the expected set (a must-refuse question: not accepted);
- partial: accepted, the trace's ``completeness`` says the set is incomplete, and every member given
  is expected (what it gave is true, but it is not the answer);
- wrong: accepted with another set (or an incomplete set with a member that is not expected), or
  accepted where the question must be refused;
- missed: not accepted (refused, no pattern, partial evidence, or an error) where an answer exists.

The answer set is the trace's ``answers`` (a set answer, trace schema 1.1) where present, else the
last ID of ``path_ids``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import importlib.util
import sys
import tempfile
import time
from collections import Counter

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, model_validator

ROOT = Path(__file__).resolve().parents[1]

from benchmarks.harness.page import results_path  # noqa: E402
from chainret.authoring.output import sync_command  # noqa: E402
from chainret.core.errors import ChainretError  # noqa: E402

if TYPE_CHECKING:
    from chainret.store.base import CatalogReader

EXAMPLE = ROOT / "examples" / "newcomer"
QUESTIONS = EXAMPLE / "questions.yaml"
PAGE = ROOT / "docs" / "results" / "newcomer.md"
COMMAND = "python -m benchmarks.newcomer_score"
WORLD = "newcomer"
# The frozen test half: scored, never tuned on. Every other example with ``asked_on`` is a development half.
TEST_HALF = ROOT / "examples" / "newcomer2"


@dataclass(frozen=True)
class Example:
    """One newcomer example folder: ``make_repo.py``, ``questions.yaml``, optionally a ``header/``
    (a ``--src`` header: visibility the records do not say). Its page is named after the folder."""

    folder: Path = EXAMPLE

    @property
    def questions(self) -> Path:
        return self.folder / "questions.yaml"

    @property
    def page(self) -> Path:
        return ROOT / "docs" / "results" / f"{self.folder.name}.md"

    @property
    def rel(self) -> str:
        return self.folder.relative_to(ROOT).as_posix()

    @property
    def command(self) -> str:
        return COMMAND if self.folder == EXAMPLE else f"{COMMAND} --example {self.rel}"

    @property
    def header(self) -> Path | None:
        folder = self.folder / "header"
        return folder if (folder / "chainret.yaml").is_file() else None


DEFAULT = Example()

Kind = Literal["single", "set", "two_hop_set", "as_of", "coverage", "must_refuse"]
KINDS: tuple[str, ...] = ("single", "set", "two_hop_set", "as_of", "coverage", "must_refuse")
Verdict = Literal["right", "partial", "wrong", "missed"]


class Question(BaseModel):
    """One question of ``questions.yaml``: an expected ID set, or ``refuse: true``, never both."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    kind: Kind
    question: str
    view: str | None = None
    expected: tuple[str, ...] | None = None
    refuse: bool = False

    @model_validator(mode="after")
    def _one_answer(self) -> Question:
        if self.refuse == (self.expected is not None):
            raise ValueError(f"question {self.id}: give either expected IDs or refuse: true")
        if (self.kind == "must_refuse") != self.refuse:
            raise ValueError(f"question {self.id}: refuse: true goes with kind must_refuse, and only with it")
        if self.expected is not None and (not self.expected or len(set(self.expected)) != len(self.expected)):
            raise ValueError(f"question {self.id}: expected must list distinct IDs")
        return self


class QuestionSet(BaseModel):
    """The question file. ``asked_on``: the day the questions are taken to be asked, the reference of
    their relative phrases ("last November"); a set that has it says its times in words only, so no
    question may carry a ``view`` (the scorer would otherwise do the engine's reading for it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    world: str
    asked_on: dt.date | None = None
    questions: tuple[Question, ...]

    @model_validator(mode="after")
    def _unique_ids(self) -> QuestionSet:
        ids = [q.id for q in self.questions]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"question IDs repeated: {', '.join(dup)}")
        if self.asked_on is not None:
            viewed = [q.id for q in self.questions if q.view is not None]
            if viewed:
                raise ValueError(f"a set with asked_on says its times in words: no view, found on {', '.join(viewed)}")
        return self


class Result(BaseModel):
    model_config = ConfigDict(frozen=True)

    question: Question
    verdict: Verdict
    got: tuple[str, ...] = ()  # the answer set (sorted), empty when not accepted
    why: str = ""  # for people: the refusal, the pattern read, what was incomplete
    code: str = ""  # why it was not accepted: the outcome and refusal code (or the error type)


def load_questions(path: Path = QUESTIONS) -> QuestionSet:
    """``questions.yaml`` checked at the edge (a typed error names the file and the question)."""
    import yaml

    return QuestionSet.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def build_repo(dest: Path, example: Example = DEFAULT) -> Path:
    """The example's git repository, built by its own script (loaded by path: examples/ is no package)."""
    spec = importlib.util.spec_from_file_location(f"{example.folder.name}_make_repo", example.folder / "make_repo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.build(dest)
    return dest


def import_history(repo: Path, out: Path, world: str = WORLD, src: Path | None = None) -> Path:
    """The catalog, imported as ``chainret catalog history REPO --format backstage --format codeowners
    --world WORLD [--src HEADER] --out OUT`` does (the same two calls, in this process: no interpreter to start)."""
    from chainret.sources.history import history
    from chainret.sources.records import write_import

    res = history(repo, out / "catalog.yaml", ["backstage", "codeowners"], world=world, src=src)
    if res.result is None:
        raise SystemExit(f"{repo}: the history imported nothing")
    write_import(res.result, f"history {repo.name} --format backstage --format codeowners")
    return out / "catalog.yaml"


def build_catalog(tmp: Path, example: Example = DEFAULT) -> Path:
    world = load_questions(example.questions).world
    return import_history(build_repo(tmp / "repo", example), tmp / "catalog", world, example.header)


def score(q: Question, catalog: CatalogReader, pass_views: bool = False, today: dt.date | None = None) -> Result:
    """Ask ``q`` and judge the whole answer set against what it expects.

    A question whose words carry its date ("on 2025-12-01") is asked with those words alone: chainret reads
    the time from them. ``pass_views`` (``--pass-views``) also passes the question's date as the view.
    ``today``: the reference day of relative time words (a question set's ``asked_on``)."""
    from chainret.pipeline.ask import answer
    from chainret.query.when import read_time

    try:
        said = read_time(q.question, today or dt.date.today()) is not None
        reply = answer(q.question, catalog, view=q.view if pass_views or not said else None, today=today)
    except ChainretError as exc:  # e.g. a date before the first commit: no view to answer in
        verdict: Verdict = "right" if q.refuse else "missed"
        return Result(question=q, verdict=verdict, why=f"error {type(exc).__name__}: {exc}", code=type(exc).__name__)
    trace = reply.trace
    pattern = trace.interpretation.pattern if trace.interpretation else None
    if trace.outcome != "accepted_path":
        why = f"{trace.outcome}"
        if trace.reason is not None:
            why += f" ({trace.reason.code}): {trace.reason.message}"
        if pattern:
            why += f"; read as pattern `{pattern}`"
        if reply.suggestions:
            why += f"; closest phrasing: {reply.suggestions[0][1]!r}"
        code = f"{trace.outcome}/{trace.reason.code}" if trace.reason is not None else trace.outcome
        return Result(question=q, verdict="right" if q.refuse else "missed", why=why, code=code)
    got = sorted({a.id for a in trace.answers} if trace.answers else {trace.path_ids[-1]} if trace.path_ids else set())
    why = f"read as pattern `{pattern}` from {trace.interpretation.start_id if trace.interpretation else '?'}"
    complete = trace.completeness.complete if trace.completeness is not None else True
    if trace.completeness is not None and not complete:
        why += "; incomplete: " + ("; ".join(trace.completeness.reasons) or "no reason given")
    if q.refuse:
        return Result(question=q, verdict="wrong", got=tuple(got), why=why)
    expected = set(q.expected or ())
    if complete and set(got) == expected:
        return Result(question=q, verdict="right", got=tuple(got), why=why)
    if not complete and set(got) <= expected:
        return Result(question=q, verdict="partial", got=tuple(got), why=why)
    return Result(question=q, verdict="wrong", got=tuple(got), why=why)


def run(catalog_file: Path, questions: Iterable[Question], pass_views: bool = False, today: dt.date | None = None) -> list[Result]:
    from chainret.store import resolve_catalog

    catalog = resolve_catalog(str(catalog_file))  # opened once, asked 80 times
    return [score(q, catalog, pass_views, today) for q in questions]


def tally(results: list[Result]) -> dict[str, dict[str, int]]:
    tab: dict[str, dict[str, int]] = {}
    for kind in (*KINDS, "all"):
        rows = [r for r in results if kind in ("all", r.question.kind)]
        tab[kind] = {"n": len(rows), **{v: sum(r.verdict == v for r in rows) for v in ("right", "partial", "wrong", "missed")}}
    return tab


def table(tab: dict[str, dict[str, int]]) -> list[str]:
    lines = ["| kind | questions | right | partial | wrong | missed |", "|---|---|---|---|---|---|"]
    for kind, c in tab.items():
        name = "**all**" if kind == "all" else kind
        lines.append(f"| {name} | {c['n']} | {c['right']} | {c['partial']} | {c['wrong']} | {c['missed']} |")
    return lines


def _short(i: str, world: str = WORLD) -> str:
    """``group:newcomer:default.team-web`` -> ``group:team-web`` (the page stays readable)."""
    kind, _, rest = i.partition(f":{world}:")
    return f"{kind}:{rest.removeprefix('default.')}" if rest else i


def _ids(ids: Iterable[str], world: str = WORLD) -> str:
    shown = sorted(_short(i, world) for i in ids)
    return ", ".join(shown) if shown else "nothing"


def miss_line(r: Result, world: str = WORLD) -> str:
    q = r.question
    at = f" (as of {q.view})" if q.view else ""
    want = "a refusal" if q.refuse else _ids(q.expected or (), world)
    got = _ids(r.got, world) if r.got else "no answer"
    return f"**{r.verdict}** `{q.id}` ({q.kind}){at}: \"{q.question}\" expected {want}; got {got}. {r.why}"


def _about_development_half(qs: QuestionSet, example: Example, n: int) -> list[str]:
    """The opening of a page for a development half whose times are in its words (``asked_on``): its
    world and header are told by the example's own README, not typed here a second time."""
    return [
        f"[{example.rel}](../../{example.rel}/README.md) is a **development** half of the newcomer sets (its",
        "misses may be read and rules tuned on it; [examples/newcomer2](newcomer2.md) is the frozen test half):",
        f"a Backstage + CODEOWNERS repository with dated commits and {n} questions about it in everyday words,",
        "written blind and committed before this script first ran; its README says what the world is and how",
        "the questions were written. A question is only ever changed to fix a fact, in a commit of its own.",
        "",
        "The script builds the repository, imports its history with `chainret catalog history REPO --format",
        f"backstage --format codeowners --world {qs.world} --src {example.rel}/header` (the header makes one",
        "file readable by one principal only; the README names it), and asks each question through",
        "`chainret.pipeline.ask.answer` as `public` with the default budget, **at the newest commit**: a",
        "question's time is in its words only, and reading it is the engine's job, so no question passes a",
        f"view. The relative phrases are read against {qs.asked_on.isoformat() if qs.asked_on else 'today'} "
        "(`asked_on` in the question file, passed to",
        "`answer` as `today`).",
        "",
    ]


def _about_test_half(qs: QuestionSet, example: Example, n: int) -> list[str]:
    """The opening of the test half's page (examples/newcomer2, ``asked_on``: dates in words)."""
    return [
        f"[{example.rel}](../../{example.rel}/README.md) is the frozen **test** half of the newcomer sets",
        "([examples/newcomer](newcomer.md) is the development half): a ferry operator's Backstage + CODEOWNERS",
        f"repository with six dated commits and {n} questions about it in everyday words, written blind (from",
        "the example's `make_repo.py` alone, before chainret's phrasings, lexicon or interpretation code, the",
        "first newcomer set or any request set were read) and committed before this script first ran. It is",
        "scored, never tuned on; a question is only ever changed to fix a fact, in a commit of its own.",
        "",
        "The script builds the repository, imports its history with `chainret catalog history REPO --format",
        f"backstage --format codeowners --world {qs.world} --src {example.rel}/header` (the header makes one",
        "file, a contractor's profile, readable by `people-ops` only), and asks each question through",
        "`chainret.pipeline.ask.answer` as `public` with the default budget, **at the newest commit**: a",
        "question's time is in its words only (\"as of 1 October 2025\", \"back in December\", \"three months",
        "ago\"), and reading it is the engine's job, so no question passes a view. The relative phrases are",
        f"read against {qs.asked_on.isoformat() if qs.asked_on else 'today'} (`asked_on` in the question file, passed to",
        "`answer` as `today`).",
        "",
    ]


def page(results: list[Result], example: Example = DEFAULT, qs: QuestionSet | None = None) -> str:
    """The page: the default set's (dates as views), or an ``asked_on`` set's (dates in words): the test half's or a
    development half's."""
    if qs is not None and qs.asked_on is not None:
        return _page_test_half(results, example, qs)
    misses = [r for r in results if r.verdict != "right"]
    world = qs.world if qs is not None else WORLD
    out = [
        "# A newcomer's questions (examples/newcomer)",
        "",
        f"Generated by `{COMMAND}`; do not edit by hand.",
        "",
        "[examples/newcomer](../../examples/newcomer/README.md) is a team's Backstage + CODEOWNERS repository",
        "with five dated commits and 80 questions about it in everyday words, written from the records alone",
        "before chainret's phrasings, lexicon or request sets were read, and committed before this script first",
        "ran (no question was changed after). The script builds the repository, imports its history with",
        f"`chainret catalog history REPO --format backstage --format codeowners --world {WORLD}`, and asks each",
        "question through `chainret.pipeline.ask.answer` as `public` with the default budget. A question whose",
        "words carry its date (\"on 2025-12-01\", \"back in November 2025\") is asked in those words alone: chainret",
        "reads the time and answers at the last commit on or before it. Other questions are asked at the newest commit.",
        "",
        *_verdicts_and_table(results),
    ]
    if misses:
        out += ["## Every question that is not right", "",
                "IDs shortened to `kind:name` (all in namespace `default` of world `newcomer`).", ""]
        out += [f"- {miss_line(r, world)}" for r in misses] + [""]
    return _end(out, results)


def _verdicts_and_table(results: list[Result]) -> list[str]:
    return [
        "The whole answer set is scored (the trace's `answers`, else the end of `path_ids`): *right*: accepted",
        "and equal to the expected set, or, for a must-refuse question, not accepted; *partial*: accepted, the",
        "trace says its set is incomplete, and every member given is expected; *wrong*: accepted with another",
        "set, or accepted where it must refuse; *missed*: not accepted where the records hold an answer.",
        "",
        *table(tally(results)),
        "",
    ]


def _page_test_half(results: list[Result], example: Example, qs: QuestionSet) -> str:
    if example.folder == TEST_HALF:
        title, about = f"# A second newcomer's questions, the test half ({example.rel})", _about_test_half
    else:
        title, about = f"# A newcomer's questions, a development half ({example.rel})", _about_development_half
    out = [title, "", f"Generated by `{example.command}`; do not edit by hand.", "",
           *about(qs, example, len(results)), *_verdicts_and_table(results)]
    misses = [r for r in results if r.verdict != "right"]
    if misses:
        out += ["## Every question that is not right", "",
                f"IDs shortened to `kind:name` (world `{qs.world}`; namespace `default` left out, `ops.` kept).", ""]
        out += [f"- {miss_line(r, qs.world)}" for r in misses] + [""]
    return _end(out, results)


def _end(out: list[str], results: list[Result]) -> str:
    missed = Counter(r.code for r in results if r.verdict == "missed")
    if missed:
        out += ["Why the missed questions were not answered (outcome/refusal code):", "",
                "| outcome/code | missed |", "|---|---|"]
        out += [f"| {code} | {n} |" for code, n in sorted(missed.items(), key=lambda kv: (-kv[1], kv[0]))] + [""]
    return "\n".join(out).rstrip() + "\n"


def parse_example(given: str | None) -> Example:
    """``--example FOLDER`` (relative to the repository root, or absolute): the example it names."""
    if given is None:
        return DEFAULT
    folder = (ROOT / given).resolve()
    if not (folder / "questions.yaml").is_file() or not (folder / "make_repo.py").is_file():
        raise SystemExit(f"--example {given}: expected a folder with make_repo.py and questions.yaml")
    if not folder.is_relative_to(ROOT):
        raise SystemExit(f"--example {given}: expected a folder inside the repository (its page is generated)")
    return Example(folder)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.newcomer_score", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--example", metavar="FOLDER", help="an example folder (default examples/newcomer)")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if the page is stale")
    ap.add_argument("--show", action="store_true", help="also print every question that is not right")
    ap.add_argument("--pass-views", action="store_true", help="also pass a dated question's date as the view")
    args = ap.parse_args(argv)
    example = parse_example(args.example)
    qs = load_questions(example.questions)
    with tempfile.TemporaryDirectory(prefix=f"{example.folder.name}-") as tmp:
        wall, cpu = time.perf_counter(), time.process_time()
        catalog_file = build_catalog(Path(tmp), example)
        built = time.perf_counter() - wall
        results = run(catalog_file, qs.questions, args.pass_views, qs.asked_on)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    # Printed, not written to the page (timings vary by machine).
    print(f"{len(results)} questions: repository and import {built:.2f} s, all in {wall:.2f} s wall, "
          f"{cpu:.2f} s CPU in this process")
    print("\n".join(table(tally(results))))
    if args.show:
        print("\n".join("  " + miss_line(r, qs.world) for r in results if r.verdict != "right"))
    figures = {"questions": len(results), "tally": tally(results)}  # held to the manifest's aims by `python -m benchmarks check`
    texts = {example.page: page(results, example, qs), results_path(example.page): json.dumps(figures, indent=1, sort_keys=True) + "\n"}
    return sync_command(texts, ROOT, ["--check"] if args.check else [])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
