#!/usr/bin/env bash
# May characterize sync every GPU's clock at once? (issue 34 part 5) In one
# command on a node of 2 GPUs or more: LAUNCHES times (default 3),
# alternating, `hetprobe clock` with characterize's preset on one rank per GPU,
# the ranks in turn and then --concurrent. Prints per GPU and launch the fit's
# precision, drift and its check after 0.5 s, and per GPU the medians of each
# way. Gate (compare_clock_turns.py): on every GPU the concurrent median
# precision within 5% of the in-turn one, and the concurrent check error
# within the in-turn launches' largest. Also expects --device auto a GPU
# backend of 2 or more devices, and every run exit 0 with one fit per GPU.
# Exit 1 when an expectation fails, naming each.
#   tests/gpu/clock_turns.sh [LAUNCHES]
# Results: $RESULTS_DIR (default build-gpu/clock-turns).
set -euo pipefail
default_results=clock-turns
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
launches=${1:-3}
gpu_node_ready 2 "$hetprobe"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
preset=(--span 2.5 --check-after 0.5)
for launch in $(seq "$launches"); do
  for way in turns concurrent; do
    extra=()
    [[ $way == concurrent ]] && extra=(--concurrent)
    out=$results/$way-$launch.jsonl
    rm -f "$out"
    expect "$way-$launch" 0 --out "$results/$way-$launch.txt" -- \
      mpirun --oversubscribe -np "$gpus" "$hetprobe" clock "${preset[@]}" "${extra[@]}" --quiet --out "$out"
    expect "$way-$launch fits" 0 -- python3 "$checks" records "$out" clock_fit --at-least "$gpus"
  done
done
expect "concurrent fits as precise as those in turn, on every GPU" 0 -- \
  python3 "$root/tests/gpu/compare_clock_turns.py" "$results" "$launches"
finish
