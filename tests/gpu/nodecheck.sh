#!/usr/bin/env bash
# Every GPU of a node, checked against a known-good run, in one command on a
# GPU node: characterize with its defaults twice (run-a, the reference, and
# run-b with --baseline run-a: exit 0 expected), then once more while another
# process loads one GPU's link (run-c with --baseline run-a: that GPU flagged,
# exit 1 expected), and `hetprobe check run-c --baseline run-a` (exit 1
# expected). Also expects --device auto a GPU, every step of each run ok and
# its characterize.json and summary written. Times each run. Exit 1 when an
# expectation fails, naming each. Needs the package installed as python.sh
# does (HETPROBE_PYTHON=/path/to/python on a machine without network).
#   tests/gpu/nodecheck.sh [GPU_TO_DISTURB (default: the last)]
# Results: $RESULTS_DIR (default build-gpu/nodecheck): run-a, run-b, run-c.
set -euo pipefail
default_results=nodecheck
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
install_package
expect_gpus 1 "$hetprobe_command"
gpus=$("$python" -c 'import hetprobe; print(max(b["devices"] for b in hetprobe.devices()["backends"] if b["backend"] != "host"))')
victim=${1:-$((gpus - 1))}
echo "$gpus GPU(s); the disturbed one: $victim"

# characterize_run NAME EXPECTED_EXIT [OPTIONS...]: characterize into $results/NAME;
# every step ok and its files written, whatever the baseline says
characterize_run() {
  local name=$1 code=$2
  shift 2
  expect "$name (expected exit $code)" "$code" --out "$results/$name.out" --err "$results/$name.err" -- \
    "$hetprobe_command" characterize "$@" "$results/$name"
  tail -25 "$results/$name.out"
  expect "$name steps ok" 0 -- python3 "$checks" steps-ok "$results/$name"
  expect_files "$results/$name/characterize.json" "$results/$name/summary.txt"
}
rm -rf "$results"/run-{a,b,c}
step "run-a: characterize (defaults), the reference"
characterize_run run-a 0
step "run-b: characterize --baseline run-a (expected: exit 0)"
characterize_run run-b 0 --baseline "$results/run-a"
step "run-c: characterize --baseline run-a while GPU $victim's link carries another process's copies (expected: exit 1)"
# The disturbance: copies to and from pinned memory on that GPU for the whole run.
"$hetprobe_command" bandwidth --gpu "$victim" --bind none --reps 100000 --duration 0.2 --load copy-d2h,copy-h2d --quiet \
  --out "$results/disturber.jsonl" >/dev/null 2>&1 &
disturber=$!
sleep 2
characterize_run run-c 1 --baseline "$results/run-a"
expect "disturber still running after run-c" 0 -- kill -0 "$disturber"
kill "$disturber" 2>/dev/null || true
wait "$disturber" 2>/dev/null || true
expect "run-c flags GPU $victim against run-a" 0 -- python3 "$checks" flagged "$results/run-c" "$victim"
step "hetprobe check run-c --baseline run-a (existing runs)"
expect "check run-c (expected exit 1)" 1 -- "$hetprobe_command" check "$results/run-c" --baseline "$results/run-a"
finish
