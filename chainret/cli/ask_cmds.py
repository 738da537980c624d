"""`chainret ask`, `chainret eval`, `chainret graph` and `chainret trace show|verify|keygen|sign`.

Thin commands: parse, one library call (``chainret.pipeline.ask`` / ``chainret.verify.replay`` / ``chainret.verify.signing``
and ``chainret.verify.offline``), render with rich.
``ask``'s body is ``chainret.cli.ask_run.run_ask``, which ``chainret.cli.main`` also runs without typer.
Nothing here imports torch; ``eval --baselines`` may load the embedder lazily for the dense route.
The renderer (rich) and the trace models are imported inside the commands, so ``ask --json`` never
loads rich (issue 24).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer

from chainret.cli.ask_run import (  # noqa: F401  (default_trace_dir, write_new_trace: the names this module gave them)
    catalog_for as _catalog_for,
    check_names as _check_names,
    default_trace_dir,
    run_ask,
    write_new_trace,
)
from chainret.core.errors import EXIT_NO, UsageError
from chainret.core.files import check_output_path
from chainret.core.textsafe import json_safe as json_out  # what chainret.cli.render.json_out is, without rich

# How a view can be named (chainret.catalog.views.as_of_view reads dates and hashes).
VIEW_HELP = ("View: its name or, in a catalog built by `catalog history`, a date YYYY-MM-DD (the last commit on or "
             "before it) or a commit hash (7-40 hex digits)")
trace_app = typer.Typer(help="Inspect and replay chain traces.", no_args_is_help=True)


# -- commands ---------------------------------------------------------------------------------------
def ask_cmd(
    request: str = typer.Argument(..., help='The request, e.g. "Which contact serves PR-84?"'),
    catalog: Optional[str] = typer.Option(None, "--catalog", help="Catalog file or world dir, compiled .db file or postgresql:// URL (default: $CHAINRET_CATALOG or catalogs/default.yaml)."),
    view: Optional[str] = typer.Option(None, "--view", help=VIEW_HELP + " (default: the catalog's current view)."),
    viewer: Optional[str] = typer.Option(None, "--as", help="Who will see the result (default: --principal). --as auditor audits a public request."),
    principal: str = typer.Option("public", "--principal", help="Whose access the request runs under."),
    as_json: bool = typer.Option(False, "--json", help="Print the (projected) trace as JSON, plus `answer`: the ID and display name of the answer (null without one); a set answer also names each of `answers` and its path."),
    trace_out: Optional[Path] = typer.Option(None, "--trace-out", help="Trace file (default: a new file under $CHAINRET_TRACE_DIR or ~/.cache/chainret/traces)."),
    no_trace: bool = typer.Option(False, "--no-trace", help="Do not write a trace file."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print the answer alone, unlabelled: its name and ID, a set one member per line (or, after \"no answer:\", why there is none). A part of a set says so on stderr."),
    text_route: bool = typer.Option(False, "--text-route", help="When no pattern applies, add a labelled text-route result (not a supported chain)."),
    no_backtrack: bool = typer.Option(False, "--no-backtrack", help="Follow only the first eligible bridge of each hop."),
    rows_per_hop: Optional[int] = typer.Option(None, "--rows-per-hop", help="Rows per search [3]."),
    max_searches: Optional[int] = typer.Option(None, "--max-searches", help="Searches per request [number of hops]."),
    max_rows: Optional[int] = typer.Option(None, "--max-rows", help="Returned rows per request [rows-per-hop × searches]."),
    max_hops: Optional[int] = typer.Option(None, "--max-hops", help="Longest pattern allowed [3]."),
    packet_units: Optional[int] = typer.Option(None, "--packet-units", help="Units in the final packet [4]."),
    packet_chars: Optional[int] = typer.Option(None, "--packet-chars", help="Characters in the final packet [900]."),
    no_proofs: bool = typer.Option(False, "--no-proofs", help="Leave out the log's inclusion proofs (meta.log) a compiled store with a log attaches to the trace: a smaller trace and a cheaper ask, checkable only against the store."),
    today: Optional[str] = typer.Option(None, "--today", help="The day the request is asked on, YYYY-MM-DD: what \"last month\" or \"yesterday\" count from, and the latest day a dated request may name (default: this machine's date; the trace records it as meta.today)."),
) -> None:
    """Answer a relationship request with a supported chain, or say why not.

    Exit 0 with an accepted path; 1 when refused, no complete path or no pattern; 2 on bad input.
    """
    code = run_ask(request, catalog=catalog, view=view, viewer=viewer, principal=principal, as_json=as_json,
                   trace_out=trace_out, no_trace=no_trace, quiet=quiet, text_route=text_route, no_backtrack=no_backtrack,
                   rows_per_hop=rows_per_hop, max_searches=max_searches, max_rows=max_rows, max_hops=max_hops,
                   packet_units=packet_units, packet_chars=packet_chars, no_proofs=no_proofs, today=today, echo=typer.echo)
    if code:
        raise typer.Exit(code)


def patterns_cmd(
    catalog: Optional[str] = typer.Option(None, "--catalog", help="Catalog file or world dir, .db file or postgresql:// URL (default catalog if omitted)."),
    as_json: bool = typer.Option(False, "--json", help="Print the patterns as JSON."),
) -> None:
    """List the request phrasings a catalog accepts, per relation pattern ({slot} takes an ID, name or alias)."""
    from chainret.cli.render import console, fit_table, t
    from chainret.catalog.patterns import phrasing_problem

    cat = _catalog_for(catalog)
    rows: list[dict[str, Any]] = [
        {"pattern": p.name, "start_type": p.start_type, "hops": list(p.hops), "phrasing": ph,
         "problem": phrasing_problem(ph, p.start_type)}
        for p in cat.patterns for ph in p.phrasings
    ]
    from chainret.query.lexicon import lexicon, words_of

    words = {pw.name: words_of(pw) for pw in lexicon(cat).preds}
    if as_json:
        typer.echo(json_out(json.dumps({"world": cat.world, "phrasings": rows, "relation_words": words}, indent=2, ensure_ascii=False)))
        return
    console.print(t(f"world {cat.world}: {len(rows)} phrasings in {len(cat.patterns)} patterns"))
    table_rows = [[r["phrasing"] + (f"  (unusable: {r['problem']})" if r["problem"] else ""), r["pattern"],
                   " → ".join(r["hops"])] for r in rows]
    console.print(fit_table(("phrasing", "pattern", "hops"), table_rows, width=console.width))
    console.print(t("Also understood: the chain said relation by relation (\"the <b> of the <a> of X\", \"X's <a>'s <b>\", "
                    "\"which <type> <verb> X\", or as keywords: \"X <a> <b>\") with these words per relation; add your own with "
                    "nouns:/verbs: on a predicate:"))
    console.print(fit_table(("relation", "words"), [[name, ", ".join(ws)] for name, ws in words.items()], width=console.width))


def eval_cmd(
    paths: list[Path] = typer.Argument(..., help="Fixture dirs or cases files (e.g. fixtures/)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per case plus totals."),
    baselines: bool = typer.Option(False, "--baselines", help="Also run the three text routes (dense loads the embedder)."),
    no_backtrack: bool = typer.Option(False, "--no-backtrack", help="Depth-first without backtracking (comparison)."),
    update_golden: Optional[Path] = typer.Option(None, "--update-golden", help="Rewrite golden traces under this dir (e.g. traces/)."),
) -> None:
    """Run every case of every world; exit 1 if any expectation fails."""
    from chainret.cli.render import console, t
    from chainret.evaluate.cases import evaluate_cases, totals
    from chainret.verify.replay import write_golden

    results = evaluate_cases(paths, backtrack=not no_backtrack, baselines=baselines)
    tot = totals(results)
    if update_golden is not None:
        written = write_golden(results, update_golden)
        console.print(t(f"wrote {len(written)} golden traces under {update_golden}"))
    if as_json:
        typer.echo(json_out(json.dumps({"cases": [r.row() for r in results], "totals": tot}, indent=2, sort_keys=True)))
    else:
        render_eval(results, tot, baselines)
    if tot["expectations_met"] != tot["cases"]:
        raise typer.Exit(EXIT_NO)


def render_eval(results: list[Any], tot: dict[str, Any], baselines: bool) -> None:
    from chainret.cli.render import console, fit_table, t
    from chainret.evaluate.cases import CASE_COLUMNS, ROUTE_COLUMNS, case_cells, route_cells, totals

    used = _routes_used(results)
    worlds = list(dict.fromkeys(r.world for r in results))
    for world in worlds:
        rows = [r for r in results if r.world == world]
        body: list[list[Any]] = [
            [*case_cells(r), t(("ok", "green")) if r.ok else t(("FAIL", "red"), " " + "; ".join(r.problems))] for r in rows
        ]
        console.print(fit_table((*CASE_COLUMNS, "ok"), body, width=console.width, title=f"world {world}: chain retriever"))
        if baselines:
            console.print(fit_table(ROUTE_COLUMNS, route_cells(rows), width=console.width,
                                    title=f"world {world}: text routes (cap 4 units / 900 chars; never an accepted path)"))
        _print_totals(f"{world}: ", totals(rows), used)
    if len(worlds) > 1:
        _print_totals("all worlds: ", tot, used)
    console.print(t(f"expectations met {tot['expectations_met']}/{tot['cases']}"))
    if not tot["cases"]:
        console.print(t("no cases: nothing was checked (a source header's cases: become cases.yaml when it is built)"))


def _routes_used(results: list[Any]) -> dict[str, str]:
    """Route slot -> the route(s) that actually ran in it (``dense`` falls back to ``bm25-rewritten``)."""
    used: dict[str, set[str]] = {}
    for r in results:
        for slot, row in r.baselines.items():
            used.setdefault(slot, set()).add(row["route"])
    return {slot: "/".join(sorted(names)) for slot, names in used.items()}


def _print_totals(prefix: str, tot: dict[str, Any], used: dict[str, str] | None = None) -> None:
    from chainret.cli.render import console, t

    pa, pn = tot["positive_accepted"]
    ua, un = tot["unsupported_complete_paths"]
    cb, cn = tot["complete_bundles"]
    console.print(t(f"{prefix}positive accepted {pa}/{pn} · unsupported complete paths {ua}/{un} · chain complete bundles {cb}/{cn}"))
    for key in sorted(k for k in tot if ":" in k):
        a, n = tot[key]
        slot, _, what = key.partition(":")
        label = (used or {}).get(slot, slot)
        if label != slot:
            label += f" (in place of {slot}: not installed)"
        console.print(t(f"{prefix}  {label}:{what} {a}/{n}"))


def graph_cmd(
    catalog: Optional[str] = typer.Option(None, "--catalog", help="Catalog file or world dir, .db file or postgresql:// URL (default catalog if omitted)."),
    view: Optional[str] = typer.Option(None, "--view", help=VIEW_HELP + " (default: current)."),
    principal: str = typer.Option("public", "--as", help="Principal whose eligibility colours the edges."),
    fmt: str = typer.Option("mermaid", "--format", help="mermaid or graphml."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write here (atomically) instead of stdout."),
) -> None:
    """Export the catalog's relation graph (edge key = relation id) as mermaid or GraphML."""
    from chainret.pipeline.ask import catalog_graph
    from chainret.catalog.graph import to_graphml, to_mermaid
    from chainret.cli.render import console, t

    if fmt not in ("mermaid", "graphml"):
        raise UsageError(f"--format must be mermaid or graphml, found {fmt!r}")
    if out is not None:
        check_output_path(out, create_parent=False)
    opened = _catalog_for(catalog)
    _check_names(opened, principal=principal, view=view, principal_flag="--as")
    g = catalog_graph(opened, view, principal)
    text = to_mermaid(g) if fmt == "mermaid" else to_graphml(g)
    if out is None:
        typer.echo(text, nl=False)
    else:
        from chainret.core.files import atomic_write_text

        atomic_write_text(out, text)
        console.print(t(f"wrote {out} ({g.number_of_nodes()} nodes, {g.number_of_edges()} edges)"))


@trace_app.command("show")
def trace_show(
    file: Path = typer.Argument(..., help="A trace JSON file."),
    mermaid: bool = typer.Option(False, "--mermaid", help="Print a mermaid flowchart of the hops instead."),
    html: Optional[Path] = typer.Option(None, "--html", metavar="OUT.html", help="Write the browser view as one standalone file (no network, no script) instead."),
    catalog: Optional[str] = typer.Option(None, "--catalog", help="With --html: take display names and unit texts from this catalog (default: the one the trace names)."),
) -> None:
    """Show a trace as a tree (or a mermaid flowchart, or a standalone HTML file). Exit 2 when the file is missing or not a trace."""
    from chainret.cli.render import console, t, trace_mermaid, trace_tree
    from chainret.trace.model import read_trace

    trace = read_trace(file)
    if html is not None:
        from chainret.render.html import write_standalone

        console.print(t(write_standalone(trace, file, html, catalog)))
        return
    if mermaid:
        typer.echo(trace_mermaid(trace), nl=False)
    else:
        console.print(trace_tree(trace))


@trace_app.command("verify")
def trace_verify(
    file: Path = typer.Argument(..., help="A trace JSON file (with --offline: a signed envelope from `trace sign`)."),
    catalog: Optional[str] = typer.Option(None, "--catalog", help="Catalog (file, world dir, .db file or postgresql:// URL) to replay against (default: the one the trace names)."),
    as_json: bool = typer.Option(False, "--json"),
    offline: bool = typer.Option(False, "--offline", help="Check a signed envelope with no catalog or store: its signature, digest, claims and the trace's own consistency (docs/proof.md)."),
    key: Optional[Path] = typer.Option(None, "--key", metavar="PUB", help="With --offline: the signer's public key (PEM)."),
) -> None:
    """Check a trace: cited evidence, a field-by-field replay, the catalog identity; exit 1 on a mismatch, 2 on bad input.

    With --offline --key PUB, check a signed envelope without the store instead (docs/proof.md).
    """
    from chainret.cli.render import console, t

    if offline or key is not None:
        _verify_offline(file, key, catalog, offline, as_json)
        return
    from chainret.verify.replay import verify
    from chainret.trace.model import read_trace

    result = verify(read_trace(file), catalog, trace_path=file)
    if as_json:
        typer.echo(json_out(json.dumps({"file": str(file), **result.model_dump()}, indent=2, ensure_ascii=False)))
    elif result.status == "mismatch":
        for d in result.differences:
            console.print(t((str(d.kind), "red"), f" {d.field}: {d.message}"))
    else:
        console.print(t((f"{file}: {result.summary()}", "green")))
    if not result.ok:
        raise typer.Exit(EXIT_NO)


def _verify_offline(file: Path, key: Optional[Path], catalog: Optional[str], offline: bool, as_json: bool) -> None:
    """``trace verify --offline --key PUB ENVELOPE``: chainret.verify.offline, each failed check named."""
    from chainret.cli.render import console, t
    from chainret.verify.offline import read_envelope, verify_envelope
    from chainret.verify.signing import load_public_key

    if not offline or key is None:
        raise UsageError("an offline check needs both --offline and --key PUB (the signer's public key)")
    if catalog is not None:
        raise UsageError("--offline reads no catalog: leave out --catalog")
    public_key = load_public_key(key)
    result = verify_envelope(read_envelope(file), public_key)
    if as_json:
        typer.echo(json_out(json.dumps({"file": str(file), **result.as_json()}, indent=2, ensure_ascii=False)))
    elif result.ok:
        console.print(t((f"{file}: verified offline ({len(result.checks)} checks): signed by this key; "
                         "the store was not consulted", "green")))
    else:
        for c in result.checks:
            if not c.ok:
                console.print(t((c.name, "red"), f" failed: {c.message}"))
    if not result.ok:
        raise typer.Exit(EXIT_NO)


@trace_app.command("keygen")
def trace_keygen(
    out: Path = typer.Option(..., "--out", metavar="DIR", help="Folder for key.pem (private, 0600) and key.pub; never overwritten."),
) -> None:
    """Make an Ed25519 key pair for signing traces (docs/proof.md: key handling and rotation)."""
    from chainret.cli.render import console, t
    from chainret.verify.signing import generate_keys

    priv, pub = generate_keys(out)
    console.print(t(f"wrote {priv} (private: keep it; 0600) and {pub} (public: publish it)"))


@trace_app.command("sign")
def trace_sign(
    file: Path = typer.Argument(..., help="A trace JSON file (`chainret ask --trace-out F`)."),
    key: Path = typer.Option(..., "--key", metavar="KEY.pem", help="Ed25519 private key (PEM, owner-only), e.g. from `trace keygen`."),
    out: Path = typer.Option(..., "--out", metavar="ENVELOPE.json", help="Where to write the signed envelope."),
    consistency: Optional[Path] = typer.Option(None, "--consistency", metavar="PROOF.json", help="Also prove an earlier checkpoint consistent with the trace's: the JSON `chainret catalog log --consistency OLD NEW --key KEY --json` prints."),
) -> None:
    """Sign a trace: a DSSE envelope anyone can check with `trace verify --offline --key PUB` (docs/proof.md)."""
    from chainret.cli.render import console, t
    from chainret.core.files import atomic_write_text
    from chainret.trace.model import read_trace
    from chainret.verify.signing import load_private_key, sign_trace

    check_output_path(out)
    envelope = sign_trace(read_trace(file), load_private_key(key), consistency=_consistency_file(consistency))
    atomic_write_text(out, json.dumps(envelope, indent=2) + "\n")
    console.print(t(f"wrote {out}: signed; check it with `chainret trace verify --offline --key PUB {out}`"))


def _consistency_file(path: Optional[Path]) -> Optional[dict[str, object]]:
    """The ``consistency`` object of a `catalog log --consistency ... --key ... --json` file (None: none given)."""
    from chainret.core.errors import UsageError

    if path is None:
        return None
    try:
        found = json.loads(path.read_text(encoding="utf-8")).get("consistency")
    except (OSError, ValueError, AttributeError) as exc:
        raise UsageError(f"{path}: not the JSON `chainret catalog log --consistency OLD NEW --key KEY --json` prints ({exc})") from None
    if not isinstance(found, dict):
        raise UsageError(f"{path}: holds no signed consistency (run `catalog log --consistency` with --key and --json)")
    return found


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.command("ask")(ask_cmd)
    app.command("eval")(eval_cmd)
    app.command("graph")(graph_cmd)
    app.command("patterns")(patterns_cmd)
    app.add_typer(trace_app, name="trace")
