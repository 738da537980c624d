"""`chainret ask`, `chainret eval`, `chainret graph` and `chainret trace show|verify`.

Thin commands: parse, one library call (``chainret.ask`` / ``chainret.replay``), render with rich.
Nothing here imports torch; ``eval --baselines`` may load the embedder lazily for the dense route.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.tree import Tree

from chainret.errors import UsageError
from chainret.trace import Budget, Trace, read_trace, write_trace

console = Console()
trace_app = typer.Typer(help="Inspect and replay chain traces.", no_args_is_help=True)


def default_trace_dir() -> Path:
    """``$CHAINRET_TRACE_DIR``, else ``$XDG_CACHE_HOME/chainret/traces`` (``~/.cache/chainret/traces``)."""
    env = os.environ.get("CHAINRET_TRACE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "chainret" / "traces"


def _trace_name(trace: Trace) -> str:
    import datetime
    import hashlib

    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    h = hashlib.sha256(trace.request.encode("utf-8")).hexdigest()[:8]
    return f"{stamp}-{h}.json"


def _budget(**values: int | None) -> Budget:
    """Only the flags given become explicit budget values (unset search/row caps scale with hops)."""
    from pydantic import ValidationError

    try:
        return Budget(**{k: v for k, v in values.items() if v is not None})
    except ValidationError as exc:
        msgs = "; ".join(f"--{'-'.join(map(str, e['loc'])).replace('_', '-')} ({e['loc'][0]}): {e['msg']}" for e in exc.errors())
        raise UsageError(f"bad budget flag: {msgs}") from None


def _yn(v: bool | None) -> str:
    return "—" if v is None else ("yes" if v else "no")


# -- rendering ---------------------------------------------------------------------------------
def render_trace(trace: Trace, trace_path: Path | None = None) -> None:
    """Readable summary: request, interpretation, hop table, path, packet, outcome."""
    console.print(f"[bold]request[/]      {trace.request}", highlight=False)
    it = trace.interpretation
    if it is not None:
        console.print(
            f"[bold]interpreted[/]  pattern {it.pattern} · {it.slot} {it.slot_text!r} → [cyan]{it.start_id}[/] · "
            f"hops {' → '.join(it.predicates)} · view {it.view} · principal {it.principal}",
            highlight=False,
        )
    if trace.hops:
        table = Table(title="hops", show_lines=True)
        for col in ("hop", "branch", "subquery", "returned rows", "anchor", "bridge", "left", "stopped"):
            table.add_column(col, overflow="fold")
        for h in trace.hops:
            rows = "\n".join(f"{x.rank}. {x.ref}" for x in h.hits) or ("(reuses its search)" if h.reuses else "—")
            table.add_row(
                str(h.index), h.branch, h.subquery, rows, h.anchor.relation_id if h.anchor else "—", h.bridge or "—",
                f"{h.searches_left}s {h.rows_left}r", h.refusal.code if h.refusal else "",
            )
        console.print(table)
        for h in trace.hops:
            if h.refusal is not None:
                console.print(f"  hop {h.index} (branch {h.branch}): {h.refusal.message}", highlight=False)
    if trace.path_ids:
        console.print(f"[bold]path[/]         {' → '.join(trace.path_ids)}  ({', '.join(trace.accepted_path or [])})", highlight=False)
    if trace.packet is not None:
        console.print(
            f"[bold]packet[/]       {len(trace.packet.items)} units, {trace.packet.cost} chars "
            f"(cap {trace.packet.max_items} units / {trace.packet.budget} chars)",
            highlight=False,
        )
        for item in trace.packet.items:
            console.print(f"  [dim]{item.ref}[/]  {item.text}", highlight=False)
    for name, p in trace.packets.items():
        console.print(f"[bold yellow]{name}[/] ({p.diagnostics.get('label', '')}): {len(p.items)} units, {p.cost} chars", highlight=False)
        for item in p.items:
            console.print(f"  [dim]{item.ref}[/]  {item.text[:120]}", highlight=False)
    colour = "green" if trace.outcome == "accepted_path" else "yellow"
    line = f"[bold]outcome[/]      [{colour}]{trace.outcome}[/]"
    if trace.reason is not None:
        line += f" — {trace.reason.message}"
    console.print(line, highlight=False)
    if trace.reason is not None and trace.reason.details.get("candidates"):
        for c in trace.reason.details["candidates"]:
            console.print(f"  candidate {c['id']} ({c['name']})", highlight=False)
    for a in trace.assumptions:
        console.print(f"[dim]assumption: {a}[/]", highlight=False)
    console.print(f"[dim]budget used: {trace.searches_used} searches, {trace.rows_used} rows[/]", highlight=False)
    if trace_path is not None:
        console.print(f"trace written to {trace_path}", highlight=False)


def trace_tree(trace: Trace) -> Tree:
    tree = Tree(f"[bold]{trace.request}[/] → [bold]{trace.outcome}[/]")
    if trace.interpretation:
        it = trace.interpretation
        tree.add(f"interpretation: {it.pattern} · {it.slot_text!r} → {it.start_id} · view {it.view} · principal {it.principal}")
    tree.add(f"catalog {trace.catalog_digest}")
    hops = tree.add("hops")
    for h in trace.hops:
        node = hops.add(f"hop {h.index} (branch {h.branch}) search {h.subquery!r} ({h.predicate}) · left {h.searches_left}/{h.rows_left}")
        for x in h.hits:
            node.add(f"#{x.rank} {x.ref} score {x.score:.4f}")
        if h.reuses:
            node.add(f"reuses the search of branch {h.reuses}")
        if h.anchor:
            node.add(f"anchor {h.anchor.relation_id} @ {h.anchor.unit_ref} {list(h.anchor.span)}: {h.anchor.quote!r}")
        if h.bridge:
            node.add(f"bridge → {h.bridge}" + (f" (other candidates: {', '.join(h.candidate_bridges)})" if h.candidate_bridges else ""))
        if h.refusal:
            node.add(f"[yellow]stopped: {h.refusal.code}[/] {h.refusal.message}")
    if trace.accepted_path:
        tree.add(f"accepted path: {' → '.join(trace.path_ids or [])} via {', '.join(trace.accepted_path)}")
    if trace.reason:
        tree.add(f"reason: {trace.reason.code}: {trace.reason.message}")
    cov = trace.coverage
    tree.add(f"coverage: anchors {len(cov.anchors_observed)}/{len(cov.anchors_required)} observed · complete bundle {_yn(cov.complete_bundle)}")
    if trace.packet:
        p = tree.add(f"packet: {trace.packet.cost} chars, {len(trace.packet.items)} units")
        for item in trace.packet.items:
            p.add(f"{item.ref}: {item.text!r}")
    return tree


def trace_mermaid(trace: Trace) -> str:
    """The hop sequence as a mermaid flowchart (one node per hop record, branches included)."""
    lines = ["flowchart TD", f'    Q["{trace.request.replace(chr(34), chr(39))}"]']
    nodes: dict[tuple[str, int], str] = {}
    for i, h in enumerate(trace.hops):
        nid = f"H{i}"
        label = f"hop {h.index} · branch {h.branch}: search {h.subquery}"
        if h.anchor:
            label += f"<br/>{h.anchor.relation_id} → {h.bridge or 'stopped'}"
        if h.refusal:
            label += f"<br/>stopped: {h.refusal.code}"
        lines.append(f'    {nid}["{label}"]')
        lines.append(f"    {_parent(nodes, h.branch, h.index - 1)} --> {nid}")
        nodes[(h.branch, h.index)] = nid
    end = "accepted path" if trace.outcome == "accepted_path" else trace.outcome
    lines.append(f'    O["{end}"]')
    if trace.hops:
        lines.append(f"    H{len(trace.hops) - 1} --> O")
    return "\n".join(lines) + "\n"


def _parent(nodes: dict[tuple[str, int], str], branch: str, index: int) -> str:
    """The node of hop ``index`` on ``branch`` or the branch it forked from ("0.1" forks from "0")."""
    if index < 1:
        return "Q"
    b = branch
    while True:
        if (b, index) in nodes:
            return nodes[(b, index)]
        if "." not in b:
            return "Q"
        b = b.rsplit(".", 1)[0]


# -- commands ---------------------------------------------------------------------------------------
def ask_cmd(
    request: str = typer.Argument(..., help='The request, e.g. "Which contact serves PR-84?"'),
    catalog: Optional[str] = typer.Option(None, "--catalog", help="Catalog file or world dir, compiled .db file or postgresql:// URL (default: $CHAINRET_CATALOG or catalogs/default.yaml)."),
    view: Optional[str] = typer.Option(None, "--view", help="View name (default: the catalog's current view)."),
    viewer: Optional[str] = typer.Option(None, "--as", help="Who will see the result (default: --principal). --as auditor audits a public request."),
    principal: str = typer.Option("public", "--principal", help="Whose access the request runs under."),
    as_json: bool = typer.Option(False, "--json", help="Print the (projected) trace as JSON."),
    trace_out: Optional[Path] = typer.Option(None, "--trace-out", help="Trace file (default: a new file under $CHAINRET_TRACE_DIR or ~/.cache/chainret/traces)."),
    no_trace: bool = typer.Option(False, "--no-trace", help="Do not write a trace file."),
    text_route: bool = typer.Option(False, "--text-route", help="When no pattern applies, add a labelled text-route result (not a supported chain)."),
    no_backtrack: bool = typer.Option(False, "--no-backtrack", help="Follow only the first eligible bridge of each hop."),
    rows_per_hop: Optional[int] = typer.Option(None, "--rows-per-hop", help="Rows per search [3]."),
    max_searches: Optional[int] = typer.Option(None, "--max-searches", help="Searches per request [number of hops]."),
    max_rows: Optional[int] = typer.Option(None, "--max-rows", help="Returned rows per request [rows-per-hop × searches]."),
    max_hops: Optional[int] = typer.Option(None, "--max-hops", help="Longest pattern allowed [3]."),
    packet_units: Optional[int] = typer.Option(None, "--packet-units", help="Units in the final packet [4]."),
    packet_chars: Optional[int] = typer.Option(None, "--packet-chars", help="Characters in the final packet [900]."),
) -> None:
    """Answer a relationship request with a supported chain, or say why not."""
    from chainret.ask import ask

    budget = _budget(
        rows_per_hop=rows_per_hop, max_searches=max_searches, max_rows=max_rows, max_hops=max_hops,
        packet_units=packet_units, packet_chars=packet_chars,
    )
    trace = ask(request, catalog, view=view, principal=principal, budget=budget, viewer=viewer,
                backtrack=not no_backtrack, text_route=text_route)
    path = None
    if not no_trace:
        path = write_trace(trace, trace_out or default_trace_dir() / _trace_name(trace))
    if as_json:
        typer.echo(trace.to_json())
    else:
        render_trace(trace, path)
    if trace.outcome == "refused":
        raise typer.Exit(1)


def eval_cmd(
    paths: list[Path] = typer.Argument(..., help="Fixture dirs or cases files (e.g. fixtures/)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per case plus totals."),
    baselines: bool = typer.Option(False, "--baselines", help="Also run the three text routes (dense loads the embedder)."),
    no_backtrack: bool = typer.Option(False, "--no-backtrack", help="Depth-first without backtracking (comparison)."),
    update_golden: Optional[Path] = typer.Option(None, "--update-golden", help="Rewrite golden traces under this dir (e.g. traces/)."),
) -> None:
    """Run every case of every world; exit 1 if any expectation fails."""
    from chainret.ask import evaluate_cases, totals
    from chainret.replay import write_golden

    results = evaluate_cases(paths, backtrack=not no_backtrack, baselines=baselines)
    tot = totals(results)
    if update_golden is not None:
        written = write_golden(results, update_golden)
        console.print(f"wrote {len(written)} golden traces under {update_golden}", highlight=False)
    if as_json:
        typer.echo(json.dumps({"cases": [r.row() for r in results], "totals": tot}, indent=2, sort_keys=True))
    else:
        render_eval(results, tot, baselines)
    if tot["expectations_met"] != tot["cases"]:
        raise typer.Exit(1)


def render_eval(results: list[Any], tot: dict[str, Any], baselines: bool) -> None:
    from chainret.ask import totals

    worlds = list(dict.fromkeys(r.world for r in results))
    for world in worlds:
        rows = [r for r in results if r.world == world]
        table = Table(title=f"world {world}: chain retriever", title_justify="left")
        for col in ("case", "group", "outcome", "1st anchor obs.", "2nd anchor obs.", "bundle in packet", "accepted", "chars", "ok"):
            table.add_column(col, overflow="fold")
        for r in rows:
            table.add_row(
                r.case.id, r.case.group, r.trace.outcome, _yn(r.first_anchor_observed), _yn(r.second_anchor_observed),
                _yn(r.complete_bundle), _yn(r.accepted), str(r.trace.packet.cost) if r.trace.packet else "—",
                "[green]ok[/]" if r.ok else "[red]FAIL[/] " + "; ".join(r.problems),
            )
        console.print(table)
        if baselines:
            bt = Table(title=f"world {world}: text routes (cap 4 units / 900 chars; never an accepted path)", title_justify="left")
            for col in ("case", "route", "1st anchor obs.", "2nd anchor obs.", "bundle in packet", "chars"):
                bt.add_column(col, overflow="fold")
            for r in rows:
                if r.case.group == "other":
                    continue
                for row in r.baselines.values():
                    bt.add_row(r.case.id, row["route"], _yn(row["first_anchor_observed"]), _yn(row["second_anchor_observed"]),
                               _yn(row["complete_bundle"]), str(row["packet_chars"]))
            console.print(bt)
        _print_totals(f"{world}: ", totals(rows))
    if len(worlds) > 1:
        _print_totals("all worlds: ", tot)
    console.print(f"expectations met {tot['expectations_met']}/{tot['cases']}", highlight=False)


def _print_totals(prefix: str, tot: dict[str, Any]) -> None:
    pa, pn = tot["positive_accepted"]
    ua, un = tot["unsupported_complete_paths"]
    cb, cn = tot["complete_bundles"]
    console.print(f"{prefix}positive accepted {pa}/{pn} · unsupported complete paths {ua}/{un} · chain complete bundles {cb}/{cn}", highlight=False)
    for key in sorted(k for k in tot if ":" in k):
        a, n = tot[key]
        console.print(f"{prefix}  {key} {a}/{n}", highlight=False)


def graph_cmd(
    catalog: Optional[str] = typer.Option(None, "--catalog", help="Catalog file or world dir, .db file or postgresql:// URL (default catalog if omitted)."),
    view: Optional[str] = typer.Option(None, "--view", help="View name (default: current)."),
    principal: str = typer.Option("public", "--as", help="Principal whose eligibility colours the edges."),
    fmt: str = typer.Option("mermaid", "--format", help="mermaid or graphml."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write here (atomically) instead of stdout."),
) -> None:
    """Export the catalog's relation graph (edge key = relation id) as mermaid or GraphML."""
    from chainret.ask import catalog_graph
    from chainret.catalog.graph import to_graphml, to_mermaid

    if fmt not in ("mermaid", "graphml"):
        raise UsageError(f"--format must be mermaid or graphml, found {fmt!r}")
    g = catalog_graph(catalog, view, principal)
    text = to_mermaid(g) if fmt == "mermaid" else to_graphml(g)
    if out is None:
        typer.echo(text, nl=False)
    else:
        from chainret.trace import atomic_write_text

        atomic_write_text(out, text)
        console.print(f"wrote {out} ({g.number_of_nodes()} nodes, {g.number_of_edges()} edges)", highlight=False)


@trace_app.command("show")
def trace_show(
    file: Path = typer.Argument(..., help="A trace JSON file."),
    mermaid: bool = typer.Option(False, "--mermaid", help="Print a mermaid flowchart of the hops instead."),
) -> None:
    """Show a trace as a tree (or a mermaid flowchart)."""
    trace = read_trace(file)
    if mermaid:
        typer.echo(trace_mermaid(trace), nl=False)
    else:
        console.print(trace_tree(trace), highlight=False)


@trace_app.command("verify")
def trace_verify(
    file: Path = typer.Argument(..., help="A trace JSON file."),
    catalog: Optional[str] = typer.Option(None, "--catalog", help="Catalog (file, world dir, .db file or postgresql:// URL) to replay against (default: the one the trace names)."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Check a trace: cited evidence, a field-by-field replay, the catalog identity; exit 1 on a mismatch."""
    from chainret.replay import verify

    result = verify(read_trace(file), catalog, trace_path=file)
    if as_json:
        typer.echo(json.dumps({"file": str(file), **result.model_dump()}, indent=2))
    elif result.status == "mismatch":
        for d in result.differences:
            console.print(f"[red]{d.kind}[/] {escape(d.field)}: {escape(d.message)}", highlight=False)
    else:
        console.print(f"[green]{escape(str(file))}: {escape(result.summary())}[/]", highlight=False)
    if not result.ok:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.command("ask")(ask_cmd)
    app.command("eval")(eval_cmd)
    app.command("graph")(graph_cmd)
    app.add_typer(trace_app, name="trace")
