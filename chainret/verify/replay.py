"""Traces that prove themselves: ``chainret trace verify`` and golden traces (``traces/``).

A trace records the request and its parameters (view, principal, viewer, budget, backtracking,
projection) and the catalog identity it was computed over. ``verify`` checks it in three parts:

1. **Evidence.** Every cited document version (hop anchors, packet items) is looked up in the
   catalog and checked by itself: it exists, the sha256 of its text is the digest the trace cites,
   and the quote is verbatim at the cited span inside the cited unit. A forged quote, span, digest
   or packet text fails here, whatever else the trace says.
2. **Replay.** The request is run again from its recorded parameters (for a fixture case: from the
   cases file, not from the trace) and the whole trace is compared field by field; the first
   differing field is reported with both values (``hops[1].anchor.quote``). Only timings differ
   legitimately.
3. **Catalog identity.** The trace's ``catalog_digest`` is compared with the catalog's identity
   for the trace's viewer (the full digest for an unprojected audit trace). A different identity
   with intact evidence and an identical replay means an unrelated part of the catalog changed:
   the verdict is ``evidence_intact`` ("catalog changed, this trace's evidence intact"), not a
   failure, but only for an identity the catalog really had for that viewer. A compiled store
   records every identity of every compile and update (``identities``), so a claimed identity it
   never had is a difference; so is one it had for *another* viewer (``meta.viewer`` or
   ``meta.projected`` relabelled). A catalog file keeps no history of identities, but its views
   are its versions: the writers (``catalog build``, ``catalog import``, ``catalog history``)
   only ever append views, document versions and relations, so the catalog as it was when an
   earlier view was its newest can be rebuilt from the file (``earlier_catalogs``). A claimed
   identity that is neither the file's current one nor one of those is a difference naming
   ``catalog_digest``: a trace written before a hand edit of the file cannot be told from a
   forged one (compile a store to keep every identity).
4. **Revision.** A trace's ``meta.revision`` (``<n>.<hex>``, absent from golden traces) must be the
   revision the catalog showed that viewer at the trace's identity: a compiled store's n-th
   identity for the viewer; for a catalog file, always ``1.`` and the identity itself.
5. **Log.** A trace asked of a store with a log carries ``meta.log`` (its viewer's checkpoint and the anchors'
   inclusion proofs): it must name a checkpoint the store's log had for that viewer, and its proofs must hold
   (``chainret.verify.logcheck``). It is left out of the replay comparison: a later write moves the checkpoint.

Golden traces are the offline (unprojected) traces of every fixture case, one file per case at
``<root>/<world>/<case>.json``; ``chainret eval fixtures --update-golden traces`` rewrites them.
They record ``projected: false`` and, when they cite a document version that is not public,
``holds_restricted: true``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from pydantic import BaseModel

from chainret.catalog.issues import CatalogFileInvalid
from chainret.catalog.models import Catalog, Entity, SourceDocument, Unit, doc_ref, merge_sources, sha256_digest, unit_doc
from chainret.store.base import CatalogReader, revision_token
from chainret.core.errors import UsageError
from chainret.trace.model import SCHEMA_VERSION, Budget, Trace, write_trace

if TYPE_CHECKING:
    from chainret.evaluate.cases import CaseResult

VOLATILE_META = ("ask_ms", "revision", "log")  # how long it took; which catalog write answered it (and its log proofs)
_MAX_SHOWN = 160  # characters of a value shown in a difference message


@runtime_checkable
class Evidence(Protocol):
    """What the evidence check reads of a catalog: document versions by ref, units and entities, each
    readable or not (a ``MemoryStore``; a SQL store's ``evidence_as``)."""

    @property
    def documents_by_ref(self) -> Mapping[str, SourceDocument]: ...

    def unit(self, ref: str) -> Unit | None: ...

    def entity(self, entity_id: str) -> Entity | None: ...


@runtime_checkable
class CitedText(Protocol):
    """A store that reads cited text as the trace's principal (a SQL store: under PostgreSQL's policies)."""

    def evidence_as(self, principal: str) -> Evidence: ...


@runtime_checkable
class IdentityHistory(Protocol):
    """A compiled store's record of every identity it showed each viewer class (its ``identities`` table)."""

    def identity_history(self, viewer: str | None) -> list[str]: ...

    def identities_ever(self) -> dict[str, set[str]]: ...


def _reader(catalog: Catalog | CatalogReader) -> CatalogReader:
    from chainret.store import resolve_catalog  # the public functions here still take a Catalog

    return resolve_catalog(catalog)


def _evidence(store: CatalogReader, principal: str) -> Evidence:
    """Where cited text is read: as ``principal`` where the store reads that way, else the store itself."""
    if isinstance(store, CitedText):
        return store.evidence_as(principal)
    if isinstance(store, Evidence):
        return store
    raise TypeError(f"{type(store).__name__} cannot show the documents a trace cites")


class Difference(BaseModel):
    """One way a trace and the catalog disagree: ``kind`` is evidence | replay | catalog."""

    kind: Literal["evidence", "replay", "catalog"]
    field: str
    message: str


class Verification(BaseModel):
    """The verdict: ``verified``, ``evidence_intact`` (catalog changed elsewhere) or ``mismatch``."""

    status: Literal["verified", "evidence_intact", "mismatch"]
    catalog_changed: bool
    differences: list[Difference]

    @property
    def ok(self) -> bool:
        return self.status != "mismatch"

    def summary(self) -> str:
        if self.status == "verified":
            return "replay matches; every cited document version checks out"
        if self.status == "evidence_intact":
            return "catalog changed, this trace's evidence intact (replay matches; cited document versions unchanged)"
        return f"{len(self.differences)} difference(s); first: {self.differences[0].field}: {self.differences[0].message}"


def golden_path(root: str | os.PathLike[str], world: str, case_id: str) -> Path:
    return Path(root) / world / f"{case_id}.json"


def stable(trace: Trace) -> Trace:
    """The trace without run-dependent fields (timings), as stored in golden files."""
    return trace.model_copy(update={"meta": {k: v for k, v in trace.meta.items() if k not in VOLATILE_META}})


def write_golden(results: Sequence[CaseResult], root: str | os.PathLike[str]) -> list[Path]:
    """Write each case result's trace to its golden file (atomic writes)."""
    return [write_trace(stable(r.trace), golden_path(root, r.world, r.case.id)) for r in results]


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 1] + "…"


def first_difference(old: object, new: object, path: str = "") -> tuple[str, object, object] | None:
    """The first field (depth-first, keys sorted) where two JSON values differ."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            name = str(key) if str(key).isprintable() and len(str(key)) <= 60 else _shown(key)[:60]
            sub = f"{path}.{name}" if path else name
            if key not in old or key not in new:
                return sub, old.get(key, "<absent>"), new.get(key, "<absent>")
            found = first_difference(old[key], new[key], sub)
            if found:
                return found
        return None
    if isinstance(old, list) and isinstance(new, list):
        for i, (a, b) in enumerate(zip(old, new)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        if len(old) != len(new):
            return f"{path}.length", len(old), len(new)
        return None
    return None if old == new else (path, old, new)


def _comparable(trace: Trace) -> dict[str, object]:
    data: dict[str, object] = json.loads(stable(trace).to_json())  # the rounding a written trace has
    data.pop("catalog_digest", None)  # checked on its own (part 3)
    return data


def evidence_differences(trace: Trace, catalog: Catalog | CatalogReader, reader: str | None = None) -> list[Difference]:
    """Check every cited document version by itself: existence, digest, quote at span, unit.

    Cited text is read as the trace's principal (``CitedText``). With a ``reader``, a message never
    quotes text or a digest of a document that reader may not read (a server verifying a caller's
    trace): it says only that the citation does not check out.
    """
    store = _reader(catalog)
    readable = store.readable_docs(reader) if reader is not None else None
    evidence = _evidence(store, str(trace.meta.get("principal", "public")))
    out: list[Difference] = []
    docs = evidence.documents_by_ref
    # field, unit ref, doc ref, cited digest (None: the citation names none), span, quote
    cited: list[tuple[str, str, str, str | None, tuple[int, int], str]] = []
    for i, hop in enumerate(trace.hops):
        a = hop.anchor
        if a is not None:
            cited.append((f"hops[{i}].anchor", a.unit_ref, doc_ref(a.source, a.document, a.version), a.digest, a.span, a.quote))
    if trace.packet is not None:
        for i, item in enumerate(trace.packet.items):
            doc = item.doc_id or unit_doc(item.ref)
            if item.span is None:  # a whole-unit item: its text must be that unit's
                unit = evidence.unit(item.ref)
                if unit is None or unit.text != item.text:
                    out.append(Difference(kind="evidence", field=f"packet.items[{i}].text", message=f"not the text of unit {_shown(item.ref)}"))
                continue
            cited.append((f"packet.items[{i}]", item.ref, doc, None, item.span, item.text))
        joined = trace.packet.separator.join(i.text for i in trace.packet.items)
        if joined != trace.packet.text:
            out.append(Difference(kind="evidence", field="packet.text", message="packet text is not its items joined"))
    hashes: dict[str, str] = {}  # each cited document version is hashed once
    for field, unit_ref, cited_doc, digest, span, quote in cited:
        source = docs.get(cited_doc)
        if source is None or (readable is not None and cited_doc not in readable):
            out.append(Difference(kind="evidence", field=field, message=f"cited document version {_shown(cited_doc)} is not in the catalog {reader or ''} may read".replace("  ", " ")))
            continue
        if digest is not None:
            if cited_doc not in hashes:
                hashes[cited_doc] = sha256_digest(source.text)
            actual = hashes[cited_doc]
            if digest != actual:
                out.append(Difference(kind="evidence", field=f"{field}.digest", message=f"cites digest {_shown(digest)}; {cited_doc} text hashes to {actual}"))
                continue
        start, end = span
        if source.text[start:end] != quote:
            out.append(Difference(kind="evidence", field=f"{field}.quote", message=f"{_shown(quote)} is not the text at {cited_doc}[{start}:{end}] ({_shown(source.text[start:end])})"))
            continue
        unit = evidence.unit(unit_ref)
        if unit is None or unit.doc_ref != cited_doc or not (unit.start <= start and end <= unit.end):
            out.append(Difference(kind="evidence", field=f"{field}.unit_ref", message=f"span [{start}, {end}) of {cited_doc} is not inside unit {_shown(unit_ref)}"))
    out.extend(_statements(trace, evidence))
    return out


def statement_differences(trace: Trace, catalog: Catalog | CatalogReader) -> list[Difference]:
    """Each hop's quote must state that hop's step (``chainret.catalog.statement``), from the cited text alone.

    The step is the hop's start node, its predicate and its bridge (for a hop refused on an opposing
    assignment, the bridge it proposed). A store's own flags are not consulted, so a store row edited
    after compiling, or a trace whose bridge was changed, fails here even when the quote is verbatim.
    """
    return _statements(trace, _evidence(_reader(catalog), str(trace.meta.get("principal", "public"))))


def _statements(trace: Trace, evidence: Evidence) -> list[Difference]:
    from chainret.catalog.statement import states

    lookup = evidence.entity
    out: list[Difference] = []
    for i, hop in enumerate(trace.hops):
        a = hop.anchor
        if a is None or hop.from_id is None or hop.predicate is None:
            continue
        proposed = hop.refusal.details.get("proposed") if hop.refusal is not None else None
        obj = hop.bridge if hop.bridge is not None else (proposed if isinstance(proposed, str) else None)
        st = states(a.support_kind, a.quote, hop.from_id, hop.predicate, obj, lookup)
        if not st.ok:
            out.append(Difference(kind="evidence", field=f"hops[{i}].anchor.quote", message=f"{st.message} ({st.code})"))
    return out


def _locate(recorded: str, trace_path: Path | None) -> Path:
    """A recorded relative path (golden traces record ``fixtures/seed/cases.yaml``), from any cwd.

    Tried as given, then against each parent folder of the trace file (a golden trace lives inside
    the repository that holds its cases file).
    """
    p = Path(recorded)
    if p.is_absolute() or p.exists() or trace_path is None:
        return p
    for parent in trace_path.resolve().parents:
        if (parent / p).exists():
            return parent / p
    return p


def _replay_case(trace: Trace, catalog: CatalogReader | str | os.PathLike[str] | None, trace_path: Path | None) -> tuple[CatalogReader, Trace]:
    from chainret.evaluate.cases import run_case
    from chainret.catalog.load import apply_overlay, load_world

    meta = trace.meta
    if catalog is not None and not isinstance(catalog, (str, os.PathLike)):
        raise UsageError("a fixture case's trace replays from its cases file; pass its path, not an opened catalog")
    source = Path(catalog) if catalog is not None else _locate(str(meta["cases_file"]), trace_path)
    world = load_world(source)
    case = next((c for c in world.cases if c.id == meta["case"]), None)
    if case is None:
        raise UsageError(f"case {meta['case']!r} is not in {source}")
    cat = apply_overlay(world.catalog, case.overlay, label=f"case {case.id} overlay")
    new = run_case(world.catalog, case, world=world.catalog.world, backtrack=bool(meta.get("backtrack", True)),
                   cases_file=meta.get("cases_file"), sets=trace.schema_version != SCHEMA_VERSION)
    return _reader(cat), new.trace


def _replay_request(trace: Trace, catalog: CatalogReader | str | os.PathLike[str] | None, trace_path: Path | None) -> tuple[CatalogReader, Trace]:
    from chainret.pipeline.ask import ask
    from chainret.store import resolve_catalog

    meta = trace.meta
    if catalog is not None:
        cat = resolve_catalog(catalog)
    else:
        named = meta.get("catalog")
        if named is None:
            raise UsageError("this trace does not name its catalog file; pass --catalog PATH")
        source = str(named)
        if not source.startswith(("postgresql://", "postgres://")):
            cat = resolve_catalog(_locate(source, trace_path))  # a URL is no path: Path() would fold its '//'
        elif ":***@" in source:
            raise UsageError("this trace names a PostgreSQL store whose password it does not record; pass --catalog URL")
        else:
            cat = resolve_catalog(source)
    projected = bool(meta.get("projected", True))
    new = ask(
        trace.request,
        cat,
        view=meta.get("view"),
        principal=str(meta.get("principal", "public")),
        budget=Budget(**trace.budget.model_dump()),
        viewer=meta.get("viewer") if projected else None,
        backtrack=bool(meta.get("backtrack", True)),
        text_route="text_route" in meta,
        project=projected,
        sets=trace.schema_version != SCHEMA_VERSION,  # a 1.0 trace replays by 1.0's single-path rule
        today=str(meta["today"]) if meta.get("today") else None,  # relative time words read as when it was asked
    )
    # a replay records where it found the catalog; the trace records where it was written from
    new = new.model_copy(update={"meta": {**new.meta, "catalog": meta.get("catalog")}})
    return cat, new


def verify(
    trace: Trace,
    catalog: CatalogReader | str | os.PathLike[str] | None = None,
    *,
    trace_path: str | os.PathLike[str] | None = None,
    reader: str | None = None,
) -> Verification:
    """Check ``trace`` against ``catalog`` (default: the catalog or cases file the trace names; a
    server passes the catalog reader it serves).

    ``reader``: who will read the verdict (a server's caller); evidence messages then never quote a
    document that reader may not read. None: the local user, who holds the catalog file anyway.
    """
    if trace.kind != "chain":
        raise UsageError("trace verify replays chain traces (kind 'chain'); this is a benchmark trace")
    tp = Path(trace_path) if trace_path is not None else None
    replay = _replay_case if "case" in trace.meta and (catalog is not None or trace.meta.get("cases_file")) else _replay_request
    try:
        cat, new = replay(trace, catalog, tp)
    except CatalogFileInvalid as exc:
        # A hand edit that shortened a cited document leaves relation spans past its end: the catalog no
        # longer loads, but that is the trace's evidence changing (a difference, exit 1), not a bad input.
        spans = [i for i in exc.issues if i.code == "span_out_of_range"]
        if not spans or any(i.severity == "error" and i.code != "span_out_of_range" for i in exc.issues):
            raise
        return Verification(status="mismatch", catalog_changed=True, differences=[
            Difference(kind="evidence", field="catalog", message=f"{i.location}: {i.message} (a cited document was shortened)") for i in spans
        ])
    diffs = evidence_differences(trace, cat, reader)
    found = first_difference(_comparable(trace), _comparable(new))
    if found is not None:
        field, was, now = found
        diffs.append(Difference(kind="replay", field=field, message=f"trace has {_shown(was)}, replay gives {_shown(now)}"))
    projected = bool(trace.meta.get("projected", True))
    viewer = str(trace.meta.get("viewer")) if projected else None
    identity = cat.reader_digest(viewer) if viewer is not None else cat.digest()
    changed = identity != trace.catalog_digest
    if changed and diffs:
        diffs.append(Difference(kind="catalog", field="catalog_digest", message=f"catalog was {_shown(trace.catalog_digest)}, now {identity}"))
    elif changed:
        diffs.extend(identity_differences(trace, cat, viewer))
    if not any(d.kind == "catalog" for d in diffs):  # a refused identity makes its revision moot
        diffs.extend(revision_differences(trace, cat, viewer))
    from chainret.verify.logcheck import log_differences  # (only a trace with meta.log has anything to check)

    diffs.extend(Difference(kind="evidence", field=f, message=m) for f, m in log_differences(trace, cat, viewer))
    status: Literal["verified", "evidence_intact", "mismatch"] = "mismatch" if diffs else ("evidence_intact" if changed else "verified")
    return Verification(status=status, catalog_changed=changed, differences=diffs)


def _known_identities(cat: CatalogReader) -> tuple[dict[str, set[str]], bool]:
    """identity -> the principal classes shown it ("" = audit, "*" = anyone unnamed); and whether this is a full history."""
    if isinstance(cat, IdentityHistory):
        return cat.identities_ever(), True
    # A catalog in memory: its documents are whole records, naming their readers.
    named = sorted({p for d in cat.documents if d.visibility == "restricted" and isinstance(d, SourceDocument) for p in d.principals})
    known: dict[str, set[str]] = {cat.digest(): {""}}
    known.setdefault(cat.reader_digest("\x00"), set()).add("*")
    for p in named:
        known.setdefault(cat.reader_digest(p), set()).add(p)
    return known, False


def identity_differences(trace: Trace, catalog: Catalog | CatalogReader, viewer: str | None) -> list[Difference]:
    """A changed identity is fine only if the catalog once showed it to this viewer (see part 3 above)."""
    cat = _reader(catalog)
    claimed = trace.catalog_digest or ""
    if isinstance(cat, IdentityHistory) and claimed in cat.identity_history(viewer):
        return []  # an earlier compile or update of this store: the catalog really changed since
    known, full_history = _known_identities(cat)
    shown_to = known.get(claimed)
    if shown_to is not None:
        cls = "" if viewer is None else (viewer if viewer in {p for ps in known.values() for p in ps} else "*")
        if cls not in shown_to:
            who = "an unprojected audit" if viewer is None else f"viewer {viewer!r}"
            return [Difference(kind="catalog", field="meta.viewer" if viewer is not None else "meta.projected",
                               message=f"the trace's catalog identity belongs to another viewer, not {who}: "
                               "meta.viewer or meta.projected does not match the trace's content")]
        return []
    if full_history:
        return [Difference(kind="catalog", field="catalog_digest",
                           message=f"{_shown(claimed)} is not an identity this store ever had (none of its compiles or updates)")]
    if claimed in earlier_identities(cat, viewer, trace.meta.get("view")):
        return []  # the file gained views since the trace was written: the catalog really changed
    who = "an unprojected audit" if viewer is None else f"viewer {viewer!r}"
    return [Difference(kind="catalog", field="catalog_digest",
                       message=f"{_shown(claimed)} is not this catalog's identity for {who}, now or at any of its earlier views; "
                       "a catalog file keeps no other history, so a trace written before a hand edit of the file cannot be "
                       "told from a forged one (compile a store to keep every identity)")]


def earlier_catalogs(catalog: Catalog, since: str | None = None) -> Iterator[Catalog]:
    """The catalog as it was when each of its earlier views was the newest, newest first (part 3 above).

    A writer adds a view (and the document versions and relations only it holds) at the end and
    never rewrites an earlier one, so dropping the later views, the document versions that only they
    list, and those versions' relations gives back the earlier file. Two things a writer may also
    have changed are tried both ways: the ``current`` mark (``catalog build`` moves it to the view it
    adds) and the entities that only the dropped relations name (an import declares the entities
    its records have). An imported entity's labels lose the name sources later imports appended
    (``NameSource.since``). Anything else edited since gives no match, which is reported, never assumed.
    ``since``: the view the trace asked; the catalog then had it, so only versions that keep it are made.
    """
    views = list(catalog.views)
    names = [v.name for v in views]
    first = names.index(since) + 1 if since in names else 1
    for k in range(len(views) - 1, first - 1, -1):
        kept, later = views[:k], views[k:]
        held = {ref for v in kept for ref in v.documents}
        gone = {ref for v in later for ref in v.documents} - held
        relations = [r for r in catalog.relations if r.support.doc_ref not in gone]
        named = {e for r in relations for e in (r.subject, r.object)}
        only_later = {e for r in catalog.relations if r.support.doc_ref in gone for e in (r.subject, r.object)} - named
        upto = max((v.order for v in kept), default=0)
        entities = [_labels_upto(e, upto) for e in catalog.entities]
        entity_lists = [entities]
        if only_later & {e.id for e in catalog.entities}:
            entity_lists.append([e for e in entities if e.id not in only_later])
        view_lists = [kept]
        if any(v.current for v in later):
            view_lists.append([*kept[:-1], kept[-1].model_copy(update={"current": True})])
        documents = [d for d in catalog.documents if d.ref not in gone]
        for entities in entity_lists:
            for vs in view_lists:
                fields = {**dict(catalog), "entities": entities, "documents": documents, "relations": relations, "views": vs}
                yield Catalog.model_construct(_fields_set=catalog.model_fields_set, **fields)


def _labels_upto(entity: Entity, order: int) -> Entity:
    """``entity`` as it was when the view of this ``order`` was the newest: without the name sources a
    later import appended (``NameSource.since``), its labels those of the sources left (``merge_sources``)."""
    sources = [s for s in entity.declared_in if s.since is None or s.since <= order]
    if len(sources) == len(entity.declared_in):
        return entity
    name, aliases, description = merge_sources(sources)
    return Entity.model_construct(id=entity.id, type=entity.type, name=name or entity.id, aliases=aliases,
                                  description=description, declared_in=sources)


def earlier_identities(cat: CatalogReader, viewer: str | None, since: object = None) -> Iterator[str]:
    """The identities ``viewer`` was shown by the earlier versions of a catalog file (``earlier_catalogs``), lazily."""
    from chainret.catalog.readable import reader_digest
    from chainret.core.session import Session

    catalog = getattr(cat, "catalog", None)
    if not isinstance(catalog, Catalog):
        return  # not a catalog in memory: nothing to rebuild, so nothing matches
    session = Session(size=2)  # the rebuilt catalogs are not kept in the caller's caches
    if isinstance(since, str) and viewer is not None:  # the viewer's name of the view -> the catalog's (``reader_view_names``)
        from chainret.catalog.readable import readable_docs, reader_view_names

        since = reader_view_names(catalog.views, readable_docs(catalog, viewer, session=session)).get(since, since)
    for earlier in earlier_catalogs(catalog, since if isinstance(since, str) else None):
        yield earlier.digest() if viewer is None else reader_digest(earlier, viewer, session=session)


def revision_differences(trace: Trace, catalog: Catalog | CatalogReader, viewer: str | None) -> list[Difference]:
    """A recorded ``meta.revision`` must be one the catalog showed ``viewer`` at the trace's identity (part 4 above).

    The revision names which write of the catalog answered, so a forged one claims an answer from
    another write; it is not compared with the replay's (it differs legitimately once the catalog has
    changed), but against the trace's own ``catalog_digest``.
    """
    recorded = trace.meta.get("revision")
    if recorded is None:
        return []  # golden traces and ``stable`` copies carry none
    cat = _reader(catalog)
    claimed = trace.catalog_digest or ""
    if isinstance(cat, IdentityHistory):
        history = cat.identity_history(viewer)
        allowed = [revision_token(i + 1, d) for i, d in enumerate(history) if d == claimed]
        if not history and claimed == (cat.digest() if viewer is None else cat.reader_digest(viewer)):
            allowed.append(cat.revision(viewer))  # a store that recorded no identities answers every viewer from its first
    else:
        allowed = [revision_token(1, claimed)]  # a catalog file's revision is always the first of its identity
    if recorded in allowed:
        return []
    who = "an unprojected audit" if viewer is None else f"viewer {viewer!r}"
    expected = " or ".join(allowed) if allowed else "none: the catalog never showed that identity"
    return [Difference(kind="catalog", field="meta.revision",
                       message=f"{_shown(recorded)} is not the revision this catalog showed {who} at the trace's catalog identity "
                       f"(expected {expected})")]


def verify_trace(
    trace: Trace, catalog: CatalogReader | str | os.PathLike[str] | None = None, *, trace_path: str | os.PathLike[str] | None = None
) -> list[dict[str, str]]:
    """The differences of ``verify`` as plain dicts (empty when the trace holds)."""
    return [d.model_dump() for d in verify(trace, catalog, trace_path=trace_path).differences]
