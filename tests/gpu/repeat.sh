#!/usr/bin/env bash
# Does the main job repeat? (issue 24) In one command on a GPU node:
# `hetprobe characterize` with its defaults RUNS times (default 3) back to
# back, each timed; `hetprobe check` of runs 2.. against run 1 (expected:
# exit 0); then, unless --no-disturbed, one more run while another process
# drives the first GPU's copy engines, checked against run 1 (expected:
# exit 1). Prints each run's headline. Exit 1 when an expectation fails.
# Needs the package installed as python.sh does (HETPROBE_PYTHON=/path/to/python
# on a machine without network).
#   tests/gpu/repeat.sh [RUNS] [--no-disturbed] [--disturbed-only]
# Results: $RESULTS_DIR (default build-gpu/repeat): run-1.. and run-disturbed.
set -euo pipefail
default_results=repeat
source "$(dirname "$0")/common.sh"
runs=3 disturbed=1 only_disturbed=0
for a in "$@"; do
  case $a in
    --no-disturbed) disturbed=0 ;;
    --disturbed-only) only_disturbed=1 ;;
    *) runs=$a ;;
  esac
done
step "pip install . (build log: $results/pip-install.log)"
source "$root/bench/setup_python.sh" >"$results/pip-install.log" 2>&1 || { tail -40 "$results/pip-install.log"; exit 1; }
failed=()
timed() {  # NAME EXPECTED_EXIT COMMAND...: runs it, prints its exit code, wall time and headline
  local name=$1 expected=$2 start rc=0
  shift 2
  start=$(date +%s%N)
  "$@" >"$results/$name.out" 2>"$results/$name.err" || rc=$?
  echo "$name: exit $rc (expected $expected) in $((($(date +%s%N) - start) / 1000000)) ms"
  ((rc == expected)) || { failed+=("$name exit $rc"); tail -20 "$results/$name.err"; }
  [[ -f $results/$name/summary.txt ]] && head -5 "$results/$name/summary.txt"
  return 0
}
if ((!only_disturbed)); then
  for i in $(seq "$runs"); do
    rm -rf "$results/run-$i"
    timed "run-$i" 0 "$hetprobe_command" characterize "$results/run-$i"
  done
  for i in $(seq 2 "$runs"); do
    timed "check-$i" 0 "$hetprobe_command" check "$results/run-$i" --baseline "$results/run-1"
    cat "$results/check-$i.out"
  done
fi
if ((disturbed)); then
  step "run-disturbed: while another process drives GPU 0's copy engines (expected: check exit 1)"
  "$hetprobe_command" bandwidth --gpu 0 --bind none --reps 100000 --duration 0.2 --load copy-d2h,copy-h2d --quiet \
    --out "$results/disturber.jsonl" >/dev/null 2>&1 &
  disturber=$!
  sleep 2
  rm -rf "$results/run-disturbed"
  timed run-disturbed 0 "$hetprobe_command" characterize "$results/run-disturbed"
  kill "$disturber" 2>/dev/null || true
  wait "$disturber" 2>/dev/null || true
  timed check-disturbed 1 "$hetprobe_command" check "$results/run-disturbed" --baseline "$results/run-1"
  cat "$results/check-disturbed.out"
fi
if ((${#failed[@]})); then echo "FAILED: ${failed[*]}"; exit 1; fi
echo "repeat: every expectation met"
