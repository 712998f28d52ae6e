#!/usr/bin/env bash
# Ctrl-C (SIGINT to mpirun) stops the run with a non-zero exit and keeps
# every finished point in a readable file; SIGINT to a rank waiting in clock
# sync ends the run at once with exit 130.
source "$(dirname "$0")/common.sh"
setsid "${mpirun[@]}" "$HETPROBE" interference --device host --sizes 1KiB:256KiB:x2 --reps 400 --warmup 1 --quiet \
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
"$CHECK" "$work/r.jsonl" any 400 --allow-truncated
wait_session_ends "$pid"  # its ranks too (this run's session only)

# The first SIGINT to one rank while both wait in clock sync (between two
# batches of a 600 s span, --timeout a day) ends the whole run: exit 130, the
# finished batch kept. `timeout` only keeps a broken build from hanging CI.
clock=(clock --device host --span 600 --batches 3 --samples 20 --timeout 86400 --quiet)
first_batch() { for _ in $(seq 600); do grep -q '"record":"clock_batch"' "$1" 2>/dev/null && return; sleep 0.1; done; }
setsid timeout 120 "${mpirun[@]}" "$HETPROBE" "${clock[@]}" --out "$work/c.jsonl" >/dev/null 2>"$work/clock_err.txt" &
pid=$!
first_batch "$work/c.jsonl"
rank=$(ps -o pid=,args= -s "$pid" | awk -v hp="$HETPROBE" '$2 == hp {print $1}' | tail -1)
kill -INT "$rank"
rc=0
wait "$pid" || rc=$?
echo "clock under mpirun, exit code after SIGINT to rank pid $rank: $rc"
cat "$work/clock_err.txt"
((rc == 130))
grep -q '"record":"header"' "$work/c.jsonl"
grep -q '"record":"clock_batch"' "$work/c.jsonl"
wait_session_ends "$pid"

# The same with one process, as Ctrl-C in a terminal sends it.
setsid timeout 120 "$HETPROBE" "${clock[@]}" --out "$work/c1.jsonl" >/dev/null 2>"$work/clock1_err.txt" &
pid=$!
first_batch "$work/c1.jsonl"
rank=$(ps -o pid=,args= -s "$pid" | awk -v hp="$HETPROBE" '$2 == hp {print $1}')
kill -INT "$rank"
rc=0
wait "$pid" || rc=$?
echo "clock alone, exit code after SIGINT: $rc"
((rc == 130))
grep -q '"record":"clock_batch"' "$work/c1.jsonl"
wait_session_ends "$pid"
