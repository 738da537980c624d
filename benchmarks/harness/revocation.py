"""A store update that revokes a document, against a running server (tests and benchmark).

``revoking_versions()`` is the seed world twice: v1 as shipped, and v2 = v1 plus a restricted
(auditor-only) version of the document that the public answer to ``REQUEST`` cites for its second
hop, and a new current view that holds that version instead of the public one. After
``chainret catalog compile v2 --out S.db --update`` a public ask must be refused; the auditor's is
still answered.

``watch_revocation(url, update, bound, ...)`` asks ``REQUEST`` as public in a loop (one client,
back to back), runs ``update()`` (which writes v2), and keeps asking for ``bound + tail`` seconds:
it returns the lag (first refusal after the update returned), the answers after ``bound`` that
still showed the revoked document, and the requests that failed (non-200) at any point.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chainret.catalog.load import load_world
from chainret.catalog.models import Catalog

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "fixtures" / "seed"
REQUEST = "Which contact serves PR-84?"
REVOKED = "registry/contacts.md@v2"


def revoking_versions() -> tuple[Catalog, Catalog]:
    v1 = load_world(SEED).catalog
    doc = v1.documents_by_ref[REVOKED]
    secret = doc.model_copy(update={"version": "v3", "visibility": "restricted", "principals": ["auditor"]})
    rels = [r.model_copy(update={"id": f"{r.id}-v3", "support": r.support.model_copy(update={"version": "v3"})})
            for r in v1.relations if r.support.doc_ref == REVOKED]
    current = next(v for v in v1.views if v.current)
    views = [v.model_copy(update={"current": False}) for v in v1.views]
    views.append(current.model_copy(update={
        "name": "restricted", "current": True, "order": max(v.order for v in v1.views) + 1,
        "documents": [secret.ref if ref == REVOKED else ref for ref in current.documents]}))
    v2 = v1.model_copy(update={"documents": [*v1.documents, secret], "relations": [*v1.relations, *rels], "views": views})
    return v1, Catalog.model_validate(v2.model_dump())


@dataclass
class Revocation:
    lag_s: float | None = None  # first refusal after the update returned (None: never within the watch)
    after_bound: int = 0  # answers that started after the bound
    still_shown: int = 0  # of those, answers that still showed the revoked document
    failed: list[str] = field(default_factory=list)  # non-200 answers, before, during or after the update
    requests: int = 0
    revisions: set[str] = field(default_factory=set)


def watch_revocation(url: str, update: Callable[[], Any], bound: float, *, tail: float = 1.0,
                     warmup: int = 5) -> Revocation:
    import httpx

    out = Revocation()
    done = threading.Event()
    t_update: list[float] = []
    with httpx.Client(base_url=url, timeout=30) as client:
        def one() -> tuple[float, bool]:
            started = time.monotonic()
            r = client.post("/ask", json={"request": REQUEST})
            out.requests += 1
            if r.status_code != 200:
                out.failed.append(f"{r.status_code} {r.text[:100]}")
                return started, False
            body = r.json()
            out.revisions.add(body["revision"])
            return started, body["outcome"] == "accepted_path"

        for _ in range(warmup):
            _, shown = one()
            if not shown:
                out.failed.append("the public answer was not accepted before the update")

        def writer() -> None:
            update()
            t_update.append(time.monotonic())
            done.set()

        threading.Thread(target=writer, daemon=True).start()
        while not done.is_set():  # requests in flight while the store is written
            one()
        t0 = t_update[0]
        while time.monotonic() < t0 + bound + tail:
            started, shown = one()
            if not shown and out.lag_s is None and started >= t0:
                out.lag_s = time.monotonic() - t0
            if started >= t0 + bound:
                out.after_bound += 1
                out.still_shown += shown
    return out
