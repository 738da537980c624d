"""Transparency-log primitives: RFC 9162 Merkle tree hashing and proofs, leaf data, C2SP checkpoints (signed notes).

Shared by the store's per-viewer log (``chainret.store.log``, which writes the tree) and the offline verifier
(``chainret.verify.offline``, which checks proofs with no store); docs/proof.md specifies every byte, and a second
verifier (tests/support/independent_verifier.py) is written from that page alone.

Why hand-written: the tree code is RFC 9162 section 2.1 (hashing, PATH, SUBPROOF and the two verification
algorithms, about a hundred lines). The PyPI Merkle libraries either keep their own storage (a tree object in
memory or their own SQLite file, not rows of the store's own transaction), or use their own proof layout rather
than RFC 9162's; the verifier must run with nothing but ``hashlib``, and the proofs must be checkable by any RFC
9162 implementation (Go's transparency-dev/merkle among them). The signed-note format is a few lines of text.
Ed25519 itself is ``cryptography``'s, imported only by the functions that sign or verify a note.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Callable, Sequence

HASH_SIZE = 32
LEAF_PREFIX, NODE_PREFIX = b"\x00", b"\x01"
UNIT_LEAF, RELATION_LEAF = "chainret/unit/1", "chainret/relation/1"  # (log format 2's two leaves an anchor)
ANCHOR_LEAF = "chainret/anchor/1"  # (format 3: one leaf an anchor, its relation and the unit it states)
#: The log format whose leaves are anchors, as a store's ``log_info`` and a trace's ``meta.log.format`` name it (a
#: trace that names none is of format 2: a unit leaf and a relation leaf an anchor; docs/proof.md).
ANCHOR_FORMAT = "rfc9162-sha256/3"
NOTE_SIG_PREFIX = "\u2014 "  # an em dash and a space start every signature line of a signed note
ED25519_TYPE = b"\x01"  # the signature-type byte C2SP signed notes hash into an Ed25519 key's id

#: A function giving the RFC 9162 hash of the perfect subtree ``(level, index)``: leaves
#: ``index * 2**level`` up to ``(index + 1) * 2**level``; level 0 is a leaf hash.
NodeGetter = Callable[[int, int], bytes]


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


class LogError(ValueError):
    """A proof, checkpoint or note that is malformed or does not verify; the message says which and why."""


# -- hashing ------------------------------------------------------------------------------------------

# A hash of a prefix's state, copied for each leaf or node: a copy of one OpenSSL context is some 0.4 us less a hash
# (0.74 against 1.13 us here) than a new ``sha256`` of the prefix and the data joined, which fetches the digest and
# copies the data once more. (A hash object's copy takes its lock: the objects are shared by every thread.)
_LEAF_STATE = hashlib.sha256(LEAF_PREFIX)
_NODE_STATE = hashlib.sha256(NODE_PREFIX)


def leaf_hash(data: bytes) -> bytes:
    h = _LEAF_STATE.copy()
    h.update(data)
    return h.digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    h = _NODE_STATE.copy()
    h.update(left)
    h.update(right)
    return h.digest()


def pair_hash(pair: bytes) -> bytes:
    """``node_hash`` of two siblings held side by side in one string (as a tile holds them: no copy of each)."""
    h = _NODE_STATE.copy()
    h.update(pair)
    return h.digest()


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _canonical_array(items: Sequence[str | int]) -> bytes:
    """RFC 8785 bytes of a JSON array of strings and small integers.

    For such an array ``json.dumps`` with no spaces and ``ensure_ascii=False`` writes exactly RFC 8785's bytes
    (only ``"``, ``\\`` and control characters escaped, ``\\u00xx`` lowercase; integers in decimal), so the
    store can write leaves without the ``sign`` extra's canonicaliser.
    """
    for x in items:
        if type(x) is not str and (type(x) is not int or not -(2**53) < x < 2**53):  # (a bool is no int here)
            raise LogError(f"a leaf holds strings and integers only, not {x!r}")
    return _COMPACT.encode(list(items)).encode("utf-8")


def unit_leaf(unit_ref: str, source: str, document: str, version: str, representation: str, digest: str,
              start: int, end: int, text: str) -> bytes:
    """The leaf data of a unit: which document version it belongs to, where it lies, what it says (by digest)."""
    return _canonical_array([UNIT_LEAF, unit_ref, source, document, version, representation, digest, start, end,
                             text_digest(text)])


def relation_leaf(relation_id: str, subject: str, predicate: str, obj: str, source: str, document: str, version: str,
                  representation: str, digest: str, start: int, end: int, quote: str, kind: str) -> bytes:
    """The leaf data of a relation: the record and its support (the quote by digest)."""
    return _canonical_array([RELATION_LEAF, relation_id, subject, predicate, obj, source, document, version,
                             representation, digest, start, end, text_digest(quote), kind])


def anchor_leaf(relation_id: str, subject: str, predicate: str, obj: str, source: str, document: str, version: str,
                representation: str, digest: str, start: int, end: int, quote: str, kind: str,
                unit_ref: str, unit_start: int, unit_end: int, unit_text: str) -> bytes:
    """The leaf data of an anchor (log format 3): a relation, its support, and the unit that states it (its span and
    its text by digest), in one leaf. Why one: a trace cites a unit only through a relation it states, and a leaf
    each was two leaves, two proofs and two tile reads an anchor for what one commits to."""
    return _canonical_array([ANCHOR_LEAF, relation_id, subject, predicate, obj, source, document, version,
                             representation, digest, start, end, text_digest(quote), kind,
                             unit_ref, unit_start, unit_end, text_digest(unit_text)])


# -- trees ---------------------------------------------------------------------------------------------

def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n >= 2): where RFC 9162 splits a tree of ``n`` leaves."""
    return 1 << ((n - 1).bit_length() - 1)


def subtree_hash(get: NodeGetter, start: int, end: int) -> bytes:
    """MTH of leaves ``start`` up to ``end``, from perfect subtrees (``start`` aligned as the proofs' ranges are)."""
    size = end - start
    if size <= 0:
        raise LogError("an empty range has no subtree hash")
    if size & (size - 1) == 0 and start % size == 0:
        level = size.bit_length() - 1
        return get(level, start >> level)
    k = _split(size)
    return node_hash(subtree_hash(get, start, start + k), subtree_hash(get, start + k, end))


def root_hash(get: NodeGetter, size: int) -> bytes:
    """The tree head of the first ``size`` leaves (the empty tree's is SHA-256 of nothing)."""
    return hashlib.sha256(b"").digest() if size == 0 else subtree_hash(get, 0, size)


def audit_path(index: int, size: int, start: int = 0, stop: int = 64) -> list[tuple[int, int]]:
    """Where each hash of RFC 9162 PATH(index, D[0:size]) comes from, nearest the leaf first: ``(level, idx, 0)`` for
    the perfect subtree ``(level, idx)``, or ``(-1, start)`` for MTH of leaves ``start`` up to ``size`` (the
    tree's unfinished right edge). Level by level the sibling of the leaf's ancestor, where one exists: the
    same list as the RFC's recursion (tests/test_store_log.py checks it against it), planned with no hashing.
    ``start`` and ``stop``: the part of the path from level ``start`` up to ``stop`` (the part above a level
    depends on the leaf's ancestor at that level only, so a caller can keep it for every leaf under it)."""
    if not 0 <= index < size:
        raise LogError(f"leaf {index} is not in a tree of {size} leaves")
    out: list[tuple[int, int]] = []
    level = start
    while (size - 1) >> level and level < stop:  # until the ancestor is the root
        sibling = (index >> level) ^ 1
        first = sibling << level
        if first < size:
            out.append((level, sibling) if first + (1 << level) <= size else (-1, first))
        level += 1
    return out


def inclusion_proof(get: NodeGetter, index: int, size: int, edge: Callable[[int], bytes] | None = None) -> list[bytes]:
    """RFC 9162 PATH(index, D[0:size]): the audit path of leaf ``index`` in the tree of ``size`` leaves.
    ``edge(start)``, when given, answers MTH of leaves ``start`` up to ``size`` (a caller that caches them)."""
    right_edge = edge or (lambda start: subtree_hash(get, start, size))
    return [right_edge(i) if level < 0 else get(level, i) for level, i in audit_path(index, size)]


def consistency_proof(get: NodeGetter, old: int, new: int) -> list[bytes]:
    """RFC 9162 PROOF(old, D[0:new]): what shows the tree of ``old`` leaves is a prefix of the one of ``new``."""
    if not 0 <= old <= new:
        raise LogError(f"no consistency proof from {old} leaves to {new}")
    if old == 0 or old == new:
        return []
    path: list[bytes] = []
    start, end, m, whole = 0, new, old, True
    while True:
        if m == end - start:
            if not whole:
                path.append(subtree_hash(get, start, end))
            break
        k = _split(end - start)
        if m <= k:
            path.append(subtree_hash(get, start + k, end))
            end = start + k
        else:
            path.append(subtree_hash(get, start, start + k))
            start, m, whole = start + k, m - k, False
    return path[::-1]


def verify_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes], root: bytes) -> bool:
    """RFC 9162 section 2.1.3.2: does ``proof`` take leaf hash ``leaf`` at ``index`` to ``root`` of ``size`` leaves?"""
    if not 0 <= index < size or any(len(p) != HASH_SIZE for p in proof):
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root


def verify_consistency(old: int, new: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]) -> bool:
    """RFC 9162 section 2.1.4.2: is the tree of ``old`` leaves with ``old_root`` a prefix of ``new`` / ``new_root``?"""
    if not 0 <= old <= new or any(len(p) != HASH_SIZE for p in proof):
        return False
    if old == new:
        return not proof and old_root == new_root
    if old == 0:
        return not proof  # the empty tree is a prefix of every tree
    path = list(proof)
    if old & (old - 1) == 0:
        path.insert(0, old_root)
    if not path:
        return False
    fn, sn = old - 1, new - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return fr == old_root and sr == new_root and sn == 0


def b64(data: bytes) -> str:
    """Standard base64 with padding (``base64.b64encode``'s bytes, without its wrapper: a proof writes a dozen a hop)."""
    return binascii.b2a_base64(data, newline=False).decode("ascii")


def unb64(text: object, what: str, size: int | None = None) -> bytes:
    """Standard base64 (with padding) as checkpoints and proofs write it; ``LogError`` naming ``what`` otherwise."""
    if not isinstance(text, str):
        raise LogError(f"{what} is not a base64 string")
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        raise LogError(f"{what} is not base64") from None
    if size is not None and len(raw) != size:
        raise LogError(f"{what} holds {len(raw)} bytes, not {size}")
    return raw


def proof_hashes(proof: object, what: str = "its proof") -> list[bytes]:
    """The hashes of an inclusion proof as a trace writes it: one base64 string of the hashes one after another (a
    multiple of ``HASH_SIZE`` bytes: how a store writes it since issue 49's last change), or a list of base64 hashes
    (as traces written before that carry it, which must keep verifying). ``LogError`` naming ``what`` otherwise."""
    if isinstance(proof, str):
        raw = unb64(proof, what)
        if len(raw) % HASH_SIZE:
            raise LogError(f"{what} holds {len(raw)} bytes, not a whole number of {HASH_SIZE}-byte hashes")
        return [raw[k:k + HASH_SIZE] for k in range(0, len(raw), HASH_SIZE)]
    if not isinstance(proof, list):
        raise LogError(f"{what} is neither a base64 string nor a list")
    return [unb64(p, "a proof hash", HASH_SIZE) for p in proof]


def viewer_log_classes(viewer: object, projected: object) -> list[str]:
    """How the origin of a trace's log may end, given the trace's viewer: ``audit`` for an unprojected trace,
    else ``public`` or ``principal/<the viewer, percent-encoded>`` (which of the two only the store knows)."""
    from urllib.parse import quote

    if projected is False:
        return ["audit"]
    return ["public"] + ([f"principal/{quote(viewer, safe='')}"] if isinstance(viewer, str) else [])


# -- checkpoints (C2SP tlog-checkpoint in a C2SP signed note) -------------------------------------------

def checkpoint_body(origin: str, size: int, root: bytes) -> str:
    """The checkpoint's text: origin line, tree size, base64 root hash, each ending in a newline."""
    if not origin or "\n" in origin:
        raise LogError("a checkpoint origin is one non-empty line")
    return f"{origin}\n{size}\n{b64(root)}\n"


def parse_checkpoint(body: str) -> tuple[str, int, bytes]:
    """(origin, size, root) of a checkpoint's text; ``LogError`` when it is not three such lines."""
    lines = body.split("\n")
    if len(lines) < 4 or lines[-1] != "" or not lines[0]:
        raise LogError("a checkpoint is an origin line, a size line and a root hash line, each ending in a newline")
    origin, size, root = lines[0], lines[1], lines[2]
    if not size.isascii() or not size.isdigit() or (size != "0" and size.startswith("0")):
        raise LogError(f"the checkpoint's size {size[:40]!r} is not a decimal number")
    return origin, int(size), unb64(root, "the checkpoint's root hash", HASH_SIZE)


def note_key_id(name: str, raw_public_key: bytes) -> bytes:
    """The 4-byte id of an Ed25519 key in a signed note: SHA-256(name || 0x0A || 0x01 || key)[:4]."""
    return hashlib.sha256(name.encode("utf-8") + b"\n" + ED25519_TYPE + raw_public_key).digest()[:4]


def split_note(note: str) -> tuple[str, list[tuple[str, bytes]]]:
    """(text, [(key name, key id + signature bytes)]) of a signed note; ``LogError`` when it is malformed."""
    cut = note.rfind("\n\n")
    if cut < 0 or not note.endswith("\n"):
        raise LogError("a signed note is its text, a blank line and signature lines, each ending in a newline")
    text, sig_lines = note[: cut + 1], note[cut + 2 :].split("\n")[:-1]
    if not sig_lines:
        raise LogError("the note has no signature line")
    sigs: list[tuple[str, bytes]] = []
    for line in sig_lines:
        parts = line[len(NOTE_SIG_PREFIX):].split(" ") if line.startswith(NOTE_SIG_PREFIX) else []
        if len(parts) != 2 or not parts[0]:
            raise LogError(f"not a signature line: {line[:60]!r}")
        raw = unb64(parts[1], "a note signature")
        if len(raw) < 5:
            raise LogError("a note signature is shorter than a key id")
        sigs.append((parts[0], raw))
    return text, sigs
