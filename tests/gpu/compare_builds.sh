#!/usr/bin/env bash
# Runs the binaries of two builds in one GPU session and tabulates their
# medians: the same short interference sweep, notify round trips and
# bandwidth, alternating old and new, three rounds each, so a change that is
# meant to keep the numbers can be shown to keep them. Three launches a side
# only screen: with some 50 measurements, one or two of the noisy ones land
# apart by chance (twice so far, PSB and P2AB sends). A measurement the screen
# flags is judged again after CONFIRM_ROUNDS (default 5) more rounds, on all
# 8 launches a side, where runs apart by chance are about 1 in 6000.
#   tests/gpu/compare_builds.sh OLD_SOURCE.tar [ROUNDS]
# OLD_SOURCE.tar: `git archive REV -- . ':!notebooks'` of the old revision.
# The new build is this checkout's (build-gpu, as run.sh makes it).
# Expects: both builds, --device auto a GPU, every run of both exit 0 with its
# results written, and every measurement kept: not both beyond
# COMPARE_TOLERANCE (default 0.1) of the old median and apart from the old
# runs (tests/gpu/compare_medians.py). Exit 1 when an expectation fails, naming each.
# Results: $RESULTS_DIR (default build-gpu/compare): old-N/, new-N/, screen.md, compare.md.
set -euo pipefail
old_tar=${1:?usage: tests/gpu/compare_builds.sh OLD_SOURCE.tar [ROUNDS]}
rounds=${2:-3}
confirm_rounds=${CONFIRM_ROUNDS:-5}
[[ $rounds =~ ^[1-9][0-9]*$ && $confirm_rounds =~ ^[0-9]+$ ]] ||
  { echo "compare_builds.sh: ROUNDS=$rounds, CONFIRM_ROUNDS=$confirm_rounds: expected whole numbers, ROUNDS 1 or more" >&2; exit 2; }
default_results=compare
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
old_src=$build/old-src
old_build=$build/old
rm -rf "$results"/{old,new}-*  # a former comparison's runs would join this one's medians
step "build the old source ($old_tar)"
rm -rf "$old_src" && mkdir -p "$old_src"
need "unpack $old_tar" 0 -- tar -xf "$old_tar" -C "$old_src"
need cmake-configure-old 0 --log "$results/cmake-old.log" -- cmake -S "$old_src" -B "$old_build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DHETPROBE_ENABLE_CUDA=AUTO -DHETPROBE_ENABLE_TESTS=OFF
need build-old 0 --log "$results/build-old.log" -- cmake --build "$old_build" -j "$(nproc)" --target hetprobe
step "build this checkout"
gpu_node_ready 1 "$hetprobe"

# bandwidth_of BINARY FILE: bandwidth quiet, or without --quiet for an old build that lacks it
# shellcheck disable=SC2317  # run through expect
bandwidth_of() { "$1" bandwidth --quiet --out "$2" >/dev/null 2>&1 || "$1" bandwidth --out "$2" >/dev/null; }
run_all() {  # NAME BINARY ROUND
  local out=$results/$1-$3
  mkdir -p "$out"
  expect "$1-$3 sweep" 0 --out /dev/null -- \
    mpirun -np 2 "$2" interference --sizes 1KiB:1MiB:x4 --reps 10 --quiet --out "$out/sweep.jsonl"
  expect "$1-$3 notify" 0 --out /dev/null -- \
    "$2" notify --parts roundtrip --orders volatile,fence --quiet --out "$out/notify.jsonl"
  expect "$1-$3 bandwidth" 0 -- bandwidth_of "$2" "$out/bandwidth.jsonl"
  expect_files "$out"/{sweep,notify,bandwidth}.jsonl
}
run_rounds() {  # FIRST LAST
  local r
  for r in $(seq "$1" "$2"); do
    step "round $r: old, then new"
    run_all old "$old_build/bench/hetprobe" "$r"
    run_all new "$hetprobe" "$r"
  done
}
judge() { python3 "$root/tests/gpu/compare_medians.py" "$results" --tolerance "${COMPARE_TOLERANCE:-0.1}"; }
run_rounds 1 "$rounds"
step "medians, old vs new: the screen"
screen=0
judge >"$results/screen.md" || screen=$?
cat "$results/screen.md"
if ((screen == 1 && confirm_rounds > 0)); then
  step "a measurement moved in the screen: $confirm_rounds more rounds, then every launch judged"
  run_rounds $((rounds + 1)) $((rounds + confirm_rounds))
fi
step "medians, old vs new"
expect "every measurement kept (within ${COMPARE_TOLERANCE:-0.1} or overlapping)" 0 -- judge |
  tee "$results/compare.md"
finish
