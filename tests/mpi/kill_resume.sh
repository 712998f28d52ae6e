#!/usr/bin/env bash
# A run killed with SIGKILL (mpirun and both ranks) mid-sweep leaves a
# readable file with its finished points; --resume completes it.
source "$(dirname "$0")/common.sh"
sweep=(interference --device host --sizes 1KiB:256KiB:x2 --reps 20 --warmup 1 --quiet --out "$work/r.jsonl")
# In a session of its own, so the kill ends this run's processes and no other's.
setsid "${mpirun[@]}" "$HETPROBE" "${sweep[@]}" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do (($(points_in "$work/r.jsonl") >= 5)) && break; sleep 0.1; done
kill_session "$pid"  # mpirun and both ranks at once, as a node failure would
wait "$pid" 2>/dev/null || true
kept=$(points_in "$work/r.jsonl")
echo "killed with $kept of 72 points in the file"
((kept >= 5 && kept < 72))
"$CHECK" "$work/r.jsonl" any 20 --allow-truncated
# Without --resume the file is refused (exit 2), and left as it was.
if "${mpirun[@]}" "$HETPROBE" "${sweep[@]}" 2>"$work/err.txt"; then exit 1; fi
grep -q -- "--resume" "$work/err.txt"
"${mpirun[@]}" "$HETPROBE" "${sweep[@]}" --resume >/dev/null
"$CHECK" "$work/r.jsonl" 72 20 --headers 2
