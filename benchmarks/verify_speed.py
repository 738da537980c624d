"""NLI throughput for the verification layer, and the HotpotQA-500 signal sweep's wall time.

    python benchmarks/verify_speed.py                  # throughput ratio on 512 real pairs
    python benchmarks/verify_speed.py --sweep          # + the full HotpotQA-500 embedding/nli-slot/nli-oracle sweep

Throughput: the same (paragraph, hypothesis) pairs from HotpotQA-vws, scored (a) by a plain loop
that batches them in input order (no sorting, each batch padded to its longest pair), (b) by
sentence-transformers' ``CrossEncoder.predict`` on the same weights (which, since v3, sorts its
inputs by length itself), and (c) by ``NLIModel.predict_proba``, which sorts by length first
(length bucketing) so each batch pads little. Same model, batch size, threads and max length;
the ratios c/a and c/b are printed, and the outputs are checked to agree.

The sweep scores all 500 questions x ~10 paragraphs with both hypotheses, reading nothing from
the score cache (it writes its scores there for later runs), and prints the wall time (aim: under 10 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def plain_loop(nli, pairs, batch_size):  # noqa: ANN001
    """Unbucketed: consecutive batches in input order, as a plain predict loop does."""
    import numpy as np
    import torch

    cols = torch.tensor(nli.order)
    out = []
    with torch.inference_mode():
        for b in range(0, len(pairs), batch_size):
            chunk = pairs[b : b + batch_size]
            enc = nli.tokenizer([p for p, _ in chunk], [h for _, h in chunk], padding=True, truncation=True,
                                max_length=nli.max_length, return_tensors="pt")
            out.append(torch.softmax(nli.model(**enc).logits.float()[:, cols], dim=-1).numpy())
    return np.concatenate(out)


def cross_encoder(nli):  # noqa: ANN001
    """The same weights behind sentence-transformers' CrossEncoder (None when that package is absent)."""
    try:
        from sentence_transformers import CrossEncoder
    except ImportError:
        print("sentence-transformers not installed: CrossEncoder.predict not measured")
        return None
    import torch

    # float32 like load_nli (the shipped weights are stored in fp16; fp16 matmuls on CPU would be slower)
    return CrossEncoder(nli.model.name_or_path, max_length=nli.max_length, device="cpu",
                        model_kwargs={"dtype": torch.float32})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=512)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--nli-model", default=None)
    args = ap.parse_args()

    import numpy as np
    import torch

    from chainret.bench.datasets import load_examples, passage
    from chainret.nli.model import load_nli
    from chainret.verify.hypothesis import hypothesis

    nli = load_nli(args.nli_model)
    exs = load_examples("hotpotqa-vws", n=max(1, args.pairs // 10 + 1)).examples
    pairs = [(passage(p), hypothesis(ex.question)) for ex in exs for p in ex.paragraphs][: args.pairs]
    words = np.array([len(p.split()) for p, _ in pairs])
    print(f"model {nli.model_id}, torch threads {torch.get_num_threads()}, {len(pairs)} pairs, "
          f"premise words mean {words.mean():.0f} (min {words.min()}, max {words.max()}), batch {args.batch_size}")
    plain_loop(nli, pairs[: args.batch_size], args.batch_size)  # warm-up
    t = time.perf_counter()
    a = plain_loop(nli, pairs, args.batch_size)
    t_plain = time.perf_counter() - t
    t = time.perf_counter()
    b = nli.predict_proba(pairs, batch_size=args.batch_size)
    t_bucket = time.perf_counter() - t
    print(f"plain loop (unbucketed):  {len(pairs) / t_plain:7.1f} pairs/s  ({t_plain:.1f} s)")
    print(f"length-bucketed:          {len(pairs) / t_bucket:7.1f} pairs/s  ({t_bucket:.1f} s)")
    print(f"speed-up ratio bucketed/plain: {t_plain / t_bucket:.2f}x;  max |diff| of probabilities {np.abs(a - b).max():.2e}")
    ce = cross_encoder(nli)
    if ce is not None:
        ce.predict(pairs[: args.batch_size], batch_size=args.batch_size, apply_softmax=True)  # warm-up
        t = time.perf_counter()
        c = ce.predict(pairs, batch_size=args.batch_size, apply_softmax=True, show_progress_bar=False)[:, nli.order]
        t_ce = time.perf_counter() - t
        import sentence_transformers

        print(f"CrossEncoder.predict (sentence-transformers {sentence_transformers.__version__}): "
              f"{len(pairs) / t_ce:7.1f} pairs/s  ({t_ce:.1f} s)")
        print(f"speed-up ratio bucketed/CrossEncoder.predict: {t_ce / t_bucket:.2f}x;  "
              f"max |diff| of probabilities {np.abs(c - b).max():.2e}")

    if args.sweep:
        from chainret.verify.experiments import score_signals
        from chainret.verify.scorer import EntailmentScorer

        exs = load_examples("hotpotqa-vws").examples
        # Every pair scored afresh (no reads), but saved: later runs of verify_results.py reuse them.
        scorer = EntailmentScorer(nli, batch_size=args.batch_size, read_cache=False)
        t = time.perf_counter()
        score_signals(exs, scorer)
        wall = time.perf_counter() - t
        print(f"HotpotQA-{len(exs)} sweep (embedding + nli-slot + nli-oracle, {scorer.calls} NLI pairs, none read from the score cache): "
              f"{wall / 60:.1f} min ({scorer.calls / wall:.1f} NLI pairs/s); target < 10 min on 2 cores")


if __name__ == "__main__":
    main()
