#!/usr/bin/env bash
# notify and clock end to end on the host backend: the records each run must
# write, rank 1's records under mpirun, and `hetprobe show` of both files.
# probe_runs.sh HETPROBE MPIEXEC [MPIEXEC FLAGS...]
set -euo pipefail
hp=$1
shift
mpiexec=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
fail() { echo "FAIL: $*"; exit 1; }
count() { grep -c "\"record\":\"$1\"" "$2" || true; }

small=(--exchanges 300 --mechanism-samples 100 --overhead-samples 5 --overhead-ops 200 --warmup 10 --quiet)
"$hp" notify --device host "${small[@]}" --out "$work/n.jsonl" >"$work/n.txt"
[[ $(count header "$work/n.jsonl") == 1 ]] || fail "notify: expected 1 header"
# 6 default order pairs x {cpu, gpu} x {uncontended, contended}; x 2 directions.
[[ $(count overhead "$work/n.jsonl") == 24 ]] || fail "notify: expected 24 overhead records"
[[ $(count roundtrip "$work/n.jsonl") == 12 ]] || fail "notify: expected 12 roundtrip records"
[[ $(count mechanism "$work/n.jsonl") == 12 ]] || fail "notify: expected 12 mechanism records"
[[ $(grep -c '"status":"ok"' "$work/n.jsonl") == 3 ]] || fail "notify: the 3 pinned-flag mechanisms must measure on host"
grep -q '"skipped_reason":"no kernel launches on the host backend"' "$work/n.jsonl" || fail "notify: no skip reason"
grep -q "## Mechanisms" "$work/n.txt" || fail "notify: no mechanism table"
"$hp" show "$work/n.jsonl" >"$work/n-show.txt"
grep -q "## Round trip" "$work/n-show.txt" || fail "show: no round-trip table from the notify file"

# Without --quiet: the progress lines on stderr name each record, count them
# (3 fit batches, the check batch, the fit), and say the time taken and left.
"$hp" clock --device host --span 0.6 --batches 3 --check-after 0.2 --samples 50 --out "$work/c.jsonl" >"$work/c.txt" \
  2>"$work/c.err"
grep -Eq "^\[4/5\] clock batch 3 \(check\) .* elapsed [0-9]+:[0-9]{2}  ETA [0-9]+:[0-9]{2}$" "$work/c.err" ||
  fail "clock: no progress line with elapsed time and ETA for the check batch"
grep -Eq "^\[5/5\] .* elapsed [0-9]+:[0-9]{2}$" "$work/c.err" || fail "clock: no last progress line (without ETA)"
[[ $(count clock_batch "$work/c.jsonl") == 4 ]] || fail "clock: expected 3 fit batches and 1 check batch"
[[ $(count clock_fit "$work/c.jsonl") == 1 ]] || fail "clock: expected 1 fit record"
grep -q '"within_precision":' "$work/c.jsonl" || fail "clock: no prediction check"
grep -q "drift" "$work/c.txt" || fail "clock: no drift in the table"
"$hp" show "$work/c.jsonl" >"$work/c-show.txt"
grep -q "fit over" "$work/c-show.txt" || fail "show: no fit from the clock file"

"${mpiexec[@]}" -n 2 "$hp" notify --device host --parts roundtrip --orders volatile "${small[@]}" --out "$work/m.jsonl" >/dev/null
[[ $(grep -c '"record":"roundtrip".*"rank":1' "$work/m.jsonl") == 2 ]] || fail "notify under mpirun: rank 1's records missing"
echo "OK: notify and clock wrote every record; show printed both"
