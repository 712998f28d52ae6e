#!/usr/bin/env bash
# Which 16 MiB write ratio is right, hetprobe's or the bare program's? (issue
# 24) Builds hetprobe and the bare programs, then LAUNCHES times (default 3),
# alternating: the bare program with its 512 MiB load 2 MiB after the send
# buffer (BARE_LOAD_NEAR=1, hetprobe's P2AB), hetprobe's write load as
# characterize runs it (256 MiB), and hetprobe's over 512 MiB as the bare
# program's. Prints each launch's 16 MiB write ratio. Expects --device auto a
# GPU, every run exit 0 and each a 16 MiB write ratio (the bare program's
# line, hetprobe's loaded point); no bound: which is right is the question.
# Exit 1 when an expectation fails, naming each.
# Results: $RESULTS_DIR (default build-gpu/write16).
#   tests/gpu/write16.sh [LAUNCHES]
set -euo pipefail
default_results=write16
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
launches=${1:-3}
gpu_node_ready 1 "$build/tests/gpu/bare_load_rounds"
mpirun=(mpirun --oversubscribe -np 2)
rounds=10 reps=8
hetprobe_write=(interference --sizes 16MiB --layouts SSB,P2AB --access stacked --load write --rounds "$rounds"
  --reps "$reps" --quiet --no-host-stream)
ratio() {  # FILE: the loaded point's ratio to SSB and its interval
  python3 "$root/tests/gpu/loaded_ratios.py" "$1"
}
for launch in $(seq "$launches"); do
  expect "bare-near-$launch" 0 --out "$results/bare-near-$launch.txt" -- \
    env BARE_LOAD_NEAR=1 "${mpirun[@]}" "$build/tests/gpu/bare_load_rounds" cpu $rounds $reps 0 16777216
  expect "bare-near-$launch write ratio" 0 -- grep -qE '^16777216 write ' "$results/bare-near-$launch.txt"
  echo "launch $launch bare near 512 MiB: $(awk '$2 == "write" {print $3, "ci95", $4 "-" $5}' "$results/bare-near-$launch.txt")"
  for bytes in 256MiB 512MiB; do
    out=$results/hetprobe-$bytes-$launch.jsonl
    rm -f "$out"
    expect "hetprobe-$bytes-$launch" 0 --out /dev/null -- \
      "${mpirun[@]}" "$hetprobe" "${hetprobe_write[@]}" --load-bytes $bytes --out "$out"
    expect "hetprobe-$bytes-$launch SSB and loaded points" 0 -- python3 "$checks" records "$out" point --at-least 2
    echo "launch $launch hetprobe $bytes: $(ratio "$out" 2>/dev/null || true)"
  done
done
finish
