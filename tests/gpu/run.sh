#!/usr/bin/env bash
# Builds hetprobe with its GPU backend and runs, in one command on a GPU node:
# the GPU-labelled tests, the host tests, `hetprobe devices`, `hetprobe
# bandwidth`, `hetprobe notify` and `hetprobe clock` with their defaults,
# hetprobe-micro, and a short interference sweep on two ranks.
#   tests/gpu/run.sh            the above
#   tests/gpu/run.sh --full     also the full sweep (1 KiB..64 MiB x4, all
#                               layouts, both access modes, 50 samples), killed
#                               with SIGKILL part way and completed with --resume
# Expects: every command exit 0 and its results file written; --device auto a
# GPU; the GPU tests found and passed; Ctrl-C during the clock sync exit 130
# within a second; with --full, 20 points or more in the file when killed and
# --resume exit 0. Exit 1 when an expectation fails, naming each
# (common.sh's finish; the list in expectations.txt).
# Results go to $RESULTS_DIR (default: build-gpu/results).
set -euo pipefail
full=0
[[ "${1:-}" == "--full" ]] && full=1
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
build_gpu
expect_gpus 1 "$hetprobe"

step "GPU tests (label gpu)"
expect ctest-gpu 0 --log "$results/ctest-gpu.log" -- \
  ctest --test-dir "$build" -L gpu --no-tests=error --output-on-failure -j 1
grep -E "Passed|tests passed" "$results/ctest-gpu.log" | grep -v hip_ || true
step "host tests (everything else)"
expect ctest-host 0 --log "$results/ctest-host.log" -- ctest --test-dir "$build" -LE gpu --output-on-failure -j 4
grep -E "tests passed" "$results/ctest-host.log" || true

step "devices and topology"
expect devices-text 0 -- "$hetprobe" devices
expect topo 0 -- "$hetprobe" topo | tee "$results/topo.txt"
expect topo-json 0 --out "$results/topo.json" -- "$hetprobe" topo --json
expect_files "$results/topo.txt" "$results/topo.json"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,clocks.mem,pcie.link.gen.current,pcie.link.width.current --format=csv 2>/dev/null || true

step "bandwidth: plain kernel vs persistent writers"
expect bandwidth 0 -- "$hetprobe" bandwidth --out "$results/bandwidth.jsonl"
expect_files "$results/bandwidth.jsonl"

step "notify (defaults)"
rm -f "$results/notify.jsonl"
expect notify 0 -- "$hetprobe" notify --quiet --out "$results/notify.jsonl" | tee "$results/notify.txt"
expect_files "$results/notify.jsonl"

step "notify: flag placement and spacing"
rm -f "$results/notify-placement.jsonl"
expect notify-placement 0 -- "$hetprobe" notify --parts roundtrip --orders volatile,fence --placement pinned,managed \
  --spacing same-line,line,page --quiet --out "$results/notify-placement.jsonl" | tee "$results/notify-placement.txt"
expect_files "$results/notify-placement.jsonl"
if [[ -x $build/tests/gpu/bare_pingpong ]]; then  # built with the CUDA backend (tests/gpu/CMakeLists.txt)
  step "the bare ping-pong reference (tests/gpu/bare_pingpong.cu)"
  expect bare-pingpong 0 -- "$build/tests/gpu/bare_pingpong" | tee "$results/bare-pingpong.txt"
fi

step "clock (defaults)"
rm -f "$results/clock.jsonl"
expect clock 0 -- "$hetprobe" clock --quiet --out "$results/clock.jsonl" | tee "$results/clock.txt"
expect clock-fit 0 -- python3 "$checks" records "$results/clock.jsonl" clock_fit

step "Ctrl-C during GPU clock sync (span 600 s, --timeout a day): exit 130 within a second"
rm -f "$results/clock-interrupted.jsonl"
"$hetprobe" clock --span 600 --batches 3 --samples 20 --timeout 86400 --quiet \
  --out "$results/clock-interrupted.jsonl" >/dev/null 2>"$results/clock-interrupted.err" &
pid=$!
for _ in $(seq 600); do grep -q '"record":"clock_batch"' "$results/clock-interrupted.jsonl" 2>/dev/null && break; sleep 0.1; done
expect clock-batch-before-sigint 0 -- grep -q '"record":"clock_batch"' "$results/clock-interrupted.jsonl"
t0=$(date +%s.%N)
kill -INT $pid
expect clock-sigint 130 -- wait $pid
seconds=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
echo "$seconds s after SIGINT" | tee "$results/clock-interrupted.txt"
expect "clock-sigint within 1 s ($seconds s)" 0 -- below "$seconds" 1

step "hetprobe-micro (Google Benchmark)"
expect micro 0 -- "$build/bench/hetprobe-micro" --benchmark_min_time=0.2 --benchmark_out="$results/micro.json" \
  --benchmark_out_format=json 2>&1 | tee "$results/micro.txt"
expect_files "$results/micro.json"

step "short interference sweep"
rm -f "$results/short-sweep.jsonl"
expect short-sweep 0 -- mpirun -np 2 "$hetprobe" interference --sizes 1KiB:1MiB:x4 --reps 10 --quiet \
  --out "$results/short-sweep.jsonl"
expect short-sweep-points 0 -- python3 "$checks" records "$results/short-sweep.jsonl" point

if [[ $full == 1 ]]; then
  step "full sweep, killed with SIGKILL after 20 points, then --resume"
  sweep=(interference --sizes 1KiB:64MiB:x4 --layouts all --access stream,stacked --reps 50 --quiet
         --out "$results/full-sweep.jsonl")
  rm -f "$results/full-sweep.jsonl"
  setsid mpirun -np 2 "$hetprobe" "${sweep[@]}" >"$results/full-sweep-killed.txt" 2>&1 &
  pid=$!
  until [[ -f "$results/full-sweep.jsonl" ]] && (($(grep -c '"record":"point"' "$results/full-sweep.jsonl") >= 20)); do
    sleep 0.2
    kill -0 $pid 2>/dev/null || break
  done
  # Kill mpirun and both ranks at once, as a node failure would.
  kill_session "$pid"
  wait $pid 2>/dev/null || true
  echo "killed: $(grep -c '"record":"point"' "$results/full-sweep.jsonl") points in the file, last line ends with newline: $(tail -c1 "$results/full-sweep.jsonl" | od -An -c | tr -d ' ')"
  expect full-sweep-killed-after-20-points 0 -- python3 "$checks" records "$results/full-sweep.jsonl" point --at-least 20
  expect full-sweep-resume 0 -- mpirun -np 2 "$hetprobe" "${sweep[@]}" --resume | tee "$results/full-sweep-resumed.txt"
  step "the full sweep's table, from its results file"
  expect full-sweep-show 0 -- "$hetprobe" show "$results/full-sweep.jsonl" | tee "$results/full-sweep-table.txt"
fi
step "done: results in $results"
finish
