#!/usr/bin/env bash
# The clock fit's precision at its bound (issue 24 item 6), in one command on
# a GPU node: LAUNCHES times (default 3), the bare ping-pong (its minimum
# round trip, tests/gpu/bare_pingpong.cu: the CPU-timed flag round trip, and
# the clock sync's own GPU-initiated exchange timed on %globaltimer) and
# `hetprobe clock` with its defaults, back to back. Prints per launch the
# fit's precision_ns against half of each bare minimum, and the spread of
# precision_ns between launches. Gates: precision <= 1.1 x half the bare
# sync exchange's minimum; max/min of the launches' precision < 1.05. Also
# expects --device auto a GPU, and every bare and clock run exit 0 with its
# minimum or clock fit written. Exit 1 when an expectation fails, naming each.
#   tests/gpu/clock_precision.sh [LAUNCHES]
# Results: $RESULTS_DIR (default build-gpu/clock-precision).
set -euo pipefail
default_results=clock-precision
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
launches=${1:-3}
gpu_node_ready 1 "$hetprobe"
for launch in $(seq "$launches"); do
  expect "bare-pingpong-$launch" 0 -- "$build/tests/gpu/bare_pingpong" |
    { grep -E '^bare-(pingpong|clock-sync)-min' || true; } >"$results/bare-$launch.txt"
  expect_files "$results/bare-$launch.txt"
  rm -f "$results/clock-$launch.jsonl"
  expect "clock-$launch" 0 --out "$results/clock-$launch.txt" -- \
    "$hetprobe" clock --quiet --out "$results/clock-$launch.jsonl"
  expect "clock-$launch fit" 0 -- python3 "$checks" records "$results/clock-$launch.jsonl" clock_fit
done
expect "precision within 1.1 x half the bare sync exchange, launches' max/min below 1.05" 0 -- \
  python3 "$(dirname "$0")/compare_clock_precision.py" "$results" "$launches"
finish
