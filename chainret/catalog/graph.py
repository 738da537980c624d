"""A networkx view of the catalog: nodes are entities, edges are relation records (key = relation id).

Used two ways: ``chainret graph`` exports it (mermaid, GraphML) for people, and tests use
``supported_paths`` as a brute-force path enumerator over usable relations, an oracle for the hop
engine's consistency. It reads the same authored records as the engine, so agreement checks the
implementation, not the world.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from typing import Protocol

import networkx as nx

from chainret.catalog.functional import Assignment
from chainret.core.textsafe import mermaid_label


class Edge(Assignment, Protocol):
    """What the graph needs of a relation as seen in a view (the engine's ``chainret.engine.hops.Rel`` is one)."""

    @property
    def unit_ref(self) -> str | None: ...
    @property
    def current(self) -> bool: ...
    @property
    def readable(self) -> bool: ...
    @property
    def valid(self) -> bool: ...
    @property
    def usable(self) -> bool: ...


def build_graph(relations: Iterable[Edge], entities: dict[str, dict[str, str]] | None = None) -> nx.MultiDiGraph:
    """MultiDiGraph with one edge per relation record (usable or not: the flags are attributes)."""
    g = nx.MultiDiGraph()
    for eid, attrs in sorted((entities or {}).items()):
        g.add_node(eid, **attrs)
    for r in sorted(relations, key=lambda r: r.id):
        for node in (r.subject, r.object):
            if node not in g:
                g.add_node(node, type=node.split(":", 1)[0])
        g.add_edge(
            r.subject,
            r.object,
            key=r.id,
            predicate=r.predicate,
            unit=r.unit_ref or "",
            current=r.current,
            readable=r.readable,
            valid=r.valid,
            usable=r.usable,
        )
    return g


def supported_paths(
    g: nx.MultiDiGraph, start: str, predicates: Sequence[str], functional: Iterable[str] = ()
) -> list[list[str]]:
    """Every relation-id path from ``start`` following ``predicates`` over usable edges.

    A functional predicate whose subject has usable edges to more than one object is a
    contradiction: no path crosses it (the engine stops there too). A path never enters a node
    already on it (the engine refuses cycles too).
    """
    func = set(functional)
    paths: list[list[str]] = []

    def walk(node: str, k: int, acc: list[str], seen: tuple[str, ...] = (start,)) -> None:
        if k == len(predicates):
            paths.append(acc)
            return
        pred = predicates[k]
        if node not in g:
            return
        edges = [
            (key, v)
            for _, v, key, d in g.out_edges(node, keys=True, data=True)
            if d["predicate"] == pred and d["usable"]
        ]
        if pred in func and len({v for _, v in edges}) > 1:
            return
        for key, v in sorted(edges):
            if v not in seen:
                walk(v, k + 1, [*acc, key], (*seen, v))

    walk(start, 0, [])
    return paths


def _mermaid_id(node: str) -> str:
    import hashlib

    plain = "".join(ch if ch.isascii() and ch.isalnum() else "_" for ch in node[:60])
    return f"n_{plain}_{hashlib.sha256(node.encode('utf-8')).hexdigest()[:6]}"  # distinct IDs, distinct nodes


def to_mermaid(g: nx.MultiDiGraph) -> str:
    """A mermaid flowchart: usable edges solid, unusable ones dotted with the reason."""
    lines = ["flowchart LR"]
    for node, data in sorted(g.nodes(data=True)):
        label = mermaid_label(node) if not data.get("name") else f"{mermaid_label(node)}<br/>{mermaid_label(data['name'])}"
        lines.append(f'    {_mermaid_id(node)}["{label}"]')
    for u, v, key, d in sorted(g.edges(keys=True, data=True), key=lambda e: e[2]):
        label = f"{d['predicate']} · {key}"
        arrow = "-->" if d["usable"] else "-.->"
        if not d["usable"]:
            flags = [n for n in ("current", "readable", "valid") if not d[n]]
            label += " (not " + ", ".join(flags or ["supported"]) + ")"
        lines.append(f'    {_mermaid_id(u)} {arrow}|"{mermaid_label(label)}"| {_mermaid_id(v)}')
    return "\n".join(lines) + "\n"


def to_graphml(g: nx.MultiDiGraph) -> str:
    """GraphML text (networkx writer); booleans and strings only, so every tool can read it."""
    buf = io.BytesIO()
    nx.write_graphml(g, buf)
    return buf.getvalue().decode("utf-8")
