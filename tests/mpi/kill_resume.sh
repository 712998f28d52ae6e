#!/usr/bin/env bash
# A run killed with SIGKILL (mpirun and both ranks) mid-sweep leaves a
# readable file with its finished points; --resume completes it.
source "$(dirname "$0")/common.sh"
sweep=(interference --device host --sizes 1KiB:256KiB:x2 --layouts SSB,PSB,PCB,P2AB --reps 20 --warmup 1 --quiet
  --out "$work/r.jsonl")
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
# The points whose lines are whole: those --resume skips.
done=$(python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    try:
        n += json.loads(line).get("record") == "point"
    except ValueError:
        pass
print(n)' "$work/r.jsonl")
"${mpirun[@]}" "$HETPROBE" "${sweep[@]}" --resume >/dev/null 2>"$work/resume.txt"
"$CHECK" "$work/r.jsonl" 72 20 --headers 2
# The resumed run's header says so and plans the rest and the host memory record.
grep -q "72 points ($done already in $work/r.jsonl)" "$work/resume.txt"
python3 -c '
import json, sys
headers = [json.loads(l) for l in open(sys.argv[1]) if json.loads(l).get("record") == "header"]
assert [h["resumed"] for h in headers] == [False, True], [h["resumed"] for h in headers]
assert headers[1]["planned_records"] == 72 - int(sys.argv[2]) + 1, (headers[1]["planned_records"], sys.argv[2])
' "$work/r.jsonl" "$done"
