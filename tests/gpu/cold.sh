#!/usr/bin/env bash
# hetprobe's cold sends held to a bare program, in one command on a GPU node:
# LAUNCHES times (default 3), alternating, tests/gpu/bare_cold.cu (rank 0
# times MPI_Send to rank 1 after a 2 ms spin, or right away, the GPU idle)
# and `hetprobe interference --gap 2ms` (SSB, whose warm sends it times
# beside the cold ones), at 1 KiB, 64 KiB and 1 MiB. Gate (compare_cold.py):
# at every size hetprobe's cold median over the launches within 10% of the
# bare program's, and at 1 KiB each launch's cold/warm interval within ±15%
# of its median. Also expects --device auto a GPU, every run exit 0 and at
# least 3 point records. Exit 1 when an expectation fails, naming each.
#   [COLD_ROUNDS=60] tests/gpu/cold.sh [LAUNCHES]
# Results: $RESULTS_DIR (default build-gpu/cold).
set -euo pipefail
default_results=cold
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
launches=${1:-3}
rounds=${COLD_ROUNDS:-60}  # 8 cold and 8 warm sends a round: 60 rounds bound 1 KiB cold ÷ warm to about ±15%
gpu_node_ready 1 "$build/tests/gpu/bare_cold"
mpirun=(mpirun --oversubscribe -np 2)
for launch in $(seq "$launches"); do
  expect "bare-cold-$launch" 0 --out "$results/bare-$launch.txt" -- \
    "${mpirun[@]}" "$build/tests/gpu/bare_cold" "$rounds" 8 2000 1024 65536 1048576
  out=$results/hetprobe-$launch.jsonl
  rm -f "$out"
  expect "hetprobe-cold-$launch" 0 --out "$results/hetprobe-$launch.txt" -- \
    "${mpirun[@]}" "$hetprobe" interference --sizes 1KiB,64KiB,1MiB --layouts SSB --access stacked --gap 2ms \
    --rounds "$rounds" --reps 8 --warmup 1 --no-host-stream --quiet --out "$out"
  expect "hetprobe-cold-$launch points" 0 -- python3 "$checks" records "$out" point --at-least 3
done
expect "hetprobe's cold medians within 10% of the bare program's, 1 KiB intervals within ±15%" 0 -- \
  python3 "$root/tests/gpu/compare_cold.py" "$results" "$launches"
finish
