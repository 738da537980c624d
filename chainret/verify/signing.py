"""Signed traces: a DSSE envelope over an in-toto Statement whose subject is a trace (docs/proof.md).

A trace signed here can be checked with only the envelope and the signer's public key
(``chainret.verify.offline``), on a machine without the store. The format is docs/proof.md's, exactly; a
second verifier written from that page alone (tests/support/independent_verifier.py) checks the same
conformance cases (fixtures/verify/).

Ed25519 comes from ``cryptography`` and RFC 8785 canonical JSON from ``rfc8785`` (Trail of Bits' pure-Python
implementation): both well kept, both in the ``sign`` extra and imported only inside these functions, so
``import chainret`` and ``chainret ask`` never load them. There is no fallback: without a private key nothing is
signed, and no placeholder signature is ever written.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chainret.core import tlog
from chainret.core.errors import EXIT_NO, ChainretError, MissingExtra, OutputError, UsageError
from chainret.core.files import atomic_write_text, check_output_path
from chainret.verify.offline import (  # the format's primitives live with the verifier; signing builds on them
    CLAIM_KEYS as CLAIM_KEYS,
    PAYLOAD_TYPE,
    PREDICATE_TYPE,
    SIGN_EXTRA,
    STATEMENT_TYPE,
    SUBJECT_NAME,
    canonical_json as canonical_json,
    claims_of,
    pae,
    statement_failures,
    trace_digest,
)

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

    from chainret.trace.model import Trace

PRIVATE_NAME, PUBLIC_NAME = "key.pem", "key.pub"


class UnsignableTrace(ChainretError):
    """The trace fails a check a verifier would fail it on: the key holder does not vouch for it (exit 1)."""

    exit_code = EXIT_NO


def _ed25519() -> Any:
    """The ``cryptography`` Ed25519 module, or ``MissingExtra`` naming the extra that brings it."""
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:
        raise MissingExtra(f"signed traces need the 'cryptography' package: {SIGN_EXTRA}", extra="sign") from None
    return ed25519


def statement_for(trace: Trace) -> dict[str, Any]:
    """The in-toto Statement of a trace: its stable JSON as the predicate's trace, named by its canonical digest."""
    trace_json = json.loads(trace.to_json())
    return {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": SUBJECT_NAME, "digest": {"sha256": trace_digest(trace_json)}}],
        "predicateType": PREDICATE_TYPE,
        "predicate": {"trace": trace_json, "claims": claims_of(trace_json)},
    }


def key_id(public_key: Ed25519PublicKey) -> str:
    """Hex SHA-256 of the raw 32-byte public key: the envelope's ``keyid`` hint (never trusted by a verifier)."""
    from cryptography.hazmat.primitives import serialization

    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()


def sign_payload(payload: bytes, private_key: Ed25519PrivateKey, payload_type: str = PAYLOAD_TYPE) -> dict[str, Any]:
    """A DSSE envelope over ``payload``: the low-level step, signing whatever bytes it is given.

    ``sign_trace`` is the one to use; the conformance-case generator uses this to sign statements that are
    deliberately broken, so each verifier check is exercised on its own.
    """
    sig = private_key.sign(pae(payload_type, payload))
    return {
        "payloadType": payload_type,
        "payload": base64.b64encode(payload).decode("ascii"),
        "signatures": [{"keyid": key_id(private_key.public_key()), "sig": base64.b64encode(sig).decode("ascii")}],
    }


def sign_note(text: str, name: str, private_key: Ed25519PrivateKey) -> str:
    """A C2SP signed note: ``text``, a blank line, and one Ed25519 signature line by ``name`` (docs/proof.md)."""
    from chainret.verify.offline import raw_public_key

    key_hash = tlog.note_key_id(name, raw_public_key(private_key.public_key()))
    sig = private_key.sign(text.encode("utf-8"))
    return f"{text}\n{tlog.NOTE_SIG_PREFIX}{name} {tlog.b64(key_hash + sig)}\n"


def sign_checkpoint(origin: str, size: int, root_b64: str, private_key: Ed25519PrivateKey) -> str:
    """A checkpoint (C2SP tlog-checkpoint) signed as a note whose key name is the log's origin."""
    body = tlog.checkpoint_body(origin, size, tlog.unb64(root_b64, "the root hash", tlog.HASH_SIZE))
    return sign_note(body, origin, private_key)


def sign_trace(trace: Trace, private_key: Ed25519PrivateKey, *, consistency: dict[str, Any] | None = None) -> dict[str, Any]:
    """The envelope of a trace's statement; ``UnsignableTrace`` when the trace fails an offline check.

    A trace with ``meta.log`` (asked of a store with a log) gets its checkpoint signed into the statement
    (``predicate.checkpoint``); ``consistency`` (``{"checkpoint": an earlier signed checkpoint, "proof": [...]}``,
    from ``chainret catalog log --consistency``) proves that checkpoint a prefix of the trace's."""
    statement = statement_for(trace)
    log = trace.meta.get("log")
    if isinstance(log, dict):
        try:
            statement["predicate"]["checkpoint"] = sign_checkpoint(str(log.get("origin")), int(log.get("size", -1)),
                                                                   str(log.get("root")), private_key)
        except (tlog.LogError, TypeError, ValueError) as exc:
            raise UnsignableTrace(f"this trace's log checkpoint (meta.log) cannot be signed: {exc}") from None
    if consistency is not None:
        statement["predicate"]["consistency"] = consistency
    failed = statement_failures(statement, private_key.public_key())
    if failed:
        raise UnsignableTrace("this trace fails the offline checks a verifier would run, so it is not signed: "
                              + "; ".join(f"{c.name}: {c.message}" for c in failed))
    return sign_payload(canonical_json(statement), private_key)


# -- key files ------------------------------------------------------------------------------------------


def generate_keys(out_dir: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Write a new Ed25519 pair: ``DIR/key.pem`` (PKCS#8 PEM, 0600) and ``DIR/key.pub``; never over an existing file."""
    from cryptography.hazmat.primitives import serialization

    ed25519 = _ed25519()
    out = Path(out_dir)
    priv_path, pub_path = out / PRIVATE_NAME, out / PUBLIC_NAME
    for p in (priv_path, pub_path):
        check_output_path(p)
        if p.exists() or p.is_symlink():
            raise OutputError(f"{p}: already exists; keys are never overwritten (move it away or pick another --out)")
    key = ed25519.Ed25519PrivateKey.generate()
    priv = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    pub = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    try:
        atomic_write_text(priv_path, priv.decode("ascii"), exclusive=True, mode="private")
        atomic_write_text(pub_path, pub.decode("ascii"), exclusive=True)
    except FileExistsError as exc:
        raise OutputError(f"{exc.filename or out}: already exists; keys are never overwritten") from None
    return priv_path, pub_path


def _read_key_file(path: str | os.PathLike[str], what: str) -> bytes:
    p = Path(path)
    try:
        if p.exists() and not stat.S_ISREG(p.stat().st_mode):
            raise UsageError(f"{p}: not a regular file, so not a {what}")
        return p.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{p}: no such {what} file") from None
    except OSError as exc:
        raise UsageError(f"{p}: cannot read this {what} file: {exc.strerror or exc}") from None


def load_private_key(path: str | os.PathLike[str]) -> Ed25519PrivateKey:
    """An Ed25519 private key from a PEM file that only its owner may read (as ssh insists)."""
    from cryptography.hazmat.primitives import serialization

    ed25519 = _ed25519()
    data = _read_key_file(path, "private key")
    if os.name == "posix" and Path(path).stat().st_mode & 0o077:
        raise UsageError(f"{path}: this private key may be read by group or others; `chmod 600 {path}` first")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):  # (cryptography's own message points at its FAQ, not at the file)
        raise UsageError(f"{path}: not an unencrypted PEM private key (`chainret trace keygen` makes one)") from None
    if not isinstance(key, ed25519.Ed25519PrivateKey):
        raise UsageError(f"{path}: not an Ed25519 private key (`chainret trace keygen` makes one)")
    return key


def load_public_key(path: str | os.PathLike[str]) -> Ed25519PublicKey:
    """An Ed25519 public key from a PEM (SubjectPublicKeyInfo) file."""
    from cryptography.hazmat.primitives import serialization

    ed25519 = _ed25519()
    data = _read_key_file(path, "public key")
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError):
        raise UsageError(f"{path}: not a PEM public key (a '-----BEGIN PUBLIC KEY-----' file, as `trace keygen` writes)") from None
    if not isinstance(key, ed25519.Ed25519PublicKey):
        raise UsageError(f"{path}: not an Ed25519 public key")
    return key
