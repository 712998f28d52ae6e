#!/usr/bin/env bash
# Ctrl-C (SIGINT to mpirun) stops the run with a non-zero exit and keeps
# every finished point in a readable file.
source "$(dirname "$0")/common.sh"
"${mpirun[@]}" "$HETPROBE" interference --device host --sizes 1KiB:256KiB:x2 --reps 20 --warmup 1 --quiet \
  --out "$work/r.jsonl" >/dev/null 2>"$work/err.txt" &
pid=$!
for _ in $(seq 600); do (($(points_in "$work/r.jsonl") >= 3)) && break; sleep 0.1; done
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
echo "exit code after SIGINT: $rc"
((rc != 0))
kept=$(points_in "$work/r.jsonl")
((kept >= 3 && kept < 72))
"$CHECK" "$work/r.jsonl" any 20 --allow-truncated
while pgrep -f "$HETPROBE interference" >/dev/null; do sleep 0.1; done
