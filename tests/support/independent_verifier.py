"""A second verifier of signed traces, written from docs/proof.md alone: it imports nothing from chainret.

Its job is to keep the format honest: every conformance case in fixtures/verify/ must give the same result here
and in ``chainret.verify.offline``. So it shares no code with chainret: its own RFC 8785 canonicaliser (below, the
one part that is easy to get subtly different), its own DSSE PAE, its own checks on the raw JSON (no pydantic
model). Ed25519 is ``cryptography``'s (writing a curve by hand would test nothing about chainret).

    verify(envelope_bytes, public_key_pem_bytes) -> list of failed check names ([] when it verifies)
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from decimal import Decimal
from typing import Any

PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "urn:chainret:predicate:trace:v1"
CLAIMS = ("catalog_digest", "viewer", "projected", "revision")
HEX64 = re.compile(r"[0-9a-f]{64}")


class Stop(Exception):
    """A gate check failed: report it alone."""


# -- RFC 8785 ------------------------------------------------------------------------------------------

def jcs(value: Any) -> bytes:
    return _jcs(value).encode("utf-8")


def _jcs(v: Any) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        if abs(v) > 2**53 - 1:
            raise ValueError("integer outside I-JSON's range")
        return _number(float(v))
    if isinstance(v, float):
        return _number(v)
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, list):
        return "[" + ",".join(_jcs(x) for x in v) + "]"
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: k.encode("utf-16-be", "surrogatepass"))
        return "{" + ",".join(_string(k) + ":" + _jcs(v[k]) for k in keys) + "}"
    raise ValueError(f"not a JSON value: {type(v).__name__}")


_NAMED = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _string(s: str) -> str:
    out = []
    for ch in s:
        if 0xD800 <= ord(ch) <= 0xDFFF:
            raise ValueError("lone surrogate")
        if ch in _NAMED:
            out.append(_NAMED[ch])
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _number(x: float) -> str:
    """ECMAScript's Number.prototype.toString, from Python's shortest round-trip digits (repr)."""
    if math.isnan(x) or math.isinf(x):
        raise ValueError("NaN or Infinity")
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    _, digits, exp = Decimal(repr(abs(x))).as_tuple()
    s = "".join(map(str, digits)).rstrip("0")
    exp += len(digits) - len(s)  # the trailing zeros stripped move into the exponent
    k = len(s)
    n = exp + k  # value = 0.s * 10**n
    if k <= n <= 21:
        body = s + "0" * (n - k)
    elif 0 < n <= 21:
        body = s[:n] + "." + s[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + s
    else:
        e = n - 1
        body = (s if k == 1 else s[0] + "." + s[1:]) + "e" + ("+" if e > 0 else "-") + str(abs(e))
    return sign + body


# -- helpers -------------------------------------------------------------------------------------------

def b64(text: str) -> bytes:
    t = text.replace("-", "+").replace("_", "/")
    return base64.b64decode(t + "=" * (-len(t) % 4), validate=True)


def pae(ptype: str, body: bytes) -> bytes:
    t = ptype.encode("utf-8")
    return b"DSSEv1 " + str(len(t)).encode() + b" " + t + b" " + str(len(body)).encode() + b" " + body


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d: dict[str, Any] = {}
    for k, v in pairs:
        if k in d:
            raise ValueError("repeated key")
        d[k] = v
    return d


def _constant(name: str) -> Any:
    raise ValueError(name)


def same(a: Any, b: Any) -> bool:
    """JSON equality: booleans are not numbers; 1 and 1.0 are one number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return set(a) == set(b) and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# -- the checks ----------------------------------------------------------------------------------------

def verify(envelope: bytes, public_key_pem: bytes) -> list[str]:
    """The names of the checks that fail, in docs/proof.md's order ([]: the envelope verifies)."""
    try:
        return _verify(envelope, public_key_pem)
    except Stop as stop:
        return [str(stop)]


def _verify(envelope: bytes, public_key_pem: bytes) -> list[str]:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    # 1 envelope
    try:
        env = json.loads(envelope.decode("utf-8"))
        assert isinstance(env, dict)
        ptype, payload_text, sigs = env["payloadType"], env["payload"], env["signatures"]
        assert isinstance(ptype, str) and isinstance(payload_text, str)
        assert isinstance(sigs, list) and len(sigs) > 0
        payload = b64(payload_text)
        raw_sigs = []
        for s in sigs:
            assert isinstance(s, dict) and isinstance(s.get("sig"), str)
            raw_sigs.append(b64(s["sig"]))
    except (ValueError, KeyError, AssertionError, UnicodeDecodeError):
        raise Stop("envelope") from None
    # 2 payload_type
    if ptype != PAYLOAD_TYPE:
        raise Stop("payload_type")
    # 3 signature
    key = load_pem_public_key(public_key_pem)
    ok = False
    for sig in raw_sigs:
        try:
            key.verify(sig, pae(ptype, payload))  # type: ignore[union-attr, call-arg]
            ok = True
        except InvalidSignature:
            pass
    if not ok:
        raise Stop("signature")
    # 4 statement (``key`` checks the signed checkpoints too: 18 and 21)
    try:
        st = json.loads(payload.decode("utf-8"), object_pairs_hook=_pairs, parse_constant=_constant)
        assert isinstance(st, dict)
        assert st.get("_type") == STATEMENT_TYPE and st.get("predicateType") == PREDICATE_TYPE
        subject = st["subject"]
        assert isinstance(subject, list) and len(subject) == 1 and isinstance(subject[0], dict)
        digest = subject[0]["digest"]["sha256"]
        assert isinstance(digest, str) and HEX64.fullmatch(digest)
        pred = st["predicate"]
        trace, claims = pred["trace"], pred["claims"]
        assert isinstance(trace, dict) and isinstance(claims, dict) and set(claims) == set(CLAIMS)
    except (ValueError, KeyError, TypeError, AssertionError, UnicodeDecodeError):
        raise Stop("statement") from None

    failed: list[str] = []
    # 5 subject_digest
    try:
        if hashlib.sha256(jcs(trace)).hexdigest() != digest:
            failed.append("subject_digest")
    except ValueError:
        failed.append("subject_digest")
    # 6 trace.schema
    meta = trace.get("meta", {})
    budget = trace.get("budget")
    hops = trace.get("hops")
    if not (trace.get("kind", "chain") == "chain"
            and isinstance(hops, list) and all(isinstance(h, dict) for h in hops)
            and isinstance(budget, dict) and all(is_int(budget.get(k)) for k in ("rows_per_hop", "max_searches", "max_rows"))
            and is_int(trace.get("searches_used", 0)) and is_int(trace.get("rows_used", 0))
            and isinstance(meta, dict)):
        return failed + ["trace.schema"]
    # 7-10 claims
    own = {"catalog_digest": trace.get("catalog_digest"), "viewer": meta.get("viewer"),
           "projected": meta.get("projected"), "revision": meta.get("revision")}
    failed += [f"claims.{k}" for k in CLAIMS if not same(claims[k], own[k])]
    # 11-17 the trace itself
    anchors = [h["anchor"] for h in hops if h.get("anchor") is not None]
    if not all(isinstance(a.get("quote"), str) and a["quote"] for a in anchors):
        failed.append("trace.anchor_quote")
    if not all(_span_ok(a) for a in anchors):
        failed.append("trace.anchor_span")
    rel_ids = {a.get("relation_id") for a in anchors}
    answers = trace.get("answers") or []
    path_rels = list(trace.get("accepted_path") or []) + [r for a in answers for r in a.get("relations", [])]
    if any(r not in rel_ids for r in path_rels):
        failed.append("trace.accepted_path")
    if not _chain_ok(trace, hops):
        failed.append("trace.path_chain")
    if (trace.get("searches_used", 0) > budget["max_searches"] or trace.get("rows_used", 0) > budget["max_rows"]
            or any(len(h.get("hits", [])) > budget["rows_per_hop"] for h in hops)):
        failed.append("trace.budget")
    if not all(a.get("path_ids") and a["path_ids"][-1] == a.get("id") and len(a["path_ids"]) == len(a.get("relations", [])) + 1
               for a in answers):
        failed.append("trace.set_answers")
    comp = trace.get("completeness")
    if comp is not None and comp.get("answered") != len(answers):
        failed.append("trace.completeness")
    # 18-21 the log
    return failed + _log(trace, meta, hops, pred, key)


# -- the log (checks 18-21) ----------------------------------------------------------------------------

def _h(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


def _k(n: int) -> int:
    """The largest power of two below n (n > 1)."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def _root_from_path(index: int, size: int, leaf: bytes, path: list[bytes]) -> bytes | None:
    """The root PATH(index, D[0:size]) leads to, read as the RFC defines PATH (the last hash is the top sibling)."""
    if size == 1:
        return leaf if not path else None
    if not path:
        return None
    k = _k(size)
    if index < k:
        below = _root_from_path(index, k, leaf, path[:-1])
        return None if below is None else _h(b"\x01", below, path[-1])
    below = _root_from_path(index - k, size - k, leaf, path[:-1])
    return None if below is None else _h(b"\x01", path[-1], below)


def _roots_from_subproof(m: int, n: int, proof: list[bytes], whole: bool, old_root: bytes) -> tuple[bytes, bytes] | None:
    """(old root, new root) that SUBPROOF(m, D[0:n], whole) leads to, read as the RFC defines it."""
    if m == n:
        if whole:
            return (old_root, old_root) if not proof else None
        return (proof[0], proof[0]) if len(proof) == 1 else None
    if not proof:
        return None
    k = _k(n)
    if m <= k:
        got = _roots_from_subproof(m, k, proof[:-1], whole, old_root)
        return None if got is None else (got[0], _h(b"\x01", got[1], proof[-1]))
    got = _roots_from_subproof(m - k, n - k, proof[:-1], False, old_root)
    return None if got is None else (_h(b"\x01", proof[-1], got[0]), _h(b"\x01", proof[-1], got[1]))


def _std_b64(text: Any, size: int | None = None) -> bytes:
    if not isinstance(text, str):
        raise ValueError("not a string")
    raw = base64.b64decode(text, validate=True)
    if size is not None and len(raw) != size:
        raise ValueError("wrong length")
    return raw


def _proof(proof: Any) -> list[bytes]:
    """A proof's hashes: one base64 string of them one after another, or (traces written before it) a list of base64 hashes."""
    if isinstance(proof, list):
        return [_std_b64(p, 32) for p in proof]
    raw = _std_b64(proof)
    if len(raw) % 32:
        raise ValueError("not whole hashes")
    return [raw[k:k + 32] for k in range(0, len(raw), 32)]


def _note(note: Any, key: Any) -> tuple[str, int, bytes]:
    """Open a signed checkpoint with the key: (origin, size, root); ValueError when it does not."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    if not isinstance(note, str) or not note.endswith("\n") or "\n\n" not in note:
        raise ValueError("not a signed note")
    cut = note.rindex("\n\n")
    text, lines = note[:cut + 1], note[cut + 2:-1].split("\n")
    raw_key = key.public_bytes(Encoding.Raw, PublicFormat.Raw)
    good = 0
    for line in lines:
        if not line.startswith("\u2014 "):
            raise ValueError("not a signature line")
        name, _, sig_b64 = line[2:].partition(" ")
        if not name or " " in sig_b64:
            raise ValueError("not a signature line")
        sig = _std_b64(sig_b64)
        if sig[:4] == _h(name.encode(), b"\n\x01", raw_key)[:4]:
            try:
                key.verify(sig[4:], text.encode("utf-8"))
            except InvalidSignature:
                raise ValueError("bad signature") from None
            good += 1
    if not good:
        raise ValueError("no signature by this key")
    body = text.split("\n")
    if len(body) < 4 or not re.fullmatch(r"0|[1-9][0-9]*", body[1]):
        raise ValueError("not a checkpoint")
    return body[0], int(body[1]), _std_b64(body[2], 32)


def _pct(text: str) -> str:
    keep = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    return "".join(chr(b) if chr(b) in keep else "%%%02X" % b for b in text.encode("utf-8"))


def _log(trace: dict[str, Any], meta: dict[str, Any], hops: list[dict[str, Any]], pred: dict[str, Any], key: Any) -> list[str]:
    log = meta.get("log")
    if log is None and "checkpoint" not in pred and "consistency" not in pred:
        return []
    try:
        assert isinstance(log, dict) and isinstance(log.get("origin"), str) and is_int(log.get("size"))
        assert isinstance(log.get("units"), dict) and isinstance(log.get("relations"), dict)
        assert log.get("format", "rfc9162-sha256/3") == "rfc9162-sha256/3"
        root = _std_b64(log.get("root"), 32)
        origin, size, signed_root = _note(pred.get("checkpoint"), key)
        assert (origin, size, signed_root) == (log["origin"], log["size"], root)
        if meta.get("projected") is False:
            endings = ["/audit"]
        else:
            endings = ["/public"] + (["/principal/" + _pct(meta["viewer"])] if isinstance(meta.get("viewer"), str) else [])
        assert any(origin.endswith(e) for e in endings)
    except (AssertionError, ValueError, TypeError):
        return ["log.checkpoint"]
    failed = []
    proven, quoted = True, True
    one_leaf = "format" in log  # format 3: a leaf an anchor; format 2 (no format named): a unit leaf and a relation leaf
    for hop in hops:
        a = hop.get("anchor")
        if a is None:
            continue
        doc = [a.get("source"), a.get("document"), a.get("version"), a.get("representation"), a.get("digest")]
        unit_fields = None
        try:
            u = log["units"][a["unit_ref"]]
            start, end = u["span"]
            text = u["text"]
            assert is_int(start) and is_int(end) and isinstance(text, str)
            unit_fields = [a["unit_ref"], start, end, hashlib.sha256(text.encode()).hexdigest()]
            if not one_leaf:
                leaf = jcs(["chainret/unit/1", a["unit_ref"], *doc, start, end, unit_fields[3]])
                path = _proof(u["proof"])
                assert is_int(u["index"]) and 0 <= u["index"] < size
                assert _root_from_path(u["index"], size, _h(b"\x00", leaf), path) == root
            s, e = a["span"]
            if not (len(text) == end - start and start <= s <= e <= end and text[s - start:e - start] == a["quote"]):
                quoted = False
        except (AssertionError, ValueError, TypeError, KeyError):
            proven = False
        try:
            r = log["relations"][a["relation_id"]]
            fields = [a["relation_id"], r["subject"], r["predicate"], r["object"], *doc,
                      a["span"][0], a["span"][1], hashlib.sha256(a["quote"].encode()).hexdigest(), a.get("support_kind", "clause")]
            if one_leaf:
                assert unit_fields is not None
                leaf = jcs(["chainret/anchor/1", *fields, *unit_fields])
            else:
                leaf = jcs(["chainret/relation/1", *fields])
            path = _proof(r["proof"])
            assert is_int(r["index"]) and 0 <= r["index"] < size
            assert _root_from_path(r["index"], size, _h(b"\x00", leaf), path) == root
            assert hop.get("from_id") == r["subject"] and hop.get("predicate") == r["predicate"]
            assert hop.get("bridge") in (None, r["object"])
        except (AssertionError, ValueError, TypeError, KeyError):
            proven = False
    if not proven:
        failed.append("log.inclusion")
    if not quoted:
        failed.append("log.quote_at_span")
    since = pred.get("consistency")
    if since is not None:
        try:
            assert isinstance(since, dict) and set(since) == {"checkpoint", "proof"}
            old_origin, old, old_root = _note(since["checkpoint"], key)
            proof = _proof(since["proof"])
            assert old_origin == origin and 0 <= old <= size
            if old == size:
                assert not proof and old_root == root
            elif old > 0:
                assert _roots_from_subproof(old, size, proof, True, old_root) == (old_root, root)
            else:
                assert not proof
        except (AssertionError, ValueError, TypeError, KeyError):
            failed.append("log.consistency")
    return failed


def _span_ok(anchor: dict[str, Any]) -> bool:
    span, quote = anchor.get("span"), anchor.get("quote")
    if not (isinstance(span, list) and len(span) == 2 and all(is_int(x) for x in span) and isinstance(quote, str)):
        return False
    a, b = span
    return 0 <= a <= b and b - a == len(quote)  # a Python str's length is its count of code points


def _chain_ok(trace: dict[str, Any], hops: list[dict[str, Any]]) -> bool:
    path = trace.get("path_ids")
    if path is None:
        return True
    rels = trace.get("accepted_path")
    if not isinstance(rels, list) or len(path) != len(rels) + 1:
        return False
    interp = trace.get("interpretation")
    if interp is not None and path[0] != interp.get("start_id"):
        return False
    for i, rel in enumerate(rels):
        if not any(h.get("from_id") == path[i] and h.get("bridge") == path[i + 1]
                   and h.get("anchor") is not None and h["anchor"].get("relation_id") == rel for h in hops):
            return False
    return True
