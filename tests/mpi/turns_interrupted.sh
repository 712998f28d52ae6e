#!/usr/bin/env bash
# Ranks taking turns: each finished turn's records are in the file before the
# next turn starts, so Ctrl-C during rank 2's turn keeps ranks 0's and 1's.
source "$(dirname "$0")/common.sh"
mpirun3=("${mpirun[@]}")
mpirun3[2]=3 # "mpirun -np 2 ..." -> 3 ranks
# Device 2 slowed 100x: its turn lasts seconds, long enough to be interrupted.
export HETPROBE_HOST_DEVICES=3 HETPROBE_HOST_SLOW=2:100
setsid timeout 120 "${mpirun3[@]}" "$HETPROBE" notify --device host --parts roundtrip --orders volatile \
  --exchanges 20000 --warmup 2 --out "$work/n.jsonl" >/dev/null 2>"$work/err.txt" &
pid=$!
for _ in $(seq 600); do grep -q "turn 3 of 3" "$work/err.txt" 2>/dev/null && break; sleep 0.1; done
grep -q "turn 3 of 3" "$work/err.txt" || { cat "$work/err.txt"; exit 1; }
sleep 0.5  # into rank 2's turn
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
echo "exit code after SIGINT: $rc"
((rc != 0 && rc != 124))
ranks=$(python3 -c 'import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
print(sorted({r["rank"] for r in records if r.get("record") == "roundtrip"}))' "$work/n.jsonl")
echo "ranks with records: $ranks"
[[ $ranks == "[0, 1]" ]]
wait_session_ends "$pid"
