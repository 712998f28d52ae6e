#!/usr/bin/env bash
# Does the main job repeat? (issue 24) In one command on a GPU node:
# `hetprobe characterize` with its defaults RUNS times (default 3) back to
# back, each timed; `hetprobe check` of runs 2.. against run 1 (expected:
# exit 0); then, unless --no-disturbed, one more run while another process
# drives the first GPU's copy engines, checked against run 1 (expected:
# exit 1). Prints each run's headline. Also expects --device auto a GPU, each
# characterize exit 0 with every step ok and its summary written. Exit 1 when
# an expectation fails, naming each.
# Needs the package installed as python.sh does (HETPROBE_PYTHON=/path/to/python
# on a machine without network).
#   tests/gpu/repeat.sh [RUNS] [--no-disturbed] [--disturbed-only]
# Results: $RESULTS_DIR (default build-gpu/repeat): run-1.. and run-disturbed.
set -euo pipefail
default_results=repeat
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
runs=3 disturbed=1 only_disturbed=0
for a in "$@"; do
  case $a in
    --no-disturbed) disturbed=0 ;;
    --disturbed-only) only_disturbed=1 ;;
    *) runs=$a ;;
  esac
done
install_package
expect_gpus 1 "$hetprobe_command"
# characterize_run NAME: characterize into $results/NAME, expected exit 0, every step ok; prints its headline
characterize_run() {
  rm -rf "${results:?}/$1"
  expect "$1" 0 --out "$results/$1.out" --err "$results/$1.err" -- "$hetprobe_command" characterize "$results/$1"
  expect "$1 steps ok" 0 -- python3 "$checks" steps-ok "$results/$1"
  expect_files "$results/$1/summary.txt"
  if [[ -f $results/$1/summary.txt ]]; then head -5 "$results/$1/summary.txt"; fi
}
# check_run NAME EXPECTED_EXIT: hetprobe check of run NAME against run-1
check_run() {
  expect "check-${1#run-} (expected exit $2)" "$2" --out "$results/check-${1#run-}.out" \
    --err "$results/check-${1#run-}.err" -- "$hetprobe_command" check "$results/$1" --baseline "$results/run-1"
  cat "$results/check-${1#run-}.out"
}
if ((!only_disturbed)); then
  for i in $(seq "$runs"); do
    characterize_run "run-$i"
  done
  for i in $(seq 2 "$runs"); do
    check_run "run-$i" 0
  done
fi
if ((disturbed)); then
  step "run-disturbed: while another process drives GPU 0's copy engines (expected: check exit 1)"
  "$hetprobe_command" bandwidth --gpu 0 --bind none --reps 100000 --duration 0.2 --load copy-d2h,copy-h2d --quiet \
    --out "$results/disturber.jsonl" >/dev/null 2>&1 &
  disturber=$!
  sleep 2
  characterize_run run-disturbed
  expect "disturber still running after run-disturbed" 0 -- kill -0 "$disturber"
  kill "$disturber" 2>/dev/null || true
  wait "$disturber" 2>/dev/null || true
  check_run run-disturbed 1
fi
finish
