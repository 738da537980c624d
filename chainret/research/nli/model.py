"""Load an NLI cross-encoder and score (premise, hypothesis) pairs, offline by default.

The default is chainret's own model, whose weights are a distribution of their own
(``packages/chainret-nli-model``; not in chainret's wheel): the installed ``chainret_nli_model``
package if there is one, else the checkout's copy.
Any Hugging Face / sentence-transformers NLI cross-encoder works by name or path. Label order is the
classic trap (checkpoints disagree on it), so it is read from ``config.id2label`` and then *checked*
on two pairs whose answer is not in doubt; a config that lies about its order is refused.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import numpy as np

from chainret.core.errors import MissingExtra, ModelError

CANONICAL = ("entailment", "neutral", "contradiction")
DEFAULT_MODEL_DIR = "nli-minilm-l6"
CHECK_PAIRS = (
    (("A man is playing a guitar on stage.", "A person is playing an instrument."), "entailment"),
    (("A man is playing a guitar on stage.", "Nobody is playing music."), "contradiction"),
)


# The weights in a checkout: packages/chainret-nli-model beside the chainret package (editable installs, CI).
CHECKOUT_MODEL_DIR = Path(__file__).resolve().parents[3] / "packages" / "chainret-nli-model" / "chainret_nli_model" / DEFAULT_MODEL_DIR


def default_model_path() -> Path:
    """chainret's own NLI model: the installed ``chainret_nli_model`` package, else the checkout's copy.

    Found without importing anything (``find_spec``); the path may not exist (a wheel install without
    ``pip install ./packages/chainret-nli-model``), which ``load_nli`` reports.
    """
    spec = importlib.util.find_spec("chainret_nli_model")
    if spec is not None and spec.origin:
        return Path(spec.origin).resolve().parent / DEFAULT_MODEL_DIR
    return CHECKOUT_MODEL_DIR


def canonical_order(id2label: dict) -> list[int]:
    """Model output index for each canonical label [entailment, neutral, contradiction]."""
    found: dict[str, int] = {}
    for idx, name in id2label.items():
        low = str(name).strip().lower()
        for canon, prefix in (("entailment", "entail"), ("neutral", "neutral"), ("contradiction", "contra")):
            if low.startswith(prefix):
                if canon in found:
                    raise ModelError(f"config id2label names {canon!r} twice: {id2label}")
                found[canon] = int(idx)
    if len(id2label) != 3 or len(found) != 3:
        raise ModelError(f"config id2label {id2label} does not name entailment/neutral/contradiction; "
                         "an NLI model needs those three labels in its config")
    return [found[c] for c in CANONICAL]


class NLIModel:
    """A loaded 3-way NLI cross-encoder; outputs are always in CANONICAL order."""

    def __init__(self, model: Any, tokenizer: Any, model_id: str, device: str = "cpu", max_length: int = 512) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.model_id = model_id
        self.device = device
        self.max_length = max_length
        self.order = canonical_order(dict(model.config.id2label))

    def __repr__(self) -> str:
        return f"NLIModel({self.model_id!r}, device={self.device!r})"

    def predict_proba(self, pairs: list[tuple[str, str]], batch_size: int = 32, *, bucket: bool = True) -> np.ndarray:
        """Probabilities, shape (n, 3), columns [entailment, neutral, contradiction].

        Pairs are scored in length-sorted batches (little padding) and returned in input order;
        ``bucket=False`` keeps input order (only for measuring what bucketing buys).
        """
        import torch

        n = len(pairs)
        out = np.zeros((n, 3), dtype=np.float32)
        if n == 0:
            return out
        order = sorted(range(n), key=lambda i: len(pairs[i][0]) + len(pairs[i][1])) if bucket else list(range(n))
        cols = torch.tensor(self.order)
        with torch.inference_mode():
            for b in range(0, n, batch_size):
                idx = order[b:b + batch_size]
                enc = self.tokenizer([pairs[i][0] for i in idx], [pairs[i][1] for i in idx], padding=True,
                                     truncation=True, max_length=self.max_length, return_tensors="pt").to(self.device)
                logits = self.model(**enc).logits.float()
                out[idx] = torch.softmax(logits[:, cols], dim=-1).cpu().numpy()
        return out

    def p_entail(self, pairs: list[tuple[str, str]], batch_size: int = 32) -> np.ndarray:
        """P(entailment) per pair, shape (n,)."""
        return self.predict_proba(pairs, batch_size)[:, 0]

    def check_label_order(self) -> None:
        """Refuse a model whose argmax disagrees with its config on two unambiguous pairs."""
        probs = self.predict_proba([p for p, _ in CHECK_PAIRS])
        for (pair, want), row in zip(CHECK_PAIRS, probs):
            got = CANONICAL[int(row.argmax())]
            if got != want:
                raise ModelError(
                    f"label-order check failed for NLI model {self.model_id!r}: {pair[0]!r} => {pair[1]!r} should be "
                    f"{want} but the model says {got} (probabilities {np.round(row, 3).tolist()} in order {list(CANONICAL)}; "
                    f"config id2label {dict(self.model.config.id2label)}). The config's label order is probably wrong, "
                    "or this is not a 3-way NLI model.")


def load_nli(name_or_path: str | os.PathLike | None = None, device: str = "cpu", check: bool = True,
             max_length: int = 512) -> NLIModel:
    """Load an NLI cross-encoder.

    Args:
        name_or_path: None for chainret's shipped model; else a local directory or a hub model id
            (e.g. ``cross-encoder/nli-deberta-v3-base``; needs hub access or a local HF cache).
        device: ``cpu`` or ``cuda``.
        check: verify the label order on two unambiguous pairs (recommended; raises ModelError).
    Example:
        >>> m = load_nli()
        >>> p = m.p_entail([("A man is playing a guitar on stage.", "A person is playing an instrument.")])
        >>> p.shape, bool(p[0] > 0.5)
        ((1,), True)
    """
    try:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
    except ImportError as exc:
        raise MissingExtra("NLI models need torch and transformers: pip install 'chainret[models]'") from exc
    if name_or_path is None:
        path = default_model_path()
        if not (path / "config.json").exists():
            raise ModelError(f"chainret's NLI model is not installed ({path} has no config.json); its weights are the "
                             "separate distribution chainret-nli-model: pip install ./packages/chainret-nli-model from "
                             "a chainret checkout, or pass --model / name_or_path to use another NLI model")
        source, model_id = str(path), f"chainret/{DEFAULT_MODEL_DIR}"
    else:
        source = model_id = str(name_or_path)
        local = Path(source).expanduser()
        if local.exists():
            if not (local / "config.json").exists():
                raise ModelError(f"{local} is not a model directory (no config.json)")
            source = str(local)
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ModelError(f"device {device!r} requested but torch sees no CUDA device")
    try:
        tokenizer = AutoTokenizer.from_pretrained(source)
        model = AutoModelForSequenceClassification.from_pretrained(source, dtype=torch.float32)
    except (OSError, ValueError) as exc:
        hint = ("" if Path(source).exists() else
                " It is not a local directory; loading it by name needs hub access or a copy in the local "
                "Hugging Face cache (HF_HUB_OFFLINE is set here).")
        raise ModelError(f"cannot load NLI model {model_id!r}: {str(exc).splitlines()[0]}.{hint}") from exc
    model.to(device).eval()
    nli = NLIModel(model, tokenizer, model_id, device=device, max_length=max_length)
    if check:
        nli.check_label_order()
    return nli
