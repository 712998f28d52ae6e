#!/usr/bin/env bash
# `hetprobe show` on the committed results of every probe, in every format:
# each format holds every record the table shows (counted from the file
# itself), CSV (a file per table, --out) and JSON parse, and a run directory
# shows each of its files.
# show_formats.sh HETPROBE DATA_DIR
set -euo pipefail
hp=$1
data=$2
# shellcheck source=scratch.sh
source "$(dirname "$0")/scratch.sh"

# FILE TABLE RECORD: the rows TABLE must have = the file's RECORD records (rank 0's).
check() {
  local file=$data/$1 table=$2 record=$3
  "$hp" show "$file" >"$work/t.txt" || fail "show $1"
  for format in json markdown; do
    "$hp" show "$file" --format "$format" >"$work/t.$format" || fail "show $1 --format $format"
  done
  rm -rf "$work/csv"
  "$hp" show "$file" --format csv --out "$work/csv" 2>/dev/null || fail "show $1 --format csv --out DIR"
  python3 "$(dirname "$0")/check_show_formats.py" "$file" "$table" "$record" "$work" || fail "show $1: see above"
}

check h200-interference-sweep.jsonl.gz interference point
check h200x2-load/matrix.jsonl.gz interference point
check h200-notify.jsonl.gz roundtrip roundtrip
check h200-notify.jsonl.gz mechanisms mechanism
check h200-clock.jsonl clock_batches clock_batch
check h200-clock.jsonl clock_fit clock_fit
check h200x2-halo/paper-1.jsonl.gz halo halo
check h200x2-load/bandwidth.jsonl bandwidth point

# The table format keeps its columns, with units.
"$hp" show "$data/h200x2-load/matrix.jsonl.gz" >"$work/m.txt"
grep -Eq '^ +size access +layout load +median_us +p10_us +p90_us +ratio_to_ssb +ci95 effect +traffic_gbs  payload  eager_limit$' "$work/m.txt" \
  || fail "interference table header changed"
"$hp" show "$data/h200-notify.jsonl.gz" >"$work/n.txt"
grep -q "## Round trip" "$work/n.txt" || fail "no round-trip table"

# A run directory: every results file under its name, as text and as one JSON document.
dir=$(cd "$(dirname "$0")/../data/runs/h200x2-characterize" && pwd)  # the frozen copy: plain files
"$hp" show "$dir" >"$work/dir.txt"
for f in "$dir"/*.jsonl; do grep -qF "==> $f <==" "$work/dir.txt" || fail "show DIR: no heading for $f"; done
"$hp" show "$dir" --format json | python3 -c "
import json, sys, glob
doc = json.load(sys.stdin)
assert sorted(doc) == sorted(glob.glob('$dir/*.jsonl')), sorted(doc)
assert 'roundtrip' in doc['$dir/notify.jsonl'] and 'clock_fit' in doc['$dir/clock.jsonl']"
# --table picks one table: one CSV document.
"$hp" show "$dir" --format csv --table roundtrip | python3 -c "
import csv, sys
rows = list(csv.reader(sys.stdin))
assert rows[0][:3] == ['rank', 'cpu', 'gpu'] and all(rows[1:]), rows[:2]"
echo "OK: show prints every probe's files and a run directory in every format"
