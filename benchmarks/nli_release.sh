#!/usr/bin/env bash
# Ship a finished NLI run: export fp16 weights, evaluate, measure speed, regenerate the model card.
#   benchmarks/nli_release.sh nli-runs/minilm-nli-v1 [EVAL_LIMIT]
# EVAL_LIMIT (default 2000) caps each evaluation set to the same seeded sample; "full" scores every pair.
set -euo pipefail
RUN=${1:?run dir}
LIMIT=${2:-2000}
DEST=chainret/models/nli-minilm-l6
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
chainret nli export "$RUN/final"
LIMIT_ARGS=()
[ "$LIMIT" != "full" ] && LIMIT_ARGS=(--limit "$LIMIT")
chainret nli eval --json "${LIMIT_ARGS[@]}" --threads 2 --out "$DEST/eval.json"
python benchmarks/nli_speed.py --n-short 256 --n-long 96 --out "$DEST/speed.json"
chainret nli card
