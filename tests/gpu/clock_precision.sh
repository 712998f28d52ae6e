#!/usr/bin/env bash
# The clock fit's precision at its bound (issue 24 item 6), in one command on
# a GPU node: LAUNCHES times (default 3), the bare ping-pong (its minimum
# round trip, tests/gpu/bare_pingpong.cu: the CPU-timed flag round trip, and
# the clock sync's own GPU-initiated exchange timed on %globaltimer) and
# `hetprobe clock` with its defaults, back to back. Prints per launch the
# fit's precision_ns against half of each bare minimum, and the spread of
# precision_ns between launches. Gates: precision <= 1.1 x half the bare
# sync exchange's minimum; max/min of the launches' precision < 1.05. Also
# expects --device auto a GPU, and every bare and clock run exit 0 with its
# minimum or clock fit written. Exit 1 when an expectation fails, naming each.
#   tests/gpu/clock_precision.sh [LAUNCHES]
# Results: $RESULTS_DIR (default build-gpu/clock-precision).
set -euo pipefail
default_results=clock-precision
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
launches=${1:-3}
[[ -x $hetprobe ]] || build_gpu
expect_gpus 1 "$hetprobe"
for launch in $(seq "$launches"); do
  expect "bare-pingpong-$launch" 0 -- "$build/tests/gpu/bare_pingpong" |
    { grep -E '^bare-(pingpong|clock-sync)-min' || true; } >"$results/bare-$launch.txt"
  expect_files "$results/bare-$launch.txt"
  rm -f "$results/clock-$launch.jsonl"
  expect "clock-$launch" 0 --out "$results/clock-$launch.txt" -- \
    "$hetprobe" clock --quiet --out "$results/clock-$launch.jsonl"
  expect "clock-$launch fit" 0 -- python3 "$checks" records "$results/clock-$launch.jsonl" clock_fit
done
expect "precision within 1.1 x half the bare sync exchange, launches' max/min below 1.05" 0 -- \
  python3 - "$results" "$launches" <<'PY'
import json, sys
results, launches = sys.argv[1], int(sys.argv[2])
precisions, ok = [], True
for launch in range(1, launches + 1):
    bare = dict(kv.split("=") for kv in open(f"{results}/bare-{launch}.txt").read().split() if "=" in kv)
    half, cpu_half = float(bare["device_half_min_ns"]), float(bare["fence_half_min_ns"])
    fit = next(r for r in map(json.loads, open(f"{results}/clock-{launch}.jsonl")) if r.get("record") == "clock_fit")
    p = fit["precision_ns"]
    precisions.append(p)
    within = p <= 1.1 * half
    ok &= within
    print(f"launch {launch}: precision {p:.1f} ns (best {fit['best_precision_ns']:.1f} ns, {fit['samples_used']} of "
          f"{fit['samples_total']} samples); bare sync exchange: half minimum {half:.1f} ns, ratio {p / half:.3f} "
          f"({'within' if within else 'above'} 1.1); bare CPU-timed ping-pong: half minimum {cpu_half:.1f} ns, "
          f"ratio {p / cpu_half:.3f}")
spread = max(precisions) / min(precisions)
ok &= spread < 1.05
print(f"precision over {launches} launches: {min(precisions):.1f}-{max(precisions):.1f} ns, max/min {spread:.3f} "
      f"({'below' if spread < 1.05 else 'not below'} 1.05)")
sys.exit(0 if ok else 1)
PY
finish
