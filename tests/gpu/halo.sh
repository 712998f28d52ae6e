#!/usr/bin/env bash
# The halo probe on a node with two GPUs, in one command: build with the GPU
# backend, the halo device tests on the GPU, then `hetprobe halo` on two ranks
# (one per GPU, the node-local rank picks it) over the paper's three cubes with
# every variant and the thesis's dimensions: both send modes, both receive
# waits, both signals, both stagings, 128 and 1024 threads per block; 50
# timed iterations each, the median iteration's timeline kept (the file stays
# a few MB: notebooks/data/h200x2-halo.jsonl is this run). Once per Open MPI
# single-copy mechanism in HALO_SINGLE_COPY (default "none cma"), each that
# Open MPI takes (a run it does not take stops at once, exit 2, and is skipped).
#   tests/gpu/halo.sh [more halo options]
# Results: $RESULTS_DIR (default build-gpu/halo): halo-MECH.jsonl, halo-MECH.txt, logs.
set -euo pipefail
default_results=halo
source "$(dirname "$0")/common.sh"
build_gpu

step "halo device tests on the GPU"
"$build/tests/hetprobe_device_tests" --gtest_filter='gpu/HaloTest.*/cuda:gpu/HaloTest.*/hip' 2>&1 |
  tee "$results/device-tests.txt" | grep -E "^\[  (PASSED|FAILED|SKIPPED)|OK \]|FAILED \]"

step "devices"
"$hetprobe" devices
step "each notify variant first in a fresh process (a kernel launched beside a spinning one must start)"
rm -f "$results"/first-*.jsonl
for variant in notify-stream notify-stacked; do
  mpirun -np 2 "$hetprobe" halo --cube 200 --variants "$variant" --iterations 3 --warmup 0 --timeout 10 --quiet \
    --out "$results/first-$variant.jsonl" | grep -E "^cube"
done
for mechanism in ${HALO_SINGLE_COPY:-none cma}; do
  step "hetprobe halo on 2 ranks, single copy $mechanism"
  rm -f "$results/halo-$mechanism.jsonl"
  start=$(date +%s)
  if mpirun -np 2 "$hetprobe" halo --cube 200,400,800 --variants all --send isend,send --recv-wait waitall,testany \
    --signal channel,queue --staging pinned,memcpy --threads 128,1024 --iterations 50 --timeline median "$@" \
    --single-copy "$mechanism" --out "$results/halo-$mechanism.jsonl" | tee "$results/halo-$mechanism.txt"; then
    echo "halo wall time (single copy $mechanism): $(($(date +%s) - start)) s"
  else
    echo "halo: single copy $mechanism not run (Open MPI did not take it, see above)"
  fi
done
