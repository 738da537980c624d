"""Benchmark files -> ``Example``: one adapter per source format, chosen by content.

Several public copies are JSON *lines* although named ``.json``, two use the pandas
column layout (``{"column": {"row": value}}``), and the vws-splits files have their own
record shape. File names are never trusted: ``read_records`` sniffs the container
(JSON array / object / lines / column table) and ``detect_format`` looks at the fields.

A malformed record raises ``DataError`` naming file, line (or record) and field; with
``lenient=True`` it is skipped and counted in ``LoadResult.skipped``. Nothing is dropped
silently: the 36 MIGRES 2Wiki records without ``context`` (documented in its SOURCE.md)
are skipped as ``excluded`` and counted too.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chainret.research.qa.example import EvidenceTriple, Example, Paragraph, SubQuestion
from chainret.core.errors import DataError, UsageError

DEFAULT_SEED = 1337
SQUAD_QUESTIONS = 300
SQUAD_DISTRACTORS = 9

# Dataset name -> files under the data dir (read in order; duplicate ids keep the first copy).
DATASET_FILES: dict[str, list[str]] = {
    "hotpotqa": [
        "hotpotqa/distractor/AdelWang__MIGRES/hotpot.json",
        "hotpotqa/distractor/acmyu__CS592LLM-Project/hotpot_dev_distractor_v1_100.json",
    ],
    "hotpotqa-vws": ["vws-splits/hotpotqa.jsonl"],
    "hotpotqa-vws-calib": ["vws-splits/calib.jsonl"],
    "2wiki": [
        "2wikimultihopqa/saptarshi059__TTS-project/sampled_ds.json",
        "2wikimultihopqa/AdelWang__MIGRES/wikihop.json",
    ],
    "2wiki-vws": ["vws-splits/2wiki.jsonl"],
    "musique": [
        "musique/AdelWang__MIGRES/musique.json",
        "musique/OpenSPG__KAG/musique_qa_100.json",
    ],
    "squad": ["squad/pulakdas1999__QnA_using_BERT/dev-v1.1.json"],
}
# Question list of the whole HotpotQA dev set (question, answer, type): fills the bridge/comparison
# type the vws-splits file dropped ("?"), matched by exact question text.
HOTPOT_TYPES_FILE = "hotpotqa/reference_qa_only/ysymyth__ReAct/hotpot_dev_v1_simplified.json"

DATASETS = tuple(DATASET_FILES)


@dataclass
class Skipped:
    source: str  # "file:line" or "file:record N"
    reason: str
    kind: str = "malformed"  # "malformed" (lenient) or "excluded" (known-incomplete source record)


@dataclass
class LoadResult:
    examples: list[Example]
    skipped: list[Skipped] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    dataset: str = ""
    duplicates: int = 0  # records whose id was already read from an earlier file (identical copies)


def default_data_dir() -> Path:
    """``$CHAINRET_DATA_DIR``; there is no default folder (pass ``data_dir`` / ``--data-dir`` otherwise)."""
    env = os.environ.get("CHAINRET_DATA_DIR")
    if env:
        return Path(env)
    raise UsageError("no benchmark data folder: pass --data-dir (data_dir=) or set CHAINRET_DATA_DIR "
                     "to the folder holding the datasets")


# ----------------------------------------------------------------------------- containers


@dataclass
class Record:
    loc: str  # "file:line 3" / "file:record 3" / "file:row 17"
    data: dict[str, Any]


def read_records(path: Path) -> tuple[str, list[Record] | dict[str, Any]]:
    """Sniff the container and return ``(layout, records)``.

    layout is "array", "lines", "columns" or "squad" (the squad document is returned whole).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(f"{path}: file not found (set --data-dir or CHAINRET_DATA_DIR)") from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        doc = None
        is_lines = True
    else:
        is_lines = False
    if is_lines:
        recs: list[Record] = []
        for i, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{path}:{i}: invalid JSON ({exc.msg} at column {exc.colno})") from None
            if not isinstance(obj, dict):
                raise DataError(f"{path}:{i}: expected a JSON object per line, got {type(obj).__name__}")
            recs.append(Record(f"{path}:{i}", obj))
        return "lines", recs
    if isinstance(doc, list):
        out = []
        for i, obj in enumerate(doc):
            if not isinstance(obj, dict):
                raise DataError(f"{path}: record {i}: expected an object, got {type(obj).__name__}")
            out.append(Record(f"{path}: record {i}", obj))
        return "array", out
    if isinstance(doc, dict):
        if "data" in doc and "version" in doc:
            return "squad", doc
        if "question" in doc and isinstance(doc["question"], dict):
            return "columns", _columns_to_records(path, doc)
        if "question" in doc:  # a single record: a one-line JSON-lines file, or one object
            one_line = "\n" not in text.strip()
            return ("lines", [Record(f"{path}:1", doc)]) if one_line else ("array", [Record(f"{path}: record 0", doc)])
    raise DataError(f"{path}: unrecognised layout (not a JSON array, JSON lines, pandas column table or SQuAD document)")


def _columns_to_records(path: Path, table: dict[str, Any]) -> list[Record]:
    """pandas ``to_json(orient='columns')`` -> records; column ``_1`` holds the dataset ``_id``."""
    out = []
    for col, values in table.items():
        if not isinstance(values, dict):
            raise DataError(f"{path}: column '{col}' is not a {{row: value}} mapping")
    for row in table["question"]:
        rec = {col: values.get(row) for col, values in table.items() if row in values}
        if "_1" in rec and "_id" not in rec:
            rec["_id"] = rec.pop("_1")
            rec.pop("id", None)  # the row index in the official dev file; not the question id
        out.append(Record(f"{path}: row {row}", rec))
    return out


def detect_format(rec: dict[str, Any]) -> str:
    """Record shape -> adapter name. Field sets, not file names, decide."""
    keys = set(rec)
    if "question_decomposition" in keys and "paragraphs" in keys:
        return "musique"
    if "qid" in keys and "paragraphs" in keys:
        return "vws"
    if "evidences" in keys:
        return "2wiki"
    if "supporting_facts" in keys and "context" in keys:
        return "hotpotqa"
    raise DataError(
        "cannot tell the format of a record with fields "
        f"{sorted(keys)[:12]}: expected HotpotQA (context, supporting_facts), 2Wiki (… evidences), "
        "MuSiQue (paragraphs, question_decomposition) or vws-splits (qid, paragraphs)"
    )


# ----------------------------------------------------------------------------- field checks


def _get(rec: dict[str, Any], loc: str, key: str, typ: type | tuple[type, ...]) -> Any:
    if key not in rec:
        raise DataError(f"{loc}: missing field '{key}'")
    val = rec[key]
    if not isinstance(val, typ):
        want = typ.__name__ if isinstance(typ, type) else "/".join(t.__name__ for t in typ)
        raise DataError(f"{loc}: field '{key}' should be {want}, got {type(val).__name__}")
    return val


def _str_list(val: Any, loc: str, key: str) -> list[str]:
    if not isinstance(val, list) or not all(isinstance(s, str) for s in val):
        raise DataError(f"{loc}: field '{key}' should be a list of strings")
    return val


def _ref(dataset: str, qid: str, idx: int) -> str:
    return f"{dataset}:{qid}#p{idx}"


_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“'(])")


def split_sentences(text: str) -> list[str]:
    """Simple sentence split for formats that kept only joined text (vws-splits, MuSiQue, SQuAD)."""
    parts = [s.strip() for s in _SENT_SPLIT.split(text.strip())]
    return [s for s in parts if s] or [text.strip()]


# ----------------------------------------------------------------------------- adapters


def _hotpot_like(rec: dict[str, Any], loc: str, dataset: str) -> Example:
    qid = str(_get(rec, loc, "_id", str))
    question = _get(rec, loc, "question", str)
    answer = _get(rec, loc, "answer", str)
    ctx = _get(rec, loc, "context", list)
    sfs = _get(rec, loc, "supporting_facts", list)
    support: dict[str, list[int]] = {}
    for j, sf in enumerate(sfs):
        if not (isinstance(sf, list) and len(sf) == 2 and isinstance(sf[0], str) and isinstance(sf[1], int)):
            raise DataError(f"{loc}: field 'supporting_facts[{j}]' should be [title, sentence index]")
        support.setdefault(sf[0], []).append(sf[1])
    paragraphs = []
    for i, item in enumerate(ctx):
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
            raise DataError(f"{loc}: field 'context[{i}]' should be [title, [sentences]]")
        title, sents = item
        sents = _str_list(sents, loc, f"context[{i}][1]")
        gold = title in support
        paragraphs.append(
            Paragraph(
                idx=i,
                ref=_ref(dataset, qid, i),
                title=title,
                sentences=[s.strip() for s in sents],
                is_gold=gold,
                supporting_sentences=sorted(set(support[title])) if gold else None,
            )
        )
    missing = [t for t in support if t not in {p.title for p in paragraphs}]
    if missing:
        raise DataError(f"{loc}: field 'supporting_facts' names title {missing[0]!r} absent from 'context'")
    qtype = rec.get("type")
    meta = {"level": str(rec["level"])} if "level" in rec else {}
    evidences = None
    hops: int | None = 2
    if dataset == "2wiki":
        evs = _get(rec, loc, "evidences", list)
        evidences = []
        for j, ev in enumerate(evs):
            if not (isinstance(ev, list) and len(ev) == 3 and all(isinstance(x, str) for x in ev)):
                raise DataError(f"{loc}: field 'evidences[{j}]' should be [subject, relation, object]")
            evidences.append(EvidenceTriple(subject=ev[0], relation=ev[1], object=ev[2]))
        hops = len(evidences) or None
    return Example(
        id=qid,
        dataset=dataset,
        question=question,
        answers=[answer],
        paragraphs=paragraphs,
        qtype=str(qtype) if qtype is not None else None,
        hops=hops,
        evidences=evidences,
        source=loc,
        meta=meta,
    )


def _musique(rec: dict[str, Any], loc: str, dataset: str) -> Example:
    qid = _get(rec, loc, "id", str)
    question = _get(rec, loc, "question", str)
    answer = _get(rec, loc, "answer", str)
    aliases = _str_list(rec.get("answer_aliases", []), loc, "answer_aliases")
    paras = _get(rec, loc, "paragraphs", list)
    paragraphs = []
    pos_of: dict[int, int] = {}
    for i, p in enumerate(paras):
        ploc = f"{loc}: paragraphs[{i}]"
        if not isinstance(p, dict):
            raise DataError(f"{ploc}: should be an object")
        text = _get(p, ploc, "paragraph_text", str)
        pidx = _get(p, ploc, "idx", int)
        pos_of[pidx] = i
        paragraphs.append(
            Paragraph(
                idx=i,
                ref=_ref(dataset, qid, i),
                title=_get(p, ploc, "title", str),
                sentences=split_sentences(text),
                is_gold=bool(_get(p, ploc, "is_supporting", bool)),
            )
        )
    decomposition = []
    for j, step in enumerate(_get(rec, loc, "question_decomposition", list)):
        sloc = f"{loc}: question_decomposition[{j}]"
        if not isinstance(step, dict):
            raise DataError(f"{sloc}: should be an object")
        sup = step.get("paragraph_support_idx")
        if sup is not None and (not isinstance(sup, int) or sup not in pos_of):
            raise DataError(f"{sloc}: field 'paragraph_support_idx' = {sup!r} is not a paragraph idx")
        decomposition.append(
            SubQuestion(
                question=_get(step, sloc, "question", str),
                answer=_get(step, sloc, "answer", str),
                paragraph_idx=pos_of[sup] if sup is not None else None,
            )
        )
    answers = [answer] + [a for a in aliases if a != answer]
    return Example(
        id=qid,
        dataset=dataset,
        question=question,
        answers=answers,
        paragraphs=paragraphs,
        qtype=qid.split("__")[0] if "__" in qid else None,
        hops=len(decomposition) or None,
        decomposition=decomposition or None,
        source=loc,
        meta={"answerable": str(rec.get("answerable", ""))},
    )


def _vws(rec: dict[str, Any], loc: str, dataset: str) -> Example:
    qid = _get(rec, loc, "qid", str)
    paragraphs = []
    for i, p in enumerate(_get(rec, loc, "paragraphs", list)):
        ploc = f"{loc}: paragraphs[{i}]"
        if not isinstance(p, dict):
            raise DataError(f"{ploc}: should be an object")
        title = _get(p, ploc, "title", str)
        text = _get(p, ploc, "text", str)
        prefix = f"{title}."
        body = text[len(prefix) :].strip() if text.startswith(prefix) else text  # title is re-added by passage()
        paragraphs.append(
            Paragraph(
                idx=i,
                ref=_ref(dataset, qid, i),
                title=title,
                sentences=split_sentences(body) if body else [],
                is_gold=bool(_get(p, ploc, "is_gold", bool)),
            )
        )
    qtype = rec.get("qtype")
    meta = {"level": str(rec["level"])} if "level" in rec else {}
    hops = rec.get("n_hops")
    return Example(
        id=qid,
        dataset=dataset,
        question=_get(rec, loc, "question", str),
        answers=[_get(rec, loc, "answer", str)],
        paragraphs=paragraphs,
        qtype=None if qtype in (None, "?") else str(qtype),
        hops=hops if isinstance(hops, int) else 2,
        source=loc,
        meta=meta,
    )


ADAPTERS: dict[str, Callable[[dict[str, Any], str, str], Example]] = {
    "hotpotqa": _hotpot_like,
    "2wiki": _hotpot_like,
    "musique": _musique,
    "vws": _vws,
}


def passage(p: Paragraph) -> str:
    """The text a signal scores: ``"<title>. <text>"``, the vws-splits (seed 000) convention."""
    return f"{p.title}. {p.text}" if p.title else p.text


# ----------------------------------------------------------------------------- loading


def iter_file(
    path: Path, dataset: str, *, lenient: bool, skipped: list[Skipped]
) -> Iterator[Example]:
    """Every ``Example`` in one file of HotpotQA / 2Wiki / MuSiQue / vws-splits shape."""
    layout, recs = read_records(path)
    if layout == "squad":
        raise DataError(f"{path}: a SQuAD document; load it as dataset 'squad'")
    assert isinstance(recs, list)
    fmt = file_format(path, recs)
    for rec in recs:
        try:
            if fmt == "2wiki" and "context" not in rec.data and ("qa_pairs" in rec.data or "explanation" in rec.data):
                # MIGRES replaced context with its own fields in 36 records (SOURCE.md): not usable for retrieval.
                skipped.append(Skipped(rec.loc, "no 'context' (MIGRES replaced it with explanation/qa_pairs)", "excluded"))
                continue
            yield ADAPTERS[fmt](rec.data, rec.loc, dataset)
        except DataError as exc:
            msg = str(exc) if str(exc).startswith(str(path)) else f"{rec.loc}: {exc}"
            if not lenient:
                raise DataError(msg + " (use --lenient to skip malformed records)") from None
            skipped.append(Skipped(rec.loc, msg))
        except ValueError as exc:  # pydantic validation inside Example
            msg = f"{rec.loc}: {str(exc).splitlines()[0]}"
            if not lenient:
                raise DataError(msg) from None
            skipped.append(Skipped(rec.loc, msg))


def file_format(path: Path, recs: list[Record]) -> str:
    """The adapter for a file: the format of its first recognisable record, so one malformed
    record (say, missing ``context``) is reported against its field, not as an unknown format."""
    first_err: DataError | None = None
    for rec in recs:
        try:
            return detect_format(rec.data)
        except DataError as exc:
            first_err = first_err or DataError(f"{rec.loc}: {exc}")
    raise first_err or DataError(f"{path}: no records")


def _detectable(rec: dict[str, Any]) -> bool:
    try:
        detect_format(rec)
    except DataError:
        return False
    return True


def _format_dataset(fmt: str, rec: dict[str, Any]) -> str:
    if fmt == "vws":
        return "2wiki" if "qtype" in rec and rec.get("qtype") not in (None, "?") else "hotpotqa"
    return fmt


def _sample(examples: list[Example], n: int | None, seed: int) -> list[Example]:
    if n is None or n >= len(examples):
        return examples
    if n < 1:
        raise UsageError(f"--n must be at least 1, got {n}")
    keep = sorted(random.Random(seed).sample(range(len(examples)), n))
    return [examples[i] for i in keep]


def load_examples(
    dataset: str,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    n: int | None = None,
    seed: int = DEFAULT_SEED,
    split: str = "dev",
    lenient: bool = False,
) -> LoadResult:
    """Load a benchmark by name (see ``DATASETS``) or from a file path (format sniffed).

    Args:
        dataset: "hotpotqa" (300 distractor records), "hotpotqa-vws" (the paper's 500),
            "hotpotqa-vws-calib" (200), "2wiki" (657), "2wiki-vws" (500), "musique" (292),
            "squad" (300 questions, nine same-article distractors each), or a path to a file.
        n: sample this many questions, deterministically with ``seed`` (file order kept).
        split: only "dev" exists here (all sources are dev-set records).
        lenient: skip malformed records (counted in ``skipped``) instead of raising ``DataError``.
    """
    if split != "dev":
        raise UsageError(f"split {split!r} is not available: every benchmark file here is a dev-set copy (use 'dev')")
    root = Path(data_dir) if data_dir is not None else default_data_dir()
    skipped: list[Skipped] = []
    if dataset == "squad":
        path = root / DATASET_FILES["squad"][0]
        examples = load_squad(path, n=n or SQUAD_QUESTIONS, seed=seed)
        return LoadResult(examples, skipped, [e.id for e in examples], [str(path)], "squad")
    if dataset in DATASET_FILES:
        paths = [root / rel for rel in DATASET_FILES[dataset]]
        name = dataset.removesuffix("-calib").removesuffix("-vws")
    elif Path(dataset).is_file():
        paths = [Path(dataset)]
        name = ""
    else:
        raise UsageError(f"unknown dataset {dataset!r}; valid: {', '.join(DATASETS)} (or a path to a data file)")
    examples = []
    seen: set[str] = set()
    dups = 0
    for path in paths:
        file_name = name
        if not file_name:  # a bare path: the dataset name follows from the content
            layout, recs = read_records(path)
            if layout == "squad":
                raise UsageError(f"{path}: a SQuAD document; use dataset 'squad' with --data-dir")
            assert isinstance(recs, list)
            fmt = file_format(path, recs)
            first = next(r.data for r in recs if _detectable(r.data))
            file_name = _format_dataset(fmt, first)
        for ex in iter_file(path, file_name, lenient=lenient, skipped=skipped):
            if ex.id in seen:
                dups += 1
                continue
            seen.add(ex.id)
            examples.append(ex)
    if dataset.startswith("hotpotqa-vws"):
        examples = _fill_hotpot_types(examples, root)
    examples = _sample(examples, n, seed)
    return LoadResult(examples, skipped, [e.id for e in examples], [str(p) for p in paths], dataset, dups)


def _fill_hotpot_types(examples: list[Example], root: Path) -> list[Example]:
    """vws-splits kept no bridge/comparison label; take it from the dev question list when present."""
    ref = root / HOTPOT_TYPES_FILE
    if not ref.is_file():
        return examples
    try:
        types = {r["question"]: r["type"] for r in json.loads(ref.read_text(encoding="utf-8"))}
    except (json.JSONDecodeError, KeyError, TypeError):
        raise DataError(f"{ref}: expected a JSON array of {{question, answer, type}} records") from None
    out = []
    for ex in examples:
        t = types.get(ex.question)
        out.append(ex.model_copy(update={"qtype": t, "meta": {**ex.meta, "qtype_from": "reference_qa_only"}}) if t and ex.qtype is None else ex)
    return out


def load_squad(path: Path, *, n: int = SQUAD_QUESTIONS, seed: int = DEFAULT_SEED) -> list[Example]:
    """SQuAD v1.1 single-hop control: ``n`` questions, each with nine distractor paragraphs
    drawn from the same article (hard negatives), candidate order shuffled; all by ``seed``."""
    layout, doc = read_records(path)
    if layout != "squad" or not isinstance(doc, dict):
        raise DataError(f"{path}: not a SQuAD v1.1 document (expected {{'data': [...], 'version': ...}})")
    pool: list[tuple[int, int, dict[str, Any]]] = []
    articles = _get(doc, str(path), "data", list)
    for a, art in enumerate(articles):
        aloc = f"{path}: data[{a}]"
        paras = _get(art, aloc, "paragraphs", list)
        if len(paras) <= SQUAD_DISTRACTORS:
            continue
        for p, para in enumerate(paras):
            for qa in _get(para, f"{aloc}.paragraphs[{p}]", "qas", list):
                pool.append((a, p, qa))
    rng = random.Random(seed)
    chosen = sorted(rng.sample(range(len(pool)), min(n, len(pool))))
    out = []
    for k in chosen:
        a, p, qa = pool[k]
        art = articles[a]
        qloc = f"{path}: data[{a}].paragraphs[{p}].qas"
        qid = _get(qa, qloc, "id", str)
        others = [i for i in range(len(art["paragraphs"])) if i != p]
        cand = rng.sample(others, SQUAD_DISTRACTORS) + [p]
        rng.shuffle(cand)
        answers: list[str] = []
        for ans in _get(qa, qloc, "answers", list):
            t = _get(ans, qloc, "text", str).strip()
            if t and t not in answers:
                answers.append(t)
        paragraphs = [
            Paragraph(
                idx=i,
                ref=_ref("squad", qid, i),
                title=str(art.get("title", "")).replace("_", " "),
                sentences=split_sentences(_get(art["paragraphs"][pi], qloc, "context", str)),
                is_gold=pi == p,
            )
            for i, pi in enumerate(cand)
        ]
        out.append(
            Example(
                id=qid,
                dataset="squad",
                question=_get(qa, qloc, "question", str),
                answers=answers,
                paragraphs=paragraphs,
                qtype="single",
                hops=1,
                source=f"{path}: data[{a}].paragraphs[{p}]",
                meta={"article": str(art.get("title", ""))},
            )
        )
    return out
