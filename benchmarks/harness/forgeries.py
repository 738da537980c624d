"""Forged signed traces, for the trust page's offline rows (``benchmarks.trust``) and their CI test.

Each ``Forgery`` takes a genuine signed trace of a compiled store (its envelope, statement and the key) and makes one
forged envelope, as one of two attackers would: **without the key** (the payload edited under the old signature,
or another statement's signature) or **the key holder** (an edited statement re-signed, its subject digest and
checkpoint note made to match). ``guard`` names the offline check that must reject it (``chainret.verify.offline``)
and ``switch_off`` the function that, replaced, switches that check off: tests/test_trust_offline.py asserts each
forgery fails that check and, with the guard switched off, no longer does (the negative control).

``RESIDUAL`` lists what the key holder can claim consistently and no offline check can refute (docs/proof.md, "It
does not prove"): the catalog digest, the revision, and a viewer whose class the trace's log also fits. The page
counts them as verifying, beside the rows that must be zero.
"""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Statement = dict[str, Any]


@dataclass(frozen=True)
class Genuine:
    """One real trace signed: its envelope and statement, the key, and another trace's statement and log."""

    envelope: dict[str, Any]
    statement: Statement
    key: Any  # Ed25519PrivateKey
    other_statement: Statement  # another genuine trace's (its signature is over other bytes)
    other_log: dict[str, Any] | None  # the same request's proofs against a log not of its viewer (``_foreign_log``)
    other_viewer: str  # a principal this trace was not projected for


@dataclass(frozen=True)
class Forgery:
    name: str
    attacker: str  # "no key" or "key holder"
    what: str
    guard: str  # the offline check that rejects it
    switch_off: tuple[str, str, Callable[..., Any]]  # (module, attribute, replacement) that switches the guard off
    forge: Callable[[Genuine], dict[str, Any] | None]  # None: this trace offers nothing to forge so (e.g. one unit)


def _payload(statement: Statement) -> str:
    from chainret.verify.signing import canonical_json

    return base64.b64encode(canonical_json(statement)).decode("ascii")


def _unsigned(g: Genuine, statement: Statement) -> dict[str, Any]:
    """The envelope with an edited payload and the genuine signature: what a tamperer without the key makes."""
    return {**g.envelope, "payload": _payload(statement)}


def _resigned(g: Genuine, statement: Statement) -> dict[str, Any]:
    """The key holder's: the subject digest of the edited trace, the checkpoint its log names, all signed."""
    from chainret.verify.signing import canonical_json, sign_checkpoint, sign_payload, trace_digest

    s = copy.deepcopy(statement)
    s["subject"][0]["digest"]["sha256"] = trace_digest(s["predicate"]["trace"])
    log = s["predicate"]["trace"]["meta"].get("log")
    if isinstance(log, dict):
        s["predicate"]["checkpoint"] = sign_checkpoint(log["origin"], log["size"], log["root"], g.key)
    return sign_payload(canonical_json(s), g.key)


def _edit(g: Genuine, change: Callable[[Statement], None]) -> Statement:
    s = copy.deepcopy(g.statement)
    change(s)
    return s


def _relabel(viewer: str) -> Callable[[Statement], None]:
    def change(s: Statement) -> None:
        s["predicate"]["trace"]["meta"]["viewer"] = viewer
        s["predicate"]["claims"]["viewer"] = viewer
    return change


def _digest(s: Statement) -> None:
    s["predicate"]["trace"]["catalog_digest"] = s["predicate"]["claims"]["catalog_digest"] = "sha256:" + "0" * 64


def _revision(s: Statement) -> None:
    forged = "99." + str(s["predicate"]["claims"]["revision"]).split(".", 1)[-1]
    s["predicate"]["trace"]["meta"]["revision"] = s["predicate"]["claims"]["revision"] = forged


def _claim(key: str, value: Callable[[Statement], object]) -> Callable[[Statement], None]:
    def change(s: Statement) -> None:
        s["predicate"]["claims"][key] = value(s)
    return change


def _log(s: Statement) -> dict[str, Any]:
    return s["predicate"]["trace"]["meta"]["log"]  # type: ignore[no-any-return]


def _other_size(s: Statement) -> None:
    _log(s)["size"] = _log(s)["size"] * 2 + 1


def _swap(g: Genuine) -> dict[str, Any] | None:
    units = list(_log(g.statement)["units"])
    if len(units) < 2:
        return None

    def change(s: Statement) -> None:
        lg = _log(s)["units"]
        lg[units[0]], lg[units[1]] = lg[units[1]], lg[units[0]]
    return _resigned(g, _edit(g, change))


def _foreign(g: Genuine) -> dict[str, Any] | None:
    if g.other_log is None:
        return None

    def change(s: Statement) -> None:
        s["predicate"]["trace"]["meta"]["log"] = copy.deepcopy(g.other_log)
    return _resigned(g, _edit(g, change))


def _other_bytes(g: Genuine) -> dict[str, Any]:
    from chainret.verify.signing import canonical_json, sign_payload

    return {**g.envelope, "signatures": sign_payload(canonical_json(g.other_statement), g.key)["signatures"]}


_OFF_SIGNATURE = ("chainret.verify.offline", "_valid", lambda *a: True)
_OFF_CLAIMS = ("chainret.verify.offline", "json_equal", lambda a, b: True)
_OFF_INCLUSION = ("chainret.core.tlog", "verify_inclusion", lambda *a: True)
_OFF_ORIGIN = ("chainret.core.tlog", "viewer_log_classes", lambda viewer, projected: ["audit", "public", "principal/auditor"])

FORGERIES: tuple[Forgery, ...] = (
    Forgery("unsigned_viewer", "no key", "viewer relabelled (trace and claim) under the genuine signature", "signature",
            _OFF_SIGNATURE, lambda g: _unsigned(g, _edit(g, _relabel(g.other_viewer)))),
    Forgery("unsigned_digest", "no key", "catalog_digest forged (trace and claim) under the genuine signature", "signature",
            _OFF_SIGNATURE, lambda g: _unsigned(g, _edit(g, _digest))),
    Forgery("unsigned_revision", "no key", "meta.revision forged (trace and claim) under the genuine signature", "signature",
            _OFF_SIGNATURE, lambda g: _unsigned(g, _edit(g, _revision))),
    Forgery("other_bytes", "no key", "the key's signature over another trace's statement", "signature",
            _OFF_SIGNATURE, _other_bytes),
    Forgery("relabelled_viewer", "key holder", "viewer relabelled in the trace and its claim alike, on a trace proven against "
            "its principal's own log (the log names the class)", "log.checkpoint", _OFF_ORIGIN,
            lambda g: None if _log(g.statement)["origin"].endswith("/public") else _resigned(g, _edit(g, _relabel(g.other_viewer)))),
    Forgery("claimed_viewer", "key holder", "claims.viewer names another principal than the trace's meta.viewer", "claims.viewer",
            _OFF_CLAIMS, lambda g: _resigned(g, _edit(g, _claim("viewer", lambda s: g.other_viewer)))),
    Forgery("claimed_digest", "key holder", "claims.catalog_digest forged, the trace's left", "claims.catalog_digest",
            _OFF_CLAIMS, lambda g: _resigned(g, _edit(g, _claim("catalog_digest", lambda s: "sha256:" + "0" * 64)))),
    Forgery("claimed_revision", "key holder", "claims.revision forged, the trace's left", "claims.revision",
            _OFF_CLAIMS, lambda g: _resigned(g, _edit(g, _claim("revision", lambda s: "99." + str(s["predicate"]["claims"]["revision"]))))),
    Forgery("other_tree_size", "key holder", "the checkpoint names another tree size (its note re-signed): the proofs are "
            "for another tree", "log.inclusion", _OFF_INCLUSION, lambda g: _resigned(g, _edit(g, _other_size))),
    Forgery("swapped_leaf", "key holder", "two units' log entries swapped (each genuine, under the other's name)",
            "log.inclusion", _OFF_INCLUSION, _swap),
    Forgery("foreign_checkpoint", "key holder", "the proofs and checkpoint of another viewer class's log (valid, signed)",
            "log.checkpoint", _OFF_ORIGIN, _foreign),
)

#: What the key holder can state consistently and no offline check refutes (docs/proof.md).
RESIDUAL: tuple[tuple[str, str, Callable[[Genuine], dict[str, Any]]], ...] = (
    ("residual_digest", "catalog_digest forged in the trace and its claim alike",
     lambda g: _resigned(g, _edit(g, _digest))),
    ("residual_revision", "meta.revision forged in the trace and its claim alike",
     lambda g: _resigned(g, _edit(g, _revision))),
    ("residual_viewer", "viewer relabelled in the trace and its claim alike (caught where the trace's log is the "
     "viewer's own class: it is not the new viewer's)", lambda g: _resigned(g, _edit(g, _relabel(g.other_viewer)))),
)


def genuine_traces(db: str, key: Any, requests: list[tuple[str, str, str]], principals: tuple[str, ...]) -> list[Genuine]:
    """Every (request, view, principal) asked of the store at ``db``, projected for its principal and signed."""
    from chainret.pipeline.ask import ask
    from chainret.store import open_store
    from chainret.verify.signing import sign_trace

    store = open_store(db)
    try:
        traces = {(r, v, p): ask(r, store, view=v, principal=p) for r, v, p in requests}
        out = []
        keys = list(traces)
        for i, k in enumerate(keys):
            trace = traces[k]
            if "log" not in trace.meta or not any(h.anchor is not None for h in trace.hops):
                continue
            env = sign_trace(trace, key)
            statement = json.loads(base64.b64decode(env["payload"]))
            request, view, principal = k
            other_log = _foreign_log(store, trace, principal, principals)
            other = traces[keys[(i + 1) % len(keys)]]
            out.append(Genuine(env, statement, key, json.loads(base64.b64decode(sign_trace(other, key)["payload"])), other_log,
                               next(p for p in principals if p != principal)))
        return out
    finally:
        store.close()


def _foreign_log(store: Any, trace: Any, principal: str, principals: tuple[str, ...]) -> dict[str, Any] | None:
    """The trace's proofs against a log that is not its viewer's and that an offline verifier can tell is not: a
    public trace's against a principal's log (the origin names that principal), a principal's against the audit
    log. (A principal's trace proven against the public log is not told apart offline: which viewers the public
    log serves only the store knows. ``RESIDUAL``'s relabelled viewer is that case.)"""
    from chainret.store.log import AUDIT, store_log, viewer_class

    log = store_log(store)
    assert log is not None
    own = viewer_class(log.classes, principal)
    named = [c for c in log.classes if c not in (AUDIT, own, "*")]
    other = named[0] if own == "*" and named else AUDIT if own != "*" else None
    return None if other is None else log.proofs(trace, other)


def verifies(envelope: dict[str, Any], public_key: Any) -> tuple[bool, list[str]]:
    from chainret.verify.offline import verify_envelope

    result = verify_envelope(json.dumps(envelope).encode(), public_key)
    return result.ok, result.failed
