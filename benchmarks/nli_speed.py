"""NLI inference speed on 2 CPU threads: bucketed vs unbucketed, fp32 vs dynamic int8 (speed AND accuracy).

    python -m benchmarks.nli_speed [--model PATH] [--out packages/chainret-nli-model/chainret_nli_model/nli-minilm-l6/speed.json]

Premises of about 30 and about 150 words are built from MNLI dev-mismatched premises (joined until the
length is reached, lengths spread +-50% so that bucketing has something to do); hypotheses are MNLI
dev-mismatched hypotheses. Accuracy of int8 vs fp32 is measured on 1000 MNLI dev-matched pairs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time

import numpy as np

from benchmarks.harness.paths import use_data_dir  # noqa: E402
from benchmarks.harness.machine import load_average

use_data_dir()  # chainret has no default data folder: ../shared/data beside the repo, or $CHAINRET_DATA_DIR


def build_pairs(target_words: int, n: int, seed: int = 0) -> list[tuple[str, str]]:
    from chainret.research.nli.data import load_eval

    src = load_eval("mnli_dev_mismatched")
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        want = rng.randint(target_words // 2, target_words * 3 // 2)
        words: list[str] = []
        while len(words) < want:
            words += rng.choice(src).premise.split()
        out.append((" ".join(words[:want]), rng.choice(src).hypothesis))
    return out


def rate(model, pairs, batch_size: int, bucket: bool = True) -> float:
    model.predict_proba(pairs[:batch_size], batch_size, bucket=bucket)  # warm-up
    t0 = time.perf_counter()
    model.predict_proba(pairs, batch_size, bucket=bucket)
    return len(pairs) / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=None)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--n-short", type=int, default=512)
    ap.add_argument("--n-long", type=int, default=192)
    ap.add_argument("--acc-n", type=int, default=1000)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    import torch

    from chainret.research.nli.data import load_eval
    from chainret.research.nli.model import NLIModel, load_nli

    torch.set_num_threads(args.threads)
    fp32 = load_nli(args.model)
    int8 = NLIModel(torch.ao.quantization.quantize_dynamic(fp32.model, {torch.nn.Linear}, dtype=torch.qint8),
                    fp32.tokenizer, fp32.model_id + " (int8)")
    rows = []
    for words, n in ((30, args.n_short), (150, args.n_long)):
        pairs = build_pairs(words, n)
        for variant, m, bucket in (("fp32 bucketed", fp32, True), ("fp32 unbucketed", fp32, False),
                                   ("int8 bucketed", int8, True)):
            r = rate(m, pairs, args.batch_size, bucket)
            rows.append({"premise_words": words, "variant": variant, "pairs_per_s": round(r, 2), "n": n})
            print(f"~{words:>3} words  {variant:<16} {r:8.1f} pairs/s", flush=True)
        by = {r["variant"]: r["pairs_per_s"] for r in rows if r["premise_words"] == words}
        print(f"~{words:>3} words  bucketed/unbucketed {by['fp32 bucketed'] / by['fp32 unbucketed']:.2f}x   "
              f"int8/fp32 {by['int8 bucketed'] / by['fp32 bucketed']:.2f}x", flush=True)

    ev = load_eval("mnli_dev_matched", limit=args.acc_n)
    pairs = [(p.premise, p.hypothesis) for p in ev]
    gold = np.array([p.label for p in ev])
    t0 = time.perf_counter()
    p32 = fp32.predict_proba(pairs, args.batch_size).argmax(1)
    t32 = time.perf_counter() - t0
    t0 = time.perf_counter()
    p8 = int8.predict_proba(pairs, args.batch_size).argmax(1)
    t8 = time.perf_counter() - t0
    q = {"n": len(pairs), "acc_fp32": float((p32 == gold).mean()), "acc_int8": float((p8 == gold).mean()),
         "agreement": float((p32 == p8).mean()), "speed_ratio": t32 / t8}
    print(f"MNLI dev-m[{len(pairs)}]: fp32 acc {q['acc_fp32']:.4f}  int8 acc {q['acc_int8']:.4f}  "
          f"agreement {q['agreement']:.4f}  int8 speed ratio {q['speed_ratio']:.2f}x")
    result = {"model": fp32.model_id, "threads": args.threads, "batch_size": args.batch_size,
              "torch": torch.__version__, "load_avg_1m": load_average()[0], "throughput": rows, "quantized": q}
    if args.out:
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(result, f, indent=2, sort_keys=True)
            f.write("\n")
        os.replace(tmp, args.out)


if __name__ == "__main__":
    main()
