#!/usr/bin/env bash
# expect_usage_error.sh [--existing FILE] REGEX -- COMMAND...: COMMAND must
# exit 2 with REGEX in its stderr and write nothing: @OUT@ in COMMAND is
# replaced by a path in a fresh directory, which must not be created (with
# --existing, it starts as a copy of FILE and its bytes must not change), and
# COMMAND runs in an empty directory that must stay empty (a default results
# file would land there). An argument @EMPTY@ is passed as "".
set -uo pipefail
existing=
if [[ $1 == --existing ]]; then
  existing=$2
  shift 2
fi
regex=$1
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$work/out.jsonl
[[ -z $existing ]] || cp "$existing" "$out"
mkdir "$work/cwd"
cmd=("${@//@OUT@/$out}")
for k in "${!cmd[@]}"; do [[ ${cmd[k]} != @EMPTY@ ]] || cmd[k]=""; done  # an empty argument (CMake drops "")
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
(cd "$work/cwd" && "${cmd[@]}") >"$work/stdout" 2>"$work/stderr"
rc=$?
cat "$work/stderr"
fail() { echo "FAIL: $*"; exit 1; }
[[ $rc == 2 ]] || fail "exit code $rc, expected 2"
grep -Eq -- "$regex" "$work/stderr" || fail "stderr does not match /$regex/"
if [[ -n $existing ]]; then
  cmp -s "$existing" "$out" || fail "$out (a copy of $existing) changed"
else
  [[ ! -e $out ]] || fail "$out was created"
fi
[[ -z $(ls -A "$work/cwd") ]] || fail "files were written in the working directory: $(ls -A "$work/cwd")"
echo "OK: exit 2, message matches /$regex/, nothing written"
