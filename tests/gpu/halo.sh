#!/usr/bin/env bash
# The halo probe on a node with two GPUs, in one command: build with the GPU
# backend, the halo device tests on the GPU, then `hetprobe halo` on two ranks
# (one per GPU, the node-local rank picks it) over the paper's three cubes with
# every variant and the thesis's dimensions: both send modes, both receive
# waits, both signals, both stagings, 128 and 1024 threads per block; 50
# timed iterations each, the median iteration's timeline kept (the file stays
# a few MB: notebooks/data/h200x2-halo.jsonl is this run); then `hetprobe
# bandwidth`'s plain write and read kernels on the same GPUs and the long
# messages' pack and unpack rates against them (tests/gpu/halo_rates.py: exit
# 1 when a setup with parts auto moves one under 70% of them).
#   tests/gpu/halo.sh [more halo options]
# Results: $RESULTS_DIR (default build-gpu/halo): halo.jsonl, halo.txt,
# halo-bandwidth.jsonl (notebooks/data/h200x2-halo-bandwidth.jsonl), halo-rates.txt, logs.
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
step "hetprobe halo on 2 ranks"
rm -f "$results/halo.jsonl"
start=$(date +%s)
mpirun -np 2 "$hetprobe" halo --cube 200,400,800 --variants all --send isend,send --recv-wait waitall,testany \
  --signal channel,queue --staging pinned,memcpy --threads 128,1024 --iterations 50 --timeline median "$@" \
  --out "$results/halo.jsonl" |
  tee "$results/halo.txt"
echo "halo wall time: $(($(date +%s) - start)) s"
step "hetprobe bandwidth on 2 ranks: the plain write and read kernels the rates compare with"
rm -f "$results/halo-bandwidth.jsonl"
mpirun -np 2 "$hetprobe" bandwidth --load write,read --out "$results/halo-bandwidth.jsonl" |
  tee "$results/halo-bandwidth.txt"
step "pack and unpack rates of the messages of 64 KiB or more (rank 0)"
python3 "$(dirname "$0")/halo_rates.py" "$results/halo.jsonl" "$results/halo-bandwidth.jsonl" |
  tee "$results/halo-rates.txt"
