"""A seeded catalog fuzzer: hostile and careless catalog/cases files through ``validate`` and ``ask``.

``generate(root, n, seed)`` writes ``n`` fuzz cases under ``root``, one folder each, cycling
through ``CLASSES`` (deep nesting, YAML alias bombs, duplicate keys, rich markup and control
characters in values and requests, phrasings with glued slots, self-loops and cycles, huge strings,
non-UTF-8 bytes, symlink loops, special files, random structural mutations, and valid worlds asked
in careless words). Every case is three CLI steps: ``validate TARGET``, one ``ask`` in text and one
``ask --json --text-route`` with a random budget, each writing a trace.

``run_case(case)`` runs the steps in this process (``chainret.cli.main``, output captured, each
step under a SIGALRM deadline) and checks each step's output: ``check_step`` flags a traceback
(an exception that escaped ``main``), a hang (deadline hit), an exit code outside the documented
table, a raw terminal-interpretable character (ESC, C1, bidi, ...) in stdout/stderr, and in the
JSON output and trace files a budget misrecord (rows or searches used beyond the recorded budget).
``python -m benchmarks.harness.fuzz one CASE_DIR`` runs one case and prints its result as JSON: the
benchmark (``benchmarks/robustness.py``) runs each case that way in a subprocess with a wall-clock
limit and measures its peak memory; the CI slice (``tests/test_robust_fuzz.py``) runs a few dozen
in-process.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import signal
import sys
import time
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from benchmarks.harness.paths import SEED_WORLD
from chainret.catalog.models import sha256_digest
from chainret.core.textsafe import unsafe_pattern

CLASSES = (
    "deep_nesting", "alias_bomb", "duplicate_keys", "markup_values", "control_values", "glued_slot",
    "self_loop", "huge_string", "non_utf8", "symlink_loop", "special_file", "random_mutation", "valid_careless",
)
EXIT_CODES = {0, 1, 2, 3}
STEP_SECONDS = 10.0
MARKUP = ["[/]", "[bold red]loud[/]", "[link=http://evil.example]click[/link]", ":warning: :skull:", "[@click=app.bell]x[/]",
          "[/bold]", "[", "]]][[[", "\\[escaped]", "[#ff0000]red", "[blink]x"]
CONTROL = ["\x1b[31mred\x1b[0m", "\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\", "\x9b31mC1", "\u202egnp.exe",
           "\u2066iso\u2069", "bell\x07", "back\x08space", "cr\rreturn", "zero\u200bwidth", "nel\x85", "\x1bc",
           "\x1b[2J\x1b[H", "tab\tand\nnewline", "\u2028sep", "\ufeffbom", "\x7fdel"]
CARELESS = ["Which contact serves PR-84?", "which CONTACT serves pr-84", "Which contact serves PR-84 today?",
            "Which contact serves PR-7's supplier?", "Which contact serves PR‑84?", "Who is the contact for PR-84, please?",
            "Which contact serves:PR-84?", "Which contact serves Rowan?", "", "   ", "?", "PR-84", "x" * 5000,
            "Which contact serves project:final:main right now?", "who's the contact for PR-84"]


@dataclass
class FuzzCase:
    """One fuzz case: its class, folder, and the CLI steps (argv lists) to run."""

    id: str
    cls: str
    dir: str
    steps: list[list[str]]
    note: str = ""
    literal: str = ""  # a value the text ask (step 2) must show verbatim (markup shown, not interpreted)
    literal_if_answered: bool = False  # the value is the answer's name: shown only with an accepted path

    def save(self) -> None:
        Path(self.dir, "case.json").write_text(json.dumps(asdict(self), ensure_ascii=True, indent=1), encoding="utf-8")

    @classmethod
    def load(cls, folder: str | os.PathLike[str]) -> FuzzCase:
        return cls(**json.loads(Path(folder, "case.json").read_text(encoding="utf-8")))


# -- generation --------------------------------------------------------------------------------------
def _base() -> tuple[dict[str, Any], dict[str, Any]]:
    cat = yaml.safe_load((SEED_WORLD / "catalog.yaml").read_text(encoding="utf-8"))
    cases = yaml.safe_load((SEED_WORLD / "cases.yaml").read_text(encoding="utf-8"))
    return cat, cases


def _dump(data: Any, as_json: bool) -> str:
    if as_json:
        return json.dumps(data, ensure_ascii=False)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=10_000)


def _hostile(rng: random.Random, pool: list[str]) -> str:
    return "".join(rng.choice(pool) for _ in range(rng.randint(1, 3)))


def _set_doc_text(cat: dict[str, Any], index: int, text: str) -> None:
    """Replace a relation-free document's text (keeps its digest right, so only the text is hostile)."""
    doc = cat["documents"][index]
    doc["text"] = text
    doc["digest"] = sha256_digest(text)


def _handbook(cat: dict[str, Any]) -> int:
    return next(i for i, d in enumerate(cat["documents"]) if d["document"] == "operations.md")


def _add_loop(cat: dict[str, Any], hops: int, two_cycle: bool) -> None:
    """A relation from a project to itself (or a 2-cycle) with a supporting clause, and a long pattern over it."""
    a, b = "project:final:main", ("project:final:side" if two_cycle else "project:final:main")
    clauses = [f"REL {a} | linked_to | {b}"] + ([f"REL {b} | linked_to | {a}"] if two_cycle else [])
    text = "# Links\n\n" + "\n\n".join(f"Note {i}: PR-84 links onward.\n{c}" for i, c in enumerate(clauses)) + "\n"
    ref = {"source": "links", "document": "links.md", "version": "v1", "representation": "text/markdown"}
    cat["documents"].append({**ref, "title": "Links", "text": text, "digest": sha256_digest(text)})
    for i, c in enumerate(clauses):
        s, o = c[4:].split(" | ")[0], c.split(" | ")[2]
        start = text.index(c)
        cat["relations"].append({"id": f"loop-{i}", "subject": s, "predicate": "linked_to", "object": o,
                                 "support": {**ref, "digest": sha256_digest(text), "span": [start, start + len(c)], "quote": c}})
    cat["predicates"].append({"name": "linked_to", "domain": "project", "range": "project", "cardinality": "many"})
    for v in cat["views"]:
        v["documents"].append("links/links.md@v1")
    cat["patterns"].append({"name": "linked_chain", "start_type": "project", "hops": ["linked_to"] * hops,
                            "phrasings": ["what does {project} link to"]})


def _nested(depth: int, as_json: bool, kind: str) -> str:
    if kind == "list" or as_json:
        return "[" * depth + "1" + "]" * depth
    return "{a: " * depth + "1" + "}" * depth


def _bomb(levels: int, width: int) -> str:
    lines = ['format: chainret-catalog/1', 'world: final', f'l0: &l0 [{", ".join(["lol"] * width)}]']
    for k in range(1, levels):
        lines.append(f"l{k}: &l{k} [{', '.join([f'*l{k - 1}'] * width)}]")
    lines.append(f"description: *l{levels - 1}")
    return "\n".join(lines) + "\n"


def _mutate_random(rng: random.Random, cat: dict[str, Any]) -> str:
    """A random structural edit; returns what was done."""
    section = rng.choice(["entities", "documents", "relations", "views", "patterns", "predicates"])
    items = cat.get(section) or []
    if not items:
        return "no-op"
    i = rng.randrange(len(items))
    rec = items[i]
    op = rng.choice(["drop_key", "wrong_type", "dup_record", "swap_span", "null", "huge_int", "empty_list", "bad_ref"])
    if op == "drop_key" and isinstance(rec, dict) and rec:
        rec.pop(rng.choice(sorted(rec)))
    elif op == "wrong_type" and isinstance(rec, dict) and rec:
        rec[rng.choice(sorted(rec))] = rng.choice([[1, 2], {"x": 1}, 3.5, True, None, "text"])
    elif op == "dup_record":
        items.append(json.loads(json.dumps(rec)))
    elif op == "swap_span" and section == "relations":
        rec["support"]["span"] = [rec["support"]["span"][1], rec["support"]["span"][0]]
    elif op == "null":
        cat[section] = None
    elif op == "huge_int" and isinstance(rec, dict) and rec:
        rec[rng.choice(sorted(rec))] = 10 ** 4000 if rng.random() < 0.5 else -(2 ** 70)
    elif op == "empty_list":
        cat[section] = []
    elif op == "bad_ref" and section == "relations":
        rec["object"] = rng.choice(["org:final:nowhere", "not an id", "", "a:b"])
    return f"{op} {section}[{i}]"


def _request(rng: random.Random) -> str:
    return rng.choice(["Which contact serves PR-84?", "Who is the contact for PR-84?", "Which contact serves project PR-85?"])


def _budget_flags(rng: random.Random) -> list[str]:
    flags: list[str] = []
    for flag, lo, hi in (("--rows-per-hop", 1, 12), ("--max-searches", 1, 6), ("--max-rows", 1, 30),
                         ("--packet-units", 1, 6), ("--packet-chars", 10, 1200)):
        if rng.random() < 0.5:
            flags += [flag, str(rng.randint(lo, hi))]
    return flags


def generate(root: str | os.PathLike[str], n: int, seed: int = 0, *, scale: float = 1.0) -> list[FuzzCase]:
    """Write ``n`` fuzz cases under ``root`` (class ``i % len(CLASSES)``); ``scale`` shrinks huge inputs."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    return [make_case(root, i, seed, scale=scale) for i in range(n)]


def make_case(root: Path, i: int, seed: int, *, scale: float = 1.0) -> FuzzCase:
    rng = random.Random(seed * 1_000_003 + i)
    cls = CLASSES[i % len(CLASSES)]
    folder = root / f"{i:05d}-{cls}"
    folder.mkdir(parents=True, exist_ok=True)
    cat, cases = _base()
    as_json = rng.random() < 0.3
    name = "catalog.json" if as_json else "catalog.yaml"
    target = folder / name
    req1 = _request(rng)
    req2 = _request(rng) if rng.random() < 0.5 else rng.choice(["How often is the registry audited?", "What is the checksum rule?"])
    extra1: list[str] = []
    note = ""
    literal = ""
    text: str | bytes | None = None

    if cls == "deep_nesting":
        depth = rng.choice([10, 60, 65, 200, 999, 1001, 5000, int(100_000 * scale) or 10])
        where = rng.choice(["description", "entities", "documents.0.title", "views"])
        nested = _nested(depth, as_json, rng.choice(["list", "map"]))
        placeholder = "__NESTED__"
        if where == "description":
            cat["description"] = placeholder
        elif where == "entities":
            cat["entities"].append(placeholder)
        elif where == "views":
            cat["views"] = placeholder
        else:
            cat["documents"][0]["title"] = placeholder
        dumped = _dump(cat, as_json)
        text = dumped.replace(json.dumps(placeholder) if as_json else placeholder, nested, 1)
        note = f"depth {depth} at {where}"
    elif cls == "alias_bomb":
        kind = rng.choice(["bomb", "recursive", "legit", "merge"])
        as_json, target = False, folder / "catalog.yaml"
        if kind == "bomb":
            text = _bomb(rng.randint(4, 10), rng.randint(4, 10))
        elif kind == "recursive":
            text = _dump(cat, False) + "extra: &r [*r]\n"
        elif kind == "merge":
            text = _dump(cat, False).replace("entities:\n", "base: &b {type: project}\nentities:\n", 1)
            text = text.replace("- id: project:final:side\n  type: project\n", "- id: project:final:side\n  <<: *b\n", 1)
        else:
            text = _dump(cat, False).replace("views:\n- name: final", "views:\n- name: final", 1)
            text = text.replace("  - auditor\n", "  - &who auditor\n", 1) + "note: *who\n"
        note = kind
    elif cls == "duplicate_keys":
        dumped = _dump(cat, as_json)
        if as_json:
            text = dumped.replace('"world": "final"', '"world": "final", "world": "other"', 1)
        else:
            kind = rng.choice(["visibility", "world", "id"])
            if kind == "visibility":
                text = dumped.replace("  visibility: restricted\n", "  visibility: restricted\n  visibility: public\n", 1)
            elif kind == "world":
                text = dumped.replace("world: final\n", "world: final\nworld: final\n", 1)
            else:
                text = dumped.replace("- id: rel-1\n", "- id: rel-1\n  id: rel-9\n", 1)
            note = kind
    elif cls in ("markup_values", "control_values"):
        pool = MARKUP if cls == "markup_values" else CONTROL
        bad = _hostile(rng, pool)
        spot = rng.choice(["name", "alias", "title", "text", "view", "description", "request", "principal", "phrasing"])
        if spot == "name":
            req1 = "Which contact serves PR-84?"
            for e in cat["entities"]:
                if e["id"].startswith("contact:"):
                    e["name"] = f"Desk {bad}"
        elif spot == "alias":
            cat["entities"][0]["aliases"].append(f"PR {bad}")
            req1 = f"Which contact serves PR {bad}?"
        elif spot == "title":
            cat["documents"][0]["title"] = bad
        elif spot == "text":
            _set_doc_text(cat, _handbook(cat), f"# Handbook {bad}\n\nAudit cadence {bad}: the registry is audited every quarter.\n")
            req2 = f"How often is the registry audited {bad}?"
        elif spot == "view":
            cat["views"][0]["name"] = bad
            extra1 = ["--view", bad]
        elif spot == "description":
            cat["entities"][3]["description"] = bad
        elif spot == "principal":
            extra1 = ["--principal", bad, "--as", bad]
        elif spot == "phrasing":
            cat["patterns"][0]["phrasings"].append(f"which contact serves {bad} {{project}}")
            req1 = f"Which contact serves {bad} PR-84?"
        req2 = req2 if spot == "text" else f"{bad} {req2}"
        if spot not in ("name", "alias", "phrasing"):
            req1 = f"{req1} {bad}"
        if cls == "markup_values" and spot not in ("view", "principal"):
            literal = f"Desk {bad}" if spot == "name" else bad
        text = _dump(cat, as_json)
        note = f"{spot}: {bad!r}"
    elif cls == "glued_slot":
        glued = rng.choice(["which contact serves{project}", "{project}'s contact", "{project}", "which contact serves ({project})?",
                            "which contact serves {project}s", "who is the contact for:{project}", "{project}?"])
        cat["patterns"][0]["phrasings"] = [glued] if rng.random() < 0.5 else [*cat["patterns"][0]["phrasings"], glued]
        text = _dump(cat, as_json)
        req1 = rng.choice(["Which contact serves PR-84?", "PR-84's contact", "PR-84", "Which contact servesPR-84?"])
        note = glued
    elif cls == "self_loop":
        hops = rng.choice([1, 2, 5, 50])
        _add_loop(cat, hops, two_cycle=rng.random() < 0.5)
        text = _dump(cat, as_json)
        req1 = "What does PR-84 link to?"
        extra1 = ["--max-hops", "60", "--max-searches", "60", "--max-rows", "400"]
        req2 = "What does PR-84 link to?"
        note = f"{hops} hops"
    elif cls == "huge_string":
        size = int(rng.choice([1, 2, 4, 8]) * 1_000_000 * scale) or 1000
        spot = rng.choice(["doc_text", "name", "request", "phrasing"])
        if spot == "doc_text":
            words = ["audit", "registry", "PR-84", "project:final:main", "quarter", "x" * 40]
            body = " ".join(rng.choice(words) for _ in range(size // 8))
            _set_doc_text(cat, _handbook(cat), body)
            req2 = "How often is the registry audited?"
        elif spot == "name":
            cat["entities"][6]["name"] = "N" * size
        elif spot == "request":
            req1 = "Which contact serves " + "PR-84 " * (size // 600) + "?"
        else:
            cat["patterns"][0]["phrasings"].append("which contact serves " + "very " * (size // 500) + "{project}")
        text = _dump(cat, as_json)
        note = f"{spot} {size} chars"
    elif cls == "non_utf8":
        raw = _dump(cat, as_json).encode("utf-8")
        kind = rng.choice(["byte", "latin1", "utf16", "truncated_utf8", "nul"])
        if kind == "byte":
            k = rng.randrange(len(raw))
            text = raw[:k] + bytes([rng.choice([0xFF, 0xFE, 0xC3, 0x80, 0xED])]) + raw[k:]
        elif kind == "latin1":
            text = raw.replace(b"Main programme", "Main programmé".encode("latin-1"), 1)
        elif kind == "utf16":
            text = _dump(cat, as_json).encode("utf-16")
        elif kind == "truncated_utf8":
            text = raw + "é".encode()[:1]
        else:
            text = raw.replace(b"Main programme", b"Main\x00programme", 1)
        note = kind
    elif cls == "symlink_loop":
        sub = folder / "nested" / "deeper"
        sub.mkdir(parents=True, exist_ok=True)
        for link, dest in ((sub / "up", ".."), (sub / "top", "../.."), (folder / "self", "."), (folder / "nested" / "again", "..")):
            if not link.is_symlink():
                os.symlink(dest, link)
        (sub / "world.yaml").write_text(_dump(cat, False), encoding="utf-8")
        if rng.random() < 0.5:
            loop = folder / "loop.yaml"
            if not loop.is_symlink():
                os.symlink("loop.yaml", loop)
        target = folder
        text = None
        req1 = "Which contact serves PR-84?"
        note = "directory symlink loops"
    elif cls == "special_file":
        kind = rng.choice(["fifo", "devnull", "dir", "devzero", "trace_fifo", "trace_dir", "trace_symlink", "trace_missing_parent"])
        text = _dump(cat, as_json)
        if kind == "fifo":
            target = folder / "fifo.yaml"
            if not target.exists():
                os.mkfifo(target)
            text = None
        elif kind == "devnull":
            target, text = Path("/dev/null"), None
        elif kind == "devzero":
            target, text = Path("/dev/zero"), None
        elif kind == "dir":
            target = folder / "dir.yaml"
            target.mkdir(exist_ok=True)
            text = None
        note = kind
        if kind.startswith("trace_"):
            assert isinstance(text, str)
            (folder / name).write_text(text, encoding="utf-8")
            text = None
            trace = {"trace_fifo": folder / "t.fifo", "trace_dir": folder, "trace_symlink": folder / "t.link",
                     "trace_missing_parent": folder / "missing" / "t.json"}[kind]
            if kind == "trace_fifo" and not trace.exists():
                os.mkfifo(trace)
            if kind == "trace_symlink" and not trace.is_symlink():
                os.symlink(folder / "t-target.json", trace)
            extra1 = ["--trace-out", str(trace)]
    elif cls == "random_mutation":
        done = [_mutate_random(rng, cat) for _ in range(rng.randint(1, 3))]
        text = _dump(cat, as_json)
        if rng.random() < 0.15:  # an integer beyond Python's digit limit for str -> int
            digits = "9" * 5000
            text = text.rstrip()[:-1] + f', "big": {digits}}}' if as_json else text + f"big: {digits}\n"
            done.append("5000-digit integer")
        if rng.random() < 0.2:
            text = text[: rng.randrange(max(len(text), 1))]
        note = "; ".join(done)
    else:  # valid_careless
        text = _dump(cat, as_json)
        req1, req2 = rng.choice(CARELESS), rng.choice(CARELESS)
        note = "careless words"

    if text is not None:
        if isinstance(text, bytes):
            target.write_bytes(text)
        else:
            target.write_text(text, encoding="utf-8")
        if rng.random() < 0.3 and cls not in ("non_utf8",):
            cases["catalog"] = target.name
            (folder / "cases.yaml").write_text(_dump(cases, False), encoding="utf-8")
    trace1 = ["--trace-out", str(folder / "t1.json")] if "--trace-out" not in extra1 else []
    steps = [
        ["validate", str(target)],
        ["ask", _argv_safe(req1), "--catalog", str(target), *trace1, *[_argv_safe(x) for x in extra1]],
        ["ask", _argv_safe(req2), "--catalog", str(target), "--json", "--text-route", *_budget_flags(rng),
         "--trace-out", str(folder / "t2.json")],
    ]
    case = FuzzCase(id=folder.name, cls=cls, dir=str(folder), steps=steps, note=note[:200], literal=literal,
                    literal_if_answered=literal.startswith("Desk "))
    case.save()
    return case


def _argv_safe(s: str) -> str:
    return s.replace("\x00", "")  # argv cannot carry NUL


# -- running and checking ------------------------------------------------------------------------------
class StepTimeout(Exception):
    pass


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    def fire(signum: int, frame: Any) -> None:
        raise StepTimeout()

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def run_step(argv: list[str], seconds: float = STEP_SECONDS) -> dict[str, Any]:
    """Run one CLI command in this process; capture output, exit code, time, and any escaped exception."""
    from chainret.cli import main

    out, err = io.StringIO(), io.StringIO()
    rc: int | None = None
    exc_text = ""
    hang = False
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            with _deadline(seconds):
                main(argv)
            rc = 0
        except SystemExit as exc:
            code = exc.code
            rc = code if isinstance(code, int) else (0 if code is None else 1)
        except StepTimeout:
            hang = True
        except BaseException:  # noqa: BLE001 - that is the finding: it would be a traceback
            exc_text = traceback.format_exc(limit=6)
    return {"argv": [a[:200] for a in argv], "rc": rc, "seconds": round(time.perf_counter() - t0, 3), "hang": hang,
            "exception": exc_text[-2000:], "stdout": out.getvalue(), "stderr": err.getvalue()}


def check_step(step: dict[str, Any], trace_files: Sequence[Path] = ()) -> list[str]:
    """Problems in one step's result (empty list: clean)."""
    probs: list[str] = []
    text = step["stdout"] + step["stderr"]
    if step["exception"] or "Traceback (most recent call last)" in text:
        last = (step["exception"].strip().splitlines() or ["Traceback in output"])[-1]
        probs.append(f"traceback: {last[:200]}")
    if step["hang"] or step["seconds"] > STEP_SECONDS:
        probs.append(f"hang: {step['seconds']} s")
    if step["rc"] is not None and step["rc"] not in EXIT_CODES and not step["hang"]:
        probs.append(f"exit code {step['rc']} outside the table")
    bad = unsafe_pattern().search(text.replace("\n", "").replace("\t", ""))
    if bad:
        probs.append(f"terminal escape: raw U+{ord(bad.group(0)):04X} in output")
    if "--json" in step["argv"] and step["rc"] in (0, 1):
        try:
            probs += budget_problems(json.loads(step["stdout"]))
        except ValueError:
            probs.append("--json output is not JSON")
    if "--json" in step["argv"] and step["rc"] in (0, 1):
        with contextlib.suppress(ValueError):
            probs += path_problems(json.loads(step["stdout"]))
    for f in trace_files:
        if f.is_file() and not f.is_symlink():
            try:
                raw = f.read_text(encoding="utf-8")
                probs += [f"{f.name}: {p}" for p in budget_problems(json.loads(raw))]
            except (ValueError, OSError) as exc:
                probs.append(f"{f.name}: unreadable trace: {exc}"[:200])
    return probs


def budget_problems(trace: dict[str, Any]) -> list[str]:
    """A trace that records using more than its recorded budget."""
    b = trace.get("budget") or {}
    probs = []
    if trace.get("rows_used", 0) > b.get("max_rows", 0):
        probs.append(f"budget misrecord: rows_used {trace.get('rows_used')} > max_rows {b.get('max_rows')}")
    if trace.get("searches_used", 0) > b.get("max_searches", 0):
        probs.append(f"budget misrecord: searches_used {trace.get('searches_used')} > max_searches {b.get('max_searches')}")
    shown = sum(len(h.get("hits", [])) for h in trace.get("hops", []))
    if shown > trace.get("rows_used", 0):
        probs.append(f"budget misrecord: {shown} rows shown > rows_used {trace.get('rows_used')}")
    return probs


def path_problems(trace: dict[str, Any]) -> list[str]:
    """An accepted path that enters a node twice or repeats a relation."""
    ids, rels = trace.get("path_ids") or [], trace.get("accepted_path") or []
    if len(set(ids)) < len(ids) or len(set(rels)) < len(rels):
        return [f"cycle in path: {len(ids)} nodes, {len(set(ids))} distinct"]
    return []


def run_case(case: FuzzCase, seconds: float = STEP_SECONDS) -> dict[str, Any]:
    """All steps of one case in this process, with their problems."""
    steps = []
    for k, argv in enumerate(case.steps):
        traces = [Path(a) for a in argv[argv.index("--trace-out") + 1 : argv.index("--trace-out") + 2]] if "--trace-out" in argv else []
        result = run_step(argv, seconds)
        result["problems"] = check_step(result, traces)
        shown = result["rc"] == 0 if case.literal_if_answered else result["rc"] in (0, 1)
        if k == 1 and case.literal and shown and case.literal not in result["stdout"]:
            result["problems"].append("markup interpreted: a catalog/request value was not shown verbatim")
        steps.append({k: v for k, v in result.items() if k not in ("stdout", "stderr")} | {"output_chars": len(result["stdout"]) + len(result["stderr"])})
    return {"id": case.id, "cls": case.cls, "note": case.note, "steps": steps,
            "problems": [p for s in steps for p in s["problems"]]}


@dataclass
class Summary:
    """Counts over a fuzz run (what docs/results/robustness.md reports)."""

    files: int = 0
    steps: int = 0
    tracebacks: int = 0
    hangs: int = 0
    over_memory: int = 0
    budget_misrecords: int = 0
    terminal_escapes: int = 0
    markup_interpreted: int = 0
    cycles: int = 0
    bad_exit_codes: int = 0
    peak_rss_mb: float = 0.0
    by_class: dict[str, dict[str, int]] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)


def summarise(results: list[dict[str, Any]], memory_limit_mb: float = 500.0) -> Summary:
    s = Summary(files=len(results))
    for r in results:
        row = s.by_class.setdefault(r["cls"], {"files": 0, "problem_files": 0})
        row["files"] += 1
        probs = list(r["problems"])
        rss = r.get("peak_rss_mb")
        if rss is not None:
            s.peak_rss_mb = max(s.peak_rss_mb, rss)
            if rss > memory_limit_mb:
                probs.append(f"memory: peak {rss:.0f} MB")
        if r.get("killed"):
            probs.append(f"hang: killed after {r.get('wall_s')} s")
        s.steps += len(r.get("steps", []))
        for p in probs:
            s.tracebacks += p.startswith("traceback")
            s.hangs += p.startswith("hang")
            s.over_memory += p.startswith("memory")
            s.budget_misrecords += "budget misrecord" in p
            s.terminal_escapes += p.startswith("terminal escape")
            s.bad_exit_codes += p.startswith("exit code")
            s.markup_interpreted += p.startswith("markup interpreted")
            s.cycles += p.startswith("cycle in path")
        if probs:
            row["problem_files"] += 1
            if len(s.examples) < 20:
                s.examples.append(f"{r['id']} ({r.get('note', '')[:60]}): {probs[0]}")
    return s


def _main(argv: list[str]) -> int:
    """``one CASE_DIR`` runs a case in this process (how the fuzzer runs each case: its own process, so a
    runaway case cannot take the fuzzer down); ``generate ROOT N`` writes N cases."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m benchmarks.harness.fuzz", description=_main.__doc__)
    commands = ap.add_subparsers(dest="command", required=True)
    commands.add_parser("one", help="run one case folder").add_argument("case_dir")
    generate_cases = commands.add_parser("generate", help="write N cases under ROOT")
    generate_cases.add_argument("root")
    generate_cases.add_argument("n", type=int)
    args = ap.parse_args(argv)
    if args.command == "one":
        limit = os.environ.get("CHAINRET_FUZZ_ADDRESS_LIMIT")
        if limit:  # a runaway case fails inside its own process instead of starving the machine
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (int(limit), int(limit)))
        os.environ.setdefault("CHAINRET_TRACE_DIR", str(Path(args.case_dir) / "traces"))
        result = run_case(FuzzCase.load(args.case_dir))
        assert sys.__stdout__ is not None
        sys.__stdout__.write(json.dumps(result, ensure_ascii=True) + "\n")
        return 0
    generate(args.root, args.n)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))

