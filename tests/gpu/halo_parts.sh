#!/usr/bin/env bash
# The halo kernels' pack and unpack rates on one GPU, without a second GPU or
# a peer: one rank sends a cube's 26 messages to itself (a layout file of rank
# 0 to rank 0 with the faces, edges and corners of the paper's 4x4x4 sub-cubes
# of cubes 400 and 800, 24-byte cells), so every stage has the GPU and its link
# to itself; swept over block sizes and part sizes. Then each stage's busy
# rate (its long messages' bytes over the time any of them moved) against
# `hetprobe bandwidth`'s plain kernels (tests/gpu/halo_rates.py): what
# tests/gpu/halo.sh holds to 70% on two GPUs, checked where one GPU is lent.
# Then each cube's unpack against the bare program's stage received from
# itself with MPI (tests/gpu/compare_unpack.py).
# Expects: --device auto a GPU; the bare reference, bandwidth and each cube's
# halo run exit 0 with their results written; no setup with parts auto under
# 70% (halo_rates.py exit 0, per cube); each cube's unpack within 10% of the
# bare program's (compare_unpack.py exit 0). Exit 1 when an expectation fails, naming each.
#   tests/gpu/halo_parts.sh [more halo options]
# Results: $RESULTS_DIR (default build-gpu/halo-parts): bare-unpack.txt, bandwidth.{txt,jsonl},
# self-CUBE.{layout,txt,jsonl}, rates-CUBE.txt, unpack-CUBE.txt. HALO_PARTS_CUBES: the cubes (default 400 800).
set -euo pipefail
default_results=halo-parts
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
build_gpu
expect_gpus 1 "$hetprobe"

if [[ -x $build/tests/gpu/bare_unpack ]]; then  # built with the CUDA backend (tests/gpu/CMakeLists.txt)
  step "the bare unpack reference (tests/gpu/bare_unpack.cu)"
  expect bare-unpack 0 -- mpirun -np 1 "$build/tests/gpu/bare_unpack" | tee "$results/bare-unpack.txt"
fi

step "GPU write and read rates of pinned memory"
rm -f "$results/bandwidth.jsonl"
expect bandwidth 0 -- "$hetprobe" bandwidth --load write,read --quiet --out "$results/bandwidth.jsonl" |
  tee "$results/bandwidth.txt"
expect_files "$results/bandwidth.jsonl"

for cube in ${HALO_PARTS_CUBES-400 800}; do
  # Faces, edges and corners of one sub-cube of cube/4 cells a side.
  python3 -c 'import sys; s = int(sys.argv[1]); [print(0, 0, b) for b in [s * s * 24] * 6 + [s * 24] * 12 + [24] * 8]' \
    $((cube / 4)) >"$results/self-$cube.layout"
  step "cube $cube: rank 0's 26 messages to itself, block and part sizes swept"
  rm -f "$results/self-$cube.jsonl"
  expect "self-$cube" 0 --out "$results/self-$cube.txt" -- "$hetprobe" halo --layout-file "$results/self-$cube.layout" \
    --variants all --staging pinned --threads 128,256,1024 --parts 8KiB,32KiB,auto,whole --rounds 10 --iterations 3 \
    --timeline median --quiet "$@" --out "$results/self-$cube.jsonl"
  grep -v "^#" "$results/self-$cube.txt" || true
  expect_files "$results/self-$cube.jsonl"
  expect "cube $cube: parts auto at 70% of bandwidth's rates" 0 --out "$results/rates-$cube.txt" -- \
    python3 "$root/tests/gpu/halo_rates.py" "$results/self-$cube.jsonl" "$results/bandwidth.jsonl"
  grep -E "^file|stage ratios|setups judged" "$results/rates-$cube.txt" || true
  if [[ -s $results/bare-unpack.txt ]]; then
    expect "cube $cube: unpack within 10% of the bare program" 0 --out "$results/unpack-$cube.txt" -- \
      python3 "$root/tests/gpu/compare_unpack.py" "$results/bare-unpack.txt" "$results/self-$cube.jsonl"
    grep -E "^\| [0-9]" "$results/unpack-$cube.txt" || true
  fi
done
finish
