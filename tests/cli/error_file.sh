#!/usr/bin/env bash
# HETPROBE_ERROR_FILE: a failing run appends one JSON line per reporting
# process, {kind, exit_code, message, rank, host}, so a launcher reads why
# it failed without searching the log; a run that succeeds writes none.
#   error_file.sh HETPROBE
set -euo pipefail
hp=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
field() { python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; print(len(r), r[0]$2)" "$1"; }

# A parse error (CLI11), before any probe runs.
rc=0; HETPROBE_ERROR_FILE=$work/parse.jsonl "$hp" clock --device host --batches 1 >/dev/null 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "--batches 1: exit $rc, expected 2"
[[ $(field "$work/parse.jsonl" "['kind'], r[0]['exit_code']") == "1 usage 2" ]] || fail "parse: $(cat "$work/parse.jsonl")"
grep -q "is not a whole number in" "$work/parse.jsonl" || fail "parse: the message is not the parser's"

# A check the session makes on every rank (agreed before anything is written): its rank and host.
rc=0; HETPROBE_ERROR_FILE=$work/check.jsonl "$hp" notify --device host --host-memory coherent --quiet \
  --out "$work/n.jsonl" >/dev/null 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "--host-memory coherent: exit $rc, expected 2"
[[ $(field "$work/check.jsonl" "['kind'], r[0]['rank']") == "1 usage 0" ]] || fail "check: $(cat "$work/check.jsonl")"
[[ ! -s $work/n.jsonl ]] || fail "check: a results file was written"

# A run that succeeds records nothing.
HETPROBE_ERROR_FILE=$work/ok.jsonl "$hp" clock --device host --span 0.2 --check-after 0 --batches 2 --samples 20 \
  --quiet --out "$work/c.jsonl" >/dev/null 2>&1 || fail "a good clock run failed"
[[ ! -s $work/ok.jsonl ]] || fail "a good run recorded an error: $(cat "$work/ok.jsonl")"
echo "error_file: ok"
