"""P(entail | premise, hypothesis) for many pairs: one model, deduplicated, cached on disk.

The NLI model itself (loading, label order checked on two unambiguous pairs, length
bucketing) lives in ``chainret.research.nli.model`` (``load_nli``). This layer adds what the
verification measurements need on top: every (premise, hypothesis) pair is scored once per
model *fingerprint* (the id plus a digest of its config and weight files, so a retrained
checkpoint at the same path never reuses old scores), and repeated pairs inside a run
(the same paragraph under the same hypothesis in two analyses) cost one call.

Cache: ``$CHAINRET_CACHE_DIR/nli/<fingerprint>/*.npz`` beside the embedding cache.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from chainret.core.session import ProcessMemo

Pair = tuple[str, str]  # (premise, hypothesis)
Progress = Callable[[int], None]

_SCORERS: ProcessMemo[EntailmentScorer] = ProcessMemo()


def _pair_key(premise: str, hypothesis: str) -> str:
    return hashlib.sha256(f"{premise}\x00{hypothesis}".encode()).hexdigest()[:32]


def fingerprint(model: Any) -> str:
    """Model id plus a short digest of its local files (config, weights) when it has a directory."""
    mid = str(getattr(model, "model_id", type(model).__name__))
    h = hashlib.sha256(mid.encode())
    inner = getattr(model, "model", None)  # NLIModel wraps a transformers model that knows its directory
    path = getattr(model, "path", None) or getattr(inner, "name_or_path", None)
    if path and Path(str(path)).is_dir():
        for f in sorted(Path(str(path)).iterdir()):
            if f.suffix in {".json", ".safetensors", ".bin"}:
                st = f.stat()
                h.update(f"{f.name}:{st.st_size}:{int(st.st_mtime)}".encode())
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in mid)[-60:]
    return f"{safe}-{h.hexdigest()[:10]}"


class EntailmentScorer:
    """Batched, cached P(entail) over (premise, hypothesis) pairs.

    Args:
        model: an object with ``p_entail(pairs, batch_size) -> np.ndarray`` and ``model_id``
            (``chainret.research.nli.model.NLIModel``); loaded lazily with ``load_nli(model_name)`` when None.
        model_name: name or path handed to ``load_nli`` (None: chainret's own model).
        use_cache: read/write the on-disk cache.
        read_cache: with ``use_cache``, also *read* earlier scores; False scores every pair afresh
            but still saves it (a timed sweep whose scores later runs reuse).
    """

    def __init__(
        self,
        model: Any | None = None,
        *,
        model_name: str | None = None,
        batch_size: int = 32,
        use_cache: bool = True,
        read_cache: bool = True,
        device: str = "cpu",
    ) -> None:
        self._model = model
        self.model_name = model_name
        self.batch_size = batch_size
        self.use_cache = use_cache
        self.read_cache = read_cache
        self.device = device
        self._mem: dict[str, float] = {}
        self._loaded_shards = False
        self.calls = 0  # pairs actually sent to the model (cache misses)

    @property
    def model(self) -> Any:
        if self._model is None:
            from chainret.research.nli.model import load_nli

            self._model = load_nli(self.model_name, device=self.device)
        return self._model

    @property
    def model_id(self) -> str:
        return str(getattr(self.model, "model_id", self.model_name or "nli"))

    def _dir(self) -> Path:
        from chainret.pipeline.embed import cache_dir

        return cache_dir() / "nli" / fingerprint(self.model)

    def _load(self) -> None:
        if self._loaded_shards or not (self.use_cache and self.read_cache):
            return
        d = self._dir()
        if d.is_dir():
            for shard in sorted(d.glob("*.npz")):
                try:
                    with np.load(shard) as z:
                        self._mem.update(zip((str(k) for k in z["keys"]), (float(v) for v in z["vals"])))
                except (OSError, ValueError, KeyError):
                    continue  # a damaged shard only costs recomputation
        self._loaded_shards = True

    def _save(self, keys: list[str], vals: np.ndarray) -> None:
        if not self.use_cache or not keys:
            return
        d = self._dir()
        d.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".shard.", suffix=".npz", dir=d)
        os.close(fd)
        try:
            np.savez(tmp, keys=np.array(keys), vals=vals.astype(np.float32))
            os.replace(tmp, d / f"{uuid.uuid4().hex}.npz")
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def p_entail(self, pairs: Sequence[Pair], progress: Progress | None = None, chunk: int = 2048) -> np.ndarray:
        """P(entail) for each pair, in order. Only pairs never scored by this model reach it."""
        self._load()
        keys = [_pair_key(p, h) for p, h in pairs]
        todo: dict[str, Pair] = {}
        for k, pair in zip(keys, pairs):
            if k not in self._mem and k not in todo:
                todo[k] = pair
        if progress and len(pairs) > len(todo):
            progress(len(pairs) - len(todo))  # cached or repeated pairs count as done
        items = list(todo.items())
        for start in range(0, len(items), chunk):  # save as we go: an interrupted sweep keeps its work
            part = items[start : start + chunk]
            vals = np.asarray(self.model.p_entail([pr for _, pr in part], batch_size=self.batch_size), dtype=float)
            self.calls += len(part)
            for (k, _), v in zip(part, vals):
                self._mem[k] = float(v)
            self._save([k for k, _ in part], vals)
            if progress:
                progress(len(part))
        return np.array([self._mem[k] for k in keys], dtype=float)


def get_scorer(model_name: str | None = None, *, batch_size: int = 32, device: str = "cpu") -> EntailmentScorer:
    """One scorer (and its loaded model) per model name, device and batch size per process."""
    key = f"{model_name}|{device}|{batch_size}"
    return _SCORERS.get(key, lambda: EntailmentScorer(model_name=model_name, batch_size=batch_size, device=device))
