"""A kind word's filter applied to an answer: the chain's paths, or a coverage ask's rows (``chainret.query.kinds``).

Where the filter goes is read from the interpretation, not from the word's place in the sentence: a hop the
request's nouns type (``Interpretation.typed_hops``: "which components does X own") with the word's type is where
the word is said of the answers; a start entity of that type is what a word beside its name describes ("who owns
the checkout service": the name says which entity, and a name is never narrowed by a kind). Where the word could be
either (a start of its type and a typed hop of it: "which components does the payments service call") and the two
readings give different answers, the request is refused. Where no typed hop and no start is of its type, a word that
names one kind only is said of the one hop inside the chain whose entities are of its type ("which APIs do the apps
owned by X call": X's components, kept to the mobile apps, then the APIs they call; ``_inner_hop``); where its type is
on two hops or on the last, or the word is loose and its readings differ, the request is refused: the kind the words
ask about cannot be placed, and a list that ignores it would be shown as complete. Each filter is stated in the trace (``meta.kinds``): the word, the kind, and
every entity of the type on the answer's paths kept or dropped with the unit that declares its kind.

The type noun's filter is here too (``typed_paths``: "which components does X own" keeps the paths through
components), used by the ask of one start and by the ask of a start set (``chainret.pipeline.startset``) alike.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chainret.core.codes import RefusalCode
from chainret.query.kinds import KindFilter
from chainret.trace.model import Interpretation, Refusal, Trace

if TYPE_CHECKING:
    from chainret.engine.reader import Rel
    from chainret.pipeline.ownership import Gap
    from chainret.store.base import ViewReader

_HEAD = r"(?:which|what|how\s+many|list|all|any|the|our|of)\s+(?:(?:of\s+)?(?:the|our|its|their)\s+)?"


def _type_of(entity_id: str) -> str:
    return entity_id.partition(":")[0]


def _said_as_head(request: str, word: str) -> bool:
    """Whether ``word`` is a head noun of the request ("which services ...", "list all websites", a bare noun phrase's
    first word: "dbs owned by X"), not a word after a name ("the payments service")."""
    return re.search(rf"(?i)(?:^\W*|\b{_HEAD}){re.escape(word)}\b", request) is not None  # (or said first: "dbs owned by X")


def filter_paths(paths: list[list[Rel]], interp: Interpretation, filters: Sequence[KindFilter], request: str
                 ) -> tuple[list[list[Rel]], list[dict[str, Any]], Refusal | None]:
    """The paths whose entities of each filter's type on the hops it is said of are of its kind; the filters'
    records (``meta.kinds``); a refusal where a filter cannot be placed (module docstring)."""
    want = interp.typed_hops()
    start_type = _type_of(interp.start_id)
    records: list[dict[str, Any]] = []
    for f in sorted(filters, key=lambda f: f.loose):  # a loose word's two readings compared on what the others keep
        hops = [k for k, ts in enumerate(want) if f.word.type in ts]
        if not hops and start_type != f.word.type and _said_as_head(request, f.word.word):
            # no hop typed by the word, and the answer of its type: a phrasing that says the noun itself ("which
            # components does {group} own"). (A composed reading, "who owns the services that call X", is refused
            # below where kinds differ: people say "services" of every component there as often as not.)
            if any(p and _type_of(p[-1].object) == f.word.type for p in paths):
                hops = [len(want) - 1]
        anywhere = list(dict.fromkeys(r.object for p in paths for r in p if _type_of(r.object) == f.word.type))
        on_hops = list(dict.fromkeys(p[k].object for p in paths for k in hops
                                     if k < len(p) and _type_of(p[k].object) == f.word.type))
        if hops:
            if start_type == f.word.type and not _said_as_head(request, f.word.word):  # "... the payments service call"
                typed_by_noun = any(_said_as_head(request, n) for n in (f.word.type, f.word.type + "s"))
                if any(not f.keeps(i) for i in on_hops) and not typed_by_noun:  # ("which components does ... call")
                    return paths, records, Refusal(code=RefusalCode.AMBIGUOUS_READING, message=(
                        f"the request's {f.word.word!r} may describe {interp.start_id} or the {f.word.type}s it asks "
                        f"for, and the two readings differ: say \"which {f.word.word}\" to ask for "
                        f"the {f.word.type}s of the kind {f.kind}"), details={"kind_word": f.word.word, "kind": f.kind})
                records.append(f.said_of_start(interp.start_id))  # (the answers are of it anyway)
                continue
            kept = [p for p in paths if all(_type_of(p[k].object) != f.word.type or f.keeps(p[k].object)
                                            for k in hops if k < len(p))]
            if _ends(kept) != _ends(paths) and (ambiguous := f.ambiguity(on_hops)) is not None:
                return paths, records, ambiguous  # "services": every component, or the services? two answers
            paths = kept
            records.append({**f.record(on_hops), "said_of": "answers", "hops": [k + 1 for k in hops]})
        elif start_type == f.word.type and not _said_as_head(request, f.word.word):
            # "who owns the checkout service": the name says which; the kind is stated ("who owns the services that
            # kiosk depends on" says it of a set inside the request, below)
            records.append(f.said_of_start(interp.start_id))
        elif any(not f.keeps(i) for i in anywhere):
            if f.loose and (agreed := _agreed_inside(paths, f)) is not None:  # "who owns the services that call X"
                paths = agreed
                records.append({**f.record(anywhere), "said_of": "inside", "readings_agree": True})
                continue
            if not f.loose and (k := _inner_hop(paths, f)) is not None:  # "which APIs do the apps owned by X call"
                paths = [p for p in paths if k >= len(p) or f.keeps(p[k].object)]
                records.append({**f.record(anywhere), "said_of": "inside", "hops": [k + 1]})
                continue
            return paths, records, Refusal(code=RefusalCode.NO_PATTERN, message=(
                f"the request says {f.word.word!r}, but its reading types no hop as {f.word.type}s to keep those of "
                f"the kind {f.kind}, and its answer holds {f.word.type}s of other kinds: not answered, as a list "
                "that ignores the kind asked about would be wrong"), details={"kind_word": f.word.word, "kind": f.kind})
    return paths, records, None


def _ends(paths: list[list[Rel]]) -> set[str]:
    """The answers a set of paths gives: the last entity of each."""
    return {p[-1].object for p in paths if p}


def _agreed_inside(paths: list[list[Rel]], f: KindFilter) -> list[list[Rel]] | None:
    """For a loose word said of a set inside the request that no hop is typed by ("who owns the services that use the
    orders API": its users, then their owners), the paths whose entity of the word's type is of its kind, where
    both readings give the same answers; None where they differ, or where the type is on more than one hop (the word
    could then be said of either)."""
    at = {k for p in paths for k, r in enumerate(p) if _type_of(r.object) == f.word.type}
    if len(at) != 1:
        return None
    (k,) = at
    kept = [p for p in paths if k >= len(p) or f.keeps(p[k].object)]
    return kept if kept and _ends(kept) == _ends(paths) else None


def _inner_hop(paths: list[list[Rel]], f: KindFilter) -> int | None:
    """The one hop inside the chain whose set a kind word that names one kind only ("apps", "workers", "dbs") can be
    said of ("which APIs do the apps owned by X call": X's components, then the APIs they call): the only hop whose
    entities are of the word's type, and not the last (the answers are of another type, so the word is no head of
    them; the start, of the word's type, is read above). None where the type is on two hops or on the last: the word
    could then be said of either set, and the request is refused."""
    at = {k for p in paths for k, r in enumerate(p) if _type_of(r.object) == f.word.type}
    if len(at) != 1:
        return None
    (k,) = at
    return k if all(k < len(p) - 1 for p in paths) else None


def none_of_kind_reason(records: list[dict[str, Any]]) -> Refusal:
    """Why a chain has no answer once its kind filters dropped every path: the entities dropped, by kind."""
    said = "; ".join(f"{r['word']!r} keeps the {r['type']}s of the kind {r['kind']}, and none of "
                     + ", ".join(f"{d['id']} ({d['kind'] or 'no kind declared'})" for d in r["dropped"]) + " is"
                     for r in records if r.get("dropped"))
    return Refusal(code=RefusalCode.NO_SUPPORTED_RELATION, message=f"no path reaches an entity of the kind asked about: {said}",
                   details={"kinds": records})


def _noun_count(said: str, type_: str) -> int:
    """How many words of ``said`` name entities of ``type_``: its noun, or a kind word of it ("services")."""
    from chainret.query.frames import KIND_NOUNS

    words = [type_, type_ + "s", *(w for w, (noun, _, _) in KIND_NOUNS.items() if noun.removesuffix("s") == type_)]
    return len(re.findall(rf"(?i)\b(?:{'|'.join(map(re.escape, words))})\b", said))


def filter_rows(trace: Trace, filters: Sequence[KindFilter], said: str, cv: ViewReader) -> Trace:
    """A coverage ask's trace with its rows of each filter's type kept to its kind, each kept row citing the unit that
    declares its kind, and ``meta.kinds`` saying what was dropped; a refused trace where the filter is said of
    something the rows are not (the object of an absence, "which teams own no websites", or the rows' holders)."""
    from chainret.pipeline.ownership import Gap, _rows_trace  # (one writer of a coverage ask's trace)

    meta = dict(trace.meta)
    section = dict(meta.pop("coverage"))
    rows = [Gap(**r) for r in section.pop("rows", [])]
    asked = section.get("ask")
    inner: Mapping[str, Any] = asked if isinstance(asked, Mapping) else section
    types = set(section.get("types") or ()) or {g.type for g in rows}
    records: list[dict[str, Any]] = []
    for f in filters:
        placed = (f.word.type in types and not section.get("holders") and not inner.get("holders")
                  and _noun_count(said, f.word.type) == 1)
        if not placed and f.loose and (related := _related_by_kind(section, rows, f, cv)) is not None:
            # the object of an absence ("apis that no service provides"): answered where no row type's entity takes
            # part in the relation with entities of the word's type of other kinds only (both readings, one list)
            records.append({**f.record(related), "said_of": "objects", "readings_agree": True})
            continue
        if not placed:
            reason = Refusal(code=RefusalCode.NO_PATTERN, message=(
                f"the request says {f.word.word!r} ({f.word.type}s of the kind {f.kind}), but its coverage reading is "
                f"not of those {f.word.type}s themselves: not answered, as its rows would not be told apart by kind"),
                details={"kind_word": f.word.word, "kind": f.kind})
            return Trace.model_construct(**_base(trace), budget=trace.budget, outcome="refused", reason=reason,
                                         meta={**meta, "kinds": records})
        ids = [g.id for g in rows if g.type == f.word.type]
        if (ambiguous := f.ambiguity(ids)) is not None:  # "services": every component, or the services?
            return Trace.model_construct(**_base(trace), budget=trace.budget, outcome="refused", reason=ambiguous,
                                         meta={**meta, "kinds": records})
        records.append({**f.record(ids), "said_of": "rows"})
        rows = [g if g.type != f.word.type else g.model_copy(update={"cites": [*g.cites, f.declared[g.id].cite()]})
                for g in rows if g.type != f.word.type or f.keeps(g.id)]
    base = _base(trace)
    return _rows_trace(rows, section, cv, base, trace.budget, {**meta, "kinds": records})


def _related_by_kind(section: Mapping[str, Any], rows: list[Gap], f: KindFilter, cv: ViewReader) -> list[str] | None:
    """For an absence whose object is a loose kind word ("which apis does no service provide", read as "no component"),
    the entities of the word's type the relation reaches, where reading the word as its kind leaves the rows as they
    are: every entity that takes part in the relation with one of the word's type takes part with one of its kind
    too (else "no service" would also list the APIs that only a library provides). None where the section is no
    one-relation absence with the word's type among its objects, or where the two readings differ."""
    from chainret.pipeline.ownership import relation_pairs

    if section.get("kind") != "without_relation" or section.get("holders"):
        return None
    pred = cv.predicate(section["predicate"])
    objects = set(section.get("objects") or (pred.range_types if pred is not None else ()))
    if f.word.type not in objects:
        return None
    pairs = relation_pairs(section, cv)
    typed = cv.entities_of(sorted({o for _, o in pairs}))
    reached: dict[str, list[str]] = {}
    for s, o in pairs:
        if o in typed and typed[o].type in objects:
            reached.setdefault(s, []).append(o)
    row_types = set(section.get("types") or ()) | {g.type for g in rows}
    subjects = cv.entities_of(sorted(reached))
    for s, objs in reached.items():
        if s in subjects and subjects[s].type in row_types and not any(
                typed[o].type == f.word.type and f.keeps(o) for o in objs):
            return None  # related to entities of other kinds (or types) only: a row of the kind reading, not of this
    return sorted({o for objs in reached.values() for o in objs if typed[o].type == f.word.type})


def _base(trace: Trace) -> dict[str, Any]:
    return {"schema_version": trace.schema_version, "request": trace.request, "catalog_digest": trace.catalog_digest}


def typed_paths(paths: list[list[Rel]], interp: Interpretation, cv: ViewReader) -> list[list[Rel]]:
    """The paths whose every typed hop reaches a value of its types ("which components does X own": what X owns, of
    the components; "the systems of X's components": through X's components only). Every path is kept by the set run,
    so a value reached through a component and through an API keeps its path through the component."""
    want = interp.typed_hops()
    ends = cv.entities_of(sorted({r.object for p in paths for k, r in enumerate(p) if want[k]}))
    return [p for p in paths if all(not want[k] or (r.object in ends and ends[r.object].type in want[k])
                                    for k, r in enumerate(p))]
