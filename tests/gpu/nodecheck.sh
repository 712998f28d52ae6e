#!/usr/bin/env bash
# Every GPU of a node, checked against a known-good run, in one command on a
# GPU node: characterize with its defaults twice (run-a, the reference, and
# run-b with --baseline run-a: exit 0 expected), then once more while another
# process loads one GPU's link (run-c with --baseline run-a: that GPU flagged,
# exit 1 expected). Times each run. Needs the package installed as python.sh
# does (HETPROBE_PYTHON=/path/to/python on a machine without network).
#   tests/gpu/nodecheck.sh [GPU_TO_DISTURB (default: the last)]
# Results: $RESULTS_DIR (default build-gpu/nodecheck): run-a, run-b, run-c.
set -euo pipefail
default_results=nodecheck
source "$(dirname "$0")/common.sh"
step "pip install . (build log: $results/pip-install.log)"
source "$root/bench/setup_python.sh" >"$results/pip-install.log" 2>&1 || { tail -40 "$results/pip-install.log"; exit 1; }
gpus=$("$python" -c 'import hetprobe; print(max(b["devices"] for b in hetprobe.devices()["backends"] if b["backend"] != "host"))')
victim=${1:-$((gpus - 1))}
echo "$gpus GPU(s); the disturbed one: $victim"

timed() {  # NAME COMMAND...: runs it, prints its exit code and wall time
  local name=$1 start rc=0
  shift
  start=$(date +%s%N)
  "$@" >"$results/$name.out" 2>"$results/$name.err" || rc=$?
  echo "$name: exit $rc in $((($(date +%s%N) - start) / 1000000)) ms"
  tail -25 "$results/$name.out"
  return 0
}
rm -rf "$results"/run-{a,b,c}
step "run-a: characterize (defaults), the reference"
timed run-a "$hetprobe_command" characterize "$results/run-a"
step "run-b: characterize --baseline run-a (expected: exit 0)"
timed run-b "$hetprobe_command" characterize --baseline "$results/run-a" "$results/run-b"
step "run-c: characterize --baseline run-a while GPU $victim's link carries another process's copies (expected: exit 1)"
# The disturbance: copies to and from pinned memory on that GPU for the whole run.
"$hetprobe_command" bandwidth --gpu "$victim" --bind none --reps 100000 --duration 0.2 --load copy-d2h,copy-h2d --quiet \
  --out "$results/disturber.jsonl" >/dev/null 2>&1 &
disturber=$!
sleep 2
timed run-c "$hetprobe_command" characterize --baseline "$results/run-a" "$results/run-c"
kill "$disturber" 2>/dev/null || true
wait "$disturber" 2>/dev/null || true
step "hetprobe check run-c --baseline run-a (existing runs)"
rc=0
"$hetprobe_command" check "$results/run-c" --baseline "$results/run-a" || rc=$?
echo "check: exit $rc"
