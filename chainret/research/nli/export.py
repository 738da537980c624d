"""Turn a training checkpoint into the shipped model folder: fp16 safetensors, tokenizer, config.

fp16 halves the size (about 45 MB for MiniLM-L6) so the model can live in the git repository and the
wheel; the loader upcasts to fp32 on CPU.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from chainret.core.errors import ModelError
from chainret.research.nli.model import default_model_path

MAX_BYTES = 50 * 1024 * 1024
KEEP = ("README.md", "eval.json", "speed.json", "curve.json")  # card inputs survive a re-export


def _run_dir(checkpoint: Path) -> Path | None:
    for parent in (checkpoint.parent, checkpoint.parent.parent):
        if (parent / "config.json").exists() and (parent / "log.jsonl").exists():
            return parent
    return None


def export(checkpoint: str | os.PathLike, dest: str | os.PathLike | None = None) -> Path:
    """Write ``checkpoint`` as fp16 to ``dest`` (default: the packaged model dir), atomically."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from chainret.research.nli.model import canonical_order

    ckpt = Path(checkpoint)
    if not (ckpt / "config.json").exists():
        raise ModelError(f"{ckpt} is not a model checkpoint (no config.json)")
    dest = Path(dest) if dest else default_model_path()
    model = AutoModelForSequenceClassification.from_pretrained(ckpt, dtype=torch.float32)
    canonical_order(dict(model.config.id2label))  # refuse to ship a config without NLI labels
    tokenizer = AutoTokenizer.from_pretrained(ckpt)
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.half().save_pretrained(tmp, safe_serialization=True)
    tokenizer.save_pretrained(tmp)
    meta: dict[str, Any] = {"checkpoint": ckpt.name, "format": "fp16 safetensors"}
    run = _run_dir(ckpt)
    if run is not None:
        cfg = json.loads((run / "config.json").read_text())
        from chainret.research.nli.card import summarize_log

        upto = int(ckpt.name.split('-')[1]) if ckpt.name.startswith('step-') else None
        meta.update(run=run.name, training=cfg, log_summary=summarize_log(run, upto))
        if (run / "curve.json").exists():
            shutil.copy(run / "curve.json", tmp / "curve.json")
    (tmp / "training.json").write_text(json.dumps(meta, indent=2, sort_keys=True, default=str) + "\n")
    for f in tmp.iterdir():
        f.chmod(0o644)
    size = sum(f.stat().st_size for f in tmp.iterdir() if f.name.endswith(".safetensors"))
    if size > MAX_BYTES:
        shutil.rmtree(tmp)
        raise ModelError(f"exported weights are {size / 2**20:.1f} MiB, over the {MAX_BYTES / 2**20:.0f} MiB limit")
    if dest.exists():
        for name in KEEP:
            if (dest / name).exists() and not (tmp / name).exists():
                shutil.copy(dest / name, tmp / name)
        old = dest.with_name(dest.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        os.replace(dest, old)
        os.replace(tmp, dest)
        shutil.rmtree(old)
    else:
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp, dest)
    return dest
