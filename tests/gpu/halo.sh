#!/usr/bin/env bash
# The halo probe on a node with two GPUs, in one command: build with the GPU
# backend, the halo and signal device tests on the GPU, the bare unpack
# reference (tests/gpu/bare_unpack.cu), `hetprobe bandwidth`'s GPU write and
# read rates of pinned memory (what pack and unpack are held to), then
# `hetprobe halo` on two ranks (one per GPU, the node-local rank picks it)
# over the paper's three cubes with every variant and the thesis's dimensions:
# both send modes, both receive waits, both signals, both stagings, 128 and
# 1024 threads per block, and long messages in parts (auto) or one block each
# (whole: the paper's fused kernels); the median iteration's timeline kept
# (in 10 rounds of 3 iterations a setup, each round in a shuffled order). Then the pinned setups again
# with each single-copy mechanism of $HALO_SINGLE_COPY (default cma; the
# lent machines set none in the environment), and the pack and unpack rates
# against bandwidth's (tests/gpu/halo_rates.py; the judged setups, pinned with
# parts auto, launched HALO_LAUNCHES times in all, default 3, each judged on
# its median over the launches), and the unpack against the bare program's
# stage received with MPI (tests/gpu/compare_unpack.py).
# Expects: --device auto two GPUs or more; the device tests, the bare
# reference, bandwidth, each notify variant first in a fresh process, with
# pinned and with memcpy staging (within its --timeout 10), the halo run, each launch and each single-copy run exit 0
# with their results written; each pinned stage's pack and unpack at 70% or more of
# bandwidth's rates by its median over the launches, and no stage above its bound (the link, or device memory
# for memcpy staging's kernels) (halo_rates.py exit 0); each cube's unpack
# within 10% of the bare program's (compare_unpack.py exit 0). Exit 1 when an expectation fails, naming each.
#   tests/gpu/halo.sh [more halo options]
# Results: $RESULTS_DIR (default build-gpu/halo): halo*.jsonl, halo*.txt,
# halo-bandwidth.jsonl, bare-unpack.txt, halo-rates.txt, logs.
set -euo pipefail
default_results=halo
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
build_gpu
expect_gpus 2 "$hetprobe"

step "halo and signal device tests on the GPU"
expect device-tests 0 -- "$build/tests/hetprobe_device_tests" \
  --gtest_filter='gpu/HaloTest.*/cuda:gpu/HaloTest.*/hip:gpu/SignalTest.*' 2>&1 |
  tee "$results/device-tests.txt" | { grep -E "^\[  (PASSED|FAILED|SKIPPED)|FAILED \]" || true; }

if [[ -x $build/tests/gpu/bare_unpack ]]; then  # built with the CUDA backend (tests/gpu/CMakeLists.txt)
  step "the bare unpack reference (tests/gpu/bare_unpack.cu)"
  # Two ranks: the "received" stage is exchanged with MPI as hetprobe halo's baseline does.
  expect bare-unpack 0 -- mpirun -np 2 "$build/tests/gpu/bare_unpack" | tee "$results/bare-unpack.txt"
fi

step "GPU write and read rates of pinned memory, each GPU in turn"
rm -f "$results/halo-bandwidth.jsonl"
expect bandwidth 0 -- mpirun -np 2 "$hetprobe" bandwidth --load write,read --quiet --out "$results/halo-bandwidth.jsonl" |
  tee "$results/halo-bandwidth.txt"
expect_files "$results/halo-bandwidth.jsonl"

# Cube 400: its faces are split into parts, whose states a stage must not
# allocate once the other stage spins (cudaMalloc may wait for an idle device).
step "each notify variant first in a fresh process (a kernel launched beside a spinning one must start)"
rm -f "$results"/first-*.jsonl
# With memcpy staging, its copies must not queue behind a spinning kernel (gpu_device.cpp's hardware queues).
for variant in notify-stream notify-stacked; do
  for staging in pinned memcpy; do
    name=first-$variant-$staging
    expect "$name" 0 -- mpirun -np 2 "$hetprobe" halo --cube 400 --variants "$variant" --staging "$staging" \
      --rounds 1 --iterations 3 --warmup 0 --timeout 10 --quiet --out "$results/$name.jsonl" | { grep -E "^cube" || true; }
    expect_files "$results/$name.jsonl"
  done
done

step "hetprobe halo on 2 ranks: the paper's cubes, the thesis's matrix, parts and whole messages"
rm -f "$results/halo.jsonl"
start=$(date +%s)
expect halo 0 -- mpirun -np 2 "$hetprobe" halo --cube 200,400,800 --variants all --send isend,send \
  --recv-wait waitall,testany --signal channel,queue --staging pinned,memcpy --threads 128,1024 --parts auto,whole \
  --rounds 10 --iterations 3 --timeline median "$@" --out "$results/halo.jsonl" |
  tee "$results/halo.txt"
echo "halo wall time: $(($(date +%s) - start)) s"
expect_files "$results/halo.jsonl"

for mechanism in ${HALO_SINGLE_COPY-cma}; do
  step "pinned setups with Open MPI's single-copy mechanism $mechanism"
  rm -f "$results/halo-$mechanism.jsonl"
  expect "halo-$mechanism" 0 -- mpirun -np 2 "$hetprobe" halo --cube 200,400,800 --single-copy "$mechanism" \
    --variants all --staging pinned --rounds 10 --iterations 3 --timeline median \
    "$@" --out "$results/halo-$mechanism.jsonl" |
    tee "$results/halo-$mechanism.txt"
  expect_files "$results/halo-$mechanism.jsonl"
done

if [[ -s $results/bare-unpack.txt ]]; then
  step "the unpack of each cube against the bare program's stage (tests/gpu/compare_unpack.py)"
  expect "unpack within 10% of the bare program" 0 -- \
    python3 "$root/tests/gpu/compare_unpack.py" "$results/bare-unpack.txt" "$results/halo.jsonl" |
    tee "$results/compare-unpack.txt"
fi

# A process launch is the unit of replication: the judged setups (pinned,
# parts auto) again, so that each is judged on its median over the launches.
launches=()
for ((k = 2; k <= ${HALO_LAUNCHES-3}; ++k)); do
  step "the judged setups again: launch $k of ${HALO_LAUNCHES-3}"
  rm -f "$results/halo-launch-$k.jsonl"
  expect "halo-launch-$k" 0 -- mpirun -np 2 "$hetprobe" halo --cube 200,400,800 --variants all --send isend,send \
    --recv-wait waitall,testany --signal channel,queue --staging pinned --threads 128,1024 --parts auto \
    --rounds 10 --iterations 3 --timeline none --quiet "$@" --out "$results/halo-launch-$k.jsonl" >/dev/null
  expect_files "$results/halo-launch-$k.jsonl"
  launches+=(--launch "$results/halo-launch-$k.jsonl")
done

step "pack and unpack against bandwidth's write and read rates"
expect "pack and unpack at 70% of bandwidth's rates" 0 -- \
  python3 "$root/tests/gpu/halo_rates.py" "$results/halo.jsonl" "$results/halo-bandwidth.jsonl" "${launches[@]}" |
  tee "$results/halo-rates.txt"
finish
