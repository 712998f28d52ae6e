#!/usr/bin/env bash
# Table 1 of Elis et al. 2024 held to a bare program (issue 34 part 4), in one
# command on a GPU node: LAUNCHES times (default 3), alternating, the bare
# program (tests/gpu/bare_table1.cu: lfence-ordered rdtsc around one volatile
# load + store of a flag a 1x1 kernel wrote last, and plain rdtsc beside it; %globaltimer around one system-scope atomic
# load + store of a flag the CPU wrote last; each timer's own cost) and
# `hetprobe notify --parts handover --orders volatile:relaxed`. Gate
# (compare_table1.py): over the launches, hetprobe's median CPU and GPU pair
# within 10% of the bare program's, or within 10 ns where both are under 100
# ns. Also expects --device auto a GPU, every run exit 0 with its line or its
# two handover records written. Exit 1 when an expectation fails, naming each.
#   tests/gpu/table1.sh [LAUNCHES]
# Results: $RESULTS_DIR (default build-gpu/table1).
set -euo pipefail
default_results=table1
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
launches=${1:-3}
gpu_node_ready 1 "$hetprobe"
for launch in $(seq "$launches"); do
  expect "bare-table1-$launch" 0 -- "$build/tests/gpu/bare_table1" |
    { grep -E '^bare-table1 ' || true; } >"$results/bare-$launch.txt"
  expect_files "$results/bare-$launch.txt"
  rm -f "$results/notify-$launch.jsonl"
  expect "notify-handover-$launch" 0 --out "$results/notify-$launch.txt" -- \
    "$hetprobe" notify --parts handover --orders volatile:relaxed --quiet --out "$results/notify-$launch.jsonl"
  expect "notify-handover-$launch records" 0 -- \
    python3 "$checks" records "$results/notify-$launch.jsonl" handover --at-least 2
done
expect "hetprobe's CPU and GPU pairs within 10% (or 10 ns under 100 ns) of the bare program's" 0 -- \
  python3 "$root/tests/gpu/compare_table1.py" "$results" "$launches"
finish
