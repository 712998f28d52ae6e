#!/usr/bin/env bash
# bandwidth end to end on the host backend, in the common session frame: the
# records of every row (with the rank), the header's planned records, --quiet
# (no progress lines, the table still printed: the one `hetprobe show` prints),
# progress lines without it, and under mpirun each rank on its own device
# (--gpu's default: the node-local rank's).
# bandwidth_runs.sh HETPROBE MPIEXEC [MPIEXEC FLAGS...]
set -euo pipefail
hp=$1
shift
mpiexec=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
fail() { echo "FAIL: $*"; exit 1; }
count() { grep -c "$1" "$2" || true; }
# A Python expression of the header h (the file's first line), as Python prints it.
header() { python3 -c "import json,sys; h=json.loads(open(sys.argv[1]).readline()); print(eval(sys.argv[2]))" "$@"; }

# 4 plain passes, 2 persistent writers, write stream and stacked, copy-d2h: 9 rows.
small=(--device host --size 1MiB --reps 2 --duration 0.01 --load write,copy-d2h)
"$hp" bandwidth "${small[@]}" --quiet --out "$work/q.jsonl" >"$work/q.txt" 2>"$work/q.err"
[[ ! -s "$work/q.err" ]] || fail "--quiet: stderr not empty: $(head -3 "$work/q.err")"
[[ $(count '"record":"point","probe":"bandwidth"' "$work/q.jsonl") == 9 ]] || fail "expected 9 point records"
[[ $(count '"record":"point".*"rank":0' "$work/q.jsonl") == 9 ]] || fail "every point record names rank 0"
[[ $(header "$work/q.jsonl" "h['planned_records']") == 9 ]] || fail "the header plans 9 records"
[[ $(header "$work/q.jsonl" "h['config']['reps']") == 2 ]] || fail "the header's config has --reps"
grep -q "load copy-d2h" "$work/q.txt" || fail "--quiet: no table on stdout"
"$hp" show "$work/q.jsonl" >"$work/show.txt"
diff "$work/show.txt" "$work/q.txt" || fail "the live table differs from hetprobe show's"

# Without --quiet: a progress line per row, the last one [9/9].
"$hp" bandwidth "${small[@]}" --out "$work/p.jsonl" >/dev/null 2>"$work/p.err"
grep -Eq "^\[9/9\] bandwidth load copy-d2h: median [0-9.]+ GB/s  elapsed [0-9]+:[0-9]{2}$" "$work/p.err" ||
  fail "no last progress line: $(cat "$work/p.err")"
grep -q "results in $work/p.jsonl" "$work/p.err" || fail "no 'results in' line"

# Two ranks, two host devices, no --gpu: rank r measures device r; rank 1's records follow rank 0's.
HETPROBE_HOST_DEVICES=2 "${mpiexec[@]}" -n 2 "$hp" bandwidth "${small[@]}" --quiet --out "$work/m.jsonl" >/dev/null
[[ $(count '"record":"point".*"rank":1' "$work/m.jsonl") == 9 ]] || fail "mpirun: rank 1's 9 records missing"
[[ $(header "$work/m.jsonl" "h['mpi']['ranks']") == 2 ]] || fail "mpirun: the header's mpi.ranks is not 2"
[[ $(header "$work/m.jsonl" "[r['device']['ordinal'] for r in h['ranks']]") == "[0, 1]" ]] ||
  fail "mpirun: the ranks' devices are not 0 and 1"
echo "OK: bandwidth wrote every row, --quiet, progress, one device per rank"
