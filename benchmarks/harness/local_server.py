"""Run ``chainret serve`` as a child process on a free loopback port (tests and the load benchmark).

``hidden_strings(catalog, principal)`` lists the strings a principal's responses must never
carry (checked by the tests and the load benchmark).

``LocalServer(args).start()`` launches ``python -m chainret serve --host 127.0.0.1 --port N ...``
and ``wait()`` polls ``GET /healthz`` until it answers; ``stop()`` ends that process (and only
it). Several servers may be started first and waited for afterwards, so they boot in parallel.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def hidden_strings(catalog: Any, principal: str = "public") -> list[str]:
    """Paragraphs, doc refs and (quoted) relation ids of documents ``principal`` may not read.

    Paragraphs that also occur in a document the principal may read are left out (a shared heading
    is not a secret); relation ids are quoted JSON strings, so ``"sup-1"`` does not match ``sup-10``.
    """
    readable_text = "\n".join(d.text for d in catalog.documents if d.readable_by(principal))
    hidden = [d for d in catalog.documents if not d.readable_by(principal)]
    refs = {d.ref for d in hidden}
    out = sorted(refs)
    for d in hidden:
        out += [p.strip() for p in d.text.split("\n\n") if len(p.strip()) >= 8 and p.strip() not in readable_text]
    out += [json.dumps(r.id) for r in catalog.relations if r.support.doc_ref in refs]
    return out


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalServer:
    def __init__(self, args: Sequence[str], *, log: Path | None = None, env: dict[str, str] | None = None) -> None:
        self.args = list(args)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self.env = env
        self.proc: subprocess.Popen[bytes] | None = None
        self._log_fh: Any = None

    def start(self) -> LocalServer:
        cmd = [sys.executable, "-m", "chainret", "serve", "--host", "127.0.0.1", "--port", str(self.port),
               "--log-level", "warning", *self.args]
        self._log_fh = open(self.log, "wb") if self.log else subprocess.DEVNULL  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(cmd, stdout=self._log_fh, stderr=subprocess.STDOUT,
                                     env={**os.environ, **(self.env or {})})
        return self

    def wait(self, timeout: float = 60.0) -> LocalServer:
        assert self.proc is not None, "start() first"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = self.log.read_text(errors="replace")[-2000:] if self.log else ""
                raise RuntimeError(f"chainret serve exited with {self.proc.returncode} before answering: {tail}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=2) as r:
                    if r.status == 200:
                        return self
            except (urllib.error.URLError, OSError):
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"chainret serve did not answer on {self.url} within {timeout:g} s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._log_fh not in (None, subprocess.DEVNULL):
            self._log_fh.close()
            self._log_fh = None

    def __enter__(self) -> LocalServer:
        return self.start().wait()

    def __exit__(self, *exc: object) -> None:
        self.stop()
