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
# Expects: --device auto a GPU; every step exit 0 with its results written;
# the loaded medians of hetprobe's write load within 15% of the bare
# program's (compare_bare.py exit 0); characterize's steps all ok. Exit 1
# when an expectation fails, naming each.
#   tests/gpu/load.sh [check|matrix|characterize|all]   (default all: the three)
# Results: $RESULTS_DIR (default build-gpu/load).
set -euo pipefail
stage=${1:-all}
case $stage in
  check | matrix | characterize | all) ;;
  *) echo "usage: tests/gpu/load.sh [check|matrix|characterize|all]" >&2; exit 2 ;;
esac
default_results=load
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
build_gpu
expect_gpus 1 "$hetprobe"
sizes=1KiB:64MiB:x4

if [[ $stage == check || $stage == all ]]; then
  step "load engine and plain passes on the GPU"
  expect device-tests 0 --log "$results/device-tests.txt" -- \
    "$build/tests/hetprobe_device_tests" --gtest_filter='gpu/LoadTest.*:gpu/DeviceTest.Plain*'
  grep -E "^\[  (PASSED|FAILED)|FAILED \]|Failure|evaluates to|full rate" "$results/device-tests.txt" | grep -v hip_ || true
  step "bandwidth: plain passes, the paper's writer, every load at full rate"
  rm -f "$results/bandwidth.jsonl"
  expect bandwidth 0 -- "$hetprobe" bandwidth --out "$results/bandwidth.jsonl" | tee "$results/bandwidth.txt"
  expect_files "$results/bandwidth.jsonl"
  step "the bare async-copy loop (tests/gpu/bare_copy.cu)"
  expect bare-copy 0 -- "$build/tests/gpu/bare_copy" | tee "$results/bare-copy.txt"
  step "the bare interference program (tests/gpu/bare_interference.cu) and hetprobe's write load, same sizes"
  expect bare-interference 0 -- mpirun -np 2 "$build/tests/gpu/bare_interference" | tee "$results/bare-interference.txt"
  rm -f "$results/write-vs-bare.jsonl"
  expect write-vs-bare 0 -- mpirun -np 2 "$hetprobe" interference --sizes "$sizes" --layouts SSB,P2AB --access stacked \
    --load write --load-bytes 256MiB --reps 50 --quiet --no-host-stream --out "$results/write-vs-bare.jsonl" |
    tee "$results/write-vs-bare.txt"
  expect "loaded medians within 15% of the bare program's" 0 --out "$results/compare-bare.txt" -- \
    python3 "$root/tests/gpu/compare_bare.py" "$results/bare-interference.txt" "$results/write-vs-bare.jsonl"
  cat "$results/compare-bare.txt"
fi

if [[ $stage == matrix || $stage == all ]]; then
  step "the load matrix: every kind x 0..all GPUs x rates, P2AB, stacked"
  rm -f "$results/matrix.jsonl"
  start=$(date +%s)
  expect matrix 0 -- mpirun -np 2 "$hetprobe" interference --sizes "$sizes" --layouts SSB,P2AB --access stacked \
    --load all --load-gpus 0:all --load-rate 0.25,0.5,1 --reps 20 --warmup 3 --quiet --out "$results/matrix.jsonl" |
    tee "$results/matrix.txt"
  echo "matrix wall time: $(($(date +%s) - start)) s"
  expect matrix-points 0 -- python3 "$checks" records "$results/matrix.jsonl" point
  step "the layouts at full rate: every kind, stream and stacked, the sender's GPU and all"
  rm -f "$results/layouts.jsonl"
  expect layouts 0 -- mpirun -np 2 "$hetprobe" interference --sizes 1KiB,64KiB,1MiB,16MiB --layouts all \
    --access stream,stacked --load all --load-gpus 1,all --reps 20 --warmup 3 --quiet --no-host-stream \
    --out "$results/layouts.jsonl" | tee "$results/layouts.txt"
  expect layouts-points 0 -- python3 "$checks" records "$results/layouts.jsonl" point
fi
if [[ $stage == characterize || $stage == all ]]; then
  step "hetprobe characterize (defaults)"
  rm -rf "$results/characterize"
  start=$(date +%s%N)
  expect characterize 0 -- env PYTHONPATH="$root/pybindings" HETPROBE_BIN_DIR="$build/bench" \
    "${HETPROBE_PYTHON:-python3}" -m hetprobe characterize --progress lines "$results/characterize"
  elapsed_ms=$((($(date +%s%N) - start) / 1000000))
  echo "characterize wall time: $((elapsed_ms / 1000)).$(printf %03d $((elapsed_ms % 1000))) s"
  expect "characterize steps ok" 0 -- python3 "$checks" steps-ok "$results/characterize"
fi
step "done: results in $results"
finish
