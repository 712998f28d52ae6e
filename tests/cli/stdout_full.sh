#!/usr/bin/env bash
# stdout_full.sh HETPROBE RESULTS_FILE: `show` into a full disk (/dev/full)
# printed nothing, yet exited 0 without a word. It must fail: exit 1 (the
# system's fault, not the input's) with a message saying so.
set -uo pipefail
hp=$1
[[ -c /dev/full ]] || { echo "SKIP: no /dev/full"; exit 77; }
err=$("$hp" show "$2" 2>&1 >/dev/full)
rc=$?
echo "$err"
[[ $rc == 1 ]] || { echo "FAIL: exit code $rc, expected 1"; exit 1; }
grep -q "cannot write to standard output: No space left on device" <<<"$err" || { echo "FAIL: no message"; exit 1; }
echo "OK: a full standard output is an error"
