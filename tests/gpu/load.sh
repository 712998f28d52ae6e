#!/usr/bin/env bash
# The interference loads on a GPU node, in one command: build with the GPU
# backend; the load engine's device tests on the GPU; `hetprobe bandwidth`
# (plain passes, the paper's writer, every load at full rate) beside a bare
# async-copy loop; the bare interference program (tests/gpu/bare_interference.cu)
# beside hetprobe's write load at the same sizes; then the load matrix (every
# kind x 0..all GPUs x rates x 1 KiB..64 MiB, P2AB, stacked), the layouts at
# full rate, and `hetprobe characterize` with its defaults (timed; the Python
# package from the source tree, the executables from this build).
# notebooks/data/h200x2-load/ is this run on two H200s.
#   tests/gpu/load.sh [check|matrix|characterize|all]   (default all: the three)
# Results: $RESULTS_DIR (default build-gpu/load).
set -euo pipefail
stage=${1:-all}
default_results=load
source "$(dirname "$0")/common.sh"
build_gpu
sizes=1KiB:64MiB:x4
failed=()

if [[ $stage == check || $stage == all ]]; then
  step "load engine and plain passes on the GPU"
  "$build/tests/hetprobe_device_tests" --gtest_filter='gpu/LoadTest.*:gpu/DeviceTest.Plain*' \
    >"$results/device-tests.txt" 2>&1 || failed+=("device tests")
  grep -E "^\[  (PASSED|FAILED)|FAILED \]|Failure|evaluates to|full rate" "$results/device-tests.txt" | grep -v hip_
  step "bandwidth: plain passes, the paper's writer, every load at full rate"
  rm -f "$results/bandwidth.jsonl"
  "$hetprobe" bandwidth --out "$results/bandwidth.jsonl" | tee "$results/bandwidth.txt"
  step "the bare async-copy loop (tests/gpu/bare_copy.cu)"
  "$build/tests/gpu/bare_copy" | tee "$results/bare-copy.txt"
  step "the bare interference program (tests/gpu/bare_interference.cu) and hetprobe's write load, same sizes"
  mpirun -np 2 "$build/tests/gpu/bare_interference" | tee "$results/bare-interference.txt"
  rm -f "$results/write-vs-bare.jsonl"
  mpirun -np 2 "$hetprobe" interference --sizes "$sizes" --layouts SSB,P2AB --access stacked --load write \
    --load-bytes 256MiB --reps 50 --quiet --no-host-stream --out "$results/write-vs-bare.jsonl" |
    tee "$results/write-vs-bare.txt"
  python3 "$root/tests/gpu/compare_bare.py" "$results/bare-interference.txt" "$results/write-vs-bare.jsonl" \
    >"$results/compare-bare.txt" || failed+=("bare comparison")
  cat "$results/compare-bare.txt"
fi

if [[ $stage == matrix || $stage == all ]]; then
  step "the load matrix: every kind x 0..all GPUs x rates, P2AB, stacked"
  rm -f "$results/matrix.jsonl"
  start=$(date +%s)
  mpirun -np 2 "$hetprobe" interference --sizes "$sizes" --layouts SSB,P2AB --access stacked --load all \
    --load-gpus 0:all --load-rate 0.25,0.5,1 --reps 20 --warmup 3 --quiet --out "$results/matrix.jsonl" |
    tee "$results/matrix.txt"
  echo "matrix wall time: $(($(date +%s) - start)) s"
  step "the layouts at full rate: every kind, stream and stacked, the sender's GPU and all"
  rm -f "$results/layouts.jsonl"
  mpirun -np 2 "$hetprobe" interference --sizes 1KiB,64KiB,1MiB,16MiB --layouts all --access stream,stacked \
    --load all --load-gpus 1,all --reps 20 --warmup 3 --quiet --no-host-stream --out "$results/layouts.jsonl" |
    tee "$results/layouts.txt"
fi
if [[ $stage == characterize || $stage == all ]]; then
  step "hetprobe characterize (defaults)"
  rm -rf "$results/characterize"
  start=$(date +%s%N)
  PYTHONPATH=$root/pybindings HETPROBE_BIN_DIR=$build/bench ${HETPROBE_PYTHON:-python3} -m hetprobe characterize \
    --progress lines "$results/characterize" || failed+=("characterize")
  elapsed_ms=$((($(date +%s%N) - start) / 1000000))
  echo "characterize wall time: $((elapsed_ms / 1000)).$(printf %03d $((elapsed_ms % 1000))) s"
fi
step "done: results in $results"
if ((${#failed[@]})); then echo "FAILED: ${failed[*]}"; exit 1; fi
