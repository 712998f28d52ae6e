#!/usr/bin/env bash
# Builds hetprobe with its GPU backend and runs, in one command on a GPU node:
# the GPU-labelled tests, the host tests, `hetprobe devices`, `hetprobe
# bandwidth`, `hetprobe notify` and `hetprobe clock` with their defaults,
# hetprobe-micro, and a short interference sweep on two ranks.
#   tests/gpu/run.sh            the above
#   tests/gpu/run.sh --full     also the full sweep (1 KiB..64 MiB x4, all
#                               layouts, both access modes, 50 samples), killed
#                               with SIGKILL part way and completed with --resume
# Results go to $RESULTS_DIR (default: build-gpu/results).
set -euo pipefail
full=0
[[ "${1:-}" == "--full" ]] && full=1
source "$(dirname "$0")/common.sh"
build_gpu

step "GPU tests (label gpu)"
ctest --test-dir "$build" -L gpu --output-on-failure -j 1 >"$results/ctest-gpu.log" 2>&1 ||
  { tail -60 "$results/ctest-gpu.log"; exit 1; }
grep -E "Passed|tests passed" "$results/ctest-gpu.log" | grep -v hip_
step "host tests (everything else)"
ctest --test-dir "$build" -LE gpu --output-on-failure -j 4 >"$results/ctest-host.log" 2>&1 ||
  { tail -60 "$results/ctest-host.log"; exit 1; }
grep -E "tests passed" "$results/ctest-host.log"

step "devices and topology"
"$hetprobe" devices
"$hetprobe" topo | tee "$results/topo.txt"
"$hetprobe" topo --json >"$results/topo.json"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,clocks.mem,pcie.link.gen.current,pcie.link.width.current --format=csv 2>/dev/null || true

step "bandwidth: plain kernel vs persistent writers"
"$hetprobe" bandwidth --out "$results/bandwidth.jsonl"

step "notify (defaults)"
rm -f "$results/notify.jsonl"
"$hetprobe" notify --quiet --out "$results/notify.jsonl" | tee "$results/notify.txt"

step "notify: flag placement and spacing"
rm -f "$results/notify-placement.jsonl"
"$hetprobe" notify --parts roundtrip --orders volatile,fence --placement pinned,managed \
  --spacing same-line,line,page --quiet --out "$results/notify-placement.jsonl" | tee "$results/notify-placement.txt"
if [[ -x $build/tests/gpu/bare_pingpong ]]; then  # built with the CUDA backend (tests/gpu/CMakeLists.txt)
  step "the bare ping-pong reference (tests/gpu/bare_pingpong.cu)"
  "$build/tests/gpu/bare_pingpong" | tee "$results/bare-pingpong.txt"
fi

step "clock (defaults)"
rm -f "$results/clock.jsonl"
"$hetprobe" clock --quiet --out "$results/clock.jsonl" | tee "$results/clock.txt"

step "Ctrl-C during GPU clock sync (span 600 s, --timeout a day): exit 130 within a second"
rm -f "$results/clock-interrupted.jsonl"
"$hetprobe" clock --span 600 --batches 3 --samples 20 --timeout 86400 --quiet \
  --out "$results/clock-interrupted.jsonl" >/dev/null 2>"$results/clock-interrupted.err" &
pid=$!
for _ in $(seq 600); do grep -q '"record":"clock_batch"' "$results/clock-interrupted.jsonl" 2>/dev/null && break; sleep 0.1; done
t0=$(date +%s.%N)
kill -INT $pid
rc=0
wait $pid || rc=$?
echo "exit code $rc, $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }') s after SIGINT" | tee "$results/clock-interrupted.txt"
((rc == 130))

step "hetprobe-micro (Google Benchmark)"
"$build/bench/hetprobe-micro" --benchmark_min_time=0.2 --benchmark_out="$results/micro.json" \
  --benchmark_out_format=json 2>&1 | tee "$results/micro.txt"

step "short interference sweep"
rm -f "$results/short-sweep.jsonl"
mpirun -np 2 "$hetprobe" interference --sizes 1KiB:1MiB:x4 --reps 10 --quiet --out "$results/short-sweep.jsonl"

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
  mpirun -np 2 "$hetprobe" "${sweep[@]}" --resume | tee "$results/full-sweep-resumed.txt"
  step "the full sweep's table, from its results file"
  "$hetprobe" show "$results/full-sweep.jsonl" | tee "$results/full-sweep-table.txt"
fi
step "done: results in $results"
