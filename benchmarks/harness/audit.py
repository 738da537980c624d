"""Audits of the permission promise and of trace verification, over random worlds.

``leak_property(n, seed)`` asks ``n`` random requests (random worlds, views, budgets, principals
and viewers, ``--as`` combinations included) and checks each shown trace against the reference
the promise is stated for: the same request over the catalog with every document the viewer may
not read deleted. It counts

* *inferable differences*: the outcome or reason code shown differs from the reference's (a viewer
  could infer that records it may not read exist), and
* *leaks*: the shown JSON contains a ref, relation ID, entity ID or text that only documents the
  viewer may not read hold.

``tamper_suite(seed)`` forges traces one field at a time (quotes, spans, digests, packet text,
hits, counters, budget, viewer, principal, projection flag, outcome, path, coverage, meta) and
edits catalogs (a cited clause, an unrelated record) and counts what ``trace verify`` catches.

Both are deterministic for a seed; the tests run CI-sized batches, ``benchmarks/robustness.py``
the full counts.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from chainret.pipeline.ask import ask
from chainret.catalog.models import Catalog, View
from chainret.catalog.readable import known_entities, readable_docs, reader_views
from chainret.core.errors import UsageError
from chainret.verify.replay import verify
from chainret.trace.model import Budget, Trace
from benchmarks.harness.catalogs import changed
from benchmarks.harness.worldgen import ANSWERABLE_BUDGET, ANSWERABLE_SHARE, PRINCIPALS, answerable, random_world


def without_unreadable(cat: Catalog, viewer: str) -> Catalog:
    """The reference catalog: every document version ``viewer`` may not read deleted, with its relations.

    Entities are kept as declared: whether an entity may be named is for the engine to work out.
    """
    docs = readable_docs(cat, viewer)
    return changed(
        cat,
        documents=[d for d in cat.documents if d.ref in docs],
        relations=[r for r in cat.relations if r.support.doc_ref in docs],
        # (a view only unreadable documents made is not in it: chainret.catalog.readable.reader_views)
        views=[View(**v.model_dump()) for v in reader_views(cat.views, docs)],
    )


def secrets(cat: Catalog, viewer: str) -> list[re.Pattern[str]]:
    """Patterns for what only documents ``viewer`` may not read hold (refs, relation and entity IDs, text)."""
    readable = readable_docs(cat, viewer)
    known = known_entities(cat, viewer)
    readable_text = "\n".join(d.text for d in cat.documents if d.ref in readable)
    out: set[str] = set()
    for d in cat.documents:
        if d.ref in readable:
            continue
        if not any(o.ref.startswith(d.ref) for o in cat.documents if o.ref in readable):
            out.add(d.ref)
        for para in d.text.split("\n\n"):
            para = para.strip()
            if para and para not in readable_text:
                out.add(para)
    out |= {r.id for r in cat.relations if r.support.doc_ref not in readable}
    out |= {e.id for e in cat.entities if e.id not in known}
    return [re.compile(r"(?<![\w:.@/-])" + re.escape(s) + r"(?![\w.@-])") for s in sorted(out)]


@dataclass
class LeakReport:
    requests: int = 0
    worlds: int = 0
    inferable_differences: int = 0
    leaks: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)
    accepted: int = 0  # shown outcomes that are accepted paths (the whole hop path was exercised)

    def ok(self) -> bool:
        return self.inferable_differences == 0 and self.leaks == 0

    def accepted_share(self) -> float:
        return self.accepted / self.requests if self.requests else 0.0


def _code(t: Trace) -> tuple[str, str | None]:
    return t.outcome, t.reason.code if t.reason else None


VARIED_SHARE = 0.3  # requests reworded the way people ask, so the tolerant readings (issue 23) are under the property


def vary(rng: random.Random, request: str) -> str:
    """The request as someone might type it: a typo, the name normalised away, politeness, or the chain said
    relation by relation. Typo candidates and did-you-mean suggestions must stay within what the viewer may know."""
    m = re.match(r"^Which contact serves (.+)\?$", request)
    name = m.group(1) if m else ""
    kind = rng.randrange(4)
    if name and kind == 0:  # a typo: one letter doubled, dropped or swapped with the next
        i = rng.randrange(len(name))
        op = rng.randrange(3)
        typo = name[:i] + name[i] * 2 + name[i + 1 :] if op == 0 else name[:i] + name[i + 1 :] if op == 1 else \
            name[:i] + name[i + 1 : i + 2] + name[i : i + 1] + name[i + 2 :]
        return f"Which contact serves {typo}?"
    if name and kind == 1:
        return f"which contact serves {name.lower().replace('-', ' ')}"
    if name and kind == 2:
        return f"Who is the contact of the operator of {name}?"
    return f"Could you tell me {request[:1].lower()}{request[1:]} Thanks"


def leak_property(n: int, seed: int = 0, *, per_world: int = 60) -> LeakReport:
    """Ask ``n`` random requests and check each shown trace against the viewer's reference catalog."""
    rng = random.Random(seed)
    rep = LeakReport()
    while rep.requests < n:
        world = random_world(rng)
        cat = world.catalog
        rep.worlds += 1
        refs: dict[str, Catalog] = {v: without_unreadable(cat, v) for v in PRINCIPALS}
        pats = {v: secrets(cat, v) for v in PRINCIPALS}
        accepting = answerable(cat, world.requests)
        for _ in range(min(per_world, n - rep.requests)):
            if accepting and rng.random() < ANSWERABLE_SHARE:  # a request the principal gets an answer to
                request, view, principal = rng.choice(accepting)
                viewer = principal if rng.random() < 0.5 else rng.choice(PRINCIPALS)
                budget, text_route = ANSWERABLE_BUDGET, False
            else:
                request = rng.choice(world.requests)
                view = rng.choice([None, *(v.name for v in cat.views)])
                principal, viewer = rng.choice(PRINCIPALS), rng.choice(PRINCIPALS)
                budget = Budget(rows_per_hop=rng.randint(1, 4), packet_chars=rng.choice([40, 900]))
                text_route = rng.random() < 0.2
            if rng.random() < VARIED_SHARE:
                request = vary(rng, request)
            if view is not None and view not in refs[viewer].views_by_name:  # unknown to the viewer, as to the reference
                rep.requests += 1
                try:
                    ask(request, cat, view=view, principal=principal, viewer=viewer, budget=budget, text_route=text_route)
                except UsageError:
                    continue
                rep.leaks += 1
                rep.examples.append({"world_seed": seed, "request": request, "view": view, "viewer": viewer,
                                     "problem": "answered in a view the viewer's reference catalog does not have"})
                continue
            shown = ask(request, cat, view=view, principal=principal, viewer=viewer, budget=budget, text_route=text_route)
            ref = ask(request, refs[viewer], view=view, principal=principal, budget=budget, text_route=text_route, project=False)
            rep.requests += 1
            rep.accepted += shown.outcome == "accepted_path"
            problem: dict[str, Any] = {}
            if _code(shown) != _code(ref):
                rep.inferable_differences += 1
                problem["shown"], problem["reference"] = _code(shown), _code(ref)
            text = shown.to_json()
            found = [p.pattern for p in pats[viewer] if p.search(text) and not p.search(request)]  # typed words are not a leak
            if found:
                rep.leaks += 1
                problem["leaked"] = found[:3]
            if problem and len(rep.examples) < 5:
                rep.examples.append({"world_seed": seed, "request": request, "view": view, "principal": principal, "viewer": viewer, **problem})
    return rep


# -- tampering ---------------------------------------------------------------------------------------
Tamper = Callable[[dict[str, Any]], bool]  # edits trace JSON in place; False when it does not apply


def _first(items: list[Any], pred: Callable[[Any], bool]) -> Any:
    return next((x for x in items if pred(x)), None)


def _anchor(d: dict[str, Any]) -> dict[str, Any] | None:
    hop = _first(d["hops"], lambda h: h.get("anchor"))
    return hop["anchor"] if hop else None


def _set(path: Callable[[dict[str, Any]], Any], key: str, fn: Callable[[Any], Any]) -> Tamper:
    def apply(d: dict[str, Any]) -> bool:
        target = path(d)
        if not target or key not in target:
            return False
        new = fn(target[key])
        if new == target[key]:
            return False
        target[key] = new
        return True

    return apply


def _flip_letter(s: str) -> str:
    i = next((i for i, c in enumerate(s) if c.isalpha()), None)
    return s if i is None else s[:i] + ("x" if s[i] != "x" else "y") + s[i + 1 :]


def _shift(span: list[int]) -> list[int]:
    return [span[0] + 1, span[1] + 1]


TAMPERINGS: dict[str, Tamper] = {
    "anchor.quote": _set(_anchor, "quote", _flip_letter),
    "anchor.span": _set(_anchor, "span", _shift),
    "anchor.digest": _set(_anchor, "digest", lambda s: s[:-1] + ("0" if s[-1] != "0" else "1")),
    "anchor.unit_ref": _set(_anchor, "unit_ref", lambda s: s[:-1] + str((int(s[-1]) + 1) % 10) if s[-1].isdigit() else s),
    "anchor.relation_id": _set(_anchor, "relation_id", lambda s: s + "x"),
    "anchor.version": _set(_anchor, "version", lambda s: s + "x"),
    "packet.text": _set(lambda d: d.get("packet"), "text", lambda s: s + " (and Rowan)"),
    "packet.item.text": _set(lambda d: (d.get("packet") or {}).get("items", [None])[0], "text", _flip_letter),
    "packet.item.span": _set(lambda d: (d.get("packet") or {}).get("items", [None])[0], "span", _shift),
    "packet.cost": _set(lambda d: d.get("packet"), "cost", lambda c: c - 1),
    "hit.score": _set(lambda d: _first([x for h in d["hops"] for x in h["hits"]], bool), "score", lambda s: s + 1.0),
    "hit.ref": _set(lambda d: _first([x for h in d["hops"] for x in h["hits"]], bool), "ref", lambda s: s + "0"),
    "hop.bridge": _set(lambda d: _first(d["hops"], lambda h: h.get("bridge")), "bridge", lambda s: s + "x"),
    "hop.rows_left": _set(lambda d: _first(d["hops"], bool), "rows_left", lambda n: n + 1),
    "hop.candidate_bridges": _set(lambda d: _first(d["hops"], bool), "candidate_bridges", lambda c: [*c, "org:final:ghost"]),
    "hop.refusal.code": _set(lambda d: _first([h.get("refusal") for h in d["hops"]], bool), "code", lambda c: "budget_exhausted" if c != "budget_exhausted" else "contradiction"),
    "budget.max_rows": _set(lambda d: d, "budget", lambda b: {**b, "max_rows": b["max_rows"] + 7}),
    "budget.packet_chars": _set(lambda d: d, "budget", lambda b: {**b, "packet_chars": b["packet_chars"] + 1}),
    "rows_used": _set(lambda d: d, "rows_used", lambda n: max(0, n - 1) if n else 1),
    "searches_used": _set(lambda d: d, "searches_used", lambda n: n + 1),
    "outcome": _set(lambda d: d, "outcome", lambda o: "accepted_path" if o != "accepted_path" else "partial_evidence"),
    "accepted_path": _set(lambda d: d, "accepted_path", lambda p: None if p else ["rel-1"]),
    "path_ids": _set(lambda d: d, "path_ids", lambda p: [*p[:-1], "contact:final:desk" if p[-1] != "contact:final:desk" else "contact:final:field"] if p else None),
    "reason.code": _set(lambda d: d.get("reason"), "code", lambda c: "dead_end" if c != "dead_end" else "contradiction"),
    "reason.message": _set(lambda d: d.get("reason"), "message", lambda m: m + " (see vault)"),
    "coverage.complete_bundle": _set(lambda d: d["coverage"], "complete_bundle", lambda b: not b),
    "assumptions": _set(lambda d: d, "assumptions", lambda a: [*a, "no check was needed"]),
    "request": _set(lambda d: d, "request", lambda r: r.replace("contact", "org", 1)),
    "catalog_digest": _set(lambda d: d, "catalog_digest", lambda s: (s or "")[:-1] + "0" if (s or "x")[-1] != "0" else (s or "")[:-1] + "1"),
    "meta.viewer": _set(lambda d: d["meta"], "viewer", lambda v: "auditor" if v != "auditor" else "public"),
    "meta.principal": _set(lambda d: d["meta"], "principal", lambda v: "auditor" if v != "auditor" else "public"),
    "meta.revision": _set(lambda d: d["meta"], "revision", lambda v: "2" + v[1:] if not v.startswith("2") else "3" + v[1:]),
    "meta.projected": _set(lambda d: d["meta"], "projected", lambda v: not v),
    "meta.view": _set(lambda d: d["meta"], "view", lambda v: "final" if v != "final" else "revised"),
    "meta.backtrack": _set(lambda d: d["meta"], "backtrack", lambda v: not v),
    "interpretation.start_id": _set(lambda d: d.get("interpretation"), "start_id", lambda s: s + "x"),
}


@dataclass
class TamperReport:
    tried: int = 0
    caught: int = 0
    not_forgeries: int = 0  # edits of a parameter that give a trace those parameters really produce
    missed: list[str] = field(default_factory=list)
    catalog_edits: int = 0
    catalog_edits_right: int = 0  # cited edits -> mismatch, unrelated hand edits -> identity (only catalog_digest differs)
    wrong_catalog_verdicts: list[str] = field(default_factory=list)

    def ok(self) -> bool:
        return not self.missed and not self.wrong_catalog_verdicts


def tamper_suite(seed: int = 0, catalog_path: str | None = None) -> TamperReport:
    """Forge traces of the seed world one field at a time; edit its catalog; count what verify catches."""
    import tempfile
    from pathlib import Path

    from chainret.catalog.load import default_catalog_path

    rng = random.Random(seed)
    rep = TamperReport()
    src = Path(catalog_path) if catalog_path else default_catalog_path()
    requests = [
        ("Which contact serves PR-84?", None, "public", None),
        ("Which contact serves PR-84?", "final", "public", None),
        ("Which contact serves PR-84?", "final", "public", "auditor"),
        ("Which contact serves project:final:main?", "revised", "auditor", "public"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        cat_file = Path(tmp) / "catalog.yaml"
        cat_file.write_text(_restricted_copy(src), encoding="utf-8")
        traces = [ask(r, str(cat_file), view=v, principal=p, viewer=w) for r, v, p, w in requests]
        for t in traces:
            base = json.loads(t.to_json())
            for name, tamper in TAMPERINGS.items():
                d = json.loads(json.dumps(base))
                if not tamper(d):
                    continue
                try:
                    forged = Trace.model_validate(d)
                except ValueError:  # a forgery that is not even a valid trace is refused on reading
                    rep.tried += 1
                    rep.caught += 1
                    continue
                if _genuine(forged, str(cat_file)):
                    rep.not_forgeries += 1  # the edit yields exactly what those parameters give
                    continue
                rep.tried += 1
                caught = not verify(forged).ok  # "evidence intact" on a forgery is a miss too
                rep.caught += caught
                if not caught:
                    rep.missed.append(f"{name} ({t.request!r}, view {t.meta['view']}, as {t.meta['viewer']})")
        # catalog edits: a cited clause's document, and an unrelated record, in turn
        text = cat_file.read_text(encoding="utf-8")
        t = traces[0]
        anchor = next(h.anchor for h in t.hops if h.anchor is not None)
        edits = {
            "cited document text": (text.replace(anchor.quote, anchor.quote.replace("REL ", "REL  "), 1), "mismatch"),
            # a hand edit leaves no earlier view to rebuild the old identity from: evidence and replay hold, the identity does not
            "unrelated entity description": (re.sub(r"(description: )(\w)", r"\1edited \2", text, count=2), "identity"),
        }
        for name, (edited, want) in edits.items():
            if edited == text:
                continue
            cat_file.write_text(edited, encoding="utf-8")
            rep.catalog_edits += 1
            got: str
            try:
                got = _verdict(verify(t))
            except Exception as exc:  # noqa: BLE001 - a crash is a wrong verdict, recorded
                got = f"error {type(exc).__name__}"
            if got == want:
                rep.catalog_edits_right += 1
            else:
                rep.wrong_catalog_verdicts.append(f"{name}: {got}, expected {want}")
            cat_file.write_text(text, encoding="utf-8")
    _ = rng
    return rep


def _verdict(v: Any) -> str:
    """A verification's status, with ``identity`` for a mismatch whose only differences are the catalog identity's."""
    return "identity" if v.status == "mismatch" and all(d.kind == "catalog" for d in v.differences) else str(v.status)


def _restricted_copy(src: Any) -> str:
    """The catalog at ``src`` with its final-view contact registry readable by the auditor only."""
    import yaml

    from chainret.catalog.load import load_world
    from chainret.store import catalog_path

    data = load_world(catalog_path(src)).catalog.model_dump(mode="json")
    for d in data["documents"]:
        if d["document"] == "contacts.md":
            d.update(visibility="restricted", principals=["auditor"])
            break
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def _genuine(trace: Trace, catalog: str) -> bool:
    """True when the trace is exactly what its recorded parameters give (checked with ``ask``, not ``verify``)."""
    m = trace.meta
    projected = bool(m.get("projected", True))
    again = ask(trace.request, catalog, view=m.get("view"), principal=str(m.get("principal")), budget=Budget(**trace.budget.model_dump()),
                viewer=m.get("viewer") if projected else None, backtrack=bool(m.get("backtrack", True)), project=projected)
    strip = lambda t: {k: v for k, v in json.loads(t.to_json()).items() if k != "meta"} | {"meta": {k: v for k, v in t.meta.items() if k != "ask_ms"}}  # noqa: E731
    return bool(strip(again) == strip(trace))
