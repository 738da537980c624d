"""Online ``trace verify`` of a trace's log proofs (``meta.log``) against the store it names (docs/proof.md).

The offline verifier proves each anchor's unit and relation against the checkpoint the trace carries; against
the store, verify also asks whether that checkpoint is one the store's log really had for the trace's viewer:
the same log (origin) as the store's for that viewer class, and a checkpoint of that size with that root in its
history. A store's log is append-only by construction (``chainret.store.log``), so every checkpoint in its
history is a prefix of its newest; a checkpoint it never had is a forged or foreign one. A catalog file or a
store that keeps no log cannot check the claim, and says nothing about it.
"""

from __future__ import annotations

from chainret.core import tlog
from chainret.store.log import store_log, viewer_class
from chainret.trace.model import Trace
from chainret.verify.offline import proof_problems


def log_differences(trace: Trace, reader: object, viewer: str | None) -> list[tuple[str, str]]:
    """(field, message) for each way the trace's ``meta.log`` disagrees with the store's log (none: it agrees)."""
    claimed = trace.meta.get("log")
    log = store_log(reader)
    if claimed is None or log is None:
        return []
    if not isinstance(claimed, dict) or not isinstance(claimed.get("size"), int) or not isinstance(claimed.get("root"), str):
        return [("meta.log", "not a log checkpoint with an integer size and a base64 root")]
    origin = log.origin(viewer_class(log.classes, viewer))
    if claimed.get("origin") != origin:
        return [("meta.log.origin", f"the trace names log {str(claimed.get('origin'))[:120]!r}; this store's log for its "
                                    f"viewer is {origin!r}")]
    heads = {c["size"]: c["root"] for c in log.checkpoints(viewer_class(log.classes, viewer))}
    if heads.get(claimed["size"]) != claimed["root"]:
        return [("meta.log.root", f"this store's log never had a checkpoint of size {claimed['size']} with root "
                                  f"{claimed['root'][:60]!r}")]
    try:
        head = (origin, claimed["size"], tlog.unb64(claimed["root"], "meta.log.root", tlog.HASH_SIZE))
    except tlog.LogError as exc:
        return [("meta.log.root", str(exc))]
    inclusion, quotes = proof_problems(trace, claimed, head)
    return [("meta.log", m) for m in inclusion + quotes]
