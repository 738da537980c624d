"""``chainret catalog log STORE``: a compiled store's per-viewer checkpoints, and consistency proofs between them.

Thin over ``chainret.store.log`` (the log) and ``chainret.verify.signing`` (signing a checkpoint, only with --key).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer


def log_cmd(
    store: str = typer.Argument(..., help="A compiled store: a .db file or a postgresql:// URL (a login reads its own class's log)."),
    principal: Optional[str] = typer.Option(None, "--principal", help="Show the log this viewer's traces are proven against (default: every viewer class)."),
    audit: bool = typer.Option(False, "--audit", help="Show the audit log (unprojected traces: everything the store holds)."),
    consistency: Optional[tuple[int, int]] = typer.Option(None, "--consistency", metavar="OLD NEW", help="Print the consistency proof from the checkpoint of size OLD to the one of size NEW (needs --principal or --audit)."),
    key: Optional[Path] = typer.Option(None, "--key", metavar="KEY.pem", help="Sign the checkpoints printed with this Ed25519 private key (C2SP signed notes)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Print a store's per-viewer log checkpoints (one per compile and update), or a consistency proof (docs/proof.md)."""
    from chainret.cli.render import console, json_out, t
    from chainret.core.errors import UsageError
    from chainret.core.tlog import LogError
    from chainret.store import is_store_spec, is_url, open_reader
    from chainret.store.base import StoreError, recompile_advice
    from chainret.store.log import AUDIT, class_label, store_log, viewer_class

    spec = store
    if is_url(store):
        from chainret.store.postgres import redact

        store = redact(spec)  # what messages and --json show (the reader opens ``spec``)
    if principal is not None and audit:
        raise UsageError("--principal and --audit exclude each other")
    if not is_store_spec(spec) or not (is_url(spec) or Path(spec).is_file()):
        raise UsageError(f"{store}: not a compiled store (`chainret catalog compile CATALOG --out FILE.db` or a postgresql:// URL)")
    reader = open_reader(spec)
    log = store_log(reader)
    if log is None:
        raise UsageError(f"{store} keeps no log: it was compiled by an earlier chainret; " + recompile_advice(store))
    sign = _signer(key)
    classes = [AUDIT] if audit else [viewer_class(log.classes, principal)] if principal is not None else log.classes
    if consistency is not None:
        if len(classes) != 1:
            raise UsageError("--consistency needs --principal P or --audit: which viewer's log")
        old, new = consistency
        try:
            proof = log.consistency(classes[0], old, new)
        except LogError as exc:
            raise UsageError(f"{store}: {exc}") from None
        by_size = {c["size"]: c for c in log.checkpoints(classes[0])}
        out: dict[str, Any] = {"origin": log.origin(classes[0]), "old": {"size": old, "root": by_size[old]["root"]},
                               "new": {"size": new, "root": by_size[new]["root"]}, "proof": proof}
        if sign is not None:  # what `trace sign --consistency FILE` puts in a statement
            out["consistency"] = {"checkpoint": sign(by_size[old]), "proof": proof}
        if as_json:
            print(json_out(json.dumps(out, indent=2)))
            return
        console.print(t(f"{out['origin']}: size {old} -> {new}, consistency proof ({len(proof)} hashes):"))
        for h in proof:
            console.print(t(f"  {h}"))
        return
    report: list[dict[str, Any]] = []
    for c in classes:
        try:
            heads = log.checkpoints(c)
        except StoreError:  # a PostgreSQL login of its own, listing every class: another class's log is not its to read
            if len(classes) == 1:
                raise
            continue
        if not heads and len(classes) > 1:  # (PostgreSQL: a class whose log the policy shows this login nothing of)
            continue
        for head in heads:
            if sign is not None:
                head["checkpoint"] = sign(head)
        report.append({"class": class_label(c), "origin": log.origin(c), "checkpoints": heads})
    if as_json:
        print(json_out(json.dumps({"store": store, "logs": report}, indent=2)))
        return
    for entry in report:
        console.print(t(f"{entry['class']} ({len(entry['checkpoints'])} checkpoints):"))
        for row in entry["checkpoints"]:
            console.print(t(f"-- write {row['seq']}"))
            for line in row["checkpoint"].rstrip("\n").split("\n"):  # (each line shown safe: t escapes a newline)
                console.print(t(line))


def _signer(key: Optional[Path]) -> Any:
    """A function signing a checkpoint row as a note, or None without --key (no key, no signature)."""
    if key is None:
        return None
    from chainret.verify.signing import load_private_key, sign_checkpoint

    private = load_private_key(key)

    def sign(head: dict[str, Any]) -> str:
        origin = head["checkpoint"].split("\n", 1)[0]
        return sign_checkpoint(origin, head["size"], head["root"], private)

    return sign
