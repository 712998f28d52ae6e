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
# Expects: every run exit 0 and its results written; hetprobe's median ratio
# over the launches within 5% of the bare program's at every size and load
# but at most one (tests/gpu/compare_rounds.py: docs/probes/interference.md's
# "within 5% at 11 of 12 points"). Exit 1 when an expectation fails, naming each.
# Results: $RESULTS_DIR (default build-gpu/rounds), compare-rounds.txt the table.
#   tests/gpu/rounds.sh [LAUNCHES]
set -euo pipefail
default_results=rounds
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
launches=${1:-3}
build_gpu
expect_gpus 1 "$hetprobe"
mpirun=(mpirun --oversubscribe -np 2)
sizes=(1024 65536 1048576 16777216)
rounds=10 reps=8
bare=$build/tests/gpu/bare_load_rounds
interference=(interference --sizes 1KiB,64KiB,1MiB,16MiB --layouts SSB,P2AB --access stacked --load write,read,poll
  --rounds "$rounds" --reps "$reps" --quiet)
# hetprobe NAME OPTIONS...: the interference run NAME (interference-NAME.{jsonl,txt}), its points expected
hetprobe_run() {
  local name=$1
  shift
  rm -f "$results/interference-$name.jsonl"
  expect "interference-$name" 0 --out "$results/interference-$name.txt" -- \
    "${mpirun[@]}" "$hetprobe" "$@" --out "$results/interference-$name.jsonl"
  grep -E "P2AB|SSB" "$results/interference-$name.txt" || true
  expect "interference-$name points" 0 -- python3 "$checks" records "$results/interference-$name.jsonl" point
}
for launch in $(seq "$launches"); do
  step "launch $launch: bare (CPU payload), then hetprobe"
  expect "bare-cpu-$launch" 0 -- "${mpirun[@]}" "$bare" cpu $rounds $reps 0 "${sizes[@]}" |
    tee "$results/bare-cpu-$launch.txt"
  hetprobe_run "$launch" "${interference[@]}"
done
step "hetprobe against the bare program: the median ratio over $launches launches, within 5% at all points but one"
expect "hetprobe within 5% of bare" 0 -- python3 "$root/tests/gpu/compare_rounds.py" "$results" "$launches" |
  tee "$results/compare-rounds.txt"
step "bare: the payload never rewritten (warm), and written by the copy engine"
expect bare-none 0 -- "${mpirun[@]}" "$bare" none $rounds $reps 0 "${sizes[@]}" | tee "$results/bare-none.txt"
expect bare-gpu 0 -- "${mpirun[@]}" "$bare" gpu $rounds $reps 0 "${sizes[@]}" | tee "$results/bare-gpu.txt"
step "cold sends: --gap 2ms, bare and hetprobe (every load kind)"
expect bare-cpu-gap2ms 0 -- "${mpirun[@]}" "$bare" cpu $rounds $reps 2000 1024 65536 1048576 |
  tee "$results/bare-cpu-gap2ms.txt"
for gap in 0 2ms; do
  hetprobe_run "gap$gap" interference --sizes 1KiB,64KiB,1MiB --layouts SSB,P2AB --access stacked --load all \
    --rounds $rounds --reps $reps --gap $gap --quiet --no-host-stream
done
step "hetprobe bound nowhere (--bind none), as the bare program runs"
hetprobe_run bind-none "${interference[@]}" --bind none
finish
