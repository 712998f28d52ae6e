#!/usr/bin/env bash
# The interference ratios on a GPU node, against the bare program, in one
# command (issue 24): builds hetprobe with its GPU backend and the bare
# programs, then, back to back:
#   bare_load_rounds   write, read and poll from a full grid, interleaved with
#                      idle sends in shuffled rounds; payload written by the CPU
#                      (as hetprobe's), and once each never rewritten (warm) and
#                      written by the copy engine (hetprobe's loaded points before the rounds)
#   hetprobe           the same sizes and loads, SSB and P2AB, stacked
# each LAUNCHES times (default 3), alternating, with the same rounds and sends
# per visit. Then the cold sends (--gap 2ms) and one run bound nowhere.
# Results: $RESULTS_DIR (default build-gpu/rounds).
#   tests/gpu/rounds.sh [LAUNCHES]
set -euo pipefail
default_results=rounds
source "$(dirname "$0")/common.sh"
launches=${1:-3}
build_gpu
mpirun=(mpirun --oversubscribe -np 2)
sizes=(1024 65536 1048576 16777216)
rounds=10 reps=8
bare=$build/tests/gpu/bare_load_rounds
interference=(interference --sizes 1KiB,64KiB,1MiB,16MiB --layouts SSB,P2AB --access stacked --load write,read,poll
  --rounds $rounds --reps $reps --quiet)
for launch in $(seq "$launches"); do
  step "launch $launch: bare (CPU payload), then hetprobe"
  "${mpirun[@]}" "$bare" cpu $rounds $reps 0 "${sizes[@]}" | tee "$results/bare-cpu-$launch.txt"
  rm -f "$results/interference-$launch.jsonl"
  "${mpirun[@]}" "$hetprobe" "${interference[@]}" --out "$results/interference-$launch.jsonl" \
    >"$results/interference-$launch.txt"
  grep -E "P2AB|SSB" "$results/interference-$launch.txt"
done
step "bare: the payload never rewritten (warm), and written by the copy engine"
"${mpirun[@]}" "$bare" none $rounds $reps 0 "${sizes[@]}" | tee "$results/bare-none.txt"
"${mpirun[@]}" "$bare" gpu $rounds $reps 0 "${sizes[@]}" | tee "$results/bare-gpu.txt"
step "cold sends: --gap 2ms, bare and hetprobe (every load kind)"
"${mpirun[@]}" "$bare" cpu $rounds $reps 2000 1024 65536 1048576 | tee "$results/bare-cpu-gap2ms.txt"
rm -f "$results/interference-gap2ms.jsonl" "$results/interference-gap0.jsonl"
for gap in 0 2ms; do
  "${mpirun[@]}" "$hetprobe" interference --sizes 1KiB,64KiB,1MiB --layouts SSB,P2AB --access stacked --load all \
    --rounds $rounds --reps $reps --gap $gap --quiet --no-host-stream --out "$results/interference-gap$gap.jsonl" \
    >"$results/interference-gap$gap.txt"
  grep -E "P2AB|SSB" "$results/interference-gap$gap.txt"
done
step "hetprobe bound nowhere (--bind none), as the bare program runs"
rm -f "$results/interference-bind-none.jsonl"
"${mpirun[@]}" "$hetprobe" "${interference[@]}" --bind none --out "$results/interference-bind-none.jsonl" \
  >"$results/interference-bind-none.txt"
grep -E "P2AB|SSB" "$results/interference-bind-none.txt"
