#!/usr/bin/env bash
# `hetprobe gpus` held to a bare program (issue 34), in one command on a GPU
# node: LAUNCHES times (default 3), alternating, tests/gpu/bare_gpus.cu (every
# GPU in rounds from one process: flag round trip, launch + synchronise, one
# 64 MiB copy each way, fresh pinned memory each visit) and `hetprobe gpus`
# (one rank per GPU). Gate (compare_gpus.py): every GPU's median over the
# launches of each number both measure within 10% of the bare program's.
#   tests/gpu/gpus.sh [LAUNCHES]
# Results: $RESULTS_DIR (default build-gpu/gpus).
set -euo pipefail
default_results=gpus
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
launches=${1:-3}
gpu_node_ready 1 "$hetprobe" "$build/tests/gpu/bare_gpus"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || echo 1)
for launch in $(seq "$launches"); do
  expect "bare-gpus-$launch" 0 -- "$build/tests/gpu/bare_gpus" | { grep -E '^bare-gpus ' || true; } >"$results/bare-$launch.txt"
  rm -f "$results/gpus-$launch.jsonl"
  expect "gpus-$launch" 0 --out "$results/gpus-$launch.txt" -- \
    mpirun -np "$gpus" --oversubscribe "$hetprobe" gpus --quiet --out "$results/gpus-$launch.jsonl"
done
expect "hetprobe gpus within 10% of the bare program" 0 -- python3 "$root/tests/gpu/compare_gpus.py" "$results" "$launches"
finish
