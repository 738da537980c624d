"""The trace: one auditable record of a request, shared by the chain retriever and the benchmarks.

A chain request (``chainret ask``) and a benchmark question (``chainret bench run``) are both
recorded as a ``Trace``: the original words, how they were interpreted, every derived search
(``Hop``) with the refs it returned, what was selected and why, the budget left, and the outcome.
Verification (NLI) and packing layers attach their records to the same object, so one JSON file
explains a result end to end.

Stable JSON: ``to_json`` sorts keys and rounds floats, so golden traces diff cleanly.
Writes are atomic (temporary file + ``os.replace``).
"""


import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from chainret.core.record import ConfigDict, Field, model_serializer

from chainret.core.budget import Budget as Budget  # re-exported: traces record it
from chainret.core.files import atomic_write_text
from chainret.core.files import check_output_path as check_output_path
from chainret.core.codes import RefusalCode
from chainret.core.stablejson import dumps as _stable_dumps
from chainret.core.stablejson import round_floats
from chainret.core.trusted import TrustedModel

SCHEMA_VERSION = "1.0"  # benchmark traces, and chain traces written before set answers
# A chain trace ``ask`` writes is 1.1: a many-valued hop answers the whole set (``answers``, ``completeness``) and a
# hop's rows rank the units that also hold its predicate first (``chainret.engine.search.stating_first``). A chain
# without a many-valued hop writes no set fields. ``trace verify`` replays a 1.0 trace by 1.0's rules: one path,
# units ranked by the ID alone.
CHAIN_SCHEMA_VERSION = "1.1"

Outcome = Literal[
    "accepted_path",  # a complete, supported chain was found (chain retriever)
    "partial_evidence",  # some hops supported, no complete path: never shown as an answer
    "no_pattern",  # no relation pattern applies to the request
    "refused",  # interpretation refused (ambiguous alias, unknown entity, bad view/principal)
    "retrieved",  # a benchmark/text-route retrieval: ranked evidence, no claim of a supported chain
]


# Field defaults: pydantic asks every default_factory for its signature when it builds a schema, and
# inspect.signature of the builtins list/dict parses their text signature (about 0.1 ms each, tens of
# fields per model set); a plain function answers at once. Same values: a new empty list / dict.
def _new_list() -> list[Any]:
    return []


def _new_dict() -> dict[str, Any]:
    return {}


class _Model(TrustedModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Hit(_Model):
    """One returned row of a search: a unit/paragraph ref with its rank (1-based) and score."""

    ref: str
    rank: int = Field(ge=1)
    score: float
    title: str | None = None
    scores: dict[str, float] = Field(default_factory=_new_dict)  # further signals (bench: bm25, embedding, nli-*)


class Anchor(_Model):
    """The source support that licensed a transition: a quote at an exact span.

    ``support_kind``: ``clause`` (a literal ``REL s | p | o`` line) or ``prose`` (an ordinary
    sentence naming subject and object: the weaker check, see docs/catalog-format.md).
    """

    unit_ref: str
    relation_id: str
    source: str
    document: str
    version: str
    representation: str
    digest: str
    span: tuple[int, int]
    quote: str
    support_kind: Literal["clause", "prose"] = "clause"


class Refusal(_Model):
    """Why a hop (or the whole request) stopped. ``code`` is stable; ``message`` is for people."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_enum_values=True, defer_build=True)

    code: RefusalCode
    message: str
    details: dict[str, Any] = Field(default_factory=_new_dict)


class Verification(_Model):
    """An NLI judgement attached to a hop: does ``premise_refs`` entail ``hypothesis``?"""

    hop: int
    question: str  # the sub-question, or the original question
    hypothesis: str
    hypothesis_kind: str  # e.g. "slot", "oracle", "original", "gold-subq", "anchored-subq"
    premise_refs: list[str]
    p_entail: float
    model: str


class Hop(_Model):
    """One derived search and what it licensed."""

    index: int = Field(ge=1)
    kind: Literal["relation", "retrieval"] = "relation"
    branch: str = "0"  # backtracking branch id; "0" is the first path tried, "0.1" its first alternative, …
    subquery: str  # exactly what was searched (the canonical ID for a relation hop)
    predicate: str | None = None
    from_id: str | None = None  # the node this hop starts at
    hits: list[Hit] = Field(default_factory=_new_list)
    anchor: Anchor | None = None
    bridge: str | None = None  # canonical ID the next hop will search
    candidate_bridges: list[str] = Field(default_factory=_new_list)  # other eligible, supported bridges seen in this hop
    reuses: str | None = None  # backtracking: branch whose search this hop's bridge came from (no new search)
    searches_left: int | None = None
    rows_left: int | None = None
    refusal: Refusal | None = None
    selected: list[str] = Field(default_factory=_new_list)  # refs kept from this hop (bench selectors)
    verifications: list[Verification] = Field(default_factory=_new_list)


class WordMatch(_Model):
    """Which request words matched which part of the reading, and how.

    ``part``: ``pattern`` (words of a phrasing or of a relation: ``pattern:<phrasing>`` or
    ``relation:<predicate>``), ``entity`` (the slot words), ``ignored`` (politeness, filler, a
    question frame: words that add nothing a view or pattern could use). ``how``: ``exact``,
    ``alias``, ``name``, ``normalised`` (case, spacing, punctuation, quotes, a type word), ``typo``
    (at edit ``distance``), ``synonym``, ``composed`` (a relation said hop by hop).
    """

    words: str
    part: str
    how: str
    target: str | None = None  # the canonical ID (entity) or the phrasing / predicate matched
    label: str | None = None  # entity: the name, alias or ID the words were matched to
    distance: int | None = None  # typo: the edit distance (digits never differ)
    similarity: float | None = None  # synonym: cosine similarity in the vector table (rounded to 3 places)
    table: str | None = None  # synonym: the vector table's digest (chainret/data/vocabulary/PROVENANCE.md)

    @model_serializer(mode="wrap")
    def _omit_none(self, handler: Callable[[Any], Any]) -> Any:
        data = handler(self)
        return {k: v for k, v in data.items() if v is not None} if isinstance(data, dict) else data


class Interpretation(_Model):
    """How the request was read. Stored beside the original words, never instead of them.

    ``match`` is present only when the reading was not literal: the words equal a declared phrasing
    (``meta.phrasing``) and the slot words are an entity's canonical ID, name or alias exactly.
    Otherwise it lists, word group by word group, what matched what and how (``WordMatch``), and
    ``reading`` names the route (``filler``, ``possessive``, ``glued``, ``tolerant``, ``composed``; ``+topic`` or
    ``+keywords`` where the request was rewritten first: a fronted topic, a keyword request).
    """

    pattern: str
    slot: str  # the typed slot name, e.g. "project"
    slot_text: str  # the words that filled it, e.g. "PR-84"
    start_id: str  # the canonical ID they resolve to in the view
    predicates: list[str]
    view: str
    principal: str
    reading: str | None = None
    match: list[WordMatch] = Field(default_factory=_new_list)
    # the types the question's head noun names, where the chain's answers are of several ("which components does X own":
    # what X owns, of the components); the answers are those of these types. Omitted when empty (every answer).
    answer_types: list[str] = Field(default_factory=_new_list)
    # the types a hop's values must be of before the chain goes on, one list per predicate (empty: any), where a noun
    # said mid-chain names fewer types than the hop reaches ("the systems of Client Tech's components": what it owns,
    # of the components, then their systems). Omitted when no hop is typed.
    hop_types: list[list[str]] = Field(default_factory=_new_list)

    def typed_hops(self) -> list[list[str]]:
        """The types each hop's value must be of (empty: any), one list per predicate: ``hop_types``, and the head
        noun's ``answer_types`` at the last hop (the one home of how the two combine)."""
        out = [list(ts) for ts in self.hop_types[: len(self.predicates)]]
        out += [[] for _ in self.predicates[len(out):]]
        if self.answer_types and out:
            out[-1] = [t for t in out[-1] if t in self.answer_types] if out[-1] else list(self.answer_types)
        return out

    @model_serializer(mode="wrap")
    def _omit_literal(self, handler: Callable[[Any], Any]) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            if data.get("reading") is None:
                data.pop("reading", None)
            if not data.get("match"):
                data.pop("match", None)
            if not data.get("answer_types"):
                data.pop("answer_types", None)
            if not any(data.get("hop_types") or ()):
                data.pop("hop_types", None)
        return data


class PacketItem(_Model):
    ref: str
    text: str
    cost: int
    doc_id: str | None = None
    span: tuple[int, int] | None = None
    relation_id: str | None = None


class Packet(_Model):
    """The final selection handed to a reader, with its cost in ``cost_unit``."""

    packer: str
    cost_unit: Literal["chars", "tokens"]
    budget: int
    max_items: int | None = None
    separator: str = "\n"
    items: list[PacketItem] = Field(default_factory=_new_list)
    cost: int = 0  # total, separators included for chars
    text: str = ""
    diagnostics: dict[str, Any] = Field(default_factory=_new_dict)  # answer-in-context, coverage, density, …


class Coverage(_Model):
    """Structural coverage, kept apart from the outcome: finding anchors is not completing a chain."""

    anchors_required: list[str] = Field(default_factory=_new_list)  # relation ids a complete bundle needs
    anchors_observed: list[str] = Field(default_factory=_new_list)  # of those, seen in any returned search row
    complete_bundle: bool = False  # every required anchor's unit reached the packet


class SetAnswer(_Model):
    """One member of a set answer: its end entity and the supported path that reaches it."""

    id: str  # the end entity's canonical ID
    path_ids: list[str]  # node ids: start, bridge(s), this answer
    relations: list[str]  # relation ids of its path, in order (each hop's anchor is in ``hops``)


class Completeness(_Model):
    """Whether a set answer holds every value the viewer's readable catalog supports.

    ``eligible`` is counted over the catalog the request ran on, which holds only what the viewer may read,
    so the count reveals nothing hidden. ``None`` when a branch stopped before its set could be counted.
    """

    complete: bool
    answered: int
    eligible: int | None = None
    reasons: list[str] = Field(default_factory=_new_list)  # why it is not complete, one line each
    flags: list[str] = Field(default_factory=_new_list)  # the budget flags that would reach what is missing


class Trace(_Model):
    schema_version: str = SCHEMA_VERSION
    request: str  # the original words, verbatim
    kind: Literal["chain", "bench"] = "chain"
    route: str = "chain"  # "chain", or a baseline/text route name, or a bench signal set
    interpretation: Interpretation | None = None
    catalog_digest: str | None = None
    dataset: str | None = None
    question_id: str | None = None
    budget: Budget = Field(default_factory=Budget)
    hops: list[Hop] = Field(default_factory=_new_list)
    outcome: Outcome
    reason: Refusal | None = None
    accepted_path: list[str] | None = None  # relation ids of the accepted chain, in order
    path_ids: list[str] | None = None  # node ids: start, bridge(s), answer (a set answer: its first member's)
    answers: list[SetAnswer] | None = None  # a chain with a many-valued hop: every answer found (1.1)
    completeness: Completeness | None = None  # ... and whether that set is all the catalog supports (1.1)
    coverage: Coverage = Field(default_factory=Coverage)
    packet: Packet | None = None
    packets: dict[str, Packet] = Field(default_factory=_new_dict)  # bench: one per packer/budget
    assumptions: list[str] = Field(default_factory=_new_list)  # e.g. the catalog-level contradiction check
    searches_used: int = 0
    rows_used: int = 0
    meta: dict[str, Any] = Field(default_factory=_new_dict)

    @model_serializer(mode="wrap")
    def _omit_no_set(self, handler: Callable[[Any], Any]) -> Any:
        """A chain with no many-valued hop writes no set fields: its JSON is the 1.0 trace's, byte for byte."""
        data = handler(self)
        if isinstance(data, dict):
            if data.get("answers") is None:
                data.pop("answers", None)
            if data.get("completeness") is None:
                data.pop("completeness", None)
        return data

    def to_json(self, *, indent: int | None = 2) -> str:
        """Stable JSON: sorted keys, floats rounded to 6 places.

        The text of ``json.dumps(round_floats(data), sort_keys=True, indent=indent, ensure_ascii=False)``;
        for the default indent written in C where it can be (``chainret.core.stablejson``; tests check the
        bytes are the same).
        """
        if indent == 2:
            return _stable_dumps(self)
        return json.dumps(round_floats(self.model_dump(mode="json")), sort_keys=True, indent=indent, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> "Trace":
        return cls.model_validate_json(text)


def write_trace(trace: Trace, path: str | os.PathLike[str], *, exclusive: bool = False) -> Path:
    """Write a trace file; control/bidi characters are ``\\u``-escaped (same JSON values, safe to ``cat``)."""
    from chainret.core.textsafe import json_safe

    return atomic_write_text(path, json_safe(trace.to_json()) + "\n", exclusive=exclusive)


def read_trace(path: str | os.PathLike[str]) -> Trace:
    import stat

    from chainret.core.errors import ChainretError

    p = Path(path)
    try:
        if p.exists() and not stat.S_ISREG(p.stat().st_mode):  # a FIFO would block the read
            raise ChainretError(f"{p}: not a regular file, so not a trace file")
        return Trace.from_json(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ChainretError(f"{p}: no such trace file") from None
    except (OSError, UnicodeDecodeError) as exc:  # a directory, unreadable, not UTF-8
        raise ChainretError(f"{p}: cannot read this trace file: {getattr(exc, 'strerror', None) or exc}") from None
    except ValueError as exc:  # pydantic.ValidationError and JSON errors
        raise ChainretError(f"{p}: {_not_a_trace(p, exc)}") from None


def _not_a_trace(p: Path, exc: ValueError) -> str:
    """Why a file is not a trace, in plain words (never pydantic's raw report), with a hint for an /ask response."""
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"not a chainret trace: not JSON ({str(exc).splitlines()[0][:200]})"
    if isinstance(data, dict) and isinstance(data.get("trace"), dict):
        return ("not a chainret trace itself: it holds one under \"trace\" (a saved /ask or MCP response); "
                "save that object alone, e.g. `jq .trace FILE > trace.json`, and verify it")
    if not isinstance(data, dict) or "request" not in data or "outcome" not in data:
        return "not a chainret trace: a trace is a JSON object with request, outcome and hops (as `chainret ask --trace-out` writes)"
    from pydantic import ValidationError

    if isinstance(exc, ValidationError):
        fields = ", ".join(".".join(map(str, e["loc"])) or "(root)" for e in exc.errors()[:5])
        return f"not a valid chainret trace: {exc.error_count()} field(s) do not fit the trace schema: {fields}"
    return "not a valid chainret trace"
