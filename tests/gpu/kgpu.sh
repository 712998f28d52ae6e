#!/usr/bin/env bash
# hetprobe's write load from k GPUs at once (--load-gpus) held to a bare
# program, in one command on a node of 2 GPUs or more: LAUNCHES times
# (default 3), alternating, tests/gpu/bare_load_rounds.cu with
# BARE_LOAD_GPUS=k (its payload written with 8-byte stores, as hetprobe's),
# each GPU over a 512 MiB allocation of its own, then `hetprobe interference
# --load write --load-gpus k` at 16 MiB (SSB, OWN). Gate (compare_kgpu.py):
# hetprobe OWN's median ratio to SSB over the launches within 10% of the bare
# program's. Also expects --device auto a GPU backend of 2 or more devices,
# every run exit 0 with its write line or its points. Exit 1 when an
# expectation fails, naming each.
# With --near, each launch also runs the bare program with GPU 0's load 2 MiB
# after the send buffer (BARE_LOAD_NEAR=1) and hetprobe measures P2AB beside
# OWN; compare_kgpu.py prints them beside the gated pair. They stay out of the
# default: on four H100s the bare program's own-allocation ratio read lower
# in launches alternating with them (notebooks/data/h100x4-kgpu/).
# With --receivers, each launch also runs the bare program with its receiver
# on GPU 1 (BARE_RECEIVER_GPU=1, as hetprobe's rank 1 is) and hetprobe with
# both ranks on GPU 0 (--gpu 0, as the bare program's are), which
# compare_kgpu.py prints beside the others: does the receiver's GPU explain
# a difference?
#   tests/gpu/kgpu.sh [--near] [--receivers] [LAUNCHES [K]]     K: GPUs loading (default: all, nvidia-smi -L)
# Results: $RESULTS_DIR (default build-gpu/kgpu).
set -euo pipefail
default_results=kgpu
near=0 receivers=0  # the arguments, checked before common.sh makes the results folder
while [[ ${1:-} == --* ]]; do
  case $1 in
    --near) near=1 ;;
    --receivers) receivers=1 ;;
    *) echo "kgpu.sh: unknown option $1" >&2 && exit 2 ;;
  esac
  shift
done
launches=${1:-3}
k=${2:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)}
[[ $launches =~ ^[1-9][0-9]*$ && $k =~ ^[0-9]+$ ]] ||
  { echo "kgpu.sh: LAUNCHES=$launches, K=$k: expected whole numbers, LAUNCHES 1 or more" >&2; exit 2; }
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
gpu_node_ready 2 "$hetprobe" "$build/tests/gpu/bare_load_rounds"
if ((k < 2)); then record FAILED "GPUs loading" "k = $k, needs 2 or more"; finish; fi
mpirun=(mpirun --oversubscribe -np 2)
# The bare program writes each payload with 8-byte stores (cpuloop), as
# hetprobe's fill_payload does: a memset (cpu) of 16 MiB takes glibc's
# large-size path, and its loaded sends are faster on some machines
# (notebooks/data/h100x4-kgpu/).
bare=(cpuloop 10 8 0 16777216)
wheres=(own)
layouts=SSB,OWN
((near)) && wheres+=(near) && layouts+=,P2AB
((receivers)) && wheres+=(recv1)
for launch in $(seq "$launches"); do
  for where in "${wheres[@]}"; do
    load_near=0 receiver=0
    [[ $where == near ]] && load_near=1
    [[ $where == recv1 ]] && receiver=1
    out=$results/bare-$where-$launch.txt
    expect "bare-$where-$launch" 0 --out "$out" -- env BARE_LOAD_GPUS="$k" BARE_LOAD_NEAR=$load_near \
      BARE_RECEIVER_GPU=$receiver "${mpirun[@]}" "$build/tests/gpu/bare_load_rounds" "${bare[@]}"
    expect "bare-$where-$launch write line" 0 -- grep -qE '^16777216 write ' "$out"
    # A bare_load_rounds built before BARE_LOAD_GPUS loads GPU 0 alone and says nothing.
    expect "bare-$where-$launch loads $k GPUs" 0 -- grep -qF " $k GPU(s) loading" "$out"
  done
  variants=(hetprobe)
  ((receivers)) && variants+=(hetprobe-gpu0)
  for variant in "${variants[@]}"; do
    out=$results/$variant-$launch.jsonl
    extra=()
    [[ $variant == hetprobe-gpu0 ]] && extra=(--gpu 0)
    rm -f "$out"
    expect "$variant-$launch" 0 --out "$results/$variant-$launch.txt" -- \
      "${mpirun[@]}" "$hetprobe" interference --sizes 16MiB --layouts "$layouts" --access stacked --load write \
      --load-gpus "$k" --load-bytes 512MiB --rounds 10 --reps 8 --no-host-stream --quiet "${extra[@]}" --out "$out"
    expect "$variant-$launch points" 0 -- python3 "$checks" records "$out" point --at-least $((near ? 3 : 2))
  done
done
expect "hetprobe OWN's ratio over $k GPUs within 10% of the bare program's" 0 -- \
  python3 "$root/tests/gpu/compare_kgpu.py" "$results" "$launches"
finish
