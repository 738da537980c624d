"""Instructions per ask, counted by valgrind: a figure the machine's speed and load do not move (issue 24).

    python -m benchmarks.ask_instructions --store bench/1m.db
    python -m benchmarks.ask_instructions --store 1m.db --src ../base --src-commit 55b3152 --write   # docs/results/instructions.md

CPU time per ask moves with the machine: the same commit's warm 1M ask measured 0.36 ms on one day's
machine and 0.79 ms on the next's, its bare-sqlite3 floor 0.11 and 0.28 ms. The aims of issue 24 are
CPU times on an idle machine, so the speed pages keep them; this page counts what does not move, the
instructions a process executes in user space (valgrind's callgrind, ``Collected``), for this checkout
and for other checkouts (``--src``, a ``git worktree`` or an unpacked ``git archive``) on the same
Python, SQLite and store.

* **warm**: a process opens the store, asks one first request per (view, principal) pair and 300
  more, then ``--asks`` distinct requests (``store_bench.requests``: public and auditor alternately,
  one in five on the older view). Instructions per ask = (that process's count - the count of the same
  process stopping before those asks) / asks. ``to_json`` per ask is counted the same way, apart.
* **cold**: one fresh ``python -m chainret ask`` process (bytecode and the YAML parse cache warmed by one
  earlier run, as for an installed package), default output and ``--json``, on the default catalog
  and on the store; beside ``python -c pass``.

Counting ignores the kernel: a ``pread`` of a page costs system time but no user instruction, so the
store's memory map (``chainret.store.sqlite.READ_PRAGMAS``) shows here only as the copies it saves;
``docs/results/store.md`` has the CPU time. Valgrind runs a process about 50 times slower: a warm
count takes about a minute at 1M relations.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness.checkout import child_env, python  # (chainret from another checkout)

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "results" / "instructions.md"
REQUEST = "Which contact serves PR-84?"
STORE_REQUEST = "Which contact serves GP-84?"
WARMUP = 300
# The measured process: chainret imported from the checkout first on its PYTHONPATH (``child_env``), the
# store opened, warmed, then K asks (and their to_json when asked).
WARM_CHILD = r"""
import json, sys
db, reqfile, k, ser = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
from chainret.pipeline.ask import ask
from chainret.store import resolve_catalog
data = json.load(open(reqfile))
store = resolve_catalog(db)
for req, view, principal in data["first"]:
    ask(req, store, view=view, principal=principal)
for req, view, principal in data["warmup"]:
    ask(req, store, view=view, principal=principal)
for req, view, principal in data["measured"][:k]:
    t = ask(req, store, view=view, principal=principal)
    if ser:
        t.to_json()
"""
_COLLECTED = re.compile(r"Collected : (\d+)")


def counted(cmd: list[str], env: dict[str, str]) -> int:
    """User-space instructions of ``cmd`` (and its threads) under callgrind, after one run without it (the
    bytecode cache and the parse cache filled, as for an installed package that has been used)."""
    subprocess.run(cmd, env=env, capture_output=True)
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
                          env=env, capture_output=True, text=True)
    m = _COLLECTED.search(done.stderr)
    if m is None or done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd[:4])}... exited {done.returncode}: {done.stderr[-800:]}")
    return int(m.group(1))


def request_file(store: str, n: int, asks: int, folder: Path) -> Path:
    from benchmarks.store_bench import PAIRS, requests

    first = [(requests(n, 1, seed=97 + i)[0][0], v, p) for i, (v, p) in enumerate(PAIRS)]
    reqs = requests(n, WARMUP + asks, seed=3)
    path = folder / "requests.json"
    path.write_text(json.dumps({"first": first, "warmup": reqs[:WARMUP], "measured": reqs[WARMUP:]}))
    return path


def warm(src: str, store: str, reqfile: Path, asks: int, env: dict[str, str]) -> dict[str, float]:
    base, env = python("-c", WARM_CHILD, store, str(reqfile)), child_env(src, base=env)
    zero = counted([*base, "0", "0"], env)
    plain = counted([*base, str(asks), "0"], env)
    ser = counted([*base, str(asks), "1"], env)
    return {"ask": (plain - zero) / asks, "to_json": (ser - plain) / asks}


def cold(src: str | None, args: list[str], env: dict[str, str]) -> int:
    if src is None:
        return counted([sys.executable, "-m", "chainret", *args], env)
    return counted(python("-m", "chainret", *args), child_env(src, base=env))


def _label(src: str | None, commit: str | None) -> str:
    if src is None:
        done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "chainret"], capture_output=True, text=True)
        return f"this checkout ({done.stdout.strip()}{' + changes' if dirty.stdout.strip() else ''})"
    return f"{commit or '?'} ({src})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", required=True, help="a compiled SQLite store (benchmarks/bench_world.py)")
    ap.add_argument("--relations", type=int, default=1_000_000, help="the store's size (its requests' range)")
    ap.add_argument("--asks", type=int, default=200)
    ap.add_argument("--src", action="append", default=[], help="another checkout to count (repeatable)")
    ap.add_argument("--src-commit", action="append", default=[], help="the commit of each --src (a git archive has no history)")
    ap.add_argument("--no-cold", action="store_true")
    ap.add_argument("--write", action="store_true", help=f"rewrite {PAGE.relative_to(ROOT)}")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install -y valgrind)")
    trees: list[tuple[str | None, str]] = [(None, _label(None, None))]
    trees += [(s, _label(s, c)) for s, c in zip(args.src, [*args.src_commit, *[None] * len(args.src)])]
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPYCACHEPREFIX": str(folder / "pyc"), "XDG_CACHE_HOME": str(folder / "xdg")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPATH"] = str(ROOT)
        reqfile = request_file(args.store, args.relations, args.asks, folder)
        floor = None if args.no_cold else counted([sys.executable, "-c", "pass"], env)
        for src, label in trees:
            row: dict[str, object] = {"code": label, **warm(src or str(ROOT), args.store, reqfile, args.asks, env)}
            if not args.no_cold:
                for name, cmd in (("cold default", ["ask", REQUEST]), ("cold --json", ["ask", REQUEST, "--json"]),
                                  ("cold store", ["ask", STORE_REQUEST, "--catalog", args.store])):
                    row[name] = cold(src, cmd, env)
            rows.append(row)
            print(json.dumps(row), flush=True)
    text = page(args, started, floor, rows)
    print(text)
    if args.write:
        from chainret.core.files import atomic_write_text

        atomic_write_text(PAGE, text)
        print(f"wrote {PAGE}")


def _m(x: object) -> str:
    return f"{float(x) / 1e6:.3f}M"  # type: ignore[arg-type]


def page(args: argparse.Namespace, started: str, floor: int | None, rows: list[dict[str, object]]) -> str:
    import shlex

    # The default catalog's location, where it was set: a --src that is an installed folder (not a checkout) has no
    # catalogs/ of its own, so its cold columns need it.
    env = f"CHAINRET_CATALOG={shlex.quote(os.environ['CHAINRET_CATALOG'])} " if os.environ.get("CHAINRET_CATALOG") else ""
    cmd = env + "python -m benchmarks.ask_instructions " + shlex.join(a for a in sys.argv[1:] if a != "--write")
    cols = ["warm ask", "to_json"] + ([] if floor is None else ["cold default", "cold --json", "cold store"])
    lines = [
        "# Instructions per ask (valgrind)",
        "",
        f"Generated by `{cmd.strip()}` ({started}; add `--write` to rewrite this page). User-space instructions",
        "counted by valgrind's callgrind: the machine's speed and load do not change them, so checkouts compare",
        "across days and machines on the same Python and SQLite. See the script's docstring for what each column runs.",
        f"Warm: {args.asks} distinct asks of `{args.store}` ({args.relations:,} relations) after {WARMUP} others;",
        "cold: one `chainret ask` process (the default catalog asked \"Which contact serves PR-84?\", the store",
        "\"Which contact serves GP-84?\"), in millions of instructions.",
        *([] if floor is None else [f"`python -c pass` executes {_m(floor)} instructions; the cold columns include them."]),
        "",
        "| code | " + " | ".join(cols) + " |",
        "|---|" + "---:|" * len(cols),
    ]
    keys = {"warm ask": "ask", "to_json": "to_json"}
    for r in rows:
        lines.append(f"| {r['code']} | " + " | ".join(_m(r[keys.get(c, c)]) for c in cols) + " |")
    if len(rows) > 1:
        lines += ["", "Ratios, this checkout / each other checkout:", ""]
        for other in rows[1:]:
            parts = [f"{c} {float(rows[0][keys.get(c, c)]) / float(other[keys.get(c, c)]):.2f}" for c in cols]  # type: ignore[arg-type]
            lines.append(f"- against {other['code']}: " + ", ".join(parts))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
