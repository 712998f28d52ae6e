#!/usr/bin/env bash
# sweep.sh --expect N [hetprobe interference options]: runs a host-backend
# sweep with 3 samples per point and checks its N points.
source "$(dirname "$0")/common.sh"
args=("$@")
expect=${args[-1]}
args=("${args[@]:0:${#args[@]}-2}")
"${mpirun[@]}" "$HETPROBE" interference --device host --reps 3 --warmup 1 --timeout 60 --quiet \
  --out "$work/r.jsonl" "${args[@]}" >"$work/table.txt"
cat "$work/table.txt"
grep -q '^# harness' "$work/table.txt"
"$CHECK" "$work/r.jsonl" "$expect" 3
