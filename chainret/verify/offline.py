"""``chainret trace verify --offline``: check a signed trace with only its envelope and a public key.

The checks, their names and their order are docs/proof.md's table; nothing here reads a catalog or a store.
What passes proves that the key holder signed this trace and these claims, and that the trace is consistent in
the ways that need no store; it does not prove that the store holds the quotes (see docs/proof.md's threat model).

The format's primitives (the names, canonical JSON, DSSE's PAE, base64 as DSSE reads it) live here, with the
verifier that needs no private key; ``chainret.verify.signing`` builds on them. RFC 8785 comes from ``rfc8785``
(Trail of Bits' pure-Python implementation, in the ``sign`` extra), imported only when a check runs.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chainret.core import tlog
from chainret.core.errors import MissingExtra, UsageError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from chainret.trace.model import Trace

PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "urn:chainret:predicate:trace:v1"  # a URN: the project publishes no web address for the format
SUBJECT_NAME = "trace"
CLAIM_KEYS = ("catalog_digest", "viewer", "projected", "revision")
SIGN_EXTRA = "pip install 'chainret[sign]'"

# Every check, in the order docs/proof.md lists them (the first four are the gate).
CHECKS = (
    "envelope", "payload_type", "signature", "statement", "subject_digest", "trace.schema",
    "claims.catalog_digest", "claims.viewer", "claims.projected", "claims.revision",
    "trace.anchor_quote", "trace.anchor_span", "trace.accepted_path", "trace.path_chain", "trace.budget",
    "trace.set_answers", "trace.completeness",
    "log.checkpoint", "log.inclusion", "log.quote_at_span", "log.consistency",
)
_HEX64 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    message: str = ""


@dataclass(frozen=True)
class OfflineResult:
    """Each check that ran, in order; ``failed`` names those that did not pass."""

    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    @property
    def failed(self) -> list[str]:
        return [c.name for c in self.checks if not c.ok]

    def as_json(self) -> dict[str, Any]:
        return {"verified": self.ok, "failed": self.failed,
                "checks": [{"name": c.name, "ok": c.ok, "message": c.message} for c in self.checks]}


def canonical_json(value: object) -> bytes:
    """RFC 8785 (JCS) bytes of a JSON value; ``ValueError`` for one JCS cannot represent (a huge integer, NaN)."""
    try:
        import rfc8785
    except ImportError:
        raise MissingExtra(f"signed traces need the 'rfc8785' package: {SIGN_EXTRA}", extra="sign") from None
    try:
        return rfc8785.dumps(value)  # type: ignore[arg-type]  # any JSON value; rfc8785 raises on the rest
    except rfc8785.CanonicalizationError as exc:
        raise ValueError(f"not canonicalisable JSON: {exc}") from None


def trace_digest(trace_json: object) -> str:
    """Lowercase hex SHA-256 of a trace's canonical JSON (the statement's subject digest)."""
    return hashlib.sha256(canonical_json(trace_json)).hexdigest()


def pae(payload_type: str, body: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding: what the signature covers (the type and the payload's bytes)."""
    t = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(body), body)


def b64decode(text: str) -> bytes:
    """Base64 as DSSE writes it: standard or URL-safe alphabet, padding optional; ``ValueError`` otherwise."""
    std = text.replace("-", "+").replace("_", "/")
    return base64.b64decode(std + "=" * (-len(std) % 4), validate=True)


def claims_of(trace_json: dict[str, Any]) -> dict[str, Any]:
    """The claims a statement repeats from its trace (docs/proof.md: a field the trace lacks is null)."""
    meta = trace_json.get("meta")
    meta = meta if isinstance(meta, dict) else {}
    return {"catalog_digest": trace_json.get("catalog_digest"), "viewer": meta.get("viewer"),
            "projected": meta.get("projected"), "revision": meta.get("revision")}


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"key {k!r} repeated in one object")
        out[k] = v
    return out


def strict_json(data: bytes) -> Any:
    """JSON as the statement must be: UTF-8, no NaN or Infinity, no key repeated in an object (two parsers could
    read a repeated key differently, so the signed bytes would say two things)."""
    return json.loads(data.decode("utf-8"), object_pairs_hook=_unique_keys, parse_constant=_no_constants)


def read_envelope(path: str | os.PathLike[str]) -> bytes:
    """An envelope file's bytes; ``UsageError`` (exit 2) when it is missing, special, unreadable or not JSON.

    JSON that is not a DSSE envelope is read: the ``envelope`` check then says what is wrong with it."""
    p = Path(path)
    try:
        if p.exists() and not stat.S_ISREG(p.stat().st_mode):  # a FIFO would block the read
            raise UsageError(f"{p}: not a regular file, so not an envelope")
        data = p.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{p}: no such envelope file") from None
    except OSError as exc:
        raise UsageError(f"{p}: cannot read this envelope file: {exc.strerror or exc}") from None
    try:
        json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise UsageError(f"{p}: not a signed envelope: not UTF-8 JSON (`chainret trace sign` writes one)") from None
    return data


def verify_envelope(data: bytes, public_key: Ed25519PublicKey) -> OfflineResult:
    """Run docs/proof.md's checks on an envelope's bytes with the signer's public key."""
    checks: list[Check] = []
    envelope, why = _envelope(data)
    checks.append(Check("envelope", envelope is not None, why))
    if envelope is None:
        return OfflineResult(checks)
    ptype, payload, sigs = envelope
    if ptype != PAYLOAD_TYPE:
        checks.append(Check("payload_type", False, f"{ptype[:80]!r}, not {PAYLOAD_TYPE!r}"))
        return OfflineResult(checks)
    checks.append(Check("payload_type", True))
    signed = pae(ptype, payload)
    good = any(_valid(public_key, sig, signed) for sig in sigs)
    checks.append(Check("signature", good, "" if good else
                        f"none of the {len(sigs)} signature(s) is this key's over the envelope's payload type and payload"))
    if not good:
        return OfflineResult(checks)
    try:
        statement = strict_json(payload)
    except (UnicodeDecodeError, ValueError) as exc:
        checks.append(Check("statement", False, f"the payload is not UTF-8 JSON: {str(exc)[:160]}"))
        return OfflineResult(checks)
    return OfflineResult(checks + statement_checks(statement, public_key))


def _envelope(data: bytes) -> tuple[tuple[str, bytes, list[bytes]] | None, str]:
    try:
        env = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return None, f"not JSON: {str(exc)[:160]}"
    if not isinstance(env, dict):
        return None, "not a JSON object"
    ptype, payload, sigs = env.get("payloadType"), env.get("payload"), env.get("signatures")
    if not isinstance(ptype, str):
        return None, "payloadType is not a string"
    if not isinstance(payload, str):
        return None, "payload is not a string"
    if not isinstance(sigs, list) or not sigs:
        return None, "signatures is not a non-empty list"
    try:
        body = b64decode(payload)
    except ValueError:
        return None, "payload is not base64"
    raw: list[bytes] = []
    for i, s in enumerate(sigs):
        if not isinstance(s, dict) or not isinstance(s.get("sig"), str):
            return None, f"signatures[{i}] has no string sig"
        try:
            raw.append(b64decode(s["sig"]))
        except ValueError:
            return None, f"signatures[{i}].sig is not base64"
    return (ptype, body, raw), ""


def _valid(public_key: Ed25519PublicKey, sig: bytes, signed: bytes) -> bool:
    from cryptography.exceptions import InvalidSignature

    try:
        public_key.verify(sig, signed)
    except InvalidSignature:
        return False
    return True


def statement_failures(statement: object, public_key: Ed25519PublicKey) -> list[Check]:
    """The checks from ``statement`` on that a statement fails (empty: a verifier would accept it once signed)."""
    return [c for c in statement_checks(statement, public_key) if not c.ok]


def statement_checks(statement: object, public_key: Ed25519PublicKey) -> list[Check]:
    """Checks 4 onwards on a decoded statement (see the module docstring); the key checks the signed checkpoints."""
    why = _statement_shape(statement)
    if why:
        return [Check("statement", False, why)]
    assert isinstance(statement, dict)
    checks = [Check("statement", True)]
    trace_json: dict[str, Any] = statement["predicate"]["trace"]
    claims: dict[str, Any] = statement["predicate"]["claims"]
    recorded = statement["subject"][0]["digest"]["sha256"]
    try:
        actual = hashlib.sha256(canonical_json(trace_json)).hexdigest()
        checks.append(Check("subject_digest", actual == recorded,
                            "" if actual == recorded else f"the subject names sha256 {recorded}, the trace's canonical JSON is {actual}"))
    except ValueError as exc:
        checks.append(Check("subject_digest", False, f"the trace cannot be canonicalised: {exc}"))
    trace, why = _trace(trace_json)
    checks.append(Check("trace.schema", trace is not None, why))
    if trace is None:
        return checks
    own = claims_of(trace_json)
    for key in CLAIM_KEYS:
        same = json_equal(claims[key], own[key])
        checks.append(Check(f"claims.{key}", same, "" if same else
                            f"the statement claims {claims[key]!r}, the trace records {own[key]!r}"))
    checks.extend(trace_checks(trace))
    checks.extend(log_checks(trace, statement["predicate"], public_key))
    return checks


def _statement_shape(s: object) -> str:
    if not isinstance(s, dict):
        return "the payload is not a JSON object"
    if s.get("_type") != STATEMENT_TYPE:
        return f"_type is not {STATEMENT_TYPE!r}"
    if s.get("predicateType") != PREDICATE_TYPE:
        return f"predicateType is not {PREDICATE_TYPE!r}"
    subject = s.get("subject")
    if not isinstance(subject, list) or len(subject) != 1 or not isinstance(subject[0], dict):
        return "subject is not a list of exactly one object"
    digest = subject[0].get("digest")
    if not isinstance(digest, dict) or not isinstance(digest.get("sha256"), str) or not _HEX64.fullmatch(digest["sha256"]):
        return "subject[0].digest.sha256 is not 64 lowercase hex digits"
    pred = s.get("predicate")
    if not isinstance(pred, dict) or not isinstance(pred.get("trace"), dict):
        return "predicate.trace is not an object"
    claims = pred.get("claims")
    if not isinstance(claims, dict) or sorted(claims) != sorted(CLAIM_KEYS):
        return f"predicate.claims is not an object with exactly the keys {', '.join(CLAIM_KEYS)}"
    return ""


def json_equal(a: object, b: object) -> bool:
    """Equality of JSON values with types kept apart (``True`` is not ``1``; ``1`` is ``1.0``: one JSON number)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _trace(t: dict[str, Any]) -> tuple[Trace | None, str]:
    """The trace model of a chain trace, or why not: docs/proof.md's minimum first, then the model itself."""
    from pydantic import ValidationError

    from chainret.trace.model import Trace

    if t.get("kind", "chain") != "chain":
        return None, "not a chain trace (kind is not 'chain')"
    hops, budget, meta = t.get("hops"), t.get("budget"), t.get("meta", {})
    if not isinstance(hops, list) or not all(isinstance(h, dict) for h in hops):
        return None, "hops is not a list of objects"
    if not isinstance(budget, dict) or not all(_is_int(budget.get(k)) for k in ("rows_per_hop", "max_searches", "max_rows")):
        return None, "budget is not an object with integer rows_per_hop, max_searches and max_rows"
    if not all(_is_int(t.get(k, 0)) for k in ("searches_used", "rows_used")):
        return None, "searches_used or rows_used is not an integer"
    if not isinstance(meta, dict):
        return None, "meta is not an object"
    try:
        return Trace.model_validate(t), ""
    except ValidationError as exc:
        where = ", ".join(".".join(map(str, e["loc"])) or "(root)" for e in exc.errors()[:5])
        return None, f"{exc.error_count()} field(s) do not fit the trace schema: {where}"


def _check(name: str, problems: list[str]) -> Check:
    return Check(name, not problems, "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else ""))


def trace_checks(t: Trace) -> list[Check]:
    """Checks 11-17: what a trace must hold of itself, with no store to read."""
    anchored = [h for h in t.hops if h.anchor is not None]
    empty = [f"hop {h.index}: empty quote" for h in anchored if h.anchor is not None and not h.anchor.quote]
    spans = []
    for h in anchored:
        assert h.anchor is not None
        a, b = h.anchor.span
        if not (0 <= a <= b and b - a == len(h.anchor.quote)):
            spans.append(f"hop {h.index}: span {a}..{b} holds {b - a} characters, its quote {len(h.anchor.quote)}")
    relations = {h.anchor.relation_id for h in anchored if h.anchor is not None}
    answers = t.answers or []
    needed = list(t.accepted_path or []) + [r for ans in answers for r in ans.relations]
    unanchored = [f"relation {r!r} is no hop's anchor" for r in dict.fromkeys(needed) if r not in relations]
    return [
        _check("trace.anchor_quote", empty),
        _check("trace.anchor_span", spans),
        _check("trace.accepted_path", unanchored),
        _check("trace.path_chain", _chain_problems(t)),
        _check("trace.budget", _budget_problems(t)),
        _check("trace.set_answers", [f"answer {a.id!r}: its path {a.path_ids} does not end at it with one more node than "
                                     f"its {len(a.relations)} relation(s)" for a in answers
                                     if not a.path_ids or a.path_ids[-1] != a.id or len(a.path_ids) != len(a.relations) + 1]),
        _check("trace.completeness", [] if t.completeness is None or t.completeness.answered == len(answers) else
               [f"completeness.answered is {t.completeness.answered}, the trace holds {len(answers)} answer(s)"]),
    ]


def _chain_problems(t: Trace) -> list[str]:
    path = t.path_ids
    if path is None:
        return []
    rels = t.accepted_path
    if rels is None or len(path) != len(rels) + 1:
        return [f"path_ids has {len(path)} node(s) for {len(rels or [])} accepted relation(s)"]
    problems = []
    if t.interpretation is not None and path[0] != t.interpretation.start_id:
        problems.append(f"path_ids starts at {path[0]!r}, the request at {t.interpretation.start_id!r}")
    for i, rel in enumerate(rels):
        if not any(h.from_id == path[i] and h.bridge == path[i + 1] and h.anchor is not None and h.anchor.relation_id == rel
                   for h in t.hops):
            problems.append(f"no hop from {path[i]!r} bridges to {path[i + 1]!r} on an anchor of {rel!r}")
    return problems


def _budget_problems(t: Trace) -> list[str]:
    b = t.budget
    problems = []
    if t.searches_used > b.max_searches:
        problems.append(f"{t.searches_used} searches used, max_searches is {b.max_searches}")
    if t.rows_used > b.max_rows:
        problems.append(f"{t.rows_used} rows used, max_rows is {b.max_rows}")
    most = max(b.rows_per_hop, b.set_rows_per_hop or 0)  # a many-valued hop may read on (``Budget.set_rows_per_hop``)
    problems += [f"hop {h.index} returned {len(h.hits)} rows, rows_per_hop is {b.rows_per_hop}"
                 + (f" (set_rows_per_hop {b.set_rows_per_hop})" if b.set_rows_per_hop else "")
                 for h in t.hops if len(h.hits) > most]
    return problems


# -- the log: checkpoint, inclusion proofs, quotes at their spans, consistency (docs/proof.md, checks 18-21) ------

def raw_public_key(public_key: Ed25519PublicKey) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def open_note(note: object, public_key: Ed25519PublicKey, what: str) -> tuple[str, int, bytes]:
    """(origin, size, root) of a signed checkpoint that this key signed; ``LogError`` saying why not."""
    if not isinstance(note, str):
        raise tlog.LogError(f"{what} is not a string (a signed note)")
    text, sigs = tlog.split_note(note)
    raw = raw_public_key(public_key)
    mine = [sig[4:] for name, sig in sigs if sig[:4] == tlog.note_key_id(name, raw)]
    if not mine:
        raise tlog.LogError(f"{what} has no signature line by this key")
    if not all(_valid(public_key, sig, text.encode("utf-8")) for sig in mine):
        raise tlog.LogError(f"{what}'s signature by this key does not verify over its text")
    return tlog.parse_checkpoint(text)


def _log_meta(t: Trace) -> tuple[dict[str, Any] | None, str]:
    log = t.meta.get("log")
    if log is None:
        return None, ""
    if not isinstance(log, dict) or not isinstance(log.get("origin"), str) or not _is_int(log.get("size")) \
            or not isinstance(log.get("units"), dict) or not isinstance(log.get("relations"), dict):
        return None, "meta.log is not an object with a string origin, an integer size, and units and relations objects"
    if log.get("format", tlog.ANCHOR_FORMAT) != tlog.ANCHOR_FORMAT:
        return None, (f"meta.log is of format {str(log.get('format'))[:60]!r}; this verifier knows {tlog.ANCHOR_FORMAT!r} "
                      "(and format 2, which names none)")
    try:
        tlog.unb64(log.get("root"), "meta.log.root", tlog.HASH_SIZE)
    except tlog.LogError as exc:
        return None, str(exc)
    return log, ""


def log_checks(t: Trace, predicate: dict[str, Any], public_key: Ed25519PublicKey) -> list[Check]:
    """Checks 18-21: a trace that names a log checkpoint carries it signed, proves each anchor's unit and relation
    leaf against it, quotes each anchor at its span of the proven unit text, and proves any earlier checkpoint it
    names consistent with it. A trace with no ``meta.log`` and no checkpoint passes them (it claims no log)."""
    log, why = _log_meta(t)
    note, since = predicate.get("checkpoint"), predicate.get("consistency")
    if log is None and not why and note is None and since is None:
        return [Check(n, True, "no log") for n in CHECKS[-4:]]
    head: tuple[str, int, bytes] | None = None
    try:
        if why:
            raise tlog.LogError(why)
        if log is None:
            raise tlog.LogError("the statement carries a checkpoint but the trace names no log (meta.log)")
        head = open_note(note, public_key, "predicate.checkpoint") if note is not None else None
        if head is None:
            raise tlog.LogError("the trace names a log checkpoint (meta.log) but the statement carries no signed checkpoint")
        if (head[0], head[1], tlog.b64(head[2])) != (log["origin"], log["size"], log["root"]):
            raise tlog.LogError(f"the signed checkpoint is {head[0]!r} at size {head[1]}, the trace names "
                                f"{log['origin']!r} at size {log['size']} (or another root)")
        whose = tlog.viewer_log_classes(t.meta.get("viewer"), t.meta.get("projected"))
        if not any(head[0].endswith("/" + c) for c in whose):
            raise tlog.LogError(f"the checkpoint's log {head[0]!r} is not a log of this trace's viewer "
                                f"(its origin must end in {' or '.join(repr('/' + c) for c in whose)})")
        checks = [Check("log.checkpoint", True)]
    except tlog.LogError as exc:  # nothing verified to check the proofs against: report this one alone
        return [Check("log.checkpoint", False, str(exc))]
    inclusion, quotes = proof_problems(t, log, head)
    return checks + [_check("log.inclusion", inclusion), _check("log.quote_at_span", quotes),
                     _check("log.consistency", _consistency_problems(since, head, public_key))]


def _path(entry: dict[str, Any]) -> list[bytes]:
    return tlog.proof_hashes(entry.get("proof"))


def _unit_entry(unit: object, need_proof: bool) -> bool:
    """Whether a ``meta.log.units`` entry has a span of two integers and a text (and, in format 2, an index)."""
    return isinstance(unit, dict) and (not need_proof or _is_int(unit.get("index"))) and isinstance(unit.get("text"), str) \
        and isinstance(unit.get("span"), list) and len(unit["span"]) == 2 and all(map(_is_int, unit["span"]))


def proof_problems(t: Trace, log: dict[str, Any], head: tuple[str, int, bytes]) -> tuple[list[str], list[str]]:
    """Checks 19 and 20 (docs/proof.md): each anchor's leaves proven at the checkpoint, its quote at its span of the
    unit text. A log of format 3 (``meta.log.format``) proves an anchor by one leaf, its relation and unit together
    (``tlog.anchor_leaf``); one without ``format`` is of format 2: a unit leaf and a relation leaf, each with a proof."""
    _, size, root = head
    one_leaf = log.get("format") == tlog.ANCHOR_FORMAT
    inclusion: list[str] = []
    quotes: list[str] = []
    for h in t.hops:
        a = h.anchor
        if a is None:
            continue
        unit, rel = log["units"].get(a.unit_ref), log["relations"].get(a.relation_id)
        where = f"hop {h.index}"
        s, e = a.span
        text_ok = False  # (the unit's text proven: the quote is checked against it)
        try:
            if not _unit_entry(unit, not one_leaf):
                raise tlog.LogError(f"no proof of its unit {a.unit_ref!r} ("
                                    + ("span and text)" if one_leaf else "index, span, text and proof)"))
            assert isinstance(unit, dict)
            start, end = unit["span"]
            text_ok = one_leaf  # (format 3: its text is in the anchor's leaf, proven below)
            if not one_leaf:
                leaf = tlog.unit_leaf(a.unit_ref, a.source, a.document, a.version, a.representation, a.digest, start, end, unit["text"])
                if not tlog.verify_inclusion(unit["index"], size, tlog.leaf_hash(leaf), _path(unit), root):
                    raise tlog.LogError(f"its unit {a.unit_ref!r} (leaf {unit['index']}) does not hash to the checkpoint's root")
                text_ok = True
        except tlog.LogError as exc:
            inclusion.append(f"{where}: {exc}")
        if text_ok:
            assert isinstance(unit, dict)
            if len(unit["text"]) != end - start or not (start <= s <= e <= end) or unit["text"][s - start:e - start] != a.quote:
                quotes.append(f"{where}: its quote is not the text of unit {a.unit_ref!r} at span {s}..{e}")
        try:
            if not isinstance(rel, dict) or not _is_int(rel.get("index")) \
                    or not all(isinstance(rel.get(k), str) for k in ("subject", "predicate", "object")):
                raise tlog.LogError(f"no proof of its relation {a.relation_id!r} (index, subject, predicate, object and proof)")
            if one_leaf:
                if not _unit_entry(unit, False):
                    raise tlog.LogError(f"its relation {a.relation_id!r} is proven with its unit, which has no span and text")
                assert isinstance(unit, dict)
                leaf = tlog.anchor_leaf(a.relation_id, rel["subject"], rel["predicate"], rel["object"], a.source, a.document,
                                        a.version, a.representation, a.digest, s, e, a.quote, a.support_kind,
                                        a.unit_ref, unit["span"][0], unit["span"][1], unit["text"])
            else:
                leaf = tlog.relation_leaf(a.relation_id, rel["subject"], rel["predicate"], rel["object"], a.source, a.document,
                                          a.version, a.representation, a.digest, s, e, a.quote, a.support_kind)
            if not tlog.verify_inclusion(rel["index"], size, tlog.leaf_hash(leaf), _path(rel), root):
                raise tlog.LogError(f"its {'anchor' if one_leaf else 'relation'} {a.relation_id!r} (leaf {rel['index']}) "
                                    "does not hash to the checkpoint's root")
            if (h.from_id, h.predicate) != (rel["subject"], rel["predicate"]) or h.bridge not in (None, rel["object"]):
                raise tlog.LogError(f"it steps {h.from_id} -{h.predicate}-> {h.bridge} on relation {a.relation_id!r}, "
                                    f"which the log holds as {rel['subject']} -{rel['predicate']}-> {rel['object']}")
        except tlog.LogError as exc:
            inclusion.append(f"{where}: {exc}")
    return inclusion, quotes


def _consistency_problems(since: object, head: tuple[str, int, bytes], public_key: Ed25519PublicKey) -> list[str]:
    if since is None:
        return []
    try:
        if not isinstance(since, dict) or set(since) != {"checkpoint", "proof"}:
            raise tlog.LogError("predicate.consistency is not an object with exactly checkpoint and proof")
        origin, old, old_root = open_note(since["checkpoint"], public_key, "the earlier checkpoint")
        if origin != head[0]:
            raise tlog.LogError(f"the earlier checkpoint is of log {origin!r}, this trace's of {head[0]!r}")
        if not tlog.verify_consistency(old, head[1], old_root, head[2], _path(since)):
            raise tlog.LogError(f"the tree of {old} leaves is not proven a prefix of the tree of {head[1]}: "
                                "the two checkpoints are inconsistent (or the proof is wrong)")
    except tlog.LogError as exc:
        return [str(exc)]
    return []
