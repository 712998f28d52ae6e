#!/usr/bin/env bash
# Does the main job repeat, and does its node verdict hold? (issues 24, 34) In
# one command on a GPU node: `hetprobe characterize` with its defaults RUNS
# times (default 3) back to back, each timed, none flagging a GPU;
# `hetprobe check` of runs 2.. against run 1 (expected: exit 0); then, unless
# --no-disturbed, one more run while another process (bare_disturb, built
# here) keeps GPU D busy (--disturb D; default GPU 2 on 3 GPUs or more, else
# the last) in the way --disturber names (copy: its copy engines, device to
# device, the default; kernel: its SMs; host: copies through its link to and
# from host memory, which the other GPUs share too), which must flag GPU D
# alone, confirmed on re-measure, and whose check against run 1 exits 1. Prints each run's headline and wall time. Also
# expects --device auto a GPU, each characterize exit 0 with every step ok
# and its summary written. Exit 1 when an expectation fails, naming each.
# Needs the package installed as python.sh does (HETPROBE_PYTHON=/path/to/python
# on a machine without network).
#   tests/gpu/repeat.sh [RUNS] [--no-disturbed] [--disturbed-only] [--disturb D] [--disturber copy|kernel|host]
# Results: $RESULTS_DIR (default build-gpu/repeat): run-1.. and run-disturbed.
set -euo pipefail
default_results=repeat
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
runs=3 disturbed=1 only_disturbed=0 disturb='' disturber=copy
while (($#)); do
  case $1 in
    --no-disturbed) disturbed=0 ;;
    --disturbed-only) only_disturbed=1 ;;
    --disturb) disturb=$2 && shift ;;
    --disturber) disturber=$2 && shift ;;
    *) runs=$1 ;;
  esac
  shift
done
install_package
expect_gpus 1 "$hetprobe_command"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || echo 1)
[[ -n $disturb ]] || disturb=$((gpus >= 3 ? 2 : gpus - 1))
# characterize_run NAME: characterize into $results/NAME, expected exit 0, every step ok; prints its headline
characterize_run() {
  rm -rf "${results:?}/$1"
  local began=$SECONDS
  expect "$1" 0 --out "$results/$1.out" --err "$results/$1.err" -- "$hetprobe_command" characterize "$results/$1"
  echo "$1: characterize wall time $((SECONDS - began)) s"
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
    expect "run-$i flags no GPU" 0 -- python3 "$checks" node-flags "$results/run-$i"
  done
  for i in $(seq 2 "$runs"); do
    check_run "run-$i" 0
  done
fi
if ((disturbed)); then
  step "run-disturbed: while another process keeps GPU $disturb busy ($disturber) (expected: GPU $disturb flagged, check exit 1)"
  need bare_disturb 0 --log "$results/bare_disturb-build.log" -- \
    nvcc -O2 -o "$results/bare_disturb" "$root/tests/gpu/bare_disturb.cu"
  "$results/bare_disturb" "$disturb" 3600 "$disturber" >"$results/disturber.log" 2>&1 &
  disturber_pid=$!
  sleep 2
  characterize_run run-disturbed
  expect "run-disturbed flags GPU $disturb alone" 0 -- python3 "$checks" node-flags "$results/run-disturbed" --gpu "$disturb"
  expect "disturber still running after run-disturbed" 0 -- kill -0 "$disturber_pid"
  kill "$disturber_pid" 2>/dev/null || true
  wait "$disturber_pid" 2>/dev/null || true
  check_run run-disturbed 1
fi
finish
