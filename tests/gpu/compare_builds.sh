#!/usr/bin/env bash
# Runs the binaries of two builds in one GPU session and tabulates their
# medians: the same short interference sweep, notify round trips and
# bandwidth, alternating old and new, three rounds each, so a change that is
# meant to keep the numbers can be shown to keep them.
#   tests/gpu/compare_builds.sh OLD_SOURCE.tar [ROUNDS]
# OLD_SOURCE.tar: `git archive REV -- . ':!notebooks'` of the old revision.
# The new build is this checkout's (build-gpu, as run.sh makes it).
set -euo pipefail
old_tar=$1
rounds=${2:-3}
default_results=compare
source "$(dirname "$0")/common.sh"
old_src=$build/old-src
old_build=$build/old
step "build the old source ($old_tar)"
rm -rf "$old_src" && mkdir -p "$old_src" && tar -xf "$old_tar" -C "$old_src"
cmake -S "$old_src" -B "$old_build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHETPROBE_ENABLE_CUDA=AUTO \
  -DHETPROBE_ENABLE_TESTS=OFF >"$results/cmake-old.log"
cmake --build "$old_build" -j "$(nproc)" --target hetprobe >"$results/build-old.log" 2>&1 ||
  { tail -50 "$results/build-old.log"; exit 1; }
step "build this checkout"
[[ -x $hetprobe ]] || build_gpu

run_all() {  # NAME BINARY ROUND
  local out=$results/$1-$3
  mkdir -p "$out"
  mpirun -np 2 "$2" interference --sizes 1KiB:1MiB:x4 --reps 10 --quiet --out "$out/sweep.jsonl" >/dev/null
  "$2" notify --parts roundtrip --orders volatile,fence --quiet --out "$out/notify.jsonl" >/dev/null
  "$2" bandwidth --quiet --out "$out/bandwidth.jsonl" >/dev/null 2>&1 || "$2" bandwidth --out "$out/bandwidth.jsonl" >/dev/null
}
for r in $(seq "$rounds"); do
  step "round $r: old, then new"
  run_all old "$old_build/bench/hetprobe" "$r"
  run_all new "$hetprobe" "$r"
done
step "medians, old vs new"
python3 "$root/tests/gpu/compare_medians.py" "$results" | tee "$results/compare.md"
