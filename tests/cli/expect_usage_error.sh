#!/usr/bin/env bash
# expect_usage_error.sh REGEX -- COMMAND...: COMMAND must exit 2 with REGEX
# in its stderr and must not create the output file (@OUT@ in COMMAND is
# replaced by a path in a fresh directory).
set -uo pipefail
regex=$1
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$work/out.jsonl
cmd=("${@//@OUT@/$out}")
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
"${cmd[@]}" >"$work/stdout" 2>"$work/stderr"
rc=$?
cat "$work/stderr"
[[ $rc == 2 ]] || { echo "FAIL: exit code $rc, expected 2"; exit 1; }
grep -Eq -- "$regex" "$work/stderr" || { echo "FAIL: stderr does not match /$regex/"; exit 1; }
[[ ! -e $out ]] || { echo "FAIL: $out was created"; exit 1; }
echo "OK: exit 2, message matches /$regex/, nothing written"
