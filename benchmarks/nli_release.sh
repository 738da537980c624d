#!/usr/bin/env bash
# Ship a finished NLI run: export fp16 weights, evaluate, measure speed, regenerate the model card.
#   benchmarks/nli_release.sh nli-runs/minilm-nli-v1 [EVAL_LIMIT]
# EVAL_LIMIT (default full: every pair, about 12 min on 2 cores) or N: the same seeded sample of N pairs per set.
set -euo pipefail
RUN=${1:?run dir}
LIMIT=${2:-full}
DEST=packages/chainret-nli-model/chainret_nli_model/nli-minilm-l6
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
chainret nli export "$RUN/final"
LIMIT_ARGS=()
[ "$LIMIT" != "full" ] && LIMIT_ARGS=(--limit "$LIMIT")
chainret nli eval --json "${LIMIT_ARGS[@]}" --threads 2 --out "$DEST/eval.json"
python -m benchmarks.nli_speed --n-short 256 --n-long 96 --out "$DEST/speed.json"
chainret nli card
