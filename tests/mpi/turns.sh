#!/usr/bin/env bash
# Per-device probes under 3 ranks on the host backend's 3 simulated devices,
# device 1 slowed 3x (HETPROBE_HOST_SLOW=1:3): every rank's records, each rank
# its own device; by default the ranks take turns (their measuring times do
# not overlap), with --concurrent they measure at once; rank 1 is the slow one
# in notify's round trips and bandwidth's plain passes.
source "$(dirname "$0")/common.sh"
mpirun3=("${mpirun[@]}")
mpirun3[2]=3 # "mpirun -np 2 ..." -> 3 ranks
export HETPROBE_HOST_DEVICES=3 HETPROBE_HOST_SLOW=1:3
hp() { "${mpirun3[@]}" "$HETPROBE" "$@" --device host --quiet >/dev/null; }

check() { python3 "$(dirname "$0")/check_turns.py" "$@"; }

# The slowdown: up to 5 tries, for a busy machine's sake: where other work
# takes a CPU, a rank's two threads (host and "device") share the other one
# and its round trips jump from ~0.2 us to ~130 us for its whole turn, which
# hides a 3x slowdown when it happens to another rank's turn than the slowed
# one's. The file's shape must hold every time.
slowdown_seen() {  # PROBE ARGS...
  local probe=$1 try rc
  shift
  local files=""
  for try in 1 2 3 4 5; do
    hp "$probe" "$@" --out "$work/$probe-$try.jsonl"
    files+=${files:+,}$work/$probe-$try.jsonl
    rc=0
    check "$files" "$probe" in-turn slow || rc=$?
    [[ $rc == 0 ]] && return 0
    [[ $rc == 3 ]] || exit 1
    echo "try $try: rank 1 (slowed 3x) not clearly slower than ranks 0 and 2 in the best of the runs so far (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
  done
  exit 1
}
slowdown_seen notify --parts roundtrip --orders volatile --exchanges 300 --warmup 10
slowdown_seen bandwidth --size 16MiB --reps 5 --duration 0.02 --load none
# clock runs at least --span + --check-after per rank: long enough that
# --concurrent ranks overlap however the scheduler starts them.
clock=(clock --span 0.3 --batches 2 --check-after 0.1 --samples 20)
hp "${clock[@]}" --out "$work/clock.jsonl"
check "$work/clock.jsonl" clock in-turn
hp "${clock[@]}" --concurrent --out "$work/clock-concurrent.jsonl"
check "$work/clock-concurrent.jsonl" clock concurrent
