"""What the per-viewer log and its proofs cost: compile, store size, ask CPU, trace size, offline verify.

    python -m benchmarks.proof_cost                     # 10k relations; prints the table (and --write: docs/results/proof.md)
    python -m benchmarks.proof_cost --sizes 10000 100000

World: ``benchmarks/store_bench.py``'s catalog (every tenth document restricted to ``auditor``) and its request mix
(public and auditor alternately, one in five on the older view). For each size: compile wall and CPU with the log
and the time ``append_log`` took of it, the store's size and the log tables' share (SQLite ``dbstat``), then per
request, warm, in this process, alternating the two settings request by request (and which runs first): ``ask`` CPU with proofs and
without (``proofs=False``), the trace's JSON size with and without ``meta.log``, and the CPU of ``trace sign`` and
of ``trace verify --offline`` on it. Every figure is a measurement on this machine at the time of the run, printed
beside the load average; nothing here asserts a time.

``--against DIR``: another checkout's proofs too (its ``chainret/store/log.py``, loaded beside this one's; its log
tables must be this format's), a third setting in the same alternation, so a change to the proofs is compared with
the code before it in one run, under one load (the page gives its ask CPU and ratio beside this checkout's).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.harness.page import results_path, write_page

ROOT = Path(__file__).resolve().parents[1]
OUT_MD = ROOT / "docs" / "results" / "proof.md"
COMMAND = "python -m benchmarks.proof_cost"


def _cpu() -> float:
    return time.process_time()


def _log_module(checkout: Path) -> Any:
    """``chainret/store/log.py`` of another checkout, loaded under another name (the rest of chainret is this one's)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_against_log", checkout / "chainret" / "store" / "log.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measure(n: int, count: int, against: Path | None = None) -> dict[str, Any]:
    import sqlite3

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from benchmarks.store_bench import bench_catalog, requests

    import chainret.pipeline.ask as ask_module
    import chainret.store.log as store_log_module
    from chainret.pipeline.ask import ask
    from chainret.store import compile_store, open_store
    from chainret.verify.offline import verify_envelope
    from chainret.verify.signing import sign_trace

    out: dict[str, Any] = {"relations": n, "requests": count, "load": os.getloadavg()[0], "order": "alternated"}
    cat = bench_catalog(n)
    append_s: list[float] = []
    real_append = store_log_module.append_log

    def timed_append(conn: Any) -> Any:
        t0 = _cpu()
        try:
            return real_append(conn)
        finally:
            append_s.append(_cpu() - t0)

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        import chainret.store.sqlite as sqlite_module

        sqlite_module.append_log = timed_append  # type: ignore[assignment]  # (measured, then put back)
        try:
            w0, c0 = time.perf_counter(), _cpu()
            compile_store(cat, db)
            out["compile_wall_s"], out["compile_cpu_s"] = time.perf_counter() - w0, _cpu() - c0
        finally:
            sqlite_module.append_log = real_append  # type: ignore[assignment]
        out["append_log_cpu_s"] = sum(append_s)
        out["store_mb"] = db.stat().st_size / 1e6
        conn = sqlite3.connect(db)
        try:
            per_table = dict(conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall())
            out["log_mb"] = sum(v for k, v in per_table.items() if k.startswith(("log_", "sqlite_autoindex_log"))) / 1e6
            out["table_mb"] = {k: round(v / 1e6, 2) for k, v in sorted(per_table.items(), key=lambda kv: -kv[1])}
        except sqlite3.OperationalError:  # a SQLite built without dbstat
            out["log_mb"] = None
        out["log_sizes"] = {p: s for p, s in conn.execute(
            "SELECT principal, size FROM log_checkpoints WHERE seq = (SELECT max(seq) FROM log_checkpoints)")}
        out["log_format"] = conn.execute("SELECT value FROM meta WHERE key = 'log'").fetchone()[0]
        conn.close()
        store = open_store(db)
        key = Ed25519PrivateKey.generate()
        reqs = requests(n, count)
        other = _log_module(against) if against is not None else None
        own_with_log = ask_module.with_log

        def asked(req: str, view: str | None, principal: str, setting: str) -> Any:
            ask_module.with_log = other.with_log if setting == "against" else own_with_log
            try:
                return ask(req, store, view=view, principal=principal, proofs=setting != "without")
            finally:
                ask_module.with_log = own_with_log

        settings = ["with", "without"] + (["against"] if other is not None else [])
        for req, view, principal in reqs[:5]:  # warm the caches the settings share
            for setting in settings:
                asked(req, view, principal, setting)
        cpu: dict[str, list[float]] = {setting: [] for setting in settings}
        with_bytes, without_bytes, sign_cpu, verify_cpu = [], [], [], []
        for i, (req, view, principal) in enumerate(reqs):
            # Which setting runs first turns: the first ask after the previous request's signing and verifying
            # runs on colder caches (always the one without proofs, it made that ratio look 20-30% better).
            order = settings[i % len(settings):] + settings[:i % len(settings)]
            ran: dict[str, Any] = {}
            for setting in order:
                t0 = _cpu()
                ran[setting] = asked(req, view, principal, setting)
                cpu[setting].append((_cpu() - t0) * 1000)
            bare, proven = ran["without"], ran["with"]
            with_bytes.append(len(proven.to_json().encode()))
            without_bytes.append(len(bare.to_json().encode()))
            t3 = _cpu()
            env = sign_trace(proven, key)
            t4 = _cpu()
            result = verify_envelope(json.dumps(env).encode(), key.public_key())
            t5 = _cpu()
            assert result.ok, result.failed
            sign_cpu.append((t4 - t3) * 1000)
            verify_cpu.append((t5 - t4) * 1000)
    med = statistics.median
    if other is not None:
        out["against"], out["ask_cpu_ms_against"] = _commit(against), med(cpu["against"])
    out.update({
        "ask_cpu_ms_without": med(cpu["without"]), "ask_cpu_ms_with": med(cpu["with"]),
        "trace_kb_without": med(without_bytes) / 1000, "trace_kb_with": med(with_bytes) / 1000,
        "sign_cpu_ms": med(sign_cpu), "verify_offline_cpu_ms": med(verify_cpu),
    })
    return out


def _commit(checkout: Path | None) -> str:
    """A checkout as the page names it: its short commit, or its folder's name."""
    import subprocess

    done = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else Path(str(checkout)).name


EARLIER_FORMAT = "rfc9162-sha256/1"  # the log format of rows measured before the page recorded one


def with_earlier(results: list[dict[str, Any]], earlier: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """This run's rows, and the page's earlier rows of sizes this run did not measure, marked ``earlier`` (a 1M
    compile takes ten minutes: a run of the small sizes keeps the big ones' figures, saying they are older)."""
    ran = {r["relations"] for r in results}
    kept = [{**r, "earlier": True} for r in earlier if r["relations"] not in ran]
    return sorted([*results, *kept], key=lambda r: r["relations"])


def report(results: list[dict[str, Any]]) -> str:
    ran = [r for r in results if not r.get("earlier")]
    lines = [
        "# The per-viewer log: what it costs",
        "",
        f"Generated by `{COMMAND} --sizes {' '.join(str(r['relations']) for r in ran)}"
        f"{' --against OTHER' if any(r.get('against') for r in ran) else ''} --write` (medians over the "
        "requests; CPU of this process; the load average beside); do not edit by hand.",
        *([] if len(ran) == len(results) else
          ["Rows marked *earlier run* are of sizes this run did not measure: figures of an earlier run of this command, "
           "kept with the log format that run's store had (the format column), not remeasured."]),
        *([] if all(r.get("order") == "alternated" for r in results) else
          ["A row without `order` alternated in its JSON was measured with the ask without proofs always first, just "
           "after the previous request's signing and verifying: that ask paid the colder caches, so its ratio reads low."]),
        *([] if any(r["relations"] >= 1_000_000 for r in results) else
          ["1M relations: not measured in this run (the log tables scale linearly with leaves x classes; see below)."]),
        "",
        "Aim (issue 49): ask CPU with proofs at most 1.27x the ask without them (the bar Souffle's proof trees set), "
        "at 1M relations. " + "; ".join(f"{r['relations']:,}{' (earlier run)' if r.get('earlier') else ''}: "
                                        f"{r['ask_cpu_ms_with'] / r['ask_cpu_ms_without']:.2f}x "
                                        + ("(met)" if r['ask_cpu_ms_with'] <= 1.27 * r['ask_cpu_ms_without'] else "(not met)")
                                        for r in results) + ".",
        "",
        "| relations | log format | compile wall s | compile CPU s | of it `append_log` CPU s | store MB | log tables MB "
        "| ask CPU ms without proofs | with proofs | ratio | trace kB without | with | sign CPU ms | verify --offline CPU ms | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        log_mb = f"{r['log_mb']:.1f}" if r.get("log_mb") is not None else "n/a"
        lines.append(
            f"| {r['relations']:,}{' (*earlier run*)' if r.get('earlier') else ''} | {r.get('log_format', EARLIER_FORMAT)} "
            f"| {r['compile_wall_s']:.2f} | {r['compile_cpu_s']:.2f} | {r['append_log_cpu_s']:.2f} "
            f"| {r['store_mb']:.1f} | {log_mb} | {r['ask_cpu_ms_without']:.2f} | {r['ask_cpu_ms_with']:.2f} "
            f"| {r['ask_cpu_ms_with'] / r['ask_cpu_ms_without']:.2f}x | {r['trace_kb_without']:.1f} | {r['trace_kb_with']:.1f} "
            f"| {r['sign_cpu_ms']:.2f} | {r['verify_offline_cpu_ms']:.2f} | {r['load']:.2f} |")
    compared = [r for r in results if r.get("against") and not r.get("earlier")]
    if compared:
        lines += ["", "The proofs of commit " + ", ".join(sorted({r["against"] for r in compared})) + " (`--against`), timed in the same "
                  "alternation on the same store: " + "; ".join(
                      f"{r['relations']:,}: {r['ask_cpu_ms_against']:.2f} ms, {r['ask_cpu_ms_against'] / r['ask_cpu_ms_without']:.2f}x "
                      f"(this checkout's {r['ask_cpu_ms_with'] / r['ask_cpu_ms_without']:.2f}x)" for r in compared) + "."]
    tabled = [r for r in results if r.get("table_mb")]
    if tabled:
        lines += ["", "The log's tables (SQLite `dbstat`, MB): " + "; ".join(
            f"{r['relations']:,}: " + ", ".join(f"`{k}` {v:.1f}" for k, v in r["table_mb"].items() if k.startswith("log_"))
            for r in tabled) + ". The store's largest tables and indexes: " + "; ".join(
            f"{r['relations']:,}: " + ", ".join(f"`{k}` {v:.1f}" for k, v in list(r["table_mb"].items())[:8]) for r in tabled) + "."]
    lines += ["", "Leaves per viewer class at the last write: "
              + "; ".join(f"{r['relations']:,}: " + ", ".join(f"{p or 'audit'} {s:,}" for p, s in sorted(r["log_sizes"].items()))
                          for r in results), ""]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--write", action="store_true", help=f"write {OUT_MD.relative_to(ROOT)}")
    ap.add_argument("--against", type=Path, help="another checkout (the folder holding its chainret/) whose proofs are timed too")
    args = ap.parse_args()
    results = [measure(n, args.requests, args.against) for n in args.sizes]
    if args.write:
        earlier = results_path(OUT_MD)
        results = with_earlier(results, json.loads(earlier.read_text()) if earlier.exists() else [])
    text = report(results)
    print(text)
    if args.write:
        write_page(OUT_MD, text, results)  # the figures beside it: docs/results/proof.json


if __name__ == "__main__":
    main()
